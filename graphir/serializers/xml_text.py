"""Writing XML as text, line by line, as OpenVINO's IR files are laid out: one tab of indentation
per level, each element on its own line, empty elements closed ``<x a="1" />`` (pugixml's spelling).

Attribute values are escaped as libxml2 escapes them (``& < > "`` and tab, newline, carriage return
as character references). Characters XML cannot carry (control characters other than tab, newline
and carriage return, lone surrogates, U+FFFE/U+FFFF) and names that are not XML names are a
ValueError; the IR writer turns it into a SerializationError naming the node or model.
"""
from __future__ import annotations

import re

from lxml import etree

from graphir.errors import clip_repr

#: pugixml's spelling of an empty element's end (lxml writes ``/>``; ``write_layer`` keeps that)
PUGIXML_CLOSE = " />"

_NEEDS_ESCAPE = re.compile('[&<>"\t\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(value: str) -> str:
    """``value`` as the text of a double-quoted XML attribute (a ValueError for characters XML
    cannot carry)."""
    if _NEEDS_ESCAPE.search(value) is None:
        return value
    bad = _NOT_XML.search(value)
    if bad is not None:
        raise ValueError(f"the character U+{ord(bad.group()):04X} at position {bad.start()} of "
                         f"{clip_repr(value)} cannot be written in XML")
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\t", "&#9;").replace("\n", "&#10;").replace("\r", "&#13;"))


#: names known to be valid XML names (those graphir writes itself, and those checked once)
_VALID_NAMES: set[str] = {"id", "name", "type", "version", "precision", "names", "element_type", "shape",
                          "offset", "size", "value", "output_names"}
_VALID_NAMES_LIMIT = 1 << 16


def checked_name(name: str) -> str:
    """``name`` when lxml accepts it as an element or attribute name, else a ValueError (names of
    rt_info keys, unknown attributes and port-map entries come from files and users)."""
    if name in _VALID_NAMES:
        return name
    if not isinstance(name, str) or name[:1] == "{":
        raise ValueError(f"{clip_repr(name)} is not an XML name")
    etree.Element(name).set(name, "")  # lxml's own rules (a ValueError naming the name)
    if len(_VALID_NAMES) < _VALID_NAMES_LIMIT:
        _VALID_NAMES.add(name)
    return name


def start_tag(tag: str, attrs: dict[str, str]) -> str:
    """``<tag a="v" ...`` (not closed); attribute names checked, values escaped."""
    if not attrs.keys() <= _VALID_NAMES:
        for k in attrs:
            checked_name(k)
    if _NEEDS_ESCAPE.search("".join(attrs.values())) is None:  # the usual case: nothing to escape
        return "<" + tag + "".join([f' {k}="{v}"' for k, v in attrs.items()])
    return "<" + tag + "".join([f' {k}="{escape(v)}"' for k, v in attrs.items()])


class Lines:
    """The lines of an indented XML document being written, and the indentation strings."""

    __slots__ = ("out", "close")

    def __init__(self, close: str = PUGIXML_CLOSE) -> None:
        self.out: list[str] = []
        self.close = close

    def element(self, depth: int, start: str, children: "list[str] | None") -> None:
        """``start`` (from start_tag) closed at once when ``children`` (lines) is empty."""
        if not children:
            self.out.append(indent(depth) + start + self.close)
            return
        self.out.append(indent(depth) + start + ">")
        self.out.extend(children)
        self.out.append(indent(depth) + "</" + start[1:].split(" ", 1)[0] + ">")


_TABS = ["\t" * i for i in range(64)]


def indent(depth: int) -> str:
    return _TABS[depth] if depth < 64 else "\t" * depth
