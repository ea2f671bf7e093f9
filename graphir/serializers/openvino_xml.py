"""OpenVINO IR v10/v11 (``.xml`` + ``.bin``): :func:`read_ir`, :func:`write_ir`, and one ``<layer>``
on its own (:func:`read_layer`, :func:`write_layer`).

Reading keeps everything in the file: layer ids (the node ids), names, opset versions, typed
attributes (see :mod:`graphir.serializers.ir_attributes`, which documents the attribute codec and
its hook for op authors), unknown attributes, port precisions, dims and tensor names, Result
``output_names``, rt_info at net, layer and port level, and the net name and version
(``model.meta["ir_version"]``). Port ids follow OpenVINO: inputs first, then outputs. Constants are
lazy over a memory-mapped ``.bin``. Layers graphir does not implement load as opaque nodes
(:mod:`graphir.ops.opaque`). Every problem is a SerializationError naming file, layer and cause.

Subgraph bodies (TensorIterator, Loop, If): ``<body>``/``<then_body>``/``<else_body>`` are read as
nested Models and ``<port_map>``/``<then_port_map>``/``<else_port_map>``/``<back_edges>`` as lists
of attribute dicts. An op class that declares the fields ``body``/``then_body``/``else_body``
(Model), ``input_descriptions``/``output_descriptions``/``back_edges`` (list[dict]) gets them; If
gets ``then_`` and ``else_``-prefixed descriptions when it declares them. Otherwise they stay on
the node (``node.extra["ir_children"]``, or the opaque op's ``children``) and are written back.
"""
from __future__ import annotations

import heapq
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from graphir.errors import GraphirError, SerializationError
from graphir.model import Model
from graphir.node import Node, Output
from graphir.ops.base import Op, TensorType
from graphir.ops.opaque import OpaqueOp, opaque_op
from graphir.ops.openvino.core import FOLDABLE_CONSTANT_SIZE, Constant, Parameter, Result
from graphir.ops.registry import find
from graphir.serializers.ir_attributes import decode_attributes, encode_attributes
from graphir.serializers.ir_constants import BinSource, BinWriter, expected_size, lazy_loader, pack
from graphir.serializers.ir_parser import parse_xml
from graphir.serializers.ir_rt_info import (read_attribute_rt_info, read_net_rt_info,
                                            write_attribute_rt_info, write_net_rt_info)
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

__all__ = ["read_ir", "write_ir", "read_layer", "write_layer", "read_ir_string", "write_ir_string"]

_BODY_TAGS = ("body", "then_body", "else_body")
_MAP_TAGS = ("port_map", "then_port_map", "else_port_map", "back_edges")
_LAYER_CHILDREN = {"data", "input", "output", "rt_info"}
_VERSIONS = ("10", "11")


# ================================================================================== reading ==
@dataclass
class _Port:
    id: str
    precision: str | None
    dims: list[int] | None
    names: set[str]
    rt_info: dict[str, Any]


@dataclass
class _Layer:
    id: int
    name: str
    type: str
    version: str
    data: dict[str, str]
    inputs: list[_Port]
    outputs: list[_Port]
    rt_info: dict[str, Any]
    attrib: dict[str, str]
    children: dict[str, Any] = field(default_factory=dict)
    child_order: list[str] | None = None
    in_index: dict[str, int] = field(default_factory=dict)  # port id -> input index
    out_index: dict[str, int] = field(default_factory=dict)  # port id -> output index

    def where(self, file: str) -> str:
        return f"{file}: layer id={self.id} name='{self.name}' type={self.type}"


def split_names(text: str) -> set[str]:
    """Tensor names from a ``names=`` attribute (``\\,`` is a comma inside a name)."""
    if not text:
        return set()
    parts = re.split(r"(?<!\\),", text)
    return {p.replace("\\,", ",").strip() for p in parts if p.strip()}


def join_names(names: set[str]) -> str:
    return ",".join(n.replace(",", "\\,") for n in sorted(names))


def _int_attr(element: Any, key: str, where: str) -> int:
    text = element.get(key)
    if text is None:
        raise SerializationError(f"{where}: missing attribute '{key}'")
    try:
        return int(text)
    except ValueError:
        raise SerializationError(f"{where}: attribute {key}=\"{text}\" is not an integer") from None


