"""Weight decompression subgraphs, evaluated as OpenVINO's CPU plugin evaluates them: in f32.

Compressed weights (nncf: u8/i8/u4/i4/nf4/f4e2m1/f8 codes, zero points and scales) reach a MatMul
or Gather through a constant subgraph written in f16::

    Const(codes) -> Convert(f16) -> [Subtract(Convert(zero point))] -> Multiply(scale)
                 -> [Reshape/Transpose/Squeeze/Unsqueeze] -> Convert(f32)

Read literally, every f16 step rounds; the CPU plugin fuses the pattern into the consumer and
computes it in f32 (values then differ by up to ~1e-3 relative). A run plan therefore computes each
such subgraph in f32 as one step of the final Convert (:func:`decompressions`), and its
specializations cache the value once within the constant cache budget (graphir.specialize).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.types import ElementType

if TYPE_CHECKING:
    from graphir.node import Node, Output

#: where the precision is lost: the decompression arithmetic's element types
_HALF = (ElementType.f16, ElementType.bf16)
#: ops that only move data; their other inputs (shapes, orders, axes) must be constants
_LAYOUT = ("Reshape", "Transpose", "Squeeze", "Unsqueeze")


def _attrs(node: "Node") -> Any:
    """``node.op``, to read attributes by name: the nodes here are picked by type name (Convert,
    Constant, ...), whose attributes the static type ``Op`` cannot show."""
    return node.op


def fold_decompressions(order: Sequence["Node"]) -> dict[int, np.ndarray]:
    """Node id of each final ``Convert(f32)`` of a decompression subgraph -> its f32 value."""
    return {node_id: compute() for node_id, compute in decompressions(order).items()}


def decompressions(order: Sequence["Node"]) -> dict[int, Callable[[], np.ndarray]]:
    """Node id of each final ``Convert(f32)`` of a decompression subgraph -> a function computing
    its f32 value (nothing is computed here: a run plan caches the values within its budget)."""
    found: dict[int, Callable[[], np.ndarray]] = {}
    for node in order:
        if node.type_name != "Convert" or _attrs(node).destination_type is not ElementType.f32:
            continue
        src = node.inputs[0]
        if src is None or src.node.output_types[src.index].element_type not in _HALF:
            continue
        scaled = [False]
        compute = _f32_value(src, scaled)
        if compute is not None and scaled[0]:
            found[node.id] = compute
    return found


def _f32_value(out: "Output", scaled: list[bool]) -> Callable[[], np.ndarray] | None:
    """A function computing the value of a half-precision decompression step in f32; None when
    ``out`` is not one (``scaled[0]`` is set once a Multiply by a scale is seen: without it nothing
    is folded)."""
    node = out.node
    kind = node.type_name
    if kind == "Convert":
        const = node.input_value(0).node
        if const.type_name != "Constant":
            return None
        from graphir.ops.openvino.conversion import convert_array

        return lambda: convert_array(_attrs(const).value, ElementType.f32, _attrs(const).element_type)
    if kind == "Constant":
        op = _attrs(node)
        return (lambda: np.asarray(op.value, dtype=np.float32)) if op.element_type in _HALF else None
    if kind in ("Subtract", "Multiply"):
        a = _f32_value(node.input_value(0), scaled)
        b = _f32_value(node.input_value(1), scaled) if a is not None else None
        if a is None or b is None:
            return None
        if kind == "Multiply":
            scaled[0] = True
            return lambda: a() * b()
        return lambda: a() - b()
    if kind in _LAYOUT:
        rest = [s.node for s in node.inputs[1:] if s is not None]
        if not all(n.type_name == "Constant" for n in rest):
            return None
        data = _f32_value(node.input_value(0), scaled)
        if data is None:
            return None
        return lambda: np.asarray(node.op.evaluate(data(), *[_attrs(n).value for n in rest])[0], dtype=np.float32)
    return None


def absorbed_nodes(order: Sequence["Node"], folded: Mapping[int, Any], roots: Sequence["Node"]) -> set[int]:
    """Ids of the nodes only folded subgraphs use (their steps need not run)."""
    consumers: dict[int, list[int]] = {}
    for node in order:
        for src in node.inputs:
            if src is not None:
                consumers.setdefault(src.node.id, []).append(node.id)
    kept = {r.id for r in roots}
    gone: set[int] = set(folded)
    for node in reversed(order):
        users = consumers.get(node.id)
        if node.id not in kept and users and all(u in gone for u in users):
            gone.add(node.id)
    return gone - set(folded)
