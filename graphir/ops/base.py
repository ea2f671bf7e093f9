"""The op schema: a pydantic model whose fields are the op's attributes.

Class variables name the dialect, type, version and ports. ``infer`` maps input TensorTypes to
output TensorTypes; ``evaluate`` maps numpy arrays to numpy arrays. Declaring a subclass with a
``type_name`` registers it (see :mod:`graphir.ops.registry`); nothing else is edited to add an op.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from graphir.errors import InferenceError, OpDefinitionError
from graphir.ops.frozen import freezable_fields, freeze_fields, freeze_state
from graphir.shapes import PartialShape
from graphir.types import ElementType

if TYPE_CHECKING:
    from typing_extensions import Self


@dataclass(frozen=True, slots=True)
class TensorType:
    """Element type + partial shape of one tensor; ``value`` holds its data when known statically
    (constant folding for value-dependent shape inference). ``value`` is not part of equality."""

    element_type: ElementType
    shape: PartialShape
    value: Any = field(default=None, compare=False, repr=False)
    #: partly known values of a small integer tensor (shape subgraphs with dynamic dims): one item
    #: per element in flat order, an ``int`` when known or a ``Dimension`` bounding an unknown
    #: non-negative value. None when nothing is known; ``value`` wins when set. Not part of equality.
    bounds: Any = field(default=None, compare=False, repr=False)

    def __init__(self, element_type: ElementType, shape: PartialShape, value: Any = None, bounds: Any = None) -> None:
        # every node's inference makes these: filled in through the slots' own setters (what the
        # generated frozen __init__ does, one object.__setattr__ per field, costs three times as
        # much). Slots, not a __dict__: one object per type for the cyclic GC to track, not two.
        _set_element_type(self, element_type)
        _set_shape(self, shape)
        _set_value(self, value)
        _set_bounds(self, bounds)

    def __str__(self) -> str:
        return f"{self.element_type}{self.shape}"

    @classmethod
    def of(cls, element_type: "ElementType | str", shape: "PartialShape | str | list[int]") -> "TensorType":
        return cls(ElementType.parse(element_type), PartialShape.parse(shape))


_set_element_type = TensorType.__dict__["element_type"].__set__
_set_shape = TensorType.__dict__["shape"].__set__
_set_value = TensorType.__dict__["value"].__set__
_set_bounds = TensorType.__dict__["bounds"].__set__


def same_type(a: TensorType, b: TensorType) -> bool:
    """Whether ``a`` and ``b`` are the same to every consumer: element type, shape, known values
    (same dtype, shape and elements) and partly known values (the same items)."""
    if a is b:
        return True
    if a.element_type is not b.element_type or a.shape != b.shape:
        return False
    return _same_value(a.value, b.value) and _same_bounds(a.bounds, b.bounds)


def _same_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not np.ndarray or type(b) is not np.ndarray:
        return False
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.size <= 256 and a.dtype.kind != "O":  # the same bits (what shape subgraphs fold): ~10x cheaper
        return a.tobytes() == b.tobytes()      # than array_equal; -0.0 vs 0.0 only costs a re-inference
    return bool(np.array_equal(a, b))


def _same_bounds(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or not isinstance(a, (list, tuple)) or len(a) != len(b):
        return False
    return all(type(x) is type(y) and x == y for x, y in zip(a, b))


@dataclass(frozen=True)
class NodeSignature:
    """What :meth:`Op.prepare` knows of one node for one signature of a run's input shapes."""

    inputs: list[TensorType]
    #: per input: its value when it is a constant for every run of the signature, else None
    constants: "list[np.ndarray | None]"
    outputs: list[TensorType]
    #: per output: whether any node or Result reads it
    used: list[bool]

    def static_shape(self, t: TensorType) -> tuple[int, ...] | None:
        """``t``'s shape as a tuple when static."""
        dims = t.shape._dims
        if dims is None or any(d.max != d.min for d in dims):
            return None
        return tuple(d.min for d in dims)


def static_dims(t: "TensorType") -> tuple[int, ...] | None:
    """``t``'s shape as a tuple when static (a specialization asks this of every output, per
    signature: kept cheap)."""
    dims = t.shape._dims
    if dims is None:
        return None
    out = []
    for d in dims:
        if d.max != d.min:
            return None
        out.append(d.min)
    return tuple(out)


_Step = TypeVar("_Step", bound=Callable[..., Any])


