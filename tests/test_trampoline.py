"""Nested work without nested calls (graphir.trampoline), and the bodies built on it.

Bodies nested far past Python's recursion limit (1,000 If levels, built here with graphir's own
builders) run, infer, reshape, clone and save; OpenVINO's own files of 590 nested Ifs are in
tests/hostile_cases.py.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import EvaluationError, InferenceError, SerializationError
from graphir.model import Model
from graphir.trampoline import Task, drive


def _count_down(n: int) -> Task[int]:
    if n == 0:
        return 0
    return 1 + (yield _count_down(n - 1))


def test_drive_runs_tasks_nested_far_past_the_recursion_limit() -> None:
    depth = sys.getrecursionlimit() * 20
    assert drive(_count_down(depth)) == depth


def _failing(n: int) -> Task[int]:
    if n == 0:
        raise ValueError("innermost")
    return (yield _failing(n - 1))


def _catching(n: int) -> Task[str]:
    try:
        yield _failing(n)
    except ValueError as exc:
        return f"caught {exc}"
    return "not raised"


def test_an_inner_failure_is_raised_at_the_yield_of_each_task_above_it() -> None:
    assert drive(_catching(5_000)) == "caught innermost"
    with pytest.raises(ValueError, match="innermost"):
        drive(_failing(5_000))


def _nested_ifs(depth: int, innermost: Any = None) -> Model:
    """``depth`` Ifs, each then-body holding the next (the innermost: Relu, or ``innermost(x)``)."""
    x = opset.parameter([2], "f32", name="x0")
    model = Model([opset.relu(x) if innermost is None else innermost(x)], [x], name="m0")
    for level in range(1, depth + 1):
        x = opset.parameter([2], "f32", name=f"x{level}")
        xe = opset.parameter([2], "f32", name=f"e{level}")
        other = Model([opset.negative(xe)], [xe], name=f"else{level}")
        out = opset.make(
            "If", opset.constant(np.bool_(True)), x, then_body=model, else_body=other,
            then_input_descriptions=[{"external_port_id": 1, "internal_layer_id": model.get_parameters()[0].id}],
            then_output_descriptions=[{"external_port_id": 2, "internal_layer_id": model.get_results()[0].id}],
            else_input_descriptions=[{"external_port_id": 1, "internal_layer_id": xe.node.id}],
            else_output_descriptions=[{"external_port_id": 2, "internal_layer_id": other.get_results()[0].id}])
        model = Model([out], [x], name=f"m{level}")
    return model


def _integer_division(x: Any) -> Any:
    """x // x in i32, back to f32: a run fails where x holds a zero."""
    as_int = opset.convert(x, destination_type="i32")
    return opset.convert(opset.divide(as_int, as_int), destination_type="f32")


def _depth(model: Model) -> int:
    depth = 0
    while True:
        ifs = [n for n in model.nodes() if n.type_name == "If"]
        if not ifs:
            return depth
        depth, model = depth + 1, ifs[0].op.then_body


def test_a_thousand_nested_bodies_run_reshape_and_clone() -> None:
    model = _nested_ifs(1_000)
    assert model.run({"x1000": np.array([1, -2], np.float32)})[model.get_results()[0].name].tolist() == [1, 0]
    model.reshape({"x1000": [3]})
    assert str(model.get_results()[0].output_types[0]) == "f32[3]"
    out = model.run({"x1000": np.array([1, -2, 3], np.float32)})
    assert next(iter(out.values())).tolist() == [1, 0, 3]
    copy = model.clone()
    assert _depth(copy) == 1_000
    assert next(iter(copy.run({"x1000": np.array([-1, 5, -3], np.float32)}).values())).tolist() == [0, 5, 0]


def test_bodies_nested_500_deep_save_and_read_back(tmp_path: Path) -> None:
    model = _nested_ifs(500)
    graphir.save_model(model, tmp_path / "deep.xml")
    again = graphir.read_model(tmp_path / "deep.xml")
    assert _depth(again) == 500
    assert next(iter(again.run({"x500": np.array([4, -4], np.float32)}).values())).tolist() == [4, 0]


def test_a_run_failure_deep_inside_names_outermost_depth_and_innermost() -> None:
    model = _nested_ifs(50, _integer_division)
    with pytest.raises(EvaluationError) as info:
        model.run({"x50": np.array([1, 0], np.float32)})
    message = str(info.value)
    assert message.startswith("node ") and "(If-opset8) failed on inputs (bool[], float32[2]): 50 nested bodies down: " in message
    assert "(Divide-opset1) failed on inputs (int32[2], int32[2]): " in message
    assert message.endswith("integer division by zero (input 1 ('B') has a zero)")
    assert message.count("If-opset8") == 1


def test_a_run_failure_a_few_bodies_down_shows_every_level() -> None:
    model = _nested_ifs(2, _integer_division)
    with pytest.raises(EvaluationError) as info:
        model.run({"x2": np.array([1, 0], np.float32)})
    assert str(info.value).count("(If-opset8) failed on inputs (bool[], float32[2]): ") == 2


def test_an_inference_failure_deep_inside_names_the_inner_node() -> None:
    model = _nested_ifs(700, lambda x: opset.add(x, opset.constant(np.array([1, 2], np.float32))))
    with pytest.raises(InferenceError) as info:
        model.reshape({"x700": [3]})
    message = str(info.value)
    assert message.startswith("node ") and "(If-opset8), inputs (boolean[], f32[3]): If then_body: " in message
    assert message.endswith("(Add-opset1), inputs (f32[3], f32[2]): openvino::Add-opset1: Argument shapes are "
                            "inconsistent: input 0 ('A') [3] and input 1 ('B') [2] (numpy: right-aligned, each "
                            "dim equal or 1)")
    assert len(message) <= 4_100  # over 4,000 characters a message keeps its head and tail


def test_reading_past_the_nesting_limit_is_a_named_error(tmp_path: Path) -> None:
    graphir.save_model(_nested_ifs(650), tmp_path / "deeper.xml")
    with pytest.raises(SerializationError, match="nested more than 600 levels deep"):
        graphir.read_model(tmp_path / "deeper.xml")


def test_a_thousand_nested_bodies_draw_as_nested_clusters() -> None:
    from graphir.drawing.dot import to_dot
    from graphir.drawing.scene import build_scene

    scene = build_scene(_nested_ifs(1_000))
    assert len(scene.clusters) == 2_000  # a then- and an else-body per If
    dot = to_dot(scene)
    assert dot.count("subgraph cluster_") == 2_000
    deepest = max(len(line) - len(line.lstrip(" ")) for line in dot.splitlines())
    assert deepest == 2 + 2 * 1_000  # each cluster indents its members two more spaces


def test_draw_output_of_a_shallow_body_is_unchanged_by_the_tasks() -> None:
    from graphir.drawing.dot import to_dot
    from graphir.drawing.scene import build_scene

    dot = to_dot(build_scene(_nested_ifs(2)))
    clusters = [line.strip() for line in dot.splitlines() if line.strip().startswith("subgraph")]
    assert len(clusters) == 4
    # the then-body of the outer If holds the inner If's clusters: they open before it closes
    assert clusters[0].endswith("then_body {") and clusters[1].endswith("then_body {")