def _parse_port(element: Any, where: str) -> _Port:
    pid = element.get("id")
    if pid is None:
        raise SerializationError(f"{where}: a <port> has no id")
    dims: list[int] = []
    rt_el = None
    for child in element:
        tag = child.tag
        if tag == "dim":
            text = child.text
            try:
                value = int(text)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise SerializationError(
                    f"{where}: port {pid}: <dim>{(text or '').strip()}</dim> is not an integer (-1 for dynamic)") from None
            if value < -1:
                raise SerializationError(f"{where}: port {pid}: <dim>{value}</dim> must be >= -1")
            dims.append(value)
        elif tag == "rt_info":
            rt_el = child
    names = element.get("names")
    return _Port(pid, element.get("precision"), dims, split_names(names) if names else set(),
                 read_attribute_rt_info(rt_el) if rt_el is not None else {})


def _parse_layer(element: Any, file: str, body_parser: Any = None) -> _Layer:
    lid_text = element.get("id")
    name = element.get("name", "")
    where = f"{file}: layer id={lid_text} name='{name}'"
    if lid_text is None:
        raise SerializationError(f"{where}: missing attribute 'id'")
    try:
        lid = int(lid_text)
    except ValueError:
        raise SerializationError(f"{where}: id \"{lid_text}\" is not an integer") from None
    ltype = element.get("type")
    if not ltype:
        raise SerializationError(f"{where}: missing attribute 'type'")
    version = element.get("version")
    if version is None:
        raise SerializationError(f"{where} type={ltype}: missing mandatory attribute 'version'")
    where = f"{where} type={ltype}"
    data: dict[str, str] = {}
    inputs: list[_Port] = []
    outputs: list[_Port] = []
    rt_el = None
    others = []
    order: list[str] = []
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        order.append(tag)
        if tag == "data":
            data = dict(child.attrib)
        elif tag == "input":
            inputs.extend(_parse_port(p, where) for p in child if p.tag == "port")
        elif tag == "output":
            outputs.extend(_parse_port(p, where) for p in child if p.tag == "port")
        elif tag == "rt_info":
            rt_el = child
        else:
            others.append(child)
    for ports, kind in ((inputs, "input"), (outputs, "output")):
        for p in ports:
            if p.precision is None:
                raise SerializationError(f"{where}: {kind} port {p.id} has no precision")
        ids = [p.id for p in ports]
        if len(set(ids)) != len(ids):
            raise SerializationError(f"{where}: {kind} port ids repeat: {', '.join(ids)}")
    attrib = dict(element.attrib)
    for key in ("id", "name", "type", "version"):
        attrib.pop(key, None)
    layer = _Layer(lid, name, ltype, version, data, inputs, outputs,
                   read_attribute_rt_info(rt_el) if rt_el is not None else {}, attrib)
    for child in others:
        if child.tag in _BODY_TAGS and body_parser is not None:
            layer.children[child.tag] = body_parser(child, f"{where} <{child.tag}>")
        elif child.tag in _MAP_TAGS:
            layer.children[child.tag] = [
                {"tag": c.tag, **{k: _maybe_int(v) for k, v in c.attrib.items()}}
                for c in child if isinstance(c.tag, str)
            ]
        else:
            layer.children[child.tag] = etree.tostring(child, encoding="unicode", with_tail=False)
    if others:
        layer.child_order = order
    layer.in_index = {p.id: i for i, p in enumerate(inputs)}
    layer.out_index = {p.id: i for i, p in enumerate(outputs)}
    return layer


def _maybe_int(text: str) -> "int | str":
    try:
        return int(text)
    except ValueError:
        return text


_PRECISIONS: dict[str, ElementType] = {}
_ELEMENT_TYPES: dict[str, ElementType] = {t.value: t for t in ElementType}


def _precision(port: _Port, where: str) -> ElementType:
    key = port.precision or ""
    et = _PRECISIONS.get(key)
    if et is None:
        try:
            et = ElementType.from_ir_precision(key)
        except GraphirError:
            raise SerializationError(f"{where}: port {port.id} has unknown precision \"{port.precision}\"") from None
        _PRECISIONS[key] = et
    return et


_DIMS: dict[int, Dimension] = {-1: Dimension.dynamic()}


def _dim(d: int) -> Dimension:
    found = _DIMS.get(d)
    if found is None:
        found = Dimension(d, d)
        if len(_DIMS) < 4096:
            _DIMS[d] = found
    return found


def _tensor_type(port: _Port, where: str) -> TensorType:
    et = _precision(port, where)
    return TensorType(et, PartialShape([_dim(d) for d in port.dims or ()]))


