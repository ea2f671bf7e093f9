"""OpenVINO Proposal-1/4 (Faster R-CNN's region proposal layer): anchors from ``base_size`` x
``ratio`` x ``scale`` on a ``feat_stride`` grid, moved by the box deltas, clipped, small ones
dropped, the ``pre_nms_topn`` best kept, NMS, ``post_nms_topn`` rows ``[batch, x0, y0, x1, y1]``
per image (zero padded after a -1 end marker). v4 also outputs the scores. ``framework="tensorflow"``
uses TensorFlow's anchors (no +1 widths, unrounded ratios, shifted, clipped) and swaps the grid's x
and y. Values follow OpenVINO's CPU plugin, equal scores in libstdc++ ``std::partial_sort``'s order
(tests/ops/test_detection_more.py: random CPU cases)."""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.tie_order import STABLE, TieOrder
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def _best_first(scores: np.ndarray, count: int, ties: TieOrder) -> list[int]:
    """The first ``count`` indices by score, descending, equal scores in ``ties``'s order (a plain
    sort when every score differs)."""
    if ties is STABLE or len(np.unique(scores)) == len(scores):
        return [int(i) for i in np.argsort(-scores.astype(np.float64), kind="stable")[:count]]
    values = scores.tolist()
    return ties.partial_sort(list(range(len(values))), count, lambda a, b: values[a] > values[b])[:count]


