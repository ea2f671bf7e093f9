"""Writing IR: read -> write -> read keeps the model; what we write of an OpenVINO-written file is
canonical-equal to it (.bin byte-equal); OpenVINO reads what we write and computes the same."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import SerializationError
from graphir.serializers.openvino_xml import read_ir, write_ir, write_ir_string

from tests.ir_helpers import EXAMPLES, FIXTURES, IR, canonical, first_difference, model_summary

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
OPENVINO_WRITTEN = FIXTURES + [EXAMPLES / "select.xml"] + sorted(CORPUS.glob("*.xml"))[:6]


@pytest.mark.parametrize("xml", OPENVINO_WRITTEN, ids=[x.stem for x in OPENVINO_WRITTEN])
def test_write_is_canonical_equal_to_openvino(xml: Path, tmp_path: Path) -> None:
    model = graphir.read_model(xml)
    graphir.save_model(model, tmp_path / "out.xml")
    diff = first_difference(canonical(xml), canonical(tmp_path / "out.xml"))
    assert diff is None, diff
    original_bin = xml.with_suffix(".bin")
    if original_bin.exists():
        assert (tmp_path / "out.bin").read_bytes() == original_bin.read_bytes()


@pytest.mark.parametrize("xml", FIXTURES, ids=[x.stem for x in FIXTURES])
def test_read_write_read_is_equal(xml: Path, tmp_path: Path) -> None:
    first = graphir.read_model(xml)
    graphir.save_model(first, tmp_path / "a.xml")
    second = graphir.read_model(tmp_path / "a.xml")
    assert model_summary(second) == model_summary(first)
    assert second.rt_info == first.rt_info and second.name == first.name
    assert second.meta["ir_version"] == first.meta["ir_version"]


def test_constants_written_from_values_match_openvino_packing(tmp_path: Path) -> None:
    """Forget the file's bytes: pack every element type from the unpacked values again."""
    model = graphir.read_model(IR / "consts.xml")
    for node in model.nodes():
        if node.type_name == "Constant":
            node.op._data = np.array(node.op.value, copy=True)  # loaded, so the writer packs the values
            node.op._loader = None
    graphir.save_model(model, tmp_path / "c.xml")
    assert (tmp_path / "c.bin").read_bytes() == (IR / "consts.bin").read_bytes()
    assert canonical(tmp_path / "c.xml") == canonical(IR / "consts.xml")


def test_identical_constants_are_deduplicated() -> None:
    a = opset.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
    b = opset.constant(np.arange(6, dtype=np.float32).reshape(3, 2), name="b")
    c = opset.constant(np.arange(6, dtype=np.int32), name="c")
    xml, blob = write_ir_string(graphir.Model([a, b, c], [], name="dedup"))
    assert len(blob) == 24 + 24
    assert xml.count(b'offset="0" size="24"') == 2


