"""Model and Node: structure, order, consumers, validation, editing, cloning."""
from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import ClassVar

import networkx as nx
import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import GraphError, InferenceError, InputError, ShapeError
from graphir.interpreter import result_key
from graphir.node import Node, Output
from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.core import Constant, Parameter, Result
from graphir.ops.openvino.select import Select
from graphir.ops.registry import unregister
from graphir.shapes import PartialShape


class SplitHalves(Op):
    """Two outputs: the first and the second half of axis 0 (a throw-away multi-output op)."""

    type_name: ClassVar[str] = "TestSplitHalves"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("first"), Port("second"))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        shape = inputs[0].shape
        if shape.rank_is_dynamic or len(shape) == 0:
            raise self.fail(f"input 0 ('data') must have rank >= 1, got {shape}")
        half = PartialShape([shape[0] // 2, *shape.dims[1:]])
        return [TensorType(inputs[0].element_type, half)] * 2

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        n = x.shape[0] // 2
        return [x[:n], x[n:2 * n]]


class BrokenInfer(Op):
    type_name: ClassVar[str] = "TestBrokenInfer"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [{}["missing"]]  # a bug: KeyError


@pytest.fixture(scope="module", autouse=True)
def _forget_test_ops() -> Iterator[None]:
    yield
    unregister(SplitHalves)
    unregister(BrokenInfer)


def _select_model() -> tuple[graphir.Model, list[Output], Output]:
    c = opset.parameter("[?,2]", "boolean", name="cond")
    a = opset.parameter("[?,2]", "i32", name="then")
    b = opset.parameter("[?,2]", "i32", name="else")
    y = opset.select(c, a, b, name="sel")
    return graphir.Model([y], [c, a, b], name="m"), [c, a, b], y


INPUTS = {"cond": np.array([[True, False], [False, True]]),
          "then": np.array([[1, 2], [3, 4]], np.int32), "else": np.array([[9, 8], [7, 6]], np.int32)}


def test_model_wraps_outputs_in_results_and_orders_nodes() -> None:
    m, params, y = _select_model()
    results = m.get_results()
    assert len(results) == 1 and isinstance(results[0].op, Result) and results[0].inputs == [y]
    assert m.get_parameters() == [p.node for p in params] == m.parameters
    order = m.get_ordered_ops()
    assert [n.name for n in order[:4]] == ["cond", "then", "else", "sel"] and order[-1] is results[0]
    assert m.topological_order() is order  # computed once per structure
    assert len(m) == 5 and set(m.nodes()) == set(order)
    assert [o.node for o in m.inputs] == m.parameters and m.outputs[0].node is results[0]
    assert str(m.outputs[0].tensor_type) == "i32[?,2]"
    assert repr(m) == "<Model 'm' (cond: boolean[?,2], then: i32[?,2], else: i32[?,2]) -> (i32[?,2]), 5 nodes>"


def test_results_are_not_wrapped_twice() -> None:
    for pick in (lambda r: r, lambda r: r.output(0)):
        c, a, b = (opset.parameter("[?,2]", t) for t in ("boolean", "i32", "i32"))
        r = graphir.Model([opset.select(c, a, b)], [c, a, b]).get_results()[0]  # the model is gone; its Result stays
        again = graphir.Model([pick(r)], [c, a, b])
        assert again.get_results() == [r] and len(again) == 5


def test_a_node_belongs_to_one_model() -> None:
    m, params, y = _select_model()
    with pytest.raises(GraphError, match=r"node \d+ 'Result_\d+' \(Result-opset1\) belongs to model 'm'; a node "
                       r"belongs to one model: use model.clone\(\) \(or node.copy\(\)\) to put a copy of it into model 'two'"):
        graphir.Model([m.get_results()[0]], params, name="two")
    with pytest.raises(GraphError, match=r"'sel' \(Select-opset1\) belongs to model 'm'"):
        graphir.Model([opset.relu(y)], params, name="two")
    other = graphir.Model([opset.parameter("[2]", "f32", name="p")], name="other")
    with pytest.raises(GraphError, match="belongs to model 'other'"):
        y.node.set_input(0, other.get_parameters()[0])
    assert y.node.inputs[0] == params[0] and m.version == 0  # refused before anything changed
    copy_ = m.clone()  # the way to put the same graph into another model
    assert copy_.node("sel") is not y.node and copy_.node("sel").model is copy_ and y.node.model is m


def test_parameters_are_found_or_checked() -> None:
    c, a, b = (opset.parameter("[2]", t) for t in ("boolean", "f32", "f32"))
    y = opset.select(c, a, b)
    assert graphir.Model(y).get_parameters() == [c.node, a.node, b.node]  # by id when not given
    with pytest.raises(GraphError, match=r"node \d+ '.*' \(Parameter-opset1\) is used by the graph but is not in the model's parameters"):
        graphir.Model([y], [c, a])
    with pytest.raises(GraphError, match=r"\(Select-opset1\) is given as a parameter but is not a Parameter"):
        graphir.Model([y], [c, a, b, y])
    with pytest.raises(GraphError, match="is given twice in the model's parameters"):
        graphir.Model([y], [c, a, b, a])
    with pytest.raises(GraphError, match="expected a Parameter node or its output, got str"):
        graphir.Model([y], ["c"])  # type: ignore[list-item]
    extra = opset.parameter("[3]", "f32", name="unused")
    assert len(graphir.Model([y], [c, a, b, extra]).get_parameters()) == 4  # unused inputs are kept


def test_networkx_view_and_consumers() -> None:
    c = opset.parameter("[2]", "boolean", name="c")
    a = opset.parameter("[2]", "f32", name="a")
    y = opset.select(c, a, a, name="s")  # one output feeding two ports: two parallel edges
    m = graphir.Model([y, a], [c, a])
    g = m.graph
    assert isinstance(g, nx.MultiDiGraph) and g.nodes[y.node.id]["node"] is y.node
    ports = sorted((d["src_port"], d["dst_port"]) for _, _, d in g.out_edges(a.node.id, data=True))
    assert ports == [(0, 0), (0, 1), (0, 2)]  # select's then, else, and a Result's input
    consumers = m.consumers(a)
    assert [(n.name, i) for n, i in consumers[:2]] == [("s", 1), ("s", 2)]
    assert isinstance(consumers[2][0].op, Result) and m.uses(a) == consumers
    assert m.producer(y.node, 0) == c and m.producer(y.node, 7) is None
    assert m.consumers(m.outputs[0]) == []


def test_node_lookup_by_id_and_name() -> None:
    m, (c, _, _), y = _select_model()
    assert m.node("sel") is y.node and m.node(c.node.id) is c.node
    with pytest.raises(GraphError, match="model 'm' has no node 'nope'"):
        m.node("nope")
    y.node.name = "cond"
    with pytest.raises(GraphError, match="model 'm' has 2 nodes named 'cond'; use an id"):
        m.node("cond")


def test_validation_unconnected_required_input() -> None:
    c = opset.parameter("[2]", "boolean", name="c")
    a = opset.parameter("[2]", "f32", name="a")
    sel = Node(Select(), [c, a, None], name="half_wired", infer=False)
    m = graphir.Model([sel.output(0)], [c, a])
    with pytest.raises(GraphError, match=r"node \d+ 'half_wired' \(Select-opset1\): required input 2 \('else'\) is not connected"):
        m.validate()
    with pytest.raises(GraphError, match=r"'half_wired' \(Select-opset1\): input 2 is not connected"):
        sel.infer()


def test_validation_input_count_and_port_range() -> None:
    c = opset.parameter("[2]", "boolean", name="c")
    a = opset.parameter("[2]", "f32", name="a")
    short = Node(Select(), [c, a], name="short", infer=False)
    with pytest.raises(GraphError, match=r"'short' \(Select-opset1\): expects 3 inputs, has 2"):
        graphir.Model([short.output(0)], [c, a]).validate()
    bad = Node(Select(), [c, a, Output(a.node, 3)], name="bad_port", infer=False)
    with pytest.raises(GraphError) as info:
        graphir.Model([bad.output(0)], [c, a]).validate()
    assert "'bad_port' (Select-opset1): input 2 comes from output 3 of" in str(info.value)
    assert "'a' (Parameter-opset1), which has 1 outputs" in str(info.value)


def test_validation_cycle_names_the_nodes() -> None:
    m, (c, a, b), y = _select_model()
    add = opset.make("Add", y, a, name="adder")
    y.node.set_input(1, add)  # sel.then <- adder <- sel: adder joins m
    with pytest.raises(GraphError) as info:
        m.validate()
    text = str(info.value)
    assert "model 'm' has a cycle" in text and "'adder' (Add-opset1)" in text and "'sel' (Select-opset1)" in text


def test_run_and_infer_shapes_and_reshape() -> None:
    m, _, _ = _select_model()
    out = m.run(INPUTS)
    assert list(out) == [result_key(m.get_results()[0])]
    np.testing.assert_array_equal(next(iter(out.values())), [[1, 8], [7, 4]])
    m.reshape({"cond": "[2,2]", "then": [2, 2], "else": "2,2"})
    assert str(m.outputs[0].partial_shape) == "[2,2]"
    m.reshape({"cond": "[1,2]"})  # broadcasts
    assert str(m.outputs[0].partial_shape) == "[2,2]"
    with pytest.raises(InferenceError, match=r"'sel' \(Select-opset1\), inputs \(boolean\[3,2\], i32\[2,2\], i32\[2,2\]\)"):
        m.reshape({"cond": "[3,2]"})
    with pytest.raises(InputError, match="model 'm' has no input 'nope'"):
        m.reshape({"nope": "[1]"})


def test_clone_is_deep_and_independent() -> None:
    m, _, y = _select_model()
    k = opset.constant(np.arange(4, dtype=np.int32).reshape(2, 2), name="k")
    m.replace_all_uses_with(m.get_parameters()[2].output(0), k)
    clone = m.clone()
    assert [n.name for n in clone.get_ordered_ops()] == [n.name for n in m.get_ordered_ops()]
    assert [n.id for n in clone.get_ordered_ops()] == [n.id for n in m.get_ordered_ops()]
    for a, b in zip(clone.get_ordered_ops(), m.get_ordered_ops()):
        assert a is not b and a.op == b.op and a.output_types == b.output_types  # ops are values: shared
        for src_a, src_b in zip(a.inputs, b.inputs):
            assert src_a.node is not src_b.node and src_a.node.id == src_b.node.id and src_a.index == src_b.index
    const_clone = clone.node("k").op
    assert isinstance(const_clone, Constant) and const_clone.value is k.node.op.value  # data shared, read-only
    clone.node("sel").set_attribute("auto_broadcast", "none")
    clone.node("sel").name = "renamed"
    clone.reshape({"cond": "[2,2]", "then": "[2,2]"})
    clone.rt_info["x"] = 1
    assert y.node.op.auto_broadcast == "numpy" and y.node.name == "sel" and "x" not in m.rt_info
    assert str(m.get_parameters()[0].op.shape) == "[?,2]" and str(clone.outputs[0].partial_shape) == "[2,2]"
    deep = copy.deepcopy(m)
    assert isinstance(deep, graphir.Model) and deep.node("sel") is not y.node


def test_replace_all_uses_with_and_remove_node() -> None:
    m, (c, a, b), y = _select_model()
    neg = opset.make("Negative", a, name="neg")
    assert m.replace_all_uses_with(a, neg) == 1  # the Select's then; neg itself keeps reading a
    assert y.node.inputs[1] == neg and neg.node.inputs[0] == a
    assert m.node("neg") is neg.node
    np.testing.assert_array_equal(next(iter(m.run(INPUTS).values())), [[-1, 8], [7, -4]])
    with pytest.raises(GraphError, match=r"cannot remove node \d+ 'neg' \(Negative-opset1\): still used by node \d+ 'sel' \(Select-opset1\) input 1"):
        m.remove_node(neg.node)
    assert m.replace_all_uses_with(neg, a) == 1
    m.remove_node(neg.node)
    assert "neg" not in {n.name for n in m.nodes()}
    np.testing.assert_array_equal(next(iter(m.run(INPUTS).values())), [[1, 8], [7, 4]])


def test_add_results_and_multi_output_nodes() -> None:
    x = opset.parameter("[4,3]", "f32", name="x")
    halves = opset.test_split_halves(x, name="halves")
    assert isinstance(halves, list) and [h.index for h in halves] == [0, 1]
    assert all(str(h.partial_shape) == "[2,3]" for h in halves)
    with pytest.raises(GraphError, match=r"'halves' \(TestSplitHalves-opset1\) has 2 outputs; pick one with .output\(i\)"):
        graphir.Model([halves[0].node], [x])
    m = graphir.Model([halves[1]], [x])
    m.add_results([halves[0]])
    out = list(m.run({"x": np.arange(12, dtype=np.float32).reshape(4, 3)}).values())
    np.testing.assert_array_equal(out[0], [[6, 7, 8], [9, 10, 11]])
    np.testing.assert_array_equal(out[1], [[0, 1, 2], [3, 4, 5]])
    with pytest.raises(GraphError, match=r"'halves' \(TestSplitHalves-opset1\) has no output 2 \(it has 2\)"):
        halves[0].node.output(2)


def test_node_identity_and_inference_errors() -> None:
    x = opset.parameter("[...]", "f32", name="x")
    with pytest.raises(InferenceError, match=r"TestSplitHalves-opset1\), inputs \(f32\[\.\.\.\]\): .*rank >= 1, got \[\.\.\.\]"):
        opset.test_split_halves(x, name="halves")
    with pytest.raises(InferenceError) as info:
        opset.test_broken_infer(x, name="broken")
    assert "'broken' (TestBrokenInfer-opset1), inputs (f32[...]): shape inference failed: KeyError" in str(info.value)
    ids = {opset.parameter("[1]").node.id for _ in range(20)}
    assert len(ids) == 20  # ids are unique
    n = x.node
    assert n.type_name == "Parameter" and n.version == "opset1" and n.dialect == "openvino"
    assert n.describe() == f"node {n.id} 'x' (Parameter-opset1)"
    assert isinstance(n.op, Parameter) and n.output_names == [{"x"}] and x.names == {"x"}
    assert x.get_any_name() == "x" and x == n.output(0) and hash(x) == hash(n.output(0))
    with pytest.raises(GraphError, match="expected an Output or a Node, got int"):
        Node(Result(), [3])  # type: ignore[list-item]


def test_refresh_after_editing_inputs_on_the_nodes() -> None:
    m, (c, a, b), y = _select_model()
    assert len(m.get_ordered_ops()) == 5
    k = opset.constant(np.full((1, 2), 5, np.int32), name="five")
    y.node.set_input(2, k)  # edited on the node, behind the model's back
    m.validate()  # re-reads the structure: the constant joins, the order is recomputed
    assert m.node("five") is k.node and k.node in m.get_ordered_ops()
    np.testing.assert_array_equal(next(iter(m.run(INPUTS).values())), [[1, 5], [5, 4]])
    extra = opset.parameter("[?,2]", "i32", name="stray")
    y.node.set_input(1, extra)
    with pytest.raises(GraphError, match=r"'stray' \(Parameter-opset1\) is in model 'm' but not in its parameters"):
        m.validate()


def test_queries_about_foreign_nodes_are_graph_errors() -> None:
    m, _, _ = _select_model()
    other = opset.parameter("[2]", "f32", name="elsewhere")
    with pytest.raises(GraphError, match=r"'elsewhere' \(Parameter-opset1\) is not in model 'm'"):
        m.consumers(other)
    with pytest.raises(GraphError, match="a node needs an op instance, got ModelMetaclass"):
        Node(Select, [])  # type: ignore[arg-type]


def test_openvino_style_accessors() -> None:
    m, (c, a, b), y = _select_model()
    assert m.input(0) == c and m.input("then") == a and m.input(-1) == b
    assert m.output() == m.outputs[0] and m.output(m.get_results()[0].name) == m.outputs[0]
    with pytest.raises(GraphError, match="model 'm' has 3 inputs; no input 3"):
        m.input(3)
    with pytest.raises(GraphError, match="model 'm' has no output named 'nope'"):
        m.output("nope")
    n = y.node
    assert n.get_friendly_name() == "sel" and n.get_type_name() == "Select"
    assert n.get_output_size() == 1 and n.get_input_size() == 3 and n.input_value(1) == a
    assert str(n.get_output_partial_shape(0)) == "[?,2]" and n.get_output_element_type(0) == "i32"
    with pytest.raises(GraphError, match=r"'sel' \(Select-opset1\): input 5 is not connected"):
        n.input_value(5)
    n.set_friendly_name("picked")
    assert m.node("picked") is n
    assert y.get_node() is n and y.get_index() == 0 and y.get_element_type() == "i32"
    assert str(y.get_partial_shape()) == "[?,2]" and a.get_names() == {"then"}
    with pytest.raises(ShapeError, match=r"shape \[\?,2\] is not static"):
        y.get_shape()
    assert opset.parameter([2, 3], "f32").get_shape() == (2, 3)


def test_nodes_sharing_an_id_are_refused_with_the_reason() -> None:
    x = opset.parameter("[2]", "f32", name="built_first")
    twin = Node(Parameter(shape=PartialShape.parse("[2]"), element_type="f32"), name="from_file", id=x.node.id)
    y = opset.make("Add", x, twin.output(0))
    with pytest.raises(GraphError) as info:
        graphir.Model([y], [x, twin])
    text = str(info.value)
    assert f"two nodes share id {x.node.id}" in text and "'built_first'" in text and "'from_file'" in text
    assert "IR layer ids" in text
