"""Reading an IR from the pieces :func:`ir_scan.scan_ir` cut (the fast path for big files).

Layers whose bodies are the same text, up to the values of ``offset`` and ``names`` attributes,
share one :class:`_Template`: the body parsed once by lxml, its op class, decoded attributes, port
ids and the roles of its variable values. Each layer then costs a dictionary look-up and the
building of its node, done by the same ``_Reader`` methods the tree-based reader uses, so both
build identical models (``tests/test_ir_read_one_pass.py`` compares them on every fixture).

Anything this path does not handle in the plain way (a layer with rt_info or other children, an
unknown op, an edge that does not fit) raises ``_Fallback``, and every error too: the caller then
reads the whole file with the tree-based reader, whose messages name what is wrong.
"""
from __future__ import annotations

from typing import Any

from lxml import etree

from graphir.model import Model
from graphir.node import Node
from graphir.ops.openvino.core import Constant, Parameter, Result
from graphir.serializers.ir_constants import BlobLoader
from graphir.serializers.ir_parser import _parser
from graphir.serializers.ir_reader import (_NO_ATTRIBUTES, _UNSET, _attributes, _connect, _const_declaration,
                                           _Fallback, _find_op, _new_constant, _parse_layer, _plain_port,
                                           _port_ids_index, _Reader, split_names)
from graphir.serializers.ir_scan import VARIABLE_VALUES, ScannedIR
from graphir.types import ElementType

_SLOT_ATTRIBUTES = ("offset", "names")


class _Template:
    """What every layer of one (type, version, other header attributes, body text) shares.

    ``plain``: the layer has only ``<data>``, ``<input>`` and ``<output>`` with plain ports, and its
    op is known; otherwise each such layer is parsed on its own. The body's variable values
    (``VARIABLE_VALUES`` matches, in text order) are slots: ``offset_slot`` a Const's offset,
    ``data_slots`` other ``<data>`` attributes (name, slot), ``name_slots[i]`` output port i's
    ``names`` (None: the constant ``names[i]``)."""

    __slots__ = ("plain", "cls", "ltype", "version", "attrib", "data", "in_ids", "out_index", "names",
                 "name_slots", "data_slots", "offset_slot", "decoded", "extra", "const")

    def __init__(self, ltype: bytes, version: bytes, header_rest: bytes, parts: list[bytes], reader: _Reader) -> None:
        """``parts``: the body split by VARIABLE_VALUES (its values are left out)."""
        self.plain = False
        self.ltype = ltype.decode()
        self.version = version.decode()
        body = b"".join([part if i % 3 == 0 else b" " + part + b'="' if i % 3 == 1 else b""
                         for i, part in enumerate(parts)])
        slot_count = len(parts) // 3
        try:
            el = etree.fromstring(b'<layer id="0" name="" type="' + ltype + b'" version="' + version + b'"'
                                  + header_rest + b">" + body + b"</layer>", _parser())
        except (etree.LxmlError, ValueError):
            raise _Fallback from None
        attrib = dict(el.items())
        for key in ("id", "name", "type", "version"):
            attrib.pop(key)
        self.attrib = attrib or _NO_ATTRIBUTES
        classes = reader._classes
        cls = classes.get((self.ltype, self.version), _UNSET)
        if cls is _UNSET:
            cls = classes[(self.ltype, self.version)] = _find_op(self.ltype, self.version)
        self.cls = cls
        data_el = in_el = out_el = None
        for child in el:
            if child.tag == "data" and data_el is None:
                data_el = child
            elif child.tag == "input" and in_el is None:
                in_el = child
            elif child.tag == "output" and out_el is None:
                out_el = child
            else:
                return
        if cls is None:
            return
        in_ports = [_plain_port(p) for p in in_el] if in_el is not None else []
        out_ports = [_plain_port(p) for p in out_el] if out_el is not None else []
        if None in in_ports or None in out_ports:
            return
        # the slots, in text order: every offset/names attribute left empty by the normalisation
        slots: list[tuple[Any, str]] = [(e, k) for e in el.iter() if e is not el
                                        for k, v in e.items() if k in _SLOT_ATTRIBUTES and v == ""]
        if len(slots) != slot_count:
            return  # an empty value the normalisation did not make (e.g. after a tab): parse each layer
        self.in_ids = [p[0] for p in in_ports]  # type: ignore[index]
        self.out_index = _port_ids_index(tuple([p[0] for p in out_ports]))  # type: ignore[index]
        self.names = [split_names(p[1]) for p in out_ports]  # type: ignore[index]
        self.name_slots: list[int | None] = [None] * len(out_ports)
        self.data = dict(data_el.items()) if data_el is not None else {}
        self.data_slots: list[tuple[str, int]] = []
        self.offset_slot: int | None = None
        out_port_els = [p for p in out_el] if out_el is not None else []
        for slot, (element, key) in enumerate(slots):
            if element is data_el:
                if cls is Constant and key == "offset":
                    self.offset_slot = slot
                else:
                    self.data_slots.append((key, slot))
            elif key == "names" and element.getparent() is out_el:
                self.name_slots[out_port_els.index(element)] = slot
        self.const = None
        self.decoded = self.extra = None
        if cls is Constant:
            if self.data_slots:
                return
            data = self.data
            et, shape, need = _const_declaration(data.get("element_type", ""), data.get("shape", ""), "")
            size_text = data.get("size")
            try:
                size = int(size_text)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                return
            if size < 0 or (need is not None and size < need) or (et is ElementType.string and size < 4):
                return
            if self.offset_slot is None:
                offset = data.get("offset")
                if offset is None or not offset.isdigit():
                    return
            self.const = (et, shape, size)
        elif not self.data_slots:
            self.decoded, self.extra = _attributes(cls, self.data, self.version, reader.file)
        self.plain = True


