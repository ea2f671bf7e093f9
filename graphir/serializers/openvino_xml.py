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
Port-map entries are the element's attributes with numeric values as ints, e.g.
``{"external_port_id": 0, "internal_layer_id": 0, "axis": 1}``; back edges
``{"from-layer": 3, "to-layer": 0}``.

What a round trip needs beyond the op lives in ``node.extra`` (``ir_attribute_text``: attribute
strings as read, written back when the value is unchanged; ``ir_unknown_attributes``;
``ir_output_rt_info``/``ir_input_rt_info``; ``ir_version`` when the file named a later opset;
``ir_child_order``) and ``model.meta`` (``ir_version``, ``ir_edge_order``).

Modules: ir_parser (hardened lxml), ir_reader (the one reader), ir_writer (incl. atomic writes), ir_attributes
(attribute codec + hooks), ir_constants (.bin packing, lazy loading), ir_rt_info.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any


from graphir.errors import GraphirError, SerializationError
from graphir.model import Model
from graphir.node import Node, Output
from graphir.ops.openvino.core import Parameter
from graphir.serializers.ir_constants import BinSource
from graphir.serializers.ir_legacy import apply_v10_legacy_io
from graphir.serializers.ir_preprocess import apply_pre_process
from graphir.serializers.ir_parser import parse_xml, read_xml_bytes
from graphir.serializers.ir_reader import _VERSIONS, _parse_layer, _Reader, _tensor_type, _weights, split_names
from graphir.serializers.ir_rt_info import read_net_rt_info
from graphir.serializers.atomic import atomic_write_pair, pair_lock, refuse_overwriting, same_file
from graphir.serializers.ir_writer import NetWriter, join_names, write_layer_text
from graphir.variables import model_variables

__all__ = ["read_ir", "write_ir", "read_layer", "write_layer", "read_ir_string", "write_ir_string",
           "split_names", "join_names"]


def read_ir(path: Any, weights: Any = None) -> Model:
    """Read an IR ``.xml`` (a path, or the XML itself as bytes) with its ``.bin``."""
    if isinstance(path, (bytes, bytearray)):
        return read_ir_string(bytes(path), weights)
    p = Path(path)
    where = str(p)
    if not p.is_file():
        raise SerializationError(f"{where}: no such file")
    with pair_lock(p, exclusive=False):  # the .xml and .bin of one save, not of two (see pair_lock)
        data = read_xml_bytes(p, where)
        source = _weights(p, weights, where)
    source.xml_path = p
    return _read_bytes(data, where, source)


def _read_bytes(data: bytes, where: str, source: BinSource) -> Model:
    """The one path from bytes to a Model: the hardened parser, then the reader."""
    try:
        return _read_root(parse_xml(data, where), where, source, data)
    except RecursionError:  # not expected (bodies are read iteratively): still a named error
        raise SerializationError(
            f"{where}: the model nests too deep for graphir (Python's recursion limit, "
            f"{sys.getrecursionlimit()} frames)") from None


def read_ir_string(xml: "str | bytes", weights: Any = None) -> Model:
    """Read an IR from XML text in memory; ``weights`` is the .bin as bytes or a path."""
    data = xml.encode("utf-8") if isinstance(xml, str) else xml
    where = "<IR in memory>"
    source = _weights(None, weights, where) if weights is not None else BinSource(where, data=b"")
    return _read_bytes(data, where, source)


def _read_root(root: Any, where: str, source: BinSource, text: "bytes | None" = None) -> Model:
    if root.tag != "net":
        raise SerializationError(f"{where}: the root element is <{root.tag}>, expected <net>")
    version = root.get("version")
    if version not in _VERSIONS:
        raise SerializationError(f"{where}: IR version \"{version}\" is not supported (10 or 11)")
    model = _Reader(where, source, text).read_net(root, where)
    pre_process = root.find("pre-process")
    if pre_process is not None:
        apply_pre_process(model, pre_process, source, where)
    return _finish(model, root, where)


