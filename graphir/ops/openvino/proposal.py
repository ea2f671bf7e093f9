"""OpenVINO Proposal-1/4 (Faster R-CNN's region proposal layer): anchors from ``base_size`` x
``ratio`` x ``scale`` on a ``feat_stride`` grid, moved by the box deltas, clipped, small ones
dropped, the ``pre_nms_topn`` best kept, NMS, ``post_nms_topn`` rows ``[batch, x0, y0, x1, y1]``
per image (zero padded). v4 also outputs the scores. ``framework="tensorflow"`` uses TensorFlow's
anchors (no +1 widths, unrounded ratios) and swaps x and y."""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


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

    # --- values ----------------------------------------------------------------------------
    def _anchors(self) -> np.ndarray:
        f = np.float32
        tf = self.framework == "tensorflow"
        offset = f(0) if tf else f(1)
        area = f(self.base_size * self.base_size)
        center = f(0.5) * (f(self.base_size) - offset)
        anchors = []
        for r in self.ratio:
            w = f(math.sqrt(area / f(r)))
            if not tf:
                w = f(np.round(w))
            h = f(w * f(r)) if tf else f(np.round(w * f(r)))
            for s in self.scale:
                sw, sh = f(0.5) * (w * f(s) - offset), f(0.5) * (h * f(s) - offset)
                anchors.append([center - sw, center - sh, center + sw, center + sh])
        return np.asarray(anchors, np.float32)

    def _proposals(self, probs: np.ndarray, deltas: np.ndarray, info: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        f = np.float32
        tf = self.framework == "tensorflow"
        offset = f(0) if tf else f(1)
        anchors = self._anchors()
        a = len(anchors)
        _, h, w = probs.shape
        img_h, img_w = f(info[0]), f(info[1])
        scale_h = f(info[2])
        scale_w = f(info[3]) if len(info) > 3 else scale_h
        ys, xs = np.meshgrid(np.arange(h, dtype=np.float32) * f(self.feat_stride),
                             np.arange(w, dtype=np.float32) * f(self.feat_stride), indexing="ij")
        shift = np.stack([xs, ys, xs, ys], -1)[:, :, None, :]  # [H, W, 1, 4]
        boxes = (anchors[None, None] + shift).astype(np.float32)  # [H, W, A, 4]
        scores = probs[a:].transpose(1, 2, 0)  # objectness: the second half of the channels
        d = deltas.reshape(a, 4, h, w).transpose(2, 3, 0, 1)
        dx, dy = d[..., 0] / f(self.box_coordinate_scale), d[..., 1] / f(self.box_coordinate_scale)
        dw, dh = d[..., 2] / f(self.box_size_scale), d[..., 3] / f(self.box_size_scale)
        ww = boxes[..., 2] - boxes[..., 0] + offset
        hh = boxes[..., 3] - boxes[..., 1] + offset
        cx, cy = boxes[..., 0] + f(0.5) * ww, boxes[..., 1] + f(0.5) * hh
        pcx, pcy = dx * ww + cx, dy * hh + cy
        pw, ph = np.exp(dw) * ww, np.exp(dh) * hh
        x0, y0 = pcx - f(0.5) * pw, pcy - f(0.5) * ph
        x1, y1 = pcx + f(0.5) * pw, pcy + f(0.5) * ph
        if self.clip_before_nms:
            x0, x1 = np.clip(x0, 0, img_w - offset), np.clip(x1, 0, img_w - offset)
            y0, y1 = np.clip(y0, 0, img_h - offset), np.clip(y1, 0, img_h - offset)
        if tf:
            x0, y0, x1, y1 = y0, x0, y1, x1
        out = np.stack([x0, y0, x1, y1], -1).astype(np.float32).reshape(-1, 4)
        keep = ((out[:, 2] - out[:, 0] + offset >= f(self.min_size) * scale_w) &
                (out[:, 3] - out[:, 1] + offset >= f(self.min_size) * scale_h))
        # a box under min_size is not dropped: its score becomes 0 (measured on op_reference)
        return out, np.where(keep, scores.reshape(-1), np.float32(0)), keep

    def _nms(self, boxes: np.ndarray, offset: float) -> list[int]:
        f = np.float32
        areas = (boxes[:, 2] - boxes[:, 0] + f(offset)) * (boxes[:, 3] - boxes[:, 1] + f(offset))
        dead = np.zeros(len(boxes), bool)
        keep = []
        for i in range(len(boxes)):
            if dead[i]:
                continue
            keep.append(i)
            if len(keep) == self.post_nms_topn:
                break
            rest = np.arange(i + 1, len(boxes))
            rest = rest[~dead[rest]]
            b = boxes[rest]
            w = np.maximum(np.minimum(boxes[i, 2], b[:, 2]) - np.maximum(boxes[i, 0], b[:, 0]) + f(offset), f(0))
            h = np.maximum(np.minimum(boxes[i, 3], b[:, 3]) - np.maximum(boxes[i, 1], b[:, 1]) + f(offset), f(0))
            inter = (w * h).astype(np.float32)
            iou = inter / (areas[i] + areas[rest] - inter)
            dead[rest[iou > f(self.nms_thresh)]] = True
        return keep

    def _run(self, probs: np.ndarray, deltas: np.ndarray, info: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f = np.float32
        offset = 0.0 if self.framework == "tensorflow" else 1.0
        batch = probs.shape[0]
        rois = np.zeros((batch * self.post_nms_topn, 5), np.float32)
        scores = np.zeros(batch * self.post_nms_topn, np.float32)
        info = np.asarray(info, np.float32).reshape(-1)
        for n in range(batch):
            boxes, s, keep = self._proposals(np.asarray(probs[n], np.float32), np.asarray(deltas[n], np.float32), info)
            order = np.argsort(-s, kind="stable")[:self.pre_nms_topn]
            kept = self._nms(boxes[order], offset)
            picked = boxes[order[kept]]
            if self.clip_after_nms:
                picked[:, 0::2] = np.clip(picked[:, 0::2], 0, f(info[1]) - f(offset))
                picked[:, 1::2] = np.clip(picked[:, 1::2], 0, f(info[0]) - f(offset))
            if self.normalize:
                picked = picked / np.array([info[1], info[0], info[1], info[0]], np.float32)
            base = n * self.post_nms_topn
            rois[base:base + len(kept), 0] = n
            rois[base:base + len(kept), 1:] = picked
            scores[base:base + len(kept)] = s[order[kept]]
        return rois, scores

    def evaluate(self, probs: np.ndarray, deltas: np.ndarray, info: np.ndarray) -> list[np.ndarray]:
        rois, _ = self._run(probs, deltas, info)
        return [rois.astype(np.asarray(probs).dtype)]


class Proposal4(Proposal):
    """Proposal-4: also the proposals' objectness scores ``[batch * post_nms_topn]``."""

    version: ClassVar[str] = "opset4"
    outputs: ClassVar[tuple[Port, ...]] = (Port("proposals"), Port("probs"))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et, batch = self._types(inputs)
        rows = batch * self.post_nms_topn
        return [TensorType(et, PartialShape([rows, 5])), TensorType(et, PartialShape([rows]))]

    def evaluate(self, probs: np.ndarray, deltas: np.ndarray, info: np.ndarray) -> list[np.ndarray]:
        rois, scores = self._run(probs, deltas, info)
        dtype = np.asarray(probs).dtype
        return [rois.astype(dtype), scores.astype(dtype)]