def read_scanned(reader: _Reader, scanned: ScannedIR, root: Any) -> Model:
    """The model of a scanned file (``root``: its skeleton's root element); _Fallback, or any
    GraphirError, when the tree-based reader must read it instead."""
    file = reader.file
    sources: dict[tuple[int, str], tuple[int, str]] = {}
    edge_list: list[tuple[int, int, str]] = []
    try:
        for frm_b, fport_b, to_b, tport_b in scanned.edges:
            frm, to, tport = int(frm_b), int(to_b), tport_b.decode()
            key = (to, tport)
            if key in sources:
                raise _Fallback
            sources[key] = (frm, fport_b.decode())
            edge_list.append((frm, to, tport))
    except (ValueError, UnicodeDecodeError):
        raise _Fallback from None
    templates: dict[tuple[bytes, ...], _Template] = {}
    nodes: dict[int, Node] = {}
    out_index: dict[int, dict[str, int]] = {}
    in_position: dict[tuple[int, str], int] = {}
    params: list[Node] = []
    results: list[Node] = []
    source = reader.bin
    if source is None:
        raise _Fallback
    bin_size = source.size if source.exists else -1
    split = VARIABLE_VALUES.split
    previous = -1
    fed = 0
    try:
        for lid_b, name_b, ltype_b, version_b, rest_b, body in scanned.layers:
            lid = int(lid_b)
            if lid <= previous or not ltype_b:
                raise _Fallback
            previous = lid
            name = name_b.decode()
            parts = split(body)
            if len(parts) == 1:
                key: tuple[bytes, ...] = (ltype_b, version_b, rest_b, body)
            else:
                key = (ltype_b, version_b, rest_b, *parts[0::3], *parts[1::3])
            tpl = templates.get(key)
            if tpl is None:
                tpl = templates[key] = _Template(ltype_b, version_b, rest_b, parts, reader)
            if not tpl.plain:
                node, index = _layer_on_its_own(reader, lid_b, name_b, ltype_b, version_b, rest_b, body, lid,
                                                sources, nodes, out_index, in_position)
                fed += len(node.inputs)
            else:
                inputs = _connect(lid, tpl.in_ids, sources, nodes, out_index, in_position)
                fed += len(inputs)
                names = [set(n) if slot is None else split_names(parts[3 * slot + 2].decode())
                         for n, slot in zip(tpl.names, tpl.name_slots)]
                if tpl.const is not None:
                    et, shape, size = tpl.const
                    slot = tpl.offset_slot
                    offset = int(parts[3 * slot + 2] if slot is not None else tpl.data["offset"])
                    if offset < 0 or (size > 0 and offset + size > bin_size):
                        raise _Fallback
                    shape_list = list(shape)
                    op: Any = _new_constant(et, shape_list, BlobLoader(source, offset, size, et, shape_list,
                                                                      (file, lid, name, tpl.ltype)))
                    extra: dict[str, Any] = {}
                    op_key = None
                else:
                    decoded = tpl.decoded
                    if decoded is None:
                        data = dict(tpl.data)
                        for attr, slot in tpl.data_slots:
                            data[attr] = parts[3 * slot + 2].decode()
                        decoded, extra = _attributes(tpl.cls, data, tpl.version, file)
                    else:
                        extra = {k: v.copy() if type(v) is dict else v for k, v in tpl.extra.items()}  # type: ignore[union-attr]
                    op = decoded.instance(file)
                    op_key = decoded.key
                node = reader._make_node(op, extra, op_key, inputs, lid, name, tpl.attrib, names, reader._no_where)
                index = tpl.out_index
            out_index[lid] = index
            nodes[lid] = node
            if type(node.op) is Parameter:
                params.append(node)
            elif type(node.op) is Result:
                results.append(node)
    except (ValueError, UnicodeDecodeError):
        raise _Fallback from None
    if len(in_position) != len(sources) or fed != len(sources):
        raise _Fallback
    model = Model(results, params, name=root.get("name", "Model"), nodes=nodes.values())
    model.meta["ir_edge_order"] = [(f, t, in_position[(t, tp)]) for f, t, tp in edge_list]
    return model


def _layer_on_its_own(reader: _Reader, lid_b: bytes, name_b: bytes, ltype_b: bytes, version_b: bytes,
                      rest_b: bytes, body: bytes, lid: int, sources: Any, nodes: dict[int, Node],
                      out_index: Any, in_position: Any) -> tuple[Node, dict[str, int]]:
    """A layer that is not plain: parsed by lxml and built as the tree-based reader builds it."""
    try:
        el = etree.fromstring(b'<layer id="' + lid_b + b'" name="' + name_b + b'" type="' + ltype_b
                              + b'" version="' + version_b + b'"' + rest_b + b">" + body + b"</layer>", _parser())
    except (etree.LxmlError, ValueError):
        raise _Fallback from None
    layer = _parse_layer(el, reader.file, reader._body)
    inputs = _connect(lid, [p.id for p in layer.inputs], sources, nodes, out_index, in_position)
    return reader._node(layer, inputs), layer.out_index

