"""Shape inference over models: reshape (OpenVINO semantics), errors naming the layer, constant
folding for value-dependent shapes, subgraph bodies, and per-layer shapes against OpenVINO."""
from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import InferenceError, InputError
from graphir.inference import fold_node, infer_body, infer_shapes
from graphir.model import Model
from graphir.node import Node
from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.core import FOLDABLE_CONSTANT_SIZE
from graphir.shapes import PartialShape
from graphir.types import ElementType


# --- test-only ops, unregistered (type_name set after creation) -----------------------------
class ShapeOfT(Op):
    """ShapeOf: the value is known whenever the input shape is static (filled by infer)."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("shape"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        s = inputs[0].shape
        rank = PartialShape.dynamic(1) if not s.rank_is_static else PartialShape([len(s)])
        value = np.array(s.to_shape(), np.int64) if s.is_static else None
        return [TensorType(ElementType.i64, rank, value)]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        return [np.array(x.shape, np.int64)]


class GatherT(Op):
    """Gather on axis 0 with no value propagation of its own (folding must come from inference)."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("indices"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    calls: ClassVar[int] = 0

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[1].shape)]

    def evaluate(self, data: np.ndarray, indices: np.ndarray) -> list[np.ndarray]:
        GatherT.calls += 1
        return [data[indices]]


class ConcatT(Op):
    """Concat of 1-D tensors, no value propagation of its own."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x", variadic=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        lengths = [t.shape[0] for t in inputs]
        total = PartialShape([sum(d.min for d in lengths)]) if all(d.is_static for d in lengths) else PartialShape.dynamic(1)
        return [TensorType(inputs[0].element_type, total)]

    def evaluate(self, *xs: np.ndarray) -> list[np.ndarray]:
        return [np.concatenate(xs)]


class ReshapeT(Op):
    """Reshape whose output shape is the value of its second input, dynamic when unknown."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("shape"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        target = inputs[1].value
        if target is None:
            rank = inputs[1].shape[0]
            return [TensorType(inputs[0].element_type, PartialShape.dynamic(rank.min if rank.is_static else None))]
        return [TensorType(inputs[0].element_type, PartialShape([int(d) for d in target]))]

    def evaluate(self, x: np.ndarray, shape: np.ndarray) -> list[np.ndarray]:
        return [x.reshape(tuple(shape))]


class BadFold(Op):
    """Infers fine but fails to evaluate: folding must give up quietly."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[0].shape)]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        raise ZeroDivisionError("no")


class WithBody(Op):
    """An op with a subgraph body (the way TensorIterator/Loop/If call back into inference)."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x", variadic=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)
    body: Any = None

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return infer_body(self.body, inputs, where=f"{self.describe()} body")[:1]

    def evaluate(self, *xs: np.ndarray) -> list[np.ndarray]:
        return list(self.body.run(list(xs)).values())[:1]


for _cls in (ShapeOfT, GatherT, ConcatT, ReshapeT, BadFold, WithBody):
    _cls.type_name = _cls.__name__.removesuffix("T")


def build(op: Op, *inputs: Any, name: str | None = None) -> Node:
    return Node(op, list(inputs), name=name)


def mlp() -> tuple[Model, dict[str, Any]]:
    x = opset.parameter("[?,4]", "f32", name="x")
    w = opset.constant(np.ones((4, 3), np.float32), name="w")
    h = opset.matmul(x, w, transpose_a=False, transpose_b=False, name="mm")
    b = opset.add(h, opset.constant(np.zeros((1, 3), np.float32)), name="bias")
    return Model([b], [x], name="mlp"), {"mm": h, "bias": b}


# --- reshape --------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", ["[8,4]", [8, 4], PartialShape.parse("[8,4]"), {"x": "[8,4]"},
                                    {0: "8,4"}, ["[8,4]"]])
def test_reshape_forms(shapes: Any) -> None:
    m, nodes = mlp()
    m.reshape(shapes)
    assert str(m.get_parameters()[0].output_types[0]) == "f32[8,4]"
    assert str(nodes["bias"].tensor_type) == "f32[8,3]"


