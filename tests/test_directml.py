"""DirectML: feature levels, buffer tensor descs (DMLCalcBufferTensorSize) and ElementWiseIf, against
every directml / directmlx line of the conformance cases."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from graphir import opset
from graphir.errors import EvaluationError, GraphirError, InferenceError, OpDefinitionError
from graphir.model import Model
from graphir.node import Node
from graphir.ops.directml.element_wise_if import SUPPORT, TENSORS, ElementWiseIf
from graphir.ops.directml.feature_levels import FeatureLevel
from graphir.ops.directml.tensor_desc import BufferTensorDesc, TensorDataType, calc_buffer_tensor_size
from tests.shared_data import or_absent, require_shared
from tests.test_select_onednn import CASES_NAME, case_params, load_cases, the_case

ALL_CASES = load_cases("directml")
OP_CASES = [c for c in ALL_CASES if c["op"] == "DML_OPERATOR_ELEMENT_WISE_IF" and not c.get("eval")]
EVAL_CASES = [c for c in ALL_CASES if c.get("eval")]
SIZE_CASES = [x for c in ALL_CASES if c["op"] == "DMLCalcBufferTensorSize" for x in c["cases"]]


def _desc(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != "value"}


def _op(case: dict[str, Any]) -> ElementWiseIf:
    descs = {name: _desc(case[name]) for name in TENSORS if name in case}
    if "OutputTensor" not in descs:
        descs["OutputTensor"] = {"DataType": descs["ATensor"]["DataType"], "Sizes": descs["ATensor"]["Sizes"]}
    return ElementWiseIf(feature_level=case["feature_level"], **descs)


# --- feature levels ----------------------------------------------------------------------------

def test_every_feature_level_name_in_order() -> None:
    names = [level.value for level in sorted(FeatureLevel, key=lambda lv: lv.number)]
    assert names == ["1_0", "2_0", "2_1", "3_0", "3_1", "4_0", "4_1", "5_0", "5_1", "5_2",
                     "6_0", "6_1", "6_2", "6_3", "6_4"]
    assert FeatureLevel.parse("DML_FEATURE_LEVEL_5_1") is FeatureLevel.L5_1
    assert FeatureLevel.parse("6.2") is FeatureLevel.L6_2
    assert FeatureLevel.parse(0x4100) is FeatureLevel.L4_1
    assert FeatureLevel.L4_1 < FeatureLevel.L5_0 and FeatureLevel.L6_0.dml_name == "DML_FEATURE_LEVEL_6_0"
    with pytest.raises(OpDefinitionError, match="unknown DirectML feature level '7_9'"):
        FeatureLevel.parse("7_9")


@pytest.mark.parametrize("level,row_start", [("1_0", None), ("2_0", "2_0"), ("2_1", "2_0"), ("3_1", "3_0"),
                                             ("4_1", "3_0"), ("5_0", "5_0"), ("6_4", "5_0")])
def test_level_between_rows_uses_the_lower_row(level: str, row_start: str | None) -> None:
    row = SUPPORT.row(FeatureLevel.parse(level))
    expected = None if row_start is None else dict((str(k), v) for k, v in SUPPORT.rows)[row_start]
    assert row is expected


# --- tensor descs ------------------------------------------------------------------------------

@pytest.mark.parametrize("case", or_absent([pytest.param(c, id=f"{c['DataType']}{c['Sizes']}{c.get('Strides')}") for c in SIZE_CASES]))
def test_calc_buffer_tensor_size(case: dict[str, Any]) -> None:
    case = the_case(case)
    assert calc_buffer_tensor_size(case["DataType"], case["Sizes"], case.get("Strides")) == case["expect"]


def test_desc_fills_dimension_count_and_minimum_size() -> None:
    desc = BufferTensorDesc(DataType="DML_TENSOR_DATA_TYPE_FLOAT16", Sizes=[1, 1, 1, 3])
    assert desc.DimensionCount == 4 and desc.TotalTensorSizeInBytes == 8 and desc.DataType is TensorDataType.FLOAT16
    assert desc.is_packed and desc.required_elements == 3


@pytest.mark.parametrize("fields,message", [
    ({"Sizes": [2, 4], "TotalTensorSizeInBytes": 16}, "TotalTensorSizeInBytes 16 is below the minimum 32"),
    ({"Sizes": [2, 4], "GuaranteedBaseOffsetAlignment": 2}, "power of two of at least the element size"),
    ({"Sizes": [2, 4], "GuaranteedBaseOffsetAlignment": 24}, "GuaranteedBaseOffsetAlignment 24"),
    ({"Sizes": [0, 4]}, r"a size of zero"),
    ({"Sizes": [2, 4], "Strides": [1]}, "1 Strides for DimensionCount 2"),
    ({"Sizes": [2, 4], "DimensionCount": 3}, "DimensionCount 3 but 2 Sizes"),
    ({"Sizes": [1] * 9}, "no feature level accepts it"),
])
def test_desc_rules(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(OpDefinitionError, match=message):
        BufferTensorDesc(DataType="FLOAT32", **fields)


def test_read_honours_zero_strides() -> None:
    desc = BufferTensorDesc(DataType="FLOAT32", Sizes=[2, 3], Strides=[0, 1])
    view = desc.read(np.array([1, 2, 3], np.float32))
    assert view.tolist() == [[1, 2, 3], [1, 2, 3]]
    assert BufferTensorDesc(DataType="FLOAT32", Sizes=[2, 3], Strides=[1, 0]).read(np.array([5, 6], np.float32)).tolist() == [[5, 5, 5], [6, 6, 6]]
    with pytest.raises(ValueError, match="needs 3"):
        desc.read(np.array([1, 2], np.float32))


# --- ElementWiseIf -----------------------------------------------------------------------------

@pytest.mark.parametrize("case", case_params(OP_CASES))
def test_conformance_case(case: dict[str, Any]) -> None:
    case = the_case(case)
    if case["expect"]["ok"]:
        op = _op(case)
        op.validate_descs()
        out = case["OutputTensor"]
        assert op.output_type().shape.to_shape() == tuple(out["Sizes"])
        return
    with pytest.raises(GraphirError, match="E_INVALIDARG"):
        _op(case).validate_descs()


@pytest.mark.parametrize("case_id,message", [
    ("dml-02", r"ATensor: DataType FLOAT32 is not supported \(supported: FLOAT16\) at DML_FEATURE_LEVEL_2_0; "
               r"the lowest feature level that accepts it is DML_FEATURE_LEVEL_3_0"),
    ("dml-03", r"ConditionTensor: DimensionCount 2 is not supported \(supported: 4\) at DML_FEATURE_LEVEL_2_0; "
               r"the lowest feature level that accepts it is DML_FEATURE_LEVEL_3_0"),
    ("dml-04", r"DimensionCount 5 .* at DML_FEATURE_LEVEL_2_1; the lowest .* DML_FEATURE_LEVEL_3_0"),
    ("dml-05", r"introduced in DML_FEATURE_LEVEL_2_0; DML_FEATURE_LEVEL_1_0 does not have it"),
    ("dml-10", r"ATensor: DataType INT64 .* at DML_FEATURE_LEVEL_4_1; the lowest .* DML_FEATURE_LEVEL_5_0"),
    ("dml-13", r"ATensor: DataType INT4 .* no feature level accepts it"),
    ("dml-14", r"ConditionTensor: DataType INT8 is not supported \(supported: UINT8\)"),
    ("dml-15", r"BTensor: DataType FLOAT16 differs from OutputTensor's FLOAT32"),
    ("dml-17", r"ConditionTensor: Sizes \[1, 1, 1, 4\] differ from OutputTensor's \[1, 1, 2, 4\]"),
    ("dml-19", r"ConditionTensor: DimensionCount 2 differs from OutputTensor's 3"),
    ("dml-24", r"OutputTensor: DML_TENSOR_FLAG_OWNED_BY_DML is allowed only on input tensors"),
])
def test_violation_names_tensor_rule_and_level(case_id: str, message: str) -> None:
    require_shared(CASES_NAME)
    case = next(c for c in OP_CASES if c["id"] == case_id)
    with pytest.raises(InferenceError, match=message):
        _op(case).validate_descs()


@pytest.mark.parametrize("case", case_params(EVAL_CASES))
def test_conformance_evaluation(case: dict[str, Any]) -> None:
    case = the_case(case)
    op = _op(case)
    arrays = [np.asarray(case[name]["value"], TensorDataType.parse(case[name]["DataType"]).element_type.numpy_dtype)
              for name in TENSORS[:3]]
    out = op.evaluate(*arrays)[0]
    assert out.tolist() == case["expect"]["value"]


def test_seed_example_in_a_model() -> None:
    sizes = [1, 1, 2, 2]
    descs = {name: BufferTensorDesc(DataType="UINT8" if name == "ConditionTensor" else "FLOAT16", Sizes=sizes)
             for name in TENSORS}
    c = opset.parameter([2, 2], "u8", name="c")
    a = opset.parameter([2, 2], "f16", name="a")
    b = opset.parameter([2, 2], "f16", name="b")
    node = Node(ElementWiseIf(feature_level="2_0", **descs), [c, a, b])
    assert str(node.output_types[0]) == "f16[1,1,2,2]"
    out = Model([node], [c.node, a.node, b.node]).run(
        {"c": np.array([[1, 0], [1, 1]], np.uint8), "a": np.array([[1, 2], [3, 4]], np.float16),
         "b": np.array([[9, 8], [7, 6]], np.float16)})
    assert next(iter(out.values())).reshape(2, 2).tolist() == [[1, 8], [3, 4]]


def test_zero_strides_broadcast_and_boolean_condition() -> None:
    cond = BufferTensorDesc(DataType="UINT8", Sizes=[2, 3], Strides=[1, 0])
    a = BufferTensorDesc(DataType="INT32", Sizes=[2, 3], Strides=[0, 1])
    b = BufferTensorDesc(DataType="INT32", Sizes=[2, 3], Strides=[0, 0])
    op = ElementWiseIf.from_inputs(cond, a, b, "3_0")
    out = op.evaluate(np.array([True, False]), np.array([1, 2, 3], np.int32), np.array([-7], np.int32))[0]
    assert out.dtype == np.int32 and out.tolist() == [[1, 2, 3], [-7, -7, -7]]
    with pytest.raises(EvaluationError, match="too small"):
        op.evaluate(np.array([True]), np.array([1, 2, 3], np.int32), np.array([-7], np.int32))


def test_strided_output_is_written_into_its_buffer() -> None:
    plain = {"DataType": "FLOAT32", "Sizes": [2]}
    op = ElementWiseIf(ConditionTensor={"DataType": "UINT8", "Sizes": [2]}, ATensor=plain, BTensor=plain,
                       OutputTensor={"DataType": "FLOAT32", "Sizes": [2], "Strides": [2]}, feature_level="3_0")
    assert str(op.output_type()) == "f32[3]"
    out = op.evaluate(np.array([1, 0], np.uint8), np.array([1, 2], np.float32), np.array([8, 9], np.float32))[0]
    assert out.tolist() == [1, 0, 9]


def test_infer_checks_graph_inputs_against_descs() -> None:
    desc = {"DataType": "FLOAT32", "Sizes": [4]}
    op = ElementWiseIf(ConditionTensor={"DataType": "UINT8", "Sizes": [4]}, ATensor=desc, BTensor=desc,
                       OutputTensor=desc, feature_level="5_0")
    c, a = opset.parameter([4], "boolean"), opset.parameter([4], "f32")
    with pytest.raises(InferenceError, match=r"input 2 \('BTensor'\) has element type f16 but its desc says FLOAT32"):
        Node(op, [c, a, opset.parameter([4], "f16")])
    with pytest.raises(InferenceError, match=r"input 1 \('ATensor'\) \[3\] holds 3 elements; .* reads 4"):
        Node(op, [c, opset.parameter([3], "f32"), a])


def test_directmlx_if_copies_a_into_the_output() -> None:
    require_shared(CASES_NAME)
    case = load_cases("directmlx")[0]
    cond, a, b = (BufferTensorDesc(**d) for d in case["inputs"])
    op = ElementWiseIf.from_inputs(cond, a, b)
    expected = case["expect"]["OutputTensor"]
    assert op.OutputTensor.DataType.value == expected["DataType"]
    assert op.OutputTensor.Sizes == expected["Sizes"] and op.OutputTensor.Strides is expected["Strides"]
    op.validate_descs()


def test_registry_resolves_directml_spellings() -> None:
    from graphir.ops.registry import lookup

    assert lookup("directml", "DML_OPERATOR_ELEMENT_WISE_IF") is ElementWiseIf
    assert lookup("directml", "ELEMENT_WISE_IF") is ElementWiseIf
    assert lookup("directml", "ElementWiseIf", "1") is ElementWiseIf
