"""OpenVINO's ExperimentalDetectron* ops (opset6), the Mask R-CNN pieces of Detectron:
TopKROIs, PriorGridGenerator, ROIFeatureExtractor (two outputs), GenerateProposalsSingleImage
and DetectionOutput. Boxes are ``(x0, y0, x1, y1)`` in image pixels with Detectron's "+1"
width convention (``coordinates_offset`` 1) where the reference uses it; fixed-size outputs are
padded with zeros past the results.
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.roi import roi_align
from graphir.ops.openvino.tie_order import STABLE, TieOrder
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def _float_type(op: Op, inputs: list[TensorType]) -> ElementType:
    et = ElementType.dynamic
    for i, t in enumerate(inputs):
        if not (t.element_type.is_real or t.element_type.is_dynamic):
            raise op.fail(f"input {i} must have a floating-point element type, got {t.element_type}")
        merged = et.merge(t.element_type)
        if merged is None:
            raise op.fail("inputs must have the same element type; got " + ", ".join(str(t.element_type) for t in inputs))
        et = merged
    return et


def _rank(op: Op, t: TensorType, rank: int, what: str) -> PartialShape:
    if t.shape.rank_is_static and len(t.shape) != rank:
        raise op.fail(f"{what} must be a {rank}D tensor. Got: {t.shape}")
    return t.shape if t.shape.rank_is_static else PartialShape.dynamic(rank)


class ExperimentalDetectronTopKROIs(Op):
    """TopKROIs-6: the ``max_rois`` boxes of highest probability, best first."""

    type_name: ClassVar[str] = "ExperimentalDetectronTopKROIs"
    version: ClassVar[str] = "opset6"
    inputs: ClassVar[tuple[Port, ...]] = (Port("input_rois"), Port("rois_probs"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output_rois"),)

    max_rois: int = 0

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = _float_type(self, inputs)
        r = _rank(self, inputs[0], 2, "The 'input_rois' input")
        p = _rank(self, inputs[1], 1, "The 'rois_probs' input")
        if not r[1].compatible(Dimension.static(4)):
            raise self.fail(f"The second dimension of the 'input_rois' input must be 4. Got: {r[1]}")
        if r[0].merge(p[0]) is None:
            raise self.fail(f"Number of rois and number of probabilities should be equal. Got: {r[0]} and {p[0]}")
        return [TensorType(et, PartialShape([self.max_rois, 4]))]

    def evaluate(self, rois: np.ndarray, probs: np.ndarray) -> list[np.ndarray]:
        rois = np.asarray(rois)
        order = np.argsort(-np.asarray(probs, np.float32), kind="stable")[:self.max_rois]
        out = np.zeros((self.max_rois, 4), rois.dtype)
        out[:len(order)] = rois[order]
        return [out]


class ExperimentalDetectronPriorGridGenerator(Op):
    """PriorGridGenerator-6: the priors shifted to every feature-map cell centre
    (``(w + 0.5) * stride_x``, ``(h + 0.5) * stride_y``; strides default to image / feature size)."""

    type_name: ClassVar[str] = "ExperimentalDetectronPriorGridGenerator"
    version: ClassVar[str] = "opset6"
    inputs: ClassVar[tuple[Port, ...]] = (Port("priors"), Port("feature_map"), Port("im_data"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    flatten: bool = True
    h: int = 0
    w: int = 0
    stride_x: float = 0.0
    stride_y: float = 0.0

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = _float_type(self, inputs)
        priors = _rank(self, inputs[0], 2, "Priors rank")
        fmap = _rank(self, inputs[1], 4, "Feature_map rank")
        _rank(self, inputs[2], 4, "Im_data rank")
        if not priors[1].compatible(Dimension.static(4)):
            raise self.fail(f"The last dimension of the 'priors' input must be equal to 4. Got: {priors[1]}")
        height, width = fmap[2], fmap[3]  # measured: the h/w attributes do not change the shape
        if self.flatten:
            return [TensorType(et, PartialShape([height * width * priors[0], 4]))]
        return [TensorType(et, PartialShape([height, width, priors[0], 4]))]

    def evaluate(self, priors: np.ndarray, fmap: np.ndarray, image: np.ndarray) -> list[np.ndarray]:
        priors = np.asarray(priors)
        f = np.float32
        height, width = fmap.shape[2], fmap.shape[3]
        grid_h, grid_w = self.h or height, self.w or width
        sx = f(self.stride_x) if self.stride_x else f(image.shape[3]) / f(grid_w)
        sy = f(self.stride_y) if self.stride_y else f(image.shape[2]) / f(grid_h)
        shift_x = (np.arange(grid_w, dtype=np.float32) + f(0.5)) * sx
        shift_y = (np.arange(grid_h, dtype=np.float32) + f(0.5)) * sy
        p = priors.astype(np.float32)[None, None]
        grid = np.empty((grid_h, grid_w, len(priors), 4), np.float32)
        grid[..., 0] = p[..., 0] + shift_x[None, :, None]
        grid[..., 1] = p[..., 1] + shift_y[:, None, None]
        grid[..., 2] = p[..., 2] + shift_x[None, :, None]
        grid[..., 3] = p[..., 3] + shift_y[:, None, None]
        # the output keeps the feature map's size; an h/w grid fills it from the start (measured)
        flat = np.zeros(height * width * len(priors) * 4, np.float32)
        n = min(grid.size, flat.size)
        flat[:n] = grid.reshape(-1)[:n]
        out = flat.astype(priors.dtype)
        return [out.reshape(-1, 4) if self.flatten else out.reshape(height, width, len(priors), 4)]


class ExperimentalDetectronROIFeatureExtractor(Op):
    """ROIFeatureExtractor-6: each box is pooled (Detectron ROIAlign) from the FPN level its size
    picks (``floor(log2(sqrt(area) / 224 + 1e-6)) + 2``, clamped to the given levels); outputs
    the pooled features and the boxes."""

    type_name: ClassVar[str] = "ExperimentalDetectronROIFeatureExtractor"
    version: ClassVar[str] = "opset6"
    inputs: ClassVar[tuple[Port, ...]] = (Port("rois"), Port("feature_maps", variadic=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"), Port("output_rois"))

    output_size: int
    sampling_ratio: int
    pyramid_scales: list[int]
    aligned: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = _float_type(self, inputs)
        rois = _rank(self, inputs[0], 2, "Input rois rank")
        if not rois[1].compatible(Dimension.static(4)):
            raise self.fail(f"The last dimension of the 'input_rois' input must be equal to 4. Got: {rois[1]}")
        channels = Dimension.dynamic()
        for i, t in enumerate(inputs[1:]):
            shape = _rank(self, t, 4, f"Rank of each element of the pyramid (input {i + 1})")
            merged = channels.merge(shape[1])
            if merged is None:
                raise self.fail(f"The number of channels must be the same for all layers of the pyramid. Got: {channels} and {shape[1]}")
            channels = merged
        n = self.output_size
        return [TensorType(et, PartialShape([rois[0], channels, n, n])), TensorType(et, PartialShape([rois[0], 4]))]

    def evaluate(self, rois: np.ndarray, *maps: np.ndarray) -> list[np.ndarray]:
        rois = np.asarray(rois)
        boxes = rois.astype(np.float32)
        levels = len(maps)
        area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        with np.errstate(divide="ignore", invalid="ignore"):
            target = np.floor(np.log2(np.sqrt(area) / np.float32(224) + np.float32(1e-6)) + np.float32(2))
        # a box of no positive area is pooled from no level: its features stay 0 (the CPU plugin)
        target = np.where(area > 0, np.clip(np.nan_to_num(target, nan=0.0), 0, levels - 1), levels).astype(np.int64)
        n = self.output_size
        channels = maps[0].shape[1] if maps else 0
        out = np.zeros((len(boxes), channels, n, n), np.float32)
        for level in range(levels):
            picked = np.nonzero(target == level)[0]
            if len(picked) == 0:
                continue
            fmap = np.asarray(maps[level])
            scale = 1.0 / self.pyramid_scales[level]
            out[picked] = roi_align(fmap, boxes[picked], np.zeros(len(picked), np.int64), n, n, self.sampling_ratio,
                                    scale, "avg", 0.0, -0.5 if self.aligned else 0.0, True, empty=0.0)
        return [out.astype(rois.dtype), rois.copy()]


#: measured on the CPU plugin: GenerateProposalsSingleImage decodes and clips with Detectron's
#: +1 widths, its NMS without them (OpenVINO's op_reference expectations agree)
OFFSET = 1.0
NMS_OFFSET = 0.0


def _detectron_nms(boxes: np.ndarray, dead: np.ndarray, threshold: float, max_out: int, offset: float) -> list[int]:
    """Greedy NMS over boxes already in score order (Detectron's ``nms_cpu``): a later box dies when
    its intersection exceeds ``threshold`` times the union (sizes with the +``offset`` convention)."""
    f = np.float32
    dead = dead.copy()
    keep: list[int] = []
    for i in range(len(boxes)):
        if dead[i]:
            continue
        keep.append(i)
        if len(keep) == max_out:
            break
        x0, y0, x1, y1 = boxes[i]
        area_i = f((x1 - x0 + offset) * (y1 - y0 + offset))
        rest = np.arange(i + 1, len(boxes))
        rest = rest[~dead[rest]]
        if len(rest) == 0:
            continue
        b = boxes[rest]
        area_j = (b[:, 2] - b[:, 0] + f(offset)) * (b[:, 3] - b[:, 1] + f(offset))
        w = np.maximum(np.minimum(x1, b[:, 2]) - np.maximum(x0, b[:, 0]) + f(offset), f(0))
        h = np.maximum(np.minimum(y1, b[:, 3]) - np.maximum(y0, b[:, 1]) + f(offset), f(0))
        inter = (w * h).astype(np.float32)
        union = (area_i + area_j - inter).astype(np.float32)
        dead[rest[inter > f(threshold) * union]] = True
    return keep


def _decode(boxes: np.ndarray, deltas: np.ndarray, max_log: float, img_h: float | None, img_w: float | None,
            offset: float) -> np.ndarray:
    """Boxes moved and scaled by (dx, dy, dlog_w, dlog_h), clipped to the image when its size is given."""
    f = np.float32
    ww = boxes[..., 2] - boxes[..., 0] + f(offset)
    hh = boxes[..., 3] - boxes[..., 1] + f(offset)
    cx = boxes[..., 0] + f(0.5) * ww
    cy = boxes[..., 1] + f(0.5) * hh
    pcx = deltas[..., 0] * ww + cx
    pcy = deltas[..., 1] * hh + cy
    pw = np.exp(np.minimum(deltas[..., 2], f(max_log))) * ww
    ph = np.exp(np.minimum(deltas[..., 3], f(max_log))) * hh
    out = np.stack([pcx - f(0.5) * pw, pcy - f(0.5) * ph, pcx + f(0.5) * pw - f(offset), pcy + f(0.5) * ph - f(offset)], -1)
    if img_h is None or img_w is None:
        return out.astype(np.float32)
    # clipped to the last pixel (img - 1), whatever the width convention; max(0, min(v, img - 1)):
    # an image under one pixel clips every box to 0 (np.clip would give img - 1 there)
    out[..., 0::2] = np.maximum(np.minimum(out[..., 0::2], f(img_w) - f(1)), f(0))
    out[..., 1::2] = np.maximum(np.minimum(out[..., 1::2], f(img_h) - f(1)), f(0))
    return out.astype(np.float32)


class ExperimentalDetectronGenerateProposalsSingleImage(Op):
    """GenerateProposalsSingleImage-6: anchors moved by the deltas, clipped, small ones dropped,
    the ``pre_nms_count`` best kept, NMS, the ``post_nms_count`` best returned (zero padded)."""

    type_name: ClassVar[str] = "ExperimentalDetectronGenerateProposalsSingleImage"
    version: ClassVar[str] = "opset6"
    inputs: ClassVar[tuple[Port, ...]] = (Port("im_info"), Port("anchors"), Port("deltas"), Port("scores"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output_rois"), Port("output_scores"))

    min_size: float = 0.0
    nms_threshold: float = 0.0
    post_nms_count: int = 0
    pre_nms_count: int = 0

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = _float_type(self, inputs)
        _rank(self, inputs[0], 1, "The 'input_im_info' input")
        anchors = _rank(self, inputs[1], 2, "The 'input_anchors' input")
        deltas = _rank(self, inputs[2], 3, "The 'input_deltas' input")
        scores = _rank(self, inputs[3], 3, "The 'input_scores' input")
        if not anchors[1].compatible(Dimension.static(4)):
            raise self.fail(f"The second dimension of 'input_anchors' should be 4. Got: {anchors[1]}")
        if deltas[1].merge(scores[1]) is None or deltas[2].merge(scores[2]) is None:
            raise self.fail(f"Heights and widths for input 'input_deltas' and 'input_scores' should be equal. Got: {deltas} and {scores}")
        n = self.post_nms_count
        return [TensorType(et, PartialShape([n, 4])), TensorType(et, PartialShape([n]))]

    def evaluate(self, im_info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray, scores: np.ndarray) -> list[np.ndarray]:
        dtype = np.asarray(anchors).dtype
        f = np.float32
        info = np.asarray(im_info, np.float32).reshape(-1)
        a, h, w = scores.shape
        d = np.asarray(deltas, np.float32).reshape(a, 4, h, w).transpose(2, 3, 0, 1)  # [H, W, A, 4]
        s = np.asarray(scores, np.float32).transpose(1, 2, 0).reshape(-1)
        boxes = _decode(np.asarray(anchors, np.float32).reshape(h, w, a, 4), d, math.log(1000.0 / 16.0),
                        info[0], info[1], OFFSET).reshape(-1, 4)
        # measured on the CPU plugin: a box under min_size (unscaled, +1 widths) is not dropped: its
        # score becomes 0, and it still takes part in the ordering and NMS
        bw = boxes[:, 2] - boxes[:, 0] + f(OFFSET)
        bh = boxes[:, 3] - boxes[:, 1] + f(OFFSET)
        big = (bw >= f(self.min_size)) & (bh >= f(self.min_size))
        s = np.where(big, s, f(0))
        top = min(len(s), self.pre_nms_count)
        order = np.argsort(-s, kind="stable")[:top]
        keep = _detectron_nms(boxes[order], np.zeros(len(order), bool), self.nms_threshold, self.post_nms_count, NMS_OFFSET)
        rois = np.zeros((self.post_nms_count, 4), np.float32)
        out_scores = np.zeros(self.post_nms_count, np.float32)
        rois[:len(keep)] = boxes[order[keep]]
        out_scores[:len(keep)] = s[order[keep]]
        return [rois.astype(dtype), out_scores.astype(dtype)]


class ExperimentalDetectronDetectionOutput(Op):
    """DetectionOutput-6: per class (background 0 skipped) the refined boxes above
    ``score_threshold``, NMS, then the ``max_detections_per_image`` best over all classes:
    boxes, class ids (i32) and scores, zero padded."""

    type_name: ClassVar[str] = "ExperimentalDetectronDetectionOutput"
    version: ClassVar[str] = "opset6"
    inputs: ClassVar[tuple[Port, ...]] = (Port("rois"), Port("deltas"), Port("scores"), Port("im_info"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("boxes"), Port("classes"), Port("scores"))

    score_threshold: float
    nms_threshold: float
    max_delta_log_wh: float
    num_classes: int
    post_nms_count: int
    max_detections_per_image: int
    class_agnostic_box_regression: bool = False
    deltas_weights: list[float]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = _float_type(self, inputs)
        rois = _rank(self, inputs[0], 2, "Input rois rank")
        deltas = _rank(self, inputs[1], 2, "Input deltas rank")
        scores = _rank(self, inputs[2], 2, "Input scores rank")
        _rank(self, inputs[3], 2, "Input image info shape")
        if not rois[1].compatible(Dimension.static(4)):
            raise self.fail(f"The last dimension of the 'input_rois' input must be equal to 4. Got: {rois[1]}")
        if not deltas[1].compatible(Dimension.static(self.num_classes * 4)):
            raise self.fail(f"The last dimension of the 'input_deltas' input be equal to the value num_classes * 4. Got: {deltas[1]}")
        if not scores[1].compatible(Dimension.static(self.num_classes)):
            raise self.fail(f"The last dimension of the 'input_scores' input must be equal to num_classes. Got: {scores[1]}")
        n = self.max_detections_per_image
        return [TensorType(et, PartialShape([n, 4])), TensorType(ElementType.i32, PartialShape([n])),
                TensorType(et, PartialShape([n]))]

    def evaluate(self, rois: np.ndarray, deltas: np.ndarray, scores: np.ndarray, im_info: np.ndarray) -> list[np.ndarray]:
        return self.evaluate_with(STABLE, rois, deltas, scores, im_info)

    def evaluate_with(self, ties: TieOrder, rois: np.ndarray, deltas: np.ndarray, scores: np.ndarray,
                      im_info: np.ndarray) -> list[np.ndarray]:
        """As OpenVINO's CPU plugin: boxes of non-positive size are skipped, refined boxes are only
        clipped at 0, per-class deltas are used even with ``class_agnostic_box_regression``, and the
        detections stay in class order unless more than ``max_detections_per_image`` need a cut (by
        score, lower box first; equal (score, box) pairs in ``ties``'s order: the reference keeps
        class order, OpenVINO CPU's std::partial_sort libstdc++'s)."""

        dtype = np.asarray(rois).dtype
        f = np.float32
        boxes = np.asarray(rois, np.float32)
        classes = self.num_classes
        d = np.asarray(deltas, np.float32).reshape(len(boxes), classes, 4) / np.asarray(self.deltas_weights, np.float32)
        refined = np.maximum(_decode(np.repeat(boxes[:, None], classes, axis=1), d.astype(np.float32), self.max_delta_log_wh,
                                     None, None, 1.0), f(0))  # [N, classes, 4]
        areas = (refined[..., 2] - refined[..., 0] + f(1)) * (refined[..., 3] - refined[..., 1] + f(1))
        valid = (boxes[:, 2] - boxes[:, 0] > 0) & (boxes[:, 3] - boxes[:, 1] > 0)
        sc = np.where(valid[:, None], np.asarray(scores, np.float32), f(0))
        found: list[tuple[float, int, int]] = []
        for c in range(1, classes):
            candidates = np.nonzero(sc[:, c] > f(self.score_threshold))[0]
            order = candidates[np.lexsort((candidates, -sc[candidates, c]))]
            kept: list[int] = []
            for i in order:
                if all(self._overlap(refined[i, c], refined[k, c], areas[i, c], areas[k, c]) <= self.nms_threshold for k in kept):
                    kept.append(int(i))
            found.extend((float(sc[i, c]), c, i) for i in kept[:self.post_nms_count])
        n = self.max_detections_per_image
        if len(found) > n:
            found = ties.partial_sort(found, n, lambda a, b: a[0] > b[0] or (a[0] == b[0] and a[2] < b[2]))[:n]
        out_boxes, out_classes, out_scores = np.zeros((n, 4), np.float32), np.zeros(n, np.int32), np.zeros(n, np.float32)
        for i, (score, c, r) in enumerate(found):
            out_boxes[i], out_classes[i], out_scores[i] = refined[r, c], c, score
        return [out_boxes.astype(dtype), out_classes, out_scores.astype(dtype)]

    @staticmethod
    def _overlap(a: np.ndarray, b: np.ndarray, area_a: np.float32, area_b: np.float32) -> float:
        """Detectron's Jaccard overlap with +1 sizes (0 for boxes apart)."""
        if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
            return 0.0
        w = np.float32(min(a[2], b[2]) - max(a[0], b[0]) + np.float32(1))
        h = np.float32(min(a[3], b[3]) - max(a[1], b[1]) + np.float32(1))
        if w <= 0 or h <= 0:
            return 0.0
        inter = np.float32(w * h)
        return float(inter / np.float32(area_a + area_b - inter))


class GenerateProposals(Op):
    """GenerateProposals-9: the batched successor of GenerateProposalsSingleImage: per image, the
    anchors ``[H, W, A, 4]`` moved by the deltas, clipped, small ones dropped, the
    ``pre_nms_count`` best kept, NMS (``nms_eta`` adapts the threshold), at most
    ``post_nms_count`` kept; outputs the concatenated boxes and scores and the count per image.
    ``normalized`` false counts box sizes with Detectron's +1."""

    type_name: ClassVar[str] = "GenerateProposals"
    version: ClassVar[str] = "opset9"
    inputs: ClassVar[tuple[Port, ...]] = (Port("im_info"), Port("anchors"), Port("deltas"), Port("scores"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("rois"), Port("roi_scores"), Port("roi_num"))

    min_size: float
    nms_threshold: float
    pre_nms_count: int
    post_nms_count: int
    normalized: bool = True
    nms_eta: float = 1.0
    roi_num_type: str = "i64"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = _float_type(self, inputs)
        if self.roi_num_type not in ("i32", "i64"):
            raise self.fail(f"The third output type must be int64 or int32. Got: {self.roi_num_type}")
        info = _rank(self, inputs[0], 2, "The 'input_im_info' input")
        anchors = _rank(self, inputs[1], 4, "The 'input_anchors' input")
        deltas = _rank(self, inputs[2], 4, "The 'input_deltas' input")
        scores = _rank(self, inputs[3], 4, "The 'input_scores' input")
        if not anchors[3].compatible(Dimension.static(4)):
            raise self.fail(f"The fourth dimension of 'input_anchors' should be 4. Got: {anchors[3]}")
        batches = info[0]
        for other in (deltas[0], scores[0]):
            merged = batches.merge(other)
            if merged is None:
                raise self.fail(f"Batch for inputs 'im_info', 'input_deltas' and 'input_scores' should be equal. Got: {info}, {deltas}, {scores}")
            batches = merged
        rows = Dimension.dynamic() if batches.max is None else Dimension(0, batches.max * self.post_nms_count)
        return [TensorType(et, PartialShape([rows, 4])), TensorType(et, PartialShape([rows])),
                TensorType(ElementType.parse(self.roi_num_type), PartialShape([batches]))]

    def evaluate(self, im_info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray, scores: np.ndarray) -> list[np.ndarray]:
        dtype = np.asarray(anchors).dtype
        f = np.float32
        offset = 0.0 if self.normalized else 1.0
        h, w, a, _ = anchors.shape
        base = np.asarray(anchors, np.float32)
        rois, roi_scores, counts = [], [], []
        for n in range(scores.shape[0]):
            info = np.asarray(im_info[n], np.float32).reshape(-1)
            d = np.asarray(deltas[n], np.float32).reshape(a, 4, h, w).transpose(2, 3, 0, 1)
            s = np.asarray(scores[n], np.float32).transpose(1, 2, 0).reshape(-1)
            boxes = _decode_clip(base, d, math.log(1000.0 / 16.0), info[0], info[1], offset).reshape(-1, 4)
            min_h = f(self.min_size) * info[2]
            min_w = f(self.min_size) * (info[3] if len(info) > 3 else info[2])
            bw = boxes[:, 2] - boxes[:, 0] + f(offset)
            bh = boxes[:, 3] - boxes[:, 1] + f(offset)
            valid = (bw >= min_w) & (bh >= min_h)
            order = np.argsort(-s, kind="stable")[:self.pre_nms_count]  # the best scores first, then drop small boxes
            order = order[valid[order]]
            keep = _nms_eta(boxes[order], self.nms_threshold, self.nms_eta, self.post_nms_count, offset)
            rois.append(boxes[order[keep]])
            roi_scores.append(s[order[keep]])
            counts.append(len(keep))
        return [np.concatenate(rois).reshape(-1, 4).astype(dtype), np.concatenate(roi_scores).astype(dtype),
                np.array(counts, ElementType.parse(self.roi_num_type).numpy_dtype)]


def _decode_clip(boxes: np.ndarray, deltas: np.ndarray, max_log: float, img_h: float, img_w: float,
                 offset: float) -> np.ndarray:
    """As _decode, clipped to ``[0, img - offset]``."""
    out = _decode(boxes, deltas, max_log, None, None, offset)
    out[..., 0::2] = np.maximum(np.minimum(out[..., 0::2], np.float32(img_w) - np.float32(offset)), np.float32(0))
    out[..., 1::2] = np.maximum(np.minimum(out[..., 1::2], np.float32(img_h) - np.float32(offset)), np.float32(0))
    return out


def _nms_eta(boxes: np.ndarray, threshold: float, eta: float, max_out: int, offset: float) -> list[int]:
    """Greedy NMS on score-ordered boxes: IoU above the (adaptive) threshold suppresses."""
    f = np.float32
    keep: list[int] = []
    thr = threshold
    areas = (boxes[:, 2] - boxes[:, 0] + f(offset)) * (boxes[:, 3] - boxes[:, 1] + f(offset))
    for i in range(len(boxes)):
        if len(keep) == max_out:
            break
        ok = True
        for k in keep:
            w = max(min(boxes[i, 2], boxes[k, 2]) - max(boxes[i, 0], boxes[k, 0]) + f(offset), f(0))
            h = max(min(boxes[i, 3], boxes[k, 3]) - max(boxes[i, 1], boxes[k, 1]) + f(offset), f(0))
            inter = f(w * h)
            union = f(areas[i] + areas[k] - inter)
            if union > 0 and inter / union > thr:
                ok = False
                break
        if ok:
            keep.append(i)
            if eta < 1 and thr > 0.5:
                thr *= eta
    return keep
