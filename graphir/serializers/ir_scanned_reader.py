"""Reading an IR from the pieces :func:`ir_scan.scan_ir` cut (the fast path for big files).

Layers whose bodies are the same text up to their variable values (a Const's declaration and
offset, tensor names, a Parameter's shape, port dims: see ``VARIABLE_VALUES``) share one
:class:`_Template`: the body parsed once by lxml with those values blanked, its op class, decoded
attributes, port ids and the place of each value. Each layer then costs a dictionary look-up and
the building of its node, by the same ``_Reader`` methods the tree-based reader uses, so both build
identical models (``tests/test_ir_read_one_pass.py`` compares them on every fixture,
``tests/test_ir_scan.py`` on mutated files).

A layer a template cannot take (rt_info or other children, an op graphir lacks, ports with more
than dims) is parsed on its own and built as the tree reader builds it. Anything else unusual (an
edge that does not fit, layers out of id order) raises ``_Fallback``, and every error too: the
caller then reads the whole file with the tree-based reader, whose messages name what is wrong.
"""
from __future__ import annotations

import math
from typing import Any

from lxml import etree

from graphir.model import Model
from graphir.node import Node, Output
from graphir.ops.openvino.core import FOLDABLE_CONSTANT_SIZE, Constant, Parameter, Result
from graphir.serializers.ir_constants import BlobLoader
from graphir.serializers.ir_parser import MANY_ATTRIBUTES, _parser, element_attributes
from graphir.serializers.ir_reader import (_NO_ATTRIBUTES, _UNSET, _attributes, _connect, _const_declaration,
                                           _declared_type, _Fallback, _find_op, _new_constant, _parse_layer,
                                           _plain_port, _port_ids_index, _Reader, assemble, check_const_size,
                                           split_names)
from graphir.serializers.ir_rt_info import read_attribute_rt_info
from graphir.serializers.ir_scan import VARIABLE_VALUES, ScannedIR

_SLOTTED = frozenset(("offset", "names", "shape", "size", "element_type"))
_CONST_ATTRIBUTES = ("element_type", "shape", "size", "offset")


