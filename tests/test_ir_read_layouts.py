"""The one IR reader reads every layout an XML writer may give the same document (attribute order,
quotes, whitespace, comments, CDATA, character references, encodings, layer order) into the same
model, and it is the only path (no second reader to fall back to).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir.errors import FrozenAttributeError
from graphir.model import Model
from graphir.ops.frozen import FrozenList
from graphir.serializers.openvino_xml import read_ir

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [p for p in (ROOT / "tests" / "fixtures").rglob("*.xml")] + [ROOT / "examples" / "select.xml"],
    key=str,
)


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


def test_layers_out_of_order_read_the_same(tmp_path: Path) -> None:
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
    np.testing.assert_array_equal(list(a.run(feed).values())[0], list(b.run(feed).values())[0])


def test_ops_copied_from_one_template_share_only_frozen_lists(tmp_path: Path) -> None:
    """Two layers with the same attribute text become ops copied from one validated template:
    they may share list attributes because those are frozen (graphir.ops.frozen), so an in-place
    change of one is refused rather than seen by the other."""
    from graphir import opset

    x = opset.parameter([1, 1, 8, 8], "f32", name="x")
    p1 = opset.make("MaxPool", x, version="opset1", kernel=[2, 2], strides=[1, 1], pads_begin=[0, 0],
                    pads_end=[0, 0], name="p1")
    p2 = opset.make("MaxPool", p1, version="opset1", kernel=[2, 2], strides=[1, 1], pads_begin=[0, 0],
                    pads_end=[0, 0], name="p2")
    graphir.save_model(graphir.Model([p2], [x], name="pools"), tmp_path / "pools.xml")
    model = read_ir(tmp_path / "pools.xml")
    a, b = model.node("p1").op, model.node("p2").op
    assert a.kernel == b.kernel == [2, 2] and type(a.kernel) is FrozenList and type(b.strides) is FrozenList
    with pytest.raises(FrozenAttributeError):
        a.kernel.append(9)
    assert a.kernel == b.kernel == [2, 2]
    # one fields-set for both (fewer objects to track); an edit makes a new op with its own
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    model.node("p1").set_attribute("rounding_type", "ceil")
    assert model.node("p1").op.__pydantic_fields_set__ is not b.__pydantic_fields_set__
    assert b.model_fields_set == {"pads_end", "strides", "rounding_type", "auto_pad", "pads_begin", "kernel"}
    assert b.rounding_type == "floor"
    again = read_ir(tmp_path / "pools.xml")
    assert again.node("p1").op.kernel == [2, 2]


def test_a_bad_dim_on_a_known_op_is_still_an_error(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "select.xml").read_text()
    at = text.index('type="Select"')
    bad = text[:at] + text[at:].replace("<dim>3</dim>", "<dim>?</dim>", 1)
    (tmp_path / "bad.xml").write_text(bad)
    with pytest.raises(graphir.errors.SerializationError, match=r"<dim>\?</dim> is not an integer"):
        read_ir(tmp_path / "bad.xml")


# ------------------------------------------------------------------ layouts of one document ==
LAYOUT_FILES = [ROOT / "tests" / "fixtures" / "llm" / "llama-int4asym" / "openvino_model.xml",
                ROOT / "tests" / "fixtures" / "corpus" / "gru_fp16.xml",
                ROOT / "tests" / "fixtures" / "ir" / "if.xml",
                ROOT / "tests" / "fixtures" / "ir" / "rt_info.xml",
                ROOT / "tests" / "fixtures" / "ir" / "unknown_op.xml"]


def _reversed_attributes(text: bytes) -> bytes:
    from lxml import etree

    root = etree.fromstring(text)
    for element in root.iter():
        if isinstance(element.tag, str) and len(element.attrib) > 1:
            items = list(element.attrib.items())
            element.attrib.clear()
            for key, value in reversed(items):
                element.set(key, value)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def _single_quotes(text: bytes) -> bytes:
    import re

    return re.sub(rb'="([^"]*)"', lambda m: b"='" + m[1].replace(b"'", b"&apos;") + b"'", text)


def _spaced_tags(text: bytes) -> bytes:
    import re

    body = re.sub(rb' ([\w.:-]+)="', rb'\n\t \1 =\t"', text[text.index(b"<net"):])
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + body.replace(b"/>", b"\n/>").replace(b"><", b">\r\n  <")


def _comments_cdata_and_references(text: bytes) -> bytes:
    text = text.replace(b"<layer ", b"<!-- a comment, <layer> -->\n<layer ", 3)
    text = text.replace(b"<dim>1</dim>", b"<dim><![CDATA[1]]></dim>", 2).replace(b"<dim>2</dim>", b"<dim>&#50;</dim>", 2)
    text = text.replace(b"</port>", b"<!-- in a port --></port>", 2)
    return text.replace(b'<?xml version="1.0"?>', b'<?xml version="1.0"?>\n<?some-pi data?>', 1)


def _utf16(text: bytes) -> bytes:
    body = text[text.index(b"<net"):].decode("utf-8")
    return ('<?xml version="1.0" encoding="UTF-16"?>\n' + body).encode("utf-16")


def _no_whitespace(text: bytes) -> bytes:
    from lxml import etree

    root = etree.fromstring(text, etree.XMLParser(remove_blank_text=True))
    return etree.tostring(root)


LAYOUTS = {"reversed-attributes": _reversed_attributes, "single-quotes": _single_quotes,
           "spaced-tags": _spaced_tags, "comments-cdata-references": _comments_cdata_and_references,
           "utf-16": _utf16, "no-whitespace": _no_whitespace}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("path", LAYOUT_FILES, ids=lambda p: p.parent.name + "/" + p.name)
def test_every_layout_of_a_document_reads_the_same(path: Path, layout: str, tmp_path: Path) -> None:
    text = path.read_bytes()
    variant = LAYOUTS[layout](text)
    assert variant != text
    other = tmp_path / "variant.xml"
    other.write_bytes(variant)
    other.with_suffix(".bin").write_bytes(path.with_suffix(".bin").read_bytes())
    assert _summary(read_ir(other)) == _summary(read_ir(path))


def test_the_reader_is_one_path() -> None:
    """No second reader: the scanning modules are gone and reading goes parse -> _Reader.read_net."""
    import importlib.util

    assert importlib.util.find_spec("graphir.serializers.ir_scan") is None
    assert importlib.util.find_spec("graphir.serializers.ir_scanned_reader") is None
    from graphir.serializers import ir_reader

    assert not hasattr(ir_reader._Reader, "_read_in_order") and not hasattr(ir_reader, "_Fallback")


def test_dims_checked_at_once_still_name_the_port_and_keep_port_rt_info(tmp_path: Path) -> None:
    """The document's dims are checked together (XPath counts and one pass over their texts); a bad
    one is reported port by port as before, and ports holding rt_info beside dims keep it even when
    some <dim> lies elsewhere (the counts then disagree and every port is read on its own)."""
    src = ROOT / "tests" / "fixtures" / "ir" / "rt_info.xml"
    text = src.read_text()
    assert "</dim>\n\t\t\t\t\t<rt_info>" in text or "</dim><rt_info>" in text
    good = read_ir(src)
    with_port_rt = [n for n in good.nodes() if n.extra.get("ir_output_rt_info")]
    assert with_port_rt
    stray = tmp_path / "stray.xml"
    at = text.rindex("<rt_info>") + len("<rt_info>")  # the net's own rt_info, after the layers
    stray.write_text(text[:at] + "<dim>oops</dim>" + text[at:])
    stray.with_suffix(".bin").write_bytes(src.with_suffix(".bin").read_bytes())
    assert [n.extra.get("ir_output_rt_info") for n in read_ir(stray).nodes()] == [
        n.extra.get("ir_output_rt_info") for n in good.nodes()]
    bad = tmp_path / "bad.xml"
    last = text.rindex("<dim>")
    bad.write_text(text[:last] + "<dim>-2</dim><!-- was -->" + text[text.index("</dim>", last) + len("</dim>"):])
    bad.with_suffix(".bin").write_bytes(src.with_suffix(".bin").read_bytes())
    with pytest.raises(graphir.errors.SerializationError, match=r"layer id=\d+ name='[^']*' type=\w+: port \d+: "
                                                               r"<dim>-2</dim> must be >= -1"):
        read_ir(bad)
