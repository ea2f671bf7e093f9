"""The interpreter: input handling and checks, the cached plan, value release, constants shared,
error re-raising, profiling, the progress bar, and values against OpenVINO's CPU plugin."""
from __future__ import annotations

import types
import weakref
from typing import Any, ClassVar

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import EvaluationError, InputError, UnsupportedOpError
from graphir.interpreter import RunResult, build_plan, prepare_inputs
from graphir.node import Node
from graphir.ops.base import Op, Port, TensorType
from graphir.ops.opaque import opaque_op


# --- test-only ops (type_name set after creation, so the registry never sees them) -------------
class Inc(Op):
    """x + 1 in a new array; remembers a weak reference to every output it makes."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)
    made: ClassVar[list[Any]] = []
    alive_at_call: ClassVar[list[int]] = []

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[0].shape)]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        Inc.alive_at_call.append(sum(1 for r in Inc.made if r() is not None))
        y = x + 1
        Inc.made.append(weakref.ref(y))
        return [y]


class Probe(Op):
    """Records the arrays it receives; returns the first."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x", variadic=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)
    seen: ClassVar[list[tuple[Any, ...]]] = []

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[0].shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        Probe.seen.append(arrays)
        return [arrays[0]]


class SplitHalves(Op):
    """Two outputs: the first and second half of axis 0."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("lo"), Port("hi"))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        t = inputs[0]
        half = graphir.PartialShape([t.shape[0].min // 2] + list(t.shape.dims[1:]))
        return [TensorType(t.element_type, half), TensorType(t.element_type, half)]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        n = x.shape[0] // 2
        return [x[:n], x[n:]]


class Boom(Op):
    """Fails when run (a bug in an op's evaluate)."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x"), Port("y"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("z"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [inputs[0]]

    def evaluate(self, x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
        raise ValueError("operands could not be broadcast together")


for _cls in (Inc, Probe, SplitHalves, Boom):
    _cls.type_name = _cls.__name__


def node(op: Op, *inputs: Any, name: str | None = None) -> Node:
    return Node(op, [i if not isinstance(i, Node) else i.output(0) for i in inputs], name=name)


def select_model() -> graphir.Model:
    c = opset.parameter("[?,2]", "boolean", name="cond")
    a = opset.parameter("[?,2]", "i32", name="then")
    b = opset.parameter("[?,2]", "i32", name="else")
    y = opset.select(c, a, b, name="sel")
    y.names = {"out"}
    return graphir.Model([y], [c, a, b], name="select")


COND = np.array([[True, False], [False, True]])
THEN = np.array([[1, 2], [3, 4]], np.int32)
ELSE = np.array([[9, 8], [7, 6]], np.int32)
EXPECTED = np.array([[1, 8], [7, 4]], np.int32)


# --- inputs ---------------------------------------------------------------------------------
def test_inputs_by_friendly_name_tensor_name_index_and_list() -> None:
    m = select_model()
    m.get_parameters()[1].output_names[0] = {"then:0"}
    for inputs in (
        {"cond": COND, "then": THEN, "else": ELSE},
        {"cond": COND, "then:0": THEN, "else": ELSE},
        {0: COND, 1: THEN, -1: ELSE},
        [COND, THEN, ELSE],
        (COND, THEN, ELSE),
    ):
        out = m.run(inputs)
        assert list(out) == ["out"]
        np.testing.assert_array_equal(out["out"], EXPECTED)
        assert out["out"].dtype == np.int32
    np.testing.assert_array_equal(m.create_infer_request().infer([COND, THEN, ELSE])["out"], EXPECTED)


def test_python_lists_are_converted_to_the_parameter_type() -> None:
    out = select_model().run({"cond": COND.tolist(), "then": THEN.tolist(), "else": ELSE.tolist()})
    assert out["out"].dtype == np.int32
    np.testing.assert_array_equal(out["out"], EXPECTED)


def test_single_array_for_a_one_input_model_and_outputs_in_result_order() -> None:
    x = opset.parameter([2], "f32", name="x")
    a = opset.add(x, opset.constant(np.float32(1)), name="a")
    b = opset.multiply(x, opset.constant(np.float32(3)), name="b")
    a.names, b.names = {"plus"}, {"times"}
    m = graphir.Model([b, a, x], [x])
    out = m.run(np.array([1, 2], np.float32))
    assert list(out) == ["times", "plus", "x"]
    np.testing.assert_array_equal(out["times"], [3, 6])
    np.testing.assert_array_equal(out["plus"], [2, 3])
    np.testing.assert_array_equal(out["x"], [1, 2])


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"cond": COND, "then": THEN}, "no value given for input(s) 'else'"),
        ({"cond": COND, "then": THEN, "else": ELSE, "other": ELSE}, "has no input 'other' (inputs: 'cond', 'then', 'else')"),
        ({"cond": COND, "then": THEN, 2: ELSE, "else": ELSE}, "input 'else' is given twice"),
        ({"cond": COND, "then": THEN, 7: ELSE}, "input index 7 is out of range"),
        ([COND, THEN], "has 3 inputs ('cond', 'then', 'else'), got 2 values"),
        ({"cond": COND, "then": THEN.astype(np.int64), "else": ELSE},
         "input 'then': expected element type i32 (int32), got an array of int64 with shape [2, 2]"),
        ({"cond": COND, "then": THEN, "else": ELSE[:, :1]}, "input 'else': expected shape [?,2], got [2, 1]"),
        ({"cond": COND, "then": [[1.5, 2.0], [3.0, 4.0]], "else": ELSE},
         "input 'then': expected element type i32 (int32), got values of float64"),
    ],
)
def test_input_errors_name_the_input_expected_and_got(inputs: Any, message: str) -> None:
    with pytest.raises(InputError) as info:
        select_model().run(inputs)
    assert message in str(info.value)