def fresh_output(step: _Step) -> _Step:
    """Mark a prepared evaluate whose output 0 is always a new array nothing else references (a
    run plan may let the one node reading it write its result into it, see :func:`writes_into`)."""
    step.fresh_output = True  # type: ignore[attr-defined]
    return step


def writes_into(step: _Step, *into: Callable[..., Any]) -> _Step:
    """Mark a prepared elementwise evaluate (output of an input's type and shape) with variants
    computing the same values into input 0, input 1, ... (numpy ``out=``; one per input). A run
    plan uses one when that input is a fresh array (:func:`fresh_output`) this node alone reads:
    no allocation, the same bits. All of them give fresh outputs."""
    fresh_output(step)
    for fn in into:
        fresh_output(fn)
    step.into_inputs = into  # type: ignore[attr-defined]
    return step


@dataclass(frozen=True)
class Port:
    """One input or output port of an op schema.

    ``types``: the element types allowed (None: any). ``optional``: may be left unconnected
    (trailing inputs only). ``variadic``: this port repeats (Concat's inputs, Split's outputs).
    """

    name: str
    types: tuple[ElementType, ...] | None = None
    optional: bool = False
    variadic: bool = False
    description: str = ""

    def allows(self, element_type: ElementType) -> bool:
        return self.types is None or element_type.is_dynamic or element_type in self.types


def types(*names: str) -> tuple[ElementType, ...]:
    """Shorthand for a port's allowed element types: ``types("f32", "f16", "bf16")``."""
    return tuple(ElementType.parse(n) for n in names)


REAL = types("f32", "f16", "bf16", "f64", "f8e4m3", "f8e5m2")
INTEGRAL = types("i4", "i8", "i16", "i32", "i64", "u1", "u4", "u8", "u16", "u32", "u64")
NUMERIC = REAL + INTEGRAL
INDEX = types("i32", "i64")


class BodyContext(Protocol):
    """What an op with bodies (If, Loop, TensorIterator) is handed by whoever infers or runs it:
    the inference pass gives ``infer_body`` (graphir.inference), the runtime ``run_body``
    (graphir.interpreter). Both return tasks (graphir.trampoline) the op yields, so bodies nested
    any depth never nest Python calls. Ops never import the engine."""

    def infer_body(self, body: Any, types: list[TensorType], where: str) -> Any:
        """A task inferring ``body`` given its Parameters' types; its Result types."""

    def run_body(self, body: Any, args: list[np.ndarray]) -> Any:
        """A task running ``body`` on arrays in Parameter order; its Result values."""


class SharedFieldsSet(set[str]):
    """One pydantic fields-set that many ops of the same attributes share (the IR reader gives one
    to all ops built from a layer template: one object for the garbage collector instead of one
    per op). An op takes a set of its own before an assignment changes it (``Op.__setattr__``)."""

    __slots__ = ()


