"""Reading IR files that OpenVINO wrote (tests/gen_ir_fixtures.py), the shipped example, and one
``<layer>`` on its own: values, shapes, names, rt_info, versions and opaque ops as the file has them."""
from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from lxml import etree

import graphir
from graphir.errors import UnsupportedOpError
from graphir.ops.opaque import OpaqueOp
from graphir.ops.openvino.core import Constant
from graphir.serializers.openvino_xml import read_layer, split_names, join_names, write_layer
from graphir.shapes import PartialShape
from graphir.types import ElementType

from tests.conftest import SHARED
from tests.ir_helpers import EXAMPLES, FIXTURES, IR

SEED_INPUTS = {
    "cond": np.array([[False, False], [True, False], [True, True]]),
    "then": np.array([[-1, 0], [1, 2], [3, 4]], np.int32),
    "else": np.array([[11, 10], [9, 8], [7, 6]], np.int32),
}
SEED_OUTPUT = np.array([[11, 10], [1, 8], [3, 4]], np.int32)


def test_fixtures_exist() -> None:
    assert len(FIXTURES) >= 10


@pytest.mark.parametrize("xml", FIXTURES, ids=[x.stem for x in FIXTURES])
def test_every_fixture_reads_with_every_layer(xml) -> None:
    model = graphir.read_model(xml)
    layers = etree.parse(str(xml)).getroot().find("layers")
    expected = {(int(el.get("id")), el.get("name"), el.get("version")) for el in layers}
    assert {(n.id, n.name, n.extra.get("ir_version", n.version)) for n in model.nodes()} == expected
    assert model.meta["ir_version"] == int(etree.parse(str(xml)).getroot().get("version"))


def _by_name(model: graphir.Model, name: str):
    return model.node(name)


def test_constants_of_every_element_type() -> None:
    model = graphir.read_model(IR / "consts.xml")
    expected = json.loads((IR / "consts.json").read_text())
    for name, values in expected.items():
        op = _by_name(model, f"const_{name}").op
        assert isinstance(op, Constant)
        et = ElementType.parse(name)
        assert op.element_type is et and op.shape == [len(values)]
        got = op.value
        if et is ElementType.string:
            assert list(got) == values
        elif et is ElementType.nf4:  # codes: -1.0 is 0, 0.0 is 7, 1.0 is 15
            np.testing.assert_array_equal(got, [0, 7, 15])
        elif et is ElementType.u1:
            np.testing.assert_array_equal(got, values)
        else:
            np.testing.assert_array_equal(np.asarray(got).astype(np.float64) if et.is_real else got,
                                          np.asarray(values, dtype=et.numpy_dtype).astype(np.float64)
                                          if et.is_real else np.asarray(values, dtype=et.numpy_dtype))
            assert got.dtype == et.numpy_dtype


def test_sub_byte_values_are_exact() -> None:
    model = graphir.read_model(IR / "consts.xml")
    assert _by_name(model, "const_i4").op.value.astype(np.int8).tolist() == [-1, 2, -8, 7, 0]
    assert _by_name(model, "const_u2").op.value.astype(np.uint8).tolist() == [0, 1, 2, 3, 1]
    assert _by_name(model, "const_f4e2m1").op.value.dtype == ml_dtypes.float4_e2m1fn
    assert _by_name(model, "const_u1").op.value.tolist() == [1, 0, 0, 0, 0, 0, 0, 0, 1, 1]


def test_large_constant_not_read_until_value(tmp_path) -> None:
    c = graphir.opset.constant(np.arange(10_000, dtype=np.float32), name="big")
    model = graphir.Model([c], [], name="big")
    graphir.save_model(model, tmp_path / "big.xml")
    back = graphir.read_model(tmp_path / "big.xml")
    op = back.node("big").op
    assert not op.is_loaded
    assert back.node("big").output_types[0].shape == PartialShape([10_000])
    np.testing.assert_array_equal(op.value, np.arange(10_000, dtype=np.float32))
    assert op.is_loaded


def test_dynamic_and_interval_dims() -> None:
    model = graphir.read_model(IR / "dynamic.xml")
    x = model.node("x")
    assert str(x.op.shape) == "[?,1..10,2..,..6,3]"
    assert model.node("y").op.shape.rank_is_dynamic
    assert str(model.node("sel").output_types[0]) == "f32[?,1..10,2..,..6,3]"  # re-inferred, not -1
    assert model.node("add").output_types[0].shape.rank_is_dynamic


def test_names_with_commas_and_escapes() -> None:
    model = graphir.read_model(IR / "names.xml")
    assert model.name == "names, with & <xml>"
    assert model.node("a").output_names[0] == {"a,b", "plain", "x\\y"}
    sel = model.node("sel,ect")
    assert sel.output_names[0] == {"out,1", "out 2"}
    result = model.get_results()[0]
    assert result.output_names[0] == set()  # no output_names in this file: the producer's names serve
    assert split_names("a\\,b,plain") == {"a,b", "plain"}
    assert join_names({"b", "a,c"}) == "a\\,c,b"