class _Template:
    """What every layer of one (type, version, other header attributes, body text up to its
    variable values) shares.

    ``plain``: the layer has only ``<data>``, ``<input>`` and ``<output>`` with plain ports and
    maybe an ``<rt_info>`` without variable values (a compressed model's Converts carry one), and
    its op is known; otherwise each such layer is parsed on its own. The body's variable values
    (VARIABLE_VALUES matches, numbered in text order) are slots: ``data_slots`` the ``<data>``
    attributes among them, (name, slot); ``name_slots[i]`` output port i's ``names`` (None: the
    constant ``names[i]``). Dims need no slot: a plain layer's op infers its shapes, and a dim slot
    only ever holds a valid dim (an int >= -1)."""

    __slots__ = ("plain", "cls", "ltype", "version", "attrib", "data", "in_ids", "out_index", "names",
                 "name_slots", "data_slots", "decoded", "extra", "const", "has_attribute_slots", "rt_info")

    def __init__(self, ltype: bytes, version: bytes, header_rest: bytes, parts: list[Any], reader: _Reader,
                 parser: Any) -> None:
        """``parts``: the body split by VARIABLE_VALUES (its values are left out here)."""
        self.plain = False
        self.ltype = ltype.decode()
        self.version = version.decode()
        pieces = [parts[0]]
        attribute_slots = 0
        for k in range(len(parts) // 4):
            attribute = parts[4 * k + 1]
            if attribute is None:
                pieces.append(b"<dim>0")
            else:
                pieces.append(b" " + attribute + b'="')
                attribute_slots += 1
            pieces.append(parts[4 * k + 4])
        self.has_attribute_slots = attribute_slots > 0
        try:
            el = etree.fromstring(b'<layer id="0" name="" type="' + ltype + b'" version="' + version + b'"'
                                  + header_rest + b">" + b"".join(pieces) + b"</layer>", parser)
        except (etree.LxmlError, ValueError):
            raise _Fallback from None
        if any(len(e.attrib) > MANY_ATTRIBUTES for e in el.iter()):
            raise _Fallback  # such a layer is read once anyway, by the tree reader
        attrib = element_attributes(el)
        for key in ("id", "name", "type", "version"):
            attrib.pop(key)
        self.attrib = attrib or _NO_ATTRIBUTES
        classes = reader._classes
        cls = classes.get((self.ltype, self.version), _UNSET)
        if cls is _UNSET:
            cls = classes[(self.ltype, self.version)] = _find_op(self.ltype, self.version)
        self.cls = cls
        data_el = in_el = out_el = rt_el = None
        for child in el:
            if child.tag == "data" and data_el is None:
                data_el = child
            elif child.tag == "input" and in_el is None:
                in_el = child
            elif child.tag == "output" and out_el is None:
                out_el = child
            elif child.tag == "rt_info" and rt_el is None:
                rt_el = child
            else:
                return
        if cls is None:
            return
        in_ports = [_plain_port(p, is_input=True) for p in in_el] if in_el is not None else []
        out_ports = [_plain_port(p) for p in out_el] if out_el is not None else []
        if None in in_ports or None in out_ports:
            return
        # the attribute slots in text order: every slot attribute the normalisation left empty
        slots = [(e, k) for e in el.iter() if e is not el for k, v in element_attributes(e).items()
                 if v == "" and k in _SLOTTED]
        if len(slots) != attribute_slots:
            return  # an empty value the normalisation did not make (e.g. after a tab): parse each layer
        numbers = [k for k in range(len(parts) // 4) if parts[4 * k + 1] is not None]
        self.in_ids = [p[0] for p in in_ports]  # type: ignore[index]
        self.out_index = _port_ids_index(tuple([p[0] for p in out_ports]))  # type: ignore[index]
        self.names = [split_names(p[1]) for p in out_ports]  # type: ignore[index]
        self.name_slots: list[int | None] = [None] * len(out_ports)
        self.data = element_attributes(data_el) if data_el is not None else {}
        self.data_slots: list[tuple[str, int]] = []
        out_port_els = list(out_el) if out_el is not None else []
        for (element, key), slot in zip(slots, numbers):
            parent = element.getparent()
            if element is data_el:
                self.data_slots.append((key, 4 * slot + 2))
            elif key == "names" and parent is out_el:
                self.name_slots[out_port_els.index(element)] = 4 * slot + 2
            elif not (element is in_el or element is out_el or parent is in_el or parent is out_el):
                return  # a value inside rt_info: parse each such layer on its own
        #: the layer's rt_info (copied for each node)
        self.rt_info = read_attribute_rt_info(rt_el) if rt_el is not None else None
        self.decoded = self.extra = None
        #: a Const's element_type, shape, size and offset: a slot number, or the text itself
        self.const: "list[int | bytes] | None" = None
        if cls is Constant:
            slot_of = dict(self.data_slots)
            if all(k in slot_of or k in self.data for k in _CONST_ATTRIBUTES):
                self.const = [slot_of[k] if k in slot_of else self.data[k].encode() for k in _CONST_ATTRIBUTES]
        elif not self.data_slots:
            self.decoded, self.extra = _attributes(cls, self.data, self.version, reader.file)
        self.plain = True

    def data_with(self, parts: list[Any]) -> dict[str, str]:
        """The ``<data>`` attributes of the layer split into ``parts``."""
        data = dict(self.data)
        for attr, slot in self.data_slots:
            data[attr] = parts[slot].decode()
        return data


def _fresh(value: Any) -> Any:
    """A copy of nested dicts and lists of immutable leaves (one node's rt_info)."""
    if type(value) is dict:
        return {k: _fresh(v) for k, v in value.items()}
    if type(value) is list:
        return [_fresh(v) for v in value]
    return value


def read_scanned(reader: _Reader, scanned: ScannedIR, root: Any) -> Model:
    """The model of a scanned file (``root``: its skeleton's root element). _Fallback, a
    GraphirError or a ValueError (text that does not decode or convert) means the tree-based
    reader must read it instead."""
    return _ScannedReader(reader, scanned).read(root)


class _ScannedReader:
    """One read of a scanned file: the edges by input port, the templates met so far, the nodes."""

    def __init__(self, reader: _Reader, scanned: ScannedIR) -> None:
        self.reader = reader
        self.file = reader.file
        self.layers = scanned.layers
        self.sources: dict[tuple[int, str], tuple[int, str]] = {}
        self.edge_list: list[tuple[int, int, str]] = []
        for frm_b, fport_b, to_b, tport_b in scanned.edges:
            frm, to, tport = int(frm_b), int(to_b), tport_b.decode()
            key = (to, tport)
            if key in self.sources:
                raise _Fallback
            self.sources[key] = (frm, fport_b.decode())
            self.edge_list.append((frm, to, tport))
        source = reader.bin
        if source is None:
            raise _Fallback
        self.source = source
        self.bin_size = source.size if source.exists else -1
        self.declarations: dict[tuple[bytes, bytes, bytes], tuple[Any, tuple[int, ...], int, Any]] = {}
        self.parser = _parser()
        self.nodes: dict[int, Node] = {}
        self.out_index: dict[int, dict[str, int]] = {}
        self.in_position: dict[tuple[int, str], int] = {}

    def read(self, root: Any) -> Model:
        templates: dict[tuple[Any, ...], _Template] = {}
        # bodies seen verbatim before (without attribute slots, e.g. every Add of a chain): no split
        verbatim: dict[tuple[bytes, ...], tuple[_Template, list[Any]]] = {}
        nodes, out_index, sources, in_position = self.nodes, self.out_index, self.sources, self.in_position
        params: list[Node] = []
        results: list[Node] = []
        split = VARIABLE_VALUES.split
        previous = -1
        fed = 0  # input ports connected
        for lid_b, name_b, ltype_b, version_b, rest_b, body in self.layers:
            lid = int(lid_b)
            if lid <= previous or not ltype_b:
                raise _Fallback
            previous = lid
            name = name_b.decode()
            seen = verbatim.get((ltype_b, version_b, rest_b, body))
            if seen is not None:
                tpl, parts = seen
            else:
                parts = split(body)
                if len(parts) == 1:
                    key: tuple[Any, ...] = (ltype_b, version_b, rest_b, body)
                else:
                    key = (ltype_b, version_b, rest_b, *parts[0::4], *parts[1::4])
                found = templates.get(key)
                if found is None:
                    found = templates[key] = _Template(ltype_b, version_b, rest_b, parts, self.reader, self.parser)
                tpl = found
                if not tpl.has_attribute_slots:
                    verbatim[(ltype_b, version_b, rest_b, body)] = (tpl, parts)
            if tpl.plain:
                inputs = _connect(lid, tpl.in_ids, sources, nodes, out_index, in_position)
                names = [set(n) if slot is None else split_names(parts[slot].decode())
                         for n, slot in zip(tpl.names, tpl.name_slots)]
                if tpl.const is not None:
                    node = self._const_node(tpl, parts, lid, name, inputs, names)
                else:
                    node = self._op_node(tpl, parts, lid, name, inputs, names)
                if tpl.rt_info is not None:
                    node.rt_info = _fresh(tpl.rt_info)
                out_index[lid] = tpl.out_index
            else:
                node = self._layer_on_its_own(lid_b, name_b, ltype_b, version_b, rest_b, body, lid)
            fed += len(node.inputs)
            nodes[lid] = node
            op_type = type(node.op)
            if op_type is Parameter:
                params.append(node)
            elif op_type is Result:
                results.append(node)
        return assemble(root, nodes, params, results, sources, in_position, fed, self.edge_list)

    def _const_node(self, tpl: _Template, parts: list[Any], lid: int, name: str, inputs: list[Output | None],
                    names: list[set[str]]) -> Node:
        """A Const layer, checked as ``_Reader._constant`` checks it (any problem: _Fallback)."""
        et_text, shape_text, size_text, offset_text = [
            parts[x] if isinstance(x, int) else x for x in tpl.const]  # type: ignore[union-attr]
        key = (et_text, shape_text, size_text)
        declaration = self.declarations.get(key)
        if declaration is None:
            et, shape, need = _const_declaration(et_text.decode(), shape_text.decode(), self.file)
            size = int(size_text)
            if size < 0:
                raise _Fallback
            check_const_size(et, shape, need, size, self.file)
            big = math.prod(shape) > FOLDABLE_CONSTANT_SIZE
            declaration = self.declarations[key] = (et, shape, size, _declared_type(et, list(shape)) if big else None)
        et, shape, size, declared = declaration
        offset = int(offset_text)
        if offset < 0 or (size > 0 and offset + size > self.bin_size):
            raise _Fallback
        shape_list = list(shape)
        op = _new_constant(et, shape_list, BlobLoader(self.source, offset, size, et, shape_list,
                                                      (self.file, lid, name, tpl.ltype)))
        if declared is not None and not tpl.attrib and len(names) == 1:  # a big one: as _make_node makes it
            node = Node._restore(op, inputs, name, lid, [declared])
            if names[0]:
                node.output_names = names
            return node
        return self.reader._make_node(op, {}, None, inputs, lid, name, tpl.attrib, names, self.reader._no_where)

    def _op_node(self, tpl: _Template, parts: list[Any], lid: int, name: str, inputs: list[Output | None],
                 names: list[set[str]]) -> Node:
        """Any other plain layer, as ``_Reader._plain_node`` builds it."""
        reader = self.reader
        if tpl.cls is Constant:  # one the template cannot check by itself (an attribute missing...)
            op: Any = reader._constant(tpl.data_with(parts), (self.file, lid, name, tpl.ltype))
            extra: dict[str, Any] = {}
            key = None
        else:
            if tpl.decoded is not None:
                decoded = tpl.decoded
                extra = {k: v.copy() if type(v) is dict else v for k, v in tpl.extra.items()}  # type: ignore[union-attr]
            else:
                decoded, extra = _attributes(tpl.cls, tpl.data_with(parts), tpl.version, self.file)
            op = decoded.instance(self.file)
            key = decoded.key
        return reader._make_node(op, extra, key, inputs, lid, name, tpl.attrib, names, reader._no_where)

    def _layer_on_its_own(self, lid_b: bytes, name_b: bytes, ltype_b: bytes, version_b: bytes, rest_b: bytes,
                          body: bytes, lid: int) -> Node:
        """A layer that is not plain: parsed by lxml and built as the tree-based reader builds it."""
        try:
            el = etree.fromstring(b'<layer id="' + lid_b + b'" name="' + name_b + b'" type="' + ltype_b
                                  + b'" version="' + version_b + b'"' + rest_b + b">" + body + b"</layer>",
                                  self.parser)
        except (etree.LxmlError, ValueError):
            raise _Fallback from None
        layer = _parse_layer(el, self.file, self.reader._body)
        inputs = _connect(lid, [p.id for p in layer.inputs], self.sources, self.nodes, self.out_index,
                          self.in_position)
        self.out_index[lid] = layer.out_index
        return self.reader._node(layer, inputs)
