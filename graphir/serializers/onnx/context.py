"""What a translator sees of one ONNX node: its inputs as graphir outputs, its attributes, its opset."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from graphir.errors import SerializationError
from graphir import opset
from graphir._build import as_input
from graphir.node import Node, Output
from graphir.ops.base import Op, SharedFieldsSet
from graphir.ops.frozen import FrozenList
from graphir.ops.registry import generation, lookup
from graphir.serializers.fast_build import InferenceMemo, copy_op, new_constant, set_fields_set, template_safe
from graphir.serializers.onnx.registry import find_translator
from graphir.shapes import PartialShape
from graphir.types import ElementType

if TYPE_CHECKING:
    from graphir.serializers.onnx_reader import GraphTranslator

_MISSING: Any = object()

#: attribute value types an op template may be keyed by (immutable; lists of them are keyed as tuples)
_KEYABLE = frozenset((int, float, bool, str, type(None), ElementType))


class ReadState:
    """What one read shares across its graph translators (subgraphs, function bodies): OpenVINO op
    classes, inference remembered per op and input types, constant shapes, and the counter naming
    the nodes translators make (so two reads of one file name every node alike; node ids stay unique
    per process), translators found. Op templates are remembered across reads (module level)."""

    def __init__(self) -> None:
        #: OpenVINO op classes by type name, looked up once per read
        self.op_classes: dict[str, Any] = {}
        self._translators: dict[tuple[str, str, int], Any] = {}
        self._element_types: dict[np.dtype[Any], ElementType | None] = {}
        #: a Constant's shape attribute and output shape per shape met (immutable: constants share them)
        self._shapes: dict[tuple[int, ...], tuple[FrozenList, PartialShape]] = {}
        self._count = 0
        self._inferred = InferenceMemo()

    def name(self, label: str, type_name: str) -> str:
        """The name of a node a translator makes for the ONNX node ``label``: ``label.Type_k``, k
        counting the nodes this read has named so (the last node of a translation is renamed after
        the ONNX node's outputs, as OpenVINO names it)."""
        self._count += 1
        return f"{label}.{type_name}_{self._count}"

    def translator(self, domain: str, op_type: str, version: int) -> Any:
        """find_translator's answer, remembered within the read."""
        key = (domain, op_type, version)
        try:
            return self._translators[key]
        except KeyError:
            found = self._translators[key] = find_translator(domain, op_type, version)
            return found

    def node(self, cls: Any, attributes: dict[str, Any], inputs: list[Output | None], name: str) -> Node:
        """``Node(cls(**attributes), inputs, name=name)``, its op and its inference remembered within
        the read (see :meth:`op` and :meth:`_infer`)."""
        key = _template_key(cls, attributes)
        op = self.op(cls, attributes, key)
        if key is None or cls.has_bodies or not cls.pure_infer:
            return Node(op, inputs, name=name)
        node = Node._built(op, inputs, name)
        self._infer(node, key)
        return node

    def _infer(self, node: Node, key: tuple[Any, ...]) -> None:
        """``node.infer()``, remembered per (op class and attributes, input types) within the read, as
        the IR reader does (exports repeat the same shape arithmetic per block): input types with
        known values take part by their content when small integer tensors, else by the identity of
        the value; outputs with values are handed out as fresh copies (no two nodes share one)."""
        in_types = []
        for src in node.inputs:
            if src is None:
                node.infer()  # its message names the unconnected input
                return
            in_types.append(src.node.output_types[src.index])
        memo_key = self._inferred.key(key, tuple(in_types))
        types = self._inferred.recall(memo_key)
        if types is not None:
            node.output_types = types
            return
        outputs = node._infer_from(in_types)
        self._inferred.remember(memo_key, outputs)

    def op(self, cls: Any, attributes: dict[str, Any], key: tuple[Any, ...] | None = None) -> Op:
        """``cls(**attributes)``; for attributes of plain values seen before in this read (``key``:
        their _template_key), a copy of the op validated then (every field value immutable, so
        copies share nothing mutable but pydantic's fields-set, a SharedFieldsSet an op replaces
        before changing it)."""
        if key is None:
            return cls(**attributes)  # type: ignore[no-any-return]
        templates = _TEMPLATES
        template = templates.get(key, _MISSING)  # one lookup: reads in other threads may clear it
        if template is not _MISSING:
            if template is None:
                return cls(**attributes)  # type: ignore[no-any-return]
            return copy_op(template)
        op: Op = cls(**attributes)
        if not template_safe(op):
            templates[key] = None
            return op
        template = copy_op(op)
        set_fields_set(template, SharedFieldsSet(op.__pydantic_fields_set__))
        if len(templates) >= _MOST_TEMPLATES:  # a process reading endless new attribute sets: start over
            templates.clear()
        templates[key] = template
        return op

    def element_type_of(self, dtype: "np.dtype[Any]") -> ElementType | None:
        """The element type Constant.from_array gives an array of ``dtype`` (None for text and objects)."""
        known = self._element_types
        if dtype in known:
            return known[dtype]
        et = None if dtype.kind in "OUS" else ElementType.from_numpy(dtype)
        known[dtype] = et
        return et

    def constant(self, data: np.ndarray, et: ElementType, name: str) -> Output:
        """A Constant node holding ``data`` as it is (a read-only array of ``et``'s numpy dtype that
        nobody else writes), built without validation: its output type is what Constant.infer gives."""
        dims = data.shape
        shapes = self._shapes.get(dims)
        if shapes is None:
            shapes = self._shapes[dims] = (FrozenList(dims), PartialShape(dims))
        op = new_constant(et, shapes[0], None)
        op.__pydantic_private__["_data"] = data  # type: ignore[index]
        return Node._built(op, [], name, [op.output_type(shapes[1])]).output(0)


#: (op class, attribute key) -> a validated op whose field dict new ops copy (None: build each op),
#: remembered across reads: a template is never changed (every value immutable), and its key holds
#: the class itself (an overriding class is a new key)
_TEMPLATES: dict[tuple[Any, ...], Op | None] = {}
_MOST_TEMPLATES = 4096

#: the newest OpenVINO op class per type name, remembered across reads (a registry lookup scans every
#: registered class) while the registry is unchanged (registry.generation)
_NEWEST: dict[str, tuple[int, type[Op]]] = {}


def _newest(type_name: str) -> type[Op]:
    known = _NEWEST.get(type_name)
    if known is not None and known[0] == generation():
        return known[1]
    cls = lookup("openvino", type_name)
    _NEWEST[type_name] = (generation(), cls)
    return cls


def _template_key(cls: Any, attributes: dict[str, Any]) -> tuple[Any, ...] | None:
    """``(cls, (name, type, value)...)`` for attributes of immutable values or lists of them (floats
    by their hex spelling, so -0.0 and 0.0 differ); None for anything else (arrays, dicts, bodies)."""
    key: list[Any] = [cls]
    for name, value in attributes.items():
        kind = type(value)
        if kind is float:
            value = value.hex()
        elif kind is list or kind is tuple:
            if not all(type(v) in _KEYABLE for v in value):
                return None
            value = tuple((type(v), v.hex() if type(v) is float else v) for v in value)
        elif kind not in _KEYABLE:
            return None
        key.append((name, kind, value))
    return tuple(key)


class NodeContext:
    """One ONNX node under translation.

    ``input(i)`` is a required input, ``optional(i)`` an input that may be absent (``None``);
    ``attr(name, default)`` an attribute as a Python value (ints, floats, strings, lists, numpy
    arrays for tensors, GraphProto for graphs); ``value(i)`` an input's value when it is known
    without running (a Constant, or a shape subgraph graphir's inference folded).
    """

    __slots__ = ("node", "op_type", "domain", "version", "inputs", "graph", "_attrs", "_name")

    def __init__(self, node: Any, version: int, inputs: "list[Output | None]", graph: "GraphTranslator",
                 op_type: str | None = None, domain: str | None = None) -> None:
        self.node = node
        #: (given by a caller that has read them from the NodeProto already)
        self.op_type: str = node.op_type if op_type is None else op_type
        self.domain: str = node.domain if domain is None else domain
        self.version = version
        self.inputs = inputs
        self.graph = graph
        self._attrs: dict[str, Any] | None = None
        self._name: str | None = None

    # --- identity --------------------------------------------------------------------------
    @property
    def name(self) -> str:
        name = self._name
        if name is None:
            node = self.node
            name = self._name = str(node.name or (node.output[0] if node.output else self.op_type))
            if self.graph.prefix:  # a node of an expanded function body
                name = self._name = self.graph.shown(name)
        return name

    def describe(self) -> str:
        domain = self.domain or "ai.onnx"
        return f"ONNX node '{self.name}' ({self.op_type}, {domain} opset {self.version})"

    def error(self, message: str) -> SerializationError:
        return SerializationError(f"{self.describe()}: {message}")

    def unsupported(self, what: str) -> NoReturn:
        raise SerializationError(f"{self.describe()}: {what} is not supported")

    @property
    def num_outputs(self) -> int:
        """How many outputs the node declares (trailing optional ones left out are not counted)."""
        return len(self.node.output)

    def output_used(self, index: int) -> bool:
        return index < len(self.node.output) and bool(self.node.output[index])

    # --- inputs ----------------------------------------------------------------------------
    def has_input(self, index: int) -> bool:
        return index < len(self.inputs) and self.inputs[index] is not None

    def input(self, index: int) -> Output:
        if not self.has_input(index):
            raise self.error(f"input {index} is required but not given")
        value = self.inputs[index]
        assert value is not None
        return value

    def optional(self, index: int) -> Output | None:
        return self.inputs[index] if index < len(self.inputs) else None

    def value(self, index: int) -> np.ndarray | None:
        """The input's value when it is a Constant (OpenVINO's translators test the same), else None."""
        from graphir.ops.openvino.core import Constant

        out = self.optional(index)
        if out is None or not isinstance(out.node.op, Constant):
            return None
        return np.asarray(out.node.op.value)

    def folded(self, index: int) -> np.ndarray | None:
        """The input's value when graphir's inference folded it (a shape subgraph, a Constant), else None."""
        out = self.optional(index)
        if out is None:
            return None
        value = out.tensor_type.value
        return None if value is None else np.asarray(value)

    def const_input(self, index: int, what: str) -> np.ndarray:
        """An input whose value must be known statically (``what`` names it in the error)."""
        value = self.folded(index)
        if value is None:
            raise self.error(f"{what} (input {index}) must be known when reading (a constant)")
        return value

    # --- attributes ------------------------------------------------------------------------
    @property
    def attributes(self) -> dict[str, Any]:
        if self._attrs is None:
            self._attrs = {a.name: self.graph.attribute_value(a, self) for a in self.node.attribute}
        return self._attrs

    def has_attr(self, name: str) -> bool:
        return name in self.attributes

    def attr(self, name: str, default: Any = _MISSING) -> Any:
        attrs = self.attributes
        if name in attrs:
            return attrs[name]
        if default is _MISSING:
            raise self.error(f"attribute '{name}' is required")
        return default

    # --- building --------------------------------------------------------------------------
    def _node(self, type_name: str, inputs: tuple[Any, ...], attributes: dict[str, Any]) -> Node:
        """A node of the newest OpenVINO op ``type_name`` (its class looked up once per read)."""
        state = self.graph.state
        classes = state.op_classes
        cls = classes.get(type_name)
        if cls is None:
            cls = classes[type_name] = _newest(type_name)
        given: list[Output | None] = [x if type(x) is Output else self._input_of(x) for x in inputs]
        return state.node(cls, attributes, given, state.name(self.name, type_name))

    def _input_of(self, value: Any) -> Output:
        if isinstance(value, (Output, Node)):
            return as_input(value)
        return self.const(value)

    def op(self, type_name: str, *inputs: Any, **attributes: Any) -> Output:
        """The first output of an OpenVINO op of the newest version (inputs: outputs, or values made Constants)."""
        return self._node(type_name, inputs, attributes).output(0)

    def ops(self, type_name: str, *inputs: Any, **attributes: Any) -> list[Output]:
        """All outputs of an OpenVINO op of the newest version."""
        return self._node(type_name, inputs, attributes).outputs()

    def const(self, value: Any, dtype: "ElementType | str | None" = None) -> Output:
        """A Constant of ``value`` (a copy; element type from its numpy dtype unless ``dtype`` is given)."""
        state = self.graph.state
        name = state.name(self.name, "Constant")
        if dtype is None and type(value) is np.ndarray:
            et = state.element_type_of(value.dtype)
            if et is not None:
                data = np.array(value, dtype=value.dtype)  # a copy, as Constant.from_array makes
                data.flags.writeable = False
                return state.constant(data, et, name)
        return opset.constant(np.asarray(value) if dtype is None else value, dtype, name=name)

    def fresh_name(self, type_name: str) -> str:
        """The name of a node of ``type_name`` this translation makes (see ReadState.name)."""
        return self.graph.state.name(self.name, type_name)

    def own_const(self, data: np.ndarray, name: str | None = None) -> Output:
        """A Constant holding ``data`` itself: a read-only array nobody else holds or writes (an ONNX
        tensor the reader has just decoded); its element type is its dtype's, as ``const`` gives.
        ``name``: the node's name when the caller knows it (else one as ``op`` names nodes)."""
        state = self.graph.state
        et = state.element_type_of(data.dtype)
        if et is None or data.flags.writeable:
            return self.const(data)
        return state.constant(data, et, name if name is not None else state.name(self.name, "Constant"))

    @property
    def base_dir(self) -> Path | None:
        return self.graph.base_dir