def test_static_shape_check_and_dynamic_rank() -> None:
    x = opset.parameter([2, 3], "f32", name="x")
    m = graphir.Model([opset.add(x, x)], [x])
    with pytest.raises(InputError, match=r"input 'x': expected shape \[2,3\], got \[3, 2\]"):
        m.run(np.zeros((3, 2), np.float32))
    y = opset.parameter("[...]", "f32", name="y")
    m2 = graphir.Model([opset.add(y, y)], [y])
    assert next(iter(m2.run(np.ones((1, 2, 3), np.float32)).values())).shape == (1, 2, 3)
    z = opset.parameter("[2..4]", "f32", name="z")
    m3 = graphir.Model([opset.add(z, z)], [z])
    with pytest.raises(InputError, match=r"expected shape \[2\.\.4\], got \[5\]"):
        m3.run(np.ones(5, np.float32))


@pytest.mark.parametrize("shape,given,fits", [
    ("[2..4,?]", (2, 0), True), ("[2..4,?]", (4, 9), True), ("[2..4,?]", (1, 3), False), ("[2..4,?]", (5, 3), False),
    ("[3..,2]", (3, 2), True), ("[3..,2]", (300, 2), True), ("[3..,2]", (2, 2), False), ("[3..,2]", (3, 3), False),
    ("[?,?]", (1, 2, 3), False), ("[?]", (), False),
])
def test_dynamic_input_shapes_are_checked_against_each_dims_bounds(shape: str, given: tuple[int, ...], fits: bool) -> None:
    z = opset.parameter(shape, "f32", name="z")
    m = graphir.Model([opset.relu(z)], [z])
    value = np.ones(given, np.float32)
    if fits:
        assert next(iter(m.run(value).values())).shape == given
    else:
        with pytest.raises(InputError) as info:
            m.run(value)
        assert str(info.value) == f"input 'z': expected shape {shape}, got {list(given)}"


def test_prepare_inputs_returns_checked_arrays_in_parameter_order() -> None:
    m = select_model()
    arrays = prepare_inputs(m, {"else": ELSE, "cond": COND, "then": THEN})
    assert arrays[0] is COND and arrays[1] is THEN and arrays[2] is ELSE  # no copies


