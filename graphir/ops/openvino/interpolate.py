"""OpenVINO ``Interpolate-1/4/11``: resize chosen axes by sizes or scales.

Every mode is separable, so evaluation resamples one axis at a time: each output index maps to a
source coordinate (``coordinate_transformation_mode``), then gathers and weights its neighbours
(nearest: one, linear_onnx: two, cubic: four, linear: a triangle filter widened by ``antialias``).
Data are zero-padded by ``pads_begin``/``pads_end`` first.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar, Literal

import numpy as np

from graphir.errors import UnsupportedOpError
from graphir.limits import check_tensor
from graphir.ops.base import INDEX, NUMERIC, Op, Port, TensorType, types
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.reduction import normalize_axes
from graphir.shapes import Dimension, PartialShape

FLOAT_SCALES = types("f32", "f16", "bf16", "f64")
Mode = Literal["nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow"]
Transform = Literal["half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"]
NearestMode = Literal["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"]
_SCALE_EPS = 1.0e-5  # OpenVINO adds this before flooring a scaled length


def _scaled(length: int, scale: float) -> int:
    return int(math.floor(length * scale + _SCALE_EPS))


def source_coordinates(out_len: int, in_len: int, scale: float, mode: str) -> np.ndarray:
    """The input coordinate each output index samples (before rounding/clamping)."""
    # float32 arithmetic, as OpenVINO's: rounding ties (nearest) depend on it
    x = np.arange(out_len, dtype=np.float32)
    scale = np.float32(scale)
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if out_len > 1 else np.zeros(out_len, np.float32)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    if mode == "align_corners":
        return x * np.float32((in_len - 1) / (out_len - 1)) if out_len > 1 else np.zeros(out_len, np.float32)
    raise UnsupportedOpError(f"Interpolate: unknown coordinate_transformation_mode '{mode}'")


def _nearest_index(x: np.ndarray, mode: str, scale: float) -> np.ndarray:
    fl = np.floor(x)
    if mode == "round_prefer_floor":
        return np.where(x - fl == 0.5, fl, np.round(x))
    if mode == "round_prefer_ceil":
        return np.where(x - fl == 0.5, fl + 1, np.round(x))
    if mode == "floor":
        return fl
    if mode == "ceil":
        return np.ceil(x)
    return np.ceil(x) if scale < 1.0 else np.trunc(x)  # simple


def axis_weights(in_len: int, out_len: int, scale: float, attrs: "_InterpolateAttrs") -> np.ndarray:
    """A ``[out_len, in_len]`` matrix: output i is ``sum_j W[i, j] * input[j]`` along one axis."""
    x = source_coordinates(out_len, in_len, scale, attrs.coordinate_transformation_mode).astype(np.float64)
    w = np.zeros((out_len, in_len), dtype=np.float64)
    rows = np.arange(out_len)
    mode = attrs.mode
    if mode == "nearest":
        idx = np.clip(_nearest_index(x, attrs.nearest_mode, scale), 0, in_len - 1).astype(np.int64)
        w[rows, idx] = 1.0
    elif mode == "linear_onnx":
        xc = np.clip(x, 0, in_len - 1)
        i0 = np.floor(xc).astype(np.int64)
        i1 = np.minimum(i0 + 1, in_len - 1)
        t = xc - i0
        np.add.at(w, (rows, i0), 1 - t)
        np.add.at(w, (rows, i1), t)
    elif mode == "cubic":
        a = attrs.cube_coeff
        i = np.floor(x).astype(np.int64)
        t = x - i
        coeffs = [
            ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
            ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
            ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a,
        ]
        for k, c in zip(range(-1, 3), coeffs):
            np.add.at(w, (rows, np.clip(i + k, 0, in_len - 1)), c)
    elif mode == "linear":
        # OpenVINO 2026.4's CPU plugin computes plain linear weights whatever ``antialias`` says
        # (measured: a one-hot input downscaled by 0.5 or 0.7 gives the 2-tap weights);
        # the spec's widened triangle would be ``a = scale`` when downscaling with antialias.
        a = 1.0
        radius = math.ceil(2 / a)
        base = np.round(x).astype(np.int64)
        for k in range(-radius, radius + 1):
            j = base + k
            ok = (j >= 0) & (j < in_len)
            weight = np.maximum(0.0, 1.0 - np.abs((x - j) * a)) * ok
            np.add.at(w, (rows, np.clip(j, 0, in_len - 1)), weight)
        sums = w.sum(axis=1, keepdims=True)
        w = np.divide(w, sums, out=np.zeros_like(w), where=sums > 0)
    elif mode in ("bilinear_pillow", "bicubic_pillow"):
        w = _pillow_weights(in_len, out_len, mode)
    else:
        raise UnsupportedOpError(f"Interpolate: mode '{mode}' has no numpy evaluation in graphir")
    return w


def _pillow_weights(in_len: int, out_len: int, mode: str) -> np.ndarray:
    """Pillow's resampling (what torch's ``antialias=True`` means): a filter stretched by the
    downscale factor, centred at ``(i + 0.5) * in/out``, clipped to the input and normalized."""
    if mode == "bilinear_pillow":
        support = 1.0

        def kernel(t: np.ndarray) -> np.ndarray:
            return np.maximum(0.0, 1.0 - np.abs(t))
    else:
        support, a = 2.0, -0.5

        def kernel(t: np.ndarray) -> np.ndarray:
            t = np.abs(t)
            near = ((a + 2) * t - (a + 3)) * t * t + 1
            far = (((t - 5) * t + 8) * t - 4) * a
            return np.where(t < 1, near, np.where(t < 2, far, 0.0))
    scale = in_len / out_len
    filterscale = max(scale, 1.0)
    support *= filterscale
    w = np.zeros((out_len, in_len), dtype=np.float64)
    for i in range(out_len):
        center = (i + 0.5) * scale
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), in_len)
        taps = kernel((np.arange(lo, hi) - center + 0.5) / filterscale)
        total = taps.sum()
        w[i, lo:hi] = taps / total if total != 0 else taps
    return w


class _InterpolateAttrs(Op):
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "mode", "shape_calculation_mode", "coordinate_transformation_mode", "nearest_mode", "antialias",
        "pads_begin", "pads_end", "cube_coeff"
    )
    mode: Mode
    coordinate_transformation_mode: Transform = "half_pixel"
    nearest_mode: NearestMode = "round_prefer_floor"
    antialias: bool = False
    pads_begin: list[int] = [0]
    pads_end: list[int] = [0]
    cube_coeff: float = -0.75

    def _pads(self, rank: int) -> tuple[list[int], list[int]]:
        def full(values: list[int]) -> list[int]:
            return (list(values) + [0] * rank)[:rank]

        return full(self.pads_begin), full(self.pads_end)

    def _resize(self, x: np.ndarray, axes: list[int], sizes: list[int], scales: list[float]) -> np.ndarray:
        begin, end = self._pads(x.ndim)
        if any(begin) or any(end):
            x = np.pad(x, [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)])
        out_dtype = x.dtype
        out_shape = list(x.shape)
        for axis, size in zip(axes, sizes):
            out_shape[axis] = max(int(size), 0)
            check_tensor([int(size), x.shape[axis]], np.float64, f"the weights for axis {axis}")
        check_tensor(out_shape, np.float64, "output (computed in f64)")
        work = x.astype(np.float64)
        for axis, size, scale in zip(axes, sizes, scales):
            if size == work.shape[axis] and self.mode != "linear" and abs(scale - 1.0) < 1e-12:
                continue
            w = axis_weights(work.shape[axis], size, scale, self)
            work = np.moveaxis(np.tensordot(w, np.moveaxis(work, axis, 0), axes=(1, 0)), 0, axis)
        if np.issubdtype(out_dtype, np.integer):
            info = np.iinfo(out_dtype)
            return np.clip(np.round(work), info.min, info.max).astype(out_dtype)
        return work.astype(out_dtype)

    def _shape(self, data: PartialShape, axes: list[int] | None, sizes: "Sequence[int | Dimension] | None",
               scales: list[float] | None, n_values: Dimension | None) -> PartialShape:
        """Output shape; ``sizes``/``scales`` None when unknown (the axes' dims go dynamic)."""
        if data.rank_is_dynamic:
            return PartialShape.dynamic()
        rank = len(data)
        begin, end = self._pads(rank)
        dims = [_pad_dim(d, b + e) for d, b, e in zip(data.dims, begin, end)]
        if axes is None:
            axes = list(range(rank))
        values = sizes if sizes is not None else scales
        if values is not None and len(values) != len(axes):
            raise self.fail(f"{len(values)} sizes/scales {values} for {len(axes)} axes {axes} (data {data})")
        for i, axis in enumerate(axes):
            if sizes is not None:  # a size known as an interval (a shape read at run time) stays one
                size = sizes[i]
                dims[axis] = size if isinstance(size, Dimension) else Dimension.static(int(size))
            elif scales is not None:
                d = dims[axis]
                dims[axis] = Dimension(_scaled(d.min, scales[i]), None if d.max is None else _scaled(d.max, scales[i]))
            else:
                dims[axis] = Dimension.dynamic()
        return PartialShape(dims)

    def _run_values(self, x: np.ndarray, axes: list[int], sizes: list[int] | None,
                    scales: list[float] | None, shape_mode: str) -> np.ndarray:
        begin, end = self._pads(x.ndim)
        padded = [n + b + e for n, b, e in zip(x.shape, begin, end)]
        if shape_mode == "sizes":
            assert sizes is not None
            scales = [float(np.float32(s) / np.float32(padded[a])) for s, a in zip(sizes, axes)]
        else:
            assert scales is not None
            sizes = [_scaled(padded[a], s) for s, a in zip(scales, axes)]
        return self._resize(x, axes, sizes, scales)


def _pad_dim(d: Dimension, total: int) -> Dimension:
    if total >= 0:
        return d + total
    return d - (-total)


def _axes_value(op: Op, t: TensorType | None, rank: int | None) -> list[int] | None:
    """The axes input as non-negative ints; all axes when absent; None when unknown."""
    if t is None:
        return None if rank is None else list(range(rank))
    if t.value is None:
        return None
    values = [int(v) for v in np.asarray(t.value).reshape(-1)]
    if rank is None:
        return values
    bad = [a for a in values if not 0 <= a < rank]
    if bad:
        raise op.fail(f"axes {values} must lie in [0, {rank - 1}] (negative axes are not allowed), data rank {rank}")
    return values


class Interpolate(_InterpolateAttrs):
    """Interpolate-11: input 1 holds sizes (integers) or scales (floats), per
    ``shape_calculation_mode``; input 2 the axes (default: all)."""

    type_name: ClassVar[str] = "Interpolate"
    version: ClassVar[str] = "opset11"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("data", NUMERIC), Port("scales_or_sizes", FLOAT_SCALES + INDEX), Port("axes", INDEX, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    shape_calculation_mode: Literal["sizes", "scales"]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        data = inputs[0].shape
        rank = len(data) if data.rank_is_static else None
        axes = _axes_value(self, inputs[2] if len(inputs) > 2 else None, rank)
        v = inputs[1].value
        values = None if v is None else np.asarray(v).reshape(-1).tolist()
        if self.shape_calculation_mode == "sizes":
            if inputs[1].element_type.is_real:
                raise self.fail(f"sizes mode needs integer sizes, got {inputs[1]}")
            shape = self._shape(data, axes, sv.elements(inputs[1]), None, None) if axes is not None else _dyn_axes(data)
        else:
            shape = self._shape(data, axes, None, values, None) if axes is not None else _dyn_axes(data)
        return [TensorType(inputs[0].element_type, shape)]

    def evaluate(self, x: np.ndarray, values: np.ndarray, axes: np.ndarray | None = None) -> list[np.ndarray]:
        ax = list(range(x.ndim)) if axes is None else [int(a) % x.ndim for a in np.asarray(axes).reshape(-1)]
        vals = np.asarray(values).reshape(-1).tolist()
        if self.shape_calculation_mode == "sizes":
            return [self._run_values(x, ax, [int(v) for v in vals], None, "sizes")]
        return [self._run_values(x, ax, None, [float(v) for v in vals], "scales")]


def _dyn_axes(data: PartialShape) -> PartialShape:
    return PartialShape.dynamic(len(data)) if data.rank_is_static else PartialShape.dynamic()


class Interpolate4(_InterpolateAttrs):
    """Interpolate-4: both ``sizes`` (input 1) and ``scales`` (input 2); ``shape_calculation_mode``
    picks which one sets the output shape; input 3 the axes."""

    type_name: ClassVar[str] = "Interpolate"
    version: ClassVar[str] = "opset4"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("data", NUMERIC), Port("sizes", INDEX), Port("scales", FLOAT_SCALES), Port("axes", INDEX, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    mode: Literal["nearest", "linear", "linear_onnx", "cubic"]  # type: ignore[assignment]
    shape_calculation_mode: Literal["sizes", "scales"]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        data = inputs[0].shape
        rank = len(data) if data.rank_is_static else None
        axes = _axes_value(self, inputs[3] if len(inputs) > 3 else None, rank)
        if axes is None:
            return [TensorType(inputs[0].element_type, _dyn_axes(data))]
        if self.shape_calculation_mode == "sizes":
            shape = self._shape(data, axes, sv.elements(inputs[1]), None, None)
        else:
            v = inputs[2].value
            shape = self._shape(data, axes, None, None if v is None else np.asarray(v).reshape(-1).tolist(), None)
        return [TensorType(inputs[0].element_type, shape)]

    def evaluate(self, x: np.ndarray, sizes: np.ndarray, scales: np.ndarray,
                 axes: np.ndarray | None = None) -> list[np.ndarray]:
        ax = list(range(x.ndim)) if axes is None else [int(a) % x.ndim for a in np.asarray(axes).reshape(-1)]
        if self.shape_calculation_mode == "sizes":
            return [self._run_values(x, ax, [int(v) for v in np.asarray(sizes).reshape(-1)], None, "sizes")]
        return [self._run_values(x, ax, None, [float(v) for v in np.asarray(scales).reshape(-1)], "scales")]


class Interpolate1(Op):
    """Interpolate-1: ``target_spatial_shape`` for the attribute ``axes``; evaluated as
    Interpolate-4 (``align_corners`` or ``asymmetric`` coordinates, ``simple`` nearest rounding,
    linear as ``linear_onnx``): what OpenVINO 2026.4's CPU plugin computes for it."""

    type_name: ClassVar[str] = "Interpolate"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", NUMERIC), Port("target_spatial_shape", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    axes: list[int]
    mode: Literal["nearest", "linear", "cubic", "area"]
    align_corners: bool = False
    antialias: bool = False
    pads_begin: list[int] = [0]
    pads_end: list[int] = [0]

    def _as_v4(self, rank: int | None = None) -> Interpolate4:
        mode: Literal["nearest", "linear", "linear_onnx", "cubic"]
        if self.mode == "linear":
            mode = "linear" if self.antialias else "linear_onnx"
        elif self.mode == "area":  # Interpolate-4 has no area mode: validation names it
            mode = self.mode  # type: ignore[assignment]  # refused by Interpolate4's own check
        else:
            mode = self.mode
        # measured on OpenVINO 2026.4's CPU plugin: asymmetric, except linear resizing other axes than
        # exactly H and W of 4-D data ([0,1,2,3], [3], 5-D [2,3,4]), which is half_pixel
        spatial_hw = rank == 4 and sorted(normalize_axes(self.axes, 4)) == [2, 3] if rank is not None else True
        transform: Literal["align_corners", "asymmetric", "half_pixel"] = (
            "align_corners" if self.align_corners else
            "half_pixel" if self.mode == "linear" and not spatial_hw else "asymmetric")
        return Interpolate4(mode=mode, shape_calculation_mode="sizes", coordinate_transformation_mode=transform,
                            nearest_mode="simple" if self.mode == "nearest" else "round_prefer_floor",
                            antialias=self.antialias, pads_begin=self.pads_begin, pads_end=self.pads_end)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        data = inputs[0].shape
        v = inputs[1].value
        if data.rank_is_dynamic:
            return [TensorType(inputs[0].element_type, data)]
        axes = normalize_axes(self.axes, len(data)) if self.axes else []
        shape = self._as_v4()._shape(data, axes, None if v is None else np.asarray(v).reshape(-1).tolist(), None, None)
        return [TensorType(inputs[0].element_type, shape)]

    def evaluate(self, x: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
        if self.mode == "area":
            raise UnsupportedOpError("Interpolate-1 mode 'area' has no numpy evaluation in graphir")
        v4 = self._as_v4(x.ndim)
        ax = normalize_axes(self.axes, x.ndim)
        return [v4._run_values(x, ax, [int(v) for v in np.asarray(sizes).reshape(-1)], None, "sizes")]