class _Reader:
    """Builds one Model (or one body) from a ``<net>``/``<body>`` element."""

    def __init__(self, file: str, bin_source: BinSource | None) -> None:
        self.file = file
        self.bin = bin_source

    def read_graph(self, root: Any, where: str) -> Model:
        layers_el = root.find("layers")
        if layers_el is None:
            raise SerializationError(f"{where}: no <layers> element")
        layers: dict[int, _Layer] = {}
        order: list[int] = []
        for el in layers_el:
            if not isinstance(el.tag, str):
                continue
            if el.tag != "layer":
                raise SerializationError(f"{where}: unexpected <{el.tag}> inside <layers>")
            layer = _parse_layer(el, self.file, self._body)
            if layer.id in layers:
                other = layers[layer.id]
                raise SerializationError(
                    f"{layer.where(self.file)}: duplicate layer id {layer.id} "
                    f"(also layer name='{other.name}' type={other.type})")
            layers[layer.id] = layer
            order.append(layer.id)
        self.edge_order: list[tuple[int, int, str]] = []
        sources = self._edges(root, layers, where)
        topo = self._toposort(layers, sources, where)
        nodes: dict[int, Node] = {}
        for lid in topo:
            layer = layers[lid]
            inputs: list[Output | None] = []
            for index, port in enumerate(layer.inputs):
                src = sources.get((lid, port.id))
                if src is None:
                    raise SerializationError(f"{layer.where(self.file)}: input port {port.id} has no incoming edge")
                src_node = nodes[src[0]]
                src_layer = layers[src[0]]
                out_index = src_layer.out_index[src[1]]
                if out_index >= len(src_node.output_types):
                    raise SerializationError(
                        f"{layer.where(self.file)}: input port {port.id} reads output port {src[1]} of "
                        f"{src_layer.where(self.file)}, which records {len(src_layer.outputs)} output ports "
                        f"but has {len(src_node.output_types)} outputs")
                inputs.append(Output(src_node, out_index))
            nodes[lid] = self._node(layer, inputs)
        params = [nodes[i] for i in order if isinstance(nodes[i].op, Parameter)]
        results = [nodes[i] for i in order if isinstance(nodes[i].op, Result)]
        try:
            model = Model(results, params, name=root.get("name", "Model"), nodes=nodes.values())
        except GraphirError as exc:
            raise SerializationError(f"{where}: {exc}") from None
        # OpenVINO groups edges by producer but orders each group its own way: keep the file's order
        model.meta["ir_edge_order"] = [(f, t, layers[t].in_index[tp]) for f, t, tp in self.edge_order]
        return model

    def _body(self, element: Any, where: str) -> Model:
        model = self.read_graph(element, where)
        model.rt_info = read_net_rt_info(element.find("rt_info"))
        return model

    def _edges(self, root: Any, layers: dict[int, _Layer], where: str) -> dict[tuple[int, str], tuple[int, str]]:
        sources: dict[tuple[int, str], tuple[int, str]] = {}
        edges_el = root.find("edges")
        for e in edges_el.iter("edge") if edges_el is not None else ():
            ewhere = (f"{where}: edge from-layer={e.get('from-layer')} from-port={e.get('from-port')} "
                      f"to-layer={e.get('to-layer')} to-port={e.get('to-port')}")
            frm, to = _int_attr(e, "from-layer", ewhere), _int_attr(e, "to-layer", ewhere)
            fport, tport = e.get("from-port"), e.get("to-port")
            if fport is None or tport is None:
                raise SerializationError(f"{ewhere}: missing from-port or to-port")
            if frm not in layers:
                raise SerializationError(f"{ewhere}: there is no layer {frm}")
            if to not in layers:
                raise SerializationError(f"{ewhere}: there is no layer {to}")
            src, dst = layers[frm], layers[to]
            if fport not in src.out_index:
                raise SerializationError(
                    f"{ewhere}: {src.where(self.file)} has no output port {fport} "
                    f"(output ports: {', '.join(p.id for p in src.outputs) or 'none'})")
            if tport not in dst.in_index:
                raise SerializationError(
                    f"{ewhere}: {dst.where(self.file)} has no input port {tport} "
                    f"(input ports: {', '.join(p.id for p in dst.inputs) or 'none'})")
            if (to, tport) in sources:
                raise SerializationError(f"{ewhere}: {dst.where(self.file)} input port {tport} has two incoming edges")
            sources[(to, tport)] = (frm, fport)
            self.edge_order.append((frm, to, tport))
        return sources

    def _toposort(self, layers: dict[int, _Layer], sources: dict[tuple[int, str], tuple[int, str]],
                  where: str) -> list[int]:
        indegree = {lid: 0 for lid in layers}
        users: dict[int, list[int]] = {lid: [] for lid in layers}
        for (dst, _), (src, _) in sources.items():
            indegree[dst] += 1
            users[src].append(dst)
        ready = [lid for lid, d in indegree.items() if d == 0]
        heapq.heapify(ready)
        out: list[int] = []
        while ready:
            lid = heapq.heappop(ready)
            out.append(lid)
            for u in users[lid]:
                indegree[u] -= 1
                if indegree[u] == 0:
                    heapq.heappush(ready, u)
        if len(out) != len(layers):
            stuck = [layers[lid] for lid, d in indegree.items() if d > 0][:5]
            listed = ", ".join(f"id={l.id} name='{l.name}' type={l.type}" for l in stuck)
            raise SerializationError(f"{where}: the edges form a cycle through layers {listed}")
        return out

    # --- one layer -> one node ------------------------------------------------------------
    def _node(self, layer: _Layer, inputs: list[Output | None]) -> Node:
        where = layer.where(self.file)
        recorded = [_tensor_type(p, where) for p in layer.outputs]
        for p in layer.inputs:
            _precision(p, where)  # must be a known one
        op, extra = self._op(layer, recorded, where)
        opaque = isinstance(op, OpaqueOp)
        if isinstance(op, Result):
            output_types = None
        elif opaque or isinstance(op, Constant):
            output_types = recorded
        else:
            output_types = recorded if len(recorded) == op.num_outputs() else None
        node = Node(op, inputs, name=layer.name, id=layer.id, output_types=output_types, infer=False)
        if output_types is None:
            node.output_types = [TensorType(ElementType.dynamic, PartialShape.dynamic())] * op.num_outputs()
            node.output_names = [set() for _ in node.output_types]
        node.extra.update(extra)
        node.rt_info = layer.rt_info
        for i, port in enumerate(layer.outputs[: len(node.output_names)]):
            node.output_names[i] = set(port.names)
        port_rt = {i: p.rt_info for i, p in enumerate(layer.outputs) if p.rt_info}
        if port_rt:
            node.extra["ir_output_rt_info"] = port_rt
        in_rt = {i: p.rt_info for i, p in enumerate(layer.inputs) if p.rt_info}
        if in_rt:
            node.extra["ir_input_rt_info"] = in_rt
        if layer.attrib:
            node.extra["ir_layer_attributes"] = dict(layer.attrib)
        if layer.child_order:
            node.extra["ir_child_order"] = layer.child_order
        if isinstance(op, Result) and "output_names" in layer.attrib:
            node.extra["ir_layer_attributes"].pop("output_names")
            if not node.extra["ir_layer_attributes"]:
                del node.extra["ir_layer_attributes"]
        if isinstance(op, Constant) and math.prod(op.shape) > FOLDABLE_CONSTANT_SIZE:
            # too large to fold: its type is its declaration, and its data stays unread
            node.output_types = [TensorType(op.element_type, PartialShape([_dim(d) for d in op.shape]))]
        elif not opaque:
            try:
                node.infer()
            except GraphirError as exc:
                raise SerializationError(f"{where}: {exc}") from None
            if isinstance(op, Result):
                node.output_names[0] = split_names(layer.attrib.get("output_names", ""))
        return node

    def _op(self, layer: _Layer, recorded: list[TensorType], where: str) -> tuple[Op, dict[str, Any]]:
        extra: dict[str, Any] = {}
        cls = find("openvino", layer.type, layer.version) if re.fullmatch(r"opset\d+", layer.version) else None
        if cls is Constant:
            return self._constant(layer, where), extra
        if cls is None:
            return opaque_op(layer.type, layer.version, attrs=dict(layer.data), layer_id=str(layer.id),
                             layer_name=layer.name, recorded_inputs=[_tensor_type(p, where) for p in layer.inputs],
                             recorded_outputs=recorded, children=dict(layer.children)), extra
        raw = dict(layer.data)
        if cls is Parameter and "shape" not in raw:
            raw["shape"] = ""
        values, unknown, original = decode_attributes(cls, raw, where)
        values.update(self._structural(cls, layer, extra))
        try:
            op = cls(**values)
        except GraphirError as exc:
            raise SerializationError(f"{where}: {exc}") from None
        if unknown:
            extra["ir_unknown_attributes"] = unknown
        extra["ir_attribute_text"] = original
        if layer.version != cls.version:
            extra["ir_version"] = layer.version
        return op, extra

    def _structural(self, cls: type[Op], layer: _Layer, extra: dict[str, Any]) -> dict[str, Any]:
        """Subgraph bodies and port maps for op classes that declare them; the rest stays in extra."""
        fields = cls.model_fields
        values: dict[str, Any] = {}
        rest: dict[str, Any] = {}
        for tag, content in layer.children.items():
            if tag in _BODY_TAGS and tag in fields:
                values[tag] = content
            elif tag in ("port_map", "then_port_map", "else_port_map"):
                prefix = {"port_map": "", "then_port_map": "then_", "else_port_map": "else_"}[tag]
                ins = [{k: v for k, v in d.items() if k != "tag"} for d in content if d["tag"] == "input"]
                outs = [{k: v for k, v in d.items() if k != "tag"} for d in content if d["tag"] == "output"]
                if f"{prefix}input_descriptions" in fields and f"{prefix}output_descriptions" in fields:
                    values[f"{prefix}input_descriptions"] = ins
                    values[f"{prefix}output_descriptions"] = outs
                else:
                    rest[tag] = content
            elif tag == "back_edges" and "back_edges" in fields:
                values["back_edges"] = [{k: v for k, v in d.items() if k != "tag"} for d in content]
            else:
                rest[tag] = content
        if rest:
            extra["ir_children"] = rest
        return values

    def _constant(self, layer: _Layer, where: str) -> Constant:
        data = layer.data
        et = _ELEMENT_TYPES.get(data.get("element_type", ""))
        if et is None:
            try:
                et = ElementType.parse(data.get("element_type", ""))
            except GraphirError:
                raise SerializationError(f"{where}: unknown element_type \"{data.get('element_type')}\"") from None
        if et.is_dynamic:
            raise SerializationError(f"{where}: a Const needs a static element_type, got \"{data.get('element_type')}\"")
        shape_text = data.get("shape", "")
        try:
            shape = [int(p) for p in shape_text.replace(" ", "").split(",") if p != ""]
        except ValueError:
            raise SerializationError(f"{where}: shape=\"{shape_text}\" is not a list of integers") from None
        if any(d < 0 for d in shape):
            raise SerializationError(f"{where}: shape=\"{shape_text}\" has a negative dimension")
        offset = _int_attr_text(data, "offset", where)
        size = _int_attr_text(data, "size", where)
        need = expected_size(et, shape)
        if need is not None and size < need:
            raise SerializationError(
                f"{where}: size={size} bytes is smaller than shape {shape} x {et} needs ({need} bytes)")
        if et is ElementType.string and size < 4:
            raise SerializationError(f"{where}: a string Const needs at least 4 bytes, size={size}")
        if size > 0:
            if self.bin is None or not self.bin.exists:
                raise SerializationError(f"{where}: the weights (.bin) file is missing or empty "
                                         f"({self.bin.path if self.bin and self.bin.path else 'no weights given'})")
            if offset + size > self.bin.size:
                raise SerializationError(
                    f"{where}: offset={offset} size={size} lies outside the weights file "
                    f"({self.bin.size} bytes)")
        source = self.bin if self.bin is not None else BinSource(where, data=b"")
        # validated above: skip pydantic's validation (10,000-layer files have thousands of these)
        op = Constant.model_construct(element_type=et, shape=shape)
        op._loader = lazy_loader(source, offset, size, et, shape, where)
        return op


