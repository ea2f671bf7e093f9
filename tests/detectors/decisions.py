"""The decision ops of a detector (what turns scores into a choice: TopK, NonZero of a threshold, the If
around torchvision's batched NMS) and OpenVINO CPU's tensors around them, for assertions that do not
depend on the CPU's ISA (tests/detectors/test_torchvision_detectors.py).

Measured 2026-11-29 (OpenVINO 2026.4 with ``ONEDNN_MAX_CPU_ISA`` = DEFAULT (AMX host), AVX512_CORE_BF16
(what an AMD EPYC with AVX-512 runs), AVX512_CORE and AVX2; graphir with ``OPENBLAS_CORETYPE`` = default
(SapphireRapids), Zen and Haswell, both numerics profiles): the tensors reaching the first decision ops
differ from OpenVINO's default by at most 1.1e-6 of the tensor's largest magnitude (FCOS; SSDlite 7.9e-7,
Faster R-CNN 3.3e-7; the inputs of every decision op, given OpenVINO's choices upstream, by at most 3.6e-6
but for one RetinaNet score: see OUTLIERS), and the scores of the detections found in both by at most 5.2e-7. What they choose
among equal or nearly equal scores does differ: with OpenBLAS's Zen kernels graphir reproduced 271 of
SSDlite's 300 detections and 54 of Faster R-CNN's 100, OpenVINO's own AVX2 kernels 90 of its 100.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from graphir.model import Model
from graphir.node import Node

#: op types whose outputs are a choice among their inputs' values (see :func:`is_decision`)
DECISIONS = frozenset({"TopK", "NonZero", "If"})
#: the measured cross-ISA variation of a decision op's float input, as a fraction of its largest
#: magnitude (1.1e-6 measured), with a margin: graphir's must be within this of OpenVINO's
INPUT_TOLERANCE = 1e-5
#: tensors whose measured variation exceeds INPUT_TOLERANCE somewhere: (detector, decision op, input) ->
#: how many elements may lie beyond it. RetinaNet's second TopK input has one score that moves by up to
#: 0.156 between OpenVINO's own AVX2 and AVX-512 kernels (0.109, 0.047, 0.005 between graphir and OpenVINO
#: with OpenBLAS's SkylakeX, Haswell, Zen kernels); its other 31,945 elements stay within 1e-6.
OUTLIERS = {("retinanet", "__module.inner/aten::topk/TopK_1", 0): 1}
#: a detection is clear of its neighbours when every other candidate entering the NMS that chose it
#: scores more than this away from it (the scores of common detections moved by at most 5.2e-7)
SCORE_MARGIN = 1e-5


def is_decision(node: Node) -> bool:
    """TopK, NonZero, If (batched NMS), and a Convert of floats to integers (a discrete choice made
    from a continuous value: the FPN level a box is pooled from, a rounded coordinate)."""
    if node.type_name in DECISIONS:
        return True
    if node.type_name != "Convert" or not node.inputs or node.inputs[0] is None:
        return False
    source = node.input_types()[0].element_type
    return source.is_real and not node.output_types[0].element_type.is_real


def decision_nodes(model: Model) -> list[Node]:
    return [n for n in model.get_ordered_ops() if is_decision(n)]


def _downstream(model: Model, node: Node) -> set[int]:
    """Ids of the nodes ``node``'s outputs reach."""
    readers: dict[int, list[Node]] = {}
    for n in model.get_ordered_ops():
        for s in n.inputs:
            if s is not None:
                readers.setdefault(s.node.id, []).append(n)
    seen: set[int] = set()
    todo = [node]
    while todo:
        for reader in readers.get(todo.pop().id, []):
            if reader.id not in seen:
                seen.add(reader.id)
                todo.append(reader)
    return seen


def last_nms(model: Model, nodes: list[Node]) -> tuple[Node, set[int]]:
    """The batched-NMS If no other follows, and the ids of it and of the decision ops after it (Mask
    R-CNN's mask-pasting Converts): the choices graphir makes itself in the settled-detections check."""
    ifs = [n for n in nodes if n.type_name == "If"]
    ids = {n.id for n in ifs}
    [last] = [n for n in ifs if not (_downstream(model, n) & ids)]
    return last, {last.id} | (_downstream(model, last) & {n.id for n in nodes})


