"""A hardened XML parser for IR files: no entities, no DTD, no network, no surprises.

Entities are never expanded and a document that declares a DTD or entities is refused before any
expansion can happen (so a billion-laughs file fails at once). ``huge_tree`` lifts libxml2's size
limits for large models; without entity expansion that cannot be abused for amplification.
"""
from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from graphir.errors import SerializationError


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           dtd_validation=False, huge_tree=True, remove_comments=True,
                           remove_pis=True, collect_ids=False)


def read_xml_bytes(path: Path, where: str) -> bytes:
    """The file's bytes; SerializationError naming ``where`` when it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SerializationError(f"{where}: cannot read: {exc.strerror or exc}") from None


_PROLOG = re.compile(rb"(?:\xef\xbb\xbf)?(?:\s*<\?xml\s[^>]*\?>)+\s*")


def _lenient_prolog(data: bytes) -> bytes:
    """``data`` without its XML declarations when they are repeated or come after whitespace, which
    libxml2 refuses and OpenVINO's pugixml reads (exec_graph_info's test IR starts with two)."""
    m = _PROLOG.match(data)
    if m and (m.group(0).count(b"<?xml") > 1 or data.lstrip(b"\xef\xbb\xbf")[:1].isspace()):
        return data[m.end():]
    return data


def parse_xml(source: bytes, where: str) -> etree._Element:
    """The root element; SerializationError naming ``where`` for anything that is not plain XML."""
    data = _lenient_prolog(bytes(source))
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise SerializationError(f"{where}: a DOCTYPE or entity declaration is not allowed in an IR file")
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        line = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        raise SerializationError(f"{where}: malformed XML{line}: {exc.msg if hasattr(exc, 'msg') else exc}") from None
    except (ValueError, etree.LxmlError) as exc:
        raise SerializationError(f"{where}: cannot parse XML: {exc}") from None
    if root is None:
        raise SerializationError(f"{where}: empty XML document")
    return root