def test_reshape_by_tensor_name_and_output_handle() -> None:
    m, nodes = mlp()
    m.get_parameters()[0].output_names[0] = {"input:0"}
    m.reshape({"input:0": "[2,4]"})
    assert str(nodes["mm"].tensor_type) == "f32[2,3]"
    m.reshape({m.inputs[0]: "[5,4]"})
    assert str(nodes["bias"].tensor_type) == "f32[5,3]"


def test_dynamic_and_interval_dimensions_flow_through() -> None:
    m, nodes = mlp()
    m.reshape("[1..10,4]")
    assert str(nodes["bias"].tensor_type) == "f32[1..10,3]"
    m.reshape("[?,?]")
    assert str(nodes["mm"].tensor_type) == "f32[?,3]"
    m.reshape("[...]")
    assert str(nodes["mm"].tensor_type.element_type) == "f32"


def test_reshape_inconsistency_names_the_layer_and_restores_the_old_shapes() -> None:
    m, nodes = mlp()
    m.reshape("[2,4]")
    with pytest.raises(InferenceError) as info:
        m.reshape({"x": "[2,5]"})
    text = str(info.value)
    assert f"node {nodes['mm'].node.id} 'mm' (MatMul-opset1)" in text
    assert "f32[2,5]" in text and "f32[4,3]" in text
    assert str(m.get_parameters()[0].op.shape) == "[2,4]"  # rolled back, like OpenVINO
    assert str(nodes["bias"].tensor_type) == "f32[2,3]"


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        ({"nope": "[1,4]"}, "has no input 'nope' (inputs: 'x')"),
        ({"x": "[1,4"}, "reshape of input 'x': invalid shape '[1,4'"),
        ({3: "[1,4]"}, "input index 3 is out of range"),
        (3.5, "reshape takes a shape"),
    ],
)
def test_reshape_argument_errors(shapes: Any, message: str) -> None:
    m, _ = mlp()
    with pytest.raises(InputError) as info:
        m.reshape(shapes)
    assert message in str(info.value)


def test_single_shape_needs_a_one_input_model() -> None:
    a = opset.parameter([2], "f32", name="a")
    b = opset.parameter([2], "f32", name="b")
    m = Model([opset.add(a, b)], [a, b])
    with pytest.raises(InputError, match="has 2 inputs \\('a', 'b'\\); give reshape a mapping"):
        m.reshape("[3]")
    m.reshape({"a": "[3]", "b": "[1]"})
    assert str(m.outputs[0].tensor_type) == "f32[3]"


def test_reshape_refreshes_the_run_plan() -> None:
    m, _ = mlp()
    m.reshape("[2,4]")
    assert next(iter(m.run(np.ones((2, 4), np.float32)).values())).shape == (2, 3)
    m.reshape("[3,4]")
    with pytest.raises(InputError, match=r"expected shape \[3,4\], got \[2, 4\]"):
        m.run(np.ones((2, 4), np.float32))
    assert next(iter(m.run(np.ones((3, 4), np.float32)).values())).shape == (3, 3)


def test_infer_shapes_after_editing_a_parameter() -> None:
    m, nodes = mlp()
    m.get_parameters()[0].set_attribute("shape", PartialShape.parse("[7,4]"))
    m.infer_shapes()
    assert str(nodes["bias"].tensor_type) == "f32[7,3]"


# --- constant folding -----------------------------------------------------------------------
def shape_chain(x_shape: str) -> tuple[Model, Node]:
    """x -> ShapeOf -> Gather([0]), Gather([1]) -> Concat -> Reshape(x, ...): a value-dependent shape."""
    x = opset.parameter(x_shape, "f32", name="x")
    shape = build(ShapeOfT(), x)
    first = build(GatherT(), shape.output(0), opset.constant(np.array([0], np.int64)))
    rest = build(GatherT(), shape.output(0), opset.constant(np.array([1], np.int64)))
    target = build(ConcatT(), first.output(0), rest.output(0))
    r = build(ReshapeT(), x, target.output(0), name="reshape")
    return Model([r.output(0)], [x]), r


