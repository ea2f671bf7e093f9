"""Nodes and output handles: an op instance placed in a graph, and a reference to one of its outputs.

A node knows the outputs that feed its inputs (``node.inputs``) and its output types, inferred when
it is built (as OpenVINO validates each node on construction). Ids are unique per process.
"""
from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from graphir.errors import GraphError, GraphirError, InferenceError, UnsupportedOpError
from graphir.ops import base as _ops_base
from graphir.ops.base import Op, TensorType, same_type
from graphir.ops.port_types import check_port_types
from graphir.shapes import PartialShape
from graphir.types import ElementType

if TYPE_CHECKING:
    from graphir.trampoline import Task

_ids = itertools.count()
_reserved: set[int] = set()

#: set by graphir.model: called with a node whose inputs changed, so that every model holding it
#: moves its version on (its run plan and inferred types are then rebuilt when next needed)
_edit_listener: "Callable[[Node], None] | None" = None
#: set by graphir.model: brings pending lazy re-inference up to date before a type is read
_pending_types: list[Any] = []
_flush_types: "Callable[[], None] | None" = None


def _next_id() -> int:
    while True:
        candidate = next(_ids)
        if candidate not in _reserved:
            return candidate


class Output:
    """Output ``index`` of ``node``; what a builder call returns and what inputs connect to."""

    __slots__ = ("node", "index")

    def __init__(self, node: "Node", index: int) -> None:
        self.node = node
        self.index = index

    @property
    def tensor_type(self) -> TensorType:
        if _pending_types and _flush_types is not None:  # a model was edited: re-infer lazily first
            _flush_types()
        return self.node.output_types[self.index]

    @property
    def element_type(self) -> ElementType:
        return self.tensor_type.element_type

    @property
    def partial_shape(self) -> PartialShape:
        return self.tensor_type.shape

    @property
    def shape(self) -> PartialShape:
        return self.tensor_type.shape

    @property
    def names(self) -> set[str]:
        """Tensor names of this output (OpenVINO's ``get_names``)."""
        return self.node.output_names[self.index]

    @names.setter
    def names(self, value: "set[str] | Sequence[str]") -> None:
        for name in value:
            if type(name) is not str:
                _refuse_name(name, f"output {self.index} of {self.node.describe()}: a tensor name")
        self.node.output_names[self.index] = set(value)

    def get_any_name(self) -> str:
        if not self.names:
            raise GraphError(f"output {self.index} of {self.node.describe()} has no tensor name")
        return sorted(self.names)[0]

    # --- OpenVINO's spellings, for people used to ov.Output ---------------------------------
    def get_node(self) -> "Node":
        return self.node

    def get_index(self) -> int:
        return self.index

    def get_element_type(self) -> ElementType:
        return self.element_type

    def get_partial_shape(self) -> PartialShape:
        return self.partial_shape

    def get_shape(self) -> tuple[int, ...]:
        """The static shape; a ShapeError naming the shape when any part of it is dynamic."""
        return self.partial_shape.to_shape()

    def get_names(self) -> set[str]:
        return set(self.names)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Output) and other.node is self.node and other.index == self.index

    def __hash__(self) -> int:
        return hash((id(self.node), self.index))

    def __repr__(self) -> str:
        return f"<Output {self.index} of {self.node.describe()}: {self.tensor_type}>"

    # --- editing helpers (onnx-ir style), over the models that hold the node ----------------
    def uses(self) -> "list[tuple[Node, int]]":
        """Every (node, input index) this output feeds, in the models that hold its node."""
        from graphir.model import models_holding

        found: dict[tuple[int, int], tuple[Node, int]] = {}
        for model in models_holding(self.node):
            for node, index in model.consumers(self):
                found[(node.id, index)] = (node, index)
        return [found[k] for k in sorted(found)]

    def replace_all_uses_with(self, new: "Output | Node") -> int:
        """Re-point every use of this output to ``new`` (Results included); returns how many
        inputs changed. The consumers re-infer lazily (on the next read of a type, run or save)."""
        from graphir.model import models_holding

        replacement = _as_output(new)
        assert replacement is not None
        return sum(model.replace_all_uses_with(self, replacement) for model in models_holding(self.node))

    def insert(self, new: "Output | Node") -> "Output":
        """Put ``new`` (a node already built on this output) between this output and its other
        consumers: every other use of this output now reads ``new``. Returns ``new``'s output."""
        replacement = _as_output(new)
        assert replacement is not None
        if not any(src == self for src in replacement.node.inputs):
            raise GraphError(f"{replacement.node.describe()} does not read output {self.index} of "
                             f"{self.node.describe()}; build it on that output before inserting it")
        self.replace_all_uses_with(replacement)
        return replacement


