"""OpenVINO NonMaxSuppression-1/3/4/5/9: greedy (and soft) suppression of overlapping boxes,
per batch and class.

Shapes as OpenVINO 2026.4 infers them (measured): v1/v3 give ``[min(boxes, max_out * classes), 3]``,
v4 ``[min(boxes, max_out) * batches * classes, 3]`` (static; upper bounds of batches/classes),
both padded with -1 at run time; v5/v9 give ``[..N, 3]`` with N the v4 count, and their run-time
outputs hold exactly the selected boxes. Values follow the CPU plugin: a box is a candidate when
its score is strictly above ``score_threshold``; hard suppression when IoU >= ``iou_threshold``;
soft-NMS (sigma > 0) scales the score by ``exp(-0.5 * iou^2 / sigma)`` for every earlier selection
and drops it once the score falls to the threshold or below.
"""
from __future__ import annotations

import heapq
import math
from typing import Any, ClassVar, Literal

import numpy as np

from graphir.ops.base import Op, Port, TensorType, types
from graphir.ops.openvino.tie_order import STABLE, TieOrder
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

FLOATS = types("f32", "f16", "bf16")


def box_corners(boxes: np.ndarray, center: bool) -> np.ndarray:
    """``[..., 4]`` boxes as ``(ymin, xmin, ymax, xmax)`` in f32 (corner: any diagonal pair)."""
    b = np.asarray(boxes, dtype=np.float32)
    if center:
        xc, yc, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        hw, hh = w / np.float32(2), h / np.float32(2)
        return np.stack([yc - hh, xc - hw, yc + hh, xc + hw], axis=-1)
    return np.stack([np.minimum(b[..., 0], b[..., 2]), np.minimum(b[..., 1], b[..., 3]),
                     np.maximum(b[..., 0], b[..., 2]), np.maximum(b[..., 1], b[..., 3])], axis=-1)


def soft_weight(scale: np.float32, v: np.float32) -> np.float32:
    """``exp(scale * iou^2)``; a NaN IoU weighs infinity, as the CPU kernel's exp gives it."""
    if math.isnan(v):
        return np.float32(np.inf)
    return np.float32(math.exp(float(np.float32(v * v) * scale)))


def iou_many(a: np.ndarray, others: np.ndarray) -> np.ndarray:
    """:func:`iou` of one corner box with each of ``others`` ``[k, 4]`` (same f32 arithmetic)."""
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_o = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    inter = np.maximum(np.minimum(a[2], others[:, 2]) - np.maximum(a[0], others[:, 0]), np.float32(0)) * \
        np.maximum(np.minimum(a[3], others[:, 3]) - np.maximum(a[1], others[:, 1]), np.float32(0))
    with np.errstate(all="ignore"):
        return (inter / ((area_a + area_o) - inter)).astype(np.float32)


#: overlapping pairs past which the sparse hard NMS gives way to the box-by-box loop (memory)
_MAX_SPARSE_PAIRS = 1 << 22
#: the share of the IoU threshold the sparse NMS's pair window asks of the overlap height
_PAIR_MARGIN = 0.99


def hard_nms_loop(corners: np.ndarray, order: np.ndarray, max_out: int, iou_threshold: np.float32) -> list[int]:
    """Greedy hard NMS box by box over ``order`` (box indices, best first): the kept indices."""
    kept: list[int] = []
    for idx in order:
        if len(kept) >= max_out:
            break
        if kept and bool((iou_many(corners[idx], corners[kept]) >= iou_threshold).any()):  # NaN never suppresses
            continue
        kept.append(int(idx))
    return kept


