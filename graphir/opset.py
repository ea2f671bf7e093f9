"""Builder functions over the OpenVINO dialect, mirroring ``openvino.opset13``.

``x = opset.parameter("[?,3]", "f32", name="x")`` returns an :class:`Output`; every call infers
its output types at once, as OpenVINO validates each node on construction. One typed function per
OpenVINO op type (its newest version) comes from the generated :mod:`graphir._builders`
(``python scripts/generate.py``): inputs by port name, attributes keyword-only with their types,
defaults and allowed values, and a docstring from the op's schema. Any registered op (another
version, another dialect) is built by :func:`make`; an op declared after the builders were last
generated is still reachable as ``opset.<snake_case_name>``, derived from the registry.
"""
from __future__ import annotations

import re
from typing import Any

from graphir._build import TensorLike, as_input
from graphir._build import constant as _constant
from graphir._builders import *  # noqa: F403 - the generated builders are this module's API
from graphir._builders import __all__ as _generated
from graphir.errors import GraphirError, OpDefinitionError
from graphir.node import Node, Output
from graphir.ops.openvino.core import Constant, Parameter, Result
from graphir.ops.registry import all_ops, lookup
from graphir.shapes import PartialShape
from graphir.types import ElementType

__all__ = ["parameter", "constant", "result", "make", "TensorLike", *_generated]


def _outputs(node: Node) -> "Output | list[Output]":
    return node.output(0) if len(node.output_types) == 1 else node.outputs()


_as_input = as_input


def parameter(shape: Any, dtype: "ElementType | str | type" = "f32", name: str | None = None) -> Output:
    """A model input: ``parameter("[?,3]", "f32", name="x")``; the name also becomes its tensor name."""
    from graphir.types import as_element_type

    node = Node(Parameter(shape=PartialShape.parse(shape), element_type=as_element_type(dtype)), name=name)
    if name:
        node.output_names[0] = {name}
    return node.output(0)


constant = _constant  # defined with the builders' helpers (graphir._build), which need it too


def result(value: "Output | Node", name: str | None = None) -> Node:
    """A model output (a Result node) fed by ``value``."""
    return Node(Result(), [_as_input(value)], name=name)


def make(type_name: str, *inputs: Any, version: str | None = None, name: str | None = None,
         dialect: str = "openvino", **attributes: Any) -> "Output | list[Output]":
    """Build any registered op: ``make("Select", c, a, b, auto_broadcast="none")``."""
    cls = lookup(dialect, type_name, version)
    node = Node(cls(**attributes), [_as_input(x) for x in inputs], name=name)
    return _outputs(node)


def _snake(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return s.lower()


def __getattr__(attr: str) -> Any:
    """``opset.add``, ``opset.max_pool``...: a builder for the newest openvino op of that name."""
    for cls in reversed(all_ops("openvino")):
        if _snake(cls.type_name) == attr:
            def builder(*inputs: Any, name: str | None = None, _cls: Any = cls, **attributes: Any) -> Any:
                node = Node(_cls(**attributes), [_as_input(x) for x in inputs], name=name)
                return _outputs(node)

            builder.__name__ = attr
            builder.__doc__ = f"Build {cls.describe()}."
            return builder
    raise AttributeError(f"graphir.opset has no builder '{attr}'")
