"""The builder API (graphir.opset): OpenVINO-style functions, output handles, eager inference."""
from __future__ import annotations

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import ElementTypeError, InferenceError, OpDefinitionError, ShapeError
from graphir.node import Node, Output
from graphir.ops.openvino.core import Constant, Parameter, Result
from graphir.ops.openvino.select import Select
from graphir.shapes import PartialShape
from graphir.types import ElementType


def test_parameter_handle() -> None:
    x = opset.parameter("[?,3]", "f32", name="x")
    assert isinstance(x, Output) and isinstance(x.node, Node) and x.index == 0
    assert x.element_type is ElementType.f32 and isinstance(x.partial_shape, PartialShape)
    assert str(x.partial_shape) == "[?,3]" and x.shape == x.partial_shape
    assert str(x.tensor_type) == "f32[?,3]"
    assert x.node.name == "x" and x.names == {"x"}
    op = x.node.op
    assert isinstance(op, Parameter) and op.element_type is ElementType.f32 and str(op.shape) == "[?,3]"


@pytest.mark.parametrize(
    "shape,dtype,printed,et",
    [([2, 3], np.float32, "[2,3]", "f32"), ((4,), "i64", "[4]", "i64"), ("?,1..10", "boolean", "[?,1..10]", "boolean"),
     ("[...]", ElementType.u8, "[...]", "u8"), ([], np.dtype("float16"), "[]", "f16"),
     ([-1, 2], "bf16", "[?,2]", "bf16"), (PartialShape.parse("[2..]"), "dynamic", "[2..]", "dynamic")],
)
def test_parameter_accepts_openvino_style_arguments(shape: object, dtype: object, printed: str, et: str) -> None:
    x = opset.parameter(shape, dtype)  # type: ignore[arg-type]
    assert str(x.partial_shape) == printed and str(x.element_type) == et
    assert x.node.name.startswith("Parameter_") and x.names == set()  # unnamed: a generated name


def test_parameter_argument_errors() -> None:
    with pytest.raises(ShapeError, match=r"invalid shape '\[\?,3'"):
        opset.parameter("[?,3", "f32")
    with pytest.raises((OpDefinitionError, ElementTypeError), match="unknown element type 'float33'"):
        opset.parameter("[2]", "float33")


def test_select_builds_with_eager_inference() -> None:
    c = opset.parameter("[?,2]", "boolean", name="cond")
    a = opset.parameter("[?,2]", "i32", name="then")
    b = opset.parameter("[1,2]", "i32", name="else")
    y = opset.select(c, a, b, name="sel")
    assert isinstance(y.node.op, Select) and y.node.op.auto_broadcast == "numpy"
    assert str(y.tensor_type) == "i32[?,2]" and y.node.name == "sel"
    assert y.node.inputs == [c, a, b]
    z = opset.select(c, a, a, auto_broadcast="none")
    assert z.node.op.auto_broadcast == "none" and str(z.partial_shape) == "[?,2]"
    m = graphir.Model([y], [c, a, b], name="m")
    out = m.run({"cond": [[True, False]], "then": np.array([[1, 2]], np.int32), "else": np.array([[9, 8]], np.int32)})
    np.testing.assert_array_equal(next(iter(out.values())), [[1, 8]])


def test_construction_time_inference_errors_name_node_inputs_and_rule() -> None:
    a = opset.parameter("[2,3]", "f32", name="a")
    b = opset.parameter("[4,3]", "f32", name="b")
    c = opset.parameter("[2,3]", "u8", name="c")
    with pytest.raises(InferenceError) as info:
        opset.select(c, a, a, name="bad_cond")
    text = str(info.value)
    assert "'bad_cond' (Select-opset1), inputs (u8[2,3], f32[2,3], f32[2,3])" in text
    assert "Argument 0 must have boolean element type (element type: u8)" in text
    ok = opset.parameter("[2,3]", "boolean", name="ok")
    with pytest.raises(InferenceError, match=r"Argument 1 and 2 element types must match.*f32.*i32"):
        opset.select(ok, a, opset.parameter("[2,3]", "i32"))
    with pytest.raises(InferenceError, match=r"inputs \(boolean\[2,3\], f32\[2,3\], f32\[4,3\]\).*inconsistent"):
        opset.select(ok, a, b)
    with pytest.raises(OpDefinitionError, match="attribute 'auto_broadcast'"):
        opset.select(ok, a, a, auto_broadcast="explicit")