def test_value_dependent_shapes_fold_through_ops_without_their_own_folding() -> None:
    m, r = shape_chain("[2,6]")
    m.infer_shapes()
    assert str(r.output_types[0]) == "f32[2,6]"
    m.reshape("[3,5]")
    assert str(r.output_types[0]) == "f32[3,5]"
    m.reshape("[?,5]")  # ShapeOf has no value now: the Reshape stays dynamic with rank 2
    assert str(r.output_types[0]) == "f32[?,?]"


def test_folding_can_be_turned_off() -> None:
    m, r = shape_chain("[2,6]")
    infer_shapes(m, fold=False)
    assert str(r.output_types[0]) == "f32[?,?]"
    infer_shapes(m)
    assert str(r.output_types[0]) == "f32[2,6]"


def test_fold_node_rules() -> None:
    c = opset.constant(np.array([1, 2, 3], np.int64))
    g = build(GatherT(), c, opset.constant(np.array([2, 0], np.int64)))
    assert g.output_types[0].value is None  # the op does not fold itself
    assert fold_node(g)
    np.testing.assert_array_equal(g.output_types[0].value, [3, 1])
    assert not fold_node(g)  # already known
    x = opset.parameter([3], "i64", name="x")
    g2 = build(GatherT(), x, opset.constant(np.array([0], np.int64)))
    assert not fold_node(g2)  # an input without a known value
    bad = build(BadFold(), c)
    assert not fold_node(bad) and bad.output_types[0].value is None  # failures fold nothing


def test_large_results_are_not_folded() -> None:
    n = FOLDABLE_CONSTANT_SIZE
    c = opset.constant(np.arange(n, dtype=np.int64))
    idx = opset.constant(np.zeros(n + 1, np.int64))  # n + 1 elements: over the limit
    assert idx.tensor_type.value is None  # the constant itself is too big to carry
    small = opset.constant(np.zeros(8, np.int64))
    g = build(GatherT(), c, small)
    assert fold_node(g)
    idx2 = build(ConcatT(), opset.constant(np.zeros(n, np.int64)), opset.constant(np.zeros(1, np.int64)))
    assert not fold_node(idx2)  # n + 1 output elements


def test_builtin_ops_propagate_values() -> None:
    a = opset.add(opset.constant(np.array([1, 2], np.int64)), opset.constant(np.array([10, 20], np.int64)))
    m = Model([a], [])
    m.infer_shapes()
    np.testing.assert_array_equal(m.outputs[0].tensor_type.value, [11, 22])


# --- subgraph bodies ------------------------------------------------------------------------
def body_model() -> Model:
    p = opset.parameter("[?]", "f32", name="bx")
    q = opset.add(p, opset.constant(np.ones(4, np.float32)), name="inner_add")
    return Model([q], [p], name="body")


def test_inference_reaches_into_bodies() -> None:
    x = opset.parameter([4], "f32", name="x")
    w = Node(WithBody(body=body_model()), [x], name="loop")
    m = Model([w.output(0)], [x])
    assert str(w.output_types[0]) == "f32[4]"
    np.testing.assert_array_equal(next(iter(m.run(np.zeros(4, np.float32)).values())), np.ones(4))
    with pytest.raises(InferenceError) as info:
        m.reshape("[5]")
    text = str(info.value)
    assert f"node {w.id} 'loop' (WithBody-test1)" in text  # the outer layer
    assert "'inner_add' (Add-opset1)" in text and "f32[5]" in text and "f32[4]" in text  # the inner one


def test_infer_body_checks_the_parameter_count() -> None:
    with pytest.raises(InferenceError, match="has 1 parameters, given 2 input types"):
        infer_body(body_model(), [TensorType.of("f32", [4])] * 2)


