"""ONNX op translators, registered by (domain, op_type, opset range).

A translator is a small function taking a :class:`~graphir.serializers.onnx.context.NodeContext` and
returning the OpenVINO outputs of the ONNX node (one Output, or a list with ``None`` for outputs the node
does not produce). Declaring one is all it takes::

    @translator("Relu")
    def relu(ctx: NodeContext) -> Output:
        return ctx.make("Relu", ctx.input(0))

The version picked for a node is the newest ``since`` not above the model's opset of the node's domain
(as OpenVINO's ONNX frontend picks its translators); ``until`` (exclusive) ends a range early.
The table is filled once, when the family modules are imported, and only read after that.
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from graphir.node import Output
    from graphir.serializers.onnx.context import NodeContext

TranslatorResult = Union["Output", Sequence["Output | None"]]
Translator = Callable[["NodeContext"], TranslatorResult]

#: (domain, op_type) -> [(since, until or None, translator)], sorted by since
_TABLE: dict[tuple[str, str], list[tuple[int, int | None, Translator]]] = {}
_LOADED: list[bool] = []
#: the package's modules that hold no translators (every other module is an op family)
_INFRASTRUCTURE = frozenset({"registry", "context", "tensors", "helpers"})

DEFAULT_DOMAINS = ("", "ai.onnx")


def _domain(domain: str) -> str:
    return "" if domain in DEFAULT_DOMAINS else domain


def translator(op_types: "str | Sequence[str]", since: int = 1, until: int | None = None,
               domain: str = "") -> Callable[[Translator], Translator]:
    """Register the decorated function for ``op_types`` from opset ``since`` up to ``until`` (exclusive)."""
    names = [op_types] if isinstance(op_types, str) else list(op_types)

    def register(fn: Translator) -> Translator:
        for name in names:
            entries = _TABLE.setdefault((_domain(domain), name), [])
            entries.append((since, until, fn))
            entries.sort(key=lambda e: e[0])
        return fn

    return register


def _load() -> None:
    if _LOADED:
        return
    import graphir.serializers.onnx as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name not in _INFRASTRUCTURE:
            importlib.import_module(f"{package.__name__}.{info.name}")
    _LOADED.append(True)


def find_translator(domain: str, op_type: str, version: int) -> Translator | None:
    """The translator for ``op_type`` at opset ``version`` of ``domain``, or None."""
    _load()
    chosen: Translator | None = None
    for since, until, fn in _TABLE.get((_domain(domain), op_type), ()):
        if since <= version and (until is None or version < until):
            chosen = fn
    return chosen


def mapped_ops(domain: str = "") -> list[str]:
    """The op types with a translator in ``domain`` (sorted)."""
    _load()
    return sorted(name for (d, name) in _TABLE if d == _domain(domain))


def describe_table() -> dict[str, Any]:
    """op type -> the opset ranges it is mapped for (documentation and the runner's listing)."""
    _load()
    return {name: [(s, u) for s, u, _ in entries] for (d, name), entries in sorted(_TABLE.items()) if d == ""}
