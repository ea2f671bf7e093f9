"""IR reading: one ``<net>`` or ``<body>`` element -> a Model (see openvino_xml for the whole story).

Every problem is a SerializationError naming the file, the layer (id, name, type) and the cause.
"""
from __future__ import annotations

import heapq
import math
import re
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
from graphir.ops.registry import _REGISTRY, find
from graphir.serializers.ir_attributes import _hook, decode_attributes
from graphir.serializers.ir_constants import BinSource, expected_size, lazy_loader
from graphir.serializers.ir_rt_info import read_attribute_rt_info, read_net_rt_info
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

_BODY_TAGS = ("body", "then_body", "else_body")
_MAP_TAGS = ("port_map", "then_port_map", "else_port_map", "back_edges")
_LAYER_CHILDREN = {"data", "input", "output", "rt_info"}
_VERSIONS = ("10", "11")

@dataclass(slots=True)
class _Port:
    id: str
    precision: str | None
    dims: list[int] | None
    names: set[str]
    rt_info: dict[str, Any]


@dataclass(slots=True)
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
    attrib = dict(element.items())
    lid_text = attrib.pop("id", None)
    name = attrib.pop("name", None)
    if name is None:
        name = ""
    where = f"{file}: layer id={lid_text} name='{name}'"
    if lid_text is None:
        raise SerializationError(f"{where}: missing attribute 'id'")
    try:
        lid = int(lid_text)
    except ValueError:
        raise SerializationError(f"{where}: id \"{lid_text}\" is not an integer") from None
    ltype = attrib.pop("type", None)
    if not ltype:
        raise SerializationError(f"{where}: missing attribute 'type'")
    version = attrib.pop("version", None)
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
            data = dict(child.items())
        elif tag == "input":
            for p in child:
                if p.tag == "port":
                    inputs.append(_parse_port(p, where))
        elif tag == "output":
            for p in child:
                if p.tag == "port":
                    outputs.append(_parse_port(p, where))
        elif tag == "rt_info":
            rt_el = child
        else:
            others.append(child)
    for ports, kind in ((inputs, "input"), (outputs, "output")):
        for p in ports:
            if p.precision is None:
                raise SerializationError(f"{where}: {kind} port {p.id} has no precision")
        if len(ports) > 1:
            ids = [p.id for p in ports]
            if len(set(ids)) != len(ids):
                raise SerializationError(f"{where}: {kind} port ids repeat: {', '.join(ids)}")
    layer = _Layer(lid, name, ltype, version, data, inputs, outputs,
                   read_attribute_rt_info(rt_el) if rt_el is not None else {}, attrib, {}, None,
                   {p.id: i for i, p in enumerate(inputs)}, {p.id: i for i, p in enumerate(outputs)})
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


_UNKNOWN_TYPE = TensorType(ElementType.dynamic, PartialShape.dynamic())


_DECLARED: dict[tuple[ElementType, tuple[int, ...]], TensorType] = {}


