"""Zero-size dims run, or are refused by name, in every op (issue 26, "The API boundary").

For every op class the registry holds (OpenVINO's opsets, oneDNN, DirectML), a one-node model is
built from the op's example in tests/fixtures/zero_size/examples.pkl (recorded from the tests that
already run the op: tests/gen_zero_size_examples.py) with one dim of its data input set to 0: the
batch (axis 0) and the last axis. Inputs that must agree in that dim are zeroed with it (the first
of these that shape inference accepts: the same axis of every other input of the same size there,
numpy's right-aligned way; else the first dim of that size in each other input, as a MatMul's K;
else the data input alone). The model then runs under both numerics profiles and must give

* outputs of the element types and shapes that shape inference predicted, or
* a GraphirError whose message names the node, raised on purpose: not a numpy or Python error
  from inside a kernel wrapped by the run (an EvaluationError caused by a ValueError is a crash in
  disguise and fails here),

within a time limit. Ops that the sweep cannot build are listed in :data:`EXCLUDED` with the reason
as a code the test recomputes, so an exclusion that is no longer needed fails and the list only
shrinks. Values where a zero-size axis is reduced follow OpenVINO CPU (checked against the real
runtime below): ReduceSum/Mean/L1/L2 give 0, ReduceProd 1, ReduceMax the lowest value, ReduceMin
the highest; TopK asked for more elements than an axis of size 0 holds is refused by name.
"""
from __future__ import annotations

import functools
import pickle
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir.numerics
from graphir import opset
from graphir.errors import EmptyInputError, GraphirError
from graphir.model import Model
from graphir.node import Node
from graphir.ops.registry import all_ops

EXAMPLES_FILE = Path(__file__).resolve().parent / "fixtures" / "zero_size" / "examples.pkl"
Key = tuple[str, str, str]
#: seconds one case may take (build, infer, two runs)
CASE_SECONDS = 30

#: why an op cannot be swept; each code is recomputed by :func:`unsweepable`
NO_EXAMPLE = "no test runs the op, so there is no example to derive a zero-size variant from"
NO_DATA_INPUT = "no input of rank >= 1 to give a zero dim (the output size comes from input values or attributes)"

#: (dialect, type, version) -> the reason code; tests/gen_zero_size_examples.py fills the examples
EXCLUDED: dict[Key, str] = {}


@functools.lru_cache(maxsize=1)
def examples() -> dict[Key, dict[str, Any]]:
    with EXAMPLES_FILE.open("rb") as f:
        return pickle.load(f)  # type: ignore[no-any-return]


def registered() -> list[Key]:
    return [(c.dialect, c.type_name, c.version) for c in all_ops()]


def data_index(inputs: list[tuple[np.ndarray, bool]]) -> int | None:
    """The input given a zero dim: the first non-constant input of rank >= 1, else the first
    floating-point input of rank >= 1 (an op whose tests feed constants only)."""
    for i, (array, const) in enumerate(inputs):
        if not const and array.ndim > 0:
            return i
    for i, (array, _) in enumerate(inputs):
        if array.ndim > 0 and array.dtype.kind == "f":
            return i
    return None


def unsweepable(key: Key) -> str | None:
    """Why the sweep cannot build ``key`` (one of the codes above), or None."""
    example = examples().get(key)
    if example is None:
        return NO_EXAMPLE
    if data_index(example["inputs"]) is None:
        return NO_DATA_INPUT
    return None


def swept() -> list[Key]:
    return [k for k in registered() if k not in EXCLUDED]


