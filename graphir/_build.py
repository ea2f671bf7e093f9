"""What the generated builders (:mod:`graphir._builders`) call: make a node of an op class found
in the registry by its key, and hand back its outputs."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

from graphir.node import Node, Output

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
          attributes: Mapping[str, Any]) -> Node:
    from graphir.ops.registry import lookup

    cls = lookup(dialect, type_name, version)
    given = list(inputs)
    while given and given[-1] is None:  # optional trailing inputs left out
        given.pop()
    given_attributes = {k: v for k, v in attributes.items() if v is not DEFAULT}
    return Node(cls(**given_attributes), [None if x is None else as_input(x) for x in given], name=name)


def build(dialect: str, type_name: str, version: str, inputs: Sequence[Any], name: str | None,
          attributes: Mapping[str, Any]) -> Output:
    """A one-output op's node; its output."""
    return _node(dialect, type_name, version, inputs, name, attributes).output(0)


def build_many(dialect: str, type_name: str, version: str, inputs: Sequence[Any], name: str | None,
               attributes: Mapping[str, Any]) -> list[Output]:
    """An op with a fixed number of outputs other than one; all of them."""
    return _node(dialect, type_name, version, inputs, name, attributes).outputs()


def build_any(dialect: str, type_name: str, version: str, inputs: Sequence[Any], name: str | None,
              attributes: Mapping[str, Any]) -> Output | list[Output]:
    """An op whose output count depends on its attributes: one output alone, else the list."""
    node = _node(dialect, type_name, version, inputs, name, attributes)
    return node.output(0) if len(node.output_types) == 1 else node.outputs()
