"""One profile, one answer: a model's outputs computed three ways under each numerics profile must be
the same bits (graphir.numerics):

* node by node, each node's evaluate picked by ``graphir.numerics.evaluator(op, profile, input types)``;
* ``model.run(inputs, numerics=profile)``;
* ``model.create_infer_request(numerics=profile).infer(inputs)``.

The differential oracles (tests/ops/ov_diff.py ``check``, tests/ops/detection_oracle.py ``compare``) call
:func:`assert_profiles_agree` on every graph they run, so every op's differential grid is checked;
tests/test_numerics_profiles.py runs the corpus files through it.

Under ``openvino-cpu`` a run plan also applies the profile's plan-level fusions (a decompression subgraph
in f32, a chain of constant Adds/Multiplies folded), which span several nodes and so are not a node's
evaluate: where the plan applies one, the node-by-node walk is not compared for that profile (the run and
the request still are); :func:`assert_profiles_agree` returns the profiles the walk was compared under.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import graphir.numerics
from graphir.interpreter import get_plan, specialization
from graphir.model import Model


def walk(model: Model, inputs: Sequence[np.ndarray], profile: str) -> list[np.ndarray]:
    """The Results' values, every node evaluated by ``evaluator(node.op, profile)`` in order."""
    values: dict[tuple[int, int], Any] = {}
    params = model.get_parameters()
    for p, value in zip(params, inputs):
        values[(p.id, 0)] = np.asarray(value)
    with graphir.numerics.using(profile):  # an op's body runs under the profile too
        for node in model.get_ordered_ops():
            if node.type_name == "Parameter":
                continue
            args = [values[(s.node.id, s.index)] for s in node.inputs if s is not None]
            if node.type_name == "Result":
                continue
            outs = graphir.numerics.evaluator(node.op, profile, node.input_types())(args)
            for i, v in enumerate(outs):
                values[(node.id, i)] = v
    return [values[(r.inputs[0].node.id, r.inputs[0].index)] for r in model.get_results()]


def _fuses(model: Model, inputs: Sequence[np.ndarray], profile: str) -> bool:
    """Whether the profile's plan-level fusions change the plan's steps for these inputs (or the model
    holds state, which no node's evaluate alone computes)."""
    if any(getattr(n.op, "stateful", False) for n in model.get_ordered_ops()):
        return True
    if not (graphir.numerics.profile(profile).fuse_decompression or graphir.numerics.profile(profile).fold_linear_chains):
        return False
    plan = get_plan(model)
    if plan.decompressions:
        return True
    arrays = [np.asarray(v) for v in inputs]
    fused = specialization(model, plan, arrays, numerics=profile).steps
    plain = specialization(model, plan, arrays, numerics="reference").steps
    return [s[-1].id for s in fused] != [s[-1].id for s in plain]


def _same_bits(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "OUS":
        return bool(np.array_equal(a, b))
    return a.tobytes() == b.tobytes()


def assert_profiles_agree(model: Model, inputs: Sequence[np.ndarray],
                          profiles: Sequence[str] = graphir.numerics.PROFILES) -> list[str]:
    """Asserts the three ways give the same bits under each profile (module docstring); returns the
    profiles under which the node-by-node walk was compared too."""
    walked = []
    for profile in profiles:
        run = list(model.run(list(inputs), numerics=profile).values())
        request = list(model.create_infer_request(numerics=profile).infer(list(inputs)).values())
        assert len(run) == len(request)
        for i, (r, q) in enumerate(zip(run, request)):
            assert _same_bits(r, q), f"{profile}: output {i}: Model.run and a request differ"
        if _fuses(model, inputs, profile):
            continue
        by_node = walk(model, inputs, profile)
        assert len(by_node) == len(run)
        for i, (w, r) in enumerate(zip(by_node, run)):
            assert _same_bits(w, r), f"{profile}: output {i}: evaluator(op) node by node and Model.run differ"
        walked.append(profile)
    return walked
