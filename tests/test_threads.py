"""Requests in parallel threads (issue 33): a request owns everything a run writes, so separate
requests on one model give the single-threaded results in every thread; one request used from two
threads at once is refused ("request busy"), as OpenVINO refuses ("Infer Request is busy")."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import GraphirError
from graphir.node import Node
from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.variables import Assign6, ReadValue6

THREADS = 8
RUNS = 900


def _shape_loop() -> graphir.Model:
    """acc = zeros_like(x); repeat n times: acc += Broadcast(1, ShapeOf(x)); a dynamic-shape
    body: each run's shapes reach the body's ShapeOf/Broadcast (they leaked between threads)."""
    p_acc = opset.parameter("[?,?]", "f32", name="p_acc")
    p_x = opset.parameter("[?,?]", "f32", name="p_x")
    ones = opset.broadcast(opset.constant(np.float32(1)), opset.shape_of(p_x), name="ones")
    body = graphir.Model([opset.add(p_acc, ones, name="next"), opset.constant(np.array(True), name="go")],
                         [p_acc, p_x], name="body")
    r_acc, r_cond = body.get_results()
    x = opset.parameter("[?,?]", "f32", name="x")
    n = opset.parameter("[]", "i64", name="n")
    acc0 = opset.multiply(x, opset.constant(np.float32(0)), name="zeros")
    out = opset.loop(n, opset.constant(np.array(True)), acc0, x, body=body, name="loop",
                     input_descriptions=[{"external_port_id": 2, "internal_layer_id": body.get_parameters()[0].id},
                                         {"external_port_id": 3, "internal_layer_id": body.get_parameters()[1].id}],
                     output_descriptions=[{"external_port_id": 4, "internal_layer_id": r_acc.id},
                                          {"external_port_id": -1, "internal_layer_id": r_cond.id,
                                           "purpose": "execution_condition"}],
                     back_edges=[{"from-layer": r_acc.id, "to-layer": body.get_parameters()[0].id}])
    return graphir.Model([out], [x, n], name="shape_loop")


def _if_model() -> graphir.Model:
    """cond ? x + 1 : Broadcast(2, ShapeOf(x)) * x, over a dynamic x."""
    tp = opset.parameter("[?,?]", "f32", name="tp")
    then_body = graphir.Model([opset.add(tp, opset.constant(np.float32(1)))], [tp], name="then")
    ep = opset.parameter("[?,?]", "f32", name="ep")
    twos = opset.broadcast(opset.constant(np.float32(2)), opset.shape_of(ep))
    else_body = graphir.Model([opset.multiply(twos, ep)], [ep], name="else")
    cond = opset.parameter("[]", "boolean", name="cond")
    x = opset.parameter("[?,?]", "f32", name="x")
    out = opset.make(
        "If", cond, x, name="branch", then_body=then_body, else_body=else_body,
        then_input_descriptions=[{"external_port_id": 1, "internal_layer_id": tp.node.id}],
        then_output_descriptions=[{"external_port_id": 2, "internal_layer_id": then_body.get_results()[0].id}],
        else_input_descriptions=[{"external_port_id": 1, "internal_layer_id": ep.node.id}],
        else_output_descriptions=[{"external_port_id": 2, "internal_layer_id": else_body.get_results()[0].id}])
    return graphir.Model([out], [cond, x], name="branch")


def _accumulator() -> graphir.Model:
    """total = state + x; the state becomes total (ReadValue/Assign)."""
    x = opset.parameter("[2,3]", "f32", name="x")
    rv = Node(ReadValue6(variable_id="acc", variable_type="f32", variable_shape="[2,3]"))
    total = opset.add(rv.output(0), x)
    return graphir.Model([total], [x.node], name="acc", sinks=[Node(Assign6(variable_id="acc"), [total])])


def _in_threads(work: Callable[[int], list[str]]) -> list[str]:
    """Run ``work(thread index)`` in THREADS threads at once; every thread's list of problems."""
    problems: list[str] = []
    start = threading.Barrier(THREADS)

    def body(index: int) -> None:
        start.wait()
        try:
            problems.extend(work(index))
        except Exception as exc:  # noqa: BLE001 - reported below with the thread's index
            problems.append(f"thread {index}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=body, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return problems


def _check_runs(model: graphir.Model, cases: list[tuple[Any, np.ndarray]]) -> None:
    """Each thread's request runs the cases RUNS times in all; each result equals the expected
    (single-threaded) one, bit for bit."""
    for feed, want in cases:  # single-threaded first: the expected values are what one thread gets
        np.testing.assert_array_equal(next(iter(model.run(feed).values())), want)

    def work(index: int) -> list[str]:
        request = model.create_infer_request()
        wrong = []
        for k in range(RUNS):
            feed, want = cases[(index + k) % len(cases)]
            got = next(iter(request.infer(feed).values()))
            if got.shape != want.shape or not np.array_equal(got, want):
                wrong.append(f"thread {index} run {k}: got {got.tolist()}, want {want.tolist()}")
        return wrong

    problems = _in_threads(work)
    assert not problems, f"{len(problems)} of {THREADS * RUNS} runs wrong, first: {problems[:3]}"


def test_a_dynamic_shape_loop_in_parallel_requests() -> None:
    model = _shape_loop()
    cases = []  # more input signatures than a plan keeps specializations for: new ones keep coming
    for rows, cols in [(r, c) for r in range(1, 7) for c in range(1, 7)]:
        n = (rows * 7 + cols) % 11
        cases.append(([np.ones((rows, cols), np.float32), np.array(n, np.int64)],
                      np.full((rows, cols), n, np.float32)))
    _check_runs(model, cases)


def test_an_if_in_parallel_requests() -> None:
    model = _if_model()
    rng = np.random.default_rng(7)
    cases = []
    for rows, cols in [(r, c) for r in range(1, 6) for c in range(1, 6)]:
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        cases += [([np.bool_(True), x], x + np.float32(1)), ([np.bool_(False), x], x * np.float32(2))]
    _check_runs(model, cases)


def test_a_stateful_model_one_request_per_thread() -> None:
    model = _accumulator()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def work(index: int) -> list[str]:
        request = model.create_infer_request()
        scaled = x * np.float32(index + 1)
        for k in range(RUNS):
            got = next(iter(request.infer([scaled]).values()))
            if not np.array_equal(got, scaled * np.float32(k + 1)):
                return [f"thread {index} step {k}: got {got.tolist()}, want {(scaled * (k + 1)).tolist()}"]
        state = request.query_state()[0].state
        return [] if np.array_equal(state, scaled * np.float32(RUNS)) else [f"thread {index}: final state {state}"]

    problems = _in_threads(work)
    assert not problems, problems[:3]
    np.testing.assert_array_equal(next(iter(model.run([x]).values())), x)  # model.run: a fresh request each call


class _Gate(Op):
    """y = x, but a run in the thread named "gated" waits inside it until the test opens the gate:
    a run that is certainly under way, however the threads are scheduled."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)
    inside: ClassVar[threading.Event] = threading.Event()
    open: ClassVar[threading.Event] = threading.Event()

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[0].shape)]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        if threading.current_thread().name == "gated":
            _Gate.inside.set()
            assert _Gate.open.wait(120), "the test never opened the gate"
        return [x]


_Gate.type_name = "ThreadsTestGate"  # set after creation: never enters the global op registry


def test_one_request_shared_by_two_threads_is_refused() -> None:
    x = opset.parameter("[?,?]", "f32", name="x")
    y = opset.add(Node(_Gate(), [x]).output(0), opset.constant(np.float32(1)))
    model = graphir.Model([y], [x], name="gated")
    request = model.create_infer_request()
    _Gate.inside.clear()
    _Gate.open.clear()
    errors: list[BaseException] = []
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(request.infer([np.zeros((2, 2), np.float32)])),
                              name="gated")
    thread.start()
    try:
        assert _Gate.inside.wait(120), "the first thread's run never started"
        try:  # the first thread's run is waiting inside the gate
            request.infer([np.ones((1, 1), np.float32)])
        except GraphirError as exc:
            errors.append(exc)
    finally:
        _Gate.open.set()
        thread.join()
    assert errors, "the second thread's infer was not refused"
    assert str(errors[0]).startswith("request busy: this InferRequest on model 'gated' is running in another "
                                     "thread; use one request per thread")
    np.testing.assert_array_equal(next(iter(results[0].values())), np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(next(iter(request.infer([np.ones((1, 3), np.float32)]).values())),
                                  np.full((1, 3), 2, np.float32))  # free again


def test_unknown_numerics_profile_is_refused() -> None:
    with pytest.raises(graphir.errors.GraphirError, match=r"unknown numerics profile 'fast'; "
                                                          r"valid profiles: reference, openvino-cpu"):
        _accumulator().create_infer_request(numerics="fast")


def test_a_run_never_changes_the_models_bodies(monkeypatch: pytest.MonkeyPatch) -> None:
    """What leaked between threads: inferring a new input signature set the shared body's
    Parameter types (and its nodes' types) for a moment. Now it infers private copies."""
    model = _shape_loop()
    body = next(n for n in model.nodes() if n.type_name == "Loop").op.body
    before = [(n.op, list(n.output_types)) for n in body.nodes()]
    version = body.version
    touched: list[Any] = []
    original = graphir.Model.set_parameter_type

    def spy(self: graphir.Model, *args: Any, **kwargs: Any) -> None:
        if self is body:
            touched.append(args)
        original(self, *args, **kwargs)

    monkeypatch.setattr(graphir.Model, "set_parameter_type", spy)
    for rows in range(1, 20):  # more signatures than a plan keeps
        out = model.run([np.ones((rows, 2), np.float32), np.array(3, np.int64)])
        np.testing.assert_array_equal(next(iter(out.values())), np.full((rows, 2), 3, np.float32))
    assert touched == [] and body.version == version
    assert [(n.op, list(n.output_types)) for n in body.nodes()] == before
