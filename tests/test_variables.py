"""ReadValue/Assign, model variables and sinks, and InferRequest state (OpenVINO 2026.4 as oracle)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import EvaluationError, GraphError, InferenceError, InputError, SerializationError
from graphir.node import Node
from graphir.ops.openvino.variables import Assign6, ReadValue6

VARIABLES = Path(__file__).resolve().parent / "fixtures" / "llm" / "variables"
FIXTURES = sorted(VARIABLES.glob("*.xml"))


def _read_value(vid: str, et: str, shape: str, init=None) -> Node:
    return Node(ReadValue6(variable_id=vid, variable_type=et, variable_shape=shape), [] if init is None else [init])


def _accumulator(shape: str = "[2,3]") -> graphir.Model:
    x = opset.parameter(shape, "f32", name="x")
    rv = _read_value("acc", "f32", shape)
    total = opset.add(rv.output(0), x)
    assign = Node(Assign6(variable_id="acc"), [total])
    return graphir.Model([total], [x.node], name="acc", sinks=[assign])


# --- ops: inference as OpenVINO -------------------------------------------------------------
def test_read_value6_declares_the_variable_type_and_shape() -> None:
    init = opset.parameter("[2,3]", "f32")
    assert str(_read_value("v", "f32", "[?,3]", init).output_types[0]) == "f32[?,3]"
    assert str(_read_value("v", "f32", "[1..4,3]", init).output_types[0]) == "f32[1..4,3]"
    assert str(_read_value("v", "f32", "[2,3]").output_types[0]) == "f32[2,3]"
    # a variable of dynamic type and rank takes the init's (as OpenVINO)
    assert str(_read_value("v", "dynamic", "...", init).output_types[0]) == "f32[2,3]"
    assert str(_read_value("v", "f32", "...", init).output_types[0]) == "f32[...]"


@pytest.mark.parametrize(("et", "shape", "init_shape", "message"), [
    ("f32", "[3..4,3]", "[2,3]", "Variable shape: [3..4,3] Initialization shape: [2,3]"),
    ("f32", "[?,?]", "[1,2,3]", "Variable shape: [?,?] Initialization shape: [1,2,3]"),
    ("f32", "[?,3]", "[?,?]", "Variable shape: [?,3] Initialization shape: [?,?]"),
    ("i32", "[2,3]", "[2,3]", "Variable type: i32 Initialization type: f32"),
])
def test_read_value6_refuses_a_declaration_that_does_not_relax_the_init(et, shape, init_shape, message) -> None:
    with pytest.raises(InferenceError, match=re.escape(message)):
        _read_value("v", et, shape, opset.parameter(init_shape, "f32"))


def test_read_value3_and_assign_output_their_input() -> None:
    init = opset.parameter("[?,5]", "f32")
    rv = opset.make("ReadValue", init, version="opset3", variable_id="c")
    assert str(rv.tensor_type) == "f32[?,5]"
    assign = opset.make("Assign", rv, version="opset3", variable_id="c")
    assert str(assign.tensor_type) == "f32[?,5]"


# --- pairing rules -------------------------------------------------------------------------
def test_assign_without_read_value_is_refused() -> None:
    x = opset.parameter("[2]", "f32", name="x")
    assign = Node(Assign6(variable_id="orphan"), [x])
    model = graphir.Model([x], [x.node], sinks=[assign])
    with pytest.raises(GraphError, match="writes variable 'orphan', which no ReadValue declares"):
        model.variables
    with pytest.raises(GraphError, match="writes variable 'orphan'"):
        model.validate()
    with pytest.raises(GraphError, match="writes variable 'orphan'"):
        model.run({"x": np.zeros(2, np.float32)})


def test_assign_of_another_type_or_shape_is_refused() -> None:
    rv = _read_value("v", "f32", "[2,3]")
    bad_type = Node(Assign6(variable_id="v"), [opset.parameter("[2,3]", "i32")])
    with pytest.raises(GraphError, match="Input type: i32 Variable type: f32"):
        graphir.Model([rv.output(0)], sinks=[bad_type]).variables
    bad_shape = Node(Assign6(variable_id="v"), [opset.parameter("[4,3]", "f32")])
    with pytest.raises(GraphError, match=r"Input shape: \[4,3\] Variable shape: \[2,3\]"):
        graphir.Model([rv.output(0)], sinks=[bad_shape]).variables


def test_a_read_value_without_assign_is_allowed_and_reads_its_initial_value() -> None:
    rv = _read_value("v", "f32", "[2]")
    model = graphir.Model([opset.add(rv.output(0), np.float32(1))], [])
    assert [str(v) for v in model.variables] == ["v: f32[2]"] and model.sinks == []
    request = model.create_infer_request()
    assert request.infer()["Result" if False else list(request.infer())[0]].tolist() == [1.0, 1.0]


def test_assign_without_read_value_in_an_ir_file_is_refused(tmp_path: Path) -> None:
    text = (VARIABLES / "accumulate.xml").read_text().replace('<data variable_id="acc" />',
                                                              '<data variable_id="other" />')
    (tmp_path / "m.xml").write_text(text)
    (tmp_path / "m.bin").write_bytes((VARIABLES / "accumulate.bin").read_bytes())
    with pytest.raises(SerializationError, match=r"m\.xml: model 'accumulate': node \d+ 'Assign_5' \(Assign-opset6\).* "
                       r"writes variable 'other', which no ReadValue declares"):
        graphir.read_model(tmp_path / "m.xml")


# --- sinks are kept ------------------------------------------------------------------------
def test_sinks_survive_cloning_saving_and_reading(tmp_path: Path) -> None:
    model = _accumulator()
    assert [s.type_name for s in model.sinks] == ["Assign"]
    clone = model.clone()
    assert [s.type_name for s in clone.sinks] == ["Assign"] and clone.sinks[0] is not model.sinks[0]
    graphir.save_model(model, tmp_path / "acc.xml")
    again = graphir.read_model(tmp_path / "acc.xml")
    assert [s.type_name for s in again.sinks] == ["Assign"]
    assert [str(v) for v in again.variables] == ["acc: f32[2,3]"]


def test_files_openvino_wrote_round_trip_through_openvino(tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    for xml in FIXTURES:
        model = graphir.read_model(xml)
        graphir.save_model(model, tmp_path / xml.name)
        back = ov.Core().read_model(tmp_path / xml.name)
        ref = ov.Core().read_model(xml)
        assert len(back.get_sinks()) == len(ref.get_sinks()) > 0, xml.name
        assert sorted(v.get_info().variable_id for v in back.get_variables()) == \
            sorted(v.get_info().variable_id for v in ref.get_variables())
        assert [str(v.get_info().data_shape) for v in back.get_variables()] == \
            [str(v.get_info().data_shape) for v in ref.get_variables()]


# --- requests ------------------------------------------------------------------------------
def test_a_request_carries_state_and_run_does_not() -> None:
    model = _accumulator()
    x = np.ones((2, 3), np.float32)
    request = model.create_infer_request()
    assert request.infer({"x": x})[list(model.run({"x": x}))[0]].sum() == 6
    out = request.infer({"x": x})
    assert list(out.values())[0].sum() == 12
    assert list(model.run({"x": x}).values())[0].sum() == 6  # stateless: from the initial state
    [state] = request.query_state()
    assert state.name == "acc" and state.state.sum() == 12
    state.state = np.full((2, 3), 10, np.float32)
    assert list(request.infer({"x": x}).values())[0].sum() == 66
    state.reset()
    assert state.state.sum() == 0 and list(request.infer({"x": x}).values())[0].sum() == 6
    request.reset_state()
    assert request.query_state()[0].state.sum() == 0


def test_requests_on_one_model_keep_separate_state() -> None:
    model = _accumulator()
    a, b = model.create_infer_request(), model.create_infer_request()
    x = np.ones((2, 3), np.float32)
    for _ in range(3):
        a.infer({"x": x})
    b.infer({"x": x})
    assert a.query_state()[0].state[0, 0] == 3 and b.query_state()[0].state[0, 0] == 1


def test_setting_a_state_of_the_wrong_shape_is_refused() -> None:
    [state] = _accumulator().create_infer_request().query_state()
    with pytest.raises(InputError, match=r"state 'acc': expected shape \[2,3\], got \[3\]"):
        state.state = np.zeros(3, np.float32)


def test_a_failed_step_leaves_the_state_unchanged() -> None:
    model = _accumulator("[?,3]")
    request = model.create_infer_request()
    request.query_state()[0].state = np.ones((2, 3), np.float32)
    request.infer({"x": np.ones((2, 3), np.float32)})
    with pytest.raises(EvaluationError, match="Add"):
        request.infer({"x": np.ones((4, 3), np.float32)})  # [2,3] + [4,3]: no broadcast
    assert request.query_state()[0].state.tolist() == [[2.0] * 3] * 2


def test_no_init_and_dynamic_rank_has_no_initial_value() -> None:
    rv = _read_value("v", "f32", "...")
    model = graphir.Model([rv.output(0)], [])
    with pytest.raises(EvaluationError, match="variable 'v' .* has no init input and a dynamic rank"):
        model.run()


@pytest.mark.parametrize("xml", FIXTURES, ids=[x.stem for x in FIXTURES])
def test_three_steps_match_openvino(xml: Path) -> None:
    """Initial values (zeros; a dynamic dim starts at 0, as the CPU plugin gives), init
    subgraphs, i32 and f32 variables, ReadValue-3: three steps on one request vs OpenVINO."""
    ov = pytest.importorskip("openvino")
    model = graphir.read_model(xml)
    ref = ov.Core().compile_model(ov.Core().read_model(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    ours, theirs = model.create_infer_request(), ref.create_infer_request()
    param = model.parameters[0]
    rng = np.random.default_rng(3)
    first = {s.name: s.state.copy() for s in ours.query_state()}
    for step in range(3):
        rows = step + 1 if xml.stem == "grow" else 2  # a growing cache takes any number of rows
        shape = [d.get_length() if d.is_static else rows for d in param.op.shape]
        x = rng.standard_normal(shape).astype(np.float32)
        got, want = ours.infer({param.name: x}), theirs.infer({param.name: x})
        for value, ref_value in zip(got.values(), want.values()):
            np.testing.assert_allclose(value, ref_value, rtol=1e-6, atol=1e-6)
        states = {s.name: s.state.data for s in theirs.query_state()}
        assert [s.name for s in ours.query_state()] == [s.name for s in theirs.query_state()]
        for s in ours.query_state():
            np.testing.assert_allclose(s.state, states[s.name], rtol=1e-6, atol=1e-6)
    if xml.stem == "grow":  # no init: zeros with the dynamic dim at 0 before the first step
        assert {k: v.shape for k, v in first.items()} == {"k": (0, 3), "w": (0, 3)}


def test_editing_keeps_the_sinks() -> None:
    from graphir.convert import convert_model

    model = _accumulator()
    [assign] = model.sinks
    copy = convert_model(model, "openvino")  # same dialect: a copy
    assert [s.type_name for s in copy.sinks] == ["Assign"] and copy.sinks[0] is not assign
    x = np.ones((2, 3), np.float32)
    request = copy.create_infer_request()
    request.infer({"x": x})
    assert list(request.infer({"x": x}).values())[0].sum() == 12
    # an Assign no Result reads stays until removed on purpose
    extra_rv = _read_value("other", "f32", "[2]")
    extra = Node(Assign6(variable_id="other"), [opset.add(extra_rv.output(0), np.float32(1))])
    model.add_sinks([extra])
    assert [s.op.variable_id for s in model.sinks] == ["acc", "other"]
    assert [v.variable_id for v in model.variables] == ["acc", "other"]
    request = model.create_infer_request()
    request.infer({"x": x})
    request.infer({"x": x})
    assert {s.name: s.state.tolist() for s in request.query_state()}["other"] == [2.0, 2.0]
    model.remove_node(extra)
    assert [s.op.variable_id for s in model.sinks] == ["acc"]


@pytest.mark.parametrize("xml", FIXTURES, ids=[x.stem for x in FIXTURES])
def test_state_before_the_first_step_and_after_reset_is_openvinos(xml: Path) -> None:
    """OpenVINO's query_state before any inference and after reset(): zeros of the declared shape,
    dynamic dims 0, also for a variable with an init subgraph (whose value only a read gives)."""
    ov = pytest.importorskip("openvino")
    model = graphir.read_model(xml)
    ref = ov.Core().compile_model(ov.Core().read_model(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    ours, theirs = model.create_infer_request(), ref.create_infer_request()

    def same() -> None:
        want = {s.name: s.state.data.copy() for s in theirs.query_state()}
        got = {s.name: s.state for s in ours.query_state()}
        assert sorted(got) == sorted(want)
        for name, value in got.items():
            assert value.dtype == want[name].dtype and value.shape == want[name].shape
            np.testing.assert_array_equal(value, want[name])

    same()
    param = model.parameters[0]
    x = np.ones([d.get_length() if d.is_static else 2 for d in param.op.shape], np.float32)
    ours.infer({param.name: x})
    theirs.infer({param.name: x})
    same()
    for s in ours.query_state():
        s.reset()
    for s in theirs.query_state():
        s.reset()
    same()


_DECLARATIONS = [("f32", "[2,3]"), ("f32", "[?,3]"), ("f32", "[1..4,3]"), ("f32", "[3..4,3]"), ("f32", "[?,?]"),
                 ("f32", "..."), ("dynamic", "..."), ("dynamic", "[?,3]"), ("i32", "[2,3]"), ("f32", "[2,3,1]")]
_INITS = [("f32", "[2,3]"), ("f32", "[?,3]"), ("f32", "[?,?]"), ("f32", "..."), ("i32", "[2,3]"), ("f32", "[1,2,3]")]


@pytest.mark.parametrize(("var_type", "var_shape"), _DECLARATIONS)
def test_read_value6_inference_matches_openvino(var_type: str, var_shape: str) -> None:
    """Every declaration with every init (and none): the same output type/shape as OpenVINO's
    ReadValue-6, or an error where OpenVINO refuses (its relax checks)."""
    ov = pytest.importorskip("openvino")
    import openvino.opset6 as ops
    from openvino.op.util import Variable, VariableInfo

    ov_types = {"f32": ov.Type.f32, "i32": ov.Type.i32, "dynamic": ov.Type.dynamic}

    def ov_read_value(init_type: str | None, init_shape: str | None) -> str:
        info = VariableInfo()
        info.data_shape, info.data_type, info.variable_id = ov.PartialShape(var_shape), ov_types[var_type], "v"
        try:
            if init_type is None:
                node = ops.read_value(Variable(info))
            else:
                node = ops.read_value(ops.parameter(ov.PartialShape(init_shape), ov_types[init_type]), Variable(info))
        except RuntimeError:
            return "error"
        return f"{node.get_output_element_type(0).get_type_name()}{node.get_output_partial_shape(0)}"

    def ours(init_type: str | None, init_shape: str | None) -> str:
        init = None if init_type is None else opset.parameter(init_shape, init_type)
        try:
            return str(_read_value("v", var_type, var_shape, init).output_types[0])
        except InferenceError:
            return "error"

    cases = [(None, None)] + _INITS
    assert [ours(*c) for c in cases] == [ov_read_value(*c) for c in cases]


def test_the_readme_request_example_runs() -> None:
    import os
    import subprocess
    import sys

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    [code] = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "create_infer_request" in b]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["[Variable('acc', f32[2])]", "acc [2. 2.]"]