def test_constant_and_python_values_as_inputs() -> None:
    k = opset.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="k")
    assert isinstance(k.node.op, Constant) and str(k.tensor_type) == "f32[2,3]" and k.node.name == "k"
    np.testing.assert_array_equal(k.tensor_type.value, np.arange(6).reshape(2, 3))  # known for folding
    assert str(opset.constant([1, 2], "i8").tensor_type) == "i8[2]"
    y = opset.select(opset.constant([True, False]), 1.0, opset.constant([0.0, 0.0], np.float64))
    assert str(y.tensor_type) == "f64[2]"  # Python values became Constants
    np.testing.assert_array_equal(y.tensor_type.value, [1.0, 0.0])  # folded at construction
    r = opset.result(y, name="out")
    assert isinstance(r.op, Result) and r.inputs == [y] and r.name == "out"


@pytest.mark.parametrize(
    "value", [1.5, 3, [1, 2], [1.0, 2.0], True, np.float64(2.0), np.int32(3), np.array([1, 2]),
              np.array([1.0], np.float32), np.int64(4), [True, False], np.uint16(7)],
)
def test_constant_element_type_matches_openvino(ov, value: object) -> None:  # type: ignore[no-untyped-def]
    expected = ov.opset13.constant(value).get_output_element_type(0).get_type_name()
    assert str(opset.constant(value).element_type) == expected


def test_make_and_derived_builders() -> None:
    a = opset.parameter("[2]", "f32")
    s = opset.make("Add", a, a, version="opset13", name="sum")
    assert s.node.op.version == "opset1" and s.node.name == "sum" and str(s.tensor_type) == "f32[2]"
    add = opset.add
    assert add.__name__ == "add" and "openvino::Add-opset1" in (add.__doc__ or "")
    pooled = opset.max_pool(opset.parameter("[1,1,4,4]", "f32"), strides=[1, 1], dilations=[1, 1], pads_begin=[0, 0],
                            pads_end=[0, 0], kernel_shape=[2, 2])
    assert isinstance(pooled, Node) and len(pooled.outputs()) == 2  # MaxPool-14 has 2 outputs: its node
    with pytest.raises(AttributeError, match="graphir.opset has no builder 'no_such_op'"):
        opset.no_such_op
    with pytest.raises(OpDefinitionError, match="unknown openvino op 'NoSuchOp'"):
        opset.make("NoSuchOp", a)


def test_probes_for_underscore_names_do_not_walk_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The import system asks every module for ``__path__`` on each function-level
    ``from graphir.opset import x`` (tools ask for __wrapped__, _repr_html_, ...): answered at once,
    without the walk over every registered op that a builder name needs (~1-10 ms a time)."""
    def walk(*args: object) -> list[object]:
        raise AssertionError("the registry was walked")

    monkeypatch.setattr(opset, "all_ops", walk)
    for name in ("__path__", "__wrapped__", "__test__", "_repr_html_", "_private"):
        assert not hasattr(opset, name)
        with pytest.raises(AttributeError, match=f"graphir.opset has no attribute '{name}'"):
            getattr(opset, name)
    from graphir.opset import parameter  # a function-level import probes __path__ first
    assert parameter is opset.parameter
    with pytest.raises(AssertionError, match="the registry was walked"):
        opset.some_new_op  # a builder name still looks at the registry


def test_builder_matches_openvino_types_on_a_small_graph(ov) -> None:  # type: ignore[no-untyped-def]
    o = ov.opset13
    cases = [("[?,2]", "[1,2]", "[3,1]", "numpy"), ("[1..10,4]", "[5,4]", "[4]", "numpy"),
             ("[2,3]", "[?,3]", "[2,?]", "none"), ("[...]", "[2,3]", "[3]", "numpy")]
    for cs, ts, es, mode in cases:
        ov_node = o.select(o.parameter(ov.PartialShape(cs), ov.Type.boolean),
                           o.parameter(ov.PartialShape(ts), ov.Type.f16),
                           o.parameter(ov.PartialShape(es), ov.Type.dynamic), auto_broadcast=mode)
        ours = opset.select(opset.parameter(cs, "boolean"), opset.parameter(ts, "f16"),
                            opset.parameter(es, "dynamic"), auto_broadcast=mode)
        assert str(ours.partial_shape) == str(ov_node.get_output_partial_shape(0))
        assert str(ours.element_type) == ov_node.get_output_element_type(0).get_type_name()


@pytest.mark.parametrize(
    "value,dtype,detail",
    [([[1, 2], [3]], None, "inhomogeneous"), ([300], "u8", "out of bounds for uint8"),
     ("x", "f32", "could not convert string to float")],
)
def test_constant_from_unusable_values_is_an_op_definition_error(value: object, dtype: str | None, detail: str) -> None:
    with pytest.raises(OpDefinitionError) as info:
        opset.constant(value, dtype)
    assert "cannot make a Constant" in str(info.value) and detail in str(info.value)