def _ov_run(ov, path: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(ov.Core().read_model(str(path)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled(inputs)
    return [np.asarray(result[o]) for o in compiled.outputs]


@pytest.mark.parametrize("name", ["torch_cnn", "torch_mlp", "if", "names", "select_v10", "select_v11", "rt_info"])
def test_openvino_runs_what_we_write(ov, name: str, tmp_path: Path) -> None:
    xml = IR / f"{name}.xml"
    reference = ov.Core().read_model(str(xml))
    rng = np.random.default_rng(0)
    inputs = []
    for port in reference.inputs:
        saved = IR / f"{name}_input.npy"
        if saved.exists():
            inputs.append(np.load(saved))
            continue
        shape = [d.get_length() for d in port.get_partial_shape()]
        if port.get_element_type() == ov.Type.boolean:
            inputs.append(rng.random(shape) > 0.5)
        else:
            inputs.append(rng.standard_normal(shape).astype(port.get_element_type().to_dtype()))
    graphir.save_model(graphir.read_model(xml), tmp_path / "w.xml")
    expected = _ov_run(ov, xml, inputs)
    got = _ov_run(ov, tmp_path / "w.xml", inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    ours = ov.Core().read_model(str(tmp_path / "w.xml"))
    assert [o.get_names() for o in ours.outputs] == [o.get_names() for o in reference.outputs]
    assert [str(o.get_partial_shape()) for o in ours.inputs] == [str(o.get_partial_shape()) for o in reference.inputs]


def test_builder_model_round_trips_through_openvino(ov, tmp_path: Path) -> None:
    c = opset.parameter("[?,4]", "boolean", name="cond")
    a = opset.parameter("[?,4]", "f32", name="a")
    k = opset.constant(np.linspace(-1, 1, 4, dtype=np.float32), name="k")
    y = opset.select(c, a, k, name="sel")
    model = graphir.Model([y], [c, a], name="built")
    graphir.save_model(model, tmp_path / "b.xml")
    inputs = {"cond": np.array([[True, False, True, False], [False] * 4]),
              "a": np.arange(8, dtype=np.float32).reshape(2, 4)}
    ours = list(model.run(inputs).values())[0]
    compiled = ov.Core().compile_model(str(tmp_path / "b.xml"), "CPU")
    theirs = compiled([inputs["cond"], inputs["a"]])[compiled.outputs[0]]
    np.testing.assert_array_equal(ours, theirs)
    assert str(ov.Core().read_model(str(tmp_path / "b.xml")).inputs[0].get_partial_shape()) == "[?,4]"


def test_interval_parameter_survives(ov, tmp_path: Path) -> None:
    model = graphir.read_model(IR / "dynamic.xml")
    graphir.save_model(model, tmp_path / "d.xml")
    theirs = ov.Core().read_model(str(tmp_path / "d.xml"))
    assert str(theirs.input("x").get_partial_shape()) == "[?,1..10,2..,..6,3]"
    assert str(theirs.output(0).get_partial_shape()) == "[?,1..10,2..,..6,3]"


def test_pdpd_axis_written_for_openvino(ov, tmp_path: Path) -> None:
    c = opset.parameter([4, 5], "boolean", name="c")
    a = opset.parameter([2, 3, 4, 5], "f32", name="a")
    b = opset.parameter([4, 5], "f32", name="b")
    y = opset.make("Select", c, a, b, auto_broadcast="pdpd", axis=-1)
    graphir.save_model(graphir.Model([y], [c, a, b], name="pdpd"), tmp_path / "p.xml")
    text = (tmp_path / "p.xml").read_text()
    assert 'auto_broadcast="pdpd" auto_broadcast.auto_broadcast_axis="-1"' in text
    assert str(ov.Core().read_model(str(tmp_path / "p.xml")).output(0).get_partial_shape()) == "[2,3,4,5]"
    back = graphir.read_model(tmp_path / "p.xml")
    assert back.node(y.node.id).op.axis == -1


def test_write_v10_drops_what_v10_lacks(ov, tmp_path: Path) -> None:
    model = graphir.read_model(IR / "rt_info.xml")
    write_ir(model, tmp_path / "v10.xml", version=10)
    text = (tmp_path / "v10.xml").read_text()
    assert 'version="10"' in text and "output_names" not in text and "layout" not in text
    assert len(ov.Core().read_model(str(tmp_path / "v10.xml")).outputs) == 1


def test_unknown_attributes_are_kept(tmp_path: Path) -> None:
    text = (EXAMPLES / "select.xml").read_text().replace(
        '<data auto_broadcast="numpy" />', '<data auto_broadcast="NUMPY" future_flag="yes" />')
    model = read_ir(text.encode())
    node = model.node("select")
    assert node.op.auto_broadcast == "numpy" and node.extra["ir_unknown_attributes"] == {"future_flag": "yes"}
    xml, _ = write_ir_string(model)
    assert b'future_flag="yes"' in xml


def test_opset_alias_version_is_kept() -> None:
    text = (EXAMPLES / "select.xml").read_text().replace('type="Select" version="opset1"',
                                                       'type="Select" version="opset8"')
    model = read_ir(text.encode())
    assert type(model.node("select").op).version == "opset1"
    assert b'type="Select" version="opset8"' in write_ir_string(model)[0]


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path: Path, monkeypatch) -> None:
    model = graphir.read_model(EXAMPLES / "select.xml")
    target = tmp_path / "m.xml"
    graphir.save_model(model, target)
    before = target.read_bytes()
    next(n for n in model.nodes() if n.type_name == "Select").name = "renamed"  # a save that must rename

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(SerializationError, match="m.*No space left"):
        graphir.save_model(model, target)
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin", "m.xml"]  # no temp files left


def test_failed_second_rename_restores_the_old_bin(tmp_path: Path, monkeypatch) -> None:
    old = graphir.Model([opset.constant(np.arange(3, dtype=np.int32), name="c")], [], name="old")
    new = graphir.Model([opset.constant(np.arange(5, dtype=np.int64), name="c")], [], name="new")
    target = tmp_path / "m.xml"
    graphir.save_model(old, target)
    before = (target.read_bytes(), (tmp_path / "m.bin").read_bytes())
    real_replace = os.replace

    def replace(src, dst):
        if str(dst).endswith(".xml"):
            raise OSError(13, "Permission denied")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(SerializationError, match="m.xml: cannot write: Permission denied"):
        graphir.save_model(new, target)
    monkeypatch.undo()
    assert (target.read_bytes(), (tmp_path / "m.bin").read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin", "m.xml"]
    np.testing.assert_array_equal(graphir.read_model(target).node("c").op.value, [0, 1, 2])
