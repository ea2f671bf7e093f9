"""Editing is safe by construction: every mutation moves Model.version on, run plans and inferred
types follow it lazily, handles have onnx-ir-style helpers, and dead nodes are neither run nor saved."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import GraphError, InferenceError

X = np.array([[-1.0, 2.0, -3.0, 4.0]], np.float32)


def _chain() -> tuple[graphir.Model, graphir.Output, graphir.Output, graphir.Output]:
    """x -> relu -> add(+1) -> Result."""
    x = opset.parameter("[?,4]", "f32", name="x")
    relu = opset.relu(x, name="relu")
    add = opset.add(relu, opset.constant(np.ones((1, 4), np.float32), name="one"), name="add")
    return graphir.Model([add], [x], name="chain"), x, relu, add


def _out(model: graphir.Model, x: np.ndarray = X) -> np.ndarray:
    return next(iter(model.run([x]).values()))


def test_set_input_on_a_node_is_seen_by_the_next_run_and_save(tmp_path: Path) -> None:
    model, x, relu, add = _chain()
    np.testing.assert_array_equal(_out(model), [[1, 3, 1, 5]])
    version = model.version
    neg = opset.negative(x, name="neg")
    add.node.set_input(0, neg)  # on the node, not through the model
    assert model.version == version + 1
    assert model.node("neg") is neg.node  # the new upstream node joined the model
    np.testing.assert_array_equal(_out(model), [[2, -1, 4, -3]])  # no refresh() needed
    graphir.save_model(model, tmp_path / "m.xml")
    saved = graphir.read_model(tmp_path / "m.xml")
    np.testing.assert_array_equal(_out(saved), [[2, -1, 4, -3]])
    assert sorted(n.name for n in saved.nodes() if n.type_name not in ("Result",)) == ["add", "neg", "one", "x"]
    np.testing.assert_array_equal(_out(model), [[2, -1, 4, -3]])


def test_validate_keeps_the_order_unless_the_wiring_changed(tmp_path: Path) -> None:
    """A save validates; an unedited model keeps its order and run plan (they were rebuilt every
    save); ``node.inputs`` cannot be written behind the model's back (uses and version would go
    stale): ``set_input`` is the edit."""
    model, x, relu, add = _chain()
    _out(model)
    order, plan = model.get_ordered_ops(), model._plan
    graphir.save_model(model, tmp_path / "a.xml")
    assert model.get_ordered_ops() is order and model._plan is plan
    rewired = graphir.Output(x.node, 0)
    with pytest.raises(GraphError, match=r"node.inputs is read-only: connect an input with node.set_input"):
        add.node.inputs[0] = rewired
    with pytest.raises(GraphError, match="read-only"):
        add.node.inputs.append(rewired)
    assert model.get_ordered_ops() is order
    add.node.set_input(0, rewired)  # around relu
    model.validate()
    assert model.get_ordered_ops() is not order
    assert [n.name for n in model.live_nodes()] == ["x", "one", "add", model.get_results()[0].name]
    graphir.save_model(model, tmp_path / "b.xml")
    assert "relu" not in (tmp_path / "b.xml").read_text()


def test_plans_and_types_remember_the_version_they_were_built_for() -> None:
    model, x, relu, add = _chain()
    _out(model)
    plan = model._plan
    assert plan.version == model.version
    _out(model)
    assert model._plan is plan  # same version: the plan is reused
    add.node.set_input(1, opset.constant(np.full((3, 1, 4), 2, np.float32), name="two"))
    # the types downstream re-infer lazily, on the next read of a type
    assert str(add.shape) == "[3,?,4]" and str(model.outputs[0].shape) == "[3,?,4]"
    result = _out(model)
    assert model._plan is not plan and model._plan.version == model.version
    assert result.shape == (3, 1, 4)
    np.testing.assert_array_equal(result[2], [[2, 4, 2, 6]])


def test_replace_all_uses_with_re_infers_downstream_lazily() -> None:
    model, x, relu, add = _chain()
    wide = opset.concat([relu, relu], axis=1, name="wide")
    assert relu.replace_all_uses_with(wide) == 1  # the add; wide itself keeps reading relu
    with pytest.raises(InferenceError) as info:
        model.run([X])
    assert f"{add.node.describe()}, inputs (f32[?,8], f32[1,4])" in str(info.value)
    assert model.replace_all_uses_with(add.node.inputs[1], opset.constant(np.ones((1, 8), np.float32))) == 1
    assert str(add.shape) == "[?,8]"
    np.testing.assert_array_equal(_out(model), [[1, 3, 1, 5, 1, 3, 1, 5]])


def test_uses_insert_and_remove_on_the_handles() -> None:
    model, x, relu, add = _chain()
    result = model.get_results()[0]
    assert relu.uses() == [(add.node, 0)]
    assert add.uses() == [(result, 0)]
    assert x.uses() == [(relu.node, 0)]
    doubled = opset.multiply(relu, opset.constant(np.float32(2)), name="doubled")
    assert relu.insert(doubled) == doubled  # relu -> doubled -> add
    assert relu.uses() == [(doubled.node, 0)] and doubled.uses() == [(add.node, 0)]
    np.testing.assert_array_equal(_out(model), [[1, 5, 1, 9]])
    with pytest.raises(GraphError) as info:
        doubled.node.remove()
    assert str(info.value) == (f"cannot remove {doubled.node.describe()}: still used by {add.node.describe()} input 0")
    relu.replace_all_uses_with(x)  # doubled reads x now... no: doubled reads relu; add reads doubled
    assert relu.uses() == [] and doubled.node.inputs[0] == x
    relu.node.remove()
    assert relu.node not in model.nodes()
    np.testing.assert_array_equal(_out(model), [[-1, 5, -5, 9]])
    stray = opset.relu(x, name="stray")
    with pytest.raises(GraphError, match="does not read output 0 of node .* 'add'"):
        add.insert(stray)


def test_dead_nodes_are_neither_run_nor_saved(tmp_path: Path) -> None:
    model, x, relu, add = _chain()
    bad = opset.reshape(relu, opset.constant(np.array([7], np.int64)), special_zero=False, name="dead_end")
    model.add_node(bad.node)
    assert bad.node in model.nodes() and bad.node not in model.live_nodes()
    np.testing.assert_array_equal(_out(model), [[1, 3, 1, 5]])  # the dead Reshape (which would fail) never runs
    graphir.save_model(model, tmp_path / "m.xml")
    text = (tmp_path / "m.xml").read_text()
    assert "dead_end" not in text and text.count("<layer ") == 5
    model.sinks = [bad.node]  # a sink keeps it (as OpenVINO keeps an Assign no Result reads)
    assert [n.name for n in model.roots()] == [model.get_results()[0].name, "dead_end"]
    assert bad.node in model.live_nodes()
    graphir.save_model(model, tmp_path / "s.xml")
    assert "dead_end" in (tmp_path / "s.xml").read_text()


def test_dead_nodes_are_not_written_to_onednn_json(tmp_path: Path) -> None:
    x = opset.parameter("[2,4]", "f32", name="x")
    kept = opset.make("ReLU", x, dialect="onednn", name="kept")
    dead = opset.make("Sigmoid", x, dialect="onednn", name="dead")
    model = graphir.Model([kept], [x], nodes=[dead.node])
    graphir.save_model(model, tmp_path / "g.json")
    names = [op["name"] for op in json.loads((tmp_path / "g.json").read_text())["graph"]]
    assert names == ["kept"]


def test_reshape_moves_the_version_and_the_plan_follows() -> None:
    model, x, relu, add = _chain()
    _out(model)
    version = model.version
    model.reshape({"x": "[2,4]"})
    assert model.version > version
    with pytest.raises(graphir.errors.InputError, match=r"input 'x': expected shape \[2,4\], got \[1, 4\]"):
        model.run([X])
    assert _out(model, np.vstack([X, X])).shape == (2, 4)


def test_an_attribute_set_on_an_op_is_an_edit() -> None:
    x = opset.parameter("[?,4]", "f32", name="x")
    softmax = opset.softmax(x, axis=1, name="sm")
    model = graphir.Model([softmax], [x])
    e = np.exp(X[0].astype(np.float64) - 4)
    np.testing.assert_allclose(_out(model)[0], e / e.sum(), rtol=1e-6)  # [0.0059, 0.1184, 0.0008, 0.8749]
    version = model.version
    with pytest.raises(graphir.errors.OpDefinitionError, match=r"ops are immutable values; to change 'axis' use "
                       r"node.set_attribute\('axis', value\)"):
        softmax.node.op.axis = 0
    assert model.version == version and softmax.node.op.axis == 1
    softmax.node.set_attribute("axis", 0)  # over the batch of one: every value becomes 1
    assert model.version == version + 1 and softmax.node.op.axis == 0
    np.testing.assert_array_equal(_out(model), [[1, 1, 1, 1]])
    with pytest.raises(InferenceError, match=r"'sm' \(Softmax-opset\d+\), inputs \(f32\[\?,4\]\)"):
        softmax.node.set_attribute("axis", 5)  # validated and re-inferred at once: the old op stays
    assert softmax.node.op.axis == 0 and model.version == version + 1
    with pytest.raises(graphir.errors.OpDefinitionError, match="attribute 'axis'"):
        softmax.node.set_attribute("axis", "wide")
    softmax.node.op = softmax.node.op.model_copy(update={"axis": 1})  # the other spelling, tracked the same way
    assert model.version == version + 2
    e = np.exp(X[0].astype(np.float64) - 4)
    np.testing.assert_allclose(_out(model)[0], e / e.sum(), rtol=1e-6)


def test_inference_and_runs_do_not_count_as_edits() -> None:
    path = Path(__file__).resolve().parent / "fixtures" / "ir" / "control_flow" / "torch_loop.xml"
    model = graphir.read_model(path)
    version = model.version
    inputs = [np.ones((2, 3), np.float32), np.array(3, np.int64)]
    model.infer_shapes()
    model.run(inputs)
    plan = model._plan
    model.run([np.ones((4, 5), np.float32), np.array(2, np.int64)])  # a new signature infers the Loop's body
    assert model.version == version and model._plan is plan
