"""IR reading: one ``<net>`` or ``<body>`` element -> a Model (see openvino_xml for the whole story).

Every problem is a SerializationError naming the file, the layer (id, name, type) and the cause.
"""
from __future__ import annotations

import functools

import heapq
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from lxml import etree
from pydantic import BaseModel

from graphir.errors import GraphirError, SerializationError, clip, file_error
from graphir.inference import infer_body, mark_body_inferred
from graphir.model import Model
from graphir.node import Node, Output
from graphir.ops.base import Op, SharedFieldsSet, TensorType
from graphir.ops.frozen import FrozenList
from graphir.ops.opaque import OpaqueOp, opaque_op
from graphir.ops.openvino.core import FOLDABLE_CONSTANT_SIZE, Constant, Parameter, Result, parameter_of
from graphir.ops.registry import find, generation, registered_exactly, type_names
from graphir.serializers.fast_build import (InferenceMemo, copyable, new_constant, new_object,
                                           set_dict, set_extra, set_fields_set, set_private, template_safe)
from graphir.serializers.ir_attributes import MAX_ATTRIBUTE_CHARS, _hook, decode_attributes
from graphir.serializers.ir_constants import BinSource, BlobLoader, describe_layer, expected_size
from graphir.serializers.ir_parser import MANY_ATTRIBUTES, element_attributes
from graphir.serializers.ir_rt_info import read_attribute_rt_info, read_net_rt_info
from graphir.shapes import MAX_LENGTH, MAX_RANK, Dimension, PartialShape
from graphir.types import ElementType

_BODY_TAGS = ("body", "then_body", "else_body")
_MAP_TAGS = ("port_map", "then_port_map", "else_port_map", "back_edges")
_VERSIONS = ("10", "11")

#: One ``<port>`` as read: a plain tuple (id, precision, recorded dims, names, rt_info), indexed
#: by the constants below. The dims are ints, -1 dynamic, or None when the document's dims were
#: checked at once and this layer's op infers its own types (see dims_are_valid); names is the
#: ``names`` attribute as written (None: none; split when the node is built). A plain tuple of
#: strings is made without an ``__init__`` call and the cyclic GC stops tracking it at its first
#: pass: a read keeps tens of thousands of ports until it ends, and tracked ones made the
#: collector's full passes (a third of a 10,000-layer read) come sooner and cost more.
_Port = tuple[Any, ...]
P_ID, P_PRECISION, P_DIMS, P_NAMES, P_RT_INFO = range(5)  # (positions in a _Port)


_PORT_DIM_TEXTS = etree.XPath("descendant::port/dim/text()", smart_strings=False)
_COUNT_PORT_DIMS = etree.XPath("count(descendant::port/dim)")
_COUNT_PORT_CHILDREN = etree.XPath("count(descendant::port/*)")
_PORTS_WITH_MORE = etree.XPath("descendant::port[*[not(self::dim)]]")


#: a ``<dim`` in a document's bytes that is not ``<dim>N</dim>`` with N -1 or 1-18 ASCII digits
_UNPLAIN_DIM = re.compile(rb"<dim(?!>(?:-1|[0-9]{1,18})</dim>)")
_ASCII_COMPATIBLE = frozenset(("UTF-8", "US-ASCII", "ASCII"))


def dims_are_valid(root: Any, text: "bytes | None" = None) -> "set[Any] | None":
    """Every port's ``<dim>`` in the document checked at once (before any layer is read): when each
    holds one text, an integer in -1..2^63-1, a set of ports that includes every port holding an
    ``<rt_info>`` (read port by port; usually none); otherwise None: then each port's dims are
    read and checked with its layer, for the message naming it.

    ``text``: the document's bytes. When it is UTF-8 (or ASCII) and every ``<dim`` in it is
    written ``<dim>N</dim>`` (N -1 or up to 18 digits, as OpenVINO writes them), every dim element
    holds one valid integer and the texts are not collected; anything else (entities, CDATA,
    comments, attributes, other encodings) is checked on the tree as before."""
    if text is not None and _dims_written_plainly(root, text):
        return _ports_with_rt_info(root)
    texts = _PORT_DIM_TEXTS(root)
    port_dims = _COUNT_PORT_DIMS(root)
    if len(texts) != port_dims:
        return None
    try:
        if not all(-1 <= int(t) <= MAX_LENGTH for t in set(texts)):
            return None
    except ValueError:
        return None
    return set() if _COUNT_PORT_CHILDREN(root) == port_dims else set(_PORTS_WITH_MORE(root))


def _ports_with_rt_info(root: Any) -> set[Any]:
    """The ports holding an ``<rt_info>``, the one subelement besides dims a port's reader reads
    (see _parse_ports): lxml walks the tree for the tag in C (3-4x faster than the XPath count
    of ports' other subelements) and makes a proxy only per ``<rt_info>``."""
    found = set()
    for element in root.iter("rt_info"):
        parent = element.getparent()
        if parent is not None and parent.tag == "port":
            found.add(parent)
    return found


def _dims_written_plainly(root: Any, text: bytes) -> bool:
    """Whether the bytes ``root`` was parsed from show every ``<dim>`` element as ``<dim>N</dim>``:
    only for a document libxml2 read as UTF-8/ASCII and without NUL bytes (UTF-16/32 hold NULs,
    and libxml2 reports a BOM-detected UTF-16 document as UTF-8), where each element's tag is
    those ASCII bytes."""
    encoding = (root.getroottree().docinfo.encoding or "").upper()
    return encoding in _ASCII_COMPATIBLE and b"\0" not in text and _UNPLAIN_DIM.search(text) is None


_NO_CHILDREN: dict[str, Any] = {}  # shared by layers without other subelements: never written to


class _Layer:
    """One ``<layer>`` as read from the file, before it becomes a node."""

    #: the op class (None: opaque, or an opset OpenVINO refuses: see opset_refusal)
    cls: "type[Op] | None"

    #: per input port: (source layer id, output index) of its edge, None without one (see _edges);
    #: None when no edge reaches the layer
    feeds: "list[tuple[int, int] | None] | None"

    __slots__ = ("id", "name", "type", "version", "data", "inputs", "outputs", "rt_info", "attrib",
                 "children", "child_order", "in_index", "out_index", "file", "cls", "feeds")

    def __init__(self, id: int, name: str, type: str, version: str, data: dict[str, str],
                 inputs: "_PortGroup", outputs: "_PortGroup", rt_info: dict[str, Any],
                 attrib: dict[str, str], file: str) -> None:
        self.id = id
        self.name = name
        self.type = type
        self.version = version
        self.data = data
        self.inputs, self.in_index = inputs  # the ports, and port id -> input index
        self.outputs, self.out_index = outputs  # port id -> output index
        self.rt_info = rt_info
        self.attrib = attrib
        self.children: dict[str, Any] = _NO_CHILDREN  # a dict of its own once it has some
        self.child_order: list[str] | None = None
        self.file = file
        self.cls = None
        self.feeds = None

    def where(self) -> str:
        return describe_layer((self.file, self.id, self.name, self.type))


