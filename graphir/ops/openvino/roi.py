"""OpenVINO region-of-interest pooling: ROIAlign-3/9, ROIAlignRotated-15, ROIPooling-2,
PSROIPooling-1 and DeformablePSROIPooling-1.

Every op maps a list of boxes on a feature map ``[N, C, H, W]`` to one fixed-size grid per box.
ROIAlign averages (or takes the max of) bilinear samples on a regular grid inside each bin.
"""
from __future__ import annotations

import math
from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.narrow_float import TypeRounding
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


#: bins pooled at once by DeformablePSROIPooling (ROIs x output_dim x group_size^2), bounding its temporaries
_PSROI_BLOCK = 1 << 18


def _rank(op: Op, t: TensorType, rank: int, what: str) -> PartialShape:
    if t.shape.rank_is_static and len(t.shape) != rank:
        raise op.fail(f"Expected a {rank}D tensor for the {what}. Got: {t.shape}")
    return t.shape if t.shape.rank_is_static else PartialShape.dynamic(rank)


def _roi_align_output(op: Op, inputs: list[TensorType], box_size: int, pooled: tuple[int, int]) -> TensorType:
    """ROIAlign's and ROIAlignRotated's output: [rois, channels, pooled_h, pooled_w], with OpenVINO's checks."""
    data, rois, indices = inputs
    et = data.element_type.merge(rois.element_type)
    if et is None or not (et.is_real or et.is_dynamic):
        raise op.fail("The data type for input and ROIs is expected to be a same floating point type. "
                      f"Got: {data.element_type} and: {rois.element_type}")
    if not (indices.element_type.is_integral_number or indices.element_type.is_dynamic):
        raise op.fail(f"The data type for batch indices is expected to be an integer. Got: {indices.element_type}")
    d = _rank(op, data, 4, "input data")
    r = _rank(op, rois, 2, "ROIs input")
    b = _rank(op, indices, 1, "batch indices input")
    if not r[1].compatible(Dimension.static(box_size)):
        raise op.fail("The second dimension of ROIs input should contain box coordinates. "
                      f"op dimension is expected to be equal to {box_size}. Got: {r[1]}")
    count = r[0].merge(b[0])
    if count is None:
        raise op.fail("The first dimension of ROIs input must be equal to the first dimension of the "
                      f"batch indices input. Got: {r[0]} and: {b[0]}")
    return TensorType(et, PartialShape([count, d[1], *pooled]))


