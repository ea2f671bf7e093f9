"""Select conversions: OpenVINO <-> oneDNN Graph, and both -> DirectML ElementWiseIf."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphir
from graphir import opset
from graphir.convert.base import convert_model
from graphir.errors import ConversionError
from graphir.node import Node
from graphir.ops.directml.element_wise_if import ElementWiseIf
from graphir.types import ElementType
from tests.test_select_onednn import case_params, load_cases, the_case


def select_model(cond: Any, then: Any, other: Any, et: str = "f32", mode: str = "numpy", axis: int = 0) -> graphir.Model:
    c = opset.parameter(list(cond), "boolean", name="c")
    a = opset.parameter(list(then), et, name="a")
    b = opset.parameter(list(other), et, name="b")
    y = opset.make("Select", c, a, b, auto_broadcast=mode, axis=axis, name="sel")
    return graphir.Model([y], [c.node, a.node, b.node], name="select")


def random_inputs(model: graphir.Model, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    values = {}
    for p in model.get_parameters():
        shape, et = p.op.shape.to_shape(), p.op.element_type
        if et is ElementType.boolean:
            values[p.name] = rng.random(shape) < 0.5
        else:
            values[p.name] = (rng.standard_normal(shape) * 20).astype(et.numpy_dtype)
    return values


def only_output(model: graphir.Model, inputs: dict[str, np.ndarray]) -> np.ndarray:
    return next(iter(model.run(inputs).values()))


def the_node(model: graphir.Model, dialect: str) -> Node:
    (node,) = [n for n in model.nodes() if n.dialect == dialect and n.type_name not in ("Parameter", "Result")]
    return node


# --- OpenVINO <-> oneDNN -----------------------------------------------------------------------

def test_openvino_onednn_round_trip_keeps_values() -> None:
    model = select_model((1, 3, 1), (2, 3, 4), (4,), "bf16")
    inputs = random_inputs(model)
    onednn = convert_model(model, "onednn")
    node = the_node(onednn, "onednn")
    assert (node.type_name, node.version, str(node.output_types[0])) == ("Select", "1", "bf16[2,3,4]")
    back = convert_model(onednn, "openvino")
    assert the_node(back, "openvino").op.auto_broadcast == "numpy"
    expected = only_output(model, inputs)
    np.testing.assert_array_equal(only_output(onednn, inputs), expected)
    np.testing.assert_array_equal(only_output(back, inputs), expected)


def test_none_mode_converts_both_ways() -> None:
    model = select_model((2, 3), (2, 3), (2, 3), "f16", mode="none")
    onednn = convert_model(model, "onednn")
    assert the_node(onednn, "onednn").op.auto_broadcast == "none"
    assert the_node(convert_model(onednn, "openvino"), "openvino").op.auto_broadcast == "none"


@pytest.mark.parametrize("shapes,et,mode,message", [
    (((2,), (2,), (2,)), "f32", "pdpd", "no pdpd broadcast"),
    (((2,), (2,), (2,)), "i32", "numpy", "f32, bf16 or f16 values; then/else are i32"),
    (((2, 3, 4, 5), (4, 5), (4, 5)), "f32", "numpy", r"cond \[2,3,4,5\] .* \(its rank 4 exceeds 2\)"),
    (((2, 1), (1, 3), (3,)), "f32", "numpy", r"cond \[2,1\] .* \[1,3\] \(a cond dim would enlarge dst\)"),
])
def test_openvino_to_onednn_refusals(shapes: tuple, et: str, mode: str, message: str) -> None:
    with pytest.raises(ConversionError, match=message):
        convert_model(select_model(*shapes, et, mode=mode), "onednn")


# --- -> DirectML -------------------------------------------------------------------------------

def test_level_2_0_pads_to_four_dims_and_reads_bool_as_uint8() -> None:
    model = select_model((3, 1), (1, 4), (), "f16")
    dml = convert_model(model, "directml", feature_level="2_0")
    op = the_node(dml, "directml").op
    assert isinstance(op, ElementWiseIf) and op.feature_level.value == "2_0"
    assert op.ConditionTensor.DataType.value == "UINT8"
    assert op.ConditionTensor.Sizes == [1, 1, 3, 4] and op.ConditionTensor.Strides == [0, 0, 1, 0]
    inputs = random_inputs(model)
    np.testing.assert_array_equal(only_output(dml, inputs).reshape(3, 4), only_output(model, inputs))


@pytest.mark.parametrize("shapes,et,level,message", [
    (((2,), (2,), (2,)), "f32", "2_0", r"ATensor: DataType FLOAT32 .* lowest feature level that accepts it is DML_FEATURE_LEVEL_3_0"),
    (((2,), (2,), (2,)), "i64", "4_1", r"DataType INT64 .* DML_FEATURE_LEVEL_4_1; the lowest .* DML_FEATURE_LEVEL_5_0"),
    (((1, 1, 1, 1, 2),) * 3, "f16", "2_1", r"rank 5 .* DML_FEATURE_LEVEL_2_1 .* lowest feature level that accepts it is DML_FEATURE_LEVEL_3_0"),
    (((2,), (2,), (2,)), "f16", "1_0", r"introduced in DML_FEATURE_LEVEL_2_0"),
    (((2,), (2,), (2,)), "bf16", "6_4", r"element type bf16 .* no DirectML data type"),
    (((2,), (2,), (2,)), "boolean", "6_4", r"DirectML has no boolean data type"),
    (((0,), (1,), (1,)), "f32", "6_4", r"a DirectML size of zero is invalid"),
])
def test_directml_refusals(shapes: tuple, et: str, level: str, message: str) -> None:
    with pytest.raises(ConversionError, match=message):
        convert_model(select_model(*shapes, et), "directml", feature_level=level)


def test_dynamic_shapes_are_refused_for_directml() -> None:
    with pytest.raises(ConversionError, match=r"DirectML sizes are concrete but then has shape \[\?,2\]"):
        convert_model(select_model((1, 2), ("?", 2), (1, 2)), "directml")


@pytest.mark.parametrize("axis", [0, -1, 1])
def test_pdpd_becomes_strides(axis: int) -> None:
    cond = {0: (2, 3), -1: (4,), 1: (3,)}[axis]
    other = (3, 1) if axis == 1 else (1, 3, 1)
    model = select_model(cond, (2, 3, 4), other, "i32", mode="pdpd", axis=axis)
    dml = convert_model(model, "directml", feature_level="3_0")
    inputs = random_inputs(model, 3)
    np.testing.assert_array_equal(only_output(dml, inputs), only_output(model, inputs))


@pytest.mark.parametrize("case", case_params(load_cases("ort_dml")))
def test_onnxruntime_dml_lowering(case: dict[str, Any]) -> None:
    """ONNX Where as ONNX Runtime's DirectML EP lowers it (pad to >= 4 dims: ``nchw=True``)."""
    case = the_case(case)
    shapes = [d["shape"] for d in case["inputs"]]
    et = str(ElementType.from_numpy(np.dtype(case["inputs"][1]["dtype"])))
    dml = convert_model(select_model(*shapes, et), "directml", feature_level="5_0", nchw=True)
    op = the_node(dml, "directml").op
    expect = case["expect"]
    for name in ("ConditionTensor", "ATensor", "BTensor", "OutputTensor"):
        if name not in expect:
            continue
        desc = getattr(op, name)
        for field, value in expect[name].items():
            got = getattr(desc, field)
            assert (got.value if hasattr(got, "value") else got) == value, f"{name}.{field}"
    if "DimensionCount" in expect:
        assert op.OutputTensor.DimensionCount == expect["DimensionCount"]


