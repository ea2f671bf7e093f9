"""LRN-1, GRN-1 and ErfInv-17 against OpenVINO 2026: shapes (static, intervals, dynamic rank),
type errors and CPU values."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Const, Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(5)
LRN_ATTRS = {"alpha": 0.02, "beta": 0.75, "bias": 2.0, "size": 3}


@pytest.mark.parametrize("shape", ["[2,3,4,5]", "[?,3,1..4,5]", "[...]", "[2,6]"])
@pytest.mark.parametrize("axes", [[1], [2, 3], [1, 2, 3], [5]])
def test_lrn_shapes(ov, shape: str, axes: list[int]) -> None:
    agree_or_both_fail(ov, "LRN", "opset1", LRN_ATTRS, [Param(shape), Const(np.array(axes, np.int64))])


@pytest.mark.parametrize("axes", [[1], [2, 3]])
@pytest.mark.parametrize("size", [1, 3, 4, 5])
def test_lrn_values_match_openvino_cpu(ov, axes: list[int], size: int) -> None:
    """The CPU plugin runs LRN across channels ([1]) or across all spatial axes only."""
    x = random_array((2, 5, 4, 3), "f32", RNG)
    attrs = dict(LRN_ATTRS, size=size)
    same(ov, "LRN", "opset1", attrs, [Param("[2,5,4,3]"), Const(np.array(axes, np.int64))], [x])


def test_lrn_channel_and_spatial_axes_follow_the_reference_not_the_cpu_shortcut(ov) -> None:
    """Axes [1,2,3]: OpenVINO's reference (and op_reference's lrn cases) sum over the 3-d box; the
    CPU plugin silently sums over [2,3] only. graphir follows the reference; this pins both."""
    x = random_array((1, 3, 2, 2), "f32", RNG)
    from graphir import opset
    got = opset.make("LRN", x, np.array([1, 2, 3], np.int64), **LRN_ATTRS).tensor_type.value
    want = np.empty_like(x)
    for idx in np.ndindex(x.shape):
        box = tuple([idx[0]] + [slice(max(i - 1, 0), i + 2) for i in idx[1:]])
        want[idx] = x[idx] / (2.0 + 0.02 / 27 * np.sum(x[box] ** 2)) ** 0.75
    np.testing.assert_allclose(got, want, rtol=1e-6)
    spatial = opset.make("LRN", x, np.array([2, 3], np.int64), **LRN_ATTRS).tensor_type.value
    assert not np.allclose(got, spatial)


def test_lrn_f16_and_errors(ov) -> None:
    x = random_array((1, 4, 3, 3), "f16", RNG)
    same(ov, "LRN", "opset1", LRN_ATTRS, [Param("[1,4,3,3]", "f16"), Const(np.array([1], np.int64))], [x])
    assert agree_or_both_fail(ov, "LRN", "opset1", LRN_ATTRS, [Param("[1,4,3,3]"), Const(np.array([[1]], np.int64))])


@pytest.mark.parametrize("shape", ["[2,3]", "[2,3,4]", "[?,3,1..4,5]", "[...]", "[2]", "[1,2,3,4,5]"])
def test_grn_shapes(ov, shape: str) -> None:
    agree_or_both_fail(ov, "GRN", "opset1", {"bias": 1.5}, [Param(shape)])


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (1, 5, 2, 3)])
def test_grn_values_match_openvino_cpu(ov, shape) -> None:
    x = random_array(shape, "f32", RNG)
    same(ov, "GRN", "opset1", {"bias": 0.5}, [Param(str(list(shape)).replace(" ", ""))], [x])


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_erfinv_values_and_edges_match_openvino_cpu(ov, dtype: str) -> None:
    x = np.concatenate([RNG.uniform(-0.999, 0.999, 40), [-1.0, 1.0, 0.0, 1.5, -2.0, np.nan, 0.9999, -0.99999]])
    x = x.astype(np.float32 if dtype == "f32" else np.float16)
    same(ov, "ErfInv", "opset17", {}, [Param(f"[{x.size}]", dtype)], [x])
    same(ov, "ErfInv", "opset17", {}, [Param("[?,2..3]", dtype)])
    assert "must be floating-point" in agree_or_both_fail(ov, "ErfInv", "opset17", {}, [Param("[2]", "i32")])
