"""Weight decompression subgraphs, evaluated as OpenVINO's CPU plugin evaluates them: in f32.

Compressed weights (nncf: u8/i8/u4/i4/nf4/f4e2m1/f8 codes, zero points and scales) reach a MatMul
or Gather through a constant subgraph written in f16::

    Const(codes) -> Convert(f16) -> [Subtract(Convert(zero point))] -> Multiply(scale)
                 -> [Reshape/Transpose/Squeeze/Unsqueeze] -> Convert(f32)

Read literally, every f16 step rounds; the CPU plugin fuses the pattern into the consumer and
computes it in f32 (values then differ by up to ~1e-3 relative). Under the ``openvino-cpu`` numerics
profile a run plan therefore computes each such subgraph in f32 as one step of the final Convert
(:func:`decompressions`), and its specializations cache the value once within the constant cache budget
(graphir.specialize); the reference profile computes the subgraph as written.
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
    is folded). The subgraph is walked and computed in topological order with an explicit stack,
    each node once: a file decides how long and how shared its chains are."""
    order: list["Node"] = []
    state: dict[int, bool] = {}  # node id -> False: its inputs are being walked; True: placed in order
    stack: list["Node"] = [out.node]
    while stack:
        node = stack[-1]
        done = state.get(node.id)
        if done:
            stack.pop()
            continue
        if done is None:
            inputs = _step_inputs(node)
            if inputs is None:
                return None
            state[node.id] = False
            stack += [n for n in inputs if n.id not in state]
            continue
        stack.pop()
        state[node.id] = True
        order.append(node)
    if any(n.type_name == "Multiply" for n in order):
        scaled[0] = True
    last = out.node.id

    def compute() -> np.ndarray:
        values: dict[int, np.ndarray] = {}
        for node in order:
            values[node.id] = _f32_step(node, values)
        return values[last]

    return compute


def _step_inputs(node: "Node") -> "list[Node] | None":
    """The nodes a decompression step of ``node`` reads (computed first); None when ``node`` is no
    such step."""
    kind = node.type_name
    if kind == "Convert":
        const = node.input_value(0).node
        return [] if const.type_name == "Constant" else None
    if kind == "Constant":
        return [] if _attrs(node).element_type in _HALF else None
    if kind in ("Subtract", "Multiply"):
        return [node.input_value(0).node, node.input_value(1).node]
    if kind in _LAYOUT:
        rest = [s.node for s in node.inputs[1:] if s is not None]
        if not all(n.type_name == "Constant" for n in rest):
            return None
        return [node.input_value(0).node]
    return None


def _f32_step(node: "Node", values: dict[int, np.ndarray]) -> np.ndarray:
    """The f32 value of one decompression step, its inputs' values in ``values``."""
    kind = node.type_name
    if kind == "Convert":
        from graphir.ops.openvino.conversion import convert_array

        const = _attrs(node.input_value(0).node)
        return convert_array(const.value, ElementType.f32, const.element_type)
    if kind == "Constant":
        return np.asarray(_attrs(node).value, dtype=np.float32)
    if kind == "Multiply":
        return values[node.input_value(0).node.id] * values[node.input_value(1).node.id]
    if kind == "Subtract":
        return values[node.input_value(0).node.id] - values[node.input_value(1).node.id]
    rest = [_attrs(s.node).value for s in node.inputs[1:] if s is not None]
    return np.asarray(node.op.evaluate(values[node.input_value(0).node.id], *rest)[0], dtype=np.float32)


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