def _finish(model: Model, root: Any, where: str = "") -> Model:
    """What the ``<net>`` element itself holds: IR version, rt_info, its other attributes; then the
    variables' pairing rules (OpenVINO's read_model refuses an Assign without its ReadValue)."""
    if any(type(n.op).stateful for n in model.nodes()):  # a ClassVar of every op
        try:
            model_variables(model.nodes(), f"model '{model.name}'")
        except GraphirError as exc:
            raise SerializationError(f"{where}: {exc}") from None
    model.meta["ir_version"] = int(root.get("version"))
    model.rt_info = read_net_rt_info(root.find("rt_info"))
    extra_attrs = {k: v for k, v in root.attrib.items() if k not in ("name", "version")}
    if extra_attrs:
        model.meta["ir_net_attributes"] = extra_attrs
    if root.get("name") is None:
        model.meta["ir_no_name"] = True
    if model.meta["ir_version"] == 10:
        apply_v10_legacy_io(model)
    return model


def write_ir_string(model: Model, version: int | None = None) -> tuple[bytes, bytes]:
    """(xml bytes, bin bytes) of ``model``."""
    writer = _net_writer(model, version)
    bins = writer.blobs()
    return _xml_bytes(writer), bins.tobytes()


def _net_writer(model: Model, version: int | None) -> NetWriter:
    version = int(version or model.meta.get("ir_version", 11))
    if version not in (10, 11):
        raise SerializationError(f"model '{model.name}': cannot write IR version {version} (10 or 11)")
    try:
        model.validate()
    except GraphirError as exc:
        raise SerializationError(f"model '{model.name}': cannot be written: {exc}") from None
    _refuse_dialects_without_ir(model)
    return NetWriter(model, version)


#: dialects whose ops have no IR form: OpenVINO cannot read them, nor graphir back
_NO_IR_FORM = {"directml": "DirectML ops have no OpenVINO IR form (OpenVINO cannot read them back, nor can graphir); "
                           "convert the model to the openvino dialect first (graphir.convert)"}


def _refuse_dialects_without_ir(model: Model) -> None:
    for node in model.nodes():
        reason = _NO_IR_FORM.get(type(node.op).dialect)
        if reason is not None:
            raise SerializationError(f"model '{model.name}': {node.describe()} cannot be written as IR: {reason}")


def _xml_bytes(writer: NetWriter) -> bytes:
    return b'<?xml version="1.0"?>\n' + writer.text().encode("utf-8") + b"\n"


def write_ir(model: Model, path: Any, *, version: int | None = None, weights: Any = None) -> None:
    """Write ``path`` (.xml) and its .bin (``weights`` or beside it) atomically: temp files, then
    renames; a failure leaves the previous files in place."""
    xml_path = Path(path)
    bin_path = Path(weights) if weights is not None else xml_path.with_suffix(".bin")
    if same_file(xml_path, bin_path):
        raise SerializationError(f"{xml_path}: the weights file is the .xml itself; give another path for the .bin")
    writer = _net_writer(model, version)
    bins = writer.blobs()
    _refuse_overwriting_sources(writer, xml_path, bin_path)
    chunks = tuple(bins.chunks)

    def xml() -> bytes:
        text = _xml_bytes(writer)
        if len(bins.chunks) != len(chunks):  # every blob belongs to the first pass: a bug otherwise
            raise SerializationError(f"{xml_path}: internal error: a Constant was not in the first pass")
        return text

    # the .bin is written (or found unchanged) on a second thread while the XML is made
    atomic_write_pair(xml_path, xml, bin_path, chunks)


def _refuse_overwriting_sources(writer: NetWriter, xml_path: Path, bin_path: Path) -> None:
    """Refuse (naming both) to write the .xml over a weights file the model was read with, or the
    .bin over an .xml a model was read from (saving over its own pair, role for role, is allowed)."""
    seen: set[int] = set()
    for source in writer.writer.sources():
        if id(source) in seen:
            continue
        seen.add(id(source))
        if source.path is not None:
            refuse_overwriting([("model (.xml)", xml_path)], [("the weights file", source.path)])
        if source.xml_path is not None:
            refuse_overwriting([("weights (.bin)", bin_path)], [("the model file", source.xml_path)])


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
        t = _tensor_type(port, layer.where())
        inputs.append(Node(Parameter(shape=t.shape, element_type=t.element_type)).output(0))
    node = reader._node(layer, inputs)
    return node


def write_layer(node: Node) -> str:
    """The ``<layer>`` element of one node, as IR v11 writes it (no .bin: constant data is dropped)."""
    return write_layer_text(node)
