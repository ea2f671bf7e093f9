"""``<rt_info>`` <-> nested dicts, at the three levels OpenVINO writes it (read from lxml elements,
written as lines of text, see :mod:`xml_text`).

Net level: one element per key (``<Runtime_version value="..."/>``), nested keys as nested
elements, keys that are not XML names as ``<info name="key" value="..."/>``; written sorted by key.
Layer and port level: ``<attribute name="layout" version="0" layout="[N,C]"/>`` becomes
``{"layout": {"version": "0", "layout": "[N,C]"}}``; written in the order kept.
"""
from __future__ import annotations

import re
from typing import Any

from lxml import etree

from graphir.serializers.ir_parser import element_attributes
from graphir.serializers.xml_text import Lines, checked_name, escape, indent, start_tag

_XML_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def read_net_rt_info(element: "etree._Element | None") -> dict[str, Any]:
    """Nested dicts of a net-level ``<rt_info>``; iterative, so any nesting depth reads (OpenVINO
    reads rt_info nested thousands deep)."""
    out: dict[str, Any] = {}
    if element is None:
        return out
    pending = [(element, out)]
    while pending:
        parent, into = pending.pop()
        for child in parent:
            if not isinstance(child.tag, str):
                continue
            key = child.get("name") if child.tag == "info" and child.get("name") is not None else child.tag
            if len(child):
                inner: dict[str, Any] = {}
                into[key] = inner
                pending.append((child, inner))
            elif "value" in child.attrib:
                into[key] = child.get("value")
            else:
                into[key] = {}
    return out


def read_attribute_rt_info(element: "etree._Element | None") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if element is None:
        return out
    for child in element:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "attribute" and child.get("name") is not None:
            out[child.get("name")] = {k: v for k, v in element_attributes(child).items() if k != "name"}
        else:  # not seen in files OpenVINO writes; kept in the net-level form
            out[child.tag] = {"__element__": read_net_rt_info(child) if len(child) else element_attributes(child)}
    return out


def nested_dict_lines(data: dict[str, Any], depth: int, close: str) -> list[str]:
    """Net-level rt_info entries of ``data`` (children of an element at ``depth - 1``): one element
    per key, sorted, nested dicts as nested elements, keys that are not XML names as
    ``<info name="key" .../>``. Iterative: any nesting depth."""
    out: list[str] = []
    stack: list[tuple[Any, dict[str, Any], int, str]] = [(iter(sorted(data)), data, depth, "")]
    while stack:
        keys, values, d, closing = stack[-1]
        key: Any = next(keys, _END)
        if key is _END:
            if closing:
                out.append(closing)
            stack.pop()
            continue
        value = values[key]
        if _XML_NAME.match(key) and key != "info":
            tag, start = key, "<" + key
        else:
            tag, start = "info", f'<info name="{escape(key)}"'
        if isinstance(value, dict):
            if value:
                out.append(indent(d) + start + ">")
                stack.append((iter(sorted(value)), value, d + 1, f"{indent(d)}</{tag}>"))
                continue
            out.append(indent(d) + start + close)
            continue
        if isinstance(value, (list, tuple)):
            text = " ".join(str(v) for v in value)
        else:
            text = _text(value)
        out.append(f'{indent(d)}{start} value="{escape(text)}"{close}')
    return out



_END = object()


def net_rt_info_lines(data: dict[str, Any], depth: int, close: str) -> list[str]:
    """The ``<rt_info>`` element of a net or body (written even when empty)."""
    if not data:
        return [indent(depth) + "<rt_info" + close]
    return [indent(depth) + "<rt_info>", *nested_dict_lines(data, depth + 1, close), indent(depth) + "</rt_info>"]


def attribute_rt_info_lines(data: dict[str, Any], depth: int, close: str) -> list[str]:
    """Layer or port ``<rt_info>`` (``<attribute name=.. version=.. .../>`` per key); none when empty."""
    if not data:
        return []
    lines = Lines(close)
    inner = depth + 1
    for key, value in data.items():
        if isinstance(value, dict) and "__element__" in value:
            content = value["__element__"]
            tag = checked_name(key)
            if all(isinstance(v, str) for v in content.values()):
                lines.element(inner, start_tag(tag, content), None)
            else:
                lines.element(inner, "<" + tag, nested_dict_lines(content, inner + 1, close))
            continue
        attrs = value if isinstance(value, dict) else {"value": value}
        written = {"name": key}
        if "version" not in attrs:
            written["version"] = "0"
        for k, v in attrs.items():
            written[k] = _text(v)
        lines.element(inner, start_tag("attribute", written), None)
    return [indent(depth) + "<rt_info>", *lines.out, indent(depth) + "</rt_info>"]


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)
