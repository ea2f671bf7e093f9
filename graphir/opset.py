"""Builder functions over the OpenVINO dialect, named and called as ``openvino.opset16``'s are.

``x = opset.parameter([-1, 3], np.float32, name="x")`` returns an :class:`Output`; every call infers
its output types at once, as OpenVINO validates each node on construction. One typed function per
OpenVINO op type (its newest version) comes from the generated :mod:`graphir._builders`
(``python scripts/generate.py``). For an op OpenVINO's Python API builds, the builder has that
API's name (``matmul``, ``topk``, ``is_nan``, ``prelu``), its parameters in its order with its
defaults (OpenVINO's spellings such as ``auto_broadcast="NUMPY"`` are accepted), then graphir's
extra attributes keyword-only; graphir-only ops have snake_case names (``bgr_to_nv12``). A one-output
op's builder returns its :class:`Output`; an op with other than one output returns its
:class:`Node` (``.outputs()``, ``.output(i)``), as OpenVINO's do. Any registered op (another
version, another dialect) is built by :func:`make`; an op declared after the builders were last
generated is still reachable as ``opset.<snake_case_name>``, derived from the registry.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from graphir._build import TensorLike, as_input
from graphir._build import constant as _constant
from graphir._builders import *  # noqa: F403 - the generated builders are this module's API
from graphir._builders import BUILDS as _BUILDS
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
_HAND_WRITTEN = {"Parameter": "parameter", "Constant": "constant", "Result": "result"}


def parameter(shape: Any, dtype: "ElementType | str | type" = np.float32, name: str | None = None) -> Output:
    """A model input: ``parameter([-1, 3], np.float32, name="x")`` (or ``"[?,3]", "f32"``); the name
    also becomes its tensor name."""
    from graphir.types import as_element_type

    node = Node(Parameter(shape=PartialShape.parse(shape), element_type=as_element_type(dtype)), name=name)
    if name:
        node.output_names[0] = {name}
    return node.output(0)


constant = _constant  # defined with the builders' helpers (graphir._build), which need it too


def result(data: "Output | Node", name: str | None = None) -> Node:
    """A model output (a Result node) fed by ``data``."""
    return Node(Result(), [_as_input(data)], name=name)


def make(type_name: str, *inputs: Any, version: str | None = None, name: str | None = None,
         dialect: str = "openvino", **attributes: Any) -> "Output | list[Output]":
    """Build any registered op: ``make("Select", c, a, b, auto_broadcast="none")``; its output, or
    the list of its outputs when it has other than one."""
    cls = lookup(dialect, type_name, version)
    node = Node(cls(**attributes), [_as_input(x) for x in inputs], name=name)
    return _outputs(node)


def _snake(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return s.lower()


def _has_builder(type_name: str) -> bool:
    """Whether a generated (or hand-written) builder for ``type_name`` is here, by its own name."""
    names = [n for n, t in _BUILDS.items() if t == type_name] or [_HAND_WRITTEN.get(type_name, "")]
    return any(n in globals() for n in names if n)


def __getattr__(attr: str) -> Any:
    """``opset.my_op``: a builder for the newest openvino op of that snake_case name declared
    since the builders were generated (the generated ones have their own names only)."""
    if attr[:1] == "_":  # no builder name starts so: the import system's and tools' probes (__path__ on
        # every function-level ``from graphir.opset import x``, __wrapped__, _repr_html_) answered at once
        raise AttributeError(f"graphir.opset has no attribute '{attr}'")
    for cls in reversed(all_ops("openvino")):
        if not _has_builder(cls.type_name) and _snake(cls.type_name) == attr:
            def builder(*inputs: Any, name: str | None = None, _cls: Any = cls, **attributes: Any) -> Any:
                node = Node(_cls(**attributes), [_as_input(x) for x in inputs], name=name)
                return _outputs(node)

            builder.__name__ = attr
            builder.__doc__ = f"Build {cls.describe()}."
            return builder
    raise AttributeError(f"graphir.opset has no builder '{attr}'")