def bilinear_axis(coords: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per sample coordinate along one axis of length ``size``: (low index, high index, low weight,
    high weight, valid) as ROIAlign samples: a coordinate outside [-1, size] contributes nothing,
    one below 0 is clamped to 0, one at or past the last cell uses that cell alone."""
    c = coords.astype(np.float32)
    valid = (c >= -1) & (c <= size)
    c = np.maximum(c, np.float32(0))
    low = np.floor(c).astype(np.int64)
    at_end = low >= size - 1
    low = np.where(at_end, size - 1, low)
    high = np.where(at_end, size - 1, low + 1)
    c = np.where(at_end, low.astype(np.float32), c)
    frac = (c - low.astype(np.float32)).astype(np.float32)
    return low, high, (np.float32(1) - frac).astype(np.float32), frac, valid


class ROIAlign(Op):
    """ROIAlign-3: ``[num_rois, C, pooled_h, pooled_w]`` from data, boxes ``[num_rois, 4]``
    (x1, y1, x2, y2) and one batch index per box."""

    type_name: ClassVar[str] = "ROIAlign"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("rois"), Port("batch_indices"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    pooled_h: int
    pooled_w: int
    sampling_ratio: int
    spatial_scale: float
    mode: Literal["avg", "max"]

    def _aligned_mode(self) -> str:
        return "asymmetric"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [_roi_align_output(self, inputs, box_size=4, pooled=(self.pooled_h, self.pooled_w))]

    def evaluate(self, data: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> list[np.ndarray]:
        mode = self._aligned_mode()
        src = 0.5 if mode == "half_pixel" else 0.0
        dst = 0.0 if mode == "asymmetric" else -0.5
        out = roi_align(np.asarray(data), np.asarray(rois), np.asarray(indices), self.pooled_h, self.pooled_w,
                        self.sampling_ratio, self.spatial_scale, self.mode, src, dst, mode == "asymmetric")
        return [out.astype(np.asarray(data).dtype)]


def _samples(start: np.float32, length: np.float32, bins: int, sampling_ratio: int) -> tuple[np.ndarray, int]:
    bin_size = np.float32(length / np.float32(bins))
    ratio = sampling_ratio if sampling_ratio > 0 else int(math.ceil(bin_size))
    step = np.float32(bin_size / np.float32(ratio)) if ratio > 0 else np.float32(0)
    grid = start + np.arange(bins, dtype=np.float32)[:, None] * bin_size + \
        (np.arange(ratio, dtype=np.float32)[None, :] + np.float32(0.5)) * step
    return grid.astype(np.float32).reshape(-1), ratio


def roi_align(data: np.ndarray, rois: np.ndarray, indices: np.ndarray, ph: int, pw: int, sampling_ratio: int,
              spatial_scale: float, mode: str, offset_src: float, offset_dst: float, widen: bool,
              empty: float | None = None) -> np.ndarray:
    """ROIAlign in f32 as OpenVINO's CPU plugin computes it: box corners
    ``(v + offset_src) * spatial_scale + offset_dst``, boxes widened to one cell when ``widen``,
    bilinear samples averaged (``avg``) or maxed from 0 (``max``). A box without samples (empty,
    ratio 0) gives ``empty`` (None: NaN for avg, 0 for max, as the CPU plugin does)."""
    f = np.float32
    n_rois, channels = len(rois), data.shape[1]
    height, width = data.shape[2], data.shape[3]
    if 0 < sampling_ratio <= _MAX_BATCHED_RATIO and data.ndim == 4 and n_rois and channels > 1:
        # (one channel: the loop's samples are not channels-last and numpy sums them row by row)
        return _roi_align_batched(data, rois, indices, ph, pw, sampling_ratio, spatial_scale, mode, offset_src,
                                  offset_dst, widen)
    out = np.zeros((n_rois, channels, ph, pw), dtype=np.float32)
    scale = f(spatial_scale)
    for r in range(n_rois):
        x1, y1, x2, y2 = ((f(v) + f(offset_src)) * scale + f(offset_dst) for v in np.asarray(rois[r], np.float32))
        w, h = f(x2 - x1), f(y2 - y1)
        if widen:
            w, h = max(w, f(1)), max(h, f(1))
        ys, ry = _samples(y1, h, ph, sampling_ratio)
        xs, rx = _samples(x1, w, pw, sampling_ratio)
        if ry == 0 or rx == 0:
            out[r] = (np.nan if mode == "avg" else 0) if empty is None else empty
            continue
        yl, yh, wyl, wyh, vy = bilinear_axis(ys, height)
        xl, xh, wxl, wxh, vx = bilinear_axis(xs, width)
        valid = (vy[:, None] & vx[None, :]).astype(np.float32)
        fmap = data[int(indices[r])].astype(np.float32, copy=False).reshape(channels, height * width)
        weights = [(wy[:, None] * wx[None, :] * valid).astype(np.float32) for wy in (wyl, wyh) for wx in (wxl, wxh)]
        # one gather per corner (the map is not copied per box; rows then columns copied C x len(ys) x W)
        corners = [fmap[:, (yy[:, None] * width + xx[None, :]).reshape(-1)].reshape(channels, len(yy), len(xx))
                   for yy in (yl, yh) for xx in (xl, xh)]
        samples = corners[0] * weights[0] + corners[1] * weights[1] + corners[2] * weights[2] + corners[3] * weights[3]
        grid = samples.reshape(channels, ph, ry, pw, rx)
        if mode == "avg":
            out[r] = (grid * f(f(1) / f(ry * rx))).sum(axis=(2, 4), dtype=np.float32)
        else:  # the CPU plugin starts the max at 0: a bin of negative samples gives 0
            out[r] = np.maximum(grid.max(axis=(2, 4)), f(0))
    return out


#: fixed sampling ratios up to this take the batched ROIAlign (its sums are written out in the
#: order numpy's reduction takes in the per-box loop, tested up to here)
_MAX_BATCHED_RATIO = 8
#: boxes computed together by the batched ROIAlign
_BOX_CHUNK = 32


def _roi_align_batched(data: np.ndarray, rois: np.ndarray, indices: np.ndarray, ph: int, pw: int, ratio: int,
                       spatial_scale: float, mode: str, offset_src: float, offset_dst: float,
                       widen: bool) -> np.ndarray:
    """:func:`roi_align` with a fixed sampling ratio, boxes in chunks: the same f32 operations
    element by element (the per-box scalars become arrays), each sample's channels gathered as
    one row of a channels-last copy of the map, and the bin average summed as numpy's reduction
    of the per-box loop sums it (its samples are channels-last in memory: one sample after the
    other, row by row, from +0), so the bits are the loop's (tests/ops/test_roi.py)."""
    f = np.float32
    n_rois, channels, height, width = len(rois), data.shape[1], data.shape[2], data.shape[3]
    box = (np.asarray(rois, np.float32) + f(offset_src)) * f(spatial_scale) + f(offset_dst)
    x1, y1, x2, y2 = box[:, 0], box[:, 1], box[:, 2], box[:, 3]
    w, h = (x2 - x1).astype(f), (y2 - y1).astype(f)
    if widen:  # max(v, 1) of the loop: v unless 1 is larger (NaN stays)
        w, h = np.where(f(1) > w, f(1), w), np.where(f(1) > h, f(1), h)
    ys = _batched_samples(y1, h, ph, ratio)
    xs = _batched_samples(x1, w, pw, ratio)
    yl, yh, wyl, wyh, vy = bilinear_axis(ys, height)
    xl, xh, wxl, wxh, vx = bilinear_axis(xs, width)
    valid = (vy[:, :, None] & vx[:, None, :]).astype(np.float32)
    weights = [(wy[:, :, None] * wx[:, None, :] * valid).astype(np.float32)[..., None]
               for wy in (wyl, wyh) for wx in (wxl, wxh)]
    rows = [(yy[:, :, None] * width + xx[:, None, :]) for yy in (yl, yh) for xx in (xl, xh)]
    maps = np.ascontiguousarray(data.astype(np.float32, copy=False).reshape(data.shape[0], channels, -1).transpose(0, 2, 1))
    batch = np.asarray(indices).astype(np.int64).reshape(-1, 1, 1)
    out = np.empty((n_rois, channels, ph, pw), np.float32)
    third = f(f(1) / f(ratio * ratio))
    for start in range(0, n_rois, _BOX_CHUNK):
        part = slice(start, min(n_rois, start + _BOX_CHUNK))
        corners = [maps[batch[part], idx[part]] for idx in rows]  # [boxes, Y, X, C]
        ws = [wt[part] for wt in weights]
        samples = corners[0] * ws[0] + corners[1] * ws[1] + corners[2] * ws[2] + corners[3] * ws[3]
        grid = samples.reshape(samples.shape[0], ph, ratio, pw, ratio, channels)
        if mode == "avg":
            grid = grid * third
            total = grid[:, :, 0, :, 0]
            for i, j in [(i, j) for i in range(ratio) for j in range(ratio)][1:]:
                total = total + grid[:, :, i, :, j]
            pooled = total + f(0)  # numpy's reduction starts from +0: an all -0 bin gives +0
        else:  # the CPU plugin starts the max at 0: a bin of negative samples gives 0
            pooled = np.maximum(grid.max(axis=(2, 4)), f(0))
        out[part] = pooled.transpose(0, 3, 1, 2)
    return out


def _batched_samples(start: np.ndarray, length: np.ndarray, bins: int, ratio: int) -> np.ndarray:
    """:func:`_samples` for every box at once: ``[boxes, bins * ratio]``."""
    bin_size = (length / np.float32(bins)).astype(np.float32)
    step = (bin_size / np.float32(ratio)).astype(np.float32)
    grid = start[:, None, None] + np.arange(bins, dtype=np.float32)[None, :, None] * bin_size[:, None, None] + \
        (np.arange(ratio, dtype=np.float32)[None, None, :] + np.float32(0.5)) * step[:, None, None]
    return grid.astype(np.float32).reshape(len(start), -1)


class ROIAlign9(ROIAlign):
    """ROIAlign-9: adds ``aligned_mode`` (half_pixel shifts boxes by half a pixel and keeps
    boxes under one pixel; asymmetric, as v3, widens them to one pixel)."""

    version: ClassVar[str] = "opset9"

    aligned_mode: Literal["asymmetric", "half_pixel_for_nn", "half_pixel"] = "asymmetric"

    def _aligned_mode(self) -> str:
        return self.aligned_mode


class ROIAlignRotated(Op):
    """ROIAlignRotated-15: ROIAlign over rotated boxes ``[cx, cy, w, h, angle]`` (radians,
    counter-clockwise unless ``clockwise_mode``); the sample grid is built around the box centre
    (shifted by half a pixel) and rotated onto the feature map."""

    type_name: ClassVar[str] = "ROIAlignRotated"
    version: ClassVar[str] = "opset15"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("rois"), Port("batch_indices"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    pooled_h: int
    pooled_w: int
    sampling_ratio: int
    spatial_scale: float
    clockwise_mode: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [_roi_align_output(self, inputs, box_size=5, pooled=(self.pooled_h, self.pooled_w))]

    def evaluate(self, data: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> list[np.ndarray]:
        data = np.asarray(data)
        f = np.float32
        n_rois, channels, height, width = len(rois), data.shape[1], data.shape[2], data.shape[3]
        ph, pw = self.pooled_h, self.pooled_w
        out = np.zeros((n_rois, channels, ph, pw), np.float32)
        scale = f(self.spatial_scale)
        for r in range(n_rois):
            cx, cy, w, h, angle = (f(v) for v in np.asarray(rois[r], np.float32))
            cx, cy, w, h = f(cx * scale - f(0.5)), f(cy * scale - f(0.5)), f(w * scale), f(h * scale)
            theta = -angle if self.clockwise_mode else angle
            cos, sin = f(math.cos(theta)), f(math.sin(theta))
            ys, ry = _samples(f(-h / f(2)), h, ph, self.sampling_ratio)
            xs, rx = _samples(f(-w / f(2)), w, pw, self.sampling_ratio)
            ry, rx = max(ry, 0), max(rx, 0)
            if ry == 0 or rx == 0:
                continue
            yy, xx = ys[:, None], xs[None, :]
            y = (yy * cos - xx * sin + cy).astype(np.float32)
            x = (yy * sin + xx * cos + cx).astype(np.float32)
            yl, yh, wyl, wyh, vy = bilinear_axis(y.reshape(-1), height)
            xl, xh, wxl, wxh, vx = bilinear_axis(x.reshape(-1), width)
            fmap = data[int(indices[r])].astype(np.float32)
            valid = (vy & vx).astype(np.float32)
            samples = (fmap[:, yl, xl] * (wyl * wxl * valid) + fmap[:, yl, xh] * (wyl * wxh * valid) +
                       fmap[:, yh, xl] * (wyh * wxl * valid) + fmap[:, yh, xh] * (wyh * wxh * valid))
            grid = samples.reshape(channels, ph, ry, pw, rx)
            out[r] = (grid * f(f(1) / f(ry * rx))).sum(axis=(2, 4), dtype=np.float32)
        return [out.astype(data.dtype)]


def _rois5(op: Op, inputs: list[TensorType]) -> tuple[ElementType, PartialShape, PartialShape]:
    data, rois = inputs[0], inputs[1]
    if not (data.element_type.is_real or data.element_type.is_dynamic):
        raise op.fail(f"The data type for input and ROIs is expected to be a floating point type. Got: {data.element_type}")
    et = data.element_type.merge(rois.element_type)
    if et is None:
        raise op.fail(f"Type of feature maps input {data.element_type} and ROIs input {rois.element_type} must match")
    d = _rank(op, data, 4, "feature maps input")
    r = _rank(op, rois, 2, "ROIs input")
    if not r[1].compatible(Dimension.static(5)):
        raise op.fail(f"The second dimension of ROIs input must be 5 (batch id, x1, y1, x2, y2). Got: {r[1]}")
    return et, d, r


class ROIPooling(Op):
    """ROIPooling-2: max over integer-rounded bins (``max``, Caffe) or one bilinear sample per
    output cell with boxes in normalised coordinates (``bilinear``); boxes are
    ``[batch_id, x1, y1, x2, y2]``."""

    type_name: ClassVar[str] = "ROIPooling"
    version: ClassVar[str] = "opset2"
    inputs: ClassVar[tuple[Port, ...]] = (Port("input"), Port("rois"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    pooled_h: int
    pooled_w: int
    spatial_scale: float
    method: Literal["max", "bilinear"] = "max"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et, d, r = _rois5(self, inputs)
        if self.pooled_h < 1 or self.pooled_w < 1:
            raise self.fail(f"The dimensions of pooled output must be positive. Got: {self.pooled_h}x{self.pooled_w}")
        return [TensorType(et, PartialShape([r[0], d[1], self.pooled_h, self.pooled_w]))]

    def evaluate(self, data: np.ndarray, rois: np.ndarray) -> list[np.ndarray]:
        data = np.asarray(data)
        x = data.astype(np.float32)
        _, channels, height, width = x.shape
        ph, pw = self.pooled_h, self.pooled_w
        out = np.zeros((len(rois), channels, ph, pw), np.float32)
        f = np.float32
        q = TypeRounding(data.dtype)
        for n, roi in enumerate(np.asarray(rois, np.float32)):
            fmap = x[min(max(int(roi[0]), 0), x.shape[0] - 1)]
            if self.method == "max":
                sx, sy, ex, ey = (int(np.round(f(v) * f(self.spatial_scale))) for v in roi[1:])
                rh, rw = max(ey - sy + 1, 1), max(ex - sx + 1, 1)
                bh, bw = f(rh) / f(ph), f(rw) / f(pw)
                for i in range(ph):
                    hs = min(max(int(np.floor(f(i) * bh)) + sy, 0), height)
                    he = min(max(int(np.ceil(f(i + 1) * bh)) + sy, 0), height)
                    for j in range(pw):
                        ws = min(max(int(np.floor(f(j) * bw)) + sx, 0), width)
                        we = min(max(int(np.ceil(f(j + 1) * bw)) + sx, 0), width)
                        if he > hs and we > ws:
                            out[n, :, i, j] = fmap[:, hs:he, ws:we].max(axis=(1, 2))
                continue
            if q.narrow:
                out[n] = self._bilinear_in_type(fmap, roi[1:], q)
                continue
            x1, y1, x2, y2 = (f(v) for v in roi[1:])
            hs = f((y2 - y1) * f(height - 1) / f(ph - 1)) if ph > 1 else f(0)
            ws = f((x2 - x1) * f(width - 1) / f(pw - 1)) if pw > 1 else f(0)
            for i in range(ph):
                # i * scale + start as one fused multiply-add (the CPU plugin's compiled arithmetic)
                iy = f(float(i) * float(hs) + float(y1 * f(height - 1))) if ph > 1 else f(f(0.5) * (y1 + y2) * f(height - 1))
                for j in range(pw):
                    ix = f(float(j) * float(ws) + float(x1 * f(width - 1))) if pw > 1 else f(f(0.5) * (x1 + x2) * f(width - 1))
                    if iy < 0 or iy > height - 1 or ix < 0 or ix > width - 1:
                        continue
                    ty, by, lx, rx = int(np.floor(iy)), int(np.ceil(iy)), int(np.floor(ix)), int(np.ceil(ix))
                    top = fmap[:, ty, lx] + (fmap[:, ty, rx] - fmap[:, ty, lx]) * f(ix - lx)
                    bottom = fmap[:, by, lx] + (fmap[:, by, rx] - fmap[:, by, lx]) * f(ix - lx)
                    out[n, :, i, j] = top + (bottom - top) * f(iy - ty)
        return [out.astype(data.dtype)]

    def _bilinear_in_type(self, fmap: np.ndarray, box: np.ndarray, q: TypeRounding) -> np.ndarray:
        """Bilinear ROIPooling of one box in bf16/f16 as OpenVINO's reference computes it there (the
        values its op_reference bf16 case hard-codes): each arithmetic step on a value of the type is
        rounded to the type; ``i * scale + start`` sums in f32 and rounds once; the last row and
        column sample exactly at the box's end."""
        _, height, width = fmap.shape
        ph, pw = self.pooled_h, self.pooled_w
        x1, y1, x2, y2 = (float(v) for v in box)
        out = np.zeros((fmap.shape[0], ph, pw), np.float32)

        def coords(lo: float, hi: float, size: int, pooled: int) -> list[float]:
            if pooled == 1:
                return [float(q(0.5 * float(q(lo + hi)) * (size - 1)))]
            scale = float(q(float(q(float(q(hi - lo)) * (size - 1))) / (pooled - 1)))
            start = float(q(lo * (size - 1)))
            return [float(q(np.float32(i * scale) + np.float32(start))) for i in range(pooled - 1)] + [
                float(q(np.float32((size - 1) * hi)))]

        for i, iy in enumerate(coords(y1, y2, height, ph)):
            for j, ix in enumerate(coords(x1, x2, width, pw)):
                if iy < 0 or iy > height - 1 or ix < 0 or ix > width - 1:
                    continue
                ty, lx = math.floor(iy), math.floor(ix)
                by, rx = min(math.ceil(iy), height - 1), min(math.ceil(ix), width - 1)
                dx, dy = q(ix - lx), q(iy - ty)
                top = q(fmap[:, ty, lx] + q(q(fmap[:, ty, rx] - fmap[:, ty, lx]) * dx))
                bottom = q(fmap[:, by, lx] + q(q(fmap[:, by, rx] - fmap[:, by, lx]) * dx))
                out[:, i, j] = q(top + q(q(bottom - top) * dy))
        return out


def _round_half_away(v: float) -> np.float32:
    """C's ``round``: halves away from zero (numpy rounds them to even)."""
    return np.float32(math.copysign(math.floor(abs(float(v)) + 0.5), float(v)))


class PSROIPooling(Op):
    """PSROIPooling-1 (R-FCN): position-sensitive pooling; output cell (c, i, j) reads its own
    input channel group. ``average`` pools integer-rounded bins, ``bilinear`` averages
    ``spatial_bins_x * spatial_bins_y`` bilinear samples."""

    type_name: ClassVar[str] = "PSROIPooling"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("input"), Port("coords"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    output_dim: int
    group_size: int = 1
    spatial_scale: float
    spatial_bins_x: int = 1
    spatial_bins_y: int = 1
    mode: Literal["average", "bilinear"] = "average"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et, d, r = _rois5(self, inputs)
        if self.output_dim < 1 or self.group_size < 1:
            raise self.fail(f"output_dim {self.output_dim} and group_size {self.group_size} must be positive")
        if self.mode == "average":
            need = self.output_dim * self.group_size * self.group_size
            if d[1].is_static and d[1].get_length() != need:
                raise self.fail("Number of input's channels must be a multiply of output_dim * group_size * group_size. "
                                f"Got: {d[1]}, expected {need}")
        else:
            if self.spatial_bins_x < 1 or self.spatial_bins_y < 1:
                raise self.fail("spatial_bins_x and spatial_bins_y must be positive")
            need = self.output_dim * self.spatial_bins_x * self.spatial_bins_y
            if d[1].is_static and d[1].get_length() % need:
                raise self.fail("Number of input's channels must be a multiply of output_dim * spatial_bins_x * "
                                f"spatial_bins_y. Got: {d[1]}")
        return [TensorType(et, PartialShape([r[0], self.output_dim, self.group_size, self.group_size]))]

    def evaluate(self, data: np.ndarray, rois: np.ndarray) -> list[np.ndarray]:
        data = np.asarray(data)
        x = data.astype(np.float32)
        _, _, height, width = x.shape
        g, dim = self.group_size, self.output_dim
        f = np.float32
        scale = f(self.spatial_scale)
        out = np.zeros((len(rois), dim, g, g), np.float32)
        bins_x, bins_y = self.spatial_bins_x, self.spatial_bins_y
        for n, box in enumerate(np.asarray(rois, np.float32)):
            fmap = x[int(box[0])]
            if self.mode == "average":
                # as the CPU plugin: corners rounded half away from zero (the end one after adding 1),
                # boxes at least 0.1 wide, bins clamped to the map
                sw, sh = _round_half_away(box[1]) * scale, _round_half_away(box[2]) * scale
                ew, eh = _round_half_away(box[3] + f(1)) * scale, _round_half_away(box[4] + f(1)) * scale
                bw, bh = max(f(ew - sw), f(0.1)) / f(g), max(f(eh - sh), f(0.1)) / f(g)

                def clamp(v: float, hi: int) -> int:
                    return min(max(int(v), 0), hi)

                c_in = 0
                for c in range(dim):
                    for i in range(g):
                        for j in range(g):
                            ws = clamp(np.floor(f(j) * bw + sw), width)
                            hs = clamp(np.floor(f(i) * bh + sh), height)
                            we = clamp(np.ceil(f(j + 1) * bw + sw), width)
                            he = clamp(np.ceil(f(i + 1) * bh + sh), height)
                            region = fmap[c_in, hs:he, ws:we]
                            out[n, c, i, j] = region.sum(dtype=np.float32) / f(max(region.size, 0)) if region.size else 0
                            c_in += 1
                continue
            sw, sh, ew, eh = (f(v) * scale for v in box[1:])
            bw, bh = f(ew - sw) / f(bins_x), f(eh - sh) / f(bins_y)
            wscale = f(bw * f(width - 1) / f(g - 1)) if g > 1 else f(0)
            hscale = f(bh * f(height - 1) / f(g - 1)) if g > 1 else f(0)
            for c in range(dim):
                for i in range(g):
                    for j in range(g):
                        acc = f(0)
                        c_in = 0
                        for sby in range(bins_y):
                            for sbx in range(bins_x):
                                bsw, bsh = f(sw + f(sbx) * bw), f(sh + f(sby) * bh)
                                plane = fmap[c_in * dim + c]
                                px = f(f(j) * wscale + bsw * f(width - 1)) if g > 1 else f((bsw + bsw + bw) * f(width - 1) / f(2))
                                py = f(f(i) * hscale + bsh * f(height - 1)) if g > 1 else f((bsh + bsh + bh) * f(height - 1) / f(2))
                                if px < width and py < height:
                                    left, top = int(np.floor(px)), int(np.floor(py))
                                    right, bottom = min(int(np.ceil(px)), width - 1), min(int(np.ceil(py)), height - 1)
                                    ti = plane[top, left] + (plane[top, right] - plane[top, left]) * f(px - left)
                                    bi = plane[bottom, left] + (plane[bottom, right] - plane[bottom, left]) * f(px - left)
                                    acc = f(acc + ti + (bi - ti) * f(py - top))
                                c_in += 1
                        out[n, c, i, j] = acc / f(bins_x * bins_y)
        return [out.astype(data.dtype)]


class DeformablePSROIPooling(Op):
    """DeformablePSROIPooling-1: PSROIPooling (bilinear, ``spatial_bins`` samples per bin) whose
    bins move by learned offsets (input 2, scaled by ``trans_std`` and the box size)."""

    type_name: ClassVar[str] = "DeformablePSROIPooling"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("input"), Port("rois"), Port("offsets", optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    output_dim: int
    spatial_scale: float
    group_size: int = 1
    #: the spec names one mode; OpenVINO reads any string and only its run refuses another one
    mode: str = "bilinear_deformable"
    spatial_bins_x: int = 1
    spatial_bins_y: int = 1
    trans_std: float = 1.0
    part_size: int = 1

    def check_run(self, inputs: list[TensorType]) -> None:
        if self.mode != "bilinear_deformable":
            raise self.fail(f"Doesn't support mode: {self.mode} (only 'bilinear_deformable' runs)")

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et, d, r = _rois5(self, inputs[:2])
        if len(inputs) > 2:
            merged = et.merge(inputs[2].element_type)
            if merged is None:
                raise self.fail(f"Offsets element type {inputs[2].element_type} must match the data's {et}")
            _rank(self, inputs[2], 4, "offsets input")
        if self.output_dim < 1 or self.group_size < 1:
            raise self.fail(f"output_dim {self.output_dim} and group_size {self.group_size} must be positive")
        return [TensorType(et, PartialShape([r[0], self.output_dim, self.group_size, self.group_size]))]

    def evaluate(self, data: np.ndarray, rois: np.ndarray, offsets: np.ndarray | None = None) -> list[np.ndarray]:
        data = np.asarray(data)
        x = data.astype(np.float32, copy=False)
        boxes = np.asarray(rois, np.float32)
        off = None if offsets is None else np.asarray(offsets, np.float32)
        g, dim = self.group_size, self.output_dim
        out = np.zeros((len(boxes), dim, g, g), np.float32)
        block = max(1, _PSROI_BLOCK // max(dim * g * g, 1))
        for start in range(0, len(boxes), block):
            stop = min(start + block, len(boxes))
            out[start:stop] = self._pool(x, boxes[start:stop], None if off is None else off[start:stop])
        return [out.astype(data.dtype)]

    def _pool(self, x: np.ndarray, boxes: np.ndarray, off: np.ndarray | None) -> np.ndarray:
        """ROIs' bins ``[R, output_dim, g, g]``: every bin's samples in f32, summed in OpenVINO's
        reference order (row of samples by row) and averaged over those inside the map."""
        f = np.float32
        _, channels, height, width = x.shape
        g, dim, part = self.group_size, self.output_dim, self.part_size
        bins_x, bins_y = self.spatial_bins_x, self.spatial_bins_y
        scale = f(self.spatial_scale)
        # per ROI [R, 1, 1, 1]
        sw, sh = np.round(boxes[:, 1]) * scale - f(0.5), np.round(boxes[:, 2]) * scale - f(0.5)
        ew, eh = (np.round(boxes[:, 3]) + 1) * scale - f(0.5), (np.round(boxes[:, 4]) + 1) * scale - f(0.5)
        rw, rh = ew - sw, eh - sh
        rw, rh = np.where(f(0.1) > rw, f(0.1), rw), np.where(f(0.1) > rh, f(0.1), rh)  # Python's max(v, 0.1)
        bw, bh = rw / f(g), rh / f(g)
        sbw, sbh = bw / f(bins_x), bh / f(bins_y)
        sw, sh, rw, rh, bw, bh, sbw, sbh = (v.reshape(-1, 1, 1, 1) for v in (sw, sh, rw, rh, bw, bh, sbw, sbh))
        cells = np.arange(g)
        parts = np.array([int(np.floor(f(k) / f(g) * f(part))) for k in range(g)], np.int64)
        if off is None:
            tx = ty = np.zeros((len(boxes), 1, 1, 1), f)
        else:
            per_class = max(dim // max(off.shape[1] // 2, 1), 1)
            cls = (np.arange(dim) // per_class)[None, :, None, None]
            roi = np.arange(len(boxes))[:, None, None, None]
            tx = off[roi, cls * 2, parts[:, None], parts[None, :]] * f(self.trans_std)
            ty = off[roi, cls * 2 + 1, parts[:, None], parts[None, :]] * f(self.trans_std)
        ws = (cells[None, None, None, :].astype(f) * bw + sw) + tx * rw
        hs = (cells[None, None, :, None].astype(f) * bh + sh) + ty * rh
        # the flat index of each bin's plane: image of the ROI, channel (c * g + i) * g + j
        plane = (np.arange(dim)[:, None, None] * g + cells[:, None]) * g + cells
        image = boxes[:, 0].astype(np.int64)
        image = np.where(image < 0, image + x.shape[0], image)  # -1: the last image, as Python indexes
        outside = np.flatnonzero((image < 0) | (image >= x.shape[0]))
        if outside.size:
            raise self.fail(f"ROI {outside[0]}'s image index {boxes[outside[0], 0]} is outside the input's batch "
                            f"of {x.shape[0]}")
        if dim * g * g > channels:
            raise self.fail(f"Input channels ({channels}) must be at least output_dim x group_size^2 "
                            f"({dim} x {g}^2)")
        base = (image[:, None, None, None] * channels + plane) * (height * width)
        flat = x.reshape(-1)
        total = np.zeros(np.broadcast_shapes(ws.shape, hs.shape, base.shape), f)
        count = np.zeros(total.shape, np.int64)
        for iy in range(bins_y):
            py = hs + f(iy) * sbh
            for ix in range(bins_x):
                px = ws + f(ix) * sbw
                keep = ~((px < -0.5) | (px > width - 0.5) | (py < -0.5) | (py > height - 0.5))
                cx = np.where(f(0) > px, f(0), px)
                cx = np.where(f(width - 1) < cx, f(width - 1), cx)
                cy = np.where(f(0) > py, f(0), py)
                cy = np.where(f(height - 1) < cy, f(height - 1), cy)
                # NaN points (NaN boxes or offsets) read the first cell, their bin becomes NaN
                x0 = np.floor(np.where(np.isnan(cx), f(0), cx)).astype(np.int64)
                y0 = np.floor(np.where(np.isnan(cy), f(0), cy)).astype(np.int64)
                x1, y1 = np.minimum(x0 + 1, width - 1), np.minimum(y0 + 1, height - 1)
                dx, dy = cx - x0.astype(f), cy - y0.astype(f)
                top = flat.take(base + y0 * width + x0) * (f(1) - dx) + flat.take(base + y0 * width + x1) * dx
                bottom = flat.take(base + y1 * width + x0) * (f(1) - dx) + flat.take(base + y1 * width + x1) * dx
                total = np.where(keep, (total + top * (f(1) - dy)) + bottom * dy, total)
                count += keep
        return np.divide(total, count.astype(f), out=np.zeros(total.shape, f), where=count > 0)
