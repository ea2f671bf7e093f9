"""What the generated builders (:mod:`graphir._builders`) call: make a node of an op class found
in the registry by its key, and hand back its outputs."""
from __future__ import annotations

import enum
import typing
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

from graphir.node import Node, Output
from graphir.types import ElementType, as_element_type

if TYPE_CHECKING:
    import numpy as np

    from graphir.types import ElementType

class _Default:
    """The default of an attribute whose default value a signature cannot spell: left out."""

    def __repr__(self) -> str:
        return "DEFAULT"


#: a builder parameter's default meaning "the op's own default"
DEFAULT: Any = _Default()

#: what a builder takes as an input: an output, a one-output node, or a value made a Constant
TensorLike = Union[Output, Node, "np.ndarray", "np.generic", int, float, bool, Sequence[Any]]


def as_input(value: Any) -> Output:
    if isinstance(value, Output):
        return value
    if isinstance(value, Node):
        return value.output(0)
    return constant(value)


def spread(targets: tuple[str, ...], *values: Any) -> dict[str, Any]:
    """The attributes one sequence sets item by item (OpenVINO's ``output_roi=[h, w]``): the
    first value given; none when none is."""
    for value in values:
        if value is not None:
            return dict(zip(targets, value, strict=True))
    return {}


def _strings(annotation: Any) -> tuple[str, ...]:
    """The string values an attribute's type allows (a Literal's, a string enum's)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return tuple(a for a in typing.get_args(annotation) if isinstance(a, str))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum) and annotation is not ElementType:
        return tuple(m.value for m in annotation if isinstance(m.value, str))
    return tuple(s for a in typing.get_args(annotation) for s in _strings(a))


def _spelled(cls: Any, field: str, value: Any) -> Any:
    """A value as the op's attribute takes it: OpenVINO's API spellings ('NUMPY', 'EXPLICIT', a
    numpy dtype) matched to graphir's; anything else unchanged, for the op to refuse."""
    info = cls.model_fields.get(field)
    if info is None:
        return value
    if info.annotation is ElementType and not isinstance(value, (str, ElementType)):
        try:
            return as_element_type(value)
        except (TypeError, ValueError):
            return value
    if isinstance(value, str):
        choices = _strings(info.annotation)
        if choices and value not in choices:
            matched = [c for c in choices if c.lower() == value.lower()]
            if len(matched) == 1:
                return matched[0]
    return value


def constant(value: Any, dtype: "ElementType | str | type | None" = None, name: str | None = None) -> Output:
    """A constant from a numpy array, list or scalar (element type from its dtype unless given)."""
    from graphir.errors import GraphirError, OpDefinitionError
    from graphir.ops.openvino.core import Constant
    from graphir.types import as_element_type

    # Element type from numpy's reading of the value, as openvino.opset13.constant does in 2026.4:
    # Python floats are f64, Python ints i64, bools boolean (tests/test_opset.py pins it).
    et = None if dtype is None else as_element_type(dtype)
    try:
        op = Constant.from_array(value, et)
    except (ValueError, TypeError, OverflowError) as exc:
        if isinstance(exc, GraphirError):
            raise
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        raise OpDefinitionError(f"cannot make a Constant{'' if et is None else f' of {et}'} from {shown}: {exc}") from None
    return Node(op, name=name).output(0)


def _node(dialect: str, type_name: str, version: str, inputs: Sequence[Any], name: str | None,
          attributes: Mapping[str, Any], more: Mapping[str, Any] | None = None) -> Node:
    from graphir.ops.registry import lookup

    cls = lookup(dialect, type_name, version)
    given = list(inputs)
    while given and given[-1] is None:  # optional trailing inputs left out
        given.pop()
    given_attributes = {k: _spelled(cls, k, v) for k, v in {**attributes, **(more or {})}.items()
                        if v is not DEFAULT and v is not None}
    return Node(cls(**given_attributes), [None if x is None else as_input(x) for x in given], name=name)


def build(dialect: str, type_name: str, version: str, inputs: Sequence[Any], name: str | None,
          attributes: Mapping[str, Any], more: Mapping[str, Any] | None = None) -> Output:
    """A one-output op's node; its output."""
    return _node(dialect, type_name, version, inputs, name, attributes, more).output(0)


def build_node(dialect: str, type_name: str, version: str, inputs: Sequence[Any], name: str | None,
               attributes: Mapping[str, Any], more: Mapping[str, Any] | None = None) -> Node:
    """An op with other than one output: its node (``.outputs()``, ``.output(i)``), as OpenVINO's
    builders return."""
    return _node(dialect, type_name, version, inputs, name, attributes, more)