# --- plan -----------------------------------------------------------------------------------
def test_plan_is_built_once_and_not_rebuilt_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    m = select_model()
    m.run([COND, THEN, ELSE])
    plan = m._plan
    monkeypatch.setattr(m, "get_ordered_ops", lambda: pytest.fail("ordering recomputed on a run"))
    monkeypatch.setattr(m, "validate", lambda: pytest.fail("validation repeated on a run"))
    for _ in range(3):
        np.testing.assert_array_equal(m.run([COND, THEN, ELSE])["out"], EXPECTED)
    assert m._plan is plan


def test_values_are_released_after_their_last_use() -> None:
    Inc.made.clear()
    Inc.alive_at_call.clear()
    x = opset.parameter([1000], "f32", name="x")
    y: Any = x
    for _ in range(8):
        y = node(Inc(), y).output(0)
    m = graphir.Model([y], [x])
    out = next(iter(m.run(np.zeros(1000, np.float32)).values()))
    assert out[0] == 8
    # each Inc sees only its own input alive among earlier outputs: the rest were freed
    assert Inc.alive_at_call == [0] + [1] * 7
    assert sum(1 for r in Inc.made if r() is not None) == 1  # only the returned output


def test_a_value_lives_until_its_last_consumer() -> None:
    Inc.made.clear()
    Inc.alive_at_call.clear()
    x = opset.parameter([4], "f32", name="x")
    a = node(Inc(), x)           # a lives on: d needs it
    b = node(Inc(), a)
    c = node(Inc(), b)           # b is freed after c
    d = node(Probe(), c, a)
    m = graphir.Model([d.output(0)], [x])
    m.run(np.zeros(4, np.float32))
    assert Inc.alive_at_call == [0, 1, 2]


def test_constants_are_shared_not_copied() -> None:
    Probe.seen.clear()
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = opset.parameter([2, 3], "f32", name="x")
    c = opset.constant(data, name="c")
    p = node(Probe(), x, c)
    m = graphir.Model([p.output(0)], [x])
    for _ in range(2):
        m.run(np.zeros((2, 3), np.float32))
    const_value = c.node.op.value
    assert Probe.seen[0][1] is const_value and Probe.seen[1][1] is const_value


def test_results_fed_by_a_parameter_or_a_constant() -> None:
    x = opset.parameter([2], "i32", name="x")
    c = opset.constant(np.array([5, 6], np.int32), name="k")
    m = graphir.Model([x, c], [x])
    v = np.array([1, 2], np.int32)
    out = m.run([v])
    assert out["x"] is v
    np.testing.assert_array_equal(list(out.values())[1], [5, 6])


def test_multi_output_nodes() -> None:
    x = opset.parameter([4, 2], "f32", name="x")
    s = Node(SplitHalves(), [x])
    lo = node(Inc(), s.output(0))
    m = graphir.Model([lo.output(0), s.output(1)], [x])
    data = np.arange(8, dtype=np.float32).reshape(4, 2)
    outs = list(m.run(data).values())
    np.testing.assert_array_equal(outs[0], data[:2] + 1)
    np.testing.assert_array_equal(outs[1], data[2:])


def test_plan_steps_skip_boundary_ops() -> None:
    m = select_model()
    plan = build_plan(m)
    assert [s[-1].type_name for s in plan.steps] == ["Select"]
    assert plan.result_keys == ["out"]


# --- errors ---------------------------------------------------------------------------------
def test_evaluation_errors_name_the_node_and_its_inputs() -> None:
    x = opset.parameter([2, 3], "f32", name="x")
    y = opset.parameter([3], "i64", name="y")
    bad = node(Boom(), x, y, name="exploder")
    m = graphir.Model([bad.output(0)], [x, y])
    with pytest.raises(EvaluationError) as info:
        m.run([np.zeros((2, 3), np.float32), np.zeros(3, np.int64)])
    text = str(info.value)
    assert f"node {bad.id} 'exploder' (Boom-test1)" in text
    assert "float32[2, 3], int64[3]" in text
    assert "ValueError: operands could not be broadcast together" in text
    assert isinstance(info.value.__cause__, ValueError)


