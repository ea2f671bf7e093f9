"""OpenVINO pooling: ``MaxPool-1/8/14``, ``AvgPool-1/14``, ``AdaptiveAvgPool-8``, ``AdaptiveMaxPool-8``.

Windows come from the strided view in :mod:`graphir.ops.openvino.conv`. Ceil rounding pads the
end so the last window fits; that extra area never counts (max: -inf, average: not in the divisor).
``ceil_torch`` (v14) also drops a last window that would start in the end padding, as PyTorch does.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

from graphir.ops.base import INDEX, NUMERIC, REAL, NodeSignature, Op, Port, TensorType
from graphir.ops.openvino.conv import AutoPad, resolve_pads, window_out_length, windows
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


class _PoolBase(Op):
    strides: list[int]
    pads_begin: list[int]
    pads_end: list[int]
    kernel: list[int]
    rounding_type: Literal["floor", "ceil"] = "floor"
    auto_pad: AutoPad = "explicit"

    def _dilations(self) -> list[int]:
        return [1] * len(self.kernel)

    def _out_length(self, length: int, i: int) -> int:
        k_eff = self._dilations()[i] * (self.kernel[i] - 1) + 1
        ceil = self.rounding_type != "floor"
        pb, pe = self.pads_begin[i], self.pads_end[i]
        auto_pad = self.auto_pad
        if auto_pad in ("same_upper", "same_lower"):
            # OpenVINO resolves the same_* pads first, then rounds like explicit padding
            begin, end = resolve_pads((length,), [k_eff], [self.strides[i]], [pb], [pe], auto_pad)
            pb, pe, auto_pad = begin[0], end[0], "explicit"
        out = window_out_length(length, k_eff, self.strides[i], pb, pe, auto_pad, ceil)
        if auto_pad == "valid":
            pb = 0
        # ceil_torch drops a last window that starts in the end padding; measured on OpenVINO
        # 2026.4, not when the data plus begin padding is empty (a length or lower bound of 0)
        if self.rounding_type == "ceil_torch" and length + pb > 0:
            if out > 1 and (out - 1) * self.strides[i] >= length + pb:
                out -= 1
        return out

    def _spatial(self, data: PartialShape) -> list[Dimension]:
        n = len(self.kernel)
        for name in ("strides", "pads_begin", "pads_end"):
            if len(getattr(self, name)) != n:
                raise self.fail(f"attribute '{name}' {getattr(self, name)} must have {n} values like kernel {self.kernel}")
        if data.rank_is_static and len(data) != n + 2:
            raise self.fail(f"data {data} must have rank {n + 2} for kernel {self.kernel}")
        if any(k < 1 for k in self.kernel) or any(s < 1 for s in self.strides):
            raise self.fail(f"kernel {self.kernel} and strides {self.strides} must be positive")
        out = []
        for i, d in enumerate(data.dims[2:]):
            if d.is_dynamic and self.auto_pad in ("same_upper", "same_lower"):
                out.append(Dimension.dynamic())  # OpenVINO keeps no interval here
                continue
            lo = self._out_length(d.min, i)
            hi = None if d.max is None else self._out_length(d.max, i)
            # measured on OpenVINO 2026.4: a lower bound above the upper one leaves the dim fully
            # dynamic (ceil_torch, kernel 1, stride 2, pads_end 2 on [0..1] gives ?)
            if d.is_dynamic and hi is not None and lo > max(hi, 1):
                out.append(Dimension.dynamic())
                continue
            if d.is_static and lo < 1:
                raise self.fail(
                    f"kernel {self.kernel} (dilations {self._dilations()}) does not fit the padded data along "
                    f"spatial axis {i}: data {data}, pads_begin {self.pads_begin}, pads_end {self.pads_end}"
                )
            if d.is_dynamic:  # OpenVINO assumes a dynamic input fits at least one window
                lo = max(lo, 1)
                hi = None if hi is None else max(hi, 1)
            out.append(Dimension(min(lo, hi) if hi is not None else lo, hi))
        return out

    def _out_shape(self, data: PartialShape) -> PartialShape:
        if data.rank_is_dynamic:
            n = len(self.kernel)
            self._spatial(PartialShape.dynamic(n + 2))
            return PartialShape([Dimension.dynamic()] * 2 + [Dimension.dynamic()] * n)
        return PartialShape(list(data.dims[:2]) + self._spatial(data))

    def _padded(self, x: np.ndarray, fill: float, exclude_pad: bool = True) -> tuple[np.ndarray, np.ndarray, list[int]]:
        """The input padded for every window (explicit pads plus the ceil extra at the end), the
        mask of positions an average counts, and the begin pads.

        Measured on OpenVINO 2026.4: with ``exclude-pad`` false, an axis that has any padding
        divides by the whole kernel (ceil extra included); an axis without padding counts data only.
        """
        begin, end, extra, _ = self._geometry(x.shape[2:])
        widths = [(0, 0), (0, 0)] + [(b, e + ex) for b, e, ex in zip(begin, end, extra)]
        padded = np.pad(x, widths, constant_values=fill)
        mask = np.ones((), dtype=np.int8)
        for b, n, e, ex in zip(begin, x.shape[2:], end, extra):
            axis_mask = np.zeros(b + n + e + ex, dtype=np.int8)
            if not exclude_pad and (b or e):
                axis_mask[:] = 1
            else:
                axis_mask[b:b + n] = 1
            mask = np.multiply.outer(mask, axis_mask)
        return padded, mask, begin

    def _geometry(self, spatial: "tuple[int, ...] | list[int]") -> tuple[list[int], list[int], list[int], list[int]]:
        """For input lengths ``spatial``: the begin and end pads, the ceil extra at the end, the output lengths."""
        dil = self._dilations()
        k_eff = [d * (k - 1) + 1 for k, d in zip(self.kernel, dil)]
        begin, end = resolve_pads(tuple(spatial), k_eff, self.strides, self.pads_begin, self.pads_end, self.auto_pad)
        outs = [self._out_length(n, i) for i, n in enumerate(spatial)]
        extra = [max((o - 1) * s + k - (n + b + e), 0)
                 for o, s, k, n, b, e in zip(outs, self.strides, k_eff, spatial, begin, end)]
        return begin, end, extra, outs

    def _offset_index(self, outs: list[int]) -> list[tuple[slice, ...]]:
        """For each kernel offset (row-major), the index of the strided slice of every window's element there."""
        dil = self._dilations()
        return [(slice(None), slice(None)) + tuple(
                slice(kp * d, kp * d + (o - 1) * s + 1, s) for kp, d, o, s in zip(kpos, dil, outs, self.strides))
                for kpos in itertools.product(*[range(k) for k in self.kernel])]

    def _offset_slices(self, padded: np.ndarray, outs: list[int]):  # noqa: ANN201 - a generator
        """For each kernel offset (row-major), the strided slice of every window's element there."""
        for index in self._offset_index(outs):
            yield padded[index]

    def _windows(self, padded: np.ndarray, outs: list[int]) -> np.ndarray:
        win = windows(padded, self.kernel, self.strides, self._dilations())
        return win[(slice(None), slice(None)) + tuple(slice(0, o) for o in outs)]


