"""TensorIterator-1, Loop-5 and If-8 against the real OpenVINO.

Fixtures in tests/fixtures/ir/control_flow/ were written by OpenVINO (tests/gen_control_flow_fixtures.py):
graphir reads each, infers the shapes OpenVINO reports, runs to OpenVINO CPU's values and writes IR
that OpenVINO reads and runs to the same values. Loop's iteration-count rules and If's constant
condition are checked on models built here with openvino's own builders; errors name the place.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import EvaluationError, GraphirError, InferenceError, UnsupportedOpError
from graphir.model import Model
from graphir.node import Node
from graphir.ops.openvino.control_flow import If, Loop, TensorIterator

from tests.tolerances import assert_close

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ir" / "control_flow"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.xml"))
OP_OF = {"ti_rnn": TensorIterator, "ti_parts": TensorIterator, "loop_counted": Loop, "loop_unbounded": Loop,
         "torch_loop": Loop, "if_shapes": If, "torch_if": If, "onnx_scan": TensorIterator}
F32 = {"INFERENCE_PRECISION_HINT": "f32"}


def _inputs(name: str) -> list[np.ndarray]:
    with np.load(FIXTURES / f"{name}_inputs.npz") as data:
        return [data[k] for k in data.files]


def _ov_outputs(ov: Any, model_or_path: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(model_or_path if not isinstance(model_or_path, Path) else str(model_or_path),
                                       "CPU", F32)
    result = compiled(inputs)
    return [np.asarray(result[o]) for o in compiled.outputs]


def _ov_types(model: Any) -> list[str]:
    return [f"{o.get_element_type().get_type_name()}{o.get_partial_shape()}".replace(" ", "") for o in model.outputs]


def _our_types(model: Model) -> list[str]:
    return [str(r.output_types[0]) for r in model.get_results()]


def test_every_fixture_is_listed() -> None:
    assert set(NAMES) == set(OP_OF), "regenerate fixtures or update OP_OF"


# --- fixtures written by OpenVINO -------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_reads_with_bodies_and_infers_openvino_shapes(ov: Any, name: str) -> None:
    model = graphir.read_model(FIXTURES / f"{name}.xml")
    nodes = [n for n in model.nodes() if isinstance(n.op, OP_OF[name])]
    assert len(nodes) == 1
    op = nodes[0].op
    bodies = [op.then_body, op.else_body] if isinstance(op, If) else [op.body]
    assert all(isinstance(b, Model) and b.get_results() for b in bodies)
    model.infer_shapes()
    assert _our_types(model) == _ov_types(ov.Core().read_model(str(FIXTURES / f"{name}.xml")))


@pytest.mark.parametrize("name", NAMES)
def test_values_match_openvino_cpu(ov: Any, name: str) -> None:
    inputs = _inputs(name)
    ours = list(graphir.read_model(FIXTURES / f"{name}.xml").run(inputs).values())
    theirs = _ov_outputs(ov, FIXTURES / f"{name}.xml", inputs)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        assert_close(a, b)


@pytest.mark.parametrize("name", NAMES)
def test_openvino_runs_what_graphir_writes(ov: Any, name: str, tmp_path: Path) -> None:
    inputs = _inputs(name)
    model = graphir.read_model(FIXTURES / f"{name}.xml")
    graphir.save_model(model, tmp_path / "w.xml")
    theirs = _ov_outputs(ov, FIXTURES / f"{name}.xml", inputs)
    again = _ov_outputs(ov, tmp_path / "w.xml", inputs)
    for a, b in zip(again, theirs):
        np.testing.assert_array_equal(a, b)
    written = ov.Core().read_model(str(tmp_path / "w.xml"))
    assert _ov_types(written) == _ov_types(ov.Core().read_model(str(FIXTURES / f"{name}.xml")))
    # and graphir reads its own file back to the same types and values
    back = graphir.read_model(tmp_path / "w.xml")
    assert _our_types(back) == _our_types(model)
    for a, b in zip(back.run(inputs).values(), model.run(inputs).values()):
        np.testing.assert_array_equal(a, b)


def test_tensor_iterator_reverse_slices_and_concat_by_hand() -> None:
    """ti_parts: x[6,?] sliced 2 rows at a time; the concat output reverses the order (stride -2)."""
    x, acc0 = _inputs("ti_parts")
    out = graphir.read_model(FIXTURES / "ti_parts.xml").run([x, acc0])
    np.testing.assert_allclose(out["total"], acc0 + x.sum(axis=0, keepdims=True), rtol=1e-6)
    expected = np.concatenate([x[4:6] * 2, x[2:4] * 2, x[0:2] * 2])
    np.testing.assert_array_equal(out["parts"], expected)


def test_loop_counted_stops_on_body_condition() -> None:
    """loop_counted: acc += x * i, continue while i < 3 -> runs i = 0..3 (4 of 6 trips)."""
    x, acc0 = _inputs("loop_counted")
    out = graphir.read_model(FIXTURES / "loop_counted.xml").run([x, acc0])
    steps = np.stack([acc0 + x * sum(range(k + 1)) for k in range(4)])
    np.testing.assert_allclose(out["steps"], steps, rtol=1e-6)
    np.testing.assert_allclose(out["acc"], steps[-1], rtol=1e-6)


def test_reshape_tensor_iterator_follows_openvino(ov: Any) -> None:
    path = str(FIXTURES / "ti_parts.xml")
    for shape in ([6, 5], [4, 2], [-1, 5]):
        ours = graphir.read_model(path)
        theirs = ov.Core().read_model(path)
        ours.reshape({"x": shape})
        theirs.reshape({"x": shape})
        assert _our_types(ours) == _ov_types(theirs), shape


# --- Loop iteration-count rules, differential ----------------------------------------------------
def _ov_loop(ov: Any, trip: int, first: bool, body_cond: bool | None) -> Any:
    op1, op8 = ov.opset1, ov.opset8
    x = op1.parameter([2], np.float32, name="x")
    xb = op1.parameter([2], np.float32, name="xb")
    nxt = op1.add(xb, op1.constant(np.float32(1)))
    if body_cond is None:
        cond = op1.less(op1.reduce_sum(nxt, op1.constant(np.int64(0))), op1.constant(np.float32(20)))
    else:
        cond = op1.constant(np.bool_(body_cond))
    rc, rx = op1.result(cond), op1.result(nxt)
    rs = op1.result(op1.unsqueeze(nxt, op1.constant(np.int64(0))))
    loop = op8.loop(op1.constant(np.int64(trip)), op1.constant(np.bool_(first)))
    loop.set_function(ov.Model([rc, rx, rs], [xb]))
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(xb, x.output(0), rx.output(0))
    last = loop.get_iter_value(rx.output(0), -1)
    seq = loop.get_concatenated_slices(rs.output(0), 0, 1, 1, -1, 0)
    return ov.Model([op1.result(last), op1.result(seq)], [x], "loop")


@pytest.mark.parametrize("trip, body_cond", [(4, True), (1, True), (4, False), (-1, None), (5, None)])
def test_loop_iteration_count_rules_match_openvino(ov: Any, tmp_path: Path, trip: int, body_cond: bool | None) -> None:
    model = _ov_loop(ov, trip, True, body_cond)
    ov.save_model(model, str(tmp_path / "l.xml"))
    ours = graphir.read_model(tmp_path / "l.xml")
    assert _our_types(ours) == _ov_types(model)
    x = np.array([1, 2], np.float32)
    for a, b in zip(ours.run([x]).values(), _ov_outputs(ov, model, [x])):
        np.testing.assert_array_equal(a, b)


def test_loop_that_never_starts_gives_initial_values(ov: Any, tmp_path: Path) -> None:
    """execution_condition false: zero iterations. (OpenVINO infers [0] for every output here and
    its CPU plugin refuses to compile it; graphir keeps the body's shapes with 0 concatenated parts.)"""
    ov.save_model(_ov_loop(ov, 4, False, True), str(tmp_path / "l.xml"))
    ours = graphir.read_model(tmp_path / "l.xml")
    assert _our_types(ours) == ["f32[2]", "f32[0,2]"]
    out = list(ours.run([np.array([1, 2], np.float32)]).values())
    np.testing.assert_array_equal(out[0], [1, 2])
    assert out[1].shape == (0, 2)


# --- If -------------------------------------------------------------------------------------------
def _branches() -> tuple[Model, Model]:
    tp = opset.parameter("[2,3]", "f32", name="tp")
    then_body = Model([opset.add(tp, opset.constant(np.float32(1)))], [tp], name="then")
    ep = opset.parameter("[2,3]", "f32", name="ep")
    eq = opset.parameter("[2,3]", "f32", name="eq")
    else_body = Model([opset.concat([ep, eq], axis=0)], [ep, eq], name="else")
    return then_body, else_body


def _if(cond: Any, x: Any, y: Any, then_body: Model, else_body: Model) -> Any:
    return opset.make(
        "If", cond, x, y, name="branch", then_body=then_body, else_body=else_body,
        then_input_descriptions=[{"external_port_id": 1, "internal_layer_id": then_body.get_parameters()[0].id}],
        then_output_descriptions=[{"external_port_id": 3, "internal_layer_id": then_body.get_results()[0].id}],
        else_input_descriptions=[{"external_port_id": 1, "internal_layer_id": else_body.get_parameters()[0].id},
                                 {"external_port_id": 2, "internal_layer_id": else_body.get_parameters()[1].id}],
        else_output_descriptions=[{"external_port_id": 3, "internal_layer_id": else_body.get_results()[0].id}])


def test_if_built_in_graphir_runs_in_openvino(ov: Any, tmp_path: Path) -> None:
    cond = opset.parameter("[]", "boolean", name="cond")
    x = opset.parameter("[2,3]", "f32", name="x")
    y = opset.parameter("[2,3]", "f32", name="y")
    out = _if(cond, x, y, *_branches())
    assert str(out.tensor_type) == "f32[2..4,3]"
    model = Model([out], [cond, x, y], name="built_if")
    graphir.save_model(model, tmp_path / "if.xml")
    rng = np.random.default_rng(3)
    xs, ys = rng.standard_normal((2, 2, 3), dtype=np.float32)
    for c in (True, False):
        ours = list(model.run([np.bool_(c), xs, ys]).values())[0]
        theirs = _ov_outputs(ov, tmp_path / "if.xml", [np.array(c), xs, ys])[0]
        np.testing.assert_array_equal(ours, theirs)
        np.testing.assert_array_equal(ours, xs + 1 if c else np.concatenate([xs, ys]))


@pytest.mark.parametrize("value", [True, False])
def test_if_with_constant_condition_takes_one_branch_shape(ov: Any, tmp_path: Path, value: bool) -> None:
    x = opset.parameter("[2,3]", "f32", name="x")
    y = opset.parameter("[2,3]", "f32", name="y")
    out = _if(opset.constant(np.array([value])), x, y, *_branches())
    model = Model([out], [x, y], name="const_if")
    assert str(out.tensor_type) == ("f32[2,3]" if value else "f32[4,3]")
    graphir.save_model(model, tmp_path / "c.xml")
    assert _ov_types(ov.Core().read_model(str(tmp_path / "c.xml"))) == [str(out.tensor_type)]


def test_if_branch_type_conflict_names_both_types() -> None:
    then_body, _ = _branches()
    ep = opset.parameter("[2,3]", "f32", name="ep")
    eq = opset.parameter("[2,3]", "f32", name="eq")
    else_body = Model([opset.convert(ep, destination_type="i32")], [ep, eq])
    cond = opset.parameter("[]", "boolean", name="cond")
    x = opset.parameter("[2,3]", "f32", name="x")
    with pytest.raises(InferenceError, match=r"'branch' \(If-opset8\).*output 0: then_body gives f32, else_body gives i32"):
        _if(cond, x, x, then_body, else_body)


def test_if_condition_rank_must_be_0_or_1() -> None:
    """OpenVINO 2026.4 checks the condition's rank only: [0] and [2] build (its if_body_without_parameters
    test IR has a [0] condition), [2,1] does not."""
    x = opset.parameter("[2,3]", "f32", name="x")
    for shape in ("[0]", "[2]", "[1]", "[]"):
        _if(opset.parameter(shape, "boolean", name="cond"), x, x, *_branches())
    cond = opset.parameter("[2,1]", "boolean", name="cond")
    with pytest.raises(InferenceError, match=r"Rank of If condition input must be equal to 0 or 1, got boolean\[2,1\]"):
        _if(cond, x, x, *_branches())


# --- errors name the place --------------------------------------------------------------------------
def test_bad_port_map_names_the_layer_id() -> None:
    model = graphir.read_model(FIXTURES / "ti_rnn.xml")
    node = next(n for n in model.nodes() if isinstance(n.op, TensorIterator))
    descs = [dict(d) for d in node.op.input_descriptions]
    descs[2]["internal_layer_id"] = 99
    version = model.version
    with pytest.raises(InferenceError, match=rf"node {node.id} 'TensorIterator_21'.*port_map input 2: "
                                             r"internal_layer_id=99 is not a Parameter of the body"):
        node.set_attribute("input_descriptions", descs)  # validated and re-inferred at once
    assert node.op.input_descriptions[2]["internal_layer_id"] != 99 and model.version == version


def test_inconsistent_slices_are_an_error(ov: Any, tmp_path: Path) -> None:
    model = graphir.read_model(FIXTURES / "ti_rnn.xml")
    with pytest.raises(GraphirError, match=r"sliced inputs give different iteration counts \(5 and 4"):
        model.reshape({"r": [2, 4, 4]})
    assert _our_types(model) == ["f32[2,4]", "f32[2,5,4]"]  # rolled back


def test_body_inference_error_names_inner_node() -> None:
    model = graphir.read_model(FIXTURES / "ti_rnn.xml")
    with pytest.raises(InferenceError, match=r"TensorIterator body: node \d+ '.*' \(MatMul"):
        model.reshape({"w": [5, 4]})


def test_loop_condition_shape_is_checked() -> None:
    model = graphir.read_model(FIXTURES / "loop_counted.xml")
    loop = next(n for n in model.nodes() if isinstance(n.op, Loop))
    loop.set_input(1, opset.constant(np.array([True, False])))
    with pytest.raises(InferenceError, match=r"input 1 \('execution_condition'\) must be a scalar or \[1\], got boolean\[2\]"):
        loop.infer()


def test_body_runtime_failure_is_wrapped() -> None:
    model = graphir.read_model(FIXTURES / "if_shapes.xml")
    node = next(n for n in model.nodes() if isinstance(n.op, If))
    node.set_attribute("else_input_descriptions", node.op.else_input_descriptions[:1])  # 'ey' left unfed
    with pytest.raises(EvaluationError, match=r"else_body parameters \['ey'\] receive no input"):
        model.run(_inputs("if_shapes"))


def test_special_body_ports_and_schema() -> None:
    model = graphir.read_model(FIXTURES / "loop_counted.xml")
    loop = next(n for n in model.nodes() if isinstance(n.op, Loop)).op
    assert loop.special_body_ports == (0, 0)
    unbounded = graphir.read_model(FIXTURES / "loop_unbounded.xml")
    assert next(n for n in unbounded.nodes() if isinstance(n.op, Loop)).op.special_body_ports == (-1, 0)
    for cls in (TensorIterator, Loop, If):
        props = cls.model_json_schema()["properties"]
        assert "body" not in props and "then_body" not in props
        assert any(k.endswith("input_descriptions") for k in props)


def test_node_copy_copies_the_body() -> None:
    model = graphir.read_model(FIXTURES / "ti_rnn.xml")
    node = next(n for n in model.nodes() if isinstance(n.op, TensorIterator))
    clone: Node = node.copy()
    assert clone.op.body is not node.op.body
    assert [n.type_name for n in clone.op.body.get_ordered_ops()] == [n.type_name for n in node.op.body.get_ordered_ops()]


@pytest.mark.parametrize("name", NAMES)
def test_write_is_canonical_equal_to_openvino(name: str, tmp_path: Path) -> None:
    """Including the port_map order: OpenVINO writes Loop's special ports (purpose=...) last."""
    from tests.ir_helpers import canonical, first_difference

    xml = FIXTURES / f"{name}.xml"
    graphir.save_model(graphir.read_model(xml), tmp_path / "out.xml")
    assert (tmp_path / "out.bin").read_bytes() == xml.with_suffix(".bin").read_bytes()
    diff = first_difference(canonical(xml), canonical(tmp_path / "out.xml"))
    assert diff is None, diff


# --- TensorIterator slicing grid, differential ----------------------------------------------------
def _ov_ti(ov: Any, axis: int, part: int, forward_in: bool, forward_out: bool) -> Any:
    op1, op8 = ov.opset1, ov.opset8
    x = op1.parameter([4, 6], np.float32, name="x")
    h0 = op1.parameter([1], np.float32, name="h0")
    part_shape = [part if i == axis % 2 else n for i, n in enumerate([4, 6])]
    xt = op1.parameter(part_shape, np.float32, name="xt")
    ht = op1.parameter([1], np.float32, name="ht")
    h_new = op1.add(op1.multiply(ht, op1.constant(np.float32(0.5))),
                    op1.reduce_sum(xt, op1.constant(np.array([0, 1], np.int64)), False))
    rh = op1.result(op1.reshape(h_new, op1.constant(np.array([1], np.int64)), False))
    ry = op1.result(op1.multiply(xt, h_new))
    ti = op8.tensor_iterator()
    ti.set_body(ov.Model([rh, ry], [xt, ht]))
    start, stride, end = (0, part, -1) if forward_in else (-1, -part, 0)
    ti.set_sliced_input(xt, x.output(0), start, stride, part, end, axis)
    ti.set_merged_input(ht, h0.output(0), rh.output(0))
    last = ti.get_iter_value(rh.output(0), -1)
    start, stride, end = (0, part, -1) if forward_out else (-1, -part, 0)
    seq = ti.get_concatenated_slices(ry.output(0), start, stride, part, end, axis)
    return ov.Model([op1.result(last), op1.result(seq)], [x, h0], "grid")


@pytest.mark.parametrize("axis, part, forward_in, forward_out", [
    (0, 1, True, True), (0, 2, True, False), (1, 3, False, True), (1, 2, False, False),
    (-1, 1, True, False), (-2, 4, False, True),
])
def test_tensor_iterator_slicing_grid_matches_openvino(ov: Any, tmp_path: Path, axis: int, part: int,
                                                       forward_in: bool, forward_out: bool) -> None:
    model = _ov_ti(ov, axis, part, forward_in, forward_out)
    ov.save_model(model, str(tmp_path / "g.xml"))
    ours = graphir.read_model(tmp_path / "g.xml")
    assert _our_types(ours) == _ov_types(model)
    rng = np.random.default_rng((axis % 2) * 10 + part)
    inputs = [rng.standard_normal((4, 6), dtype=np.float32), np.array([0.25], np.float32)]
    # the CPU plugin refuses negative iteration axes: run the same model with the axis normalised
    reference = model if axis >= 0 else _ov_ti(ov, axis % 2, part, forward_in, forward_out)
    for a, b in zip(ours.run(inputs).values(), _ov_outputs(ov, reference, inputs)):
        assert_close(a, b)


# --- Loop over a sliced input ----------------------------------------------------------------------
def _ov_sliced_loop(ov: Any, trip: int) -> Any:
    op1, op8 = ov.opset1, ov.opset8
    x = op1.parameter([5, 3], np.float32, name="x")
    xb = op1.parameter([1, 3], np.float32, name="xb")
    y = op1.multiply(xb, op1.constant(np.float32(3)))
    rc, ry = op1.result(op1.constant(np.bool_(True))), op1.result(y)
    loop = op8.loop(op1.constant(np.int64(trip)), op1.constant(np.bool_(True)))
    loop.set_function(ov.Model([rc, ry], [xb]))
    loop.set_special_body_ports([-1, 0])
    loop.set_sliced_input(xb, x.output(0), 0, 1, 1, -1, 0)
    seq = loop.get_concatenated_slices(ry.output(0), 0, 1, 1, -1, 0)
    last = loop.get_iter_value(ry.output(0), -1)
    return ov.Model([op1.result(seq), op1.result(last)], [x], "sliced_loop")


def test_loop_over_sliced_input_matches_openvino(ov: Any, tmp_path: Path) -> None:
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    model = _ov_sliced_loop(ov, 2)
    ov.save_model(model, str(tmp_path / "s.xml"))
    ours = graphir.read_model(tmp_path / "s.xml")
    assert _our_types(ours) == _ov_types(model) == ["f32[2,3]", "f32[1,3]"]
    for a, b in zip(ours.run([x]).values(), _ov_outputs(ov, model, [x])):
        np.testing.assert_array_equal(a, b)


def test_loop_running_out_of_slices_fails_like_openvino(ov: Any, tmp_path: Path) -> None:
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    model = _ov_sliced_loop(ov, 10)
    ov.save_model(model, str(tmp_path / "s.xml"))
    ours = graphir.read_model(tmp_path / "s.xml")
    assert _our_types(ours) == _ov_types(model) == ["f32[10,3]", "f32[1,3]"]
    with pytest.raises(RuntimeError, match="iter < iter_count"):
        _ov_outputs(ov, model, [x])
    with pytest.raises(EvaluationError, match=r"'Loop_\d+' \(Loop-opset5\).*iteration 5 needs part 5 of the "
                                              r"sliced input for body parameter 'xb', which has only 5"):
        ours.run([x])


def test_body_with_an_op_graphir_lacks_still_loads(ov: Any, tmp_path: Path) -> None:
    """An opaque op inside a body keeps its recorded types; only the branch that needs it fails."""
    op1, op8 = ov.opset1, ov.opset8
    x = op1.parameter([1, 1, 4, 4], np.float32, name="x")
    cond = op1.parameter([], np.bool_, name="cond")
    tx = op1.parameter([1, 1, 4, 4], np.float32)
    then_body = ov.Model([op1.result(ov.opset3.extract_image_patches(tx, [2, 2], [2, 2], [1, 1], "valid"))], [tx])
    ex = op1.parameter([1, 1, 4, 4], np.float32)
    else_body = ov.Model([op1.result(op1.reshape(ex, op1.constant(np.array([1, 4, 2, 2])), False))], [ex])
    node = op8.if_op(cond)
    node.set_then_body(then_body)
    node.set_else_body(else_body)
    node.set_input(x.output(0), tx, ex)
    out = node.set_output(then_body.get_results()[0], else_body.get_results()[0])
    ov.save_model(ov.Model([op1.result(out, name="out")], [x, cond]), str(tmp_path / "o.xml"))
    xml = tmp_path / "o.xml"  # an extension op: a type and opset graphir does not know
    xml.write_text(xml.read_text().replace('type="ExtractImagePatches" version="opset3"',
                                           'type="CustomImagePatches" version="extension"'))
    model = graphir.read_model(tmp_path / "o.xml")
    assert _our_types(model) == ["f32[1,4,2,2]"]
    xs = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(model.run([xs, np.bool_(False)])["out"], xs.reshape(1, 4, 2, 2))
    with pytest.raises(UnsupportedOpError, match=r"type=CustomImagePatches version=extension: .*cannot run"):
        model.run([xs, np.bool_(True)])


def test_merged_input_from_a_constant_does_not_fold_the_condition(ov: Any, tmp_path: Path) -> None:
    """A counter merged from constant 0 changes every iteration: the body condition (counter+1 < 3)
    is no constant, so the concatenated length stays dynamic (OpenVINO: [?,2]) and the loop runs 3 times."""
    op1, op8 = ov.opset1, ov.opset8
    x = op1.parameter([2], np.float32, name="x")
    cb, xb = op1.parameter([1], np.int64), op1.parameter([2], np.float32)
    c1 = op1.add(cb, op1.constant(np.array([1], np.int64)))
    rc = op1.result(op1.squeeze(op1.less(c1, op1.constant(np.array([3], np.int64))), op1.constant(np.array([0]))))
    rcnt, rx = op1.result(c1), op1.result(op1.add(xb, op1.constant(np.float32(1))))
    rs = op1.result(op1.unsqueeze(rx.input_value(0), op1.constant(np.array([0]))))
    loop = op8.loop(op1.constant(np.int64(10)), op1.constant(True))
    loop.set_function(ov.Model([rc, rcnt, rx, rs], [cb, xb]))
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(cb, op1.constant(np.array([0], np.int64)).output(0), rcnt.output(0))
    loop.set_merged_input(xb, x.output(0), rx.output(0))
    model = ov.Model([op1.result(loop.get_concatenated_slices(rs.output(0), 0, 1, 1, -1, 0))], [x], "counter")
    ov.save_model(model, str(tmp_path / "c.xml"))
    ours = graphir.read_model(tmp_path / "c.xml")
    assert _our_types(ours) == _ov_types(model) == ["f32[?,2]"]
    xs = np.array([0.5, -1], np.float32)
    got = list(ours.run([xs]).values())[0]
    np.testing.assert_array_equal(got, _ov_outputs(ov, model, [xs])[0])
    assert got.shape == (3, 2)
