"""``<rt_info>`` <-> nested dicts, at the three levels OpenVINO writes it.

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


def write_net_rt_info(parent: etree._Element, data: dict[str, Any]) -> None:
    """The elements of nested dicts under ``parent`` (iterative: any depth)."""
    pending = [(parent, data)]
    while pending:
        element, values = pending.pop()
        for key in sorted(values):
            value = values[key]
            if _XML_NAME.match(key) and key != "info":
                child = etree.SubElement(element, key)
            else:
                child = etree.SubElement(element, "info", name=key)
            if isinstance(value, dict):
                pending.append((child, value))
            elif isinstance(value, (list, tuple)):
                child.set("value", " ".join(str(v) for v in value))
            else:
                child.set("value", _text(value))


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


def write_attribute_rt_info(parent: etree._Element, data: dict[str, Any]) -> None:
    """Add ``<rt_info>`` under ``parent`` when there is anything to write."""
    if not data:
        return
    rt = etree.SubElement(parent, "rt_info")
    for key, value in data.items():
        if isinstance(value, dict) and "__element__" in value:
            inner = value["__element__"]
            child = etree.SubElement(rt, key)
            if all(isinstance(v, str) for v in inner.values()):
                for k, v in inner.items():
                    child.set(k, v)
            else:
                write_net_rt_info(child, inner)
            continue
        attrs = value if isinstance(value, dict) else {"value": value}
        child = etree.SubElement(rt, "attribute", name=key)
        if "version" not in attrs:
            child.set("version", "0")
        for k, v in attrs.items():
            child.set(k, _text(v))


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)
