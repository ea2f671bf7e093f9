"""What a drawing of a model shows, independent of the layout engine: boxes, edges, badges, clusters.

Constants are not boxes: each becomes a small badge on every consumer (type and shape, and the value
when it has at most a few elements). The bodies of If/Loop/TensorIterator become nested clusters
whose Parameters are linked to the node that owns them by a dashed edge.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.trampoline import Task, drive

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node
    from graphir.ops.base import TensorType

#: a Constant with at most this many elements shows its value in its badge
BADGE_VALUES = 4


@dataclass
class Box:
    """One drawn node."""

    key: str  # unique in the scene; also the element id in the SVG
    node_id: int
    type: str  # ``Convolution-opset1``
    name: str
    badges: list[str] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)  # ``f32[1,3,224,224]`` per connected input
    outputs: list[str] = field(default_factory=list)
    cluster: str | None = None  # key of the innermost cluster holding the box
    note: str | None = None  # a problem (dialect) or a measurement (profile), shown on hover
    fill: str | None = None  # colour set by an overlay
    extra_line: str | None = None  # a short third line (e.g. the time per node)


@dataclass
class Edge:
    source: str
    target: str
    label: str  # ``f32[?,16]``; empty for the dashed edges into a body
    dashed: bool = False


@dataclass
class Cluster:
    key: str
    label: str
    parent: str | None = None


@dataclass
class Scene:
    name: str
    boxes: dict[str, Box] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    clusters: dict[str, Cluster] = field(default_factory=dict)
    #: top-level node id -> box key (overlays colour top-level nodes)
    top_level: dict[int, str] = field(default_factory=dict)


def tensor_label(t: "TensorType") -> str:
    return f"{t.element_type}{t.shape}"


def constant_badge(node: "Node") -> str:
    """A Constant node's type, shape and (when small) values."""
    from graphir.ops.openvino.core import Constant

    op = node.op
    if not isinstance(op, Constant):  # callers pass Constants (see _is_constant)
        return ""
    text = f"{op.element_type}{list(op.shape)}".replace(" ", "")
    if op.size <= BADGE_VALUES and str(op.element_type) != "string":
        try:
            values = np.asarray(op.value).reshape(-1).tolist()
        except Exception:  # noqa: BLE001 - unreadable data: the badge still shows type and shape
            return text
        shown = ",".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in values)
        text += f" = {shown}" if op.size == 1 else f" = [{shown}]"
    return text


def attribute_text(value: Any) -> str:
    text = str(value.value) if isinstance(value, enum.Enum) else str(value)
    return text if len(text) <= 200 else text[:197] + "..."


def build_scene(model: "Model") -> Scene:
    """The scene of ``model``: every node except Constants, every edge between them, bodies nested."""
    scene = Scene(name=model.name or "model")
    drive(_add_graph(scene, model, prefix="n", cluster=None, owner=None))
    return scene


def _is_constant(node: "Node") -> bool:
    from graphir.ops.openvino.core import Constant

    return isinstance(node.op, Constant)


def _add_graph(scene: Scene, model: "Model", prefix: str, cluster: str | None, owner: str | None) -> Task[None]:
    """Add ``model``'s boxes and edges; a body's, at its node, by an inner task (graphir.trampoline:
    bodies nested any depth draw without nested calls)."""
    from graphir.model import named_bodies

    keys: dict[int, str] = {}
    for node in model.get_ordered_ops():
        if _is_constant(node):
            continue
        key = f"{prefix}{node.id}"
        keys[node.id] = key
        box = Box(key=key, node_id=node.id, type=f"{node.type_name}-{node.version}", name=node.name, cluster=cluster)
        bodies = {name for name, _ in named_bodies(node.op)}
        box.attributes = {k: attribute_text(v) for k, v in node.op.attributes().items() if k not in bodies}
        box.outputs = [tensor_label(t) for t in node.output_types]
        for src in node.inputs:
            if src is None:
                continue
            t = src.node.output_types[src.index]
            box.inputs.append(tensor_label(t))
            if _is_constant(src.node):
                box.badges.append(constant_badge(src.node))
        scene.boxes[key] = box
        if cluster is None:
            scene.top_level[node.id] = key
        for name, body in named_bodies(node.op):
            body_key = f"{key}_{re.sub(r'[^0-9A-Za-z_]', '_', name)}"  # a DOT id and an HTML id
            scene.clusters[f"cluster_{body_key}"] = Cluster(f"cluster_{body_key}", f"{node.name}: {name}", cluster)
            yield _add_graph(scene, body, prefix=f"{body_key}_", cluster=f"cluster_{body_key}", owner=key)
    for node in model.get_ordered_ops():
        if node.id not in keys:
            continue
        for src in node.inputs:
            if src is None or src.node.id not in keys:
                continue
            label = tensor_label(src.node.output_types[src.index])
            if len(src.node.output_types) > 1:  # which output: "1: f32[2,3]"
                label = f"{src.index}: {label}"
            scene.edges.append(Edge(keys[src.node.id], keys[node.id], label))
    if owner is not None:
        for param in model.get_parameters():
            scene.edges.append(Edge(owner, keys[param.id], "", dashed=True))