def hard_nms_sparse(corners: np.ndarray, order: np.ndarray, max_out: int, iou_threshold: np.float32) -> list[int] | None:
    """Greedy hard NMS over ``order`` (box indices, best first) when ``iou_threshold > 0``: the
    kept box indices in selection order, the same as :func:`hard_nms_loop` (on SSDlite's 2,725
    boxes ~5 ms against ~45-80 ms: the loop indexes the kept boxes anew for every candidate).

    With a positive threshold only boxes that overlap can suppress each other, and finite boxes
    overlap only if their y ranges do: those pairs are found by sorting on ``ymin``, their IoU is
    computed at once with :func:`iou_many`'s f32 arithmetic (IoU is symmetric bit for bit: each
    step commutes), then one pass in score order keeps a box unless a kept one suppressed it.
    None (use the loop) for thresholds <= 0 or NaN, non-finite boxes, or too many pairs."""
    n = len(order)
    if not iou_threshold > 0 or n == 0:
        return None
    boxes = corners[order]
    if not np.isfinite(boxes).all():
        return None
    by_y = np.argsort(boxes[:, 0], kind="stable")
    y0 = boxes[by_y, 0]
    ends = np.searchsorted(y0, boxes[by_y, 2], side="left")  # partners: sorted positions p+1 .. end-1
    heights, widths = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    if (heights > 0).all() and (widths > 0).all():
        # IoU <= overlap height / own height (the union is at least the box itself): a partner
        # starting past ymax - t*h cannot reach the threshold. With a 1% margin, far beyond f32's
        # few ulps of error in the IoU, no pair that could suppress is left out (SSDlite: 142k ->
        # 75k pairs)
        reach = boxes[by_y, 2].astype(np.float64) - _PAIR_MARGIN * float(iou_threshold) * heights[by_y].astype(np.float64)
        ends = np.minimum(ends, np.searchsorted(y0, reach, side="right"))
    counts = np.maximum(ends - np.arange(1, n + 1), 0)
    total = int(counts.sum())
    if total > _MAX_SPARSE_PAIRS:
        return None
    kept: list[int] = []
    if total:
        starts = np.cumsum(counts) - counts
        p = np.repeat(np.arange(n), counts)  # sorted positions of each pair
        q = np.arange(total) + np.repeat(np.arange(1, n + 1) - starts, counts)
        y_lo, x_lo, y_hi, x_hi = (np.ascontiguousarray(boxes[by_y, i]) for i in range(4))
        # pairs apart in x have no intersection (IoU 0, or NaN for empty boxes): they never
        # suppress, so only the others get an IoU (the same f32 operations on the same operands)
        iw = np.minimum(x_hi[p], x_hi[q]) - np.maximum(x_lo[p], x_lo[q])
        apart = iw > 0
        p, q, iw = p[apart], q[apart], iw[apart]
        a, b = by_y[p], by_y[q]  # ranks (positions in order) of each pair
        area = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))[by_y]
        inter = np.maximum(np.minimum(y_hi[p], y_hi[q]) - np.maximum(y_lo[p], y_lo[q]), np.float32(0)) * \
            np.maximum(iw, np.float32(0))
        with np.errstate(all="ignore"):
            iou = inter / ((area[p] + area[q]) - inter)
        hit = iou >= iou_threshold  # NaN never suppresses
        earlier, later = np.minimum(a[hit], b[hit]), np.maximum(a[hit], b[hit])
        by_earlier = np.argsort(earlier, kind="stable")
        earlier, later = earlier[by_earlier], later[by_earlier]
        bounds = np.searchsorted(earlier, np.arange(n + 1), side="left").tolist()
        victims = later.tolist()
    else:
        bounds, victims = [0] * (n + 1), []
    suppressed = bytearray(n)  # plain Python in the loop: numpy's per-item indexing costs ~10x more
    ranks = order.tolist()
    for rank in range(n):
        if suppressed[rank]:
            continue
        kept.append(int(ranks[rank]))
        if len(kept) >= max_out:
            break
        for victim in victims[bounds[rank]:bounds[rank + 1]]:
            suppressed[victim] = 1
    return kept


def select_boxes(corners: np.ndarray, scores: np.ndarray, max_out: int, iou_threshold: float,
                 score_threshold: float, sigma: float = 0.0) -> list[tuple[float, int]]:
    """One class of one batch: (score, box index) of the selected boxes, in selection order."""
    n = len(scores)
    max_out = min(max_out, n)
    if max_out <= 0:
        return []
    scores = np.asarray(scores, np.float32)
    thr, iou_thr = np.float32(score_threshold), np.float32(iou_threshold)
    candidates = np.nonzero(scores > thr)[0]
    if sigma <= 0:  # hard NMS: scores never change, so the heap order is the sorted order
        order = candidates[np.lexsort((candidates, -scores[candidates]))]
        kept = hard_nms_sparse(corners, order, max_out, iou_thr)
        if kept is None:
            kept = hard_nms_loop(corners, order, max_out, iou_thr)
        return [(float(scores[i]), i) for i in kept]
    scale = np.float32(-0.5) / np.float32(sigma)
    # max-heap on score, ties to the lower index: entries (-score, index, suppress_begin)
    heap = [(-float(scores[i]), int(i), 0) for i in candidates]
    heapq.heapify(heap)
    selected: list[tuple[float, int]] = []
    while heap and len(selected) < max_out:
        neg, idx, begin = heapq.heappop(heap)
        score = np.float32(-neg)
        original = score
        suppressed = False
        if len(selected) > begin:
            ious = iou_many(corners[idx], corners[[i for _, i in selected[begin:]]])
            for v in ious[::-1]:  # the newest selection first, as the kernel walks them
                score = np.float32(score * soft_weight(scale, v))
                if score <= thr:
                    suppressed = True
                    break
        if suppressed:
            continue
        if score == original:
            selected.append((float(score), idx))
        else:
            heapq.heappush(heap, (-float(score), idx, len(selected)))
    return selected