def _int_attr_text(data: dict[str, str], key: str, where: str) -> int:
    text = data.get(key)
    if text is None:
        raise SerializationError(f"{where}: missing attribute '{key}'")
    try:
        value = int(text)
    except ValueError:
        raise SerializationError(f"{where}: {key}=\"{text}\" is not an integer") from None
    if value < 0:
        raise SerializationError(f"{where}: {key}={value} is negative")
    return value


def _weights(path: Path | None, weights: Any, where: str) -> BinSource:
    if isinstance(weights, (bytes, bytearray, memoryview)):
        return BinSource(where, data=bytes(weights))
    if weights is not None:
        return BinSource(f"{where} (weights {weights})", path=Path(weights))
    if path is None:
        return BinSource(where, data=None)
    return BinSource(f"{where} (weights {path.with_suffix('.bin')})", path=path.with_suffix(".bin"))


def read_ir(path: Any, weights: Any = None) -> Model:
    """Read an IR ``.xml`` (a path, or the XML itself as bytes) with its ``.bin``."""
    if isinstance(path, (bytes, bytearray)):
        return read_ir_string(bytes(path), weights)
    p = Path(path)
    where = str(p)
    if not p.is_file():
        raise SerializationError(f"{where}: no such file")
    root = parse_xml(p, where)
    return _read_root(root, where, _weights(p, weights, where))


