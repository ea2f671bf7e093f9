"""IR writing: a Model -> ``<net>`` element tree + .bin blobs, with OpenVINO's port numbering,
spellings and layout (see openvino_xml for the whole story)."""
from __future__ import annotations

from typing import Any

from lxml import etree

from graphir.errors import SerializationError, clip, clip_repr
from graphir.model import Model
from graphir.node import Node
from graphir.ops.base import TensorType
from graphir.ops.opaque import OpaqueOp
from graphir.ops.openvino.core import Constant, Result
from graphir.serializers.ir_attributes import encode_attributes
from graphir.serializers.ir_constants import BinWriter, pack
from graphir.serializers.ir_rt_info import write_attribute_rt_info, write_net_rt_info
from graphir.shapes import PartialShape
from graphir.types import ElementType

_BODY_TAGS = ("body", "then_body", "else_body")


def join_names(names: set[str]) -> str:
    return ",".join(n.replace(",", "\\,") for n in sorted(names))


class _Writer:
    def __init__(self, version: int) -> None:
        self.version = version
        self.bin = BinWriter()

    def graph(self, model: Model, parent: Any) -> None:
        layers = etree.SubElement(parent, "layers")
        model.ensure_types()  # an edited model is saved as it now is
        order = model.live_nodes()  # nodes no Result or sink reaches are not written
        result_names: dict[tuple[int, int], set[str]] = {}
        for node in order:
            if isinstance(node.op, Result) and node.inputs and node.inputs[0] is not None:
                fed_by = node.inputs[0]
                result_names.setdefault((fed_by.node.id, fed_by.index), set(node.output_names[0]))
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
        try:
            return self._layer(node, parent, result_names)
        except (ValueError, UnicodeError) as exc:
            if isinstance(exc, SerializationError):
                raise
            raise SerializationError(f"node {node.id} {clip_repr(node.name)} ({node.type_name}): cannot be written as XML (a name, attribute or rt_info "
                                     f"value holds a character XML cannot carry: a control character or a lone "
                                     f"surrogate): {clip(exc)}") from None

    def _layer(self, node: Node, parent: Any, result_names: dict[tuple[int, int], set[str]]) -> Any:
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
                    items[tag].sort(key=lambda d: "purpose" in d)  # OpenVINO writes Loop's special ports last
            if "back_edges" in fields:
                items["back_edges"] = [{"tag": "edge", **d} for d in (getattr(op, "back_edges") or [])]
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
    try:
        return _net_tree(model, version)
    except (ValueError, UnicodeError) as exc:
        if isinstance(exc, SerializationError):
            raise
        raise SerializationError(f"model {clip_repr(model.name)}: cannot be written as XML (its name or rt_info holds a "
                                 f"character XML cannot carry: a control character or a lone surrogate): "
                                 f"{clip(exc)}") from None


def _net_tree(model: Model, version: int) -> tuple[Any, BinWriter]:
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
