"""Runs a model on numpy arrays.

A run plan is built once per model structure: the nodes in topological order, where each input
value comes from, and after which step each value is last used (so it is dropped there and peak
memory is the live set). A run is then a plain loop over the plan.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.errors import EvaluationError, GraphirError, InputError, UnsupportedOpError
from graphir.ops.openvino.core import Parameter, Result

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node


@dataclass
class _Step:
    node: "Node"
    evaluate: Any
    input_slots: tuple[int, ...]
    output_slot: int  # first slot of this node's outputs
    num_outputs: int
    release: tuple[int, ...]  # slots whose last use is this step


@dataclass
class RunPlan:
    steps: list[_Step]
    parameter_slots: list[int]
    result_slots: list[int]
    result_keys: list[str]
    num_slots: int


@dataclass
class NodeProfile:
    """Time and output bytes of one node in a profiled run."""

    id: int
    name: str
    type: str
    version: str
    seconds: float
    output_bytes: int


@dataclass
class RunResult:
    outputs: dict[str, np.ndarray]
    profile: list[NodeProfile] = field(default_factory=list)


def result_key(result: "Node") -> str:
    """The key a Result's value is returned under: its tensor name, else its friendly name."""
    names = result.output_names[0] or (result.inputs[0].names if result.inputs and result.inputs[0] else set())
    return sorted(names)[0] if names else result.name


def build_plan(model: "Model") -> RunPlan:
    order = model.get_ordered_ops()
    slot_of: dict[tuple[int, int], int] = {}
    next_slot = 0
    for node in order:
        for i in range(len(node.output_types)):
            slot_of[(node.id, i)] = next_slot
            next_slot += 1
    last_use: dict[int, int] = {}
    for step_index, node in enumerate(order):
        for src in node.inputs:
            if src is not None:
                last_use[slot_of[(src.node.id, src.index)]] = step_index
    result_slots = [slot_of[(r.inputs[0].node.id, r.inputs[0].index)] for r in model.get_results()]
    keep = set(result_slots)
    releases: dict[int, list[int]] = {}
    for slot, step_index in last_use.items():
        if slot not in keep:
            releases.setdefault(step_index, []).append(slot)
    steps = []
    for step_index, node in enumerate(order):
        if isinstance(node.op, (Parameter, Result)):
            continue
        inputs = tuple(slot_of[(s.node.id, s.index)] for s in node.inputs if s is not None)
        steps.append(_Step(node, node.op.evaluate, inputs, slot_of[(node.id, 0)] if node.output_types else -1,
                           len(node.output_types), tuple(releases.get(step_index, ()))))
    return RunPlan(
        steps=steps,
        parameter_slots=[slot_of[(p.id, 0)] for p in model.get_parameters()],
        result_slots=result_slots,
        result_keys=[result_key(r) for r in model.get_results()],
        num_slots=next_slot,
    )


def _plan(model: "Model") -> RunPlan:
    if model._plan is None:
        model.validate()
        model._plan = build_plan(model)
    return model._plan


def prepare_inputs(model: "Model", inputs: Any) -> list[np.ndarray]:
    """Inputs in Parameter order, checked against each Parameter's element type and shape."""
    params = model.get_parameters()
    if inputs is None:
        inputs = []
    if isinstance(inputs, np.ndarray) and len(params) == 1:
        inputs = [inputs]
    if isinstance(inputs, Mapping):
        from graphir.inference import find_parameter

        by_id: dict[int, Any] = {}
        for key, value in inputs.items():
            node = params[key] if isinstance(key, int) else find_parameter(model, key)
            by_id[node.id] = value
        missing = [p.name for p in params if p.id not in by_id]
        if missing:
            raise InputError(f"model '{model.name}': no value given for input(s) {', '.join(missing)}")
        values = [by_id[p.id] for p in params]
    else:
        values = list(inputs)
        if len(values) != len(params):
            raise InputError(f"model '{model.name}' has {len(params)} inputs, got {len(values)} values")
    checked = []
    for param, value in zip(params, values):
        op = param.op
        assert isinstance(op, Parameter)
        et = op.element_type
        if isinstance(value, np.ndarray):
            array = value
            if not et.is_dynamic and et.value != "string" and array.dtype != et.numpy_dtype:
                raise InputError(
                    f"input '{param.name}': expected element type {et} ({et.numpy_dtype}), "
                    f"got an array of {array.dtype}"
                )
        else:
            array = np.asarray(value, dtype=None if et.is_dynamic or et.value == "string" else et.numpy_dtype)
        if not op.shape.compatible_with_shape(array.shape):
            raise InputError(
                f"input '{param.name}': expected shape {op.shape}, got {list(array.shape)}"
            )
        checked.append(array)
    return checked


def run(model: "Model", inputs: Any = None, *, profile: bool = False, progress: bool | None = None) -> Any:
    """Run ``model``; returns {result tensor name: array} in Result order.

    ``inputs``: a dict keyed by Parameter friendly name or tensor name (or index), or a list in
    Parameter order. With ``profile=True`` returns a :class:`RunResult` with per-node timings.
    """
    plan = _plan(model)
    values: list[Any] = [None] * plan.num_slots
    for slot, array in zip(plan.parameter_slots, prepare_inputs(model, inputs)):
        values[slot] = array
    records: list[NodeProfile] = []
    bar = _progress_bar(len(plan.steps), progress)
    for step in plan.steps:
        args = [values[s] for s in step.input_slots]
        start = time.perf_counter() if profile else 0.0
        try:
            outs = step.evaluate(*args)
        except UnsupportedOpError:
            raise
        except GraphirError as exc:
            raise EvaluationError(_describe_failure(step.node, args, exc)) from None
        except Exception as exc:
            raise EvaluationError(_describe_failure(step.node, args, exc)) from exc
        base = step.output_slot
        for i in range(step.num_outputs):
            values[base + i] = outs[i]
        for s in step.release:
            values[s] = None
        if profile:
            elapsed = time.perf_counter() - start
            n = step.node
            records.append(NodeProfile(n.id, n.name, n.type_name, n.version, elapsed,
                                       sum(int(getattr(o, "nbytes", 0)) for o in outs)))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    outputs = {key: values[slot] for key, slot in zip(plan.result_keys, plan.result_slots)}
    return RunResult(outputs, records) if profile else outputs


def _describe_failure(node: "Node", args: Sequence[Any], exc: Exception) -> str:
    shown = ", ".join(
        f"{getattr(a, 'dtype', type(a).__name__)}{list(getattr(a, 'shape', ()))}" for a in args
    )
    return f"{node.describe()} failed on inputs ({shown}): {type(exc).__name__}: {exc}"


def _progress_bar(total: int, progress: bool | None) -> Any:
    """A tqdm bar on a terminal that appears only once the run takes longer than a second."""
    if progress is False or total < 2:
        return None
    import sys

    if progress is None and not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, delay=1.0, unit="node", leave=False)