def test_unsupported_ops_raise_their_own_error() -> None:
    x = opset.parameter([2], "f32", name="x")
    t = TensorType.of("f32", [2])
    op = opaque_op("Frobnicate", "custom7", layer_id="3", layer_name="frob",
                   recorded_inputs=[t], recorded_outputs=[t])
    n = Node(op, [x], output_types=[t])
    m = graphir.Model([n.output(0)], [x])
    with pytest.raises(UnsupportedOpError, match="layer id=3 name='frob' type=Frobnicate version=custom7"):
        m.run(np.zeros(2, np.float32))


# --- profile and progress -------------------------------------------------------------------
def test_profile_reports_time_and_output_bytes_per_node() -> None:
    x = opset.parameter([8, 8], "f32", name="x")
    a = opset.add(x, x, name="a")
    b = opset.multiply(a, opset.constant(np.float32(2)), name="b")
    m = graphir.Model([b], [x])
    result = m.profile(np.ones((8, 8), np.float32))
    assert isinstance(result, RunResult)
    np.testing.assert_array_equal(next(iter(result.outputs.values())), np.full((8, 8), 4, np.float32))
    assert [(r.name, r.type, r.version, r.output_bytes) for r in result.profile] == [
        ("a", "Add", "opset1", 256), ("b", "Multiply", "opset1", 256)]
    assert all(r.seconds > 0 for r in result.profile)
    assert "Multiply-opset1" in result.table()


def test_progress_bar_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    x = opset.parameter([2], "f32", name="x")
    y = opset.add(opset.add(x, x), x)
    m = graphir.Model([y], [x])
    m.run(np.ones(2, np.float32), progress=True)
    assert "node" in capsys.readouterr().err
    m.run(np.ones(2, np.float32))  # not a terminal: no bar
    assert capsys.readouterr().err == ""


# --- values against OpenVINO ----------------------------------------------------------------
def test_values_match_openvino(ov: Any, tmp_path: Any) -> None:
    x = opset.parameter([2, 3], "f32", name="x")
    c = opset.parameter([2, 3], "boolean", name="c")
    k = opset.constant(np.array([[0.5, -1.0, 2.0]], np.float32))
    a = opset.multiply(opset.add(x, k), x)
    y = opset.select(c, a, opset.subtract(x, k))
    y.names = {"y"}
    m = graphir.Model([y], [x, c], name="mix")
    graphir.save_model(m, tmp_path / "mix.xml")
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((2, 3)).astype(np.float32)
    cv = rng.random((2, 3)) < 0.5
    compiled = ov.Core().compile_model(str(tmp_path / "mix.xml"), "CPU")
    expected = compiled({"x": xv, "c": cv})[compiled.outputs[0]]
    got = m.run({"x": xv, "c": cv})["y"]
    from tests.tolerances import assert_close

    assert got.dtype == np.float32
    assert_close(got, expected)


class BadReturn(Op):
    """Returns an array instead of a list of arrays (a bug the interpreter must report)."""

    dialect: ClassVar[str] = "graphir_test"
    version: ClassVar[str] = "test1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [inputs[0]]

    def evaluate(self, x: np.ndarray) -> Any:
        return x


BadReturn.type_name = "BadReturn"


def test_an_evaluate_that_returns_no_list_is_reported() -> None:
    x = opset.parameter([2, 2], "f32", name="x")
    n = node(BadReturn(), x, name="oops")
    m = graphir.Model([n.output(0)], [x])
    with pytest.raises(EvaluationError, match="'oops' \\(BadReturn-test1\\).*evaluate returned ndarray; expected a list"):
        m.run(np.zeros((2, 2), np.float32))
    x2 = opset.parameter([2, 2], "f32", name="x")  # a node belongs to one model: a new Parameter
    s = Node(SplitHalves(), [x2])
    m2 = graphir.Model([s.output(0), s.output(1)], [x2])
    assert [v.shape for v in m2.run(np.zeros((2, 2), np.float32)).values()] == [(1, 2), (1, 2)]


