"""Read an ONNX model (``.onnx``) into an openvino-dialect Model, node by node as OpenVINO's ONNX
frontend does: each ONNX node becomes the OpenVINO ops its translator builds (Where -> Select, Gemm ->
MatMul/Multiply/Add, ...), named as OpenVINO names them; an op with no translator but an ONNX function
body (a schema function or a model-local function) is expanded into the ops of its body.

Parsing is the ``onnx`` package's (an optional extra, imported here only). Initializers in external
files are memory-mapped, not copied.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphir.errors import GraphirError, SerializationError, UnsupportedOpError
from graphir import opset
from graphir.node import Node, Output
from graphir.ops.openvino.core import Constant, Parameter
from graphir.serializers.onnx.context import NodeContext, ReadState
from graphir.serializers.onnx.registry import find_translator
from graphir.serializers.onnx.tensors import element_type, onnx_type_of, partial_shape, raw_array, tensor_data

_NEED_ONNX = "reading .onnx needs the onnx package: pip install 'graphir[onnx]'"


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise GraphirError(_NEED_ONNX) from None
    return onnx


def _domain(domain: str) -> str:
    return "" if domain in ("", "ai.onnx") else domain


def read_onnx(path: Any) -> Any:
    """The Model of the ONNX file at ``path`` (see the module docstring)."""
    onnx = _onnx()
    p = Path(path)
    if not p.is_file():
        raise SerializationError(f"{p}: no such file")
    try:
        proto = onnx.load(str(p), load_external_data=False)
    except Exception as exc:  # protobuf's DecodeError and friends
        raise SerializationError(f"{p}: not a readable ONNX model: {exc}") from None
    return model_from_proto(proto, p.parent, p.stem, str(p))


def model_from_proto(proto: Any, base_dir: Path | None = None, name: str = "Model", where: str = "ONNX model") -> Any:
    """The Model of an ``onnx.ModelProto`` (external data is looked up under ``base_dir``)."""
    from graphir.model import Model

    opsets = {_domain(i.domain): int(i.version) for i in proto.opset_import}
    opsets.setdefault("", 1)
    functions = {(_domain(f.domain), f.name): f for f in proto.functions}
    state = ReadState()
    unmapped = _unmapped(proto.graph, opsets, functions, state)
    if unmapped:
        listing = "; ".join(unmapped)
        raise UnsupportedOpError(f"{where}: {len(unmapped)} ONNX node(s) graphir cannot map: {listing}")
    translator = GraphTranslator(opsets, base_dir, functions, where, state=state)
    parameters, results = translator.translate_main(proto.graph)
    model = Model(results, parameters, name=proto.graph.name or name)
    model.meta["source_format"] = "onnx"
    return model


def _who(node: Any) -> str:
    """How an error names an ONNX node before its context exists."""
    return f"ONNX node '{node.name or (node.output[0] if node.output else node.op_type)}' ({node.op_type})"


def _has_function(op_type: str, domain: str, version: int, functions: dict[tuple[str, str], Any]) -> bool:
    if (domain, op_type) in functions:
        return True
    from onnx import defs

    try:
        schema: Any = defs.get_schema(op_type, version, domain)
    except Exception:
        return False
    return bool(schema.has_function or schema.has_context_dependent_function)


#: the ai.onnx ops whose attributes hold graphs (ONNX's spec gives no other op a graph attribute)
_WITH_GRAPHS = frozenset(("If", "Loop", "Scan", "SequenceMap"))


def _unmapped(graph: Any, opsets: dict[str, int], functions: dict[tuple[str, str], Any],
              state: ReadState) -> list[str]:
    """'name (op_type, domain, opset N)' of every node (subgraphs too) with no translator nor function."""
    found: list[str] = []
    for node in graph.node:
        domain = _domain(node.domain)
        version = opsets.get(domain)
        op_type = node.op_type
        mapped = version is not None and state.translator(domain, op_type, version) is not None
        if not mapped and (version is None or not _has_function(op_type, domain, version, functions)):
            found.append(f"'{node.name or (node.output[0] if node.output else '')}' ({op_type}, "
                         f"domain {domain or 'ai.onnx'}, opset {version if version is not None else 'not imported'})")
            if version is None:
                continue
        if mapped and op_type not in _WITH_GRAPHS:  # most nodes: no subgraph to look into
            continue
        for attr in node.attribute:
            if attr.type == 5:  # GRAPH
                found.extend(_unmapped(attr.g, opsets, functions, state))
            elif attr.type == 10:  # GRAPHS
                for g in attr.graphs:
                    found.extend(_unmapped(g, opsets, functions, state))
    return found


class GraphTranslator:
    """Translates one ONNX graph's nodes in order; ``values`` maps ONNX tensor names to outputs."""

    def __init__(self, opsets: dict[str, int], base_dir: Path | None,
                 functions: dict[tuple[str, str], Any], where: str,
                 parent: "GraphTranslator | None" = None, inline: bool = False,
                 state: ReadState | None = None, prefix: str = "",
                 renamed: dict[str, str] | None = None) -> None:
        self.opsets = opsets
        self.base_dir = base_dir
        self.functions = functions
        self.where = where
        self.parent = parent
        #: an inlined subgraph (an If whose condition is known) reads outer values directly
        self.inline = inline
        self.values: dict[str, Output] = {}
        #: what the read's translators share (op classes, op templates, the node-naming counter)
        self.state: ReadState = state if state is not None else parent.state if parent is not None else ReadState()
        self._known: set[int] = set()  # ids of nodes that existed before the node being translated
        #: outer values a subgraph body reads: name -> (outer output, the body's Parameter)
        self.captured: dict[str, tuple[Output, Output]] = {}
        #: an expanded function body's names as the model shows them: its outputs renamed to the
        #: calling node's, every other name (tensor or node) prefixed (see :meth:`shown`)
        self.prefix = prefix
        self.renamed: dict[str, str] = renamed or {}

    def shown(self, name: str) -> str:
        """The name ``name`` of this graph gets in the model: itself, but in an expanded function
        body 'Func_<calling node><name>' (ONNX's FunctionExpandHelper, which OpenVINO's frontend
        uses) or the calling node's output name, so two expansions never name a node or tensor alike."""
        if not self.prefix or not name:
            return name
        return self.renamed.get(name) or self.prefix + name

    # --- values ---------------------------------------------------------------------------
    def define(self, name: str, value: Output) -> None:
        self.values[name] = value
        self._known.add(value.node.id)

    def lookup(self, name: str, user: str) -> Output:
        found = self.values.get(name)
        if found is not None:
            return found
        if self.parent is not None:
            outer = self.parent.lookup(name, user)
            if self.inline:
                return outer
            if isinstance(outer.node.op, Constant):  # a constant is copied in (its value folds there too)
                copy = Node(outer.node.op, name=outer.node.name)
                copy.output_names[0] = set(outer.names)
                self.define(name, copy.output(0))
                return copy.output(0)
            param = opset.parameter(outer.partial_shape, outer.element_type, name=name)
            self.captured[name] = (outer, param)
            self.define(name, param)
            return param
        raise SerializationError(f"{self.where}: {user} reads '{name}', which no node, input or initializer gives")

    # --- graphs ---------------------------------------------------------------------------
    def graph_initializers(self, graph: Any) -> None:
        for tensor in graph.initializer:
            data = raw_array(tensor)
            if data is not None:  # the common case: raw little-endian bytes of a plain type, not copied again
                et = element_type(tensor.data_type, f"{self.where}: initializer '{tensor.name}'")
                out = self.state.constant(data, et, tensor.name)
                out.node.output_names[0] = {tensor.name}
                self.define(tensor.name, out)
                continue
            et, shape, load = tensor_data(tensor, self.base_dir, f"{self.where}: initializer '{tensor.name}'")
            if tensor.data_location == 1:
                op = Constant.lazy(et, shape, load)
            else:
                op = Constant.from_array(load(), et)
            node = Node(op, name=tensor.name)
            node.output_names[0] = {tensor.name}
            self.define(tensor.name, node.output(0))
        for sparse in graph.sparse_initializer:
            from onnx.numpy_helper import to_array

            dense = _sparse_to_dense(sparse, to_array)
            node = Node(Constant.from_array(dense), name=sparse.values.name)
            node.output_names[0] = {sparse.values.name}
            self.define(sparse.values.name, node.output(0))

    def graph_inputs(self, graph: Any) -> list[Node]:
        """A Parameter per graph input that no initializer gives."""
        params: list[Node] = []
        for info in graph.input:
            if info.name in self.values:
                continue
            if not info.type.HasField("tensor_type"):
                raise SerializationError(f"{self.where}: input '{info.name}' is not a tensor "
                                         f"(sequences, maps and optionals are not supported)")
            et = element_type(info.type.tensor_type.elem_type, f"{self.where}: input '{info.name}'")
            node = Node(Parameter(shape=partial_shape(info.type), element_type=et), name=info.name)
            node.output_names[0] = {info.name}
            self.define(info.name, node.output(0))
            params.append(node)
        return params

    def translate_nodes(self, nodes: Sequence[Any], opsets: dict[str, int] | None = None) -> None:
        for node in nodes:
            self.translate_node(node, opsets or self.opsets)

    def translate_main(self, graph: Any) -> tuple[list[Node], list[Output]]:
        self.graph_initializers(graph)
        params = self.graph_inputs(graph)
        self.translate_nodes(graph.node)
        outputs = [self.lookup(o.name, f"graph output '{o.name}'") for o in graph.output]
        results = []
        for info, out in zip(graph.output, outputs):
            # OpenVINO names a model output's producer after the output and its Result '<name>/sink_port_0'
            if not isinstance(out.node.op, Parameter):
                out.node.name = info.name
            results.append(opset.result(out, name=f"{info.name}/sink_port_0").output(0))
        return params, results

    # --- nodes ----------------------------------------------------------------------------
    def translate_node(self, node: Any, opsets: dict[str, int]) -> list[Output | None]:
        given_domain = domain = node.domain
        if domain == "ai.onnx":
            domain = ""
        op_type = node.op_type
        version = opsets.get(domain)
        if version is None:
            raise SerializationError(f"{self.where}: {_who(node)}: the model imports no opset of domain '{domain}'")
        names = node.input
        values = self.values
        inputs: list[Output | None] = [values.get(name) if name else None for name in names]
        for i, found in enumerate(inputs):
            if found is None and names[i]:
                inputs[i] = self.lookup(names[i], _who(node))
        ctx = NodeContext(node, version, inputs, self, op_type, given_domain)
        fn = self.state.translator(domain, op_type, version)
        try:
            if fn is not None:
                produced = fn(ctx)
            else:
                produced = self._expand_function(ctx)
        except SerializationError as exc:
            if ctx.describe() in str(exc) or self.where in str(exc):
                raise
            raise SerializationError(f"{self.where}: {ctx.describe()}: {exc}") from None
        except GraphirError as exc:
            raise SerializationError(f"{self.where}: {ctx.describe()}: {exc}") from None
        declared = node.output
        if type(produced) is Output and len(declared) == 1 and declared[0]:  # most nodes, in short
            name = declared[0]
            self._name_output(node, op_type, produced, name)
            self.values[name] = produced
            self._known.add(produced.node.id)
            return [produced]
        outs: list[Output | None] = [produced] if type(produced) is Output else list(produced)
        self._name_outputs(node, outs)
        for name, out in zip(declared, outs):
            if name and out is not None:
                self.values[name] = out
                self._known.add(out.node.id)
        if len(declared) > len(outs):
            for name in declared[len(outs):]:
                if name:
                    raise SerializationError(f"{self.where}: {ctx.describe()}: output '{name}' is not "
                                             f"produced by graphir's translation")
        return outs

    def _name_output(self, node: Any, op_type: str, out: Output, name: str) -> None:
        """:meth:`_name_outputs` for a node of one output ``name`` that the translation gives."""
        if self.prefix:
            self._name_outputs(node, [out])
            return
        made = out.node
        known = made.id in self._known
        if known or op_type == "Identity":
            if not known:
                made.name = name
            tensor_names = made.output_names
            tensor_names[out.index] = tensor_names[out.index] | {name}
        else:
            made.name = node.name or name
            if len(made.output_types) == 1:
                made.output_names = [{name}]
            else:
                made.output_names[out.index] = {name}

    def _name_outputs(self, node: Any, outs: list[Output | None]) -> None:
        """Friendly and tensor names as OpenVINO's ONNX frontend sets them (Graph::set_friendly_names)."""
        names = [self.shown(name) for name in node.output]
        node_name = self.shown(node.name)
        given = [(i, o) for i, o in enumerate(outs[:len(names)]) if o is not None and names[i]]
        fresh = [(i, o) for i, o in given if o.node.id not in self._known]
        if node.op_type == "Identity" or not fresh:
            for i, o in given:
                if o.node.id not in self._known:
                    o.node.name = names[i]
                o.names = set(o.names) | {names[i]}
            return
        common = len({id(o.node) for _, o in fresh}) == 1
        for i, o in fresh:
            if not node_name:
                o.node.name = names[i]
            elif common:
                o.node.name = node_name
            else:
                o.node.name = f"{node_name}_{names[i]}"
        for i, o in given:
            if o.node.id in self._known:
                o.names = set(o.names) | {names[i]}
            else:
                o.names = {names[i]}

    # --- attributes -----------------------------------------------------------------------
    def attribute_value(self, attr: Any, ctx: NodeContext) -> Any:
        kind = attr.type
        if kind == 1:
            return float(attr.f)
        if kind == 2:
            return int(attr.i)
        if kind == 3:
            return attr.s.decode("utf-8", "replace")
        if kind == 4:
            return _tensor_value(attr.t, self.base_dir, f"{ctx.describe()}: attribute '{attr.name}'")
        if kind == 5:
            return attr.g
        if kind == 6:
            return [float(x) for x in attr.floats]
        if kind == 7:
            return [int(x) for x in attr.ints]
        if kind == 8:
            return [x.decode("utf-8", "replace") for x in attr.strings]
        if kind == 9:
            return [_tensor_value(t, self.base_dir, f"{ctx.describe()}: attribute '{attr.name}'") for t in attr.tensors]
        if kind == 10:
            return list(attr.graphs)
        if kind == 11:
            from onnx.numpy_helper import to_array

            return _sparse_to_dense(attr.sparse_tensor, to_array)
        if kind == 13:
            return attr.tp
        raise ctx.error(f"attribute '{attr.name}' has an unsupported kind {kind}")

    # --- function expansion ---------------------------------------------------------------
    def _function_proto(self, ctx: NodeContext) -> Any:
        from onnx import FunctionProto, defs, helper

        local = self.functions.get((_domain(ctx.domain), ctx.op_type))
        if local is not None:
            return local, None
        try:
            schema: Any = defs.get_schema(ctx.op_type, ctx.version, ctx.domain)
        except Exception:
            ctx.unsupported("this op")
        body = FunctionProto()
        versions = [v for v in schema.function_opset_versions if v <= ctx.version]
        if versions:
            body.ParseFromString(schema.get_function_with_opset_version(max(versions)))
            return body, schema
        versions = [v for v in schema.context_dependent_function_opset_versions if v <= ctx.version]
        if not versions:
            ctx.unsupported("this op")
        types = []
        for x in ctx.inputs:
            if x is None:
                types.append(helper.make_tensor_type_proto(0, None))
                continue
            ps = x.partial_shape
            dims = None if ps.rank.is_dynamic else [d.get_length() if d.is_static else None for d in ps]
            types.append(helper.make_tensor_type_proto(onnx_type_of(x.element_type), dims))
        body.ParseFromString(schema.get_context_dependent_function_with_opset_version(
            max(versions), ctx.node.SerializeToString(), [t.SerializeToString() for t in types]))
        return body, schema

    def _expand_function(self, ctx: NodeContext) -> list[Output | None]:
        """Translate the node's ONNX function body in place of the node (what OpenVINO does too)."""
        body, schema = self._function_proto(ctx)
        attrs = {a.name: a for a in ctx.node.attribute}
        if schema is not None:
            for name, spec in schema.attributes.items():
                if name not in attrs and spec.default_value.type != 0:
                    attrs[name] = spec.default_value
        else:
            for a in body.attribute_proto:
                attrs.setdefault(a.name, a)
        opsets = dict(self.opsets)
        for imp in body.opset_import:
            opsets[_domain(imp.domain)] = int(imp.version)
        caller = ctx.name  # the node's name, else its first output's (unique in an ONNX graph)
        renamed = {formal: self.shown(actual) for formal, actual in zip(body.output, ctx.node.output) if actual}
        inner = GraphTranslator(opsets, self.base_dir, self.functions, self.where, state=self.state,
                                prefix=f"Func_{caller}", renamed=renamed)
        for formal, actual in zip(body.input, ctx.inputs):
            if actual is not None and formal:
                inner.define(formal, actual)
        for node in body.node:
            inner.translate_node(_bind_attributes(node, attrs), opsets)
        return [inner.values.get(name) if name else None for name in body.output][:max(len(ctx.node.output), 1)]