def read_ir_string(xml: "str | bytes", weights: Any = None) -> Model:
    """Read an IR from XML text in memory; ``weights`` is the .bin as bytes or a path."""
    data = xml.encode("utf-8") if isinstance(xml, str) else xml
    where = "<IR in memory>"
    root = parse_xml(data, where)
    source = _weights(None, weights, where) if weights is not None else BinSource(where, data=b"")
    return _read_root(root, where, source)


def _read_root(root: Any, where: str, source: BinSource) -> Model:
    if root.tag != "net":
        raise SerializationError(f"{where}: the root element is <{root.tag}>, expected <net>")
    version = root.get("version")
    if version not in _VERSIONS:
        raise SerializationError(f"{where}: IR version \"{version}\" is not supported (10 or 11)")
    model = _Reader(where, source).read_graph(root, where)
    model.meta["ir_version"] = int(version)
    model.rt_info = read_net_rt_info(root.find("rt_info"))
    extra_attrs = {k: v for k, v in root.attrib.items() if k not in ("name", "version")}
    if extra_attrs:
        model.meta["ir_net_attributes"] = extra_attrs
    if root.get("name") is None:
        model.meta["ir_no_name"] = True
    return model


# ================================================================================== writing ==
class _Writer:
    def __init__(self, version: int) -> None:
        self.version = version
        self.bin = BinWriter()

    def graph(self, model: Model, parent: Any) -> None:
        layers = etree.SubElement(parent, "layers")
        order = model.get_ordered_ops()
        result_names: dict[tuple[int, int], set[str]] = {}
        for node in order:
            if isinstance(node.op, Result) and node.inputs and node.inputs[0] is not None:
                src = node.inputs[0]
                result_names.setdefault((src.node.id, src.index), set(node.output_names[0]))
        edges: list[tuple[int, int, int, int]] = []
        for node in order:
            self.layer(node, layers, result_names)
            for i, src in enumerate(node.inputs):
                if src is not None:
                    edges.append((src.node.id, len(src.node.inputs) + src.index, node.id, i))
        edges_el = etree.SubElement(parent, "edges")
        position = {n.id: i for i, n in enumerate(order)}
        kept = {key: i for i, key in enumerate(model.meta.get("ir_edge_order", ()))}
        edges.sort(key=lambda e: (position[e[0]], kept.get((e[0], e[2], e[3]), len(kept)), position[e[2]], e[3]))
        for f, fp, t, tp in edges:
            etree.SubElement(edges_el, "edge", {"from-layer": str(f), "from-port": str(fp),
                                                "to-layer": str(t), "to-port": str(tp)})

    def layer(self, node: Node, parent: Any, result_names: dict[tuple[int, int], set[str]]) -> Any:
        op = node.op
        opaque = isinstance(op, OpaqueOp)
        type_name = op.type_name if opaque else type(op).serialized_type_names.get("ir", op.type_name)
        version = op.version if opaque else node.extra.get("ir_version", op.version)
        el = etree.SubElement(parent, "layer", id=str(node.id), name=node.name, type=type_name,
                              version=version)
        layer_attrs = dict(node.extra.get("ir_layer_attributes", {}))
        if isinstance(op, Result) and node.output_names and node.output_names[0] and self.version >= 11:
            layer_attrs["output_names"] = join_names(node.output_names[0])
        for k, v in layer_attrs.items():
            el.set(k, v)
        data = self.data(node)
        if data:
            data_el = etree.SubElement(el, "data")
            for k, v in data.items():
                data_el.set(k, v)
        write_attribute_rt_info(el, node.rt_info)
        n_in = len(node.inputs)
        if n_in:
            in_el = etree.SubElement(el, "input")
            in_rt = node.extra.get("ir_input_rt_info", {})
            for i, src in enumerate(node.inputs):
                t = src.tensor_type if src is not None else TensorType(ElementType.dynamic, PartialShape.dynamic())
                self.port(in_el, i, t, set(), in_rt.get(i, {}))
        if not isinstance(op, Result) and node.output_types:
            out_el = etree.SubElement(el, "output")
            out_rt = node.extra.get("ir_output_rt_info", {})
            for i, t in enumerate(node.output_types):
                names = node.output_names[i] if i < len(node.output_names) else set()
                if not names:
                    names = result_names.get((node.id, i), set())
                self.port(out_el, n_in + i, t, names, out_rt.get(i, {}))
        self.children(node, el)
        _order_children(el, node.extra.get("ir_child_order", _CHILD_ORDER))
        return el

    def port(self, parent: Any, pid: int, t: TensorType, names: set[str], rt: dict[str, Any]) -> None:
        p = etree.SubElement(parent, "port", id=str(pid), precision=t.element_type.ir_precision)
        if names:
            p.set("names", join_names(names))
        if t.shape.rank_is_static:
            for d in t.shape.dims:
                etree.SubElement(p, "dim").text = str(d.min) if d.is_static else "-1"
        if self.version >= 11:
            write_attribute_rt_info(p, rt)

    def data(self, node: Node) -> dict[str, str]:
        op = node.op
        if isinstance(op, OpaqueOp):
            return dict(op.attrs)
        if isinstance(op, Constant):
            return self.constant(node, op)
        if isinstance(op, Result):
            return dict(node.extra.get("ir_unknown_attributes", {}))
        return encode_attributes(node)

    def constant(self, node: Node, op: Constant) -> dict[str, str]:
        blob_ref = getattr(op._loader, "ir_blob", None)
        try:
            if blob_ref is not None and op._data is None:
                source, offset, size = blob_ref
                blob = bytes(source.read(offset, size))
            else:
                blob = pack(op.value, op.element_type)
        except (ValueError, TypeError) as exc:
            raise SerializationError(f"{node.describe()}: cannot write its data as {op.element_type}: {exc}") from None
        offset = self.bin.add(blob)
        out = {"element_type": op.element_type.value, "shape": ", ".join(str(d) for d in op.shape),
               "offset": str(offset), "size": str(len(blob))}
        out.update(node.extra.get("ir_unknown_attributes", {}))
        return out

    def children(self, node: Node, el: Any) -> None:
        op = node.op
        items: dict[str, Any] = {}
        if isinstance(op, OpaqueOp):
            items.update(op.children)
        else:
            fields = type(op).model_fields
            for prefix, tag in (("", "port_map"), ("then_", "then_port_map"), ("else_", "else_port_map")):
                if f"{prefix}input_descriptions" in fields:
                    ins = getattr(op, f"{prefix}input_descriptions") or []
                    outs = getattr(op, f"{prefix}output_descriptions") or []
                    items[tag] = [{"tag": "input", **d} for d in ins] + [{"tag": "output", **d} for d in outs]
            if "back_edges" in fields:
                items["back_edges"] = [{"tag": "edge", **d} for d in (op.back_edges or [])]
            for tag in _BODY_TAGS:
                if tag in fields and getattr(op, tag) is not None:
                    items[tag] = getattr(op, tag)
            items.update(node.extra.get("ir_children", {}))
        for tag in ("port_map", "then_port_map", "else_port_map", "back_edges", "body", "then_body", "else_body"):
            if tag in items:
                self.child(el, tag, items.pop(tag))
        for tag, content in items.items():
            self.child(el, tag, content)

    def child(self, el: Any, tag: str, content: Any) -> None:
        if isinstance(content, Model):
            body = etree.SubElement(el, tag)
            self.graph(content, body)
            write_net_rt_info(etree.SubElement(body, "rt_info"), content.rt_info)
            return
        if isinstance(content, str):
            el.append(etree.fromstring(content, etree.XMLParser(resolve_entities=False, no_network=True)))
            return
        holder = etree.SubElement(el, tag)
        for d in content:
            sub = etree.SubElement(holder, str(d.get("tag", "edge" if tag == "back_edges" else "input")))
            for k, v in d.items():
                if k != "tag":
                    sub.set(k, str(v))


