"""MatMul, reductions, (dynamic) quantization and Dropout."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.broadcast import numpy_merge, one_way_merge
from graphir.ops.onednn.base import (
    FLOAT, S32, OneDNNOp, Port, TensorType, as_f32, cast_to, types,
)
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

QUANTIZED = types("u8", "i8", "f8e5m2", "f8e4m3")


class MatMul(OneDNNOp):
    """Batched matrix product (numpy rules for 1-D operands and batch broadcast) plus optional bias."""

    type_name: ClassVar[str] = "MatMul"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("weights", FLOAT), Port("bias", FLOAT, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    free_output_types: ClassVar[frozenset[int]] = frozenset({0})
    transpose_a: bool = False
    transpose_b: bool = False
    accumulation_mode: Literal["strict", "relaxed", "any", "f32", "s32", "f16"] = "strict"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        a, b = inputs[0].shape, inputs[1].shape
        out_type = self.output_element_type(0, et)
        if a.rank_is_dynamic or b.rank_is_dynamic:
            return [TensorType(out_type, PartialShape.dynamic())]
        ad, bd = list(a.dims), list(b.dims)
        if not ad or not bd:
            raise self.fail(f"inputs 0 ('src') {a} and 1 ('weights') {b} must have rank >= 1")
        if self.transpose_a and len(ad) >= 2:
            ad[-1], ad[-2] = ad[-2], ad[-1]
        if self.transpose_b and len(bd) >= 2:
            bd[-1], bd[-2] = bd[-2], bd[-1]
        a1, b1 = len(ad) == 1, len(bd) == 1
        if a1:
            ad = [Dimension.static(1)] + ad
        if b1:
            bd = bd + [Dimension.static(1)]
        if not ad[-1].compatible(bd[-2]):
            raise self.fail(
                f"inner dims differ: input 0 ('src') {a} (transpose_a={self.transpose_a}) and input 1 "
                f"('weights') {b} (transpose_b={self.transpose_b})")
        batch = numpy_merge(PartialShape(ad[:-2]), PartialShape(bd[:-2]))
        if batch is None:
            raise self.fail(f"batch dims of input 0 ('src') {a} and input 1 ('weights') {b} cannot be broadcast")
        dims = list(batch.dims) + ([] if a1 else [ad[-2]]) + ([] if b1 else [bd[-1]])
        out = PartialShape(dims)
        if len(inputs) > 2 and one_way_merge(out, inputs[2].shape) is None:
            raise self.fail(f"input 2 ('bias') {inputs[2].shape} cannot be broadcast to the output {out}")
        return [TensorType(out_type, out)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        a, b = as_f32(arrays[0]), as_f32(arrays[1])
        if self.transpose_a and a.ndim >= 2:
            a = np.swapaxes(a, -1, -2)
        if self.transpose_b and b.ndim >= 2:
            b = np.swapaxes(b, -1, -2)
        out = np.matmul(a, b)
        if len(arrays) > 2:
            out = out + as_f32(arrays[2])
        return [cast_to(out, self.output_element_type(0, ElementType.from_numpy(arrays[0].dtype)))]


class _Reduce(OneDNNOp):
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("axes", S32, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    axes: list[int] = []
    keep_dims: bool = False

    def _axes(self, rank: int, inputs: list[TensorType] | None = None, given: np.ndarray | None = None) -> list[int] | None:
        if given is not None:
            raw = [int(v) for v in np.asarray(given).reshape(-1)]
        elif inputs is not None and len(inputs) > 1:
            if inputs[1].value is None:
                return None
            raw = [int(v) for v in np.asarray(inputs[1].value).reshape(-1)]
        else:
            raw = list(self.axes)
            if not raw:
                raise self.fail("attribute 'axes' is empty and input 1 ('axes') is not connected")
        axes = [self.axis_of(a, rank, "axes") for a in raw]
        if len(set(axes)) != len(axes):
            raise self.fail(f"axes {raw} name an axis twice (rank {rank})")
        return sorted(axes)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        if src.rank_is_dynamic:
            return [TensorType(inputs[0].element_type, PartialShape.dynamic())]
        axes = self._axes(len(src), inputs)
        if axes is None:
            rank = len(src) if self.keep_dims else None
            return [TensorType(inputs[0].element_type, PartialShape.dynamic(rank))]
        dims = [Dimension.static(1) if i in axes else d for i, d in enumerate(src)] if self.keep_dims else \
            [d for i, d in enumerate(src) if i not in axes]
        return [TensorType(inputs[0].element_type, PartialShape(dims))]

    def reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = arrays[0]
        axes = tuple(self._axes(x.ndim, given=arrays[1] if len(arrays) > 1 else None) or ())
        out = self.reduce(as_f32(x), axes)
        if self.keep_dims:
            out = np.expand_dims(out, axes) if axes else out
        return [cast_to(np.asarray(out), ElementType.from_numpy(x.dtype))]


class ReduceL1(_Reduce):
    type_name: ClassVar[str] = "ReduceL1"

    def reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.abs(x).sum(axis=axes)


class ReduceL2(_Reduce):
    type_name: ClassVar[str] = "ReduceL2"

    def reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.sqrt((x * x).sum(axis=axes))


class ReduceMax(_Reduce):
    type_name: ClassVar[str] = "ReduceMax"

    def reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return x.max(axis=axes)


class ReduceMin(_Reduce):
    type_name: ClassVar[str] = "ReduceMin"

    def reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return x.min(axis=axes)


class ReduceMean(_Reduce):
    type_name: ClassVar[str] = "ReduceMean"

    def reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        if x.size == 0:  # 0 / 0 over an empty axis, as the OpenVINO ReduceMean (np.mean would warn)
            with np.errstate(all="ignore"):
                return x.sum(axis=axes) / x.dtype.type(0)
        return x.mean(axis=axes)


class ReduceProd(_Reduce):
    type_name: ClassVar[str] = "ReduceProd"

    def reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return x.prod(axis=axes)


class ReduceSum(_Reduce):
    type_name: ClassVar[str] = "ReduceSum"

    def reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return x.sum(axis=axes)


# --- quantization ------------------------------------------------------------------------------
QType = Literal["per_tensor", "per_channel", "per_group"]


def _per_axis(values: np.ndarray, rank: int, axis: int) -> np.ndarray:
    shape = [1] * rank
    if values.size > 1:
        shape[axis] = values.size
    return values.reshape(shape) if rank else values.reshape(())


def _per_group_channel(values: np.ndarray, shape: tuple[int, ...], axis: int, groups: int) -> np.ndarray:
    """``groups x shape[axis]`` values laid out over dim 0 (groups of ``shape[0] / groups``) and ``axis``."""
    table = np.repeat(values.reshape(groups, shape[axis]), shape[0] // groups, axis=0)
    out_shape = [1] * len(shape)
    out_shape[0], out_shape[axis] = shape[0], shape[axis]
    return table.reshape(out_shape)


def _saturate(values: np.ndarray, et: ElementType) -> np.ndarray:
    if et.is_integral_number:
        info = np.iinfo(et.numpy_dtype) if et.bitwidth >= 8 else None
        lo, hi = (info.min, info.max) if info is not None else ((-8, 7) if et is ElementType.i4 else (0, 15))
        return np.clip(np.rint(values), lo, hi).astype(et.numpy_dtype)
    return values.astype(et.numpy_dtype)


class _StaticQuant(OneDNNOp):
    qtype: Literal["per_tensor", "per_channel"] = "per_tensor"
    axis: int = 1
    scales: list[float]
    zps: list[int] = []

    def _check(self, inputs: list[TensorType]) -> None:
        src = inputs[0].shape
        if self.zps and len(self.zps) != len(self.scales):
            raise self.fail(f"attributes 'scales' ({len(self.scales)} values) and 'zps' ({len(self.zps)} values) differ in length")
        if self.qtype == "per_tensor" and len(self.scales) != 1:
            raise self.fail(f"qtype 'per_tensor' needs one scale, got {len(self.scales)}")
        if self.qtype == "per_channel" and src.rank_is_static:
            axis = self.axis_of(self.axis, len(src))
            d = src[axis]
            if d.is_static and d.get_length() != len(self.scales) and self._groups(
                    [x.get_length() if x.is_static else None for x in src.dims], axis) is None:
                raise self.fail(f"qtype 'per_channel': {len(self.scales)} scales for axis {axis} of input 0 ('src') {src}")

    def _groups(self, shape: "list[int | None] | tuple[int, ...]", axis: int) -> int | None:
        """Grouped weights (oneDNN runs int8_convtranspose_post_ops_add_fusion.json): ``groups x
        channels`` scales for ``axis`` (1, the per-group channels of IOX/OIX weights) with the
        groups in dim 0; the group count, or None when the scales do not count so."""
        n, d = len(self.scales), shape[axis]
        if axis == 0 or not d or n % d or shape[0] is None:
            return None
        groups = n // d
        return groups if groups > 1 and shape[0] % groups == 0 else None

    def _params(self, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        rank = len(shape)
        axis = self.axis % rank if rank else 0
        scales = np.asarray(self.scales, np.float32)
        zps = np.asarray(self.zps or [0] * len(self.scales), np.float32)
        groups = self._groups(shape, axis) if self.qtype == "per_channel" and rank and shape[axis] != scales.size else None
        if groups is not None:  # element (i, .., c, ..) takes scale [i // (dim0 / groups), c]
            return _per_group_channel(scales, shape, axis, groups), _per_group_channel(zps, shape, axis, groups)
        return _per_axis(scales, rank, axis), _per_axis(zps, rank, axis)


class Quantize(_StaticQuant):
    """round(src / scale) + zp, saturated into the declared dst type (u8, s8, f8)."""

    type_name: ClassVar[str] = "Quantize"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", types("f32")),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", QUANTIZED),)
    free_output_types: ClassVar[frozenset[int]] = frozenset({0})

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        self._check(inputs)
        return [TensorType(self.output_element_type(0, ElementType.u8), inputs[0].shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = as_f32(arrays[0])
        scales, zps = self._params(x.shape)
        et = self.output_element_type(0, ElementType.u8)
        q = x / scales
        if et.is_integral_number:
            q = np.rint(q)
        return [_saturate(q + zps, et)]


class Dequantize(_StaticQuant):
    """(src - zp) * scale as f32."""

    type_name: ClassVar[str] = "Dequantize"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", QUANTIZED),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", types("f32")),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        self._check(inputs)
        return [TensorType(ElementType.f32, inputs[0].shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = as_f32(arrays[0])
        scales, zps = self._params(x.shape)
        return [((x - zps) * scales).astype(np.float32)]


def _expand_params(op: OneDNNOp, values: np.ndarray, shape: tuple[int, ...], qtype: str, axis: int) -> np.ndarray:
    """Runtime scales/zero points broadcast to the data shape (per tensor, channel or group)."""
    rank = len(shape)
    if qtype == "per_group":
        out = values
        for i, (n, g) in enumerate(zip(shape, values.shape)):
            if g and n != g:
                out = np.repeat(out, n // g, axis=i)
        return out
    if qtype == "per_channel":
        return _per_axis(values.reshape(-1), rank, axis % rank)
    return values.reshape(())


class DynamicQuantize(OneDNNOp):
    type_name: ClassVar[str] = "DynamicQuantize"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", types("f32")), Port("scales", types("f32")), Port("zps", types("u8", "i8", "i32"), optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", types("u8", "i8")),)
    free_output_types: ClassVar[frozenset[int]] = frozenset({0})
    qtype: Literal["per_tensor", "per_channel"] = "per_tensor"
    axis: int = 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        if inputs[0].shape.rank_is_static:
            self.axis_of(self.axis, len(inputs[0].shape))
        return [TensorType(self.output_element_type(0, ElementType.u8), inputs[0].shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = as_f32(arrays[0])
        scales = _expand_params(self, as_f32(arrays[1]), x.shape, self.qtype, self.axis)
        zps = _expand_params(self, as_f32(arrays[2]), x.shape, self.qtype, self.axis) if len(arrays) > 2 else 0.0
        return [_saturate(np.rint(x / scales) + zps, self.output_element_type(0, ElementType.u8))]


class DynamicDequantize(OneDNNOp):
    """(src - zps) * scales with runtime scales (per tensor, channel or group); dst takes the scales' type."""

    type_name: ClassVar[str] = "DynamicDequantize"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", types("u8", "i8", "i4", "u4")), Port("scales", FLOAT),
                                          Port("zps", types("u4", "i4", "u8", "i8", "i32"), optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    qtype: QType = "per_tensor"
    axis: int = 1
    group_shape: list[int] = []

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src, scales = inputs[0].shape, inputs[1].shape
        if self.qtype == "per_group" and src.rank_is_static and scales.rank_is_static:
            if len(self.group_shape) != len(src) or len(scales) != len(src):
                raise self.fail(f"qtype 'per_group': 'group_shape' {self.group_shape} and input 1 ('scales') {scales} must have the rank of input 0 ('src') {src}")
            for i, (n, s, g) in enumerate(zip(src, scales, self.group_shape)):
                if n.is_static and s.is_static and n.get_length() != s.get_length() * g:
                    raise self.fail(f"qtype 'per_group': axis {i}: input 0 ('src') {src} != input 1 ('scales') {scales} x group_shape {self.group_shape}")
        return [TensorType(inputs[1].element_type, src)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = as_f32(arrays[0])
        scales = _expand_params(self, as_f32(arrays[1]), x.shape, self.qtype, self.axis)
        zps = _expand_params(self, as_f32(arrays[2]), x.shape, self.qtype, self.axis) if len(arrays) > 2 else 0.0
        return [cast_to((x - zps) * scales, ElementType.from_numpy(arrays[1].dtype))]


class Dropout(OneDNNOp):
    """Zeroes elements with the given probability (seeded), scales the rest by 1/(1-p); emits the mask."""

    type_name: ClassVar[str] = "Dropout"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("seed", types("i64")), Port("offset", types("i64")), Port("probability", types("f32")))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT), Port("mask", types("u8"), optional=True))
    min_outputs: ClassVar[int | None] = 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        return self.finish([TensorType(inputs[0].element_type, inputs[0].shape), TensorType(ElementType.u8, inputs[0].shape)])

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x, seed, offset, p = arrays
        rng = np.random.default_rng([int(np.asarray(seed).reshape(-1)[0]) & 0xFFFFFFFF, int(np.asarray(offset).reshape(-1)[0]) & 0xFFFFFFFF])
        prob = float(np.asarray(p).reshape(-1)[0])
        mask = (rng.random(x.shape) >= prob).astype(np.uint8)
        y = as_f32(x) * mask / (1.0 - prob) if prob < 1 else np.zeros(x.shape, np.float32)
        return [cast_to(y, ElementType.from_numpy(x.dtype)), mask][: self.num_outputs()]
