"""The scanning fast path (``ir_scan`` + ``ir_scanned_reader``) never changes what a read gives.

Its one property: whatever bytes come in, reading with the scan gives what the tree-based readers
alone give: the same model (every node, attribute, name, type, edge, extra and constant value) or
the same error. A hypothesis test mutates files OpenVINO wrote, keeping their layout, so that the
scan accepts many of the mutants; the examples pin the cases the scan must refuse or must read
like lxml (entities, control characters, odd whitespace, comments, namespaces).
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import graphir
from graphir.errors import GraphirError
from graphir.serializers import openvino_xml
from graphir.serializers.ir_constants import BinSource
from graphir.serializers.ir_scan import scan_ir
from graphir.serializers.openvino_xml import read_ir

from tests.test_ir_read_one_pass import _summary

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
# files OpenVINO wrote, small enough to read many times over
SOURCES = [FIXTURES / "ir" / n for n in ("consts.xml", "names.xml", "dynamic.xml", "rt_info.xml", "select_v10.xml",
                                          "unknown_op.xml")] + [
    FIXTURES / "corpus" / n for n in ("cnn_bn_pool.xml", "embedding_layernorm_fp16.xml")] + [ROOT / "examples" / "select.xml"]
TEXTS = [p.read_bytes() for p in SOURCES]
BINS = [p.with_suffix(".bin").read_bytes() if p.with_suffix(".bin").exists() else b"" for p in SOURCES]


@contextmanager
def _without_scan() -> Iterator[None]:
    with mock.patch.object(openvino_xml, "scan_ir", lambda text: None):
        yield


def _outcome(xml: bytes, blob: bytes) -> Any:
    """What a read gives: the model's full summary with its constants' values, or the error."""
    try:
        model = read_ir(xml, blob)
    except GraphirError as exc:
        return ("error", type(exc).__name__, str(exc))
    values = []
    for node in model.nodes():
        if node.type_name == "Constant":
            try:
                value = np.asarray(node.op.value)
                values.append((value.dtype.str, value.shape,
                               value.tolist() if value.dtype == object else value.tobytes()))
            except GraphirError as exc:
                values.append(str(exc))
    return ("model", _summary(model), values)


def _same_with_and_without_scan(xml: bytes, blob: bytes) -> Any:
    scanned = _outcome(xml, blob)
    with _without_scan():
        tree = _outcome(xml, blob)
    assert scanned == tree
    return scanned


def test_the_sources_take_the_scanning_path() -> None:
    for text in TEXTS:
        assert scan_ir(text) is not None


HOSTILE_VALUES = [b"", b"1", b"0", b"-1", b"abc", b"a&amp;b", b"a&b", b"a<b", b"a>b", b"a'b", b"\x01", b"a\tb",
                  b"a\nb", b"a\rb", b"x\\,y", b"a,b", "é".encode(), b"\xff", b"&#9;", b"&#x41;", "\ufffe".encode(),
                  b"1..3", b"?", b"FP32", b"f16", b"opset99", b"opset1", b"99999999999", b"1_0", b" 5", b"xmlns"]
SNIPPETS = [b" ", b"\t", b"\n", b"\r\n", b"<!-- c -->", b"<?pi x?>", b"x", b"<", b">", b"&amp;", b"&", b'"',
            b"<![CDATA[x]]>", b"</layer>", b"<layer>", b"</port>", b"<dim>3</dim>", b"<data/>",
            b'<rt_info><attribute name="a" version="0" value="1"/></rt_info>', b'<port id="9" precision="FP32"/>',
            b'<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />', b' names="t"', b' offset="0"']
BENIGN_VALUES = [b"x", b"a,b", b"x\\,y", "é".encode(), b"0", b"4", b"64", b"a b", b"a>b", b"t:0", b"y"]
HOSTILE_DIMS = [b"-1", b"-2", b"0", b"5", b"+5", b" 5 ", b"007", b"1e3", b"?", b"", b"&#53;", b"9" * 18, b"9" * 19,
                b"9" * 5000, b"1_0", "٥".encode()]
_VALUES = re.compile(rb'="([^"]*)"')
_DIMS = re.compile(rb"<dim>([^<]*)</dim>")
_NAMED = re.compile(rb' (?:name|names|offset)="([^"]*)"')
_LAYERS = re.compile(rb"[ \t]*<layer .*?</layer>\n", re.S)


def _mutate(data: st.DataObject, xml: bytes) -> bytes:
    kind = data.draw(st.sampled_from(["value", "value", "insert", "delete", "layer", "space", "name", "name", "dim"]))
    if kind == "dim":
        spans = [m.span(1) for m in _DIMS.finditer(xml)]
        a, b = data.draw(st.sampled_from(spans))
        return xml[:a] + data.draw(st.sampled_from(HOSTILE_DIMS)) + xml[b:]
    if kind == "name":  # a plausible new name, tensor names or offset (the values the scan reads itself)
        spans = [m.span(1) for m in _NAMED.finditer(xml)]
        a, b = data.draw(st.sampled_from(spans))
        return xml[:a] + data.draw(st.sampled_from(BENIGN_VALUES)) + xml[b:]
    if kind == "value":
        spans = [m.span(1) for m in _VALUES.finditer(xml)]
        a, b = data.draw(st.sampled_from(spans))
        return xml[:a] + data.draw(st.sampled_from(HOSTILE_VALUES)) + xml[b:]
    if kind == "insert":
        at = data.draw(st.integers(0, len(xml)))
        return xml[:at] + data.draw(st.sampled_from(SNIPPETS) | st.binary(min_size=1, max_size=4)) + xml[at:]
    if kind == "delete":
        at = data.draw(st.integers(0, len(xml) - 1))
        return xml[:at] + xml[at + data.draw(st.integers(1, 20)):]
    if kind == "layer":  # a whole layer repeated, removed or moved to the end
        spans = [m.span() for m in _LAYERS.finditer(xml)]
        a, b = data.draw(st.sampled_from(spans))
        how = data.draw(st.sampled_from(["repeat", "remove", "move"]))
        chunk = xml[a:b]
        if how == "repeat":
            return xml[:b] + chunk + xml[b:]
        rest = xml[:a] + xml[b:]
        if how == "remove":
            return rest
        end = rest.index(b"</layers>")
        return rest[:end] + chunk + rest[end:]
    spaces = [m.start() for m in re.finditer(rb'" ', xml)]
    at = data.draw(st.sampled_from(spaces)) + 1
    return xml[:at] + data.draw(st.sampled_from([b"\t", b"  ", b"\n", b""])) + xml[at + 1:]


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), which=st.integers(0, len(SOURCES) - 1), rounds=st.integers(1, 3))
def test_a_mutated_file_reads_the_same_with_and_without_the_scan(data: st.DataObject, which: int,
                                                                 rounds: int) -> None:
    xml = TEXTS[which]
    for _ in range(rounds):
        xml = _mutate(data, xml)
    outcome = _same_with_and_without_scan(xml, BINS[which])
    scanned = openvino_xml._read_scanned(xml, "<IR in memory>", BinSource("<IR in memory>", data=BINS[which]))
    event(f"{outcome[0]}, {'read by the scan' if scanned is not None else 'read without the scan'}")


def _select(replace: "tuple[bytes, bytes] | None" = None, count: int = 1) -> bytes:
    text = (ROOT / "examples" / "select.xml").read_bytes()
    if replace is not None:
        assert replace[0] in text
        text = text.replace(replace[0], replace[1], count)
    return text


@pytest.mark.parametrize("replace, scans, reads", [
    ((b'3" name="select"', b'3" name="se&amp;lect"'), False, True),      # entity in a header: tree path
    ((b'3" name="select"', b'3" name="se\x01lect"'), False, False),       # not an XML character: malformed
    ((b'3" name="select"', b'3" name="se>lect"'), True, True),            # '>' is allowed in a value
    ((b'3" name="select"', '3" name="s\ufffeelect"'.encode()), False, False),  # U+FFFE is not an XML character
    ((b'3" name="select"', b'3" name="se\xfflect"'), True, False),        # not UTF-8: malformed
    ((b'names="out"', b'names="a&amp;b,c\\,d"'), True, True),     # entity in a names slot: kept in the body
    ((b'names="out"', b'names="a\tb"'), True, True),              # a tab in a value becomes a space
    ((b'<layer id="3" name="select"', b'<layer id="3"\tname="select"'), False, True),  # odd spacing: tree path
    ((b"</layers>", b"<!-- the end --></layers>"), False, True),         # comments: tree path
    ((b'<net name', b'<net xmlns="urn:x" name'), False, False),          # a namespace: tree path (refused)
    ((b'<?xml version="1.0"?>', b'<?xml version="1.0" encoding="ISO-8859-1"?>'), False, True),
    ((b"<dim>3</dim>", b"<dim>&#51;</dim>"), True, True),                 # char reference in a dim
    ((b'<data auto_broadcast="numpy" />', b'<data auto_broadcast="numpy" /><!-- x --><?pi y?>'), True, True),
    ((b"<dim>2</dim>", b"<dim><![CDATA[2]]></dim>"), True, True),         # CDATA in a body: lxml parses it
    ((b"<dim>2</dim>", b"<dim>-2</dim>"), True, False),                   # a dim below -1: refused
    ((b"<dim>2</dim>", b"<dim>1" + b"0" * 18 + b"</dim>"), True, True),  # long dims stay in the body text
    ((b"<dim>2</dim>", b"<dim>" + b"9" * 19 + b"</dim>"), True, False),  # >= 2^63: refused (as OpenVINO does)
    ((b"<dim>2</dim>", b"<dim>" + b"9" * 5000 + b"</dim>"), True, False),  # too long for int(): refused
    ((b'shape="3,2"', b'shape="3,?"'), True, True),                      # a Parameter's shape is a slot
    ((b"</layer>", b"</layer>junk"), False, True),                       # text between layers: tree path
    ((b'to-port="2" />', b'to-port="2" />x'), False, True),               # text between edges: tree path
])
def test_examples_read_the_same_with_and_without_the_scan(replace: tuple[bytes, bytes], scans: bool,
                                                          reads: bool) -> None:
    text = _select(replace)
    assert (scan_ir(text) is not None) == scans
    outcome = _same_with_and_without_scan(text, b"")
    assert (outcome[0] == "model") == reads, outcome


def test_names_from_a_names_slot_and_entities_in_the_body() -> None:
    model = read_ir(_select((b'names="out"', b'names="a&amp;b,c\\,d"')), b"")
    assert model.node("select").output(0).names == {"a&b", "c,d"}
    model = read_ir(_select((b'names="out"', b'names="a\tb"')), b"")
    assert model.node("select").output(0).names == {"a b"}


def test_layers_of_one_template_share_no_mutable_state(tmp_path: Path) -> None:
    from graphir import opset

    x = opset.parameter([4], "f32", name="x")
    y = x
    for i in range(3):
        y = opset.add(y, opset.constant(np.full(4, i, np.float32)), name=f"add{i}")
    graphir.save_model(graphir.Model([y], [x], name="chain"), tmp_path / "chain.xml")
    assert scan_ir((tmp_path / "chain.xml").read_bytes()) is not None
    model = read_ir(tmp_path / "chain.xml")
    adds = [model.node(f"add{i}") for i in range(3)]
    consts = [n for n in model.nodes() if n.type_name == "Constant"]
    for a, b in ((adds[0], adds[1]), (consts[0], consts[1])):
        assert a.extra is not b.extra and a.output_names[0] is not b.output_names[0]
        assert a.op is not b.op
    # the Adds' pydantic fields-set is shared (a SharedFieldsSet) until an op is assigned to
    assert adds[0].op.__pydantic_fields_set__ is adds[1].op.__pydantic_fields_set__
    adds[0].op.auto_broadcast = "none"
    assert adds[0].op.__pydantic_fields_set__ is not adds[1].op.__pydantic_fields_set__
    assert adds[1].op.auto_broadcast == "numpy" and adds[1].op.model_fields_set == {"auto_broadcast"}
    assert adds[0].extra["ir_attribute_text"] is not adds[1].extra["ir_attribute_text"]
    adds[0].extra["ir_attribute_text"]["auto_broadcast"] = "none"
    assert adds[1].extra["ir_attribute_text"]["auto_broadcast"] == "numpy"
    assert sorted(np.asarray(c.op.value)[0] for c in consts) == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("text", [
    b"",
    b"<net/>",
    b'<?xml version="1.0"?><net name="a" version="11"><layers></layers></net>',
    b'<?xml version="1.0"?><net name="a" version="11"><layers></layers><edges></edges></net>',
    b'<?xml version="1.0"?><net name="a" version="11"><layers></layers><edges><edge from-layer="0" from-port="0" '
    b'to-layer="1" to-port="0"/></edges></net>',
])
def test_small_and_empty_documents_read_the_same_with_and_without_the_scan(text: bytes) -> None:
    _same_with_and_without_scan(text, b"")


def test_a_truncated_bin_is_reported_as_before(tmp_path: Path) -> None:
    text = (FIXTURES / "ir" / "consts.xml").read_bytes()
    blob = (FIXTURES / "ir" / "consts.bin").read_bytes()
    outcome = _same_with_and_without_scan(text, blob[: len(blob) // 2])
    assert outcome[0] == "error" and "lies outside the weights file" in outcome[2]


def test_rt_info_of_layers_from_one_template_is_read_once_and_copied_per_node() -> None:
    text = (FIXTURES / "corpus" / "cnn_bn_pool_fp16.xml").read_bytes()
    blob = (FIXTURES / "corpus" / "cnn_bn_pool_fp16.bin").read_bytes()
    assert text.count(b'<attribute name="decompression" version="0" />') >= 2
    _same_with_and_without_scan(text, blob)
    model = read_ir(text, blob)
    converts = [n for n in model.nodes() if n.type_name == "Convert" and n.rt_info]
    assert len(converts) >= 2
    a, b = converts[:2]
    assert a.rt_info == b.rt_info == {"decompression": {"version": "0"}}
    assert a.rt_info is not b.rt_info and a.rt_info["decompression"] is not b.rt_info["decompression"]


def test_a_variable_value_inside_rt_info_is_read_from_each_layer() -> None:
    """``names``/``shape``... inside a layer's rt_info are not template slots: such layers are parsed
    one by one, so each keeps its own value."""
    text = (FIXTURES / "corpus" / "cnn_bn_pool_fp16.xml").read_bytes()
    blob = (FIXTURES / "corpus" / "cnn_bn_pool_fp16.bin").read_bytes()
    marker = b'<attribute name="decompression" version="0" />'
    pieces = text.split(marker)
    text = b"".join(piece + (b'<attribute name="decompression" version="0" shape="%d" />' % i)
                    for i, piece in enumerate(pieces[:-1])) + pieces[-1]
    _same_with_and_without_scan(text, blob)
    shapes = sorted(int(n.rt_info["decompression"]["shape"]) for n in read_ir(text, blob).nodes()
                    if n.rt_info.get("decompression"))
    assert shapes == list(range(len(pieces) - 1))
