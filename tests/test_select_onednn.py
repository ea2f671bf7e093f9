"""oneDNN Graph Select against every onednn line of the conformance cases, plus the spec examples."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphir import opset
from graphir.errors import GraphirError, InferenceError, OpDefinitionError
from graphir.node import Node
from graphir.ops.base import TensorType
from graphir.ops.onednn.select import Select
from graphir.shapes import PartialShape
from graphir.types import ElementType

from tests.shared_data import SHARED, or_absent, shared_case

CASES_NAME = "conformance/select_cases.jsonl"
CASES_FILE = SHARED / CASES_NAME
UNKNOWN_DIM = -9223372036854775808


def load_cases(dialect: str) -> list[dict[str, Any]]:
    """The conformance cases of one dialect; none when ../shared is absent (see or_absent)."""
    if not CASES_FILE.is_file():
        return []
    cases = [json.loads(line) for line in CASES_FILE.read_text().splitlines() if line.strip()]
    return [c for c in cases if c["dialect"] == dialect]


def _tensor(desc: dict[str, Any]) -> TensorType:
    et = ElementType.parse(desc["dtype"]) if desc["dtype"] == "boolean" else ElementType.from_onednn(desc["dtype"])
    shape = PartialShape(["?" if d == UNKNOWN_DIM else d for d in desc["shape"]])
    return TensorType(et, shape)


def _params(types_: list[TensorType]) -> list:
    return [opset.parameter(t.shape, t.element_type) for t in types_]


def run_case(case: dict[str, Any]) -> TensorType:
    """Build the op (add_op), infer (shape_infer), reconcile a declared output; raise on failure."""
    op = Select(**case.get("attrs", {}))
    inputs = [_tensor(d) for d in case["inputs"]]
    if case["expect"].get("stage") == "graph.infer_shape":
        return op.infer_known(inputs)[0]
    node = Node(op, _params(inputs))
    out = node.output_types[0]
    if "output" in case:
        out = op.check_output(out, _tensor(case["output"]))
    return out


def case_params(cases: list[dict[str, Any]]) -> list[Any]:
    """Cases as parameters with their ids; one absent case (skipped in the test) without the data."""
    return or_absent([pytest.param(c, id=c["id"]) for c in cases])


def the_case(case: dict[str, Any] | None) -> dict[str, Any]:
    return shared_case(case, CASES_NAME)


SHAPE_CASES = [c for c in load_cases("onednn") if not c.get("eval")]
EVAL_CASES = [c for c in load_cases("onednn") if c.get("eval")]


@pytest.mark.parametrize("case", case_params(SHAPE_CASES))
def test_conformance_case(case: dict[str, Any]) -> None:
    case = the_case(case)
    expect = case["expect"]
    if expect["ok"]:
        out = run_case(case)
        assert out.shape == PartialShape(expect["shape"]), case.get("note")
        assert out.element_type == _tensor(case["inputs"][1]).element_type
        return
    with pytest.raises(GraphirError) as info:
        run_case(case)
    message = str(info.value)
    if expect["stage"] == "add_op":
        # attribute problems fail at construction; type and arity problems name types or inputs
        assert isinstance(info.value, OpDefinitionError) or "data type" in message or "inputs, got" in message, message
    else:
        assert "invalid shape" in message and "Select-1" in message, message


@pytest.mark.parametrize("case", case_params(EVAL_CASES))
def test_conformance_evaluation(case: dict[str, Any]) -> None:
    case = the_case(case)
    arrays = [np.asarray(d["value"], dtype=_tensor(d).element_type.numpy_dtype) for d in case["inputs"]]
    op = Select(**case.get("attrs", {}))
    op.infer([_tensor(d) for d in case["inputs"]])
    out = op.evaluate(*arrays)[0]
    assert out.dtype == np.float32
    assert out.tolist() == case["expect"]["value"]


@pytest.mark.parametrize("cond,ok", [("[4,5]", True), ("[3,1,5]", True), ("[3,5]", False)])
def test_spec_examples(cond: str, ok: bool) -> None:
    types_ = [TensorType.of("boolean", cond), TensorType.of("f32", "[2,3,4,5]"), TensorType.of("f32", "[2,3,4,5]")]
    if ok:
        assert Select().infer(types_)[0] == TensorType.of("f32", "[2,3,4,5]")
    else:
        with pytest.raises(InferenceError, match=r"cond \[3,5\] cannot be one-way broadcast to dst \[2,3,4,5\]"):
            Select().infer(types_)


def test_cond_of_higher_rank_differs_from_openvino(ov) -> None:
    """oneDNN: cond may not enlarge dst. OpenVINO Select-1 (numpy) lets it, on the real runtime."""
    import openvino.opset1 as ops

    types_ = [TensorType.of("boolean", "[2,3,4,5]"), TensorType.of("f32", "[4,5]"), TensorType.of("f32", "[4,5]")]
    with pytest.raises(InferenceError, match="one-way"):
        Select().infer(types_)
    ov_node = ops.select(*[ops.parameter(list(t.shape.to_shape()), getattr(ov.Type, str(t.element_type)))
                           for t in types_])
    assert str(ov_node.get_output_partial_shape(0)) == "[2,3,4,5]"
    assert opset.select(*_params(types_)).partial_shape == PartialShape.parse("[2,3,4,5]")


def test_partial_shapes_infer_without_known_dims() -> None:
    types_ = [TensorType.of("boolean", "[?,1]"), TensorType.of("bf16", "[?,4]"), TensorType.of("bf16", "[3,1]")]
    assert Select().infer(types_)[0] == TensorType.of("bf16", "[3,4]")
    with pytest.raises(InferenceError, match=r"input 0 \('cond'\) has shape \[\?,1\]"):
        Select().infer_known(types_)


def test_error_messages_name_inputs_and_types() -> None:
    with pytest.raises(InferenceError, match=r"input 0 \('cond'\) has data type u8, expected boolean"):
        Select().infer([TensorType.of("u8", "[2]"), TensorType.of("f32", "[2]"), TensorType.of("f32", "[2]")])
    with pytest.raises(InferenceError, match=r"input 2 \('src_1'\) has data type bf16 but input 1 \('src_0'\) has f32"):
        Select().infer([TensorType.of("boolean", "[2]"), TensorType.of("f32", "[2]"), TensorType.of("bf16", "[2]")])
    with pytest.raises(InferenceError, match=r"src_0 \[2,3\] and src_1 \[4,3\] do not broadcast"):
        Select().infer([TensorType.of("boolean", "[3]"), TensorType.of("f32", "[2,3]"), TensorType.of("f32", "[4,3]")])
    with pytest.raises(OpDefinitionError, match="auto_broadcast"):
        Select(auto_broadcast="pdpd")


def test_registered_in_the_onednn_dialect() -> None:
    from graphir.ops.registry import lookup

    assert lookup("onednn", "Select", "1") is Select
    assert lookup("openvino", "Select", "opset1") is not Select