_CHILD_ORDER = ["data", "rt_info", "else_port_map", "then_port_map", "port_map", "back_edges", "input",
                "output", "then_body", "else_body", "body"]


def _order_children(el: Any, order: list[str]) -> None:
    """Put a layer's children in the order the file had (or OpenVINO's usual order)."""
    children = list(el)
    rank = {tag: i for i, tag in enumerate(order)}
    ordered = sorted(children, key=lambda c: rank.get(c.tag, len(rank)))
    if ordered != children:
        for c in children:
            el.remove(c)
        el.extend(ordered)


def _tree(model: Model, version: int) -> tuple[Any, BinWriter]:
    writer = _Writer(version)
    attrs = {"name": model.name, "version": str(version)}
    root = etree.Element("net", attrs)
    for k, v in model.meta.get("ir_net_attributes", {}).items():
        root.set(k, v)
    writer.graph(model, root)
    rt = etree.SubElement(root, "rt_info")
    write_net_rt_info(rt, model.rt_info)
    etree.indent(root, space="\t")
    return root, writer.bin


def write_ir_string(model: Model, version: int | None = None) -> tuple[bytes, bytes]:
    """(xml bytes, bin bytes) of ``model``."""
    version = int(version or model.meta.get("ir_version", 11))
    if version not in (10, 11):
        raise SerializationError(f"model '{model.name}': cannot write IR version {version} (10 or 11)")
    try:
        model.validate()
    except GraphirError as exc:
        raise SerializationError(f"model '{model.name}': cannot be written: {exc}") from None
    root, bins = _tree(model, version)
    body = etree.tostring(root, encoding="utf-8")
    # OpenVINO (pugixml) writes ``<x a="1" />``; lxml escapes '>' in attribute values, so '/>' is a tag end
    body = re.sub(rb"([^\s])/>", rb"\1 />", body)
    xml = b'<?xml version="1.0"?>\n' + body + b"\n"
    return xml, b"".join(bins.chunks)


