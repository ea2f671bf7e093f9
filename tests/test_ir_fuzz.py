"""Fuzzing the IR reader: mutated XML and .bin files give a model or a graphir error, nothing else.

Mutations: an attribute set to a hostile value, a <dim> changed, a Const offset/size changed, the
.bin truncated or flipped, an element type or precision swapped, an edge re-pointed, an element
removed or duplicated. A read model is also exercised (constants decoded, shapes re-inferred,
written again), since a wrong model that fails later would be a silent error at read time.
"""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import graphir
from graphir.errors import GraphirError
from graphir.serializers.openvino_xml import read_ir, write_ir_string

from tests.ir_helpers import EXAMPLES, IR

SOURCES = [(IR / "consts.xml").read_bytes(), (IR / "names.xml").read_bytes(),
           (IR / "dynamic.xml").read_bytes(), (EXAMPLES / "select.xml").read_bytes(),
           (IR / "if.xml").read_bytes()]
BINS = [(IR / "consts.bin").read_bytes(), (IR / "names.bin").read_bytes(),
        (IR / "dynamic.bin").read_bytes(), b"", (IR / "if.bin").read_bytes()]

HOSTILE = st.sampled_from(["", "-1", "0", "1", "999999999999999999999", "-5", "abc", "1.5", "f99", "u1",
                           "nf4", "string", "boolean", "?", "1..3", "...", "2, 3", "true", "pdpd", "NUMPY",
                           "opset99", "opset1", "FP32", "BIN", "UNSPECIFIED", "\u00e9", "a\\,b", "3,-2", "1e400"])


def _mutate(data: st.DataObject, xml: bytes, blob: bytes) -> tuple[bytes, bytes]:
    try:
        root = etree.fromstring(xml)
    except etree.XMLSyntaxError:  # an earlier round broke the text: keep breaking the bytes
        return xml[: data.draw(st.integers(0, len(xml)))], blob
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    kind = data.draw(st.sampled_from(["attribute", "dim", "remove", "duplicate", "bin_truncate",
                                      "bin_flip", "edge", "text"]))
    if kind == "attribute":
        el = data.draw(st.sampled_from([e for e in elements if e.attrib] or elements))
        keys = list(el.attrib) + ["extra"]
        el.set(data.draw(st.sampled_from(keys)), data.draw(HOSTILE))
    elif kind == "dim":
        dims = [e for e in elements if e.tag == "dim"]
        if dims:
            data.draw(st.sampled_from(dims)).text = data.draw(HOSTILE)
    elif kind == "remove":
        el = data.draw(st.sampled_from(elements[1:]))
        el.getparent().remove(el)
    elif kind == "duplicate":
        el = data.draw(st.sampled_from(elements[1:]))
        el.getparent().append(etree.fromstring(etree.tostring(el)))
    elif kind == "bin_truncate":
        blob = blob[: data.draw(st.integers(0, max(0, len(blob))))]
    elif kind == "bin_flip" and blob:
        i = data.draw(st.integers(0, len(blob) - 1))
        blob = blob[:i] + bytes([blob[i] ^ data.draw(st.integers(1, 255))]) + blob[i + 1:]
    elif kind == "edge":
        edges = [e for e in elements if e.tag == "edge"]
        if edges:
            e = data.draw(st.sampled_from(edges))
            e.set(data.draw(st.sampled_from(["from-layer", "from-port", "to-layer", "to-port"])),
                  str(data.draw(st.integers(-1, 12))))
    else:
        text = etree.tostring(root)
        cut = data.draw(st.integers(0, len(text)))
        return text[:cut] + data.draw(st.binary(max_size=8)) + text[cut:], blob
    return etree.tostring(root), blob


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), which=st.integers(0, len(SOURCES) - 1), rounds=st.integers(1, 3))
def test_mutated_ir_gives_a_model_or_a_graphir_error(data: st.DataObject, which: int, rounds: int) -> None:
    xml, blob = SOURCES[which], BINS[which]
    for _ in range(rounds):
        xml, blob = _mutate(data, xml, blob)
    try:
        model = read_ir(xml, blob)
        for node in model.nodes():
            if node.type_name == "Constant":
                np.asarray(node.op.value)
        model.infer_shapes()
        write_ir_string(model)
    except GraphirError:
        pass


def test_the_sources_are_valid() -> None:
    for xml, blob in zip(SOURCES, BINS):
        assert len(read_ir(xml, blob)) >= 4
    assert isinstance(graphir.read_model(EXAMPLES / "select.xml"), graphir.Model)
