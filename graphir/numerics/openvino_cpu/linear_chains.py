"""Chains of constant Adds (or constant Multiplies) folded into one step, as OpenVINO's compile does.

OpenVINO's CPU compile runs LinOpSequenceFusion: ``Add(Add(x, C1), C2)`` becomes ``Add(x, C1 + C2)``
(AddAddFusion) and ``Multiply(Multiply(x, C1), C2)`` becomes ``Multiply(x, C1 * C2)``
(MultiplyMultiplyFusion), the constants summed (multiplied) at compile time, in their own element
type, one after the other from the first op of the chain; the first op must have exactly one
consumer (a second reader, a Result, keeps it). The run then computes ``x + C`` once, which is
*not* what the chain as written computes (floating-point addition is not associative): on the
benchmark's chain of 5,000 Adds of f32[8192] the two differ by up to 2.0.

Under the ``openvino-cpu`` numerics profile a run plan's specialization (:mod:`graphir.specialize`)
does the same (the reference profile computes the chain as written): a maximal run of two or
more such steps, each with a constant input (a Constant, or what folds from Constants: a Convert
of compressed weights, a Reshape of one), linked by outputs that only the next step reads, becomes
one step of the last op on ``(x, C)``, with ``C`` folded once by the ops' own ``evaluate``, in the
chain's order, and kept in the plan's constant cache (within its budget; past it the chain runs as
written). The model is not changed; ``run(..., specialize=False)`` computes the chain as written.

Only what is bit-exact against OpenVINO CPU is folded (``tests/test_linear_chains.py`` checks it):

* element types f32 and f16 (OpenVINO folds f16 constants in f16, before the CPU plugin computes
  in f32; numpy's f16 arithmetic rounds the same way), and integer types (wrapping arithmetic is
  associative: folding changes nothing but the time);
* numpy broadcasting (the default; OpenVINO's new ops and its folding broadcast numpy-style);
* no Add run next to a constant Multiply it feeds or that feeds it, and no Multiply run next to
  such an Add: OpenVINO's AddMultiplyFusion rewrites ``(x + a) * m`` into ``x * m + a * m``, which
  its CPU plugin then computes as a fused multiply-add (measured: the values equal an FMA's); those
  mixed chains run as written.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.ops.base import NodeSignature, TensorType, static_dims
from graphir.ops.openvino.elementwise import Add, Multiply

if TYPE_CHECKING:
    from graphir.interpreter import RunPlan
    from graphir.node import Node
    from graphir.specialize import ConstantCache

#: a specialization's step before it is made: (node, input slots, prepared evaluate or None)
PendingStep = tuple["Node", tuple[int, ...], "Callable[..., Any] | None"]

_KINDS: dict[type, str] = {Add: "add", Multiply: "multiply"}


@dataclass(frozen=True)
class _Link:
    """One step of a chain: its index in the step list, the port of its data (non-constant) input."""

    index: int
    data_port: int


def _exact_type(t: TensorType) -> bool:
    """Element types whose folded chain equals OpenVINO CPU's bits (see the module docstring)."""
    name = t.element_type.value
    return name in ("f32", "f16") or (t.element_type.is_integral_number and name != "boolean")


def _link(node: "Node", ins: tuple[int, ...], constant: Sequence[bool]) -> int | None:
    """The data port of a constant Add/Multiply step (its other input constant), else None."""
    if type(node.op) not in _KINDS or len(ins) != 2 or getattr(node.op, "auto_broadcast", None) != "numpy":
        return None
    first, second = constant[ins[0]], constant[ins[1]]
    if first == second:
        return None
    return 1 if first else 0


def consumer_counts(plan: "RunPlan") -> dict[int, int]:
    """How many input ports read each value-table slot (Results included): OpenVINO's
    ``consumers_count`` of the output in that slot."""
    counts: dict[int, int] = {}
    for slots in plan.input_slots.values():
        for s in slots:
            counts[s] = counts.get(s, 0) + 1
    for s in plan.result_slots:
        counts[s] = counts.get(s, 0) + 1
    return counts