_PORT_INDEXES: dict[tuple[str, ...], dict[str, int]] = {}
#: a layer's ``<input>`` or ``<output>`` ports and their index (port id -> position)
_PortGroup = tuple[tuple[_Port, ...], dict[str, int]]


def _port_ids_index(ids: tuple[str, ...]) -> dict[str, int]:
    """Port id -> position; the same few id sequences recur, so the (read-only) maps are shared."""
    found = _PORT_INDEXES.get(ids)
    if found is None:
        found = {pid: i for i, pid in enumerate(ids)}
        if len(_PORT_INDEXES) < 4096:
            _PORT_INDEXES[ids] = found
    return found


def split_names(text: "str | None") -> set[str]:
    """Tensor names from a ``names=`` attribute (``\\,`` is a comma inside a name). Spaces around a
    name are part of it, as OpenVINO 2026.4 reads them (``names=" a ,b"`` is ``' a '`` and ``'b'``)."""
    if not text:
        return set()
    if "\\" not in text:
        return {p for p in text.split(",") if p}
    parts = re.split(r"(?<!\\),", text)
    return {p.replace("\\,", ",") for p in parts if p}


def _int_attr(element: Any, key: str, where: str) -> int:
    text = element.get(key)
    if text is None:
        raise SerializationError(f"{where}: missing attribute '{key}'")
    try:
        return int(text)
    except ValueError:
        raise SerializationError(f"{where}: attribute {key}=\"{clip(text)}\" is not an integer") from None


def _place(where: "tuple[str, Any, str, str]") -> str:
    """How a message names the layer ``(file, id text, name, type)``."""
    file, lid, name, ltype = where
    return f"{file}: layer id={lid} name='{name}' type={ltype}"




def _port_dims(element: Any) -> list[int]:
    """A checked port's dims, read for an opaque layer (its types are the recorded ones; the
    others' dims are left unread)."""
    return [int(d.text) for d in element.iterchildren("dim")]


def _parse_ports(group: Any, where: Any, checked: "set[Any] | None" = None, opaque: bool = True,
                 shared: "dict[tuple[_Port, ...], _PortGroup] | None" = None) -> "_PortGroup":
    """The ``<port>`` children of an ``<input>``/``<output>`` and their index (port id ->
    position); ``where`` makes the layer's description (only errors need it). ``checked``: the
    document's dims are valid (see dims_are_valid) and these ports hold more than dims; None:
    check each port's dims here.

    ``shared``: this read's port groups without dims, names or rt_info (the same few recur: a
    MatMul's inputs are ``('0', 'FP32'), ('1', 'FP32')`` in every layer), so an equal group is
    the same tuple with the same index, and the one just made is freed again: fewer objects
    live through the read, and the cyclic GC, triggered by their count, runs fewer passes."""
    ports: list[_Port] = []
    plain = shared is not None
    for element in group:  # (a tag test per child: 25% cheaper than lxml's iterchildren("port"))
        if element.tag != "port":
            continue
        keys = element.keys()
        if keys == _PORT_KEYS:
            pid, precision = element.values()
            names = None
        elif keys == _NAMED_PORT_KEYS:
            pid, precision, names = element.values()
        else:
            pid, precision, names = element.get("id"), element.get("precision"), element.get("names")
        if pid is None:
            raise SerializationError(f"{_place(where)}: a <port> has no id")
        rt_el = None
        dims: "list[int] | tuple[()] | None" = ()
        count = len(element)
        if count:
            if count > MAX_RANK:  # checked before any dim is read
                raise SerializationError(f"{_place(where)}: port {clip(pid)} holds {count:,} elements, more "
                                         f"dimensions than the largest rank graphir reads ({MAX_RANK:,})")
            if checked is not None:
                dims = None  # valid: read when needed
                if checked and element in checked:
                    rt_el = element.find("rt_info")
            else:
                texts = [d.text for d in element.iterchildren("dim")]
                if len(texts) != count:
                    rt_el = element.find("rt_info")
                try:
                    dims = list(map(int, texts))
                except (TypeError, ValueError):
                    dims = _checked_dims(element, texts, where)
                if dims and (min(dims) < -1 or max(dims) > MAX_LENGTH):
                    if min(dims) < -1:
                        raise SerializationError(f"{_place(where)}: port {clip(pid)}: <dim>{min(dims)}</dim> must be >= -1")
                    raise SerializationError(f"{_place(where)}: port {clip(pid)}: <dim>{max(dims)}</dim> is beyond the "
                                             f"largest dimension 2^63-1")
        if dims is None and opaque:
            dims = _port_dims(element)
        if plain and (type(dims) is list or rt_el is not None or names):
            plain = False
        ports.append((pid, precision, dims, names or None,
                      read_attribute_rt_info(rt_el) if rt_el is not None else None))
    found = tuple(ports)  # (a tuple of untracked tuples: untracked too, see _Port)
    if plain:
        hit = shared.get(found)  # type: ignore[union-attr]
        if hit is None:
            hit = shared[found] = (found, _port_ids_index(tuple([p[P_ID] for p in found])))  # type: ignore[index]
        return hit
    return found, _port_ids_index(tuple([p[P_ID] for p in found]))


def _checked_dims(element: Any, texts: list[Any], where: Any) -> list[int]:
    for text in texts:
        try:
            int(text)
        except (TypeError, ValueError):
            raise SerializationError(
                f"{_place(where)}: port {clip(element.get('id'))}: <dim>{clip((text or '').strip())}</dim> is not an integer "
                f"(-1 for dynamic)") from None
    return list(map(int, texts))


