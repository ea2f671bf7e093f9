"""The decision ops of a detector (what turns scores into a choice: TopK, NonZero of a threshold, the If
around torchvision's batched NMS) and OpenVINO CPU's tensors around them, for assertions that do not
depend on the CPU's ISA (tests/detectors/test_torchvision_detectors.py).

Measured 2026-11-29 (OpenVINO 2026.4 with ``ONEDNN_MAX_CPU_ISA`` = DEFAULT (AMX host), AVX512_CORE_BF16
(what an AMD EPYC with AVX-512 runs), AVX512_CORE and AVX2; graphir with ``OPENBLAS_CORETYPE`` = default
(SapphireRapids), Zen and Haswell, both numerics profiles): the tensors reaching the first decision ops
differ from OpenVINO's default by at most 1.1e-6 of the tensor's largest magnitude (FCOS; SSDlite 7.9e-7,
Faster R-CNN 3.3e-7), and the scores of the detections found in both by at most 5.2e-7. What they choose
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


def upstream_decisions(model: Model, nodes: list[Node]) -> dict[int, bool]:
    """node id -> whether another decision op feeds it (its inputs depend on an earlier choice)."""
    fed = {n.id: False for n in nodes}
    for n in nodes:
        for later in _downstream(model, n) & set(fed):
            fed[later] = True
    return fed


def final_decisions(model: Model, nodes: list[Node]) -> set[int]:
    """Ids of the decision ops no other decision op follows (the last NMS of each path)."""
    ids = {n.id for n in nodes}
    return {n.id for n in nodes if not (_downstream(model, n) & ids)}


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


def clear_of_neighbours(scores: np.ndarray, candidates: np.ndarray, margin: float = SCORE_MARGIN) -> np.ndarray:
    """Which ``scores`` (detections) differ by more than ``margin`` from every candidate score but
    their own (the candidates entering the NMS that chose them)."""
    cand = np.sort(np.asarray(candidates, np.float64))
    out = np.zeros(len(scores), bool)
    for j, s in enumerate(np.asarray(scores, np.float64)):
        gaps = np.sort(np.abs(cand - s))
        out[j] = len(gaps) > 0 and gaps[0] <= margin / 100 and (len(gaps) == 1 or gaps[1] > margin)
    return out
