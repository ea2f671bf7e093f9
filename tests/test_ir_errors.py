"""Bad IR input: each case is a SerializationError naming the file, the layer (id and name) and the
problem; never an lxml/numpy/KeyError traceback. The XML parser is hardened (no entities, no DTD)."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import SerializationError
from graphir.serializers.openvino_xml import read_ir, write_ir


@pytest.fixture()
def base(tmp_path: Path) -> tuple[str, bytes]:
    """A small valid IR (text, bin): cond, a -> Select(k) -> Result, Const k is layer 'k'."""
    c = opset.parameter([2, 3], "boolean", name="cond")
    a = opset.parameter([2, 3], "f32", name="a")
    k = opset.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="k")
    y = opset.select(c, a, k, name="sel")
    write_ir(graphir.Model([y], [c, a], name="base"), tmp_path / "base.xml")
    return (tmp_path / "base.xml").read_text(), (tmp_path / "base.bin").read_bytes()


def _ids(text: str) -> dict[str, str]:
    from lxml import etree

    root = etree.fromstring(text.encode())
    return {el.get("name"): el.get("id") for el in root.iter("layer")}


def _expect(tmp_path: Path, text: str, blob: bytes | None, *fragments: str) -> str:
    xml = tmp_path / "bad.xml"
    xml.write_text(text)
    if blob is not None:
        (tmp_path / "bad.bin").write_bytes(blob)
    with pytest.raises(SerializationError) as info:
        graphir.read_model(xml)
    message = str(info.value)
    assert "bad.xml" in message, message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_base_is_valid(base, tmp_path: Path) -> None:
    text, blob = base
    (tmp_path / "ok.xml").write_text(text)
    (tmp_path / "ok.bin").write_bytes(blob)
    assert str(graphir.read_model(tmp_path / "ok.xml").get_results()[0].output_types[0]) == "f32[2,3]"


def test_malformed_xml(base, tmp_path: Path) -> None:
    text, blob = base
    _expect(tmp_path, text[: len(text) // 2], blob, "malformed XML")


def test_missing_bin(base, tmp_path: Path) -> None:
    text, _ = base
    _expect(tmp_path, text, None, f"id={_ids(text)['k']} name='k'", "missing")


def test_truncated_bin(base, tmp_path: Path) -> None:
    text, blob = base
    _expect(tmp_path, text, blob[:10], f"id={_ids(text)['k']} name='k'", "outside the weights file (10 bytes)")


def test_offset_outside_bin(base, tmp_path: Path) -> None:
    text, blob = base
    bad = text.replace('offset="0" size="24"', 'offset="100" size="24"')
    _expect(tmp_path, bad, blob, "name='k'", "offset=100 size=24 lies outside")


def test_size_disagrees_with_shape(base, tmp_path: Path) -> None:
    text, blob = base
    bad = text.replace('offset="0" size="24"', 'offset="0" size="20"')
    _expect(tmp_path, bad, blob, "name='k'", "size=20 bytes is smaller than shape [2, 3] x f32 needs (24 bytes)")


def test_edge_to_missing_layer(base, tmp_path: Path) -> None:
    text, blob = base
    sel = _ids(text)["sel"]
    bad = text.replace(f'to-layer="{sel}" to-port="2"', 'to-layer="999" to-port="2"')
    # ignored, as OpenVINO ignores it; the port it fed is then unfed, and the message says why
    _expect(tmp_path, bad, blob, "name='sel'", "input port 2 has no incoming edge; ignored: edge from-layer=")
    _expect(tmp_path, bad, blob, "to-layer=999", "(there is no layer 999)")


def test_edge_to_missing_port(base, tmp_path: Path) -> None:
    text, blob = base
    sel = _ids(text)["sel"]
    bad = text.replace(f'to-layer="{sel}" to-port="2"', f'to-layer="{sel}" to-port="7"')
    _expect(tmp_path, bad, blob, f"id={sel} name='sel' type=Select", "has no input port 7")


def test_missing_input_edge(base, tmp_path: Path) -> None:
    text, blob = base
    sel = _ids(text)["sel"]
    lines = [ln for ln in text.splitlines() if f'to-layer="{sel}" to-port="1"' not in ln]
    _expect(tmp_path, "\n".join(lines), blob, f"id={sel} name='sel'", "input port 1 has no incoming edge")


def test_duplicate_layer_id(base, tmp_path: Path) -> None:
    text, blob = base
    ids = _ids(text)
    bad = text.replace(f'<layer id="{ids["a"]}" name="a"', f'<layer id="{ids["cond"]}" name="a"')
    _expect(tmp_path, bad, blob, f"id={ids['cond']} name='a'", "duplicate layer id")


def test_unknown_element_type(base, tmp_path: Path) -> None:
    text, blob = base
    bad = text.replace('element_type="f32" shape="2, 3"', 'element_type="f99" shape="2, 3"')
    _expect(tmp_path, bad, blob, "name='k'", 'unknown element_type "f99"')


def test_unknown_precision(base, tmp_path: Path) -> None:
    text, blob = base
    bad = text.replace('precision="BOOL"', 'precision="FP99"', 1)
    _expect(tmp_path, bad, blob, "name='cond'", 'unknown precision "FP99"')


def test_missing_version(base, tmp_path: Path) -> None:
    text, blob = base
    bad = text.replace('type="Select" version="opset1"', 'type="Select"')
    _expect(tmp_path, bad, blob, "name='sel'", "missing mandatory attribute 'version'")


@pytest.mark.parametrize("version", ["7", "12", None])
def test_unsupported_net_version(base, tmp_path: Path, version) -> None:
    text, blob = base
    bad = text.replace('version="11"', f'version="{version}"' if version else "", 1)
    _expect(tmp_path, bad, blob, f'IR version "{version}" is not supported')


def test_bad_attribute_value(base, tmp_path: Path) -> None:
    text, blob = base
    bad = text.replace('auto_broadcast="numpy"', 'auto_broadcast="bogus"')
    _expect(tmp_path, bad, blob, "name='sel'", "auto_broadcast")


def test_shapes_that_do_not_infer(base, tmp_path: Path) -> None:
    text, blob = base
    bad = text.replace('<data shape="2,3" element_type="f32" />', '<data shape="5,7" element_type="f32" />')
    _expect(tmp_path, bad, blob, "name='sel'", "[5,7]")


def test_bad_dim(base, tmp_path: Path) -> None:
    text, blob = base
    bad = text.replace("<dim>3</dim>", "<dim>?</dim>", 1)
    _expect(tmp_path, bad, blob, "<dim>?</dim> is not an integer")


CYCLE = """<?xml version="1.0"?>
<net name="cyc" version="11"><layers>
<layer id="0" name="p" type="Parameter" version="opset1"><data shape="2" element_type="f32"/>
 <output><port id="0" precision="FP32"><dim>2</dim></port></output></layer>