def test_rt_info_at_net_layer_and_port_level() -> None:
    model = graphir.read_model(IR / "rt_info.xml")
    assert model.rt_info["custom"] == {"key": "custom_value", "list": "a b c"}
    assert model.rt_info["top"] == "1.5"
    x = model.node("x")
    assert x.extra["ir_output_rt_info"][0]["layout"] == {"version": "0", "layout": "[N,C,H,W]"}
    fp16 = graphir.read_model(Path(__file__).resolve().parent / "fixtures" / "corpus" / "mlp_fp16.xml")
    converts = [n for n in fp16.nodes() if "decompression" in n.rt_info]
    assert converts and converts[0].rt_info["decompression"] == {"version": "0"}


def test_ir_v10_and_v11() -> None:
    v10 = graphir.read_model(IR / "select_v10.xml")
    v11 = graphir.read_model(IR / "select_v11.xml")
    assert v10.meta["ir_version"] == 10 and v11.meta["ir_version"] == 11
    assert v11.get_results()[0].output_names[0] == {"out"}
    for model in (v10, v11):
        out = list(model.run(SEED_INPUTS).values())[0]
        np.testing.assert_array_equal(out, SEED_OUTPUT)


def test_pdpd_axis_is_read() -> None:
    model = graphir.read_model(IR / "select_pdpd.xml")
    op = model.node("sel").op
    assert op.auto_broadcast == "pdpd" and op.axis == 0
    assert str(model.node("sel").output_types[0]) == "f32[2,3,4]"


def test_unknown_op_is_opaque_with_recorded_types() -> None:
    model = graphir.read_model(IR / "unknown_op.xml")
    node = next(n for n in model.nodes() if n.type_name == "CustomImagePatches")
    assert isinstance(node.op, OpaqueOp) and node.version == "extension"
    assert node.op.attrs["sizes"] == "2, 2" and node.op.attrs["auto_pad"] == "valid"
    assert str(node.output_types[0]) == "f32[1,4,2,2]"
    with pytest.raises(UnsupportedOpError, match=rf"layer id={node.id} name='{node.name}' type=CustomImagePatches version=extension"):
        node.infer()
    with pytest.raises(UnsupportedOpError, match="cannot run"):
        model.run({"x": np.zeros([1, 1, 4, 4], np.float32)})


def test_if_bodies_are_models() -> None:
    model = graphir.read_model(IR / "if.xml")
    node = next(n for n in model.nodes() if n.type_name == "If")
    holder = node.op.children if isinstance(node.op, OpaqueOp) else node.op.attributes()
    then_body, else_body = holder["then_body"], holder["else_body"]
    assert isinstance(then_body, graphir.Model) and isinstance(else_body, graphir.Model)
    assert {n.type_name for n in then_body.nodes()} == {"Parameter", "Constant", "Add", "Result"}
    assert str(then_body.get_results()[0].output_types[0]) == "f32[2,2]"
    port_map = holder.get("then_port_map") or holder.get("then_input_descriptions")
    assert {"tag": "input", "external_port_id": 1, "internal_layer_id": 0} in port_map \
        or {"external_port_id": 1, "internal_layer_id": 0} in port_map


def test_example_select_loads_infers_and_runs() -> None:
    model = graphir.read_model(EXAMPLES / "select.xml")
    model.infer_shapes()
    assert str(model.get_results()[0].output_types[0]) == "i32[3,2]"
    out = model.run(SEED_INPUTS)
    np.testing.assert_array_equal(out["out"], SEED_OUTPUT)
    sel = model.node("select")
    assert sel.version == "opset1" and sel.op.auto_broadcast == "numpy"


def test_example_select_runs_in_openvino(ov) -> None:
    compiled = ov.Core().compile_model(str(EXAMPLES / "select.xml"), "CPU")
    out = compiled([SEED_INPUTS["cond"], SEED_INPUTS["then"], SEED_INPUTS["else"]])
    np.testing.assert_array_equal(out[compiled.outputs[0]], SEED_OUTPUT)


def _seed_layer() -> str:
    text = (SHARED / "seeds" / "openvino-select-1.txt").read_text()
    return text[text.index("<layer ..."): text.index("</layer>") + len("</layer>")]


def test_single_layer_from_the_spec(shared_dir) -> None:
    node = read_layer(_seed_layer())
    assert node.type_name == "Select" and node.version == "opset1"
    assert [str(t.shape) for t in node.input_types()] == ["[3,2]"] * 3
    assert str(node.output_types[0].shape) == "[3,2]"
    text = write_layer(node)
    assert '<port id="3"' in text and 'type="Select"' in text and 'auto_broadcast="numpy"' in text
    again = read_layer(text)
    assert again.op == node.op and str(again.output_types[0].shape) == "[3,2]"


def test_single_layer_with_precisions() -> None:
    xml = """<layer id="7" name="sel" type="Select" version="opset1"><data auto_broadcast="none"/>
      <input><port id="0" precision="BOOL"><dim>2</dim></port><port id="1" precision="FP32"><dim>2</dim></port>
      <port id="2" precision="FP32"><dim>2</dim></port></input>
      <output><port id="3" precision="FP32" names="y"><dim>2</dim></port></output></layer>"""
    node = read_layer(xml)
    assert node.id == 7 and node.name == "sel" and node.op.auto_broadcast == "none"
    assert str(node.output_types[0]) == "f32[2]" and node.output_names[0] == {"y"}