class Node:
    """An op instance with a stable id, a friendly name, its input connections and output types."""

    __slots__ = ("id", "name", "op", "inputs", "output_types", "_output_names", "rt_info", "extra", "_memo",
                 "__weakref__")

    def __init__(
        self,
        op: Op,
        inputs: Sequence["Output | None"] = (),
        *,
        name: str | None = None,
        id: int | None = None,
        output_types: Sequence[TensorType] | None = None,
        infer: bool = True,
    ) -> None:
        if not isinstance(op, Op):
            raise GraphError(f"a node needs an op instance, got {type(op).__name__}: {op!r}")
        if name is not None and type(name) is not str:
            _refuse_name(name, f"a {op.type_name} node's name")
        if id is None:
            id = _next_id()
        else:
            _reserved.add(id)
        self.id: int = id
        self.op: Op = op
        self.name: str = name if name is not None else f"{op.type_name or type(op).__name__}_{id}"
        self.inputs: list[Output | None] = [_as_output(x) for x in inputs]
        self.rt_info: dict[str, Any] = {}
        self.extra: dict[str, Any] = {}  # serializer-specific data kept for round trips
        if output_types is not None:
            self.output_types: list[TensorType] = list(output_types)
        else:
            self.output_types = [TensorType(ElementType.dynamic, PartialShape.dynamic())] * op.num_outputs()
        self._output_names: list[set[str]] | None = None
        #: what the last inference saw and gave: (attribute epoch, op, input count, *inputs, *outputs)
        self._memo: tuple[Any, ...] | None = None
        if infer and output_types is None:
            self.infer()

    @classmethod
    def _restore(cls, op: Op, inputs: list["Output | None"], name: str, id: int,
                 output_types: list[TensorType]) -> "Node":
        """A node from parts a deserializer has already checked (``inputs`` are Outputs or None,
        ``output_types`` fits the op): no conversions and no inference; both lists are kept as given."""
        node = object.__new__(cls)
        _reserved.add(id)
        node.id = id
        node.op = op
        node.name = name
        node.inputs = inputs
        node.rt_info = {}
        node.extra = {}
        node.output_types = output_types
        node._output_names = None
        node._memo = None
        return node

    @property
    def output_names(self) -> list[set[str]]:
        """The tensor names of each output (a set per output), made on first use: a model read
        from a file has tens of thousands of nodes, most without names, and each list and set is
        one more object for the cyclic garbage collector to scan."""
        names = self._output_names
        if names is None:
            names = self._output_names = [set() for _ in self.output_types]
        return names

    @output_names.setter
    def output_names(self, value: list[set[str]]) -> None:
        self._output_names = value

    def has_output_names(self) -> bool:
        """Whether any output has a tensor name (without making the lists)."""
        names = self._output_names
        return names is not None and any(names)

    # --- identity ---------------------------------------------------------------------------
    @property
    def type_name(self) -> str:
        return self.op.type_name

    @property
    def version(self) -> str:
        return self.op.version

    @property
    def dialect(self) -> str:
        return self.op.dialect

    def describe(self) -> str:
        """``node 5 'sel' (Select-opset1)``: how every error names a node."""
        return f"node {self.id} '{self.name}' ({self.op.type_name}-{self.op.version})"

    def __repr__(self) -> str:
        return f"<Node {self.id} '{self.name}' {self.op.describe()}>"

    # --- OpenVINO's spellings, for people used to ov.Node -----------------------------------
    def get_friendly_name(self) -> str:
        return self.name

    def set_friendly_name(self, name: str) -> None:
        if type(name) is not str:
            _refuse_name(name, f"{self.describe()}: a name")
        self.name = name

    def get_type_name(self) -> str:
        return self.op.type_name

    def get_output_size(self) -> int:
        return len(self.output_types)

    def get_input_size(self) -> int:
        return len(self.inputs)

    def input_value(self, index: int) -> Output:
        """The output feeding input ``index``; a GraphError when it is out of range or unconnected."""
        src = self.inputs[index] if 0 <= index < len(self.inputs) else None
        if src is None:
            raise GraphError(f"{self.describe()}: input {index} is not connected (it has {len(self.inputs)} inputs)")
        return src

    def get_output_element_type(self, index: int) -> ElementType:
        return self.output(index).element_type

    def get_output_partial_shape(self, index: int) -> PartialShape:
        return self.output(index).partial_shape

    # --- ports ------------------------------------------------------------------------------
    def output(self, index: int = 0) -> Output:
        if not 0 <= index < len(self.output_types):
            raise GraphError(f"{self.describe()} has no output {index} (it has {len(self.output_types)})")
        return Output(self, index)

    def outputs(self) -> list[Output]:
        return [Output(self, i) for i in range(len(self.output_types))]

    def input_types(self) -> list[TensorType]:
        if _pending_types and _flush_types is not None:  # a model was edited: re-infer lazily first
            _flush_types()
        types_: list[TensorType] = []
        for src in self.inputs:
            if src is None:
                raise GraphError(f"{self.describe()}: input {len(types_)} is not connected")
            types_.append(src.node.output_types[src.index])
        return types_

    def set_input(self, index: int, source: "Output | Node | None") -> None:
        """Connect input ``index`` to ``source``. Every model holding this node moves its version on:
        new upstream nodes join it, and this node and those downstream re-infer lazily."""
        value = _as_output(source)
        while len(self.inputs) <= index:
            self.inputs.append(None)
        self.inputs[index] = value
        if _edit_listener is not None:
            _edit_listener(self)

    def uses(self) -> "list[tuple[Node, int]]":
        """Every (node, input index) any output of this node feeds, in the models holding it."""
        return [use for out in self.outputs() for use in out.uses()]

    def remove(self) -> None:
        """Remove this node from every model holding it; a GraphError naming the uses while it has any."""
        from graphir.model import models_holding

        for model in models_holding(self):
            model.remove_node(self)

    # --- inference --------------------------------------------------------------------------
    def infer(self) -> list[TensorType]:
        """Re-infer the output types from the input types; errors name this node and its inputs.

        A node remembers the inputs and outputs of its last inference (with the values folding
        attached): while its op is unedited (``attribute_epoch``) and its inputs are the same
        types, it gives the same outputs without inferring again (ops with ``pure_infer`` and
        without ``quiet_attributes``; a Constant gives the very same TensorType)."""
        inputs = self.input_types()
        epoch = _ops_base.attribute_epoch
        memo = self._memo
        n = len(inputs)
        if memo is not None and memo[0] == epoch and memo[1] is self.op and memo[2] == n:
            for i in range(n):
                a, b = memo[3 + i], inputs[i]
                if a is not b and not same_type(a, b):
                    break
            else:
                self.output_types = list(memo[3 + n:])
                return self.output_types
        return self._infer_from(inputs)

    def _infer_from(self, inputs: list[TensorType]) -> list[TensorType]:
        """Infer from ``inputs`` (this node's input types, collected by the caller) and remember
        them with the outputs (see :meth:`infer`); what a deserializer calls for a node it has just
        built (nothing remembered yet), without collecting the input types a second time."""
        epoch = _ops_base.attribute_epoch
        op = self.op
        self._check_input_count(inputs)
        try:  # infer_types, without a call more per node
            result = list(op.infer(inputs))
        except Exception as exc:
            raise self._infer_failure(inputs, exc)
        names = self._output_names
        if names is not None and len(names) != len(result):
            self._take_outputs(result)
        else:
            self.output_types = result
        cls = type(op)
        self._memo = ((epoch, op, len(inputs), *inputs, *result)
                      if cls.pure_infer and not cls.quiet_attributes else None)
        return self.output_types

    def infer_task(self) -> "Task[list[TensorType]]":
        """:meth:`infer` as a task (graphir.trampoline) for a node whose op has bodies: the op's
        ``infer_task`` is yielded, so bodies nested in bodies infer without nested calls. (Such
        ops have no ``pure_infer``: nothing is remembered.)"""
        inputs = self.input_types()
        self._check_input_count(inputs)
        try:
            result = list((yield self.op.infer_task(inputs)))  # type: ignore[attr-defined]
        except Exception as exc:
            raise self._infer_failure(inputs, exc)
        self._take_outputs(result)
        self._memo = None
        return self.output_types

    def _take_outputs(self, result: list[TensorType]) -> None:
        names = self._output_names
        if names is not None and len(names) != len(result):
            self._output_names = (names + [set() for _ in result])[: len(result)]
        self.output_types = list(result)

    def infer_types(self, inputs: list[TensorType], *, run: bool = False) -> list[TensorType]:
        """The output types this node would have for ``inputs`` (the node is not changed); an
        InferenceError names this node and ``inputs``. ``run``: also the checks a run makes
        beyond shape inference (``Op.check_run``)."""
        self._check_input_count(inputs)
        try:
            result = list(self.op.infer(inputs))
            if run:
                self.op.check_run(inputs)
            return result
        except Exception as exc:
            raise self._infer_failure(inputs, exc)

    def _check_input_count(self, inputs: list[TensorType]) -> None:
        cls = type(self.op)
        known = _ops_base._COUNT_RANGES.get(cls)  # Op.input_count_range's memo, read here: once per node
        low, high = known[1] if known is not None and known[0] is cls.inputs else cls.input_count_range()
        if len(inputs) < low or (high is not None and len(inputs) > high):
            expected = f"{low}" if low == high else f"{low} to {high if high is not None else 'any'}"
            raise InferenceError(
                f"{self.describe()}: expects {expected} inputs, got {len(inputs)}"
            )
        try:  # the element types the ports declare, for every op (graphir.ops.port_types)
            check_port_types(self.op, inputs)
        except Exception as exc:
            raise self._infer_failure(inputs, exc)

    def _infer_failure(self, inputs: list[TensorType], exc: Exception) -> Exception:
        """The error to raise for ``exc`` from the op's inference: an InferenceError naming this
        node and its inputs (UnsupportedOpError and RecursionError pass as they are)."""
        if isinstance(exc, (UnsupportedOpError, RecursionError)):
            return exc
        if isinstance(exc, GraphirError):
            error = InferenceError(f"{self.describe()}, inputs ({_list(inputs)}): {_strip(exc)}")
            error.__suppress_context__ = True  # as ``raise ... from None``
            return error
        # a bug in an op's infer: still name the place
        error = InferenceError(f"{self.describe()}, inputs ({_list(inputs)}): shape inference failed: "
                               f"{type(exc).__name__}: {exc}")
        error.__cause__ = exc
        return error

    def copy(self, inputs: Sequence["Output | None"] | None = None) -> "Node":
        """A new node with a copy of the op (same attributes), same name, new id."""
        clone = Node(copy.deepcopy(self.op), self.inputs if inputs is None else inputs,
                     name=self.name, output_types=self.output_types, infer=False)
        clone.output_names = [set(n) for n in self.output_names]
        clone.rt_info = copy.deepcopy(self.rt_info)
        clone.extra = copy.deepcopy(self.extra)
        return clone


def _as_output(value: "Output | Node | None") -> "Output | None":
    if value is None or isinstance(value, Output):
        return value
    if isinstance(value, Node):
        if len(value.output_types) != 1:
            raise GraphError(f"{value.describe()} has {len(value.output_types)} outputs; pick one with .output(i)")
        return Output(value, 0)
    raise GraphError(f"expected an Output or a Node, got {type(value).__name__}")


def _list(types_: Sequence[TensorType]) -> str:
    return ", ".join(str(t) for t in types_)


def _strip(exc: Exception) -> str:
    return str(exc)


def _refuse_name(name: Any, what: str) -> None:
    """Names are text: anything else is refused where it is given (not deep inside a writer)."""
    raise GraphError(f"{what} must be a str, got {type(name).__name__} {str(name)[:40]!r}")