class Op(BaseModel):
    """Base of every op schema. Fields are attributes; class variables are metadata."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,  # an op is a value: an edit replaces it (node.set_attribute, node.op = ...)
        validate_assignment=True,
        arbitrary_types_allowed=True,
        populate_by_name=True,
        use_enum_values=False,
    )

    dialect: ClassVar[str] = "openvino"
    type_name: ClassVar[str] = ""
    version: ClassVar[str] = ""
    inputs: ClassVar[tuple[Port, ...]] = ()
    outputs: ClassVar[tuple[Port, ...]] = ()
    #: the type name a file format writes when it differs (OpenVINO IR: Const, ReLU, SoftMax)
    serialized_type_names: ClassVar[dict[str, str]] = {}
    #: True for ops with no numpy semantics here (backward ops): they infer and load but not run
    runnable: ClassVar[bool] = True
    #: False for ops that shape inference must not evaluate on known input values (random
    #: generators, control flow)
    foldable: ClassVar[bool] = True
    #: True when ``infer`` is a function of the attributes and the input types alone, so a node
    #: may keep its outputs while its inputs are the same (False for ops with subgraph bodies:
    #: a body may be edited while the op's inputs stay)
    pure_infer: ClassVar[bool] = True
    #: True for ops that keep a variable between runs (ReadValue/Assign); declared here so that
    #: asking any op is a plain class lookup (a miss goes through pydantic's slow __getattr__)
    stateful: ClassVar[bool] = False
    #: True for ops a model keeps though no Result reads them (Assign: OpenVINO's sinks)
    sink: ClassVar[bool] = False
    #: True for ops with subgraph bodies: they define ``infer_task``/``evaluate_task`` (generators,
    #: see graphir.trampoline), which the body runner and body inference yield instead of calling
    #: ``infer``/``evaluate``, so bodies nested any depth never nest Python calls
    has_bodies: ClassVar[bool] = False
    #: the IR keys of the attributes in the order OpenVINO's serializer writes them (its
    #: ``visit_attributes`` order), where that is not the fields' order; keys not listed follow
    ir_attribute_order: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _attribute_error(type(self), exc) from None
        # attribute values are immutable copies (lists, dicts, arrays; see graphir.ops.frozen):
        # after every validator, since a subclass's may fill in a list (pooling's dilations)
        names = freezable_fields(type(self))
        if names:
            freeze_fields(self.__dict__, names)

    def __setattr__(self, name: str, value: Any) -> None:
        """Ops are immutable values: a public attribute is never assigned in place (the model
        holding the op could not know); private state (a Constant's loaded data) may be set."""
        if name[0] != "_":
            raise OpDefinitionError(
                f"{self.describe()}: ops are immutable values; to change '{name}' use "
                f"node.set_attribute({name!r}, value) or node.op = node.op.with_attributes({name}=value)")
        super().__setattr__(name, value)

    def with_attributes(self, **changes: Any) -> "Op":
        """A copy of this op with ``changes`` applied, each validated as at construction (an
        OpDefinitionError names a bad one); private state (a Constant's data) is shared."""
        fields = type(self).model_fields
        for name in changes:
            if name not in fields:
                raise OpDefinitionError(f"{self.describe()}: no attribute '{name}' "
                                        f"(attributes: {', '.join(fields) or 'none'})")
        copy = self.model_copy()
        validator = type(self).__pydantic_validator__
        for name, value in changes.items():
            try:
                validator.validate_assignment(copy, name, value)
            except ValidationError as exc:
                raise _attribute_error(type(self), exc) from None
        freeze_state(copy.__dict__)
        return copy

    def model_copy(self, *, update: "Mapping[str, Any] | None" = None, deep: bool = False) -> "Self":
        """pydantic's copy; values in ``update`` (not validated, as pydantic does) are frozen too."""
        copy = super().model_copy(update=update, deep=deep)
        if update:
            freeze_state(copy.__dict__)
        return copy

    @classmethod
    def model_construct(cls, _fields_set: "set[str] | None" = None, **values: Any) -> "Self":
        """pydantic's unvalidated construction, with the attribute values frozen."""
        op = super().model_construct(_fields_set, **values)
        freeze_state(op.__dict__)
        return op

    @classmethod
    def __init_subclass__(cls, override: bool = False, **kwargs: Any) -> None:
        """``class Relu(Op, override=True)`` replaces the registered class of the same key (see
        :func:`graphir.ops.registry.register`); without it a second class for a key is an error."""
        super().__init_subclass__(**kwargs)

    @classmethod
    def __pydantic_init_subclass__(cls, override: bool = False, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        # a class that names its own key registers: a new type, or a new version/dialect of an
        # inherited one (``class MaxPool8(MaxPool1): version = "opset8"``)
        if cls.type_name and any(k in cls.__dict__ for k in ("type_name", "version", "dialect")):
            from graphir.ops.registry import register

            register(cls, override=override)

    # --- metadata ---------------------------------------------------------------------------
    @classmethod
    def describe(cls) -> str:
        """``openvino::Select-opset1``."""
        return f"{cls.dialect}::{cls.type_name or cls.__name__}-{cls.version}"

    @classmethod
    def input_port(cls, index: int) -> Port:
        if index < len(cls.inputs):
            return cls.inputs[index]
        if cls.inputs and cls.inputs[-1].variadic:
            return cls.inputs[-1]
        raise OpDefinitionError(f"{cls.describe()} has no input port {index}")

    @classmethod
    def input_count_range(cls) -> tuple[int, int | None]:
        """(minimum, maximum) number of connected inputs; maximum None when variadic."""
        cached = _COUNT_RANGES.get(cls)
        if cached is not None and cached[0] is cls.inputs:  # remembered per class and port tuple
            return cached[1]
        _COUNT_RANGES[cls] = (cls.inputs, cls._input_count_range())
        return _COUNT_RANGES[cls][1]

    @classmethod
    def _input_count_range(cls) -> tuple[int, int | None]:
        required = sum(1 for p in cls.inputs if not p.optional and not p.variadic)
        if cls.inputs and cls.inputs[-1].variadic:
            return (required + (0 if cls.inputs[-1].optional else 1), None)
        return (required, len(cls.inputs))

    def num_outputs(self) -> int:
        """Number of outputs of this instance (ops with variadic outputs override it)."""
        return len(self.outputs)

    def output_port(self, index: int) -> Port:
        if index < len(self.outputs):
            return self.outputs[index]
        if self.outputs and self.outputs[-1].variadic:
            return self.outputs[-1]
        raise OpDefinitionError(f"{self.describe()} has no output port {index}")

    def attributes(self) -> dict[str, Any]:
        """The attribute values by field name."""
        return {name: getattr(self, name) for name in type(self).model_fields}

    # --- semantics --------------------------------------------------------------------------
    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        raise InferenceError(f"{self.describe()} does not implement shape inference")

    def check_run(self, inputs: list[TensorType]) -> None:
        """Checks a run makes beyond shape inference (where OpenVINO's shape inference accepts what
        its runtime cannot compute). Called when a run's concrete input types are inferred, before
        anything runs, and when ``graphir run --random`` picks input sizes; raise ``self.fail(...)``."""

    def prepare(self, node: "NodeSignature") -> Callable[..., list[np.ndarray]]:
        """The evaluate a run plan specialized for one input signature calls (graphir.specialize).

        ``node`` holds the types of this node's inputs and outputs for that signature (static
        shapes there), the value of each input that is a constant (weights, folded shape
        subgraphs) and which outputs anything reads. Returns a callable taking ``evaluate``'s
        arguments (all inputs, constants included) and returning what ``evaluate`` returns, bit
        for bit (an output nobody reads may be None): an op overrides this to decode attributes,
        lay out constant inputs and make checks once, so a call does only numpy work. The default
        is ``evaluate`` itself (or, for ops whose evaluate depends on input types, their
        ``specialize(inputs)``)."""
        specialize_types = getattr(self, "specialize", None)
        return self.evaluate if specialize_types is None else specialize_types(node.inputs)

    if TYPE_CHECKING:
        #: ``evaluate(self, *input arrays) -> output arrays``; each op names its own inputs
        #: (``def evaluate(self, cond, then, otherwise)``), which a method signature here would forbid
        evaluate: ClassVar[Callable[..., list[np.ndarray]]]
    else:
        def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
            raise NotImplementedError(f"{self.describe()} does not implement evaluate")

    # --- helpers for subclasses -------------------------------------------------------------
    def fail(self, message: str) -> "InferenceError":
        """An InferenceError naming this op; raise it: ``raise self.fail('...')``."""
        return InferenceError(f"{self.describe()}: {message}")

    def check_input_types(self, inputs: list[TensorType]) -> None:
        """Each input's element type is allowed by its port."""
        ports = type(self).inputs
        for i, t in enumerate(inputs):
            port = ports[i] if i < len(ports) else self.input_port(i)
            allowed = port.types
            if allowed is not None and t.element_type not in allowed and t.element_type is not ElementType.dynamic:
                listed = ", ".join(str(x) for x in allowed)
                raise self.fail(
                    f"input {i} ('{port.name}') has element type {t.element_type}; "
                    f"allowed: {listed}"
                )

    def merge_types(self, inputs: list[TensorType], indices: tuple[int, ...]) -> ElementType:
        """Merge the element types of the given inputs (they must agree, dynamic aside)."""
        result = ElementType.dynamic
        for i in indices:
            merged = result.merge(inputs[i].element_type)
            if merged is None:
                listed = ", ".join(
                    f"{i} ('{self.input_port(i).name}'): {inputs[i].element_type}" for i in indices
                )
                raise self.fail(f"inputs must have the same element type; got {listed}")
            result = merged
        return result


_COUNT_RANGES: dict[type, tuple[tuple[Port, ...], tuple[int, int | None]]] = {}


def _attribute_error(cls: type[Op], exc: ValidationError) -> OpDefinitionError:
    problems = "; ".join(
        f"attribute '{'.'.join(str(p) for p in err['loc']) or '?'}': {err['msg']}"
        for err in exc.errors()
    )
    return OpDefinitionError(f"{cls.describe()}: {problems}")
