"""A graphir Model as Model Explorer graphs (``model_explorer.graph_builder``)."""
from __future__ import annotations

import re
from collections import deque
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

try:
    from model_explorer import graph_builder as gb
except ImportError as exc:  # pragma: no cover - exercised by the test of the message
    from graphir.explorer import EXPLORER_MISSING

    raise ImportError(EXPLORER_MISSING) from exc

from graphir.explorer import page_ids
from graphir.model import Model, named_bodies

if TYPE_CHECKING:
    from graphir.node import Node

#: values of a Constant shown in its attributes when it has at most this many (else the first ones)
CONSTANT_PREVIEW = 8
_MODULE = re.compile(r"^__module\.([^/]*)")
_SINK_PORT = re.compile(r"/sink_port_\d+$")


def namespace_of(name: str) -> str:
    """The layer tree a node sits in, from its name's module path: a torch export's
    ``__module.m.rpn.head/aten::conv/Convolution`` -> ``m/rpn/head``, its weights'
    ``self.features.0.weight`` -> ``features/0``; torch's ONNX exporter's scopes
    ``/features/features.1/block/block.0/Conv`` -> ``features/1/block/0`` (the same tree as the IR
    export of the module); ``a/b/c`` -> ``a/b``; the torch op components (``aten::relu``), OpenVINO's
    Result suffix (``x/sink_port_0``) and a plain name give none."""
    name = _SINK_PORT.sub("", name)
    match = _MODULE.match(name)
    if match:
        return "/".join(part for part in match.group(1).split(".") if part)
    if name.startswith("self.") and "/" not in name:
        return "/".join(part for part in name[len("self."):].split(".")[:-1] if part)
    if name.startswith("/"):
        return "/".join(_onnx_scopes(name.split("/")[1:-1]))
    parts = name.split("/")[:-1]
    while parts and "::" in parts[-1]:
        parts.pop()
    return "/".join(parts)


def _onnx_scopes(scopes: list[str]) -> list[str]:
    """torch's ONNX scopes name each module by its path below the enclosing one's
    (``features``, ``features.1``, ``block``, ``block.0``): the part each adds."""
    parts: list[str] = []
    previous = ""
    for scope in scopes:
        if not scope:
            continue
        parts.append(scope[len(previous) + 1:] if previous and scope.startswith(previous + ".") else scope)
        previous = scope
    return parts


def namespaces(model: Model) -> dict[int, str]:
    """Node id -> namespace: its name's (:func:`namespace_of`), else, for a node all of whose
    consumers share one (a Constant, its decompression Convert, a ShapeOf chain), theirs; so the
    helpers of a layer sit in the layer instead of at the top of the graph."""
    ordered = model.get_ordered_ops()
    consumers: dict[int, list[int]] = {}
    for node in ordered:
        for src in node.inputs:
            if src is not None:
                consumers.setdefault(src.node.id, []).append(node.id)
    found = {node.id: namespace_of(node.name) for node in ordered}
    for node in reversed(ordered):  # consumers first: a chain Constant -> Convert -> MatMul inherits
        if found[node.id] or node.type_name in ("Parameter", "Result"):
            continue
        spaces = {found[c] for c in consumers.get(node.id, [])}
        if len(spaces) == 1:
            found[node.id] = spaces.pop()
    return found


def model_graphs(model: Model, graph_id: str, *, positional: bool = False) -> list[gb.Graph]:
    """``model`` as ``graph_id`` and one graph per body at any depth (``<parent>/<node>/<body>``),
    bodies after the graph that holds them; ``positional``: nodes numbered by their position in
    each graph (:func:`graphir.explorer.positional_ids`)."""
    graphs: list[gb.Graph] = []
    pending: deque[tuple[Model, str]] = deque([(model, graph_id)])
    while pending:
        current, gid = pending.popleft()
        graph = gb.Graph(id=gid)
        spaces = namespaces(current)
        ids = page_ids(current, positional)
        for node in current.get_ordered_ops():
            bodies = [(f"{gid}/{node.name}/{body_name}", body) for body_name, body in named_bodies(node.op)]
            graph.nodes.append(_graph_node(node, ids, spaces[node.id], [bid for bid, _ in bodies]))
            pending.extend((body, bid) for bid, body in bodies)
        graphs.append(graph)
    return graphs


def _graph_node(node: "Node", ids: dict[int, str], namespace: str, subgraph_ids: list[str]) -> gb.GraphNode:
    attrs = [gb.KeyValue("name", node.name), gb.KeyValue("type", f"{node.type_name}-{node.version}"),
             gb.KeyValue("dialect", node.dialect)]
    attrs.extend(gb.KeyValue(key, value) for key, value in _attributes(node))
    edges = [gb.IncomingEdge(sourceNodeId=ids[src.node.id], sourceNodeOutputId=str(src.index), targetNodeInputId=str(i))
             for i, src in enumerate(node.inputs) if src is not None]
    outputs = []
    for i, output in enumerate(node.outputs()):
        t = output.tensor_type
        names = ", ".join(sorted(output.names)) or f"{node.name}:{i}"
        # not "tensor_name": the page files node-data values under the node whose output has that
        # tensor name before it looks at node ids, and a torch export's tensor names are numbers
        outputs.append(gb.MetadataItem(id=str(i), attrs=[
            gb.KeyValue("tensor_names", names), gb.KeyValue("type", str(t.element_type)),
            gb.KeyValue("shape", str(t.shape))]))
    inputs = [gb.MetadataItem(id=str(i), attrs=[gb.KeyValue("type", str(src.tensor_type.element_type)),
                                                gb.KeyValue("shape", str(src.tensor_type.shape))])
              for i, src in enumerate(node.inputs) if src is not None]
    return gb.GraphNode(id=ids[node.id], label=node.type_name, namespace=namespace,
                        subgraphIds=subgraph_ids, attrs=attrs, incomingEdges=edges, outputsMetadata=outputs,
                        inputsMetadata=inputs)


def _attributes(node: "Node") -> list[tuple[str, str]]:
    """The op's attributes as text (bodies are subgraphs, not attributes); a Constant's values."""
    shown = []
    for key, value in node.op.attributes().items():
        if isinstance(value, Model):
            continue
        shown.append((key, _text(value)))
    if node.type_name == "Constant":
        shown.append(("value", _constant_preview(node.op)))
    return shown


def _text(value: Any) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def _constant_preview(op: Any) -> str:
    try:
        array = np.asarray(op.value)
    except Exception as exc:  # noqa: BLE001 - an unreadable .bin: say so on the node, open the rest
        return f"(cannot read: {exc})"
    flat = array.reshape(-1)
    values = ", ".join(str(v) for v in flat[:CONSTANT_PREVIEW].tolist())
    return f"[{values}]" if flat.size <= CONSTANT_PREVIEW else f"[{values}, ...] ({flat.size} values)"
