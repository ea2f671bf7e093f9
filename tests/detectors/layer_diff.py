"""Layer-by-layer comparison of one IR run by graphir and by OpenVINO CPU (f32 hint).

``layer_outputs(xml, x)`` runs both with every layer's output made a result (graphir:
``model.add_results``; OpenVINO: ``Model.add_outputs``) and returns, per layer output
``(name, port)``, graphir's and OpenVINO's arrays. ``own_error(xml, x, ovs)`` re-runs each layer
of graphir's on OpenVINO's own inputs to that layer, so an op's own arithmetic is told apart from
what it inherits. Used to find where Mask R-CNN's masks depart from OpenVINO's
(tests/detectors/test_mask_departure.py).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import graphir
from graphir.numerics import evaluator, has_override
from graphir.ops.base import NodeSignature, TensorType
from graphir.shapes import PartialShape

Key = tuple[str, int]
SKIP = {"Parameter", "Constant", "Result"}


def _graphir_all(xml: Path, x: np.ndarray) -> dict[Key, np.ndarray]:
    model = graphir.read_model(xml)
    keys, outs = [], []
    for node in model.get_ordered_ops():
        if node.op.type_name in SKIP:
            continue
        for i, out in enumerate(node.outputs()):
            keys.append((node.name, i))
            outs.append(out)
    first = len(model.get_results())
    model.add_results(outs)
    values = list(model.run([x], numerics="openvino-cpu").values())[first:]  # as OpenVINO CPU computes
    assert len(values) == len(keys), f"{len(values)} results for {len(keys)} layer outputs"
    return dict(zip(keys, values))


def openvino_layers(ov: Any, xml: Path, x: np.ndarray) -> tuple[dict[Key, np.ndarray], list[np.ndarray]]:
    core = ov.Core()
    model = core.read_model(str(xml))
    outs = [op.output(i) for op in model.get_ordered_ops() if op.get_type_name() not in SKIP
            for i in range(op.get_output_size())]
    first = len(model.outputs)
    model.add_outputs(outs)  # an output already feeding a Result is not added twice: keyed by source
    keys = []
    for out in model.outputs:
        src = out.get_node().input_value(0)
        keys.append((src.get_node().get_friendly_name(), src.get_index()))
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled([x])
    values = [result[i] for i in range(len(compiled.outputs))]
    layers = dict(zip(keys, values))
    layers[(model.get_parameters()[0].get_friendly_name(), 0)] = x  # the one image input
    return layers, values[:first]


def layer_outputs(ov: Any, xml: Path, x: np.ndarray) -> tuple[dict[Key, np.ndarray], dict[Key, np.ndarray], list[np.ndarray]]:
    """(graphir's, OpenVINO's layer outputs, OpenVINO's model outputs in that run)."""
    ovs, final = openvino_layers(ov, xml, x)
    return _graphir_all(xml, x), ovs, final


def difference(a: np.ndarray, b: np.ndarray) -> float | None:
    """Largest absolute difference; None when shapes differ; 0 for equal non-float arrays."""
    if a.shape != b.shape:
        return None
    if a.size == 0:
        return 0.0
    if a.dtype.kind not in "f" and b.dtype.kind not in "f":
        return 0.0 if np.array_equal(a.astype(np.int64), b.astype(np.int64)) else float("inf")
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())


def ulps(a: np.ndarray, b: np.ndarray) -> int:
    """Largest distance in f32 units in the last place."""
    ia = a.astype(np.float32).view(np.int32).astype(np.int64)
    ib = b.astype(np.float32).view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, np.int64(-(2 ** 31)) - ia, ia)
    ib = np.where(ib < 0, np.int64(-(2 ** 31)) - ib, ib)
    return int(np.abs(ia - ib).max()) if a.size else 0


def own_error(xml: Path, ovs: dict[Key, np.ndarray]) -> dict[Key, float | None]:
    """Each layer of graphir's run on OpenVINO's inputs to it (in topological order): its largest
    difference from OpenVINO's output (None where the shapes differ or graphir refuses the inputs;
    a layer with an input OpenVINO did not report is left out)."""
    model = graphir.read_model(xml)
    errors: dict[Key, float | None] = {}
    for node in model.get_ordered_ops():
        if node.op.type_name in SKIP or type(node.op).has_bodies:  # a body's layers are compared as layers
            continue
        args = []
        for src in node.inputs:
            if src.node.op.type_name == "Constant":
                args.append(np.asarray(src.node.op.value))
            else:
                args.append(ovs.get((src.node.name, src.index)))
        if any(a is None for a in args) or (node.name, 0) not in ovs:
            continue
        declared = node.input_types()
        args = [np.asarray(a).astype(t.element_type.numpy_dtype, copy=False) for a, t in zip(args, declared)]
        consts = [a if src.node.op.type_name == "Constant" else None for a, src in zip(args, node.inputs)]
        ins = [TensorType(t.element_type, PartialShape(list(a.shape)), c) for a, t, c in zip(args, declared, consts)]
        try:
            types = node.op.infer(ins)
            if has_override(node.op, "openvino-cpu"):  # the CPU plugin's arithmetic (graphir.numerics)
                outs = evaluator(node.op, "openvino-cpu", ins)(list(args))
            else:
                outs = node.op.prepare(NodeSignature(ins, consts, types, [True] * len(types)))(*args)
        except graphir.GraphirError:  # OpenVINO's inputs do not fit graphir's op: reported as None
            outs = [None] * len(node.output_types)
        for i, out in enumerate(outs):
            want = ovs.get((node.name, i))
            errors[(node.name, i)] = None if want is None or out is None else difference(np.asarray(out), want)
    return errors