def openvino_run(ov: Any, xml: str, x: np.ndarray, nodes: list[Node]
                 ) -> tuple[list[np.ndarray], dict[str, tuple[list[np.ndarray], list[np.ndarray]]]]:
    """OpenVINO CPU's (f32 hint) outputs and, per decision op (by name), its input and output values."""
    core = ov.Core()
    ov_model = core.read_model(xml)
    ops = {o.get_friendly_name(): o for o in ov_model.get_ops()}
    extra, where = [], []
    for n in nodes:
        op = ops[n.name]
        for i in range(op.get_input_size()):
            extra.append(op.input_value(i))
            where.append((n.name, "in"))
        for i in range(op.get_output_size()):
            extra.append(op.output(i))
            where.append((n.name, "out"))
    finals = len(ov_model.outputs)
    ov_model.add_outputs(extra)
    compiled = core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled([x])
    values = [np.asarray(result[i]) for i in range(len(compiled.outputs))]
    around: dict[str, tuple[list[np.ndarray], list[np.ndarray]]] = {n.name: ([], []) for n in nodes}
    for (name, side), value in zip(where, values[finals:]):
        around[name][0 if side == "in" else 1].append(value)
    return values[:finals], around


def with_openvino_choices(model: Model, nodes: list[Node], around: dict[str, tuple[list[np.ndarray], list[np.ndarray]]],
                          keep: set[int]) -> Model:
    """A copy of ``model`` whose decision ops other than ``keep`` are replaced by OpenVINO's choices
    (constants of their output values): what follows them sees the candidates OpenVINO chose."""
    from graphir import opset

    copy = model.clone()
    by_name = {n.name: n for n in copy.get_ordered_ops()}
    for n in nodes:
        if n.id in keep:
            continue
        node = by_name[n.name]
        for output, value in zip(node.outputs(), around[n.name][1]):
            copy.replace_all_uses_with(output, opset.constant(value, output.element_type))
    return copy


def nms_iou_threshold(node: Node) -> float:
    """The IoU threshold of the NonMaxSuppression inside a batched-NMS If."""
    for body in (getattr(node.op, "then_body", None), getattr(node.op, "else_body", None)):
        for n in body.get_ordered_ops() if body is not None else []:
            if n.type_name == "NonMaxSuppression":
                return float(np.asarray(n.inputs[3].node.op.value).reshape(-1)[0])
    raise AssertionError(f"{node.describe()}: no NonMaxSuppression in its bodies")


def _iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """torchvision's IoU of (x1, y1, x2, y2) boxes."""
    w = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    h = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    inter = w * h
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter / np.maximum(area + areas - inter, 1e-12)


def settled(boxes: np.ndarray, scores: np.ndarray, classes: np.ndarray, iou_threshold: float, cap: int,
            margin: float = SCORE_MARGIN) -> tuple[np.ndarray, np.ndarray]:
    """Which candidates of a batched NMS (per class, greedy by score) are kept, and which of those
    decisions cannot move when every score moves by less than ``margin / 2`` and every IoU by less
    than ``margin``: a candidate's fate is settled when its score is clear of every other candidate's
    (so its place in the order is fixed), every higher candidate of its class that might overlap it
    (IoU within ``margin`` of the threshold or above) has a settled fate and no such IoU sits at the
    threshold, and, for a kept one, it stays within the first ``cap`` kept even if every unsettled
    candidate above it were kept. Returns (kept, settled)."""
    boxes, scores = np.asarray(boxes, np.float64), np.asarray(scores, np.float64)
    order = np.argsort(-scores, kind="stable")
    kept = np.zeros(len(scores), bool)
    sure = np.zeros(len(scores), bool)
    ranked = np.sort(scores)
    for rank, c in enumerate(order.tolist()):
        lo, hi = np.searchsorted(ranked, [scores[c] - margin, scores[c] + margin])
        clear = hi - lo == 1  # only itself within the margin
        higher = order[:rank]
        same = higher[classes[higher] == classes[c]]
        iou = _iou(boxes[c], boxes[same]) if len(same) else np.zeros(0)
        near = iou > iou_threshold - margin
        suppressed = bool(np.any(kept[same] & (iou > iou_threshold)))
        kept[c] = not suppressed
        sure[c] = clear and bool(np.all(sure[same[near]])) and not np.any(np.abs(iou - iou_threshold) <= margin)
    above = 0  # kept or unsettled candidates ranked above, for the cap
    for c in order.tolist():
        if kept[c] and sure[c] and above >= cap:
            sure[c] = False
        if kept[c] or not sure[c]:
            above += 1
    return kept, sure


def settled_detections(scores: np.ndarray, labels: np.ndarray, inputs: list[np.ndarray], iou_threshold: float,
                       cap: int, margin: float = SCORE_MARGIN) -> np.ndarray:
    """Which detections (final ``scores``/``labels``) a batched NMS over ``inputs`` (its If's inputs:
    condition, boxes, scores, classes) chose with a settled fate (:func:`settled`)."""
    _, boxes, cand_scores, classes = inputs
    kept, sure = settled(boxes, cand_scores, classes, iou_threshold, cap, margin)
    out = np.zeros(len(scores), bool)
    for j, (s, label) in enumerate(zip(np.asarray(scores).tolist(), np.asarray(labels).tolist())):
        found = np.nonzero((cand_scores == s) & (classes == label))[0]
        out[j] = len(found) == 1 and bool(kept[found[0]] and sure[found[0]])
    return out