class Proposal(Op):
    """Proposal-1: ``[batch * post_nms_topn, 5]`` boxes."""

    type_name: ClassVar[str] = "Proposal"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("class_probs"), Port("bbox_deltas"), Port("image_shape"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("proposals"),)

    base_size: int
    pre_nms_topn: int
    post_nms_topn: int
    nms_thresh: float
    feat_stride: int
    min_size: int
    ratio: list[float]
    scale: list[float]
    clip_before_nms: bool = True
    clip_after_nms: bool = False
    normalize: bool = False
    box_size_scale: float = 1.0
    box_coordinate_scale: float = 1.0
    framework: str = ""

    def _types(self, inputs: list[TensorType]) -> tuple[ElementType, Dimension]:
        probs, deltas, info = inputs
        et = probs.element_type.merge(deltas.element_type)
        if et is None or not (et.is_real or et.is_dynamic):
            raise self.fail(f"Proposal layer input class_probs and bbox_deltas should have the same floating point type. Got: "
                            f"{probs.element_type}, {deltas.element_type}")
        for name, t in (("class_probs", probs), ("bbox_deltas", deltas)):
            if t.shape.rank_is_static and len(t.shape) != 4:
                raise self.fail(f"Proposal layer shape {name} should be rank 4 compatible ({t.shape}).")
        if info.shape.rank_is_static and (len(info.shape) != 1 or not (info.shape[0].max is None or 3 <= info.shape[0].max)):
            raise self.fail(f"Image_shape must be 1-D tensor and has got 3 or 4 elements (image_shape_shape[0]{info.shape})")
        batch = Dimension.dynamic()
        for t in (probs, deltas):
            if t.shape.rank_is_static:
                merged = batch.merge(t.shape[0])
                if merged is None:
                    raise self.fail(f"Batch for inputs 'class_probs' and 'bbox_deltas' should be equal: {probs.shape}, {deltas.shape}")
                batch = merged
        return et, batch

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et, batch = self._types(inputs)
        return [TensorType(et, PartialShape([batch * self.post_nms_topn, 5]))]

    # --- values (as OpenVINO's CPU plugin computes them, proposal.cpp / proposal_imp.cpp) ------
    @property
    def _tensorflow(self) -> bool:
        return self.framework == "tensorflow"

    def _anchors(self) -> np.ndarray:
        """``[A, 4]`` anchors (x0, y0, x1, y1) around the first cell; ratios outer, scales inner.
        Caffe: widths rounded half away from zero, +1 pixel ends; TensorFlow: unrounded, no +1,
        shifted by half the base size."""
        f = np.float32
        offset = f(0) if self._tensorflow else f(1)
        area = f(self.base_size * self.base_size)
        center = f(0.5) * (f(self.base_size) - offset)
        half = f(self.base_size) * f(0.5)
        anchors = []
        for r in self.ratio:
            w = f(math.sqrt(f(area / f(r))))
            h = f(w * f(r))
            if not self._tensorflow:
                w = f(math.floor(w + 0.5))
                h = f(math.floor(f(w * f(r)) + 0.5))
            for s in self.scale:
                sw, sh = f(0.5) * f(w * f(s) - offset), f(0.5) * f(h * f(s) - offset)
                box = [center - sw, center - sh, center + sw, center + sh]
                if self._tensorflow:
                    box = [v - half for v in box]
                anchors.append(box)
        return np.asarray(anchors, np.float32)

    def _proposals(self, probs: np.ndarray, deltas: np.ndarray, img: tuple[np.float32, ...]) -> np.ndarray:
        """``[H * W * A, 5]`` rows (x0, y0, x1, y1, score) in cell-major order; a box under
        ``min_size`` keeps score 0. TensorFlow swaps the grid's x and y (not the image size)."""
        f = np.float32
        offset = f(0) if self._tensorflow else f(1)
        img_h, img_w, scale_h, scale_w = img
        anchors = self._anchors()
        a = len(anchors)
        _, h, w = probs.shape
        rows, cols = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
        gx, gy = (rows, cols) if self._tensorflow else (cols, rows)
        x = (gx * self.feat_stride).astype(np.float32)[:, :, None]
        y = (gy * self.feat_stride).astype(np.float32)[:, :, None]
        x0, y0, x1, y1 = x + anchors[:, 0], y + anchors[:, 1], x + anchors[:, 2], y + anchors[:, 3]  # [H, W, A]
        if self._tensorflow:  # the anchors themselves clipped to the image first
            x0, x1 = (np.maximum(f(0), np.minimum(v, img_w)) for v in (x0, x1))
            y0, y1 = (np.maximum(f(0), np.minimum(v, img_h)) for v in (y0, y1))
        d = deltas.reshape(a, 4, h, w).transpose(2, 3, 0, 1)
        dx, dy = d[..., 0] / f(self.box_coordinate_scale), d[..., 1] / f(self.box_coordinate_scale)
        dw, dh = d[..., 2] / f(self.box_size_scale), d[..., 3] / f(self.box_size_scale)
        ww, hh = x1 - x0 + offset, y1 - y0 + offset
        cx, cy = x0 + f(0.5) * ww, y0 + f(0.5) * hh
        pcx, pcy = dx * ww + cx, dy * hh + cy
        with np.errstate(over="ignore"):
            pw, ph = np.exp(dw) * ww, np.exp(dh) * hh
        x0, y0 = pcx - f(0.5) * pw, pcy - f(0.5) * ph
        x1, y1 = pcx + f(0.5) * pw, pcy + f(0.5) * ph
        if self.clip_before_nms:
            x0, x1 = (np.maximum(f(0), np.minimum(v, img_w - offset)) for v in (x0, x1))
            y0, y1 = (np.maximum(f(0), np.minimum(v, img_h - offset)) for v in (y0, y1))
        big = (f(self.min_size) * scale_w <= x1 - x0 + offset) & (f(self.min_size) * scale_h <= y1 - y0 + offset)
        score = np.where(big, probs[a:].transpose(1, 2, 0), f(0))
        return np.stack([x0, y0, x1, y1, score], -1).astype(np.float32).reshape(-1, 5)

    def _nms(self, boxes: np.ndarray, offset: np.float32) -> list[int]:
        """Greedy: a later box dies when its IoU with a kept one exceeds ``nms_thresh``; boxes
        that do not touch (checked before the +1 pixel ends) have IoU 0."""
        f = np.float32
        x0, y0, x1, y1 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
        areas = (x1 - x0 + offset) * (y1 - y0 + offset)
        dead = np.zeros(len(boxes), bool)
        keep: list[int] = []
        for i in range(len(boxes)):
            if dead[i]:
                continue
            keep.append(i)
            if len(keep) == self.post_nms_topn:
                break
            j = np.arange(i + 1, len(boxes))
            touch = (x0[i] <= x1[j]) & (y0[i] <= y1[j]) & (x0[j] <= x1[i]) & (y0[j] <= y1[i])
            iw = np.maximum(f(0), np.minimum(x1[i], x1[j]) - np.maximum(x0[i], x0[j]) + offset)
            ih = np.maximum(f(0), np.minimum(y1[i], y1[j]) - np.maximum(y0[i], y0[j]) + offset)
            inter = (iw * ih).astype(np.float32)
            with np.errstate(divide="ignore", invalid="ignore"):
                iou = np.where(touch, inter / (areas[i] + areas[j] - inter), f(0))
            dead[j[f(self.nms_thresh) < iou]] = True
        return keep

    def _run(self, probs: np.ndarray, deltas: np.ndarray, info: np.ndarray,
             ties: TieOrder = STABLE) -> tuple[np.ndarray, np.ndarray]:
        """Per image: proposals, the ``pre_nms_topn`` best (equal scores in ``ties``'s order: the
        reference by index, OpenVINO CPU libstdc++'s ``std::partial_sort``'s), NMS, the kept rows; when fewer than ``post_nms_topn``
        survive, the rest is 0 and the first unused row starts with -1 (the plugin's end marker)."""
        f = np.float32
        offset = f(0) if self._tensorflow else f(1)
        info = np.asarray(info, np.float32).reshape(-1)
        img_h, img_w = (info[1], info[0]) if self._tensorflow else (info[0], info[1])
        scale_h = info[2]
        scale_w = info[3] if len(info) > 3 else scale_h
        batch = probs.shape[0]
        post = self.post_nms_topn
        rois = np.zeros((batch * post, 5), np.float32)
        scores = np.zeros(batch * post, np.float32)
        for n in range(batch):
            found = self._proposals(np.asarray(probs[n], np.float32), np.asarray(deltas[n], np.float32),
                                    (img_h, img_w, scale_h, scale_w))
            order = _best_first(found[:, 4], min(len(found), self.pre_nms_topn), ties)
            top = found[order]
            kept = top[self._nms(top[:, :4], offset)]
            boxes = kept[:, :4].copy()
            if self.clip_after_nms:
                boxes[:, 0::2] = np.maximum(f(0), np.minimum(boxes[:, 0::2], img_w))
                boxes[:, 1::2] = np.maximum(f(0), np.minimum(boxes[:, 1::2], img_h))
            if self.normalize:
                boxes = (boxes / np.array([img_w, img_h, img_w, img_h], np.float32)).astype(np.float32)
            base = n * post
            rois[base:base + len(kept), 0] = n
            rois[base:base + len(kept), 1:] = boxes
            scores[base:base + len(kept)] = kept[:, 4]
            if len(kept) < post:
                rois[base + len(kept), 0] = -1
        return rois, scores

    def evaluate(self, probs: np.ndarray, deltas: np.ndarray, info: np.ndarray) -> list[np.ndarray]:
        return self.evaluate_with(STABLE, probs, deltas, info)

    def evaluate_with(self, ties: TieOrder, probs: np.ndarray, deltas: np.ndarray, info: np.ndarray) -> list[np.ndarray]:
        """:meth:`evaluate` with ``ties`` ordering equal scores (graphir.ops.openvino.tie_order)."""
        rois, _ = self._run(probs, deltas, info, ties)
        return [rois.astype(np.asarray(probs).dtype)]


class Proposal4(Proposal):
    """Proposal-4: also the proposals' objectness scores ``[batch * post_nms_topn]``."""

    version: ClassVar[str] = "opset4"
    outputs: ClassVar[tuple[Port, ...]] = (Port("proposals"), Port("probs"))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et, batch = self._types(inputs)
        rows = batch * self.post_nms_topn
        return [TensorType(et, PartialShape([rows, 5])), TensorType(et, PartialShape([rows]))]

    def evaluate_with(self, ties: TieOrder, probs: np.ndarray, deltas: np.ndarray, info: np.ndarray) -> list[np.ndarray]:
        rois, scores = self._run(probs, deltas, info, ties)
        dtype = np.asarray(probs).dtype
        return [rois.astype(dtype), scores.astype(dtype)]
