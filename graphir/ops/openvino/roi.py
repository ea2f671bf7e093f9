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
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def _rank(op: Op, t: TensorType, rank: int, what: str) -> PartialShape:
    if t.shape.rank_is_static and len(t.shape) != rank:
        raise op.fail(f"Expected a {rank}D tensor for the {what}. Got: {t.shape}")
    return t.shape if t.shape.rank_is_static else PartialShape.dynamic(rank)


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
        data, rois, indices = inputs
        et = data.element_type.merge(rois.element_type)
        if et is None or not (et.is_real or et.is_dynamic):
            raise self.fail("The data type for input and ROIs is expected to be a same floating point type. "
                            f"Got: {data.element_type} and: {rois.element_type}")
        if not (indices.element_type.is_integral_number or indices.element_type.is_dynamic):
            raise self.fail(f"The data type for batch indices is expected to be an integer. Got: {indices.element_type}")
        d = _rank(self, data, 4, "input data")
        r = _rank(self, rois, 2, "ROIs input")
        b = _rank(self, indices, 1, "batch indices input")
        if not r[1].compatible(Dimension.static(4)):
            raise self.fail("The second dimension of ROIs input should contain box coordinates. "
                            f"op dimension is expected to be equal to 4. Got: {r[1]}")
        count = r[0].merge(b[0])
        if count is None:
            raise self.fail("The first dimension of ROIs input must be equal to the first dimension of the "
                            f"batch indices input. Got: {r[0]} and: {b[0]}")
        return [TensorType(et, PartialShape([count, d[1], self.pooled_h, self.pooled_w]))]

    def _box(self, roi: np.ndarray) -> tuple[np.float32, np.float32, np.float32, np.float32]:
        """(x start, y start, width, height) of a box on the feature map."""
        scale = np.float32(self.spatial_scale)
        mode = self._aligned_mode()
        src = np.float32(0.5) if mode == "half_pixel" else np.float32(0)
        dst = np.float32(0) if mode == "asymmetric" else np.float32(-0.5)
        x1, y1, x2, y2 = ((np.float32(v) + src) * scale + dst for v in roi.astype(np.float32))
        w, h = np.float32(x2 - x1), np.float32(y2 - y1)
        if mode == "asymmetric":
            w, h = max(w, np.float32(1)), max(h, np.float32(1))
        return x1, y1, w, h

    def _samples(self, start: np.float32, length: np.float32, bins: int) -> tuple[np.ndarray, int]:
        bin_size = np.float32(length / np.float32(bins))
        ratio = self.sampling_ratio if self.sampling_ratio > 0 else int(math.ceil(bin_size))
        step = np.float32(bin_size / np.float32(ratio)) if ratio > 0 else np.float32(0)
        grid = start + np.arange(bins, dtype=np.float32)[:, None] * bin_size + \
            (np.arange(ratio, dtype=np.float32)[None, :] + np.float32(0.5)) * step
        return grid.astype(np.float32).reshape(-1), ratio

    def evaluate(self, data: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> list[np.ndarray]:
        data = np.asarray(data)
        n_rois, channels = len(rois), data.shape[1]
        height, width = data.shape[2], data.shape[3]
        ph, pw = self.pooled_h, self.pooled_w
        out = np.zeros((n_rois, channels, ph, pw), dtype=np.float32)
        for r in range(n_rois):
            x1, y1, w, h = self._box(np.asarray(rois[r]))
            ys, ry = self._samples(y1, h, ph)
            xs, rx = self._samples(x1, w, pw)
            if ry == 0 or rx == 0:  # an empty box without a fixed ratio: no samples (CPU: avg NaN, max 0)
                out[r] = np.nan if self.mode == "avg" else 0
                continue
            yl, yh, wyl, wyh, vy = bilinear_axis(ys, height)
            xl, xh, wxl, wxh, vx = bilinear_axis(xs, width)
            valid = (vy[:, None] & vx[None, :]).astype(np.float32)
            fmap = data[int(indices[r])].astype(np.float32)
            weights = [(wy[:, None] * wx[None, :] * valid).astype(np.float32)
                       for wy in (wyl, wyh) for wx in (wxl, wxh)]
            corners = [fmap[:, yy][:, :, xx] for yy in (yl, yh) for xx in (xl, xh)]
            samples = corners[0] * weights[0] + corners[1] * weights[1] + corners[2] * weights[2] + \
                corners[3] * weights[3]
            grid = samples.reshape(channels, ph, ry, pw, rx)
            if self.mode == "avg":
                out[r] = (grid * np.float32(np.float32(1) / np.float32(ry * rx))).sum(axis=(2, 4), dtype=np.float32)
            else:  # the CPU plugin starts the max at 0: a bin of negative samples gives 0
                out[r] = np.maximum(grid.max(axis=(2, 4)), np.float32(0))
        return [out.astype(data.dtype)]


class ROIAlign9(ROIAlign):
    """ROIAlign-9: adds ``aligned_mode`` (half_pixel shifts boxes by half a pixel and keeps
    boxes under one pixel; asymmetric, as v3, widens them to one pixel)."""

    version: ClassVar[str] = "opset9"

    aligned_mode: Literal["asymmetric", "half_pixel_for_nn", "half_pixel"] = "asymmetric"

    def _aligned_mode(self) -> str:
        return self.aligned_mode