def _scalar_value(inputs: list[np.ndarray], index: int, default: float) -> float:
    if len(inputs) <= index:
        return default
    return float(np.asarray(inputs[index]).reshape(-1)[0])



def _batches_boxes_classes(op: Op, boxes: TensorType, scores: TensorType,
                           last_dim_message: str) -> tuple[Dimension, Dimension, Dimension]:
    """(batches, boxes per batch, classes) from boxes [N,B,4] and scores [N,C,B]; the NMS versions word
    the last-dimension check differently, as OpenVINO does."""
    b = boxes.shape if boxes.shape.rank_is_static else PartialShape.dynamic(3)
    s = scores.shape if scores.shape.rank_is_static else PartialShape.dynamic(3)
    batches = b[0].merge(s[0])
    if batches is None:
        raise op.fail(f"The first dimension of both 'boxes' and 'scores' must match. Boxes: {b}; Scores: {s}")
    count = b[1].merge(s[2])
    if count is None:
        raise op.fail("'boxes' and 'scores' input shapes must match at the second and third dimension "
                      f"respectively. Boxes: {b}; Scores: {s}")
    if not b[2].compatible(Dimension.static(4)):
        raise op.fail(f"{last_dim_message} Got: {b[2]}")
    return batches, count, s[1]


class NonMaxSuppression(Op):
    """NonMaxSuppression-1: ``[N, 3]`` i64 (batch, class, box) triplets, -1 past the selections."""

    type_name: ClassVar[str] = "NonMaxSuppression"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("boxes"), Port("scores"), Port("max_output_boxes_per_class", optional=True),
        Port("iou_threshold", optional=True), Port("score_threshold", optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("selected_indices"),)

    box_encoding: Literal["corner", "center"] = "corner"
    sort_result_descending: bool = True

    #: the threshold inputs are float tensors of rank 0 or (v5+) 1
    _typed_inputs: ClassVar[bool] = False
    _scalar_ranks: ClassVar[tuple[int, ...]] = (0,)

    def _output_type(self) -> ElementType:
        return ElementType.i64

    # --- shapes ----------------------------------------------------------------------------
    def _check(self, inputs: list[TensorType]) -> tuple[Dimension, Dimension, Dimension]:
        boxes, scores = inputs[0], inputs[1]
        if self._typed_inputs:
            for i, port in ((0, "boxes"), (1, "scores"), (3, "iou_threshold"), (4, "score_threshold"),
                            (5, "soft_nms_sigma")):
                if i < len(inputs) and not (inputs[i].element_type in FLOATS or inputs[i].element_type.is_dynamic):
                    raise self.fail(f"Expected bf16, fp16 or fp32 as element type for the '{port}' input.")
        if boxes.shape.rank_is_static and len(boxes.shape) != 3:
            raise self.fail(f"Expected a 3D tensor for the 'boxes' input. Got: {boxes.shape}")
        if scores.shape.rank_is_static and len(scores.shape) != 3:
            raise self.fail(f"Expected a 3D tensor for the 'scores' input. Got: {scores.shape}")
        names = ("max_output_boxes_per_class", "iou_threshold", "score_threshold", "soft_nms_sigma")
        for i in range(2, len(inputs)):
            shape = inputs[i].shape
            if shape.rank_is_static and len(shape) not in self._scalar_ranks:
                if self._scalar_ranks == (0,):
                    dot = "." if i == 2 else ""
                    raise self.fail(f"Expected a scalar for the '{names[i - 2]}' input{dot}")
                raise self.fail(f"Expected 0D or 1D tensor for the '{names[i - 2]}' input")
            if shape.rank_is_static and len(shape) == 1 and not shape[0].contains(1):
                raise self.fail(f"Expected 0D or 1D tensor for the '{names[i - 2]}' input (one element), got {shape}")
        return _batches_boxes_classes(self, boxes, scores, "The last dimension of the 'boxes' input must be equal to 4.")

    @staticmethod
    def _max_out(inputs: list[TensorType]) -> int | None:
        if len(inputs) < 3:
            return 0
        value = inputs[2].value
        if value is None:
            return None
        return int(np.asarray(value).reshape(-1)[0])

    def _selected_dim(self, batches: Dimension, boxes: Dimension, classes: Dimension, max_out: int | None) -> Dimension:
        """v1/v3: ``min(boxes, max_out * classes)`` when all are known."""
        if max_out is None or max_out < 0 or not boxes.is_static:
            return Dimension.dynamic()
        if max_out == 0:
            return Dimension.static(0)
        if not classes.is_static:
            return Dimension.dynamic()
        return Dimension.static(min(boxes.get_length(), max_out * classes.get_length()))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        batches, boxes, classes = self._check(inputs)
        dim = self._selected_dim(batches, boxes, classes, self._max_out(inputs))
        return [TensorType(self._output_type(), PartialShape([dim, Dimension.static(3)]))]

    # --- values ----------------------------------------------------------------------------
    def _select(self, arrays: tuple[np.ndarray, ...]) -> list[tuple[float, int, int, int]]:
        """(score, batch, class, box) of every selection, in output order."""
        boxes, scores = np.asarray(arrays[0]), np.asarray(arrays[1], dtype=np.float32)
        max_out = int(_scalar_value(list(arrays), 2, 0))
        if max_out < 0:  # the CPU plugin reads it as an unsigned count
            max_out = boxes.shape[1]
        iou_thr = _scalar_value(list(arrays), 3, 0.0)
        score_thr = _scalar_value(list(arrays), 4, 0.0)
        sigma = _scalar_value(list(arrays), 5, 0.0)
        corners = box_corners(boxes, self.box_encoding == "center")
        found = []
        for b in range(scores.shape[0]):
            for c in range(scores.shape[1]):
                for score, i in select_boxes(corners[b], scores[b, c], max_out, iou_thr, score_thr, sigma):
                    found.append((score, b, c, i))
        if self.sort_result_descending:
            found.sort(key=lambda t: (-t[0], t[1], t[2], t[3]))
        return found

    def _static_rows(self, boxes: np.ndarray, scores: np.ndarray, max_out: int) -> int:
        return min(boxes.shape[1], max(max_out, 0) * scores.shape[1])

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        found = self._select(arrays)
        max_out = int(_scalar_value(list(arrays), 2, 0))
        rows = self._static_rows(np.asarray(arrays[0]), np.asarray(arrays[1]), max_out)
        out = np.full((rows, 3), -1, dtype=self._output_type().numpy_dtype)
        for k, (_, b, c, i) in enumerate(found[:rows]):
            out[k] = (b, c, i)
        return [out]


