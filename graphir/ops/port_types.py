"""The one place every node's inputs are checked against the element types its op's ports
declare (``Port.types``), before the op's ``infer`` runs: every dialect, every op, whether or not
its ``infer`` calls ``check_input_types`` itself (OpenVINO refuses, for one, SliceScatter's f32
``start``; graphir did not until this check)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from graphir.types import ElementType

if TYPE_CHECKING:
    from graphir.ops.base import Op, TensorType

#: op class -> (its input ports tuple, the allowed sets by port index or None when no port
#: restricts a type): remembered per class and ports tuple, so a node's check is a few lookups
_ALLOWED: dict[type, tuple[object, tuple[frozenset[ElementType] | None, ...] | None]] = {}


def _allowed(cls: type["Op"]) -> tuple[frozenset[ElementType] | None, ...] | None:
    known = _ALLOWED.get(cls)
    if known is not None and known[0] is cls.inputs:
        return known[1]
    sets = tuple(None if p.types is None else frozenset(p.types) for p in cls.inputs)
    result = None if all(s is None for s in sets) else sets
    _ALLOWED[cls] = (cls.inputs, result)
    return result


def check_port_types(op: "Op", inputs: "list[TensorType]") -> None:
    """An InferenceError for the first input whose static element type its port does not allow;
    a variadic last port checks every input it takes. Where the op's own ``infer`` refuses the
    types too, its words are kept (they are OpenVINO's: "Argument 0 must have boolean element
    type"); the check's own message otherwise."""
    cls = type(op)
    known = _ALLOWED.get(cls)
    if known is not None and known[1] is None and known[0] is cls.inputs:
        return  # no port of the op restricts a type (most ops): one lookup per node
    error = _mismatch(op, inputs)
    if error is None:
        return
    if not type(op).has_bodies:
        try:
            op.infer(inputs)
        except Exception as own:  # noqa: BLE001 - the op's own refusal, re-raised as it is
            raise own from None
    raise error


def _mismatch(op: "Op", inputs: "list[TensorType]") -> "Exception | None":
    allowed = _allowed(type(op))
    if allowed is None:
        return None
    last = len(allowed) - 1
    for i, t in enumerate(inputs):
        types = allowed[i] if i <= last else allowed[last] if type(op).inputs[last].variadic else None
        et = t.element_type
        if types is not None and et not in types and et is not ElementType.dynamic:
            port = op.input_port(i)
            listed = ", ".join(str(x) for x in port.types or ())
            return op.fail(f"input {i} ('{port.name}') has element type {et}; allowed: {listed}")
    return None
