"""Shared helpers of the IR serializer tests: fixture paths, canonical XML, model equality."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from lxml import etree

import graphir
from graphir.ops.openvino.core import Constant

IR = Path(__file__).resolve().parent / "fixtures" / "ir"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FIXTURES = sorted(IR.glob("*.xml"))


def canonical(path_or_bytes: "Path | bytes") -> tuple:
    """An element tree as nested tuples: attributes unordered, whitespace and comments ignored."""
    parser = etree.XMLParser(remove_comments=True, resolve_entities=False, no_network=True)
    if isinstance(path_or_bytes, Path):
        root = etree.parse(str(path_or_bytes), parser).getroot()
    else:
        root = etree.fromstring(path_or_bytes, parser)

    def walk(e: Any) -> tuple:
        return (e.tag, tuple(sorted(e.attrib.items())), (e.text or "").strip(),
                tuple(walk(c) for c in e if isinstance(c.tag, str)))

    return walk(root)


def first_difference(a: tuple, b: tuple, path: str = "") -> str | None:
    """Where two canonical trees differ (for readable assertion messages)."""
    here = f"{path}/{a[0]}{dict(a[1]).get('id', '') and '#' + dict(a[1])['id']}"
    if a[:3] != b[:3]:
        return f"{here}: {a[:3]} != {b[:3]}"
    if len(a[3]) != len(b[3]):
        return f"{here}: {len(a[3])} children != {len(b[3])}"
    for x, y in zip(a[3], b[3]):
        d = first_difference(x, y, here)
        if d:
            return d
    return None


def model_summary(model: graphir.Model) -> list:
    """Everything a round trip must keep, per node, as plain comparable data."""
    out = []
    for node in sorted(model.nodes(), key=lambda n: n.id):
        op = node.op
        attrs = {k: v for k, v in op.attributes().items()
                 if not isinstance(v, graphir.Model) and k not in ("recorded_inputs", "children")}
        if isinstance(op, Constant):
            attrs["data"] = np.asarray(op.value).tobytes() if op.element_type is not graphir.ElementType.string \
                else list(np.asarray(op.value).reshape(-1))
        bodies = {k: model_summary(v) for k, v in op.attributes().items() if isinstance(v, graphir.Model)}
        bodies.update({k: model_summary(v) for k, v in getattr(op, "children", {}).items()
                       if isinstance(v, graphir.Model)})
        out.append((node.id, node.name, op.type_name, op.version, repr(attrs), repr(bodies),
                    [(s.node.id, s.index) if s is not None else None for s in node.inputs],
                    [str(t) for t in node.output_types], [sorted(n) for n in node.output_names],
                    repr(node.rt_info), repr(node.extra.get("ir_output_rt_info"))))
    return out