# --- against OpenVINO -----------------------------------------------------------------------
def _ov_model(ov: Any) -> Any:
    ops = ov.opset13 if hasattr(ov, "opset13") else ov.runtime.opset13
    x = ops.parameter([-1, 3, 16, 16], np.float32, name="x")
    w = ops.constant(np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32))
    conv = ops.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1], name="conv")
    bias = ops.add(conv, ops.constant(np.zeros((1, 4, 1, 1), np.float32)), name="bias")
    pool = ops.max_pool(bias, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], name="pool").output(0)
    mean = ops.reduce_mean(pool, ops.constant(np.array([2, 3], np.int64)), keep_dims=False, name="mean")
    fc = ops.matmul(mean, ops.constant(np.ones((4, 5), np.float32)), False, False, name="fc")
    return ov.Model([fc.output(0)], [x], "net")


@pytest.mark.parametrize("shape", ["[2,3,16,16]", "[1..8,3,16,16]", "[?,3,20,24]", "[?,3,?,?]", "[1,3,9,7]"])
def test_layer_shapes_match_openvino_after_reshape(ov: Any, tmp_path: Any, shape: str) -> None:
    ov_model = _ov_model(ov)
    ov.save_model(ov_model, str(tmp_path / "net.xml"), compress_to_fp16=False)
    ours = graphir.read_model(tmp_path / "net.xml")
    ours.reshape({"x": shape})
    ov_model.reshape({"x": ov.PartialShape(shape)})
    expected = {op.get_friendly_name(): [str(o.get_partial_shape()) for o in op.outputs()]
                for op in ov_model.get_ordered_ops() if op.get_type_name() != "Result"}
    got = {n.name: [str(t.shape) for t in n.output_types] for n in ours.get_ordered_ops()
           if n.type_name != "Result"}
    assert got == expected


def test_inconsistency_is_reported_where_openvino_reports_it(ov: Any, tmp_path: Any) -> None:
    ov_model = _ov_model(ov)
    ov.save_model(ov_model, str(tmp_path / "net.xml"), compress_to_fp16=False)
    ours = graphir.read_model(tmp_path / "net.xml")
    with pytest.raises(Exception) as ov_error:
        ov_model.reshape({"x": ov.PartialShape("[1,5,16,16]")})
    assert "conv" in str(ov_error.value)
    with pytest.raises(InferenceError) as info:
        ours.reshape({"x": "[1,5,16,16]"})
    assert "'conv' (Convolution-opset1)" in str(info.value) and "[1,5,16,16]" in str(info.value)


def test_infer_shapes_refreshes_the_run_plans_input_checks() -> None:
    x = opset.parameter("[?,4]", "f32", name="x")
    m = Model([opset.add(x, x)], [x])
    m.run(np.ones((2, 4), np.float32))
    m.get_parameters()[0].set_attribute("element_type", ElementType.f16)
    m.get_parameters()[0].set_attribute("shape", PartialShape.parse("[2,4]"))
    m.infer_shapes()
    with pytest.raises(InputError, match=r"expected element type f16 \(float16\), got an array of float32"):
        m.run(np.ones((2, 4), np.float32))


def test_opaque_layers_keep_recorded_types_only_while_their_inputs_are_unchanged() -> None:
    from graphir.errors import UnsupportedOpError
    from graphir.inference import reshape
    from graphir.ops.opaque import opaque_op

    x = opset.parameter([2, 3], "f32", name="x")
    rec_in, rec_out = TensorType.of("f32", [2, 3]), TensorType.of("f32", [3, 2])
    op = opaque_op("Transposer", "custom1", layer_id="1", layer_name="t", recorded_inputs=[rec_in],
                   recorded_outputs=[rec_out])
    t = Node(op, [x], name="t", output_types=[rec_out])
    y = opset.add(t.output(0), t.output(0), name="after")
    m = Model([y], [x])
    with pytest.raises(UnsupportedOpError, match="name='t' type=Transposer version=custom1"):
        m.infer_shapes()
    assert infer_shapes(m, recorded_opaque=True) == [t]
    assert str(y.tensor_type) == "f32[3,2]"
    with pytest.raises(UnsupportedOpError):
        reshape(m, "[4,3]", recorded_opaque=True)
    assert str(m.get_parameters()[0].op.shape) == "[2,3]"  # rolled back