def _zeroed(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return shape[:axis] + (0,) + shape[axis + 1:]


def zero_plans(inputs: list[tuple[np.ndarray, bool]], d: int, axis: int) -> Iterator[dict[int, int]]:
    """Ways to zero ``axis`` of input ``d``: {input index: axis to zero}, most consistent first."""
    shape = inputs[d][0].shape
    size = shape[axis]
    same_axis = {d: axis}
    any_axis = {d: axis}
    for i, (array, _) in enumerate(inputs):
        if i == d or array.ndim == 0:
            continue
        at = axis - (len(shape) - array.ndim)  # the same dim, numpy's right-aligned way
        if 0 <= at < array.ndim and array.shape[at] == size and size != 1:
            same_axis[i] = at
        if size in array.shape and size != 1:
            any_axis[i] = array.shape.index(size)
    seen: list[dict[int, int]] = []
    for plan in (same_axis, any_axis, {d: axis}):
        if plan not in seen:
            seen.append(plan)
            yield plan


def build(key: Key, axis: int) -> tuple[Model, list[np.ndarray], Node] | GraphirError:
    """The one-node model with ``axis`` of the data input zeroed, its input values and the node;
    or the GraphirError shape inference raised for every plan (the last one)."""
    example = examples()[key]
    inputs: list[tuple[np.ndarray, bool]] = example["inputs"]
    d = data_index(inputs)
    assert d is not None
    refused: GraphirError | None = None
    for plan in zero_plans(inputs, d, axis):
        params, values, sources = [], [], []
        for i, (array, const) in enumerate(inputs):
            if i in plan:
                array = np.zeros(_zeroed(array.shape, plan[i]), array.dtype)
            if const and i != d:
                sources.append(opset.constant(array))
                continue
            param = opset.parameter(list(array.shape), graphir.types.ElementType.from_numpy(array.dtype),
                                    name=f"in{i}")
            params.append(param.node)
            values.append(array)
            sources.append(param)
        try:
            node = Node(example["op"], sources, name=f"zero_{key[1]}")
        except GraphirError as exc:
            refused = exc
            continue
        return Model(node.outputs(), params), values, node
    assert refused is not None
    return refused


def _alarm(signum: int, frame: Any) -> None:
    raise TimeoutError(f"a zero-size case ran over {CASE_SECONDS} s")


def _compatible(array: Any, predicted: Any) -> str | None:
    """What is wrong with an output against its predicted type, or None."""
    if not isinstance(array, np.ndarray):
        return f"not an array: {type(array).__name__}"
    et, shape = predicted.element_type, predicted.shape
    if not et.is_dynamic and et.name != "string" and array.dtype != np.dtype(et.numpy_dtype):
        return f"dtype {array.dtype}, predicted {et}"
    if shape.rank.is_static:
        dims = list(shape)
        if array.ndim != len(dims):
            return f"shape {array.shape}, predicted {shape}"
        for got, want in zip(array.shape, dims):
            if want.is_static and got != want.get_length():
                return f"shape {array.shape}, predicted {shape}"
    return None


def outcome(key: Key, axis: int) -> tuple[str, str]:
    """("runs" | "refused", detail) for one case; asserts the rules of the module docstring."""
    built = build(key, axis)
    if isinstance(built, GraphirError):
        message = str(built)
        assert f"zero_{key[1]}" in message, f"shape inference refused without naming the node: {message}"
        return "refused", f"at shape inference: {message}"
    model, values, node = built
    model.infer_shapes()
    predicted = [o.tensor_type for o in node.outputs()]
    results: dict[str, str] = {}
    for profile in graphir.numerics.PROFILES:
        try:
            outs = list(model.run(values, numerics=profile).values())
        except GraphirError as exc:
            message = str(exc)
            cause = exc.__cause__
            assert cause is None or isinstance(cause, GraphirError) or isinstance(exc, EmptyInputError), \
                f"{profile}: a kernel failed on the zero-size input: {type(cause).__name__}: {message}"
            assert node.name in message, f"{profile}: refused without naming the node: {message}"
            results[profile] = f"refused: {message}"
            continue
        assert len(outs) == len(predicted), profile
        for i, (array, want) in enumerate(zip(outs, predicted)):
            wrong = _compatible(array, want)
            assert wrong is None, f"{profile}: output {i}: {wrong}"
        results[profile] = "runs"
    if all(r == "runs" for r in results.values()):
        return "runs", ""
    return "refused", "; ".join(f"{p}: {r}" for p, r in results.items())


def _axes(key: Key) -> list[tuple[str, int]]:
    example = examples().get(key)
    if example is None or data_index(example["inputs"]) is None:
        return []
    shape = example["inputs"][data_index(example["inputs"])][0].shape
    axes = [("batch", 0)]
    if len(shape) > 1:
        axes.append(("last", len(shape) - 1))
    return axes


CASES = [(key, name, axis) for key in swept() for name, axis in _axes(key)]


def test_every_registered_op_is_swept_or_excluded_for_a_reason_that_still_holds() -> None:
    keys = registered()
    assert len(keys) >= 330 and {k[0] for k in keys} == {"openvino", "onednn", "directml"}
    stale = sorted(k for k in EXCLUDED if k not in keys)
    assert not stale, f"excluded but no longer registered: {stale}"
    for key, reason in EXCLUDED.items():
        assert unsweepable(key) == reason, f"{key}: excluded as {reason!r}, but now: {unsweepable(key)!r}"
    unexplained = sorted(k for k in swept() if unsweepable(k) is not None)
    assert not unexplained, ("ops the sweep cannot build and that are not in EXCLUDED (regenerate the examples: "
                             f"python tests/gen_zero_size_examples.py): {unexplained}")
    assert {k for k, _, _ in CASES} == set(swept())


@pytest.mark.parametrize("key,variant,axis", CASES, ids=[f"{k[0]}-{k[1]}-{k[2]}-{v}" for k, v, _ in CASES])
def test_zero_size_dim_runs_or_is_refused_by_name(key: Key, variant: str, axis: int) -> None:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        outcome(key, axis)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