def test_inputs_keyed_by_parameter_handles_and_unique_output_keys() -> None:
    x = opset.parameter([2], "f32", name="x")
    y = opset.add(x, x, name="twice")
    y.names = {"y"}
    m = graphir.Model([y, y], [x])
    out = m.run({x: np.ones(2, np.float32)})
    assert len(out) == 2 and list(out)[0] == "y"
    np.testing.assert_array_equal(list(out.values())[1], [2, 2])
    out2 = m.run({x.node: np.ones(2, np.float32)})
    assert list(out2) == list(out)


def test_progress_bar_on_a_terminal_only_for_slow_models(monkeypatch: pytest.MonkeyPatch) -> None:
    import graphir.interpreter as interp

    made: list[int] = []

    class FakeBar:
        def __init__(self, total: int) -> None:
            made.append(total)

        def update(self, n: int) -> None:
            pass

        def close(self) -> None:
            pass

    # the run's clock, stepped by the test (a wall clock could see a fast run take over 0.5 s when
    # the process is descheduled or a full collection runs in the middle of it)
    step = [0.1]
    now = [0.0]

    def perf_counter() -> float:
        now[0] += step[0]
        return now[0]

    monkeypatch.setattr(interp, "time", types.SimpleNamespace(perf_counter=perf_counter))
    monkeypatch.setattr(interp, "_progress_bar", lambda total, progress: FakeBar(total))
    x = opset.parameter([2], "f32", name="x")
    m = graphir.Model([opset.add(opset.add(x, x), x)], [x])
    m.run(np.ones(2, np.float32))
    assert made == [2]  # first run: a bar (tqdm shows it only after a second)
    m.run(np.ones(2, np.float32))
    assert made == [2]  # the first run was fast (0.1 s): no bar any more
    step[0] = 1.0  # runs of 1 s: the bar stays
    x1 = opset.parameter([2], "f32", name="x")
    m1 = graphir.Model([opset.add(opset.add(x1, x1), x1)], [x1])
    m1.run(np.ones(2, np.float32))
    m1.run(np.ones(2, np.float32))
    assert made == [2, 2, 2]
    monkeypatch.setattr(interp, "_progress_bar", lambda total, progress: None)  # not a terminal
    x2 = opset.parameter([2], "f32", name="x")  # a node belongs to one model: a new Parameter
    m2 = graphir.Model([opset.add(opset.add(x2, x2), x2)], [x2])
    m2.run(np.ones(2, np.float32))
    assert m2._plan.show_progress is False


def test_an_output_nobody_reads_is_dropped_at_once() -> None:
    x = opset.parameter([4, 2], "f32", name="x")
    s = Node(SplitHalves(), [x])  # output 1 is never used
    lo = node(Inc(), s.output(0))
    m = graphir.Model([node(Inc(), lo).output(0)], [x])
    plan = build_plan(m)
    split_step = next(st for st in plan.steps if st[-1] is s)
    assert split_step[6] + 1 in split_step[8]  # the unused 'hi' slot is released by the Split step
    out = next(iter(m.run(np.zeros((4, 2), np.float32)).values()))
    np.testing.assert_array_equal(out, np.full((2, 2), 2, np.float32))


def test_dispatch_stays_cheap() -> None:
    """A gross regression guard (benchmarks/dispatch.py has the real figures: ~0.5 us per node):
    a 2,000-node chain of do-nothing ops must run well under 5 us per node. Timed in this thread's
    CPU time, so the other processes of a loaded machine do not count."""
    import time

    x = opset.parameter([2], "f32", name="x")
    y: Any = x
    for _ in range(2000):
        y = node(Probe(), y).output(0)
    m = graphir.Model([y], [x])
    value = np.zeros(2, np.float32)
    m.run(value)
    Probe.seen.clear()
    best = float("inf")
    for _ in range(7):
        start = time.thread_time()
        m.run(value)
        best = min(best, time.thread_time() - start)
        Probe.seen.clear()
    assert best / 2000 < 5e-6, f"{best / 2000 * 1e6:.2f} us per node"
