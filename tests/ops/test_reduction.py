"""Reduce* ops (axes input, keep_dims, negative/repeated axes, dynamic shapes) against OpenVINO."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError
from tests.ops.test_nn_oracle import diff, rand

OPS = ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"]
AXES = [[0], [1, 2], [-1], [0, 1, 2], [], [2, -1]]


def _ov_builder(name: str):  # noqa: ANN202
    from openvino import opset13 as ops

    snake = {"ReduceL1": "reduce_l1", "ReduceL2": "reduce_l2"}.get(name) or (
        "reduce_" + name[len("Reduce"):].lower())
    return getattr(ops, snake)


@pytest.mark.parametrize("name,axes,keep", list(itertools.product(OPS, AXES, [False, True])))
def test_reduction_matches_openvino(ov, name: str, axes: list[int], keep: bool) -> None:
    from openvino import opset13 as ops

    a = np.array(axes, dtype=np.int64)
    x = rand([2, 3, 4], low=0.5, high=1.5) if name == "ReduceProd" else rand([2, 3, 4])
    # the CPU plugin cannot compile an empty-axes reduction: compare shapes there, values elsewhere
    got = diff(ov, lambda p: opset.make(name, p, a, keep_dims=keep),
               lambda p: _ov_builder(name)(p, ops.constant(a), keep), [("[2,3,4]", "f32")], None if not axes else [x])
    if not axes:
        from graphir.model import Model

        p = opset.parameter("[2,3,4]")
        out = list(Model([opset.make(name, p, a, keep_dims=keep)], [p]).run([x]).values())[0]
        expected = np.abs(x) if name in ("ReduceL1", "ReduceL2") else x
        np.testing.assert_allclose(out, expected, rtol=1e-6)


@pytest.mark.parametrize("name", ["ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"])
def test_integer_reduction_matches_openvino(ov, name: str) -> None:
    from openvino import opset13 as ops

    a = np.array([1], dtype=np.int64)
    diff(ov, lambda p: opset.make(name, p, a, keep_dims=False),
         lambda p: _ov_builder(name)(p, ops.constant(a), False), [("[3,4]", "i32")], [rand([3, 4], "i32", low=-3, high=3)])


def test_integer_reduce_l2_truncates_as_openvino_2026(ov) -> None:
    """op_reference (2022) expects ReduceL2 on i32/u64 to round (sqrt(61) = 7.8 -> 8); OpenVINO
    2026.4's CPU plugin truncates (7), has no integer reference kernel, and graphir matches it."""
    from openvino import opset13 as ops

    x = np.arange(1, 13, dtype=np.int32).reshape(3, 2, 2)
    a = np.array([2], dtype=np.int64)
    got = diff(ov, lambda p: opset.reduce_l2(p, a, keep_dims=True),
               lambda p: ops.reduce_l2(p, ops.constant(a), True), [("[3,2,2]", "i32")], [x])
    np.testing.assert_array_equal(got[0].reshape(-1), [2, 5, 7, 10, 13, 16])


@pytest.mark.parametrize("name", ["ReduceLogicalAnd", "ReduceLogicalOr"])
@pytest.mark.parametrize("keep", [False, True])
def test_logical_reduction_matches_openvino(ov, name: str, keep: bool) -> None:
    from openvino import opset13 as ops

    a = np.array([0, 2], dtype=np.int64)
    fn = ops.reduce_logical_and if name == "ReduceLogicalAnd" else ops.reduce_logical_or
    diff(ov, lambda p: opset.make(name, p, a, keep_dims=keep), lambda p: fn(p, ops.constant(a), keep),
         [("[2,3,4]", "boolean")], [rand([2, 3, 4], "boolean")])


@pytest.mark.parametrize("data,axes_shape,keep", [
    ("[?,3,1..5]", None, False), ("[?,3,1..5]", None, True), ("[...]", None, True),
    ("[2,3,4]", "[2]", False), ("[2,3,4]", "[2]", True), ("[2,3,4]", "[]", False),
])
def test_reduction_dynamic_shapes_match_openvino(ov, data: str, axes_shape: str | None, keep: bool) -> None:
    from openvino import opset13 as ops

    if axes_shape is None:
        a = np.array([-1], dtype=np.int64)
        diff(ov, lambda p: opset.reduce_mean(p, a, keep_dims=keep),
             lambda p: ops.reduce_mean(p, ops.constant(a), keep), [(data, "f32")])
    else:
        diff(ov, lambda p, q: opset.reduce_mean(p, q, keep_dims=keep),
             lambda p, q: ops.reduce_mean(p, q, keep), [(data, "f32"), (axes_shape, "i64")])


def test_reduction_folds_constants_for_shape_subgraphs() -> None:
    out = opset.reduce_prod(opset.constant(np.array([2, 3, 4], np.int64)), np.array([0]), keep_dims=True)
    assert out.tensor_type.value is not None and out.tensor_type.value.tolist() == [24]


def test_reduction_axis_out_of_range_names_the_shapes() -> None:
    with pytest.raises(InferenceError, match=r"axes value 3 is out of the range \[-3, 2\].*\[2,3,4\]"):
        opset.reduce_sum(opset.parameter("[2,3,4]"), np.array([3]), keep_dims=False)