# --- property: a converted node computes what the original does --------------------------------

@st.composite
def broadcast_shapes(draw: st.DrawFn) -> tuple[tuple[int, ...], ...]:
    out = draw(st.lists(st.integers(1, 4), min_size=0, max_size=4))
    shapes = []
    for _ in range(3):
        keep = draw(st.integers(0, len(out)))
        dims = out[len(out) - keep:]
        shapes.append(tuple(d if draw(st.booleans()) else 1 for d in dims))
    return tuple(shapes)


@settings(max_examples=60, deadline=None)
@given(shapes=broadcast_shapes(), et=st.sampled_from(["f32", "f16", "bf16"]), seed=st.integers(0, 2**16))
def test_property_openvino_onednn_same_values(shapes: tuple, et: str, seed: int) -> None:
    model = select_model(*shapes, et)
    inputs = random_inputs(model, seed)
    try:
        onednn = convert_model(model, "onednn")
    except ConversionError as exc:
        assert "does not one-way broadcast" in str(exc)
        return
    expected = only_output(model, inputs)
    np.testing.assert_array_equal(only_output(onednn, inputs), expected)
    np.testing.assert_array_equal(only_output(convert_model(onednn, "openvino"), inputs), expected)


@settings(max_examples=60, deadline=None)
@given(shapes=broadcast_shapes(), et=st.sampled_from(["f32", "f16", "i32", "u8", "i64", "f64"]),
       level=st.sampled_from(["3_0", "5_0", "6_4"]), nchw=st.booleans(), seed=st.integers(0, 2**16))
def test_property_directml_same_values(shapes: tuple, et: str, level: str, nchw: bool, seed: int) -> None:
    model = select_model(*shapes, et)
    inputs = random_inputs(model, seed)
    expected = only_output(model, inputs)
    try:
        dml = convert_model(model, "directml", feature_level=level, nchw=nchw)
    except ConversionError as exc:
        assert et in ("i64", "f64") and level == "3_0" and "DML_FEATURE_LEVEL_5_0" in str(exc)
        return
    out = only_output(dml, inputs)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out.reshape(expected.shape), expected)


@settings(max_examples=30, deadline=None)
@given(shapes=broadcast_shapes(), seed=st.integers(0, 2**16))
def test_property_onednn_to_directml_level_2_0(shapes: tuple, seed: int) -> None:
    model = select_model(*shapes, "f16")
    try:
        onednn = convert_model(model, "onednn")
    except ConversionError:
        return
    inputs = random_inputs(model, seed)
    dml = convert_model(onednn, "directml", feature_level="2_0")
    assert the_node(dml, "directml").op.OutputTensor.DimensionCount == 4
    expected = only_output(model, inputs)
    np.testing.assert_array_equal(only_output(dml, inputs).reshape(expected.shape), expected)
