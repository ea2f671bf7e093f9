"""The IR reader's fast paths build exactly the model the careful two-pass path builds, on every
IR file OpenVINO wrote for the tests, and hand anything unusual to the careful path (whose
messages the bad-input tests pin): the scanning path (``ir_scan`` + ``ir_scanned_reader``, no
XML tree for the layers) and the one-pass tree path (``_Reader._read_in_order``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir.model import Model
from graphir.serializers import ir_reader, openvino_xml
from graphir.serializers.openvino_xml import read_ir

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [p for p in (ROOT / "tests" / "fixtures").rglob("*.xml")] + [ROOT / "examples" / "select.xml"],
    key=str,
)


def _no_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openvino_xml, "scan_ir", lambda text: None)


def _careful_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Any, root: Any, layers_el: Any) -> Model:
        raise ir_reader._Fallback

    _no_scan(monkeypatch)
    monkeypatch.setattr(ir_reader._Reader, "_read_in_order", refuse)


def _summary(model: Model) -> list[Any]:
    """Everything a model holds, in its own order (bodies included)."""
    out: list[Any] = [model.name, model.meta, model.rt_info, [p.id for p in model.parameters],
                      [r.id for r in model.results]]
    for node in model.nodes():
        attrs = {}
        for name, value in node.op.attributes().items():
            attrs[name] = _summary(value) if isinstance(value, Model) else value
        out.append((node.id, node.name, node.op.describe(), attrs,
                    [str(t) for t in node.output_types], [t.value is None for t in node.output_types],
                    node.output_names, [(s.node.id, s.index) if s is not None else None for s in node.inputs],
                    node.rt_info, node.extra))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_scanning_one_pass_and_careful_readers_agree(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scanned = read_ir(path)
    with monkeypatch.context() as m:
        _no_scan(m)
        one_pass = read_ir(path)
    with monkeypatch.context() as m:
        _careful_only(m)
        careful = read_ir(path)
    assert _summary(scanned) == _summary(careful)
    assert _summary(one_pass) == _summary(careful)


def test_the_fast_readers_take_the_files_openvino_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scanning path reads the corpus (OpenVINO's own files); without it, the one-pass path does."""
    corpus = sorted((ROOT / "tests" / "fixtures" / "corpus").glob("*.xml"))
    assert len(corpus) >= 20
    scanned: list[str] = []
    real_scanned = openvino_xml.read_scanned

    def spy_scanned(reader: Any, scan: Any, root: Any) -> Model:
        model = real_scanned(reader, scan, root)
        scanned.append(reader.file)
        return model

    with monkeypatch.context() as m:
        m.setattr(openvino_xml, "read_scanned", spy_scanned)
        for path in corpus:
            read_ir(path)
    assert scanned == [str(p) for p in corpus]

    taken: list[str] = []
    real = ir_reader._Reader._read_in_order

    def spy(self: Any, root: Any, layers_el: Any) -> Model:
        model = real(self, root, layers_el)
        taken.append(self.file)
        return model

    _no_scan(monkeypatch)
    monkeypatch.setattr(ir_reader._Reader, "_read_in_order", spy)
    for path in corpus:
        read_ir(path)
    assert taken == [str(p) for p in corpus]


def test_layers_out_of_order_take_the_careful_path_and_read_the_same(tmp_path: Path) -> None:
    src = ROOT / "examples" / "select.xml"
    text = src.read_text()
    layers = text[text.index("<layers>") + len("<layers>"):text.index("</layers>")]
    blocks = ["\t\t<layer" + b for b in layers.split("\t\t<layer")[1:]]
    reordered = text.replace(layers, "\n" + "".join(reversed(blocks)) + "\t")
    (tmp_path / "rev.xml").write_text(reordered)
    (tmp_path / "rev.bin").write_bytes(src.with_suffix(".bin").read_bytes() if src.with_suffix(".bin").exists() else b"")
    a, b = read_ir(src), read_ir(tmp_path / "rev.xml")
    assert sorted(n.id for n in a.nodes()) == sorted(n.id for n in b.nodes())
    inputs = {"cond": np.array([[True, False], [True, False], [True, False]]),
              "then": np.full((3, 2), 11, np.int32), "else": np.full((3, 2), 1, np.int32)}
    names = [p.name for p in a.parameters]
    feed = dict(zip(names, inputs.values()))
    np.testing.assert_array_equal(list(graphir.run(a, feed).values())[0], list(graphir.run(b, feed).values())[0])


def test_ops_copied_from_one_template_share_no_lists(tmp_path: Path) -> None:
    """Two layers with the same attribute text become ops copied from one validated template:
    their list attributes must be separate lists."""
    from graphir import opset

    x = opset.parameter([1, 1, 8, 8], "f32", name="x")
    p1 = opset.make("MaxPool", x, version="opset1", kernel=[2, 2], strides=[1, 1], pads_begin=[0, 0],
                    pads_end=[0, 0], name="p1")
    p2 = opset.make("MaxPool", p1, version="opset1", kernel=[2, 2], strides=[1, 1], pads_begin=[0, 0],
                    pads_end=[0, 0], name="p2")
    graphir.save_model(graphir.Model([p2], [x], name="pools"), tmp_path / "pools.xml")
    model = read_ir(tmp_path / "pools.xml")
    a, b = model.node("p1").op, model.node("p2").op
    assert a.kernel == b.kernel == [2, 2] and a.kernel is not b.kernel and a.strides is not b.strides
    a.kernel.append(9)
    assert b.kernel == [2, 2]
    # one fields-set for both (fewer objects to track) until one of them is assigned to
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    a.rounding_type = "ceil"
    assert a.__pydantic_fields_set__ is not b.__pydantic_fields_set__
    assert b.model_fields_set == {"pads_end", "strides", "rounding_type", "auto_pad", "pads_begin", "kernel"}
    assert b.rounding_type == "floor"
    again = read_ir(tmp_path / "pools.xml")
    assert again.node("p1").op.kernel == [2, 2]


def test_ports_hold_only_valid_dims_is_a_strict_check() -> None:
    from graphir.serializers.ir_reader import ports_hold_only_valid_dims

    text = (ROOT / "examples" / "select.xml").read_bytes()
    assert ports_hold_only_valid_dims(text)
    assert not ports_hold_only_valid_dims(text.replace(b"<dim>3</dim>", b"<dim>?</dim>", 1))
    assert not ports_hold_only_valid_dims(text.replace(b"<dim>3</dim>", b"<dim>-2</dim>", 1))
    assert not ports_hold_only_valid_dims(text.replace(b"<dim>3</dim>", b"<dim>&#51;</dim>", 1))
    assert not ports_hold_only_valid_dims(text.replace(b"<dim>3</dim>", b"<dim>3</dim><!-- x -->", 1))
    assert not ports_hold_only_valid_dims(text.replace(
        b"<dim>3</dim>", b'<dim>3</dim><rt_info><attribute name="layout" version="0" layout="[N]"/></rt_info>', 1))


def test_a_bad_dim_on_a_known_op_is_still_an_error(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "select.xml").read_text()
    at = text.index('type="Select"')
    bad = text[:at] + text[at:].replace("<dim>3</dim>", "<dim>?</dim>", 1)
    (tmp_path / "bad.xml").write_text(bad)
    with pytest.raises(graphir.errors.SerializationError, match=r"<dim>\?</dim> is not an integer"):
        read_ir(tmp_path / "bad.xml")