def _lowest(dtype: np.dtype) -> float:
    """The pad value of max pooling: the lowest finite value (OpenVINO yields it, not -inf,
    for a window that holds only padding)."""
    return float(np.finfo(dtype).min) if np.issubdtype(dtype, np.floating) else int(np.iinfo(dtype).min)


class MaxPool(_PoolBase):
    """Max over each window; padding never wins."""

    type_name: ClassVar[str] = "MaxPool"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", NUMERIC),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        return [TensorType(inputs[0].element_type, self._out_shape(inputs[0].shape))]

    def _max(self, x: np.ndarray, indices: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Maxima and, per window, the window-local flat position of the (first) winner.

        One strided slice per kernel offset, compared in place: no window copies.
        """
        work = x.astype(np.float32) if x.dtype.kind == "V" or x.dtype == np.float16 else x
        padded, _, begin = self._padded(work, _lowest(work.dtype))
        outs = [self._out_length(n, i) for i, n in enumerate(x.shape[2:])]
        parts = list(self._offset_slices(padded, outs))
        best = parts[0].copy()
        for part in parts[1:]:
            np.maximum(best, part, out=best)
        arg = np.zeros(best.shape, dtype=np.int64)
        if indices:  # the first offset holding the maximum: scan backwards, the earliest writes last
            for local in range(len(parts) - 1, -1, -1):
                np.copyto(arg, local, where=parts[local] == best)
        assert best is not None
        return best.astype(x.dtype), (arg, begin, outs)  # type: ignore[return-value]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        return [self._max(x, indices=False)[0]]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """The maxima alone (when no one reads MaxPool-8's indices): pads, window slices and the
        working type decided once; the same comparisons as ``_max``, so the same values."""
        shape = node.static_shape(node.inputs[0])
        if shape is None or any(node.used[1:]) or node.inputs[0].element_type.is_dynamic:
            return self.evaluate
        dtype = np.dtype(node.inputs[0].element_type.numpy_dtype)
        work = np.dtype(np.float32) if dtype.kind == "V" or dtype == np.float16 else dtype
        fill = _lowest(work)
        begin, end, extra, outs = self._geometry(shape[2:])
        padded_shape = shape[:2] + tuple(b + n + e + ex for b, n, e, ex in zip(begin, shape[2:], end, extra))
        inner = (slice(None), slice(None)) + tuple(slice(b, b + n) for b, n in zip(begin, shape[2:]))
        first, *rest = self._offset_index(outs)
        padding = padded_shape != shape
        missing = [None] * (len(node.outputs) - 1)

        def maxima(x: np.ndarray) -> list[np.ndarray]:
            data = x.astype(work) if work != dtype else x
            if padding:
                padded = np.full(padded_shape, fill, work)
                padded[inner] = data
            else:
                padded = data
            best = padded[first].copy()
            for index in rest:
                np.maximum(best, padded[index], out=best)
            return [best.astype(dtype), *missing]

        return maxima


class MaxPool8(MaxPool):
    """MaxPool with dilations and a second output: each maximum's flat index in the input,
    counted from dimension ``axis`` on."""
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "strides", "dilations", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad",
        "index_element_type", "axis"
    )

    type_name: ClassVar[str] = "MaxPool"
    version: ClassVar[str] = "opset8"
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"), Port("output_indices"))

    dilations: list[int] = []
    index_element_type: Literal["i32", "i64"] = "i64"
    axis: int = 0

    @model_validator(mode="after")
    def _default_dilations(self) -> "MaxPool8":
        """No dilations means ones (written out in full: OpenVINO's CPU plugin needs them)."""
        if not self.dilations:
            object.__setattr__(self, "dilations", [1] * len(self.kernel))
        return self

    def _dilations(self) -> list[int]:
        return list(self.dilations) or [1] * len(self.kernel)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        if self.dilations and len(self.dilations) != len(self.kernel):
            raise self.fail(f"attribute 'dilations' {self.dilations} must have {len(self.kernel)} values")
        data = inputs[0].shape
        if data.rank_is_static and not -len(data) <= self.axis < len(data):
            raise self.fail(f"axis {self.axis} is out of range for data {data}")
        shape = self._out_shape(data)
        return [TensorType(inputs[0].element_type, shape),
                TensorType(ElementType.parse(self.index_element_type), shape)]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        values, (arg, begin, outs) = self._max(x)  # type: ignore[misc]
        dil = self._dilations()
        spatial = x.shape[2:]
        # window-local flat index -> padded coordinates -> input coordinates
        local = np.unravel_index(arg, tuple(self.kernel))
        index = np.zeros(arg.shape, dtype=np.int64)
        grids = np.meshgrid(*[np.arange(o) for o in outs], indexing="ij")
        inside = np.ones(arg.shape, dtype=bool)
        axis = self.axis % x.ndim
        for i in range(len(self.kernel)):
            coord = grids[i] * self.strides[i] + local[i] * dil[i] - begin[i]
            inside &= (coord >= 0) & (coord < spatial[i])
            if 2 + i >= axis:  # axis 3 of [N,C,D,H,W]: the index counts within each [H,W] plane
                index = index * spatial[i] + coord
        index = np.where(inside, index, 0)  # a window of padding only: OpenVINO reports spatial index 0
        n_idx = np.arange(x.shape[0])[:, None]
        c_idx = np.arange(x.shape[1])[None, :]
        extra = index.reshape(x.shape[:2] + (-1,))
        sp = int(np.prod(spatial))
        if axis == 0:
            extra = extra + ((n_idx * x.shape[1] + c_idx) * sp)[..., None]
        elif axis == 1:
            extra = extra + (c_idx * sp)[..., None]
        dtype = np.int32 if self.index_element_type == "i32" else np.int64
        return [values, extra.reshape(index.shape).astype(dtype)]


class MaxPool14(MaxPool8):
    """MaxPool-8 plus ``rounding_type="ceil_torch"``."""

    type_name: ClassVar[str] = "MaxPool"
    version: ClassVar[str] = "opset14"
    rounding_type: Literal["floor", "ceil", "ceil_torch"] = "floor"  # type: ignore[assignment]


class AvgPool(_PoolBase):
    """Mean over each window; ``exclude-pad`` leaves the explicit padding out of the divisor."""
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "kernel", "strides", "pads_begin", "pads_end", "exclude-pad", "auto_pad", "rounding_type"
    )

    type_name: ClassVar[str] = "AvgPool"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    exclude_pad: bool = Field(alias="exclude-pad")

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        data = inputs[0].shape
        if self.exclude_pad and self.auto_pad in ("explicit", "notset") and data.rank_is_static:
            for i, (k, d) in enumerate(zip(self.kernel, self._dilations())):
                k_eff = d * (k - 1) + 1
                static = 2 + i < len(data) and data.dims[2 + i].is_static  # OpenVINO checks static dims only
                if static and i < len(self.pads_end) and (k_eff <= self.pads_begin[i] or k_eff <= self.pads_end[i]):
                    raise self.fail(
                        f"kernel after dilation ({k_eff}) lies entirely in the padding along spatial axis {i} "
                        f"(pads_begin {self.pads_begin}, pads_end {self.pads_end}); not allowed with exclude-pad"
                    )
        return [TensorType(inputs[0].element_type, self._out_shape(inputs[0].shape))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        ct = np.float64 if x.dtype == np.float64 else np.float32
        padded, mask, _ = self._padded(x.astype(ct), 0.0, self.exclude_pad)
        outs = [self._out_length(n, i) for i, n in enumerate(x.shape[2:])]
        n_sp = len(self.kernel)
        axes = tuple(range(-n_sp, 0))
        sums = np.zeros(padded.shape[:2] + tuple(outs), dtype=ct)
        for part in self._offset_slices(padded, outs):
            sums += part
        counts = self._windows(mask[None, None].astype(ct), outs).sum(axis=axes)
        with np.errstate(invalid="ignore", divide="ignore"):
            return [(sums / counts).astype(x.dtype)]  # a window of padding only is 0/0 = nan, as in OpenVINO


class AvgPool14(AvgPool):
    """AvgPool-1 plus ``rounding_type="ceil_torch"``."""

    type_name: ClassVar[str] = "AvgPool"
    version: ClassVar[str] = "opset14"
    rounding_type: Literal["floor", "ceil", "ceil_torch"] = "floor"  # type: ignore[assignment]


class _AdaptiveBase(Op):
    def _out(self, inputs: list[TensorType]) -> PartialShape:
        self.check_input_types(inputs)
        data, size = inputs[0].shape, inputs[1]
        if size.shape.rank_is_static and len(size.shape) != 1:
            raise self.fail(f"output_shape must be 1-D, got {size.shape}")
        if data.rank_is_static and len(data) not in (3, 4, 5):
            raise self.fail(f"data must have rank 3, 4 or 5, got {data}")
        if data.rank_is_static and size.shape.rank_is_static and size.shape.dims[0].is_static \
                and size.shape.dims[0].min != len(data) - 2:
            raise self.fail(f"output_shape {size.shape} must hold {len(data) - 2} values for data {data}")
        if data.rank_is_dynamic:
            return PartialShape.dynamic()
        if size.value is not None:
            spatial = [Dimension.static(int(v)) for v in np.asarray(size.value).reshape(-1)]
        else:
            spatial = [Dimension.dynamic()] * (len(data) - 2)
        return PartialShape(list(data.dims[:2]) + spatial)

    @staticmethod
    def _bins(length: int, count: int) -> list[tuple[int, int]]:
        return [(i * length // count, -(-(i + 1) * length // count)) for i in range(count)]

    def _pool(self, x: np.ndarray, sizes: np.ndarray, reduce: str) -> tuple[np.ndarray, np.ndarray]:
        counts = [int(v) for v in np.asarray(sizes).reshape(-1)]
        spatial = x.shape[2:]
        if 0 in spatial and x.size == 0 and 0 not in counts:  # the run names the node and the empty input
            raise ValueError(f"{reduce} pooling of an empty window: data spatial dims {list(spatial)}")
        out = np.empty(x.shape[:2] + tuple(counts), dtype=x.dtype)
        idx = np.empty(x.shape[:2] + tuple(counts), dtype=np.int64)
        bins = [self._bins(n, c) for n, c in zip(spatial, counts)]
        for pos in itertools.product(*[range(c) for c in counts]):
            region = tuple(slice(*bins[i][p]) for i, p in enumerate(pos))
            block = x[(slice(None), slice(None)) + region]
            flat = block.reshape(block.shape[:2] + (-1,))
            if reduce == "avg":
                out[(slice(None), slice(None)) + pos] = flat.astype(np.float64).mean(axis=-1)
            else:
                arg = np.argmax(flat, axis=-1)
                out[(slice(None), slice(None)) + pos] = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
                local = np.unravel_index(arg, block.shape[2:])
                flat_index = np.zeros(arg.shape, dtype=np.int64)
                for i, p in enumerate(pos):
                    flat_index = flat_index * spatial[i] + local[i] + bins[i][p][0]
                idx[(slice(None), slice(None)) + pos] = flat_index
        return out, idx


class AdaptiveAvgPool(_AdaptiveBase):
    """Average over ``output_shape`` bins: bin i spans ``[floor(i*L/n), ceil((i+1)*L/n))``."""

    type_name: ClassVar[str] = "AdaptiveAvgPool"
    version: ClassVar[str] = "opset8"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL), Port("output_shape", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, self._out(inputs))]

    def evaluate(self, x: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
        return [self._pool(x, sizes, "avg")[0]]


class AdaptiveMaxPool(_AdaptiveBase):
    """Max over adaptive bins, with each maximum's flat spatial index (per batch and channel)."""

    type_name: ClassVar[str] = "AdaptiveMaxPool"
    version: ClassVar[str] = "opset8"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", NUMERIC), Port("output_shape", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"), Port("output_indices"))

    index_element_type: Literal["i32", "i64"] = "i64"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        shape = self._out(inputs)
        return [TensorType(inputs[0].element_type, shape),
                TensorType(ElementType.parse(self.index_element_type), shape)]

    def evaluate(self, x: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
        out, idx = self._pool(x, sizes, "max")
        return [out, idx.astype(np.int32 if self.index_element_type == "i32" else np.int64)]


class AvgPool16(AvgPool14):
    """AvgPool-14 plus ``dilations`` (the window samples every d-th element)."""

    type_name: ClassVar[str] = "AvgPool"
    version: ClassVar[str] = "opset16"

    dilations: list[int] = []

    @model_validator(mode="after")
    def _default_dilations(self) -> "AvgPool16":
        if not self.dilations:
            object.__setattr__(self, "dilations", [1] * len(self.kernel))
        return self

    def _dilations(self) -> list[int]:
        return list(self.dilations) or [1] * len(self.kernel)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        if self.dilations and len(self.dilations) != len(self.kernel):
            raise self.fail(f"attribute 'dilations' {self.dilations} must have {len(self.kernel)} values")
        return super().infer(inputs)
