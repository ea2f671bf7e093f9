"""A hardened XML parser for IR files: no DTD, no entities, no network, no surprises.

The refusal of a DTD is the parser's: before the real parse, a SAX pass (lxml's parser target)
reads the document up to its root element's start tag and stops there; libxml2 reports a
``<!DOCTYPE`` to it before reading the internal subset, so a DTD (with entity declarations, a
billion laughs, an external entity) is refused before any of it is expanded or fetched, whatever the
encoding (UTF-8, UTF-16, UTF-32, with or without a BOM). Text that only looks like a DOCTYPE (in a
comment, in an attribute value) is not a DTD and is read normally. The real parse never loads a
DTD, never resolves an entity and never touches the network, and its result is checked once more
for a DTD. ``huge_tree`` lifts libxml2's size limits for large models; with no entity expansion
that cannot be abused for amplification.

:func:`element_attributes` reads an element's attributes in time linear in their number (lxml's
``items()`` is quadratic: 40,000 attributes take ~20 s).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lxml import etree

from graphir.errors import SerializationError, clip

#: bytes handed to the DTD probe at a time (it stops at the root element's start tag)
_PROBE_CHUNK = 1 << 16
#: elements with more attributes than this are read by one SAX pass (see element_attributes)
MANY_ATTRIBUTES = 64


def _parser(**options: Any) -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           dtd_validation=False, huge_tree=True, remove_comments=True,
                           remove_pis=True, collect_ids=False, **options)


def read_xml_bytes(path: Path, where: str) -> bytes:
    """The file's bytes; SerializationError naming ``where`` when it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SerializationError(f"{where}: cannot read: {exc.strerror or exc}") from None
    except MemoryError:
        raise SerializationError(f"{where}: cannot read: the file does not fit in memory") from None


class _RootReached(Exception):
    """The probe saw the root element start: there is no DTD."""


class _DoctypeSeen(Exception):
    """The probe saw a document type declaration."""


class _Probe:
    """A parser target that stops at the first start tag and refuses a DOCTYPE before it."""

    def doctype(self, name: Any, public_id: Any, system_url: Any) -> None:
        raise _DoctypeSeen(name)

    def start(self, tag: Any, attrib: Any, nsmap: Any = None) -> None:
        raise _RootReached

    def end(self, tag: Any) -> None:
        pass

    def data(self, text: Any) -> None:
        pass

    def comment(self, text: Any) -> None:
        pass

    def pi(self, target: Any, data: Any = None) -> None:
        pass

    def close(self) -> None:
        return None


def refuse_dtd(data: bytes, where: str) -> None:
    """SerializationError when the document declares a DTD (checked by libxml2, not by a byte
    search); malformed text before the root element is left for the real parse to report."""
    for incremental in (True, False):  # feeding chunks reads only the prolog; UTF-32 needs it whole
        try:
            if incremental:
                parser = _parser(target=_Probe())
                for start in range(0, max(len(data), 1), _PROBE_CHUNK):
                    parser.feed(data[start:start + _PROBE_CHUNK])
                parser.close()
            else:
                etree.fromstring(data, _parser(target=_Probe()))
        except _RootReached:
            return
        except _DoctypeSeen:
            raise SerializationError(f"{where}: a DOCTYPE or entity declaration is not allowed in an IR file "
                                     f"(the document declares a DTD)") from None
        except (etree.LxmlError, ValueError):
            continue  # the whole-text probe, then the real parse, report it


_PROLOG = re.compile(rb"(?:\xef\xbb\xbf)?(?:\s*<\?xml\s[^>]*\?>)+\s*")


def _lenient_prolog(data: bytes) -> bytes:
    """``data`` without its XML declarations when they are repeated or come after whitespace, which
    libxml2 refuses and OpenVINO's pugixml reads (exec_graph_info's test IR starts with two)."""
    m = _PROLOG.match(data)
    if m and (m.group(0).count(b"<?xml") > 1 or data.lstrip(b"\xef\xbb\xbf")[:1].isspace()):
        return data[m.end():]
    return data


# Whitespace-only text between elements (the indentation, about half of an IR's nodes) is left
# out of the tree (libxml2's NOBLANKS): nothing in an IR reads it, and the tree is built, walked
# and freed faster (freeing an IR's tree cost 4-8 ms of a 100 ms read). What the reader reads
# keeps its text: a ``<dim>`` holding only whitespace keeps it, mixed content and
# ``xml:space="preserve"`` are kept, and raw subelements kept for writing back are re-indented
# by the writer anyway. (A ``<dim>`` holding whitespace and a comment now holds nothing: the same
# "is not an integer" message.)


def parse_xml(source: bytes, where: str) -> etree._Element:
    """The root element; SerializationError naming ``where`` for anything that is not plain XML."""
    data = _lenient_prolog(bytes(source))
    refuse_dtd(data, where)
    try:
        root = etree.fromstring(data, _parser(remove_blank_text=True))  # see the note above
    except etree.XMLSyntaxError as exc:
        line = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        raise SerializationError(f"{where}: malformed XML{line}: {clip(getattr(exc, 'msg', exc), 400)}") from None
    except (ValueError, etree.LxmlError) as exc:
        raise SerializationError(f"{where}: cannot parse XML: {clip(exc, 400)}") from None
    except MemoryError:
        raise SerializationError(f"{where}: cannot parse XML: out of memory") from None
    if root is None:
        raise SerializationError(f"{where}: empty XML document")
    info = root.getroottree().docinfo
    if info.internalDTD is not None or info.externalDTD is not None or info.doctype:
        raise SerializationError(f"{where}: a DOCTYPE or entity declaration is not allowed in an IR file (the document declares a DTD)")
    return root


class _AttributeCollector:
    def __init__(self) -> None:
        self.attributes: dict[str, str] = {}

    def start(self, tag: Any, attrib: Any, nsmap: Any = None) -> None:
        if not self.attributes:
            self.attributes = dict(attrib)
            raise _RootReached

    def end(self, tag: Any) -> None:
        pass

    def data(self, text: Any) -> None:
        pass

    def close(self) -> None:
        return None


def element_attributes(element: Any) -> dict[str, str]:
    """``dict(element.items())`` in linear time: a few attributes are read directly, many by one
    SAX pass over the element's serialized start tag (lxml looks each value up by name)."""
    keys = element.keys()  # linear, and no attrib proxy
    if len(keys) <= MANY_ATTRIBUTES:
        return dict(zip(keys, element.values()))
    collector = _AttributeCollector()
    text = etree.tostring(element, encoding="utf-8", with_tail=False)
    try:
        etree.fromstring(text, _parser(target=collector))
    except _RootReached:
        pass
    return collector.attributes
