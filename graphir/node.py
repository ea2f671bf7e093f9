"""Nodes and output handles: an op instance placed in a graph, and a reference to one of its outputs.

A node knows the outputs that feed its inputs (``node.inputs``, read-only: edit with
``set_input``), the (node, input) pairs its outputs feed (kept as edges are made and unmade, as
torch.fx's ``Node.users`` and onnx-ir's ``Value.uses()``), the one model that owns it, and its
output types, inferred when it is built (as OpenVINO validates each node on construction). Every
edit through a node moves its owning model's version. Ids are unique per process.
"""
from __future__ import annotations

import copy
import itertools
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from graphir.errors import GraphError, GraphirError, InferenceError, UnsupportedOpError
from graphir.ops import base as _ops_base
from graphir.ops.base import Op, TensorType
from graphir.ops.port_types import check_port_types
from graphir.shapes import PartialShape
from graphir.types import ElementType

from graphir.trampoline import drive

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.trampoline import Task

_ids = itertools.count()
#: the type of an output not inferred yet (immutable: every such output shares it)
_UNKNOWN = TensorType(ElementType.dynamic, PartialShape.dynamic())
_reserved: set[int] = set()


class Inputs(list):  # type: ignore[type-arg]
    """A node's input connections: read like a list, never written in place (an edit made behind
    the node's back would leave its producers' uses and its model's version stale)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise GraphError("node.inputs is read-only: connect an input with node.set_input(index, source) "
                         "(or model.replace_all_uses_with), so that uses and the model's version follow")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse  # type: ignore[assignment]


_set_item = list.__setitem__
_append = list.append


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
        node = self.node
        owner = node._owner
        if owner is not None:  # an edited model re-infers what its edits touched before a type is read
            model = owner()
            if model is not None:
                model._settle_types()
        return node.output_types[self.index]

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

    # --- editing helpers (onnx-ir style): O(uses), whatever else is alive -------------------
    def uses(self) -> "list[tuple[Node, int]]":
        """Every (node, input index) this output feeds in the graph that owns its node (for a node
        in no model: the nodes in no model), sorted by node id and input index."""
        node, index = self.node, self.index
        owner = node._owner
        if owner is not None:
            model = owner()
            if model is not None:
                model._link_restored()
        users = node._users
        if not users:
            return []
        found = []
        for k in range(0, len(users), 2):
            user, port = users[k], users[k + 1]
            if user._owner is owner and user.inputs[port].index == index:
                found.append((user, port))
        found.sort(key=_use_key)
        return found

    def replace_all_uses_with(self, new: "Output | Node") -> int:
        """Re-point every use of this output to ``new`` (Results included; ``new``'s own node
        keeps reading this output); returns how many inputs changed. The consumers re-infer lazily
        (on the next read of a type, run, save or ``infer_shapes``)."""
        replacement = _as_output(new)
        assert replacement is not None
        count = 0
        for user, port in self.uses():
            if user is not replacement.node:
                user.set_input(port, replacement)
                count += 1
        return count

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
    """An op instance with a stable id, a friendly name, its input connections and output types.

    A node belongs to at most one model (a body is a model of its own); putting it into a second
    one is refused (``model.clone()`` copies). ``node.op`` is an immutable value: an attribute edit
    is ``node.set_attribute(name, value)`` or ``node.op = node.op.model_copy(update=...)``."""

    __slots__ = ("id", "name", "_op", "inputs", "output_types", "_output_names", "rt_info", "extra",
                 "_owner", "_users", "__weakref__")

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
        self._op: Op = op
        self.name: str = name if name is not None else f"{op.type_name or type(op).__name__}_{id}"
        self.inputs: Inputs = Inputs([_as_output(x) for x in inputs])
        self.rt_info: dict[str, Any] = {}
        self.extra: dict[str, Any] = {}  # serializer-specific data kept for round trips
        self._owner: Any = None  # a weak reference to the model that owns the node
        self._users: list[Any] | None = None  # flat (node, input index) pairs this node's outputs feed
        _link(self)
        if output_types is not None:
            self.output_types: list[TensorType] = list(output_types)
        else:
            self.output_types = [_UNKNOWN] * op.num_outputs()
        self._output_names: list[set[str]] | None = None
        if infer and output_types is None:
            self.infer()

    @classmethod
    def _restore(cls, op: Op, inputs: list["Output | None"], name: str, id: int,
                 output_types: list[TensorType]) -> "Node":
        """A node from parts a deserializer has already checked (``inputs`` are Outputs or None,
        ``output_types`` fits the op): no conversions, no inference, and its inputs not yet recorded
        as uses of their producers: the caller puts it into a ``Model(..., restored=True)``, which
        records them when first needed (a reader builds tens of thousands of nodes; most reads
        never ask). ``output_types`` is kept as given."""
        _reserved.add(id)
        return cls._assemble(op, inputs, name, id, output_types)

    @classmethod
    def _built(cls, op: Op, inputs: list["Output | None"], name: str,
               output_types: list[TensorType] | None = None) -> "Node":
        """``Node(op, inputs, name=name, infer=False)`` (or ``output_types=...``) from parts a reader
        has checked (``op`` an Op, ``inputs`` Outputs or None, ``name`` a str), without the
        conversions: a new id, its inputs recorded as uses; the caller infers it (the ONNX reader
        builds thousands of nodes, remembering inference per op and input types)."""
        node = cls._assemble(op, inputs, name, _next_id(),
                             output_types if output_types is not None else [_UNKNOWN] * op.num_outputs())
        _link(node)
        return node

    @classmethod
    def _assemble(cls, op: Op, inputs: list["Output | None"], name: str, id: int,
                  output_types: list[TensorType]) -> "Node":
        """The node of these parts, its inputs not recorded as uses (see _restore and _built)."""
        node = object.__new__(cls)
        node.id = id
        node._op = op
        node.name = name
        node.inputs = Inputs(inputs)
        node.rt_info = {}
        node.extra = {}
        node.output_types = output_types
        node._output_names = None
        node._owner = None
        node._users = None
        return node

    def __getstate__(self) -> dict[str, Any]:
        """Pickling: everything but the owner (the unpickled model takes its nodes back)."""
        return {k: getattr(self, k) for k in Node.__slots__ if k not in ("_owner", "__weakref__")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)
        self._owner = None

    # --- the op: an immutable value, replaced as a whole ------------------------------------
    def _replace_op(self, op: Op) -> None:
        """``node.op = op``: validated (an Op; its inference accepts this node's inputs, else the
        old op stays and the InferenceError is raised) and an edit of the owning model."""
        if not isinstance(op, Op):
            raise GraphError(f"{self.describe()}: an op must be an Op instance, got {type(op).__name__}")
        old, old_types = self._op, self.output_types
        if op is old:
            return
        self._op = op
        try:
            self.infer()
        except Exception:
            self._op, self.output_types = old, old_types
            raise
        model = self.model
        if model is not None:
            model._op_replaced(self, old)

    if TYPE_CHECKING:
        @property
        def op(self) -> Op: ...

        @op.setter
        def op(self, op: Op) -> None: ...
    else:  # a C getter: ``node.op`` is read on every step of inference and plan building
        op = property(operator.attrgetter("_op"), _replace_op,
                      doc="The op (an immutable value); assigning a new one is an edit (see set_attribute).")

    def set_attribute(self, name: str, value: Any) -> None:
        """Change one attribute of the op: the new value is validated, the node re-infers (an
        InferenceError leaves the old op in place) and the owning model's version moves on; nodes
        downstream re-infer lazily."""
        op = self._op
        if name not in type(op).model_fields:
            raise GraphError(f"{self.describe()}: {op.describe()} has no attribute '{name}' "
                             f"(attributes: {', '.join(type(op).model_fields) or 'none'})")
        self.op = op.with_attributes(**{name: value})

    # --- ownership ----------------------------------------------------------------------------
    @property
    def model(self) -> "Model | None":
        """The model (or body) that owns this node; None for a node not placed in one."""
        owner = self._owner
        return owner() if owner is not None else None

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
        return self._op.type_name

    @property
    def version(self) -> str:
        return self._op.version

    @property
    def dialect(self) -> str:
        return self._op.dialect

    def describe(self) -> str:
        """``node 5 'sel' (Select-opset1)``: how every error names a node."""
        return f"node {self.id} '{self.name}' ({self._op.type_name}-{self._op.version})"

    def __repr__(self) -> str:
        return f"<Node {self.id} '{self.name}' {self._op.describe()}>"

    # --- OpenVINO's spellings, for people used to ov.Node -----------------------------------
    def get_friendly_name(self) -> str:
        return self.name

    def set_friendly_name(self, name: str) -> None:
        if type(name) is not str:
            _refuse_name(name, f"{self.describe()}: a name")
        self.name = name

    def get_type_name(self) -> str:
        return self._op.type_name

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
        owner = self._owner
        if owner is not None:  # an edited model re-infers what its edits touched before a type is read
            model = owner()
            if model is not None:
                model._settle_types()
        types_: list[TensorType] = []
        for src in self.inputs:
            if src is None:
                raise GraphError(f"{self.describe()}: input {len(types_)} is not connected")
            types_.append(src.node.output_types[src.index])
        return types_

    def set_input(self, index: int, source: "Output | Node | None") -> None:
        """Connect input ``index`` to ``source``: the old producer loses the use, the new one gains
        it, and the owning model moves its version on (new upstream nodes join it; this node and
        those downstream re-infer lazily). O(uses of the two producers)."""
        value = _as_output(source)
        if index < 0:
            raise GraphError(f"{self.describe()}: input index {index} is negative")
        model = self.model
        if model is not None:
            if value is not None:
                model._check_joinable(value.node)
            model._link_restored()
        inputs = self.inputs
        if index < len(inputs):
            old = inputs[index]
            if old is not None:
                _unlink_one(old.node, self, index)
            _set_item(inputs, index, value)
        else:
            while len(inputs) < index:
                _append(inputs, None)
            _append(inputs, value)
        if value is not None:
            _add_use(value.node, self, index)
        if model is not None:
            model._inputs_changed(self)

    def uses(self) -> "list[tuple[Node, int]]":
        """Every (node, input index) any output of this node feeds, in the graph that owns it."""
        return [use for out in self.outputs() for use in out.uses()]

    def remove(self) -> None:
        """Remove this node from the model that owns it; a GraphError naming the uses while it has any."""
        model = self.model
        if model is not None:
            model.remove_node(self)

    # --- inference --------------------------------------------------------------------------
    def infer(self) -> list[TensorType]:
        """Re-infer the output types from the input types; errors name this node and its inputs.
        An op with bodies infers them through the inference pass's context (see :meth:`infer_task`)."""
        if type(self._op).has_bodies:
            return drive(self.infer_task())
        return self._infer_from(self.input_types())

    def _infer_from(self, inputs: list[TensorType]) -> list[TensorType]:
        """Infer from ``inputs`` (this node's input types, collected by the caller): what a
        deserializer calls for a node it has just built, without collecting them a second time."""
        op = self._op
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
        return self.output_types

    def infer_task(self, ctx: Any = None) -> "Task[list[TensorType]]":
        """:meth:`infer` as a task (graphir.trampoline) for a node whose op has bodies: the op's
        ``infer_task`` is yielded with ``ctx`` (graphir.ops.base.BodyContext; default: the
        inference pass's), so bodies nested in bodies infer without nested calls."""
        if ctx is None:
            ctx = _inference_context()
        inputs = self.input_types()
        self._check_input_count(inputs)
        try:
            result = list((yield self._op.infer_task(inputs, ctx)))  # type: ignore[attr-defined]
        except Exception as exc:
            raise self._infer_failure(inputs, exc)
        self._take_outputs(result)
        return self.output_types

    def _take_outputs(self, result: list[TensorType]) -> None:
        names = self._output_names
        if names is not None and len(names) != len(result):
            self._output_names = (names + [set() for _ in result])[: len(result)]
        self.output_types = list(result)

    def _types_for(self, inputs: list[TensorType], *, run: bool = False, op: Op | None = None,
                   ctx: Any = None) -> list[TensorType]:
        """The output types this node would have for ``inputs`` (the node is not changed); an
        InferenceError names this node and ``inputs``. ``run``: also the checks a run makes
        beyond shape inference (``Op.check_run``). ``op``: infer with this op instead of the
        node's (a request's private copy of an op with bodies)."""
        self._check_input_count(inputs)
        if op is None:
            op = self._op
        try:
            if type(op).has_bodies:
                result = list(drive(op.infer_task(inputs, ctx if ctx is not None else _inference_context())))  # type: ignore[attr-defined]
            else:
                result = list(op.infer(inputs))
            if run:
                op.check_run(inputs)
            return result
        except Exception as exc:
            raise self._infer_failure(inputs, exc)

    def _check_input_count(self, inputs: list[TensorType]) -> None:
        op = self._op
        cls = type(op)
        known = _ops_base._COUNT_RANGES.get(cls)  # Op.input_count_range's memo, read here: once per node
        low, high = known[1] if known is not None and known[0] is cls.inputs else cls.input_count_range()
        if len(inputs) < low or (high is not None and len(inputs) > high):
            expected = f"{low}" if low == high else f"{low} to {high if high is not None else 'any'}"
            raise InferenceError(
                f"{self.describe()}: expects {expected} inputs, got {len(inputs)}"
            )
        try:  # the element types the ports declare, for every op (graphir.ops.port_types)
            check_port_types(op, inputs)
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
        """A new node (in no model) with the same op (an immutable value; bodies are cloned: a body
        belongs to one node), same name, new id."""
        op = self._op
        bodies = {key: value.clone() for key, value in op.__dict__.items()
                  if hasattr(value, "get_ordered_ops") and hasattr(value, "clone")}  # a body belongs to one node
        if bodies:
            op = op.model_copy(update=bodies)
        clone = Node(op, self.inputs if inputs is None else inputs,
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


def _inference_context() -> Any:
    """The inference pass's context for ops with bodies. The one call from the graph layer up to
    the passes layer (a node with bodies is inferred by inferring its bodies, which is that pass's
    job); tests/test_layers.py lists it."""
    from graphir.inference import INFER_CONTEXT

    return INFER_CONTEXT


def _use_key(use: "tuple[Node, int]") -> tuple[int, int]:
    return (use[0].id, use[1])


def _add_use(producer: Node, user: Node, index: int) -> None:
    users = producer._users
    if users is None:
        producer._users = [user, index]
    else:
        _append(users, user)
        _append(users, index)


def _unlink_one(producer: Node, user: Node, index: int) -> None:
    """Forget that ``user``'s input ``index`` reads ``producer`` (O(uses of producer))."""
    users = producer._users
    if users:
        for k in range(0, len(users), 2):
            if users[k] is user and users[k + 1] == index:
                del users[k:k + 2]
                return


def _link(node: Node) -> None:
    """Record ``node``'s inputs as uses of their producers."""
    for index, src in enumerate(node.inputs):
        if src is not None:
            _add_use(src.node, node, index)


def _unlink(node: Node) -> None:
    """Forget ``node``'s inputs as uses of their producers (the node leaves its model)."""
    for index, src in enumerate(node.inputs):
        if src is not None:
            _unlink_one(src.node, node, index)


def _list(types_: Sequence[TensorType]) -> str:
    return ", ".join(str(t) for t in types_)


def _strip(exc: Exception) -> str:
    return str(exc)


def _refuse_name(name: Any, what: str) -> None:
    """Names are text: anything else is refused where it is given (not deep inside a writer)."""
    raise GraphError(f"{what} must be a str, got {type(name).__name__} {str(name)[:40]!r}")
