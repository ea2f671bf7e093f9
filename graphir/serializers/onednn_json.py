"""oneDNN Graph JSON (the format ``ONEDNN_GRAPH_DUMP=graph`` writes and benchdnn's graph driver reads).

Reading: every logical tensor that no op produces becomes a shared ``Parameter`` (in ``input_ports``
order first), every id in ``output_ports`` (or, without it, every produced tensor no op consumes) a
``Result``; the edges are the logical tensors shared between ops. Tensor names are the logical
tensor ids as strings. What a graph needs to be written back equal is kept on the nodes:
``node.extra["onednn"]`` holds the op id, the kind as spelled in the file and each input/output
logical tensor record (id, dtype, shape, stride, layout_type, property_type); ``model.meta["onednn"]``
the top-level keys. The reader checks the shapes and types it infers against the recorded ones
(an unknown recorded shape accepts any).

Writing: shapes and types come from the model; a recorded shape/stride/dtype is written back when
it still agrees with the model (so a round trip is exact, and an edited model writes what it has).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphir.errors import GraphirError, SerializationError, clip, clip_repr, file_error
from graphir.model import Model
from graphir.node import Node, Output
from graphir.ops.base import Op
from graphir.ops.onednn.base import OneDNNOp
from graphir.ops.openvino.core import Constant, Parameter, Result
from graphir.ops.registry import find
from graphir.serializers.atomic import atomic_write
from graphir.serializers.onednn_constants import constant_value, constants_bytes, read_constants, sidecar
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

UNKNOWN = -9223372036854775808  # DNNL_GRAPH_UNKNOWN_DIM (INT64_MIN)
TOP_LEVEL_KEYS = ("version", "engine_kind", "fpmath_mode", "graph")
OP_KEYS = ("id", "name", "kind", "inputs", "outputs")
TENSOR_KEYS = ("id", "dtype", "shape", "stride", "layout_type", "property_type")
LAYOUT_TYPES = ("strided", "any", "opaque", "undef")
PROPERTY_TYPES = ("undef", "variable", "constant", "host_scalar")
_EXTRA_DTYPES = {"s64": ElementType.i64}  # Dropout seed/offset; the core table lists only data types
DEFAULT_TOP = {"version": "3.9.0", "engine_kind": "cpu", "fpmath_mode": "strict"}
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
#: the most digits an integer in a file may have (int64 has 19)
_MAX_DIGITS = 20


# --- small conversions -------------------------------------------------------------------------
def dtype_to_element_type(name: str) -> ElementType:
    if name in _EXTRA_DTYPES:
        return _EXTRA_DTYPES[name]
    return ElementType.from_onednn(name)


def element_type_to_dtype(et: ElementType) -> str:
    for name, value in _EXTRA_DTYPES.items():
        if value is et:
            return name
    return et.to_onednn()


def dims_to_shape(dims: Sequence[int]) -> PartialShape:
    """oneDNN dims: ``[INT64_MIN]`` is an unknown rank, -1 (or INT64_MIN) an unknown dim."""
    if list(dims) == [UNKNOWN]:
        return PartialShape.dynamic()
    return PartialShape([Dimension.dynamic() if d in (-1, UNKNOWN) else Dimension.static(d) for d in dims])


def shape_to_dims(shape: PartialShape) -> list[int]:
    if shape.rank_is_dynamic:
        return [UNKNOWN]
    return [d.get_length() if d.is_static else -1 for d in shape]


def dense_strides(shape: PartialShape) -> list[int]:
    if not shape.is_static:
        return [UNKNOWN]
    strides, acc = [], 1
    for d in reversed(shape.to_shape()):
        strides.append(acc)
        acc *= max(d, 1)
    return strides[::-1]


def attribute_kind(op_cls: type[Op], name: str) -> str:
    from graphir.ops.onednn.base import _kind_of

    return _kind_of(op_cls.model_fields[name].annotation)


def attribute_json(kind: str, value: Any) -> Any:
    if kind == "bool":
        return int(bool(value))
    if kind == "f32":
        return float(value)
    if kind == "f32[]":
        return [float(v) for v in value]
    if kind == "s64[]":
        return [int(v) for v in value]
    if kind == "s64":
        return int(value)
    return str(value)


# --- reading -----------------------------------------------------------------------------------
class _Reader:
    def __init__(self, path: Path, data: Any, constants: "dict[int, bytes] | None" = None) -> None:
        self.path = path
        self.data = data
        self.constants = constants or {}  # logical tensor id -> raw bytes (serializers.onednn_constants)

    def error(self, where: str, message: str) -> SerializationError:
        return SerializationError(f"{self.path}: {where}: {message}")

    def op_where(self, op: dict, index: int, field: str | None = None) -> str:
        ident = op.get("id", f"#{index}") if isinstance(op, dict) else f"#{index}"
        name = op.get("name") if isinstance(op, dict) else None
        kind = op.get("kind") if isinstance(op, dict) else None
        where = f"op {ident}" + (f" '{name}'" if name is not None else "") + (f" ({kind})" if kind else "")
        return where + (f", field '{field}'" if field else "")

    # records ------------------------------------------------------------------------------
    def tensor(self, op: dict, index: int, side: str, position: int, record: Any) -> dict:
        field = f"{side}[{position}]"
        where = self.op_where(op, index, field)
        if not isinstance(record, dict):
            raise self.error(where, f"expected a logical tensor object, got {type(record).__name__}")
        for key in TENSOR_KEYS:
            if key not in record:
                raise self.error(self.op_where(op, index, f"{field}.{key}"), "missing key")
        if not _is_int64(record["id"]):
            raise self.error(self.op_where(op, index, f"{field}.id"),
                             f"expected an integer in the int64 range, got {clip_repr(record['id'])}")
        for key in ("shape", "stride"):
            value = record[key]
            if not isinstance(value, list) or not all(_is_int64(v) for v in value):
                raise self.error(self.op_where(op, index, f"{field}.{key}"),
                                 f"expected a list of integers in the int64 range, got {clip_repr(value)}")
            if any(v < -1 and v != UNKNOWN for v in value) and key == "shape":
                raise self.error(self.op_where(op, index, f"{field}.shape"), f"invalid dims {value}")
        shape, stride = record["shape"], record["stride"]
        if shape != [UNKNOWN] and stride != [UNKNOWN] and len(shape) != len(stride):
            raise self.error(
                self.op_where(op, index, f"{field}.stride"),
                f"logical tensor {record['id']}: stride {stride} has {len(stride)} values but shape {shape} has {len(shape)}")
        try:
            if not isinstance(record["dtype"], str):
                raise SerializationError("not a string")
            dtype_to_element_type(record["dtype"])
        except GraphirError:
            raise self.error(self.op_where(op, index, f"{field}.dtype"), f"unknown data type {record['dtype']!r}") from None
        if record["layout_type"] not in LAYOUT_TYPES:
            raise self.error(self.op_where(op, index, f"{field}.layout_type"), f"{record['layout_type']!r} is not one of {', '.join(LAYOUT_TYPES)}")
        if record["property_type"] not in PROPERTY_TYPES:
            raise self.error(self.op_where(op, index, f"{field}.property_type"), f"{record['property_type']!r} is not one of {', '.join(PROPERTY_TYPES)}")
        return record

    def attributes(self, op: dict[str, Any], index: int, op_cls: type[Op]) -> dict[str, Any]:
        attrs = op.get("attrs", {})
        if not isinstance(attrs, dict):
            raise self.error(self.op_where(op, index, "attrs"), f"expected an object, got {type(attrs).__name__}")
        values: dict[str, Any] = {}
        for name, spec in attrs.items():
            where = self.op_where(op, index, f"attrs.{name}")
            if not isinstance(spec, dict) or "type" not in spec or "value" not in spec:
                raise self.error(where, "expected {\"type\": ..., \"value\": ...}")
            if name not in op_cls.model_fields:
                known = ", ".join(op_cls.model_fields) or "none"
                raise self.error(where, f"unknown attribute for {op_cls.type_name} (known: {known})")
            kind = attribute_kind(op_cls, name)
            if spec["type"] != kind:
                raise self.error(where, f"attribute type {spec['type']!r}, expected {kind!r}")
            values[name] = spec["value"]
        return values

    # the graph ----------------------------------------------------------------------------
    def read(self) -> Model:
        data = self.data
        if not isinstance(data, dict):
            raise self.error("top level", f"expected a JSON object, got {type(data).__name__}")
        for key in TOP_LEVEL_KEYS:
            if key not in data:
                raise self.error("top level", f"missing key '{key}'")
        ops = data["graph"]
        if not isinstance(ops, list):
            raise self.error("graph", "expected a list of ops")
        for i, op in enumerate(ops):
            if not isinstance(op, dict):
                raise self.error(f"graph[{i}]", "expected an op object")
            for key in OP_KEYS:
                if key not in op:
                    raise self.error(self.op_where(op, i, key), "missing key")
            for key in ("inputs", "outputs"):
                if not isinstance(op[key], list):
                    raise self.error(self.op_where(op, i, key), "expected a list of logical tensors")
            op["inputs"] = [self.tensor(op, i, "inputs", j, t) for j, t in enumerate(op["inputs"])]
            op["outputs"] = [self.tensor(op, i, "outputs", j, t) for j, t in enumerate(op["outputs"])]
        for i, op in enumerate(ops):
            if not _is_int64(op["id"]):
                raise self.error(self.op_where(op, i, "id"),
                                 f"expected an integer op id in the int64 range, got {clip_repr(op['id'])}")
        ids = [op["id"] for op in ops]
        seen_ids: set[int] = set()
        for op_id in ids:
            if op_id in seen_ids:
                raise self.error(f"op {op_id}", "op id used twice")
            seen_ids.add(op_id)

        producer: dict[int, tuple[int, int]] = {}
        for i, op in enumerate(ops):
            for j, t in enumerate(op["outputs"]):
                if t["id"] in producer:
                    other = ops[producer[t["id"]][0]]
                    raise self.error(self.op_where(op, i, f"outputs[{j}].id"),
                                     f"logical tensor {t['id']} is already an output of op {other['id']} '{other['name']}'")
                producer[t["id"]] = (i, j)
        order = self.topological(ops, producer)

        # graph inputs: tensors no op produces
        first_use: dict[int, dict] = {}
        for i in order:
            for t in ops[i]["inputs"]:
                if t["id"] not in producer:
                    first_use.setdefault(t["id"], t)
        # An input port naming a tensor no op reads is left out of the graph (benchdnn runs such dumps,
        # e.g. complex_fusion/mha/sdpa-compressed-k-int8-gs32.json); the file's list is written back
        # unchanged while the parameters are.
        ports = data.get("input_ports")
        if ports is not None and (not isinstance(ports, list) or not all(_is_int64(p) for p in ports)):
            raise self.error("input_ports", "expected a list of logical tensor ids (integers in the int64 range)")
        for p in ports or []:
            if p in producer:
                other = ops[producer[p][0]]
                raise self.error("input_ports", f"logical tensor {p} is an output of op {clip(other['id'])} "
                                                f"'{clip(other['name'])}', not a graph input")
        param_ids = list(dict.fromkeys(p for p in (ports or []) if p in first_use))
        param_ids += [t for t in first_use if t not in param_ids]
        self.param_ids = param_ids
        outputs: dict[int, Output] = {}
        params: list[Node] = []
        for lt in param_ids:
            record = first_use[lt]
            et = dtype_to_element_type(record["dtype"])
            if lt in self.constants and record["property_type"] == "constant":
                node = Node(Constant.from_array(constant_value(self.constants[lt], et, list(record["shape"]),
                                                               f"{sidecar(self.path)}: tensor {lt}"), et), name=str(lt))
            else:
                node = Node(Parameter(shape=dims_to_shape(record["shape"]), element_type=et), name=str(lt))
                params.append(node)
            node.output_names[0] = {str(lt)}
            node.extra["onednn"] = {"tensor": dict(record)}
            outputs[lt] = node.output(0)

        nodes: list[Node] = []
        for i in order:
            nodes.append(self.build(ops[i], i, outputs))
        return self.finish(data, params, nodes, outputs, producer, ops)

    def topological(self, ops: list[dict], producer: dict[int, tuple[int, int]]) -> list[int]:
        state: dict[int, int] = {}
        order: list[int] = []
        for start in range(len(ops)):
            if state.get(start):
                continue
            stack = [(start, iter([producer[t["id"]][0] for t in ops[start]["inputs"] if t["id"] in producer]))]
            state[start] = 1
            while stack:
                current, deps = stack[-1]
                for dep in deps:
                    if state.get(dep) == 1:
                        raise self.error(self.op_where(ops[dep], dep, "inputs"), "the graph has a cycle through this op")
                    if not state.get(dep):
                        state[dep] = 1
                        stack.append((dep, iter([producer[t["id"]][0] for t in ops[dep]["inputs"] if t["id"] in producer])))
                        break
                else:
                    stack.pop()
                    state[current] = 2
                    order.append(current)
        return order

    def build(self, op: dict, index: int, outputs: dict[int, Output]) -> Node:
        kind = op["kind"]
        if not isinstance(kind, str):
            raise self.error(self.op_where(op, index, "kind"), f"expected a string, got {kind!r}")
        op_cls = find("onednn", kind, "1")
        if op_cls is None:
            raise self.error(self.op_where(op, index, "kind"), f"unknown oneDNN Graph op kind '{kind}'")
        attrs = self.attributes(op, index, op_cls)
        try:
            instance = op_cls(**attrs)
        except GraphirError as exc:
            raise self.error(self.op_where(op, index, "attrs"), str(exc)) from None
        n_out = len(op["outputs"])
        count_range = getattr(instance, "output_count_range", None)
        low, high = count_range() if count_range else (len(op_cls.outputs), len(op_cls.outputs))
        if n_out < low or (high is not None and n_out > high):
            expected = f"{low}" if low == high else f"{low} to {high if high is not None else 'any'}"
            raise self.error(self.op_where(op, index, "outputs"), f"{kind} has {expected} outputs, the file lists {n_out}")
        declared = [dtype_to_element_type(t["dtype"]) for t in op["outputs"]]
        if isinstance(instance, OneDNNOp):
            instance.set_output_count(n_out)
            instance.declare_output_types(declared)
        for j, et in enumerate(declared):
            port = instance.output_port(j)
            if not port.allows(et):
                allowed = ", ".join(str(x) for x in port.types or ())
                raise self.error(self.op_where(op, index, f"outputs[{j}].dtype"),
                                 f"output {j} ('{port.name}') cannot be {op['outputs'][j]['dtype']} ({et}); {kind} allows {allowed}")
        low_in, high_in = op_cls.input_count_range()
        n_in = len(op["inputs"])
        if n_in < low_in or (high_in is not None and n_in > high_in):
            expected = f"{low_in}" if low_in == high_in else f"{low_in} to {high_in if high_in is not None else 'any'}"
            raise self.error(self.op_where(op, index, "inputs"), f"{kind} takes {expected} inputs, the file lists {n_in}")
        sources = [outputs[t["id"]] for t in op["inputs"]]
        name = op["name"] if isinstance(op["name"], str) else str(op["name"])
        try:
            node = Node(instance, sources, name=name)
        except GraphirError as exc:
            raise file_error(str(self.error(self.op_where(op, index, "inputs"), str(exc))), exc) from None
        extra = {"id": op["id"], "kind": kind, "has_attrs": "attrs" in op,
                 "inputs": [dict(t) for t in op["inputs"]], "outputs": [dict(t) for t in op["outputs"]]}
        node.extra["onednn"] = extra
        for j, record in enumerate(op["outputs"]):
            inferred = node.output_types[j]
            recorded_type = dtype_to_element_type(record["dtype"])
            if inferred.element_type.merge(recorded_type) is None:
                raise self.error(self.op_where(op, index, f"outputs[{j}].dtype"),
                                 f"the file records {record['dtype']} but the inputs give {inferred.element_type}")
            recorded = dims_to_shape(record["shape"])
            if recorded.merge(inferred.shape) is None:
                raise self.error(self.op_where(op, index, f"outputs[{j}].shape"),
                                 f"the file records {record['shape']} but the inputs give {inferred.shape}")
            node.output_names[j] = {str(record["id"])}
            outputs[record["id"]] = node.output(j)
        return node

    def finish(self, data: dict, params: list[Node], nodes: list[Node], outputs: dict[int, Output],
               producer: dict[int, tuple[int, int]], ops: list[dict]) -> Model:
        ports = data.get("output_ports")
        ignored: list[int] = []
        if ports is not None:
            if not isinstance(ports, list) or not all(_is_int64(p) for p in ports):
                raise self.error("output_ports", "expected a list of logical tensor ids (integers in the int64 range)")
            # oneDNN (benchdnn) runs graphs whose output_ports name a tensor no op produces
            # (int8_softmax_add.json): such ids are ignored; none left means the unconsumed outputs
            ignored = [p for p in ports if p not in outputs]
            ports = [p for p in ports if p in outputs] or None
        if ports is not None:
            result_ids = list(ports)
        else:
            # a tensor only End consumes is still a graph output (End marks exactly that)
            consumed = {t["id"] for op in ops if op["kind"] != "End" for t in op["inputs"]}
            result_ids = [t["id"] for i in range(len(ops)) for t in ops[i]["outputs"] if t["id"] not in consumed]
            if not result_ids:
                raise self.error("graph", "no op output is left unconsumed and there are no output_ports: the graph has no outputs")
        results = []
        for lt in result_ids:
            node = Node(Result(), [outputs[lt]], name=f"output_{lt}")
            results.append(node)
        model = Model(results, params, name=self.path.stem, nodes=nodes)
        model.meta["onednn"] = {key: value for key, value in data.items() if key != "graph"}
        model.meta["onednn_read"] = {"parameters": list(self.param_ids), "results": list(result_ids)}
        if ignored:
            model.meta["onednn_read"]["ignored_output_ports"] = ignored
        return model


def _is_int64(value: Any) -> bool:
    return type(value) is int and INT64_MIN <= value <= INT64_MAX


class _TooManyDigits(Exception):
    pass


def _parse_int(text: str) -> int:
    """JSON integers: at most :data:`_MAX_DIGITS` digits (Python would read a 100,000-digit number,
    slowly, or refuse it with a ValueError)."""
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise _TooManyDigits(text)
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > 1000:  # float() of a long mantissa is fine but slow; no file needs it
        raise _TooManyDigits(text)
    return float(text)


def read_json(path: "str | Path") -> Model:
    """Read a oneDNN Graph JSON file into a Model (see the module docstring). The file must be
    UTF-8 (RFC 8259; a BOM is allowed)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise SerializationError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return loads(_decode(raw, p), p, constants=read_constants(p))