class NonMaxSuppression3(NonMaxSuppression):
    """NonMaxSuppression-3: adds ``output_type``."""

    version: ClassVar[str] = "opset3"

    output_type: Literal["i64", "i32"] = "i64"

    def _output_type(self) -> ElementType:
        return ElementType.parse(self.output_type)


class NonMaxSuppression4(NonMaxSuppression3):
    """NonMaxSuppression-4: ``[min(boxes, max_out) * batches * classes, 3]``."""

    version: ClassVar[str] = "opset4"

    def _selected_dim(self, batches: Dimension, boxes: Dimension, classes: Dimension, max_out: int | None) -> Dimension:
        if max_out is None or max_out < 0 or not boxes.is_static:
            return Dimension.dynamic()
        per_class = min(boxes.get_length(), max_out)
        if per_class and (batches.max is None or classes.max is None):
            return Dimension.dynamic()
        return Dimension.static(per_class * (batches.max or 0) * (classes.max or 0))

    def _static_rows(self, boxes: np.ndarray, scores: np.ndarray, max_out: int) -> int:
        return min(boxes.shape[1], max(max_out, 0)) * scores.shape[0] * scores.shape[1]


class NonMaxSuppression5(NonMaxSuppression4):
    """NonMaxSuppression-5: adds ``soft_nms_sigma``, the selected scores and the valid count;
    the outputs hold exactly the selected boxes (``[..N, 3]``)."""

    version: ClassVar[str] = "opset5"
    inputs: ClassVar[tuple[Port, ...]] = NonMaxSuppression.inputs + (Port("soft_nms_sigma", optional=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("selected_indices"), Port("selected_scores"), Port("valid_outputs"))

    _typed_inputs: ClassVar[bool] = True
    _scalar_ranks: ClassVar[tuple[int, ...]] = (0, 1)

    def _selected_dim(self, batches: Dimension, boxes: Dimension, classes: Dimension, max_out: int | None) -> Dimension:
        if max_out is None or max_out < 0 or boxes.max is None:
            return Dimension.dynamic()
        per_class = min(boxes.max, max_out)
        if per_class and (batches.max is None or classes.max is None):
            return Dimension.dynamic()
        return Dimension(0, per_class * (batches.max or 0) * (classes.max or 0))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        batches, boxes, classes = self._check(inputs)
        dim = self._selected_dim(batches, boxes, classes, self._max_out(inputs))
        shape = PartialShape([dim, Dimension.static(3)])
        et = self._output_type()
        return [TensorType(et, shape), TensorType(ElementType.f32, shape), TensorType(et, PartialShape([1]))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        found = self._select(arrays)
        dtype = self._output_type().numpy_dtype
        indices = np.array([(b, c, i) for _, b, c, i in found], dtype=dtype).reshape(-1, 3)
        scores = np.array([(b, c, s) for s, b, c, _ in found], dtype=np.float32).reshape(-1, 3)
        return [indices, scores, np.array([len(found)], dtype=dtype)]


class NonMaxSuppression9(NonMaxSuppression5):
    """NonMaxSuppression-9: as v5."""

    version: ClassVar[str] = "opset9"


# --- MulticlassNms / MatrixNms -----------------------------------------------------------------
def pair_iou(a: np.ndarray, b: np.ndarray, normalized: bool) -> float:
    """IoU of two (x1, y1, x2, y2) boxes; unnormalized boxes count the end pixel (+1)."""
    f = np.float32
    extra = f(0) if normalized else f(1)
    if a[2] < a[0] or a[3] < a[1] or b[2] < b[0] or b[3] < b[1]:
        return 0.0
    area_a = (a[2] - a[0] + extra) * (a[3] - a[1] + extra)
    area_b = (b[2] - b[0] + extra) * (b[3] - b[1] + extra)
    w = min(a[2], b[2]) - max(a[0], b[0]) + extra
    h = min(a[3], b[3]) - max(a[1], b[1]) + extra
    if w <= 0 or h <= 0:
        return 0.0
    inter = f(w * h)
    return float(inter / (area_a + area_b - inter))


def matrix_iou(a: np.ndarray, b: np.ndarray, normalized: bool) -> np.float32:
    """MatrixNms's IoU (the CPU plugin's own, unlike MulticlassNms's): boxes apart on either axis
    give 0 even when the unnormalized +1 would make them overlap; an inverted box has area 0."""
    f = np.float32
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return f(0)
    extra = f(0) if normalized else f(1)

    def area(box: np.ndarray) -> np.float32:
        if box[2] < box[0] or box[3] < box[1]:
            return f(0)
        return f((box[2] - box[0] + extra) * (box[3] - box[1] + extra))

    inter = f((min(a[2], b[2]) - max(a[0], b[0]) + extra) * (min(a[3], b[3]) - max(a[1], b[1]) + extra))
    with np.errstate(divide="ignore", invalid="ignore"):
        return f(inter / (area(a) + area(b) - inter))


class _MulticlassBase(Op):
    """Shared by MulticlassNms-8/9 and MatrixNms-8: attributes, shapes, result ordering."""

    inputs: ClassVar[tuple[Port, ...]] = (Port("boxes"), Port("scores"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("selected_outputs"), Port("selected_indices"), Port("selected_num"))

    sort_result_type: Literal["classid", "score", "none"] = "none"
    sort_result_across_batch: bool = False
    output_type: Literal["i64", "i32"] = "i64"
    score_threshold: float = 0.0
    nms_top_k: int = -1
    keep_top_k: int = -1
    background_class: int = -1
    normalized: bool = True

    def _dims(self, inputs: list[TensorType]) -> tuple[Dimension, Dimension, Dimension]:
        """(batches, boxes per batch, classes) of the two-input layout."""
        boxes, scores = inputs[0], inputs[1]
        if boxes.shape.rank_is_static and len(boxes.shape) != 3:
            raise self.fail(f"Expected a 3D tensor for the 'boxes' input. Got: {boxes.shape}")
        if scores.shape.rank_is_static and len(scores.shape) != 3:
            raise self.fail(f"Expected a 3D tensor for the 'scores' input. Got: {scores.shape}")
        return _batches_boxes_classes(self, boxes, scores, "The third dimension of the 'boxes' must be 4.")

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = inputs[0].element_type.merge(inputs[1].element_type)
        if et is None or not (et.is_dynamic or et in FLOATS):
            raise self.fail(f"Expected bf16, fp16 or fp32 as element type for the 'boxes' and 'scores' inputs. Got: "
                            f"{inputs[0].element_type}, {inputs[1].element_type}")
        batches, count, classes = self._dims(inputs)
        rows = Dimension.dynamic()
        most_batches, most_count, most_classes = batches.max, count.max, classes.max
        if most_batches is not None and most_count is not None and most_classes is not None:
            per_class = most_count if self.nms_top_k < 0 else min(self.nms_top_k, most_count)
            per_batch = per_class * most_classes
            if self.keep_top_k >= 0:
                per_batch = min(per_batch, self.keep_top_k)
            rows = Dimension(0, per_batch * most_batches)
        idx = ElementType.parse(self.output_type)
        return [TensorType(et, PartialShape([rows, 6])), TensorType(idx, PartialShape([rows, 1])),
                TensorType(idx, PartialShape([batches]))]

    #: the CPU plugin's MatrixNms orders each image's boxes by score whatever sort_result_type says
    _batch_sorted_by_score: ClassVar[bool] = False

    def _per_class(self, boxes: np.ndarray, scores: np.ndarray, ties: TieOrder) -> list[tuple[float, int]]:
        raise NotImplementedError

    def _candidates(self, scores: np.ndarray) -> np.ndarray:
        """Box indices at or above the score threshold (the CPU plugin's ``>=``, "to align with the
        reference"), best first (ties: lower index), at most nms_top_k."""
        idx = np.nonzero(scores >= np.float32(self.score_threshold))[0]
        idx = idx[np.argsort(-scores[idx], kind="stable")]
        return idx if self.nms_top_k < 0 else idx[:self.nms_top_k]

    def _run(self, images: list[tuple[np.ndarray, np.ndarray, int]], out_dtype: np.dtype,
             ties: TieOrder = STABLE) -> list[np.ndarray]:
        """``images``: (boxes ``[M, 4]`` or per class ``[C, M, 4]``, scores ``[C, M]``, flat index base);
        ``ties``: the order among equal scores where the op sorts with it (MatrixNms)."""
        results = []
        for b, (boxes, scores, base) in enumerate(images):
            found: list[tuple[Any, ...]] = []
            for c in range(scores.shape[0]):
                if c == self.background_class:
                    continue
                own = boxes[c] if boxes.ndim == 3 else boxes
                found.extend((score, c, i, b, base, own[i]) for score, i in self._per_class(own, scores[c], ties))
            if self._batch_sorted_by_score:
                found.sort(key=lambda t: (-t[0], t[1], t[2]))
                if self.keep_top_k >= 0:
                    found = found[:self.keep_top_k]
                results.append(found)
                continue
            if self.keep_top_k >= 0 and len(found) > self.keep_top_k:
                found.sort(key=lambda t: (-t[0], t[1], t[2]))
                found = found[:self.keep_top_k]
            if self.sort_result_type in ("score", "none"):  # measured: the CPU plugin orders "none" by score too
                found.sort(key=lambda t: (-t[0], t[1], t[2]))
            elif self.sort_result_type == "classid":
                found.sort(key=lambda t: (t[1], -t[0], t[2]))
            results.append(found)
        flat = [t for r in results for t in r]
        if self.sort_result_across_batch and self.sort_result_type == "score":
            flat.sort(key=lambda t: (-t[0], t[3], t[1], t[2]))
        elif self.sort_result_across_batch and self.sort_result_type == "classid":
            flat.sort(key=lambda t: (t[1], t[3], -t[0], t[2]))
        idx = ElementType.parse(self.output_type).numpy_dtype
        out = np.zeros((len(flat), 6), np.float32)
        index = np.zeros((len(flat), 1), idx)
        for k, (score, c, i, _b, base, box) in enumerate(flat):
            out[k] = (c, score, *box)
            index[k, 0] = base + i
        return [out.astype(out_dtype), index, np.array([len(r) for r in results], idx)]

    def evaluate(self, boxes: np.ndarray, scores: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
        return self.evaluate_with(STABLE, boxes, scores, *rest)

    def evaluate_with(self, ties: TieOrder, boxes: np.ndarray, scores: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
        """:meth:`evaluate` with ``ties`` ordering equal scores (graphir.ops.openvino.tie_order)."""
        dtype = np.asarray(boxes).dtype
        b = np.asarray(boxes, np.float32)
        s = np.asarray(scores, np.float32)
        return self._run([(b[n], s[n], n * b.shape[1]) for n in range(b.shape[0])], dtype, ties)


class MulticlassNms(_MulticlassBase):
    """MulticlassNms-8: greedy NMS per class (IoU above the threshold suppresses; ``nms_eta`` lowers
    the threshold after each kept box while it is above 0.5), then per-image ``keep_top_k``.
    Outputs rows (class, score, x1, y1, x2, y2), the flat box index, and the count per image."""

    type_name: ClassVar[str] = "MulticlassNms"
    version: ClassVar[str] = "opset8"

    iou_threshold: float = 0.0
    nms_eta: float = 1.0

    def _per_class(self, boxes: np.ndarray, scores: np.ndarray, ties: TieOrder) -> list[tuple[float, int]]:
        threshold = float(self.iou_threshold)
        with_eta = 0 <= self.nms_eta < 1
        floor = np.float32(self.score_threshold)
        kept: list[int] = []
        for i in self._candidates(scores):
            selected = True
            for k in reversed(kept):  # the latest kept box first, as the CPU plugin checks them
                if pair_iou(boxes[i], boxes[k], self.normalized) >= threshold:
                    selected = False
                    break
                if with_eta and scores[i] <= floor:
                    break  # the CPU plugin's eta path stops checking a box at the threshold: kept
            if selected:
                kept.append(int(i))
                if with_eta and threshold > 0.5:
                    threshold *= self.nms_eta
        return [(float(scores[i]), i) for i in kept]


class MulticlassNms9(MulticlassNms):
    """MulticlassNms-9: also the three-input layout: boxes ``[C, M, 4]``, scores ``[C, M]`` and
    ``roisnum`` ``[N]`` (how many of the M boxes belong to each image)."""

    version: ClassVar[str] = "opset9"
    inputs: ClassVar[tuple[Port, ...]] = (Port("boxes"), Port("scores"), Port("roisnum", optional=True))

    def _dims(self, inputs: list[TensorType]) -> tuple[Dimension, Dimension, Dimension]:
        if len(inputs) < 3:
            return super()._dims(inputs)
        boxes, scores, rois = inputs
        b = boxes.shape if boxes.shape.rank_is_static else PartialShape.dynamic(3)
        s = scores.shape if scores.shape.rank_is_static else PartialShape.dynamic(2)
        r = rois.shape if rois.shape.rank_is_static else PartialShape.dynamic(1)
        if len(b) != 3 or len(s) != 2 or len(r) != 1:
            raise self.fail(f"Expected boxes [C, M, 4], scores [C, M] and roisnum [N]. Got: {b}, {s}, {r}")
        classes = b[0].merge(s[0])
        if classes is None:
            raise self.fail(f"The first dimension of both 'boxes' and 'scores' must match. Boxes: {b}; Scores: {s}")
        count = b[1].merge(s[1])
        if count is None:
            raise self.fail(f"The second dimension of both 'boxes' and 'scores' must match. Boxes: {b}; Scores: {s}")
        return r[0], count, classes

    def evaluate(self, boxes: np.ndarray, scores: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
        if not rest:
            return super().evaluate(boxes, scores)
        dtype = np.asarray(boxes).dtype
        b = np.asarray(boxes, np.float32)  # [C, M, 4]
        s = np.asarray(scores, np.float32)  # [C, M]
        counts = np.asarray(rest[0]).astype(np.int64).reshape(-1)
        images, start = [], 0
        for n in counts:
            images.append((b[:, start:start + n], s[:, start:start + n], start))
            start += int(n)
        return self._run(images, dtype)


class MatrixNms(_MulticlassBase):
    """MatrixNms-8 (SOLOv2): per class, each candidate's score decays by its overlap with every
    better one (``linear``: (1 - iou) / (1 - max_iou); ``gaussian``: exp((max_iou^2 - iou^2) * sigma));
    scores at or below ``post_threshold`` are dropped."""

    type_name: ClassVar[str] = "MatrixNms"
    version: ClassVar[str] = "opset8"

    _batch_sorted_by_score: ClassVar[bool] = True

    decay_function: Literal["gaussian", "linear"] = "linear"
    gaussian_sigma: float = 2.0
    post_threshold: float = 0.0

    def _per_class(self, boxes: np.ndarray, scores: np.ndarray, ties: TieOrder) -> list[tuple[float, int]]:
        candidates = [int(i) for i in np.nonzero(scores > np.float32(self.score_threshold))[0]]
        top = len(candidates) if self.nms_top_k < 0 else min(self.nms_top_k, len(candidates))
        order = ties.partial_sort(candidates, top, lambda a, b: bool(scores[a] > scores[b]))[:top]
        n = len(order)
        if n == 0:
            return []
        ious = np.zeros((n, n), np.float32)
        for i in range(n):
            for j in range(i):
                ious[i, j] = matrix_iou(boxes[order[i]], boxes[order[j]], self.normalized)
        max_iou = np.array([ious[i, :i].max() if i else 0.0 for i in range(n)], np.float32)
        kept = []
        for i in range(n):
            decay = np.float32(1)
            for j in range(i):
                if self.decay_function == "gaussian":
                    d = np.float32(math.exp((max_iou[j] ** 2 - ious[i, j] ** 2) * self.gaussian_sigma))
                else:
                    with np.errstate(divide="ignore", invalid="ignore"):
                        d = np.float32((1 - ious[i, j]) / (1 - max_iou[j]))
                decay = min(decay, d)
            score = np.float32(scores[order[i]] * decay)
            if score > np.float32(self.post_threshold):
                kept.append((float(score), int(order[i])))
        return kept


# --- NMSRotated --------------------------------------------------------------------------------
def rotated_corners(box: np.ndarray, clockwise: bool) -> np.ndarray:
    """The 4 corners of ``(cx, cy, w, h, angle)`` (radians; clockwise when ``clockwise``)."""
    cx, cy, w, h, angle = (float(v) for v in box)
    theta = angle if clockwise else -angle
    c, s = math.cos(theta) * 0.5, math.sin(theta) * 0.5
    p0 = (cx - s * h - c * w, cy + c * h - s * w)
    p1 = (cx + s * h - c * w, cy - c * h - s * w)
    return np.array([p0, p1, (2 * cx - p0[0], 2 * cy - p0[1]), (2 * cx - p1[0], 2 * cy - p1[1])])


def _polygon_area(points: np.ndarray) -> float:
    if len(points) < 3:
        return 0.0
    x, y = points[:, 0], points[:, 1]
    return abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2


def _clip(subject: list[tuple[float, float]], a: np.ndarray, b: np.ndarray, inside_sign: float) -> list[tuple[float, float]]:
    """Sutherland-Hodgman: the part of ``subject`` on the inner side of the edge a->b."""
    def side(p: tuple[float, float]) -> float:
        return inside_sign * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]))

    out: list[tuple[float, float]] = []
    for i, cur in enumerate(subject):
        prev = subject[i - 1]
        sc, sp = side(cur), side(prev)
        if sc >= 0:
            if sp < 0:
                t = sp / (sp - sc)
                out.append((prev[0] + t * (cur[0] - prev[0]), prev[1] + t * (cur[1] - prev[1])))
            out.append(cur)
        elif sp >= 0:
            t = sp / (sp - sc)
            out.append((prev[0] + t * (cur[0] - prev[0]), prev[1] + t * (cur[1] - prev[1])))
    return out


def rotated_iou(a: np.ndarray, b: np.ndarray, clockwise: bool) -> float:
    """IoU of two rotated boxes (convex polygon intersection)."""
    area_a = float(a[2]) * float(a[3])
    area_b = float(b[2]) * float(b[3])
    if area_a <= 0 or area_b <= 0:
        return 0.0
    pa, pb = rotated_corners(a, clockwise), rotated_corners(b, clockwise)
    orient = np.sign((pb[1][0] - pb[0][0]) * (pb[2][1] - pb[0][1]) - (pb[1][1] - pb[0][1]) * (pb[2][0] - pb[0][0])) or 1.0
    poly = [tuple(p) for p in pa]
    for i in range(4):
        if not poly:
            break
        poly = _clip(poly, pb[i], pb[(i + 1) % 4], orient)
    inter = _polygon_area(np.array(poly)) if poly else 0.0
    union = area_a + area_b - inter
    return inter / union if union > 0 else 0.0


class NMSRotated(NonMaxSuppression9):
    """NMSRotated-13: NonMaxSuppression over rotated boxes ``[N, M, 5]`` (cx, cy, w, h, angle);
    outputs as NonMaxSuppression-9; no soft-NMS."""

    type_name: ClassVar[str] = "NMSRotated"
    version: ClassVar[str] = "opset13"
    inputs: ClassVar[tuple[Port, ...]] = NonMaxSuppression.inputs

    clockwise: bool = True

    def _check(self, inputs: list[TensorType]) -> tuple[Dimension, Dimension, Dimension]:
        boxes = inputs[0]
        if boxes.shape.rank_is_static and len(boxes.shape) == 3 and not boxes.shape[2].compatible(Dimension.static(5)):
            raise self.fail(f"The last dimension of the 'boxes' input must be equal to 5. Got: {boxes.shape[2]}")
        as4 = TensorType(boxes.element_type, PartialShape(list(boxes.shape.dims[:2]) + [4])) \
            if boxes.shape.rank_is_static and len(boxes.shape) == 3 else boxes
        return super()._check([as4] + list(inputs[1:]))

    def _select(self, arrays: tuple[np.ndarray, ...]) -> list[tuple[float, int, int, int]]:
        boxes, scores = np.asarray(arrays[0], np.float32), np.asarray(arrays[1], np.float32)
        max_out = int(_scalar_value(list(arrays), 2, 0))
        if max_out < 0:
            max_out = boxes.shape[1]
        iou_thr = _scalar_value(list(arrays), 3, 0.0)
        score_thr = np.float32(_scalar_value(list(arrays), 4, 0.0))
        found: list[tuple[float, int, int, int]] = []
        for b in range(scores.shape[0]):
            for c in range(scores.shape[1]):
                s = scores[b, c]
                order = sorted((i for i in range(len(s)) if s[i] > score_thr), key=lambda i: (-s[i], i))
                kept: list[int] = []
                for i in order:
                    if len(kept) >= min(max_out, len(s)):
                        break
                    if all(rotated_iou(boxes[b, i], boxes[b, k], self.clockwise) <= iou_thr for k in kept):
                        kept.append(i)
                found.extend((float(s[i]), b, c, i) for i in kept)
        if self.sort_result_descending:
            found.sort(key=lambda t: (-t[0], t[1], t[2], t[3]))
        return found