def _bind_attributes(node: Any, attrs: dict[str, Any]) -> Any:
    """``node`` with attributes referring to the caller's (``ref_attr_name``) replaced by their values."""
    if not any(a.ref_attr_name for a in node.attribute):
        return node
    from onnx import NodeProto

    bound = NodeProto()
    bound.CopyFrom(node)
    del bound.attribute[:]
    for a in node.attribute:
        if a.ref_attr_name:
            given = attrs.get(a.ref_attr_name)
            if given is None:
                continue
            copy = bound.attribute.add()
            copy.CopyFrom(given)
            copy.name = a.name
        else:
            bound.attribute.add().CopyFrom(a)
    return bound


def _tensor_value(tensor: Any, base: Path | None, where: str) -> np.ndarray:
    et, shape, load = tensor_data(tensor, base, where)
    return np.asarray(load())


def _sparse_to_dense(sparse: Any, to_array: Any) -> np.ndarray:
    values = to_array(sparse.values)
    indices = to_array(sparse.indices).astype(np.int64)
    shape = tuple(int(d) for d in sparse.dims)
    dense = np.zeros(shape, dtype=values.dtype)
    if indices.ndim == 1:
        dense.reshape(-1)[indices] = values
    else:
        dense[tuple(indices.T)] = values
    return dense