def write_ir(model: Model, path: Any, *, version: int | None = None, weights: Any = None) -> None:
    """Write ``path`` (.xml) and its .bin atomically (temp files, then rename)."""
    xml_path = Path(path)
    bin_path = Path(weights) if weights is not None else xml_path.with_suffix(".bin")
    xml, blob = write_ir_string(model, version)
    _atomic_write(bin_path, blob)
    _atomic_write(xml_path, xml)


def _atomic_write(path: Path, data: bytes) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise SerializationError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise SerializationError(f"{path}: cannot write: {exc.strerror or exc}") from None


# ============================================================================ one <layer> ==
def read_layer(xml: "str | bytes", weights: Any = None) -> Node:
    """One ``<layer>`` on its own (as the spec shows it): its op, with Parameters of the recorded
    input port types feeding it and its output types as recorded (re-inferred when graphir knows
    the op). ``...`` in place of id/name/version is accepted (id 0, opset1)."""
    text = xml.decode("utf-8") if isinstance(xml, (bytes, bytearray)) else xml
    text = re.sub(r"<layer\s+\.\.\.", '<layer id="0" name="layer" version="opset1"', text.strip(), count=1)
    root = parse_xml(text.encode("utf-8"), "<layer>")
    if root.tag != "layer":
        raise SerializationError(f"<layer>: the element is <{root.tag}>, expected <layer>")
    if root.get("id") is None:
        root.set("id", "0")
    if root.get("version") is None:
        root.set("version", "opset1")
    for port in root.iter("port"):
        if port.get("precision") is None:  # the spec's example leaves it out: unknown element type
            port.set("precision", "UNSPECIFIED")
    where = "<layer>"
    layer = _parse_layer(root, where)
    reader = _Reader(where, BinSource(where, data=bytes(weights) if weights is not None else b""))
    inputs: list[Output | None] = []
    for port in layer.inputs:
        t = _tensor_type(port, layer.where(where))
        inputs.append(Node(Parameter(shape=t.shape, element_type=t.element_type)).output(0))
    node = reader._node(layer, inputs)
    return node


def write_layer(node: Node) -> str:
    """The ``<layer>`` element of one node, as IR v11 writes it (no .bin: constant data is dropped)."""
    writer = _Writer(11)
    holder = etree.Element("layers")
    el = writer.layer(node, holder, {})
    etree.indent(el, space="\t")
    return etree.tostring(el, encoding="unicode")


def tensor_shape_of(output: Output) -> list[Any]:
    """Dims of an output as IR ``<dim>`` values (-1 for non-static); helper for tools."""
    return [d.min if d.is_static else -1 for d in output.partial_shape.dims]

