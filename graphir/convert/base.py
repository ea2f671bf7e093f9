"""Dialect conversion: a registry of per-op converters and one pass that applies them.

A converter takes the source node, its already-converted inputs (Outputs in the new graph) and the
pass options (e.g. ``feature_level`` for DirectML), and returns the new node's outputs, in the
source node's output order. It raises :class:`ConversionError` with the reason when the target
cannot express the node. Parameter, Constant and Result are shared by every dialect and copied.
Converters live in modules under ``graphir.convert``; all are imported on first use.
"""
from __future__ import annotations

import copy
import importlib
import os
import pkgutil
from collections.abc import Callable
from typing import Any, TypeVar

from graphir.errors import ConversionError, GraphirError
from graphir.model import Model
from graphir.node import Node, Output
from graphir.ops.base import Op
from graphir.ops.openvino.core import Constant, Parameter, Result

_OpT = TypeVar("_OpT", bound=Op)


def op_as(node: Node, cls: type[_OpT]) -> _OpT:
    """``node.op`` as the op class a converter handles (a ConversionError if it is another)."""
    op = node.op
    if not isinstance(op, cls):
        raise ConversionError(f"{node.describe()}: expected a {cls.describe()} op, got {op.describe()}")
    return op


def op_of(node: Node) -> Any:
    """``node.op``, to read its attributes by name: a converter is registered for the op type
    names it handles (``register_converter(..., "Elu")``) and reads the attributes those op
    classes declare, which the static type ``Op`` cannot show."""
    return node.op

Converter = Callable[..., list[Output]]
_CONVERTERS: dict[tuple[str, str, str], Converter] = {}
_loaded = False

BOUNDARY_OPS = (Parameter, Constant, Result)


def register_converter(source: str, target: str, *type_names: str) -> Callable[[Converter], Converter]:
    """Decorator: ``@register_converter("openvino", "onednn", "Select")``."""
    def wrap(fn: Converter) -> Converter:
        for name in type_names:
            _CONVERTERS[(source, target, name)] = fn
        return fn
    return wrap


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    # the package's directory, walked without importing the package (it imports this module)
    for info in pkgutil.iter_modules([os.path.dirname(os.path.abspath(__file__))], prefix="graphir.convert."):
        importlib.import_module(info.name)


def find_converter(source: str, target: str, type_name: str) -> Converter | None:
    _load()
    return _CONVERTERS.get((source, target, type_name))


def model_dialect(model: Model) -> str:
    """The dialect of a model's non-boundary ops (``openvino`` when it has none)."""
    dialects = {n.dialect for n in model.nodes() if not isinstance(n.op, BOUNDARY_OPS)}
    if len(dialects) > 1:
        raise ConversionError(f"model '{model.name}' mixes dialects: {', '.join(sorted(dialects))}")
    return dialects.pop() if dialects else "openvino"


def convert_model(model: Model, target: str, **options: Any) -> Model:
    """A new model in dialect ``target``; a ConversionError lists every node that cannot convert
    (one per line; also as ``error.problems``), or names the dialects when ``target`` is none."""
    from graphir.ops.registry import all_ops

    dialects = sorted({cls.dialect for cls in all_ops()})
    if target not in dialects:
        raise ConversionError(f"unknown dialect '{target}'; the dialects are {', '.join(dialects)}")
    source = model_dialect(model)
    mapping: dict[tuple[int, int], Output] = {}
    problems: list[str] = []
    new_params: list[Node] = []
    new_results: list[Node] = []
    failed: set[int] = set()
    for node in model.get_ordered_ops():
        inputs = [mapping.get((s.node.id, s.index)) if s is not None else None for s in node.inputs]
        missing = [(i, s) for i, s in enumerate(node.inputs) if s is not None and inputs[i] is None]
        if missing:
            failed.add(node.id)
            for i, s in missing:
                if s.node.id not in failed:  # the producer converted but has no such output there
                    problems.append(
                        f"{node.describe()}: input {i} reads output {s.index} of {s.node.describe()}, "
                        f"which has no counterpart in {target}"
                    )
            continue
        if isinstance(node.op, BOUNDARY_OPS) or source == target:
            clone = Node(copy.deepcopy(node.op), inputs, name=node.name, output_types=node.output_types, infer=False)
            clone.output_names = [set(n) for n in node.output_names]
            clone.rt_info = copy.deepcopy(node.rt_info)
            clone.extra = copy.deepcopy(node.extra)
            outs = clone.outputs()
            if isinstance(node.op, Parameter):
                new_params.append(clone)
            if isinstance(node.op, Result):
                new_results.append(clone)
        else:
            fn = find_converter(source, target, node.type_name)
            if fn is None:
                problems.append(f"{node.describe()}: no {source} -> {target} conversion for {node.type_name}")
                failed.add(node.id)
                continue
            try:
                outs = fn(node, inputs, **options)
            except GraphirError as exc:
                problems.append(f"{node.describe()}: {exc}")
                failed.add(node.id)
                continue
            for new, old in zip(outs, node.outputs()):
                new.names = set(old.names)
        for i, out in enumerate(outs):
            mapping[(node.id, i)] = out
    if problems:
        error = ConversionError(
            f"model '{model.name}' cannot be converted from {source} to {target}:\n  " + "\n  ".join(problems)
        )
        error.problems = problems  # type: ignore[attr-defined]
        error.summary = f"model '{model.name}' cannot be converted from {source} to {target}"  # type: ignore[attr-defined]
        raise error
    sinks = [mapping[(s.id, 0)].node for s in model.sinks if (s.id, 0) in mapping]  # kept though no Result reads them
    result = Model(new_results, new_params, name=model.name, rt_info=copy.deepcopy(model.rt_info), sinks=sinks)
    result.meta = copy.deepcopy(model.meta)
    return result