def _decode(raw: bytes, path: Path) -> str:
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(raw) >= 2 and (raw[0] == 0 or raw[1] == 0)):
        raise SerializationError(f"{path}: not UTF-8 (it looks like UTF-16 or UTF-32); oneDNN Graph JSON is UTF-8")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SerializationError(f"{path}: not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} "
                                 f"({exc.reason}); oneDNN Graph JSON is UTF-8") from None


def loads(text: "str | bytes", path: "str | Path" = "<string>", constants: "dict[int, bytes] | None" = None) -> Model:
    """A Model from JSON text (bytes are decoded as UTF-8); ``constants``: the data of
    constant-property inputs by logical tensor id (they become Constants)."""
    p = Path(path)
    if isinstance(text, (bytes, bytearray)):
        text = _decode(bytes(text), p)
    try:
        data = json.loads(text, parse_int=_parse_int, parse_float=_parse_float)
    except json.JSONDecodeError as exc:
        raise SerializationError(f"{p}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise SerializationError(f"{p}: not readable: arrays or objects nested too deep (a oneDNN Graph "
                                 f"file nests 4 levels)") from None
    except _TooManyDigits as exc:
        raise SerializationError(f"{p}: a number with {len(str(exc)):,} characters ({clip(exc, 40)}); "
                                 f"integers must fit in int64") from None
    except MemoryError:
        raise SerializationError(f"{p}: not readable: out of memory") from None
    try:
        return _Reader(p, data, constants).read()
    except RecursionError:
        raise SerializationError(f"{p}: not readable: values nested too deep") from None


# --- writing -----------------------------------------------------------------------------------
class _Writer:
    def __init__(self, model: Model, path: Path, constants_as_inputs: bool, keep_constants: bool = False) -> None:
        self.model = model
        self.path = path
        self.constants_as_inputs = constants_as_inputs or keep_constants
        #: Constants written as constant-property inputs whose data goes beside the file
        self.keep_constants = keep_constants and not constants_as_inputs
        self.constant_values: dict[int, np.ndarray] = {}
        self.lt_ids: dict[tuple[int, int], int] = {}
        self.records: dict[tuple[int, int], dict] = {}

    def error(self, message: str) -> SerializationError:
        return SerializationError(f"{self.path}: {message}")

    def assign_ids(self, order: list[Node]) -> None:
        used: set[int] = set()
        pending: list[tuple[int, int]] = []
        for node in order:
            if isinstance(node.op, Result):
                continue
            info = node.extra.get("onednn", {})
            stored = info.get("outputs") or ([info["tensor"]] if "tensor" in info else [])
            for j in range(len(node.output_types)):
                key = (node.id, j)
                lt = stored[j]["id"] if j < len(stored) else None
                if lt is None:
                    names = [n for n in node.output_names[j] if n.lstrip("-").isdigit()]
                    lt = int(names[0]) if len(names) == 1 else None
                if lt is None or lt in used:
                    pending.append(key)
                else:
                    used.add(lt)
                    self.lt_ids[key] = lt
                    if j < len(stored):
                        self.records[key] = stored[j]
        fresh = max(used, default=-1) + 1
        for key in pending:
            self.lt_ids[key] = fresh
            used.add(fresh)
            fresh += 1

    def tensor(self, source: Output, recorded: dict | None) -> dict:
        key = (source.node.id, source.index)
        lt = self.lt_ids[key]
        t = source.tensor_type
        record = recorded if recorded is not None and recorded.get("id") == lt else self.records.get(key)
        try:
            dtype = element_type_to_dtype(t.element_type)
        except GraphirError as exc:
            raise self.error(f"{source.node.describe()} output {source.index}: {exc}") from None
        shape, stride = shape_to_dims(t.shape), dense_strides(t.shape)
        layout, prop = "strided", "constant" if isinstance(source.node.op, Constant) else "undef"
        if record is not None:
            rec_shape = dims_to_shape(record["shape"])
            if rec_shape.merge(t.shape) is not None and (rec_shape.relaxes(t.shape) or rec_shape == t.shape or t.shape.relaxes(rec_shape)):
                shape, stride = list(record["shape"]), list(record["stride"])
            if t.element_type.is_dynamic or dtype_to_element_type(record["dtype"]).merge(t.element_type) is not None:
                dtype = record["dtype"]
            layout, prop = record["layout_type"], record["property_type"]
        return {"id": lt, "dtype": dtype, "shape": shape, "stride": stride, "layout_type": layout, "property_type": prop}

    def op_json(self, node: Node, op_id: int) -> dict:
        info = node.extra.get("onednn", {})
        op = node.op
        cls = type(op)
        attrs = {}
        explicit = op.model_fields_set
        for name in cls.model_fields:
            if name in explicit:
                kind = attribute_kind(cls, name)
                attrs[name] = {"type": kind, "value": attribute_json(kind, getattr(op, name))}
        kind_name = info.get("kind") if info.get("kind") and find("onednn", info["kind"], "1") is cls else cls.type_name
        if type(node.name) is not str:  # set directly on the node (the builders refuse it)
            raise SerializationError(f"node {node.id} ({node.type_name}): names must be text (str); got {node.name!r}")
        out: dict[str, Any] = {"id": op_id, "name": node.name, "kind": kind_name}
        if attrs or info.get("has_attrs", True):
            out["attrs"] = attrs
        in_records = info.get("inputs", [])
        out["inputs"] = [self.tensor(src, in_records[i] if i < len(in_records) else None)
                         for i, src in enumerate(node.inputs) if src is not None]
        out_records = info.get("outputs", [])
        out["outputs"] = [self.tensor(o, out_records[j] if j < len(out_records) else None) for j, o in enumerate(node.outputs())]
        return out

    def write(self) -> dict:
        self.model.validate()  # an edited model is saved as it now is (validate re-infers what edits touched)
        order = self.model.live_nodes()  # nodes no Result or sink reaches are not written
        for node in order:
            if isinstance(node.op, Constant) and not self.constants_as_inputs:
                raise self.error(f"{node.describe()}: oneDNN Graph JSON holds no tensor data; a Constant cannot be written "
                                 f"(pass constants_as_inputs=True to write it as a constant-property graph input)")
            if isinstance(node.op, (Parameter, Result, Constant)):
                continue
            if node.dialect != "onednn":
                raise self.error(f"{node.describe()} is a {node.dialect} op; convert the model to the onednn dialect first")
        self.assign_ids(order)
        used_ids = {n.extra.get("onednn", {}).get("id") for n in order if isinstance(n.extra.get("onednn", {}).get("id"), int)}
        fresh = max(used_ids, default=-1) + 1
        seen: set[int] = set()
        graph = []
        for node in order:
            if isinstance(node.op, (Parameter, Result, Constant)):
                continue
            op_id = node.extra.get("onednn", {}).get("id")
            if not isinstance(op_id, int) or op_id in seen:
                op_id, fresh = fresh, fresh + 1
            seen.add(op_id)
            graph.append(self.op_json(node, op_id))
        meta = dict(self.model.meta.get("onednn") or DEFAULT_TOP)
        top: dict[str, Any] = {k: meta.get(k, DEFAULT_TOP.get(k)) for k in ("version", "engine_kind", "fpmath_mode")}
        if "fpmath_mode_apply_to_int" in meta:
            top["fpmath_mode_apply_to_int"] = meta["fpmath_mode_apply_to_int"]
        params = [self.lt_ids[(p.id, 0)] for p in self.model.get_parameters()]
        params += [self.lt_ids[(n.id, 0)] for n in order if isinstance(n.op, Constant)]
        if self.keep_constants:
            self.constant_values = {self.lt_ids[(n.id, 0)]: n.op.value for n in order if isinstance(n.op, Constant)}
        results = [self.lt_ids[(r.input_value(0).node.id, r.input_value(0).index)] for r in self.model.get_results()]
        from_file = "onednn" in self.model.meta
        read = self.model.meta.get("onednn_read", {})
        if not from_file or "input_ports" in meta:
            unchanged = read.get("parameters") == params and isinstance(meta.get("input_ports"), list)
            top["input_ports"] = meta["input_ports"] if unchanged else params
        if not from_file or "output_ports" in meta:
            unchanged = read.get("results") == results and isinstance(meta.get("output_ports"), list)
            top["output_ports"] = meta["output_ports"] if unchanged else results
        top["graph"] = graph
        return top


def dumps(model: Model, *, constants_as_inputs: bool = False, indent: int | None = 2, path: str = "<string>") -> str:
    return json.dumps(_Writer(model, Path(path), constants_as_inputs).write(), indent=indent)


def write_json(model: Model, path: "str | Path", *, constants_as_inputs: bool = False, indent: int | None = 2) -> None:
    """Write ``model`` (onednn dialect) as oneDNN Graph JSON, atomically (see serializers.atomic).
    Constants are constant-property graph inputs; their data goes to ``<stem>.constants.npz``
    beside the file (serializers.onednn_constants) unless ``constants_as_inputs`` (then they are
    plain inputs to feed, their data not kept)."""
    p = Path(path)
    writer = _Writer(model, p, constants_as_inputs, keep_constants=True)
    text = json.dumps(writer.write(), indent=indent)
    side = sidecar(p)
    if writer.constant_values:
        atomic_write(side, constants_bytes(writer.constant_values))
    elif side.is_file():  # a stale one from an earlier write would turn inputs into constants
        side.unlink()
    atomic_write(p, (text + "\n").encode("utf-8"))