def _declared_type(et: ElementType, shape: list[int]) -> TensorType:
    """The (immutable, valueless) type of a big Constant, shared between equal declarations."""
    key = (et, tuple(shape))
    found = _DECLARED.get(key)
    if found is None:
        found = TensorType(et, PartialShape([_dim(d) for d in shape]))
        if len(_DECLARED) < 4096:
            _DECLARED[key] = found
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
            get = e.get
            frm_text, fport, to_text, tport = get("from-layer"), get("from-port"), get("to-layer"), get("to-port")
            try:  # the common case; anything odd takes the checked path below with its messages
                frm, to = int(frm_text), int(to_text)  # type: ignore[arg-type]
                src, dst = layers[frm], layers[to]
                ok = fport in src.out_index and tport in dst.in_index and (to, tport) not in sources
            except (TypeError, ValueError, KeyError):
                ok = False
            if ok:
                sources[(to, tport)] = (frm, fport)  # type: ignore[index]
                self.edge_order.append((frm, to, tport))  # type: ignore[arg-type]
                continue
            ewhere = (f"{where}: edge from-layer={frm_text} from-port={fport} "
                      f"to-layer={to_text} to-port={tport}")
            frm, to = _int_attr(e, "from-layer", ewhere), _int_attr(e, "to-layer", ewhere)
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
        for p in layer.inputs:
            _precision(p, where)  # must be a known one
        for p in layer.outputs:
            _precision(p, where)
        op, extra = self._op(layer, where)
        opaque = isinstance(op, OpaqueOp)
        # a known op's outputs are re-inferred below (as OpenVINO does); an opaque one keeps the file's
        big_constant = isinstance(op, Constant) and math.prod(op.shape) > FOLDABLE_CONSTANT_SIZE
        if big_constant:  # too large to fold: its type is its declaration, and its data stays unread
            output_types = [_declared_type(op.element_type, op.shape)]
        elif opaque:
            output_types = op.recorded_outputs
        else:  # placeholders (as Node makes them) until inference below
            output_types = [_UNKNOWN_TYPE] * op.num_outputs()
        node = Node(op, inputs, name=layer.name, id=layer.id, output_types=output_types, infer=False)
        node.extra.update(extra)
        node.rt_info = layer.rt_info
        if big_constant or opaque:  # otherwise set after inference below
            for i, port in enumerate(layer.outputs[: len(node.output_names)]):
                node.output_names[i] = set(port.names)
        for p in layer.outputs:
            if p.rt_info:
                node.extra["ir_output_rt_info"] = {i: p.rt_info for i, p in enumerate(layer.outputs) if p.rt_info}
                break
        for p in layer.inputs:
            if p.rt_info:
                node.extra["ir_input_rt_info"] = {i: p.rt_info for i, p in enumerate(layer.inputs) if p.rt_info}
                break
        if layer.attrib:
            node.extra["ir_layer_attributes"] = dict(layer.attrib)
        if layer.child_order:
            node.extra["ir_child_order"] = layer.child_order
        if isinstance(op, Result) and "output_names" in layer.attrib:
            node.extra["ir_layer_attributes"].pop("output_names")
            if not node.extra["ir_layer_attributes"]:
                del node.extra["ir_layer_attributes"]
        if not (big_constant or opaque):
            try:
                node.infer()
            except GraphirError as exc:
                raise SerializationError(f"{where}: {exc}") from None
            if isinstance(op, Result):
                node.output_names[0] = split_names(layer.attrib.get("output_names", ""))
            else:  # the op may have inferred more outputs than it first declared (variadic)
                for i, port in enumerate(layer.outputs[: len(node.output_names)]):
                    node.output_names[i] = set(port.names)
        return node

    def _op(self, layer: _Layer, where: str) -> tuple[Op, dict[str, Any]]:
        extra: dict[str, Any] = {}
        cls = _find_op(layer.type, layer.version)
        if cls is Constant:
            return self._constant(layer, where), extra
        if cls is None:
            return opaque_op(layer.type, layer.version, attrs=dict(layer.data), layer_id=str(layer.id),
                             layer_name=layer.name, recorded_inputs=[_tensor_type(p, where) for p in layer.inputs],
                             recorded_outputs=[_tensor_type(p, where) for p in layer.outputs],
                             children=dict(layer.children)), extra
        raw = dict(layer.data)
        if cls is Parameter and "shape" not in raw:
            raw["shape"] = ""
        values, unknown, original = _decoded(cls, raw, where)
        if layer.children:
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
        if shape and min(shape) < 0:
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
        return _new_constant(et, shape, lazy_loader(source, offset, size, et, shape, where))


_DECODED: dict[tuple[Any, ...], tuple[dict[str, Any], dict[str, str], dict[str, str]]] = {}
_SCALARS = (str, int, float, bool, type(None), ElementType, PartialShape)


def _decoded(cls: type[Op], raw: dict[str, str], where: str) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """decode_attributes, remembered per (op class, attribute text) when every value is immutable
    (a 10,000-layer file repeats the same few attribute sets); callers get fresh dicts."""
    hook = _hook(cls)
    key = (cls, hook.read if hook is not None else None, *raw.items())
    hit = _DECODED.get(key)
    if hit is None:
        hit = decode_attributes(cls, raw, where)
        if len(_DECODED) < 4096 and all(isinstance(v, _SCALARS) for v in hit[0].values()):
            _DECODED[key] = hit
    return dict(hit[0]), dict(hit[1]), dict(hit[2])


_OPSET = re.compile(r"opset\d+")
_FOUND: dict[tuple[str, str], tuple[int, Any, "type[Op] | None"]] = {}


def _find_op(type_name: str, version: str) -> "type[Op] | None":
    """The op class for a layer's type and opset, cached per pair (a later registration, or a
    replaced ``find``, refreshes it)."""
    key = (type_name, version)
    hit = _FOUND.get(key)
    if hit is not None and hit[0] == len(_REGISTRY) and hit[1] is find:
        cls = hit[2]
        if cls is None or _REGISTRY.get((cls.dialect, cls.type_name, cls.version)) is cls:
            return cls
    cls = find("openvino", type_name, version) if _OPSET.fullmatch(version) else None
    _FOUND[key] = (len(_REGISTRY), find, cls)
    return cls


_CONSTANT_FIELDS = frozenset(("element_type", "shape"))
_FAST_CONSTANT = (set(Constant.model_fields) == _CONSTANT_FIELDS
                  and set(Constant.__private_attributes__) == {"_data", "_loader"})


def _new_constant(et: ElementType, shape: list[int], loader: Any) -> Constant:
    """``Constant.model_construct`` without pydantic's per-call default resolution: the fields are
    already typed and checked, and Constant's private attributes are exactly ``_data``/``_loader``."""
    if not _FAST_CONSTANT:
        op = Constant.model_construct(element_type=et, shape=shape)
        op._loader = loader
        return op
    op = object.__new__(Constant)
    object.__setattr__(op, "__dict__", {"element_type": et, "shape": shape})
    object.__setattr__(op, "__pydantic_fields_set__", set(_CONSTANT_FIELDS))
    object.__setattr__(op, "__pydantic_extra__", None)
    object.__setattr__(op, "__pydantic_private__", {"_data": None, "_loader": loader})
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
