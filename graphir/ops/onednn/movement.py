"""Data movement and graph-structure ops: Concat, StaticReshape, StaticTranspose, Reorder,
TypeCast, GenIndex, Interpolate(+Backward), End and Wildcard."""
from __future__ import annotations

import math
from typing import ClassVar, Literal

import numpy as np

from graphir.ops.onednn.base import (
    FLOAT, S32, BackwardOp, OneDNNOp, Port, TensorType, as_f32, cast_to, static_dims, to_shape, types,
)
from graphir.ops.onednn.conv import from_ncx, join_layout, split_layout, to_ncx
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


class Concat(OneDNNOp):
    type_name: ClassVar[str] = "Concat"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src_i", FLOAT, variadic=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    axis: int

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, tuple(range(len(inputs))))
        ranked = [t.shape for t in inputs if t.shape.rank_is_static]
        if not ranked:
            return [TensorType(et, PartialShape.dynamic())]
        rank = len(ranked[0])
        axis = self.axis_of(self.axis, rank)
        out: list[Dimension] = list(ranked[0].dims)
        total = Dimension.static(0)
        for i, t in enumerate(inputs):
            s = t.shape
            if s.rank_is_dynamic:
                total = Dimension.dynamic()
                continue
            if len(s) != rank:
                raise self.fail(f"input {i} {s} has rank {len(s)}; input 0 has rank {rank}")
            for d in range(rank):
                if d == axis:
                    continue
                merged = out[d].merge(s[d])
                if merged is None:
                    raise self.fail(f"input {i} {s} differs from the others at axis {d} (concat axis {axis})")
                out[d] = merged
            total = total + s[axis]
        out[axis] = total
        return [TensorType(et, PartialShape(out))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        return [np.concatenate(arrays, axis=self.axis)]


class StaticReshape(OneDNNOp):
    """Reshape to ``shape``; -1 infers one dim; with ``special_zero`` a 0 copies the input dim."""

    type_name: ClassVar[str] = "StaticReshape"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    shape: list[int]
    special_zero: bool

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        dims: list[int | None] = []
        for i, v in enumerate(self.shape):
            if v == 0 and self.special_zero:
                if src.rank_is_dynamic or i >= len(src):
                    if src.rank_is_static:
                        raise self.fail(f"attribute 'shape' {self.shape}: 0 at {i} copies a dim input 0 {src} does not have")
                    dims.append(None)
                else:
                    dims.append(src[i].get_length() if src[i].is_static else None)
            elif v < -1:
                raise self.fail(f"attribute 'shape' {self.shape} has an invalid value {v}")
            else:
                dims.append(v)
        if dims.count(-1) > 1:
            raise self.fail(f"attribute 'shape' {self.shape} has more than one -1")
        if -1 in dims:
            known = [d for d in dims if d not in (-1, None)]
            if src.is_static and None not in dims:
                total = math.prod(src.to_shape())
                rest = math.prod(known)
                if rest == 0 or total % rest:
                    raise self.fail(f"cannot reshape input 0 {src} ({total} elements) to {self.shape}")
                dims[dims.index(-1)] = total // rest
            else:
                dims[dims.index(-1)] = None
        elif src.is_static and None not in dims:
            total = math.prod(src.to_shape())
            if total != math.prod(d for d in dims if d is not None):  # None is not in dims here
                raise self.fail(f"cannot reshape input 0 {src} ({total} elements) to {self.shape}")
        return [TensorType(inputs[0].element_type, to_shape(dims))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = arrays[0]
        target = [x.shape[i] if v == 0 and self.special_zero else v for i, v in enumerate(self.shape)]
        return [x.reshape(target)]


class StaticTranspose(OneDNNOp):
    type_name: ClassVar[str] = "StaticTranspose"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    order: list[int]

    def _order(self, rank: int) -> list[int]:
        if not self.order:
            return list(range(rank))[::-1]
        order = [o + rank if o < 0 else o for o in self.order]
        if sorted(order) != list(range(rank)):
            raise self.fail(f"attribute 'order' {self.order} is not a permutation of {rank} axes")
        return order

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        if src.rank_is_dynamic:
            return [TensorType(inputs[0].element_type, PartialShape.dynamic(len(self.order) or None))]
        return [TensorType(inputs[0].element_type, PartialShape([src[o] for o in self._order(len(src))]))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        return [np.transpose(arrays[0], self._order(arrays[0].ndim))]


class Reorder(OneDNNOp):
    """A copy into another memory layout: values, type and shape unchanged."""

    type_name: ClassVar[str] = "Reorder"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return self.identity(inputs)

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        return [np.array(arrays[0], copy=True)]


class TypeCast(OneDNNOp):
    """Element type conversion among f32/bf16/f16; the dst type is declared by the graph."""

    type_name: ClassVar[str] = "TypeCast"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    free_output_types: ClassVar[frozenset[int]] = frozenset({0})

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        return [TensorType(self.output_element_type(0, inputs[0].element_type), inputs[0].shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        et = self.output_element_type(0, ElementType.from_numpy(arrays[0].dtype))
        return [cast_to(as_f32(arrays[0]), et)]


class GenIndex(OneDNNOp):
    """Each element's coordinate along ``axis`` (s32), src's shape."""

    type_name: ClassVar[str] = "GenIndex"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", S32),)
    axis: int

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        if inputs[0].shape.rank_is_static:
            self.axis_of(self.axis, len(inputs[0].shape))
        return [TensorType(ElementType.i32, inputs[0].shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = arrays[0]
        axis = self.axis % x.ndim
        view = [1] * x.ndim
        view[axis] = x.shape[axis]
        return [np.broadcast_to(np.arange(x.shape[axis], dtype=np.int32).reshape(view), x.shape).copy()]


class End(OneDNNOp):
    """Marks its input as a graph output; computes nothing and has no outputs."""

    type_name: ClassVar[str] = "End"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", types("f32", "f16", "bf16", "i8", "u8", "i32")),)
    outputs: ClassVar[tuple[Port, ...]] = ()

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        return []

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        return []


class Wildcard(OneDNNOp):
    """Opaque framework logic: any inputs/outputs; output types are what the graph declares."""

    type_name: ClassVar[str] = "Wildcard"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", None, optional=True, variadic=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", None, optional=True, variadic=True),)
    runnable: ClassVar[bool] = False
    min_outputs: ClassVar[int | None] = 0

    def num_outputs(self) -> int:
        return self._output_count or 0

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        declared = list(self._declared_types or ())
        declared += [ElementType.dynamic] * (self.num_outputs() - len(declared))
        return [TensorType(declared[i], PartialShape.dynamic()) for i in range(self.num_outputs())]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        from graphir.errors import EvaluationError

        raise EvaluationError(f"{self.describe()} stands for framework logic oneDNN does not implement; it cannot run")


InterpolateMode = Literal["nearest", "linear", "bilinear", "trilinear"]
CoordinateMode = Literal["half_pixel", "align_corners"]


def _source_coordinates(out_size: int, in_size: int, mode: str, scale: float | None) -> np.ndarray:
    x = np.arange(out_size, dtype=np.float64)
    if mode == "align_corners":
        return x * (in_size - 1) / (out_size - 1) if out_size > 1 else np.zeros_like(x)
    s = scale if scale is not None else out_size / in_size
    return (x + 0.5) / s - 0.5


class Interpolate(OneDNNOp):
    """Resize the spatial axes to ``sizes`` (attribute or input 1) or by ``scales``."""

    type_name: ClassVar[str] = "Interpolate"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("sizes", S32, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    mode: InterpolateMode
    sizes: list[int] = []
    scales: list[float] = []
    coordinate_transformation_mode: CoordinateMode = "half_pixel"
    data_format: Literal["NXC", "NCX"] = "NXC"

    def out_spatial(self, spatial: list[int | None], inputs: list[TensorType]) -> list[int | None]:
        if len(inputs) > 1:
            value = inputs[1].value
            if value is None:
                return [None] * len(spatial)
            return [int(v) for v in np.asarray(value).reshape(-1)]
        if self.sizes:  # sizes win over scales, as oneDNN applies them last
            if len(self.sizes) != len(spatial):
                raise self.fail(f"attribute 'sizes' {self.sizes} must have {len(spatial)} values (spatial axes)")
            return list(self.sizes)
        if self.scales:
            if len(self.scales) != len(spatial):
                raise self.fail(f"attribute 'scales' {self.scales} must have {len(spatial)} values (spatial axes)")
            # float32 product truncated, as oneDNN computes it
            return [None if s is None else int(np.float32(s) * np.float32(f)) for s, f in zip(spatial, self.scales)]
        raise self.fail("neither attribute 'sizes' nor 'scales' nor input 1 ('sizes') is given")

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        if src.rank_is_dynamic:
            return [TensorType(inputs[0].element_type, PartialShape.dynamic())]
        n, c, spatial = split_layout(static_dims(src), self.data_format)
        return [TensorType(inputs[0].element_type, to_shape(join_layout(n, c, self.out_spatial(spatial, inputs), self.data_format)))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = to_ncx(as_f32(arrays[0]), self.data_format)
        spatial = list(x.shape[2:])
        if len(arrays) > 1:
            outs = [int(v) for v in np.asarray(arrays[1]).reshape(-1)]
        else:
            outs = self.out_spatial(spatial, [TensorType.of("f32", list(arrays[0].shape))])  # type: ignore[assignment]
        for i, (size, out) in enumerate(zip(spatial, outs)):
            assert out is not None
            scale = self.scales[i] if self.scales and not self.sizes and len(arrays) == 1 else None
            coords = _source_coordinates(out, size, self.coordinate_transformation_mode, scale)
            axis = 2 + i
            if self.mode == "nearest":
                idx = np.clip(np.floor(coords + 0.5).astype(np.int64), 0, size - 1)
                x = np.take(x, idx, axis=axis)
            else:
                c = np.clip(coords, 0, size - 1)
                lo = np.floor(c).astype(np.int64)
                hi = np.minimum(lo + 1, size - 1)
                w = (c - lo).astype(np.float32)
                view = [1] * x.ndim
                view[axis] = -1
                x = np.take(x, lo, axis=axis) * (1 - w.reshape(view)) + np.take(x, hi, axis=axis) * w.reshape(view)
        return [cast_to(from_ncx(x, self.data_format), ElementType.from_numpy(arrays[0].dtype))]


class InterpolateBackward(BackwardOp):
    type_name: ClassVar[str] = "InterpolateBackward"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("diff_dst", FLOAT), Port("sizes", S32, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT),)
    mode: InterpolateMode
    sizes: list[int] = []
    scales: list[float] = []
    coordinate_transformation_mode: CoordinateMode = "half_pixel"
    data_format: Literal["NXC", "NCX"] = "NXC"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        return [TensorType(self.merge_types(inputs, (0, 1)), inputs[0].shape)]