def fold_constant_chains(plan: "RunPlan", types: "dict[tuple[int, int], TensorType] | Any",
                         steps: list[PendingStep], template: list[Any], constant: list[bool],
                         cache: "ConstantCache") -> list[PendingStep]:
    """``steps`` with each foldable chain (module docstring) replaced by one step on ``(x, C)``;
    ``C`` goes into a new slot appended to ``template`` (and ``constant``)."""
    counts = consumer_counts(plan)
    producer: dict[int, int] = {}  # output slot -> index of the constant Add/Multiply step writing it
    ports: dict[int, int] = {}
    for index, (node, ins, _) in enumerate(steps):
        port = _link(node, ins, constant)
        if port is not None:
            ports[index] = port
            producer[plan.slot_of[(node.id, 0)]] = index
    # follow single-consumer links: next_of[i] = the step reading step i's output (its only reader)
    next_of: dict[int, int] = {}
    has_previous: set[int] = set()
    for index, port in ports.items():
        data_slot = steps[index][1][port]
        before = producer.get(data_slot)
        if before is not None and counts.get(data_slot) == 1:
            next_of[before] = index
            has_previous.add(index)
    chains: list[list[_Link]] = []
    for index in ports:
        if index in has_previous:
            continue
        chain = [_Link(index, ports[index])]
        while chain[-1].index in next_of:
            following = next_of[chain[-1].index]
            chain.append(_Link(following, ports[following]))
        if len(chain) >= 2 and len({type(steps[link.index][0].op) for link in chain}) == 1:
            chains.append(chain)
    if not chains:
        return steps
    replaced: dict[int, PendingStep | None] = {}
    for chain in chains:
        fused = _fused_step(plan, types, steps, chain, template, constant, cache)
        if fused is None:
            continue
        for link in chain[:-1]:
            replaced[link.index] = None
        replaced[chain[-1].index] = fused
    kept: list[PendingStep] = []
    for i, step in enumerate(steps):
        now = replaced.get(i, step)
        if now is not None:
            kept.append(now)
    return kept


def _type_of(types: Any, node: "Node", index: int) -> TensorType:
    return types.get((node.id, index), node.output_types[index])


def _fused_step(plan: "RunPlan", types: Any, steps: list[PendingStep], chain: list[_Link], template: list[Any],
                constant: list[bool], cache: "ConstantCache") -> PendingStep | None:
    """One step for ``chain`` (None: left as written: a type or broadcast it does not fold exactly,
    or ``C`` over the constant cache budget)."""
    nodes = [steps[link.index][0] for link in chain]
    for node in nodes:
        source_types = [_type_of(types, s.node, s.index) for s in node.inputs if s is not None]
        if not all(_exact_type(t) for t in (*source_types, _type_of(types, node, 0))):
            return None
    first = chain[0]
    data_slot = steps[first.index][1][first.data_port]
    folded = _folded_constant(plan, steps, chain, template, cache)
    if folded is None:
        return None
    slot = len(template)
    template.append(folded)
    constant.append(True)
    last_node = nodes[-1]
    data_source = nodes[0].inputs[first.data_port]
    assert data_source is not None
    in_types = [_type_of(types, data_source.node, data_source.index),
                TensorType(last_node.output_types[0].element_type, _static_shape(folded))]
    out_types = [_type_of(types, last_node, 0)]
    used = [plan.slot_of[(last_node.id, 0)] in plan.read_slots]
    out_dims = static_dims(out_types[0])
    in_dims = static_dims(in_types[0])
    if out_dims is None or in_dims is None or np.broadcast_shapes(in_dims, folded.shape) != out_dims:
        return None
    evaluate = last_node.op.prepare(NodeSignature(in_types, [None, folded], out_types, used))
    return (last_node, (data_slot, slot), evaluate)


def _static_shape(value: np.ndarray) -> Any:
    from graphir.shapes import PartialShape

    return PartialShape(list(value.shape))


def _folded_constant(plan: "RunPlan", steps: list[PendingStep], chain: list[_Link], template: list[Any],
                     cache: "ConstantCache") -> np.ndarray | None:
    """``C``: the chain's constants combined in order by the ops' own ``evaluate`` (OpenVINO's
    compile-time folding), once per plan, within the constant cache budget."""
    key = steps[chain[-1].index][0].id
    if key in cache.chains:
        return cache.chains[key]
    value: np.ndarray | None = None
    try:
        for link in chain:
            node, ins, _ = steps[link.index]
            c = np.asarray(template[ins[1 - link.data_port]])
            if value is None:
                value = c
            else:
                with np.errstate(all="ignore"):  # numpy broadcasting, as the op's evaluate does
                    value = np.asarray(node.op.evaluate(value, c)[0])
    except Exception:  # noqa: BLE001 - the chain then runs as written and reports there
        value = None
    if value is None:
        cache.chains[key] = None
        return None
    if cache.used + value.nbytes > cache.budget:
        cache.chains[key] = None
        return None
    cache.used += value.nbytes
    value.flags.writeable = False
    cache.chains[key] = value
    return value
