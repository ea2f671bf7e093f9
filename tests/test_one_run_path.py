"""One run path (issue 33): ``Model.run`` is a fresh request's ``infer`` and returns a dict,
profiling is its own call, and under one numerics profile ``op.evaluate``, ``Model.run`` and a
request give the same bits."""
from __future__ import annotations

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.interpreter import RunResult


def _topk_model(shape: str) -> graphir.Model:
    x = opset.parameter(shape, "f32", name="x")
    values, indices = opset.make("TopK", x, np.int64(8), version="opset11", axis=0, mode="max", sort="value")
    return graphir.Model([values, indices], [x], name="topk")


@pytest.mark.parametrize("shape", ["[10]", "[?]"])
def test_topk_ties_give_the_same_bits_every_way_under_the_reference_profile(shape: str) -> None:
    """The issue's case: 10 equal values, k=8 (Model.run gave [1,...,7,0], op.evaluate [0..7])."""
    model = _topk_model(shape)
    x = np.ones(10, np.float32)
    op = next(n.op for n in model.nodes() if n.type_name == "TopK")
    want = op.evaluate(x, np.int64(8))
    np.testing.assert_array_equal(want[1], np.arange(8))  # OpenVINO's reference: equal values by index
    for got in (model.run([x]), model.create_infer_request().infer([x]),
                model.run([x], numerics="reference"), model.profile([x]).outputs):
        assert [a.tobytes() for a in got.values()] == [a.tobytes() for a in want]


def test_topk_ties_follow_the_cpu_plugin_under_openvino_cpu() -> None:
    """Under ``numerics="openvino-cpu"`` the CPU plugin's order (tests/ops/test_topk_ties.py
    measures it against OpenVINO); a run and a request of that profile agree."""
    model = _topk_model("[10]")
    x = np.ones(10, np.float32)
    node = next(n for n in model.nodes() if n.type_name == "TopK")
    want = graphir.numerics.evaluator(node.op, "openvino-cpu", node.input_types())([x, np.int64(8)])  # the plugin's order
    run = model.run([x], numerics="openvino-cpu")
    request = model.create_infer_request(numerics="openvino-cpu").infer([x])
    assert [a.tobytes() for a in run.values()] == [a.tobytes() for a in request.values()] == [a.tobytes() for a in want]
    assert list(run.values())[1].tolist() == [1, 2, 3, 4, 5, 6, 7, 0]  # what Model.run gave before (issue 33)


def test_run_returns_a_dict_and_profile_a_run_result() -> None:
    x = opset.parameter([2, 2], "f32", name="x")
    model = graphir.Model([opset.relu(x, name="r")], [x])
    value = np.array([[-1, 2], [3, -4]], np.float32)
    out = model.run([value])
    assert type(out) is dict and list(out) == [next(iter(out))]
    np.testing.assert_array_equal(next(iter(out.values())), [[0, 2], [3, 0]])
    profiled = model.profile([value])
    assert isinstance(profiled, RunResult) and [r.name for r in profiled.profile] == ["r"]
    np.testing.assert_array_equal(next(iter(profiled.outputs.values())), [[0, 2], [3, 0]])
    request = model.create_infer_request()
    assert request.profile([value]).outputs.keys() == out.keys()
    with pytest.raises(TypeError):
        model.run([value], profile=True)  # type: ignore[call-arg]
    assert not hasattr(graphir, "run")
