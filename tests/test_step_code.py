"""graphir.step_code: a run's steps as one generated function compute what the step loop does."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import graphir
from graphir import opset, step_code
from graphir.errors import EvaluationError
from graphir.interpreter import _run_unspecialized, get_plan


def _model() -> graphir.Model:
    """Steps of one, two and three inputs and of two outputs (TopK, VariadicSplit), values freed
    between, inline forms (Multiply, Add into its input, Reshape, Transpose)."""
    x = opset.parameter([3, 8], "f32", name="x")
    top = opset.topk(opset.relu(x), opset.constant(np.array(3)), 1, "max", "value")
    parts = opset.variadic_split(x, opset.constant(np.array(1)), opset.constant(np.array([5, 3])))
    chosen = opset.select(opset.greater(parts.output(1), opset.constant(np.float32(0))), parts.output(1), top.output(0))
    moved = opset.transpose(opset.reshape(parts.output(0), opset.constant(np.array([5, 3])), False),
                            opset.constant(np.array([1, 0])))
    squared = opset.add(opset.multiply(chosen, chosen), opset.constant(np.float32(1)))  # into the product
    return graphir.Model([squared, top.output(1), opset.add(moved, moved)], [x.node])


def _spec(model: graphir.Model) -> Any:
    return next(iter(get_plan(model).specializations.values()))


def test_the_generated_function_gives_the_loops_outputs() -> None:
    value = np.random.default_rng(3).standard_normal((3, 8)).astype(np.float32)
    model = _model()
    got = model.run([value])
    compiled = _spec(model).compiled
    assert compiled is not None and compiled[1] is not None and compiled[0] is _spec(model).steps
    want = _run_unspecialized(model, [value])
    assert list(got) == list(want)
    assert all(got[k].tobytes() == want[k].tobytes() and got[k].dtype == want[k].dtype for k in got)
    assert list(model.run([value])) == list(got)  # the second run reuses the function


def test_a_long_step_list_runs_through_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(step_code, "MAX_COMPILED_STEPS", 2)
    value = np.linspace(-2, 2, 24, dtype=np.float32).reshape(3, 8)
    model = _model()
    got = model.run([value])
    assert _spec(model).compiled[1] is None
    want = _run_unspecialized(model, [value])
    assert all(got[k].tobytes() == want[k].tobytes() for k in got)


def _failure(model: graphir.Model, value: np.ndarray) -> str:
    with pytest.raises(EvaluationError) as info:
        model.run([value])
    return str(info.value)


@pytest.mark.parametrize("returned,detail", [
    (np.zeros(3, np.float32), "TypeError: evaluate returned ndarray; expected a list of 1 arrays"),
    ([], "IndexError: list index out of range"),
])
def test_a_failing_step_is_named_as_the_loop_names_it(monkeypatch: pytest.MonkeyPatch, returned: Any,
                                                       detail: str) -> None:
    """A Select step returning ``returned`` instead of its list of outputs."""
    value = np.ones((3, 8), np.float32)
    model = _model()
    model.run([value])
    spec = _spec(model)
    spec.steps = [(lambda *args: returned,) + s[1:] if s[-1].type_name == "Select" else s for s in spec.steps]
    compiled = _failure(model, value)
    assert spec.compiled[1] is not None
    monkeypatch.setattr(step_code, "MAX_COMPILED_STEPS", 0)
    spec.compiled = None
    looped = _failure(model, value)
    assert spec.compiled[1] is None
    assert compiled == looped
    assert "(Select-opset1) failed on inputs (bool[3, 3], float32[3, 3], float32[3, 3]): " + detail in compiled


def test_generated_source_holds_only_slots_and_step_names() -> None:
    steps = [(None, 1, 4, -1, -1, (4,), 7, 1, (4,), "node 'x'; import os"),
             (None, 2, 7, 7, -1, (7, np.int64(7)), 8, 2, (7,), "other")]
    source = step_code.step_source(steps)
    assert "import" not in source and "node" not in source and "'" not in source
    assert "o = f0(values[4])" in source and "o = f1(values[7], values[7])" in source
    assert "values[8:10] = o if type(o) is list and len(o) == 2 else outputs(o, 2)" in source
    calls: list[tuple[Any, ...]] = []

    def first(*args: Any) -> list[Any]:
        calls.append(args)
        return [args[0] + 1]

    def second(*args: Any) -> list[Any]:
        calls.append(args)
        return [args[0], args[1] * 2]

    run = step_code.compile_steps([(first,) + steps[0][1:], (second,) + steps[1][1:]],
                                  lambda o, n: list(o), lambda v, k, e: None)
    values: list[Any] = [None] * 10
    values[4] = 1
    assert run is not None
    run(values)
    assert calls == [(1,), (2, 2)] and values[8:10] == [2, 4] and values[4] is None and values[7] is None


def test_inline_forms_call_numpy_directly_and_a_copied_form_is_not_taken() -> None:
    import functools

    value = np.random.default_rng(5).standard_normal((3, 8)).astype(np.float32)
    model = _model()
    model.run([value])
    steps = _spec(model).steps
    source = step_code.step_source(steps)
    kinds = {s[-1].type_name: getattr(s[0], "inline", (None, None))[1] for s in steps}
    assert kinds["Multiply"] == "call" and kinds["Reshape"] == kinds["Transpose"] == "method"
    assert ".reshape(g" in source and ".transpose(g" in source and "out=values[" in source
    seen: list[str] = []

    def checked(*args: Any) -> Any:  # a guard around a step copies its attributes (functools.wraps)
        seen.append("checked")
        return multiply(*args)

    index = next(i for i, s in enumerate(steps) if s[-1].type_name == "Multiply")
    multiply = steps[index][0]
    wrapper = functools.wraps(multiply)(checked)
    assert getattr(wrapper, "inline", None) is not None  # copied...
    swapped = [(wrapper,) + s[1:] if i == index else s for i, s in enumerate(steps)]
    assert f"g{index}(" not in step_code.step_source(swapped)  # ...and not taken for the wrapper
    _spec(model).steps = swapped
    got = model.run([value])
    assert seen == ["checked"]
    want = _run_unspecialized(model, [value])
    assert all(got[k].tobytes() == want[k].tobytes() for k in got)


def test_a_product_by_weights_as_they_are_calls_numpy_and_one_laid_out_anew_does_not() -> None:
    rng = np.random.default_rng(9)
    value = rng.standard_normal((2, 7, 32)).astype(np.float32)
    for transpose_b, inlined in ((False, True), (True, False)):
        x = opset.parameter([2, 7, 32], "f32", name="x")
        w = rng.standard_normal((64, 32) if transpose_b else (32, 64)).astype(np.float32)
        model = graphir.Model([opset.matmul(x, opset.constant(w), False, transpose_b)], [x.node])
        got = model.run([value])
        step = next(s for s in _spec(model).steps if s[-1].type_name == "MatMul")
        assert (getattr(step[0], "inline", (None, None))[1] == "call") == inlined
        want = _run_unspecialized(model, [value])
        assert all(got[k].tobytes() == want[k].tobytes() for k in got)


def test_the_frame_of_a_long_run_holds_a_few_slots_whatever_its_length(monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluates are globals of the generated module, not locals or closure cells of ``run``:
    a frame with a slot per step (27 KiB for ssdlite's 1,664) left so little of CPython's 32 KiB
    data-stack chunk that deeper calls kept mapping fresh chunks (1,468 page faults a run)."""
    def increment(v: Any) -> list[Any]:
        return [v + 1]

    count = 2000
    monkeypatch.setattr(step_code, "MAX_COMPILED_STEPS", count)
    steps = [(increment, 1, k, -1, -1, (k,), k + 1, 1, (k,), f"node {k}") for k in range(count)]
    run = step_code.compile_steps(steps, lambda o, n: list(o), lambda v, k, e: None)
    assert run is not None
    code = run.__code__  # type: ignore[attr-defined]
    assert code.co_freevars == () and code.co_nlocals <= 6 and code.co_stacksize < 16
    values: list[Any] = [None] * (count + 1)
    values[0] = 0
    run(values)
    assert values[count] == count and values[:count] == [None] * count
