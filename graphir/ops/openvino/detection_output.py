"""OpenVINO DetectionOutput-1/8 (Caffe SSD's detection output layer): prior boxes decoded by the
box predictions, per-class NMS, ``keep_top_k`` per image; output ``[1, 1, rows, 7]`` rows
``[image_id, label, confidence, xmin, ymin, xmax, ymax]`` grouped by image then label, the row
after the last detection holding image_id -1. v8 derives ``num_classes`` from the input shapes.
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.tie_order import STABLE, TieOrder
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def _jaccard(a: np.ndarray, b: np.ndarray, normalized: bool) -> float:
    """IoU; the boxes are already normalised when NMS runs (pixel priors are divided by the input size)."""
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    extra = 0.0 if normalized else 1.0

    def size(box: np.ndarray) -> float:
        if box[2] < box[0] or box[3] < box[1]:
            return 0.0
        return float((box[2] - box[0] + extra) * (box[3] - box[1] + extra))

    inter = np.array([max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])], np.float32)
    i = size(inter)
    union = size(a) + size(b) - i
    return i / union if union > 0 else 0.0


class DetectionOutput(Op):
    """DetectionOutput-1."""

    type_name: ClassVar[str] = "DetectionOutput"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("box_logits"), Port("class_preds"), Port("proposals"),
                                          Port("aux_class_preds", optional=True), Port("aux_box_preds", optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("detection_boxes"),)

    num_classes: int
    background_label_id: int = 0
    top_k: int = -1
    variance_encoded_in_target: bool = False
    keep_top_k: list[int]
    code_type: str = "caffe.PriorBoxParameter.CORNER"
    share_location: bool = True
    nms_threshold: float
    confidence_threshold: float = 0.0
    clip_after_nms: bool = False
    clip_before_nms: bool = False
    decrease_label_id: bool = False
    normalized: bool = False
    input_height: int = 1
    input_width: int = 1
    objectness_score: float = 0.0

    def _prior_size(self) -> int:
        return 4 if self.normalized else 5

    def _classes(self, inputs: list[TensorType], priors: Dimension) -> Dimension:
        return Dimension.static(self.num_classes)

    def _priors(self, inputs: list[TensorType]) -> Dimension:
        proposals = inputs[2].shape
        if proposals.rank_is_static and len(proposals) == 3 and proposals[2].is_static:
            length = proposals[2].get_length()
            if length % self._prior_size():
                raise self.fail(f"Proposals' third dimension must be a multiply of prior_box_size ({self._prior_size()}). "
                                f"Current value is: {length}.")
            return Dimension.static(length // self._prior_size())
        return Dimension.dynamic()

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = ElementType.dynamic
        for t in inputs:
            merged = et.merge(t.element_type)
            if merged is None or not (merged.is_real or merged.is_dynamic):
                raise self.fail(f"Input types must be the same floating point type. Got: {[str(i.element_type) for i in inputs]}")
            et = merged
        for name, t, rank in (("box logits", inputs[0], 2), ("class predictions", inputs[1], 2), ("proposals", inputs[2], 3)):
            if t.shape.rank_is_static and len(t.shape) != rank:
                raise self.fail(f"The rank of {name} must be {rank}. Got: {t.shape}")
        batch = Dimension.dynamic()
        for t in inputs[:2]:
            if t.shape.rank_is_static:
                merged_batch = batch.merge(t.shape[0])
                if merged_batch is None:
                    raise self.fail(f"The first dimension of box logits and class predictions must match. Got: {inputs[0].shape}, {inputs[1].shape}")
                batch = merged_batch
        priors = self._priors(inputs)
        classes = self._classes(inputs, priors)
        if self.keep_top_k and self.keep_top_k[0] > 0:
            rows = batch * self.keep_top_k[0]
        elif self.top_k > 0:
            rows = batch * (self.top_k * classes.get_length()) if classes.is_static else Dimension.dynamic()
        elif priors.is_static and classes.is_static:
            rows = batch * (priors.get_length() * classes.get_length())
        else:
            rows = Dimension.dynamic()
        return [TensorType(et, PartialShape([1, 1, rows, 7]))]

    # --- values ----------------------------------------------------------------------------
    def _decode(self, prior: np.ndarray, var: np.ndarray, loc: np.ndarray, clip: bool = True) -> np.ndarray:
        f = np.float32
        if self.code_type.endswith("CORNER"):
            out = prior + (loc if self.variance_encoded_in_target else var * loc)
        else:
            pw, ph = prior[2] - prior[0], prior[3] - prior[1]
            pcx, pcy = (prior[0] + prior[2]) / f(2), (prior[1] + prior[3]) / f(2)
            v = np.ones(4, np.float32) if self.variance_encoded_in_target else var
            cx, cy = v[0] * loc[0] * pw + pcx, v[1] * loc[1] * ph + pcy
            w, h = f(math.exp(v[2] * loc[2])) * pw, f(math.exp(v[3] * loc[3])) * ph
            out = np.array([cx - w / f(2), cy - h / f(2), cx + w / f(2), cy + h / f(2)], np.float32)
        out = out.astype(np.float32)
        if clip and self.clip_before_nms:
            out = np.clip(out, 0, 1)
        return out

    def evaluate(self, loc: np.ndarray, conf: np.ndarray, proposals: np.ndarray, *aux: np.ndarray) -> list[np.ndarray]:
        return self.evaluate_with(STABLE, loc, conf, proposals, *aux)

    def evaluate_with(self, ties: TieOrder, loc: np.ndarray, conf: np.ndarray, proposals: np.ndarray,
                      *aux: np.ndarray) -> list[np.ndarray]:
        """:meth:`evaluate` with ``ties`` ordering the keep_top_k cut's equal (score, prior) pairs
        (graphir.ops.openvino.tie_order: the reference keeps class order)."""
        dtype = np.asarray(loc).dtype
        f = np.float32
        batch = loc.shape[0]
        size = self._prior_size()
        num_priors = proposals.shape[2] // size
        classes = conf.shape[1] // num_priors
        loc_classes = 1 if self.share_location else classes
        locs = np.asarray(loc, np.float32).reshape(batch, num_priors, loc_classes, 4)
        confs = np.asarray(conf, np.float32).reshape(batch, num_priors, classes)
        props = np.asarray(proposals, np.float32)
        arm_locs = None
        if aux:  # two-stage (RefineDet): objectness below the threshold zeroes a prior's scores
            objectness = np.asarray(aux[0], np.float32).reshape(batch, num_priors, 2)[..., 1]
            confs = np.where((objectness < f(self.objectness_score))[..., None], f(0), confs)
            if len(aux) > 1:  # and the priors are refined by the first stage's boxes before decoding
                arm_locs = np.asarray(aux[1], np.float32).reshape(batch, num_priors, loc_classes, 4)
        rows = self.infer([TensorType.of(str(ElementType.from_numpy(np.asarray(a).dtype)), list(np.asarray(a).shape))
                           for a in (loc, conf, proposals)])[0].shape[2].get_length()
        out = np.zeros((rows, 7), np.float32)
        count = 0
        for n in range(batch):
            p = props[n if props.shape[0] > 1 else 0]
            boxes = p[0].reshape(num_priors, size)[:, size - 4:].copy()
            if not self.normalized:
                boxes /= np.array([self.input_width, self.input_height, self.input_width, self.input_height], np.float32)
            variances = p[1][:num_priors * 4].reshape(num_priors, 4) if p.shape[0] > 1 else np.ones((num_priors, 4), np.float32)
            def prior(i: int, c: int) -> np.ndarray:
                if arm_locs is None:
                    return boxes[i]
                return self._decode(boxes[i], variances[i], arm_locs[n, i, c], clip=False)

            decoded = np.stack([[self._decode(prior(i, c), variances[i], locs[n, i, c]) for c in range(loc_classes)]
                                for i in range(num_priors)])  # [P, loc_classes, 4]
            found: dict[int, list[int]] = {}
            total = 0
            for c in range(classes):
                if c == self.background_label_id:
                    continue
                scores = confs[n, :, c]
                cand = [i for i in range(num_priors) if scores[i] > f(self.confidence_threshold)]
                cand.sort(key=lambda i: -scores[i])
                if self.top_k > -1:
                    cand = cand[:self.top_k]
                lc = 0 if self.share_location else c
                kept: list[int] = []
                for i in cand:
                    if all(_jaccard(decoded[i, lc], decoded[k, lc], normalized=True) <= self.nms_threshold for k in kept):
                        kept.append(i)
                found[c] = kept
                total += len(kept)
            if self.keep_top_k and self.keep_top_k[0] > -1 and total > self.keep_top_k[0]:
                pairs = [(confs[n, i, c], c, i) for c, kept in found.items() for i in kept]
                # class by class, then by score, lower prior first among equal scores (equal prior and
                # score: ``ties``; OpenVINO CPU's std::sort gives libstdc++'s introsort order, measured)
                pairs = ties.sort(pairs, lambda x, y: x[0] > y[0] or (x[0] == y[0] and x[2] < y[2]))
                found = {}
                for _, c, i in pairs[:self.keep_top_k[0]]:
                    found.setdefault(c, []).append(i)
            for c in sorted(found):
                lc = 0 if self.share_location else c
                for i in found[c]:
                    box = decoded[i, lc]
                    if self.clip_after_nms:
                        box = np.clip(box, 0, 1)
                    label = c - 1 if self.decrease_label_id else c
                    if count < rows:
                        out[count] = (n, label, confs[n, i, c], *box)
                    count += 1
        if count < rows:
            out[count, 0] = -1
        return [out.reshape(1, 1, rows, 7).astype(dtype)]


class DetectionOutput8(DetectionOutput):
    """DetectionOutput-8: as v1, ``num_classes`` from ``class_preds`` (its length / priors)."""

    version: ClassVar[str] = "opset8"

    num_classes: int = 0

    def _classes(self, inputs: list[TensorType], priors: Dimension) -> Dimension:
        conf = inputs[1].shape
        if priors.is_static and priors.get_length() and conf.rank_is_static and conf[1].is_static:
            return Dimension.static(conf[1].get_length() // priors.get_length())
        return Dimension.dynamic()
