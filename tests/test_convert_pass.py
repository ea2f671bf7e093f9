"""The dialect-conversion pass itself (graphir.convert.base), independent of any dialect pair."""
from __future__ import annotations

import pytest

import graphir
from graphir import opset
from graphir.convert.base import _CONVERTERS, convert_model, register_converter
from graphir.errors import ConversionError


def test_same_dialect_copy_keeps_serializer_data() -> None:
    x = opset.parameter("[2]", "f32", name="x")
    m = graphir.Model([opset.relu(x)], [x])
    m.parameters[0].extra["kept"] = {"id": 7}
    copy = convert_model(m, "openvino")
    assert copy.parameters[0].extra == {"kept": {"id": 7}}
    assert copy.parameters[0] is not m.parameters[0]


def test_an_output_without_counterpart_is_reported_not_skipped() -> None:
    x = opset.parameter("[4]", "f32", name="x")
    values, indices = opset.topk(x, opset.constant(2, "i64"), axis=0, mode="max", sort="value").outputs()
    m = graphir.Model([opset.relu(values), opset.relu(opset.convert(indices, destination_type="f32"))], [x])

    @register_converter("openvino", "directml", "TopK")
    def _first_output_only(node, inputs, **options):  # a converter that drops output 1
        return [inputs[0]]

    try:
        with pytest.raises(ConversionError) as err:
            convert_model(m, "directml")
    finally:
        _CONVERTERS.pop(("openvino", "directml", "TopK"))
    text = str(err.value)
    assert "reads output 1 of" in text and "TopK" in text