def _parse_layer(element: Any, file: str, body_parser: Any = None, checked: "set[Any] | None" = None,
                 classes: "dict[tuple[str, str], type[Op] | None] | None" = None,
                 shared: "dict[tuple[_Port, ...], _PortGroup] | None" = None) -> _Layer:
    """One ``<layer>`` parsed and checked; ``classes``: the op classes found so far in this read;
    ``shared``: its port groups (see _parse_ports)."""
    if element.keys() == _LAYER_KEYS:  # as OpenVINO writes it
        lid_text, name, ltype, version = element.values()
        attrib = _NO_ATTRIBUTES
    else:
        attrib = element_attributes(element)
        lid_text = attrib.pop("id", None)
        name = attrib.pop("name", None)
        if name is None:
            name = ""
        ltype = attrib.pop("type", None)
        version = attrib.pop("version", None)
    try:
        lid = int(lid_text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        place = f"{file}: layer id={lid_text} name='{name}'"
        if lid_text is None:
            raise SerializationError(f"{place}: missing attribute 'id'") from None
        raise SerializationError(f"{place}: id \"{lid_text}\" is not an integer") from None
    if not ltype:
        raise SerializationError(f"{file}: layer id={lid_text} name='{name}': missing attribute 'type'")
    if version is None:
        raise SerializationError(
            f"{file}: layer id={lid_text} name='{name}' type={ltype}: missing mandatory attribute 'version'")

    where = (file, lid_text, name, ltype)  # formatted by _place only for a message

    if classes is None:
        cls = _find_op(ltype, version)
    else:
        key = (ltype, version)
        if key in classes:
            cls = classes[key]
        else:
            cls = classes[key] = _find_op(ltype, version)
    opaque = checked is None or cls is None  # only opaque layers keep recorded dims

    data: dict[str, str] = _NO_ATTRIBUTES
    inputs: _PortGroup = _NO_PORTS
    outputs: _PortGroup = _NO_PORTS
    rt_el = None
    others = None
    for child in element:
        tag = child.tag
        if tag == "data":
            keys = child.keys()  # (element_attributes, inlined for the few a <data> has)
            data = dict(zip(keys, child.values())) if len(keys) <= MANY_ATTRIBUTES else element_attributes(child)
        elif tag == "input":
            inputs = _parse_ports(child, where, checked, opaque, shared)
        elif tag == "output":
            outputs = _parse_ports(child, where, checked, opaque, shared)
        elif tag == "rt_info":
            rt_el = child
        elif isinstance(tag, str):
            if others is None:
                others = []
            others.append(child)
    for p in outputs[0]:  # OpenVINO needs it on output ports only; its own test IRs leave it off inputs
        if p[P_PRECISION] is None:
            raise SerializationError(f"{_place(where)}: output port {p[P_ID]} has no precision")
    layer = _Layer(lid, name, ltype, version, data, inputs, outputs,
                   read_attribute_rt_info(rt_el) if rt_el is not None else {}, attrib, file)
    layer.cls = cls
    if len(layer.in_index) != len(layer.inputs) or len(layer.out_index) != len(layer.outputs):
        for ports, index, kind in ((layer.inputs, layer.in_index, "input"), (layer.outputs, layer.out_index, "output")):
            if len(index) != len(ports):
                raise SerializationError(f"{_place(where)}: {kind} port ids repeat: {', '.join(p[P_ID] for p in ports)}")
    if others:
        layer.child_order = [c.tag for c in element if isinstance(c.tag, str)]
        layer.children = {}
        for child in others:
            if child.tag in _BODY_TAGS and body_parser is not None:
                layer.children[child.tag] = body_parser(child, f"{_place(where)} <{child.tag}>")
            elif child.tag in _MAP_TAGS:
                layer.children[child.tag] = [
                    {"tag": c.tag, **{k: _maybe_int(v) for k, v in c.attrib.items()}}
                    for c in child if isinstance(c.tag, str)
                ]
            else:
                layer.children[child.tag] = etree.tostring(child, encoding="unicode", with_tail=False)
    return layer


def _unfed_tail_is_optional(layer: _Layer, index: int) -> bool:
    """Whether input ports ``index..`` of ``layer`` all lack an edge and its op can do without them."""
    if layer.feeds is not None and any(feed is not None for feed in layer.feeds[index:]):
        return False
    cls = _find_op(layer.type, layer.version)
    return cls is not None and cls is not Constant and cls.input_count_range()[0] <= index


def _external_index(desc: dict[str, Any], index: dict[str, int], offset: int) -> dict[str, Any]:
    """A port-map entry without its tag, ``external_port_id`` (a port id of the layer, as OpenVINO
    reads it) turned into the position the ops use: the input's index, or the number of inputs plus
    the output's index. Ids that name no port stay as written (the op reports them)."""
    out = {k: v for k, v in desc.items() if k != "tag"}
    ext = out.get("external_port_id")
    if isinstance(ext, int) and ext != -1:
        position = index.get(str(ext))
        if position is None and offset and 0 <= ext < len(index):
            position = ext  # OpenVINO's 2022 test IRs number If outputs from 0 (if_diff_case.xml); it reads them
        if position is not None:
            out["external_port_id"] = offset + position
    return out


def _maybe_int(text: str) -> "int | str":
    try:
        return int(text)
    except ValueError:
        return text


_PRECISIONS: dict[str, ElementType] = {}
_ELEMENT_TYPES: dict[str, ElementType] = {t.value: t for t in ElementType}


def _lookup_precision(text: "str | None") -> "ElementType | None":
    """The element type of a port ``precision``, remembered; None when it is unknown."""
    et = _PRECISIONS.get(text or "")
    if et is None:
        try:
            et = _PRECISIONS[text or ""] = ElementType.from_ir_precision(text or "")
        except GraphirError:
            return None
    return et


def _precision(port: _Port, where: str) -> ElementType:
    if port[P_PRECISION] is None:  # an input port without one: the element type is not recorded
        return ElementType.dynamic
    et = _lookup_precision(port[P_PRECISION])
    if et is None:
        raise SerializationError(f"{where}: port {port[P_ID]} has unknown precision \"{port[P_PRECISION]}\"")
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
_SHAPES: dict[tuple[int, ...], PartialShape] = {}  # small Constants' shapes (immutable, shared)


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
    return TensorType(et, PartialShape([_dim(d) for d in port[P_DIMS] or ()]))


_LAYER_KEYS = ["id", "name", "type", "version"]
_EDGE_KEYS = ["from-layer", "from-port", "to-layer", "to-port"]
_PORT_KEYS = ["id", "precision"]
_NAMED_PORT_KEYS = ["id", "precision", "names"]
_NO_ATTRIBUTES: dict[str, str] = {}  # shared, never written to
_NO_PORTS: _PortGroup = ((), {})  # shared, never written to

#: how deep subgraph bodies (If/Loop/TensorIterator) may nest: OpenVINO reads 400 levels; libxml2
#: refuses elements nested deeper than 2048 (three per body level: ~680 levels) anyway
MAX_BODY_NESTING = 600


def unique_parameter_names(params: list[Node]) -> None:
    """Rename a Parameter tensor name that an earlier Parameter has already, as OpenVINO's reader
    does (measured, 2026.4): the first free of ``name_1``, ``name_2``, ... (``a, a, a`` reads as
    ``a, a_1, a_2``; ``a, a, a_1`` as ``a, a_1, a_1_1``). Otherwise an input given by that name
    would silently feed only the first."""
    used: set[str] = set()
    next_suffix: dict[str, int] = {}  # per name, where the search for a free suffix resumes (linear overall)
    for node in params:
        names = node.output_names[0]
        if not names:
            continue
        if used.isdisjoint(names):
            used.update(names)
            continue
        renamed = set()
        for name in sorted(names):
            if name in used:
                k = next_suffix.get(name, 1)
                while f"{name}_{k}" in used:
                    k += 1
                next_suffix[name] = k + 1
                name = f"{name}_{k}"
            used.add(name)
            renamed.add(name)
        node.output_names[0] = renamed


def _keep_layer_attributes(extra: dict[str, Any], attrib: dict[str, str], is_result: bool) -> None:
    """A layer's attributes besides id/name/type/version, kept for writing back (a Result's
    ``output_names`` are its tensor names instead)."""
    kept = dict(attrib)
    if is_result:
        kept.pop("output_names", None)
    if kept:
        extra["ir_layer_attributes"] = kept


class _Reader:
    """Builds one Model from a ``<net>`` (:meth:`read_net`) or a ``<body>`` element.

    The one path from a parsed document to a Model: every layer parsed (and checked) in file
    order, then every edge checked, then the nodes built in topological order (file order when
    every edge runs from a lower layer id to a higher one, as OpenVINO writes them), each node's
    types inferred as it is built. Subgraph bodies are read before the layers that hold them,
    innermost first, from an explicit list (no recursion on the nesting depth)."""

    def __init__(self, file: str, bin_source: BinSource | None, text: "bytes | None" = None) -> None:
        self.file = file
        self.text = text  # the document's bytes, when known (see dims_are_valid)
        self.bin = bin_source
        self._inferred = InferenceMemo()
        self._classes: dict[tuple[str, str], "type[Op] | None"] = {}
        self._port_groups: dict[tuple[_Port, ...], _PortGroup] = {}  # see _parse_ports
        #: small Constants' types (with their read-only values) per blob (offset, size, type, shape)
        #: of this read's .bin: Constants over the same blob share the value and the type, so
        #: their readers' inference is memoized alike (see _infer)
        self._blob_types: dict[tuple[Any, ...], TensorType] = {}
        #: body element -> its Model, read before the layer holding it (see read_net)
        self._bodies: dict[Any, Model] = {}
        #: bodies inferred from their own Parameter types, by id (kept alive here)
        self._settled: dict[int, Model] = {}
        #: see dims_are_valid (set by read_net for the whole document)
        self._checked: "set[Any] | None" = None

    def read_net(self, root: Any, where: str) -> Model:
        """The Model of a ``<net>`` element: its bodies first (innermost first), then its layers."""
        self._checked = dims_are_valid(root, self.text)
        for element, body_where in reversed(self._nested_bodies(root, where)):
            self._bodies[element] = self._read_body(element, body_where)
        return self.read_graph(root, where)

    def _nested_bodies(self, root: Any, where: str) -> list[tuple[Any, str]]:
        """Every body element under ``root`` with its description, parents before their bodies
        (walked with an explicit stack); a SerializationError past MAX_BODY_NESTING levels."""
        found: list[tuple[Any, str]] = []
        if next(root.iter(*_BODY_TAGS), None) is None:  # no such element at all (lxml knows without a walk
            return found                                 # when the document never names the tag)
        pending: list[tuple[Any, str, int]] = [(root, where, 0)]
        while pending:
            element, element_where, depth = pending.pop()
            layers_el = element.find("layers")
            if layers_el is None:
                continue
            for layer in layers_el:
                if layer.tag != "layer" or not len(layer):
                    continue
                for child in layer:
                    if child.tag not in _BODY_TAGS:
                        continue
                    name = layer.get("name")
                    body_where = (f"{self.file}: layer id={layer.get('id')} name='{'' if name is None else name}' "
                                  f"type={layer.get('type')} <{child.tag}>")
                    if depth + 1 > MAX_BODY_NESTING:
                        raise SerializationError(
                            f"{body_where}: subgraph bodies (If/Loop/TensorIterator) nested more than "
                            f"{MAX_BODY_NESTING} levels deep; graphir reads at most {MAX_BODY_NESTING}")
                    found.append((child, body_where))
                    pending.append((child, body_where, depth + 1))
        return found

    def _read_body(self, element: Any, where: str) -> Model:
        """A body, inferred as the op holding it will infer it (with folding) from its Parameters'
        own types; its nested bodies were read and inferred before it (see read_net), so this
        does not recurse, and the op holding it takes these types once (mark_body_inferred)."""
        model = self.read_graph(element, where)
        model.rt_info = read_net_rt_info(element.find("rt_info"))
        for node in model.nodes():  # its own bodies, settled before it: taken as they are again
            for tag in _BODY_TAGS:
                inner = getattr(node.op, tag, None)
                if isinstance(inner, Model) and id(inner) in self._settled:
                    mark_body_inferred(inner)
        params = [TensorType(parameter_of(p).element_type, parameter_of(p).shape) for p in model.get_parameters()]
        try:
            infer_body(model, params, where=where)
        except GraphirError:
            return model  # the op holding it infers it again and reports the problem in its words
        mark_body_inferred(model)
        self._settled[id(model)] = model
        return model

    def _body(self, element: Any, where: str) -> Model:
        """A body's Model: read already by read_net; read here when the layer is read on its own."""
        model = self._bodies.pop(element, None)
        return model if model is not None else self._read_body(element, where)

    def read_graph(self, root: Any, where: str) -> Model:
        """The Model of a ``<net>`` or ``<body>`` whose own bodies are read already."""
        layers_el = root.find("layers")
        if layers_el is None:
            raise SerializationError(f"{where}: no <layers> element")
        layers: dict[int, _Layer] = {}
        order: list[int] = []
        file, body, checked, classes, groups = self.file, self._body, self._checked, self._classes, self._port_groups
        for el in layers_el:
            tag = el.tag
            if tag != "layer":
                if not isinstance(tag, str):
                    continue
                raise SerializationError(f"{where}: unexpected <{tag}> inside <layers>")
            layer = _parse_layer(el, file, body, checked, classes, groups)
            if layer.id in layers:
                other = layers[layer.id]
                raise SerializationError(
                    f"{layer.where()}: duplicate layer id {layer.id} "
                    f"(also layer name='{other.name}' type={other.type})")
            layers[layer.id] = layer
            order.append(layer.id)
        self.edge_order: list[tuple[int, int, int]] = []  # (from layer, to layer, input index)
        self.ignored_edges: list[str] = []
        self._edges(root, layers, where)
        topo = self._toposort(layers, where)
        nodes = self._build_nodes(layers, topo)
        params = [nodes[i] for i in order if isinstance(nodes[i].op, Parameter)]
        results = [nodes[i] for i in order if isinstance(nodes[i].op, Result)]
        unique_parameter_names(params)
        try:
            model = Model(results, params, name=root.get("name", "Model"), nodes=nodes.values(), inferred=True,
                          restored=True)
        except GraphirError as exc:
            raise file_error(f"{where}: {exc}", exc) from None
        # OpenVINO groups edges by producer but orders each group its own way: keep the file's order
        model.meta["ir_edge_order"] = self.edge_order
        return model

    def _build_nodes(self, layers: dict[int, _Layer], topo: list[int]) -> dict[int, Node]:
        """Every layer's node, built (and inferred) in the topological order ``topo``."""
        nodes: dict[int, Node] = {}
        made: dict[tuple[int, int], Output] = {}  # one (immutable) Output per source port, shared by its readers
        for lid in topo:
            layer = layers[lid]
            feeds = layer.feeds
            inputs: list[Output | None] = []
            for index in range(len(layer.inputs)):
                feed = feeds[index] if feeds is not None else None
                if feed is None:
                    if _unfed_tail_is_optional(layer, index):
                        break  # OpenVINO builds the op from the inputs it has (Broadcast-1 without axes_mapping)
                    ignored = f"; ignored: {', '.join(self.ignored_edges)}" if self.ignored_edges else ""
                    raise SerializationError(f"{layer.where()}: input port {layer.inputs[index][P_ID]} has no "
                                             f"incoming edge{ignored}")
                output = made.get(feed)
                if output is None:
                    src_node = nodes[feed[0]]
                    out_index = feed[1]
                    if out_index >= len(src_node.output_types):
                        src_layer = layers[feed[0]]
                        raise SerializationError(
                            f"{layer.where()}: input port {layer.inputs[index][P_ID]} reads output port "
                            f"{src_layer.outputs[out_index][P_ID]} of {src_layer.where()}, which records "
                            f"{len(src_layer.outputs)} output ports but has {len(src_node.output_types)} outputs")
                    output = made[feed] = Output(src_node, out_index)
                inputs.append(output)
            nodes[lid] = self._node(layer, inputs)
        return nodes

    def _edges(self, root: Any, layers: dict[int, _Layer], where: str) -> None:
        """Every ``<edge>`` checked and recorded in its target layer's ``feeds``: (source layer id,
        output index) per input index (no dict of port-id pairs: one tuple per edge)."""
        edges_el = root.find("edges")
        edge_order = self.edge_order
        for e in edges_el.iter("edge") if edges_el is not None else ():
            if e.keys() == _EDGE_KEYS:
                frm_text, fport, to_text, tport = e.values()
            else:
                get = e.get
                frm_text, fport, to_text, tport = get("from-layer"), get("from-port"), get("to-layer"), get("to-port")
            try:  # the common case; anything odd takes the checked path below with its messages
                frm, to = int(frm_text), int(to_text)  # type: ignore[arg-type]
                src, dst = layers[frm], layers[to]
                out_index, index = src.out_index[fport], dst.in_index[tport]  # type: ignore[index]
                feeds: "list[tuple[int, int] | None]" = dst.feeds  # type: ignore[assignment]
                if feeds is None:
                    feeds = dst.feeds = [None] * len(dst.inputs)
                ok = feeds[index] is None
            except (TypeError, ValueError, KeyError):
                ok = False
            if ok:
                feeds[index] = (frm, out_index)
                edge_order.append((frm, to, index))
                continue
            ewhere = (f"{where}: edge from-layer={frm_text} from-port={fport} "
                      f"to-layer={to_text} to-port={tport}")
            frm, to = _int_attr(e, "from-layer", ewhere), _int_attr(e, "to-layer", ewhere)
            if fport is None or tport is None:
                raise SerializationError(f"{ewhere}: missing from-port or to-port")
            if to not in layers:  # OpenVINO ignores an edge into no layer (its reduce_to_pooling test IRs have one)
                self.ignored_edges.append(f"{ewhere.split(': ', 1)[-1]} (there is no layer {to})")
                continue
            if frm not in layers:
                raise SerializationError(f"{ewhere}: there is no layer {frm}")
            src, dst = layers[frm], layers[to]
            if fport not in src.out_index:
                raise SerializationError(
                    f"{ewhere}: {src.where()} has no output port {fport} "
                    f"(output ports: {', '.join(p[P_ID] for p in src.outputs) or 'none'})")
            if tport not in dst.in_index:
                raise SerializationError(
                    f"{ewhere}: {dst.where()} has no input port {tport} "
                    f"(input ports: {', '.join(p[P_ID] for p in dst.inputs) or 'none'})")
            index = dst.in_index[tport]
            if dst.feeds is None:
                dst.feeds = [None] * len(dst.inputs)
            if dst.feeds[index] is not None:
                raise SerializationError(f"{ewhere}: {dst.where()} input port {tport} has two incoming edges")
            dst.feeds[index] = (frm, src.out_index[fport])
            edge_order.append((frm, to, index))

    def _toposort(self, layers: dict[int, _Layer], where: str) -> list[int]:
        if all(feed is None or feed[0] < lid for lid, layer in layers.items() if layer.feeds for feed in layer.feeds):
            return sorted(layers)  # every edge runs from a lower id to a higher: the heap order below
        indegree = {lid: 0 for lid in layers}
        users: dict[int, list[int]] = {lid: [] for lid in layers}
        for lid, layer in layers.items():
            for feed in layer.feeds or ():
                if feed is not None:
                    indegree[lid] += 1
                    users[feed[0]].append(lid)
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
        for p in layer.inputs:  # a known precision, or none on an input port (checked in _parse_layer)
            if p[P_PRECISION] is not None and p[P_PRECISION] not in _PRECISIONS:
                _precision(p, layer.where())
        for p in layer.outputs:
            if p[P_PRECISION] not in _PRECISIONS:
                _precision(p, layer.where())
        cls = layer.cls
        if cls is Constant and not layer.children:
            node = self._constant_node(layer, inputs)
        elif cls is not None and cls is not Constant and not layer.children:
            node = self._plain_node(cls, layer, inputs)
        else:
            op, extra, key = self._op(layer)
            node = self._make_node(op, extra, key, inputs, layer)
        node.rt_info = layer.rt_info
        for p in layer.outputs:
            if p[P_RT_INFO]:
                node.extra["ir_output_rt_info"] = {i: p[P_RT_INFO] for i, p in enumerate(layer.outputs) if p[P_RT_INFO]}
                break
        for p in layer.inputs:
            if p[P_RT_INFO]:
                node.extra["ir_input_rt_info"] = {i: p[P_RT_INFO] for i, p in enumerate(layer.inputs) if p[P_RT_INFO]}
                break
        if layer.child_order:
            node.extra["ir_child_order"] = layer.child_order
        return node

    def _constant_node(self, layer: _Layer, inputs: list[Output | None]) -> Node:
        """_op and _make_node in one for a Const layer without subelements: its type is its
        declaration when it is too large to fold, else its value's (see _constant_type)."""
        op = self._constant(layer.data, (layer.file, layer.id, layer.name, layer.type))
        big = math.prod(op.shape) > FOLDABLE_CONSTANT_SIZE
        node = Node._restore(op, inputs, layer.name, layer.id,
                             [_declared_type(op.element_type, op.shape) if big else _UNKNOWN_TYPE])
        extra: dict[str, Any] = {}
        node.extra = extra
        if layer.attrib:
            _keep_layer_attributes(extra, layer.attrib, False)
        if not big:
            self._constant_type(node, op, layer.where)
        self._name_outputs(node, layer)
        return node

    def _name_outputs(self, node: Node, layer: _Layer) -> None:
        """Output tensor names from the layer's ports (the op may have inferred more outputs than
        it first declared: variadic ones)."""
        names = None
        for i, p in enumerate(layer.outputs):
            if p[P_NAMES]:
                if names is None:
                    names = node.output_names
                if i < len(names):
                    names[i] = split_names(p[P_NAMES])

    def _plain_node(self, cls: type[Op], layer: _Layer, inputs: list[Output | None]) -> Node:
        """_op and _make_node in one for the layers most files are made of: a known op other than
        Const, without subgraphs (what they would do, in fewer calls)."""
        decoded, extra = _attributes(cls, layer.data, layer.version, layer.where)
        op = decoded.instance(layer.where)
        node = Node._restore(op, inputs, layer.name, layer.id, [_UNKNOWN_TYPE] * op.num_outputs())
        node.extra = extra
        attrib = layer.attrib
        is_result = cls is Result
        if attrib:
            _keep_layer_attributes(extra, attrib, is_result)
        self._infer(node, decoded.key, layer.where)
        if is_result:
            node.output_names[0] = split_names(attrib.get("output_names", ""))
        else:
            self._name_outputs(node, layer)
        return node

    def _make_node(self, op: Op, extra: dict[str, Any], key: "tuple[Any, ...] | None", inputs: list[Output | None],
                   layer: _Layer) -> Node:
        """The node of a layer's op: output types inferred (as OpenVINO does) or, for big Constants
        and opaque ops, as declared; output tensor names from the ports (a Result's from its
        ``output_names``); the layer's other attributes kept for writing back."""
        opaque = isinstance(op, OpaqueOp)
        big_constant = type(op) is Constant and math.prod(op.shape) > FOLDABLE_CONSTANT_SIZE
        if big_constant:  # too large to fold: its type is its declaration, and its data stays unread
            assert isinstance(op, Constant)
            output_types = [_declared_type(op.element_type, op.shape)]
        elif opaque:
            assert isinstance(op, OpaqueOp)
            output_types = list(op.recorded_outputs)
        else:  # placeholders (as Node makes them) until inference below
            output_types = [_UNKNOWN_TYPE] * op.num_outputs()
        node = Node._restore(op, inputs, layer.name, layer.id, output_types)
        node.extra = extra
        is_result = type(op) is Result
        attrib, where = layer.attrib, layer.where
        if attrib:
            _keep_layer_attributes(extra, attrib, is_result)
        if type(op) is Constant and not big_constant:
            self._constant_type(node, op, where)
        elif not (big_constant or opaque):
            self._infer(node, key, where)
        if is_result and not opaque:
            node.output_names[0] = split_names(attrib.get("output_names", ""))
        else:
            self._name_outputs(node, layer)
        return node

    def _constant_type(self, node: Node, op: Constant, where: Callable[[], str]) -> None:
        """A small Constant's type with its value, as ``Constant.infer`` gives it, without the
        generic inference call (a read builds thousands); a blob that does not decode takes the
        generic path, whose message names the layer."""
        et = op.element_type
        private = op.__pydantic_private__
        loader = private.get("_loader") if private is not None else None
        blob = None
        if (private is not None and type(loader) is BlobLoader and et is not ElementType.string
                and private.get("_data") is None):
            blob = (loader.offset, loader.size, et, tuple(op.shape))
            shared = self._blob_types.get(blob)
            if shared is not None:  # the same blob read before (OpenVINO writes equal blobs once)
                private["_data"] = shared.value
                node.output_types = [shared]
                return
        try:
            value = _constant_value(op) if et is not ElementType.string else None
        except GraphirError:
            self._infer(node, None, where)
            return
        shape = _SHAPES.get(tuple(op.shape))
        if shape is None:
            shape = PartialShape(op.shape)
            if len(_SHAPES) < 4096:
                _SHAPES[tuple(op.shape)] = shape
        out = TensorType(et, shape, value)
        node.output_types = [out]
        if blob is not None and isinstance(value, np.ndarray) and not value.flags.writeable:
            self._blob_types[blob] = out  # read-only: safe to share between Constants and their types

    def _infer(self, node: Node, key: "tuple[Any, ...] | None", where: Callable[[], str]) -> None:
        """``node.infer()``, memoized per (attribute text, input types) within one read: the same op
        on the same types infers the same outputs, and large files repeat both. Input types with
        known values (values are not part of TensorType equality) take part by their content when
        small integer tensors (the shape subgraphs a real export repeats per block: swin_t's 1,355
        folding nodes have 480 distinct cases) and by the identity of their value otherwise (one
        shared Constant feeding a chain of Adds). Outputs with values are remembered as private
        copies and handed out as fresh copies (see fresh_type): no two nodes share a value."""
        memo_key = None
        if key is not None:
            in_types = tuple([src.node.output_types[src.index] for src in node.inputs])  # type: ignore[union-attr]
            memo_key = self._inferred.key(key, in_types)
            types = self._inferred.recall(memo_key)
            if types is not None:
                node.output_types = types
                names = node._output_names
                if names is not None and len(names) != len(types):
                    node.output_names = (names + [set() for _ in types])[: len(types)]
                return
        try:
            outputs = node.infer() if memo_key is None else node._infer_from(list(in_types))
        except GraphirError as exc:
            raise file_error(f"{where()}: {exc}", exc) from None
        if memo_key is not None:
            self._inferred.remember(memo_key, outputs)

    def _op(self, layer: _Layer) -> tuple[Op, dict[str, Any], "tuple[Any, ...] | None"]:
        """The layer's op, its round-trip extras, and the key of its attribute text (None when the op
        has subgraphs or is opaque: then its inference is not memoized)."""
        cls = layer.cls
        refusal = opset_refusal(layer.type, layer.version, layer.name, layer.id) if cls is None else None
        if refusal is None and cls is None:
            refusal = unknown_in_opset(layer.type, layer.version)
        if refusal is not None:  # (a layer with an op class has none: see _find_op)
            raise SerializationError(f"{layer.where()}: {refusal}")
        if cls is Constant:  # its description is formatted only for a message
            return self._constant(layer.data, (layer.file, layer.id, layer.name, layer.type)), {}, None
        if cls is None:
            where = layer.where()
            return opaque_op(layer.type, layer.version, attrs=dict(layer.data), layer_id=str(layer.id),
                             layer_name=layer.name, recorded_inputs=[_tensor_type(p, where) for p in layer.inputs],
                             recorded_outputs=[_tensor_type(p, where) for p in layer.outputs],
                             children=dict(layer.children)), {}, None
        decoded, extra = _attributes(cls, layer.data, layer.version, layer.where)
        if layer.children:
            values = dict(decoded.values)
            values.update(self._structural(cls, layer, extra))
            op = _construct(cls, values, layer.where())
            key = None
        else:
            op = decoded.instance(layer.where)
            key = decoded.key
        return op, extra, key

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
                ins = [_external_index(d, layer.in_index, 0) for d in content if d["tag"] == "input"]
                outs = [_external_index(d, layer.out_index, len(layer.inputs)) for d in content if d["tag"] == "output"]
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

    def _constant(self, data: dict[str, str], where: "str | tuple[str, int, str, str]") -> Constant:
        """A Const layer's op over its blob, checked against the .bin; ``where`` names the layer
        (a (file, id, name, type) tuple is formatted only when needed)."""
        et, shape, need = _const_declaration(data.get("element_type", ""), data.get("shape", ""), where)
        try:  # the common case; anything else takes the checks below with their messages
            offset, size = int(data["offset"]), int(data["size"])
            ok = offset >= 0 and size >= 0 and (need is None or size >= need) and et is not ElementType.string
        except (KeyError, ValueError):
            ok = False
        if not ok:
            offset = _int_attr_text(data, "offset", where)
            size = _int_attr_text(data, "size", where)
            check_const_size(et, shape, need, size, where)
        source = self.bin
        if size > 0:
            if source is None or not source.exists:
                raise SerializationError(f"{describe_layer(where)}: the weights (.bin) file is missing or empty "
                                         f"({source.path if source and source.path else 'no weights given'})")
            if offset + size > source.size:
                raise SerializationError(
                    f"{describe_layer(where)}: offset={offset} size={size} lies outside the weights file "
                    f"({source.size} bytes)")
        if source is None:
            source = BinSource(describe_layer(where), data=b"")
        shape_list = FrozenList(shape)
        # validated above: skip pydantic's validation (10,000-layer files have thousands of these)
        return new_constant(et, shape_list, BlobLoader(source, offset, size, et, shape_list, where))


def check_const_size(et: ElementType, shape: tuple[int, ...], need: "int | None", size: int,
                     where: "str | tuple[str, int, str, str]") -> None:
    """A Const's ``size`` against what its declaration needs (see _const_declaration)."""
    if need is not None and size < need:
        raise SerializationError(
            f"{describe_layer(where)}: size={size} bytes is smaller than shape {list(shape)} x {et} needs ({need} bytes)")
    if et is ElementType.string and size < 4:
        raise SerializationError(f"{describe_layer(where)}: a string Const needs at least 4 bytes, size={size}")


_CONST_DECLARATIONS: dict[tuple[str, str], tuple[ElementType, tuple[int, ...], "int | None"]] = {}


def _const_declaration(et_text: str, shape_text: str, where: "str | tuple[str, int, str, str]"
                       ) -> tuple[ElementType, tuple[int, ...], "int | None"]:
    """(element type, shape, bytes needed) of a Const's ``element_type``/``shape`` text, checked;
    remembered per text pair (files repeat them)."""
    found = _CONST_DECLARATIONS.get((et_text, shape_text))
    if found is not None:
        return found
    if len(shape_text) > MAX_ATTRIBUTE_CHARS:
        raise SerializationError(f"{describe_layer(where)}: attribute shape=\"{clip(shape_text)}\" holds "
                                 f"{len(shape_text):,} characters, more than graphir decodes in one attribute "
                                 f"({MAX_ATTRIBUTE_CHARS:,})")
    et = _ELEMENT_TYPES.get(et_text)
    if et is None:
        try:
            et = ElementType.parse(et_text)
        except GraphirError:
            raise SerializationError(f"{describe_layer(where)}: unknown element_type \"{et_text}\"") from None
    if et.is_dynamic:
        raise SerializationError(f"{describe_layer(where)}: a Const needs a static element_type, got \"{et_text}\"")
    try:
        shape = tuple(int(p) for p in shape_text.replace(" ", "").split(",") if p != "")
    except ValueError:
        raise SerializationError(f"{describe_layer(where)}: shape=\"{shape_text}\" is not a list of integers") from None
    if shape and min(shape) < 0:
        raise SerializationError(f"{describe_layer(where)}: shape=\"{shape_text}\" has a negative dimension")
    if shape and math.prod(d for d in shape if d) * max(et.bitwidth // 8, 1) >= 1 << 63:
        # numpy cannot shape an array so (even an empty one: "array is too big")
        raise SerializationError(f"{describe_layer(where)}: shape=\"{clip(shape_text)}\" describes more bytes than "
                                 f"an array can address (2^63)")
    found = (et, shape, expected_size(et, list(shape)))
    if len(_CONST_DECLARATIONS) < 4096:
        _CONST_DECLARATIONS[(et_text, shape_text)] = found
    return found


def _construct(cls: type[Op], values: dict[str, Any], where: str) -> Op:
    try:
        return cls(**values)
    except GraphirError as exc:
        raise SerializationError(f"{where}: {exc}") from None


class _Decoded:
    """One op class's decoded attribute text, remembered per (class, text): a 10,000-layer file
    repeats the same few attribute sets. ``instance`` validates the first op and afterwards hands
    out copies of a validated template (what pydantic's ``model_copy`` does, without its per-call
    overhead; every attribute value is immutable, lists frozen), so no two ops share mutable state
    but their pydantic fields-set, a SharedFieldsSet that an op replaces before it changes it."""

    __slots__ = ("cls", "key", "values", "unknown", "original", "_template", "_fields_set", "cacheable")

    def __init__(self, cls: type[Op], key: tuple[Any, ...],
                 decoded: tuple[dict[str, Any], dict[str, str], dict[str, str]]) -> None:
        self.cls = cls
        self.key = key
        self.values, self.unknown, self.original = decoded
        self._template: Op | None = None
        self._fields_set = SharedFieldsSet()
        self.cacheable = all(copyable(v) for v in self.values.values())

    def instance(self, where: "str | Callable[[], str]") -> Op:
        template = self._template
        if template is None:
            op = _construct(self.cls, dict(self.values), where if isinstance(where, str) else where())
            if not (self.cacheable and template_safe(op)):
                self.cacheable = False  # decode again next time, build through pydantic
                return op
            self._template = template = op
            self._fields_set = SharedFieldsSet(op.__pydantic_fields_set__)
        op = new_object(self.cls)
        set_dict(op, template.__dict__.copy())
        set_fields_set(op, self._fields_set)
        set_extra(op, None)
        set_private(op, None)
        return op


_DECODED: dict[tuple[Any, ...], _Decoded] = {}


def _attributes(cls: type[Op], data: dict[str, str], version: str, where: "str | Callable[[], str]"
                ) -> tuple[_Decoded, dict[str, Any]]:
    """A known op's decoded ``<data>`` (a Parameter without ``shape`` is a scalar) and the node
    extras a round trip needs: the attribute text as read, unknown attributes, a later opset.
    ``where`` names the layer (a callable is called only when decoding needs it)."""
    if cls is Parameter and "shape" not in data:
        data = {**data, "shape": ""}
    decoded = _decoded(cls, data, where)
    extra: dict[str, Any] = {}
    if decoded.unknown:
        extra["ir_unknown_attributes"] = dict(decoded.unknown)
    extra["ir_attribute_text"] = dict(decoded.original)
    if version != cls.version:
        extra["ir_version"] = version
    return decoded, extra


def _decoded(cls: type[Op], raw: dict[str, str], where: "str | Callable[[], str]") -> _Decoded:
    """decode_attributes, remembered per (op class, read hook, attribute text) when every value is
    immutable or a list of immutables; callers copy what they keep."""
    hook = _hook(cls)
    key = (cls, hook and hook.read, *raw.items())
    hit = _DECODED.get(key)
    if hit is None:
        hit = _Decoded(cls, key, decode_attributes(cls, raw, where if isinstance(where, str) else where()))
        if len(_DECODED) < 4096 and hit.cacheable:
            _DECODED[key] = hit
    return hit


_OPSET = re.compile(r"opset\d+")
_FOUND: dict[tuple[str, str], tuple[int, Any, "type[Op] | None"]] = {}


_REFUSALS: dict[tuple[str, str], str | None] = {}


def opset_refusal(type_name: str, version: str, name: str, layer_id: object) -> str | None:
    """OpenVINO's reason for refusing a layer's ``opsetN`` version, or None: an opset it does not
    have (``opset99``), or one without the layer's type (Gelu in opset1). Types no opset holds and
    versions of another form (extensions) are left to the op lookup."""
    key = (type_name, version)
    if key not in _REFUSALS:
        from graphir.serializers.ir_opsets import LATEST_OPSET, OPSETS_OF_TYPE

        reason = None
        if version.startswith("opset"):
            number = int(version[5:]) if version[5:].isdigit() else -1
            if not 1 <= number <= LATEST_OPSET:
                reason = "unsupported"
            else:
                canonical = type_name if type_name in OPSETS_OF_TYPE else find_type_name(type_name)
                spans = OPSETS_OF_TYPE.get(canonical) or _lower_case_types().get(canonical.lower())
                if number == 1 and canonical in _OPSET2_IN_OPSET1:
                    number = 2  # OpenVINO reads these three as opset2's though opset1 lacks them
                if spans is not None and not _in_spans(number, spans):
                    reason = "missing"
        _REFUSALS[key] = reason
    reason = _REFUSALS[key]
    if reason == "unsupported":
        return f"Cannot create {type_name} layer {name} id:{layer_id} from unsupported opset: {version}"
    if reason == "missing":
        return f"Opset {version} doesn't contain the operation with type: {type_name}"
    return None


def unknown_in_opset(type_name: str, version: str) -> str | None:
    """OpenVINO's refusal of a layer whose ``version`` is a standard opset (opset1..the latest) and
    whose type no opset has (a misspelling: ``Selct``), with the closest types of that opset; None
    otherwise (only other versions, extensions, load as opaque layers)."""
    from graphir.serializers.ir_opsets import LATEST_OPSET, OPSETS_OF_TYPE

    number = int(version[5:]) if version.startswith("opset") and version[5:].isdigit() else -1
    if not 1 <= number <= LATEST_OPSET:
        return None
    canonical = type_name if type_name in OPSETS_OF_TYPE else find_type_name(type_name)
    if canonical in OPSETS_OF_TYPE or canonical.lower() in _lower_case_types():
        return None
    import difflib

    names = [t for t, spans in OPSETS_OF_TYPE.items() if _in_spans(number, spans)]
    close = difflib.get_close_matches(type_name, names, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"Opset {version} doesn't contain the operation with type: {type_name}{hint}"


#: ops OpenVINO's IR reader takes from opset2 when a layer says opset1 (missing in opset1)
_OPSET2_IN_OPSET1 = frozenset(("MVN", "ROIPooling", "ReorgYolo"))


@functools.lru_cache(maxsize=1)
def _lower_case_types() -> dict[str, str]:
    """OpenVINO matches layer types case-insensitively: lower-case name -> opset spans."""
    from graphir.serializers.ir_opsets import OPSETS_OF_TYPE

    return {name.lower(): spans for name, spans in OPSETS_OF_TYPE.items()}


def find_type_name(ir_type: str) -> str:
    from graphir.ops.registry import canonical_type_name

    return canonical_type_name("openvino", ir_type)


def _in_spans(number: int, spans: str) -> bool:
    for span in spans.split(","):
        low, _, high = span.partition("-")
        if int(low) <= number <= int(high or low):
            return True
    return False


#: ops OpenVINO's IR reader takes from opset6 when a layer names the "experimental" or "extension" opset
_READ_AS_OPSET6 = frozenset((
    "ExperimentalDetectronDetectionOutput", "ExperimentalDetectronGenerateProposalsSingleImage",
    "ExperimentalDetectronPriorGridGenerator", "ExperimentalDetectronROIFeatureExtractor",
    "ExperimentalDetectronTopKROIs", "GRUCell", "RNNCell", "Proposal"))


def _find_op(type_name: str, version: str) -> "type[Op] | None":
    """The op class for a layer's type and opset, cached per pair (a later registration, or a
    replaced ``find``, refreshes it); None for a version OpenVINO refuses (see opset_refusal)."""
    if opset_refusal(type_name, version, "", "") is not None:
        return None
    key = (type_name, version)
    hit = _FOUND.get(key)
    if hit is not None and hit[0] == generation() and hit[1] is find:
        return hit[2]
    if version in ("experimental", "extension") and type_name in _READ_AS_OPSET6:
        version = "opset6"  # OpenVINO reads these IR v10-era opsets' ops from opset6
    if _OPSET.fullmatch(version):
        wanted = "opset2" if version == "opset1" and find_type_name(type_name) in _OPSET2_IN_OPSET1 else version
        cls = find("openvino", type_name, wanted)
        if cls is None:  # OpenVINO matches layer types case-insensitively ("PRelU")
            other = _types_by_lower_name().get(type_name.lower())
            if other is not None and other != type_name:
                cls = find("openvino", other, wanted)
    else:  # an extension's layer: the class registered for that exact version, if any
        cls = registered_exactly("openvino", type_name, version)
    _FOUND[key] = (generation(), find, cls)
    return cls


_LOWER_NAMES: list[Any] = [-1, {}]


def _types_by_lower_name() -> dict[str, str]:
    """Lower-case type name -> a registered OpenVINO type (or IR spelling) of that name."""
    if _LOWER_NAMES[0] != generation():
        _LOWER_NAMES[:] = [generation(), {name.lower(): name for name in type_names("openvino")}]
    return _LOWER_NAMES[1]


def _constant_value(op: Constant) -> Any:
    """``op.value`` without pydantic's ``__getattr__`` for private attributes (a read loads
    thousands of small Constants): the loaded data, or the loader's, kept on the op."""
    private = op.__pydantic_private__
    if private is None or private.get("_loader") is None:
        return op.value
    data = private.get("_data")
    if data is None:
        data = private["_data"] = private["_loader"]()
    return data


def _int_attr_text(data: dict[str, str], key: str, where: "str | tuple[str, int, str, str]") -> int:
    text = data.get(key)
    if text is None:
        raise SerializationError(f"{describe_layer(where)}: missing attribute '{key}'")
    try:
        value = int(text)
    except ValueError:
        raise SerializationError(f"{describe_layer(where)}: {key}=\"{clip(text)}\" is not an integer") from None
    if value < 0:
        raise SerializationError(f"{describe_layer(where)}: {key}={value} is negative")
    return value


def _weights(path: Path | None, weights: Any, where: str) -> BinSource:
    if isinstance(weights, (bytes, bytearray, memoryview)):
        return BinSource(where, data=bytes(weights))
    if weights is not None:
        return BinSource(f"{where} (weights {weights})", path=Path(weights))
    if path is None:
        return BinSource(where, data=None)
    return BinSource(f"{where} (weights {path.with_suffix('.bin')})", path=path.with_suffix(".bin"))
