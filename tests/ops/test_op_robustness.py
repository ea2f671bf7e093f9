"""Every op of this family, fed odd inputs (dynamic rank and type, scalars, zero-size, booleans),
either infers or raises a graphir error that names the node: never a bare Python exception and
never the interpreter's "shape inference failed" wrapper, which marks a bug in an op's infer."""
from __future__ import annotations

import pytest

from graphir import opset
from graphir.errors import GraphirError
from graphir.node import Node
from graphir.ops.registry import all_ops

MODULES = {"elementwise", "unary", "activations", "conversion", "shape_ops", "gather_scatter", "slicing", "sequence",
           "layout", "bitwise", "float_checks", "scaled_activations", "reorder", "search"}
REQUIRED = {"destination_type": "f32", "output_type": "i64", "special_zero": True, "axis": 0, "num_splits": 1,
            "sort": "value", "begin_mask": [], "end_mask": [], "alpha": 1.0, "min": 0.0, "max": 1.0}
OPS = [cls for cls in all_ops("openvino") if cls.__module__.rsplit(".", 1)[-1] in MODULES]


def _attributes(cls) -> dict:
    attrs = {}
    for name, field in cls.model_fields.items():
        if not field.is_required():
            continue
        if name == "mode":
            text = str(field.annotation)
            attrs[name] = "index" if "index" in text else "blocks_first" if "blocks" in text else "max"
        else:
            attrs[name] = REQUIRED[name]
    return attrs


def test_the_family_is_registered() -> None:
    names = {cls.type_name for cls in OPS}
    assert {"Add", "Less", "LogicalNot", "Relu", "Softmax", "Convert", "Reshape", "Gather", "StridedSlice",
            "TopK", "Pad", "Roll", "Eye"} <= names
    assert len(OPS) >= 115


@pytest.mark.parametrize("cls", OPS, ids=lambda c: f"{c.type_name}-{c.version}")
def test_odd_inputs_never_escape_as_bugs(cls) -> None:
    low, high = cls.input_count_range()
    count = low if high is None else high
    for shape, et in [("[...]", "dynamic"), ("[]", "dynamic"), ("[?,?]", "i64"), ("[0]", "f32"), ("[2,3]", "boolean")]:
        try:
            Node(cls(**_attributes(cls)), [opset.parameter(shape, et) for _ in range(max(count, 1))])
        except GraphirError as exc:
            message = str(exc)
            assert "shape inference failed" not in message, message
            assert cls.type_name in message and shape.strip("[]") in message, message
