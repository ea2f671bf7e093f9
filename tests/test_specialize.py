"""Run-time specialization (graphir.specialize) computes exactly what the generic evaluates compute.

Every real file among the project's fixtures (the corpus, the torchvision exports, a sample of the
LLM exports over every weight format) runs twice on the same inputs: once through the plan
specialized for the input shapes (constants folded once, prepared evaluates) and once through each
op's generic ``evaluate`` with nothing folded (``specialize=False``). The outputs must be the same
bits. Then: the constant cache budget, the live set, and the plan-time size check."""
from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.commands.run import random_value
from graphir.errors import ResourceLimitError
from graphir.input_sizes import choose_input_shapes
from graphir.interpreter import get_plan, _run_unspecialized
from tests.llm_fixtures import llm_path, step_inputs

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FILES = sorted(str(p.relative_to(FIXTURES)) for d in ("corpus", "torchvision", "torchvision_shapes")
               for p in (FIXTURES / d).glob("*.xml"))
LLMS = ("llama-int4asym", "qwen2-nf4", "gpt2-fp32", "phi3-mxfp4", "mistral-int8sym", "whisper-fp16",
        "llama-stateless")


def assert_same_bits(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert list(got) == list(want)
    for key in want:
        a, b = np.asarray(got[key]), np.asarray(want[key])
        assert (a.dtype, a.shape) == (b.dtype, b.shape), key
        if a.dtype.hasobject:
            assert a.tolist() == b.tolist(), key
        else:
            assert a.tobytes() == b.tobytes(), f"output {key!r} differs from the generic evaluate"


def random_inputs(model: graphir.Model, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = choose_input_shapes(model)
    return [random_value(p, s, rng) for p, s in zip(model.get_parameters(), shapes)]


@pytest.mark.parametrize("name", FILES)
def test_specialized_runs_give_the_generic_bits(name: str) -> None:
    model = graphir.read_model(FIXTURES / name)
    inputs = random_inputs(model)
    want = _run_unspecialized(model, inputs)
    got = model.run(inputs)
    assert_same_bits(got, want)
    assert_same_bits(model.run(inputs), want)  # the remembered specialization again


@pytest.mark.parametrize("name", LLMS)
def test_specialized_llm_steps_give_the_generic_bits(name: str) -> None:
    """Two decoding steps (a prompt, then one token on the KV cache) through InferRequests."""
    model = graphir.read_model(llm_path(name))
    if "stateless" in name:  # the KV cache is an input: sizes and values chosen as `graphir run --random` does
        inputs = random_inputs(model)
        assert_same_bits(_run_unspecialized(model, inputs), model.run(inputs))
        return
    names = [min(p.output_names[0]) if p.output_names[0] else p.name for p in model.get_parameters()]
    rng = np.random.default_rng(1)
    prompt, token = step_inputs(names, 1, 0, 5, rng), step_inputs(names, 1, 5, 1, rng)
    fast, reference = model.create_infer_request(), model.create_infer_request()
    for feed in (prompt, token):
        assert_same_bits(fast.infer(feed), reference._infer_unspecialized(feed))


def _weights_model(n: int = 256) -> tuple[graphir.Model, np.ndarray]:
    """x @ Convert(f16 weights -> f32): the Convert is constant-only (folded within the budget)."""
    w = (np.arange(n * n, dtype=np.float32).reshape(n, n) / (n * n)).astype(np.float16)
    x = opset.parameter([1, n], "f32", name="x")
    y = opset.matmul(x, opset.convert(opset.constant(w), destination_type="f32"), False, False)
    return graphir.Model([y], [x], name="weights"), w


def test_constant_only_nodes_fold_once_within_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    model, w = _weights_model()
    x = np.ones((1, 256), np.float32)
    expected = x @ w.astype(np.float32)
    out = next(iter(model.run(x).values()))
    np.testing.assert_array_equal(out, expected)
    plan = get_plan(model)
    spec = next(iter(plan.specializations.values()))
    assert [s[-1].type_name for s in spec.steps] == ["MatMul"]  # the Convert ran once, at planning
    assert plan.constant_cache.used == 256 * 256 * 4

    monkeypatch.setenv("GRAPHIR_CONSTANT_CACHE_BYTES", str(256 * 256 * 4 - 1))
    small, _ = _weights_model()
    np.testing.assert_array_equal(next(iter(small.run(x).values())), expected)
    plan = get_plan(small)
    spec = next(iter(plan.specializations.values()))
    assert [s[-1].type_name for s in spec.steps] == ["Convert", "MatMul"]  # over the budget: per call
    assert plan.constant_cache.used == 0


def test_a_bad_budget_is_a_named_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHIR_CONSTANT_CACHE_BYTES", "lots")
    model, _ = _weights_model(4)
    with pytest.raises(ResourceLimitError, match="GRAPHIR_CONSTANT_CACHE_BYTES: expected a number of bytes, got 'lots'"):
        model.run(np.ones((1, 4), np.float32))


def test_values_are_freed_after_their_last_use() -> None:
    """The peak of a run is the live set: an intermediate is dropped once its last reader ran."""
    seen: list[weakref.ref[np.ndarray]] = []
    alive_at_end: list[bool] = []

    x = opset.parameter([1000], "f32", name="x")
    a = opset.negative(x)  # read by b only (not a fresh-output step: b cannot compute into it)
    b = opset.add(a, a)
    c = opset.multiply(b, b)
    d = opset.add(c, c)
    model = graphir.Model([d], [x])
    plan_steps = None

    model.run(np.ones(1000, np.float32))  # build the specialization
    plan = get_plan(model)
    spec = next(iter(plan.specializations.values()))
    plan_steps = spec.steps
    # wrap each evaluate to watch what is alive when the last step runs
    relu = plan_steps[0]

    def watched_relu(v: np.ndarray) -> list[np.ndarray]:  # (the Negative)
        out = relu[0](v)
        seen.append(weakref.ref(out[0]))
        return out

    last = plan_steps[-1]

    def watched_last(u: np.ndarray, v: np.ndarray) -> list[np.ndarray]:
        gc.collect()
        alive_at_end.append(seen[0]() is not None)
        return last[0](u, v)

    spec.steps = [(watched_relu,) + relu[1:]] + plan_steps[1:-1] + [(watched_last,) + last[1:]]
    out = next(iter(model.run(np.ones(1000, np.float32)).values()))
    np.testing.assert_array_equal(out, np.full(1000, 8, np.float32))
    assert alive_at_end == [False]  # relu's output was released after b read it


def test_plan_checks_every_output_size_for_the_signature() -> None:
    """A dynamic model: the sizes of one signature are known only once its shapes are; the check
    then names the node, port and byte count before any node runs."""
    x = opset.parameter([-1], "f32", name="x")
    outer = opset.multiply(opset.unsqueeze(x, opset.constant(np.array([1], np.int64))),
                           opset.unsqueeze(x, opset.constant(np.array([0], np.int64))))
    model = graphir.Model([outer], [x], name="outer")
    model.run(np.ones(10, np.float32), max_tensor_bytes=400)
    with pytest.raises(ResourceLimitError) as info:
        model.run(np.ones(11, np.float32), max_tensor_bytes=400)
    text = str(info.value)
    assert "Multiply" in text and "output 0 (f32[11,11])" in text
    assert "would take 484 bytes, over the tensor size limit of 400 bytes" in text


def _conv_bias_model(second_reader: str | None) -> graphir.Model:
    rng = np.random.default_rng(0)
    x = opset.parameter([1, 3, 8, 8], "f32", name="x")
    w = opset.constant(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    conv = opset.make("Convolution", x, w, strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1])
    bias = opset.constant(rng.standard_normal((1, 4, 1, 1)).astype(np.float32))
    biased = opset.add(conv, bias)
    outputs = [opset.relu(opset.subtract(bias, biased))]  # the fresh input second: written into too
    if second_reader == "view":  # a view of the convolution's output, alive after the Add
        outputs.append(opset.make("Reshape", conv, opset.constant(np.array([4, 64], np.int64)), special_zero=False))
    elif second_reader == "result":
        outputs.append(conv)
    return graphir.Model(outputs, [x])


@pytest.mark.parametrize("second_reader", [None, "view", "result"])
def test_elementwise_steps_write_into_fresh_inputs_only_they_read(second_reader: str | None) -> None:
    """Add after a Convolution (and Subtract after that Add, into its second input) compute in the
    fresh array they alone read: no allocation, the generic bits. A convolution output that
    something else reads (a Reshape's view of it, a Result) is left alone."""
    model = _conv_bias_model(second_reader)
    x = np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype(np.float32)
    want = _run_unspecialized(model, [x])
    got = model.run([x])
    assert_same_bits(got, want)
    assert_same_bits(model.run([x]), want)
    spec = next(s for key, s in get_plan(model).specializations.items() if key[1])  # the prepared one
    by_type = {step[-1].type_name: step[0] for step in spec.steps}
    written_into = [name for name in ("Add", "Subtract") if getattr(by_type[name], "fresh_output", False)
                    and not hasattr(by_type[name], "into_inputs")]  # a variant took the prepared step's place
    assert written_into == (["Add", "Subtract"] if second_reader is None else ["Subtract"])
