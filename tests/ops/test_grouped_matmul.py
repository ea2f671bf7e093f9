"""GroupedMatMul-17 against OpenVINO 2026's type and shape inference (its CPU plugin has no kernel
and the op no evaluate, so values are checked against per-group numpy matmuls)."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from tests.ops.ov_diff import Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail

RNG = np.random.default_rng(37)


@pytest.mark.parametrize("shapes", [("[3,4,5]", "[3,6,5]"), ("[3,4,5]", "[3,5,6]"), ("[3,4,5]", "[2,6,5]"),
                                    ("[?,4,?]", "[3,?,6]"), ("[1..3,4,5]", "[2..6,6,?]"), ("[3,4,5]", "[...]"),
                                    ("[10,5]", "[3,6,5]", "[3]"), ("[10,5]", "[3,6,5]", "[4]"), ("[10,5]", "[3,6,5]"),
                                    ("[?,?]", "[?,?,?]", "[?]"), ("[5,10]", "[10,6]", "[3]"), ("[5]", "[10,6]", "[?]"),
                                    ("[...]", "[3,6,5]", "[3]"), ("[3,4,5]", "[3,6,5]", "[3]")])
@pytest.mark.parametrize("dtypes", [("f32", "f32", "i32"), ("f16", "f16", "i64"), ("i32", "i32", "i32"),
                                    ("f32", "f16", "i32"), ("f32", "f32", "f32")])
def test_shapes_and_types(ov, shapes, dtypes) -> None:
    inputs = [Param(s, t) for s, t in zip(shapes, dtypes)]
    agree_or_both_fail(ov, "GroupedMatMul", "opset17", {}, inputs)


def test_values_follow_the_definition() -> None:
    a3, b = random_array((3, 4, 5), "f32", RNG), random_array((3, 6, 5), "f32", RNG)
    got = opset.make("GroupedMatMul", a3, b).tensor_type.value
    np.testing.assert_allclose(got, np.stack([a3[g] @ b[g].T for g in range(3)]), rtol=1e-5, atol=1e-6)
    a2 = random_array((10, 5), "f32", RNG)
    offsets = np.array([3, 3, 8], np.int32)  # group 1 is empty; rows 8, 9 belong to no group
    got = opset.make("GroupedMatMul", a2, b, offsets).tensor_type.value
    want = np.concatenate([a2[:3] @ b[0].T, a2[3:8] @ b[2].T, np.zeros((2, 6), np.float32)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