<layer id="1" name="f" type="Foo" version="extension"><input><port id="0" precision="FP32"/><port id="1" precision="FP32"/></input>
 <output><port id="2" precision="FP32"/></output></layer>
<layer id="2" name="g" type="Foo" version="extension"><input><port id="0" precision="FP32"/></input>
 <output><port id="1" precision="FP32"/></output></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="2" from-port="1" to-layer="1" to-port="1"/>
<edge from-layer="1" from-port="2" to-layer="2" to-port="0"/>
</edges></net>"""


def test_cycle(tmp_path: Path) -> None:
    message = _expect(tmp_path, CYCLE, b"", "cycle")
    assert "id=1 name='f' type=Foo" in message and "id=2 name='g' type=Foo" in message


def test_two_edges_into_one_port(base, tmp_path: Path) -> None:
    text, blob = base
    sel = _ids(text)["sel"]
    extra = f'<edge from-layer="{_ids(text)["a"]}" from-port="0" to-layer="{sel}" to-port="2" />'
    _expect(tmp_path, text.replace("</edges>", extra + "</edges>"), blob, "two incoming edges")


def test_corrupt_string_blob(tmp_path: Path) -> None:
    c = opset.constant(np.array(["ab", "cd"], dtype=object), "string", name="s")
    write_ir(graphir.Model([c], [], name="s"), tmp_path / "bad.xml")
    blob = bytearray((tmp_path / "bad.bin").read_bytes())
    blob[4:8] = (1000).to_bytes(4, "little")  # first offset far beyond the data
    (tmp_path / "bad.bin").write_bytes(bytes(blob))
    model = None
    with pytest.raises(SerializationError, match="name='s'.*cannot decode string"):
        model = graphir.read_model(tmp_path / "bad.xml")
        model.node("s").op.value  # noqa: B018 (in case the read itself did not touch it)


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>
<net name="&lol9;" version="11"><layers/><edges/></net>"""

XXE = """<?xml version="1.0"?>
<!DOCTYPE net [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<net name="&xxe;" version="11"><layers/><edges/></net>"""


@pytest.mark.parametrize("text", [BILLION_LAUGHS, XXE], ids=["billion_laughs", "external_entity"])
def test_entities_are_refused_fast(tmp_path: Path, text: str) -> None:
    # this thread's CPU time (~0.5 ms), not the wall clock: a loaded machine does not stretch it
    start = time.thread_time()
    _expect(tmp_path, text, b"", "DOCTYPE or entity declaration is not allowed")
    assert time.thread_time() - start < 1.0


def test_not_a_net(tmp_path: Path) -> None:
    _expect(tmp_path, "<model/>", b"", "root element is <model>, expected <net>")


def test_in_memory_errors_name_the_source() -> None:
    with pytest.raises(SerializationError, match="<IR in memory>: malformed XML"):
        read_ir(b"<net")
