"""Helpers the subcommands share: loading a model, NAME=VALUE arguments, type strings, tables."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphir.cli import UsageError
from graphir.errors import GraphirError
from graphir.model import named_bodies

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node
    from graphir.ops.base import TensorType


def load_model(path: str) -> "Model":
    """Read an IR (.xml + .bin) or oneDNN Graph JSON file; unreadable files are a UsageError (exit 2)."""
    import graphir

    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{path}: is a directory; give the model's .xml (or oneDNN .json) file")
    if not p.is_file():
        raise UsageError(f"{path}: no such file")
    try:
        return graphir.read_model(p)
    except GraphirError:
        raise
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except Exception as exc:  # noqa: BLE001 - a reader bug must still name the file, not dump a traceback
        raise UsageError(f"{path}: cannot read: {type(exc).__name__}: {exc}") from None


def load_reshaped(path: str, specs: list[str] | None) -> "Model":
    """``load_model``, then ``Model.reshape`` to the command line's NAME=SHAPE specs (bad ones exit 2)."""
    from graphir.errors import InputError

    model = load_model(path)
    if specs:
        try:
            model.reshape(reshape_arguments(model, specs))
        except InputError as exc:
            raise UsageError(str(exc)) from None
    return model


def split_assignment(text: str, what: str) -> tuple[str | None, str]:
    """``NAME=VALUE`` -> (NAME, VALUE); a bare ``VALUE`` -> (None, VALUE). Names may hold '=' only
    before the last one (values never contain '=')."""
    if "=" not in text:
        return None, text
    name, value = text.rsplit("=", 1)
    if not name or not value:
        raise UsageError(f"--input {text!r}: expected NAME={what}")
    return name, value


def type_string(t: "TensorType") -> str:
    """OpenVINO's element type spelling: ``f32``, ``boolean``, ``dynamic``."""
    return str(t.element_type)


def shape_string(t: "TensorType") -> str:
    """OpenVINO's partial shape spelling: ``[?,3]``, ``[1..10,4]``, ``[...]``, ``[]``."""
    return str(t.shape)


def port_record(t: "TensorType") -> dict[str, str]:
    return {"type": type_string(t), "shape": shape_string(t)}


def node_type(node: "Node") -> str:
    return f"{node.type_name}-{node.version}"


def input_types(node: "Node") -> list["TensorType"]:
    return [src.node.output_types[src.index] for src in node.inputs if src is not None]


def not_runnable_reason(node: "Node") -> str | None:
    """Why graphir cannot run ``node`` (an opaque op, or an op with no numpy semantics, or a body
    at any depth holding such a node), or None."""
    reason = _own_reason(node.op)
    if reason:
        return reason
    from graphir.model import nested_models

    for body in [b for _, b in named_bodies(node.op)]:
        for model in nested_models(body):  # bodies in bodies: walked without recursion
            for inner in model.get_ordered_ops():
                reason = _own_reason(inner.op)
                if reason:
                    return f"its body holds {inner.describe()}, which cannot run: {reason}"
    return None


def _own_reason(op: Any) -> str | None:
    if type(op).__name__ == "OpaqueOp" or any(c.__name__ == "OpaqueOp" for c in type(op).__mro__):
        return "not implemented in graphir (kept as an opaque layer)"
    if not type(op).runnable:
        return "no numpy semantics in graphir (shape inference only)"
    return None


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "") -> str:
    """A plain, left-aligned text table with a header rule."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    def line(values: Sequence[str]) -> str:
        return (indent + "  ".join(v.ljust(w) for v, w in zip(values, widths))).rstrip()
    out = [line(list(headers)), line(["-" * w for w in widths])]
    out.extend(line(r) for r in cells)
    return "\n".join(out)


def reshape_arguments(model: "Model", specs: list[str]) -> dict[Any, str] | None:
    """--input values as a reshape mapping (a bare shape maps to the only input)."""
    if not specs:
        return None
    shapes: dict[Any, str] = {}
    for text in specs:
        name, shape = split_assignment(text, "SHAPE")
        if name is None:
            if len(model.get_parameters()) != 1:
                raise UsageError(f"{text!r}: the model has {len(model.get_parameters())} inputs; "
                                 f"use NAME=SHAPE")
            name = 0  # type: ignore[assignment]
        shapes[name] = shape
    return shapes
