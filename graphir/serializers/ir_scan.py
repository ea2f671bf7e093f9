"""Cutting IR text laid out as OpenVINO writes it into layers and edges, without an XML tree.

Building an lxml tree of a 10,000-layer IR and visiting its ~85,000 elements costs more than
OpenVINO's whole ``read_model``; but such files repeat themselves: every layer is one start tag
(``<layer id=".." name=".." type=".." version="..">``) and a body that is, byte for byte, the body
of many other layers except for a few values (a Const's offset, tensor names, dims...).
:func:`scan_ir` cuts the text into those pieces with ``bytes.split`` and strict regular
expressions; the reader parses each distinct body once, with lxml, so its XML is checked, and
builds every layer of that body from the result (see ``ir_scanned_reader``).

What the scan reads itself is only what its patterns accept: start tags with double-quoted values
free of '<', '&' and control characters (which XML would reject or rewrite), separated by single
spaces; edges in the same form; whitespace between them. A body is handed to lxml whole (comments,
CDATA, entities and all). What is left, the ``<net>`` element with its rt_info, is handed back as
a small document, the skeleton, for lxml to parse. It returns None when the text is not in that
shape (another layout, an encoding other than UTF-8, XML 1.1, namespaces declared outside the
layers, maybe U+FFFE/U+FFFF, text between layers); pieces that look right but are not (a body
that does not parse, nested layers cut apart) fail later, in the reader. Either way the tree-based
reader takes the file and reports any problem.
"""
from __future__ import annotations

import re
from typing import NamedTuple

_WS = rb"[ \t\r\n]*"
#: an attribute value's byte that needs no XML processing: not '"', '<', '&' nor a control
#: character (tabs and line breaks would become spaces; the others are not allowed in XML)
_VALUE = rb'[^"<&\x00-\x1f]*'
#: a layer's start tag as OpenVINO writes it (one space between attributes, double quotes); its
#: further attributes are kept as text
_HEADER = re.compile(
    _WS + rb'<layer id="(-?\d+)" name="(' + _VALUE + rb')" type="(' + _VALUE + rb')" version="(' + _VALUE + rb')"'
    rb'((?: [A-Za-z_][\w.:-]*="' + _VALUE + rb'")*)>')
#: the values that differ between layers that are otherwise the same text: a Const's declaration
#: and offset into the .bin, a port's tensor names, a Parameter's shape, and port dims (ints >= -1
#: of up to 18 digits). Values XML would change (entities, odd whitespace) or Python's int() might
#: refuse stay in the text. ``split`` gives [text, attribute, value, dim, text, ...]: each value
#: comes as (attribute name, value, None) or (None, None, dim), a dim's text starting at ``</dim>``.
VARIABLE_VALUES = re.compile(rb' (offset|names|shape|size|element_type)="(' + _VALUE + rb')(?=")'
                             rb'|<dim>(-1|\d{1,18})(?=</dim>)')
_EDGE = (rb'<edge from-layer="(-?\d+)" from-port="(' + _VALUE + rb')" to-layer="(-?\d+)" to-port="(' + _VALUE
         + rb')" ?/>')
_EDGES = re.compile(_WS + _EDGE)
_ONLY_EDGES = re.compile(rb"(?:" + _WS + _EDGE + rb")*" + _WS)
_PROLOG = re.compile(rb'(?:\xef\xbb\xbf)?(?:<\?xml version="1\.0"(?: encoding="(?i:utf-?8)")?'
                     rb'(?: standalone="(?:yes|no)")? ?\?>)?' + _WS + rb"<net[ >]")


class ScannedIR(NamedTuple):
    """An IR text cut into pieces: ``layers`` are (id, name, type, version, other header
    attributes, body) as bytes, the body being everything between the start tag and
    ``</layer>``; ``edges`` are (from-layer, from-port, to-layer, to-port); ``skeleton`` is the
    document with the contents of ``<layers>`` and ``<edges>`` taken out."""

    skeleton: bytes
    layers: list[tuple[bytes, bytes, bytes, bytes, bytes, bytes]]
    edges: list[tuple[bytes, bytes, bytes, bytes]]


def scan_ir(text: bytes) -> "ScannedIR | None":
    """The pieces of ``text``, or None when it is not laid out as :mod:`ir_scan` expects."""
    if _PROLOG.match(text) is None or b"\xef\xbf" in text:
        return None  # another encoding or XML version; or maybe U+FFFE/U+FFFF (not XML characters)
    start = text.find(b"<layers>")
    end = text.find(b"</layers>")
    if start < 0 or end < start:
        return None
    start += len(b"<layers>")
    chunks = text[start:end].split(b"</layer>")
    if chunks.pop().strip(b" \t\r\n"):
        return None
    layers: list[tuple[bytes, bytes, bytes, bytes, bytes, bytes]] = []
    match = _HEADER.match
    for chunk in chunks:
        m = match(chunk)
        if m is None:
            return None
        lid, name, ltype, version, rest = m.groups()
        layers.append((lid, name, ltype, version, rest, chunk[m.end():]))
    edges: list[tuple[bytes, bytes, bytes, bytes]] = []
    skeleton = text[:start] + text[end:]
    e_start = skeleton.find(b"<edges>")
    if e_start >= 0:
        e_start += len(b"<edges>")
        e_end = skeleton.find(b"</edges>", e_start)
        if e_end < 0:
            return None
        section = skeleton[e_start:e_end]
        if not _ONLY_EDGES.fullmatch(section):
            return None
        edges = _EDGES.findall(section)
        skeleton = skeleton[:e_start] + skeleton[e_end:]
    if b"<edge " in skeleton or b"<layer " in skeleton or b"xmlns" in skeleton:
        return None  # namespaces declared outside the layers would change how their bodies read
    return ScannedIR(skeleton, layers, edges)
