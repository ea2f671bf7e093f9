"""TopK-1/3/11's order among equal values and NaN, as OpenVINO 2026.4's CPU plugin gives it
under the ``openvino-cpu`` numerics profile (graphir/numerics/openvino_cpu/topk_order.py names the plugin's
four sorts and when each runs; the reference profile's order, equal values by index, is OpenVINO's reference
evaluate's: test_evaluate_outside_a_run_keeps_the_reference_order).

Values are drawn from {0, 0.5, 1} (plus NaN in some cases, {0, 1, 2} for i32), so nearly every
position ties; shapes, axis, k, mode, sort, stable and static/dynamic shapes are drawn so that each
algorithm runs: bubble (k <= 6, stable, dynamic non-innermost), the k == 1 horizontal reduction
(static innermost, axis long and short of the 16 lanes), heap (innermost, k > 6 or dynamic) and the
bitonic network (static, not innermost, large k). Every index output must equal OpenVINO's, except the
horizontal reduction's on a host without AVX-512 (or with ONEDNN_MAX_CPU_ISA capping OpenVINO below it),
where the profile does not replay it (its 16 lanes are AVX-512's) and gives the reference order: there
the indices must be the reference's and the values OpenVINO's on rows without NaN.
"""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
import graphir.numerics
from graphir.numerics.openvino_cpu import host
from graphir.numerics.openvino_cpu import topk_order as cpu_topk
from tests.ops.ov_diff import Const, Param, reference
from tests.ops.test_shape_ops import factory, same


def _case(seed: int) -> tuple[list[int], int, int, str, str, bool, bool, np.ndarray]:
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 5))
    shape = [int(rng.integers(1, 4)) for _ in range(rank)]
    axis = int(rng.integers(0, rank))
    shape[axis] = int(rng.choice([rng.integers(1, 40), rng.integers(16, 300), rng.integers(300, 1200)]))
    n = shape[axis]
    k = min(n, int(rng.choice([1, 2, rng.integers(1, n + 1), rng.integers(6, 9), rng.integers(1, min(n, 60) + 1)])))
    ints = rng.random() < 0.2
    pool = [0, 1, 2] if ints else [0, 0.5, 1] + ([np.nan] if rng.random() < 0.3 else [])
    x = rng.choice(np.array(pool, np.int32 if ints else np.float32), shape)
    mode, sort = str(rng.choice(["max", "min"])), str(rng.choice(["value", "index", "none"]))
    stable = bool(rng.random() < 0.2)
    if stable and sort == "none":  # OpenVINO: stable needs sort value or index
        sort = "value"
    return shape, axis, k, mode, sort, stable, bool(rng.random() < 0.5), x


def _same_where_replayed(ov, attrs: dict, inputs: list, x: np.ndarray, k: int, *, dynamic: bool) -> list[np.ndarray]:
    """``same`` (values and indices equal to OpenVINO CPU's), unless the sort that runs is the
    horizontal one on a host without AVX-512: then the values equal OpenVINO's and the indices are
    the reference order's (what the profile computes where it does not replay)."""
    axis = attrs["axis"] % x.ndim
    algo = cpu_topk.algorithm(x.shape[axis], k, innermost=axis == x.ndim - 1, dynamic=dynamic,
                              stable=attrs["stable"] and attrs["sort"] != "index")
    if algo != "horizontal" or host.has_avx512_core():
        return same(ov, "TopK", "opset11", attrs, inputs, [x])
    op = opset.make("TopK", x, np.int64(k), version="opset11", **attrs)[1].node.op
    want = graphir.numerics.evaluator(op, "reference")([x, np.int64(k)])
    got = same(ov, "TopK", "opset11", attrs, inputs, [x], cpu=False)
    np.testing.assert_array_equal(got[1], want[1])
    ov_values = reference(ov, factory("opset11", "TopK", attrs), [x, np.int64(k)])
    assert ov_values is not None
    # NaN's place: OpenVINO's reference comparison is unspecified with NaN, graphir's reference puts it
    # last; rows without NaN have the same values everywhere
    clean = ~np.isnan(x).any(axis=axis, keepdims=True)
    np.testing.assert_array_equal(np.where(clean, got[0], 0), np.where(clean, ov_values[0], 0))
    return got


@pytest.mark.parametrize("seed", range(60))
def test_topk_ties_and_nan_order_matches_openvino_cpu(ov, seed: int) -> None:
    shape, axis, k, mode, sort, stable, dynamic, x = _case(seed)
    dims = ",".join("?" if dynamic else str(d) for d in shape)
    attrs = {"axis": axis, "mode": mode, "sort": sort, "index_element_type": "i32", "stable": stable}
    got = _same_where_replayed(ov, attrs, [Param(f"[{dims}]", str(x.dtype).replace("int32", "i32")
                                                 .replace("float32", "f32")), Const(np.int64(k))], x, k, dynamic=dynamic)
    assert got[1].shape[axis] == k  # asserted values and indices equal to OpenVINO's


@pytest.mark.parametrize("shape,axis,k", [
    ([2, 15], 1, 1), ([2, 16], 1, 1), ([3, 50], 1, 1), ([1, 200], 1, 1),  # k == 1: the 16-lane reduction
    ([300, 2], 0, 40), ([1000], 0, 100), ([77, 3, 2], 0, 30), ([2, 513, 2], 1, 64),  # static, not innermost
])
@pytest.mark.parametrize("mode", ["max", "min"])
@pytest.mark.parametrize("nan", [False, True])
def test_topk_horizontal_and_bitonic_tie_order_matches_openvino_cpu(ov, shape: list[int], axis: int, k: int,
                                                                     mode: str, nan: bool) -> None:
    rng = np.random.default_rng(len(shape) * 1000 + shape[axis] + k)
    x = rng.choice(np.array([0, 0.5, 1] + ([np.nan] if nan else []), np.float32), shape)
    algo = cpu_topk.algorithm(shape[axis], k, innermost=axis == len(shape) - 1, dynamic=False, stable=False)
    assert algo == ("horizontal" if k == 1 else "bitonic") or shape == [1000]  # [1000] axis 0 is innermost: heap
    attrs = {"axis": axis, "mode": mode, "sort": "value", "index_element_type": "i32", "stable": False}
    dims = ",".join(map(str, shape))
    _same_where_replayed(ov, attrs, [Param(f"[{dims}]"), Const(np.int64(k))], x, k, dynamic=False)


@pytest.mark.parametrize("n,k,dynamic,innermost,stable,want", [
    (100, 6, False, True, False, "bubble"), (100, 1, False, True, False, "horizontal"),
    (100, 1, False, False, False, "bubble"), (100, 7, False, True, False, "heap"),
    (100, 7, False, True, True, "bubble"), (100, 1, True, True, False, "heap"),
    (100, 1, True, False, False, "bubble"), (100, 50, True, True, True, "bubble"),
    (1000, 50, False, False, False, "bitonic"), (1000, 7, False, False, False, "bubble"),
])
def test_topk_algorithm_choice(n: int, k: int, dynamic: bool, innermost: bool, stable: bool, want: str) -> None:
    assert cpu_topk.algorithm(n, k, innermost=innermost, dynamic=dynamic, stable=stable) == want


def test_heap_order_among_ties_is_not_input_order(ov) -> None:
    """A case a stable sort gets wrong: the plugin's heap returns ties of 1.0 as 19, 15, 11, ..."""
    x = np.array([[1, .5, .5, 0, 0, 0, 0, 0, 0, 1, .5, 1, .5, .5, 1, 1, .5, .5, .5, 1]], np.float32)
    attrs = {"axis": 1, "mode": "max", "sort": "value", "index_element_type": "i32", "stable": False}
    got = same(ov, "TopK", "opset11", attrs, [Param("[1,20]"), Const(np.int64(10))], [x])
    np.testing.assert_array_equal(got[1], [[9, 15, 19, 11, 14, 0, 13, 2, 1, 10]])


@pytest.mark.parametrize("mode", ["max", "min"])
@pytest.mark.parametrize("sort", ["value", "index"])
def test_evaluate_outside_a_run_keeps_the_reference_order(ov, mode: str, sort: str) -> None:
    """Called outside a run plan (no ``dynamic``), TopK's evaluate gives what OpenVINO's reference
    evaluate (its constant folding) gives: equal values by index. (Sort none there is libstdc++'s nth_element order, and NaN
    breaks its comparison; neither is matched: graphir sorts by value and puts NaN last.)"""
    x = np.array([1, .5, 1, 1, .5, 1, 1, 1, 0, .5], np.float32)
    attrs = {"axis": 0, "mode": mode, "sort": sort, "index_element_type": "i32", "stable": False}
    op = opset.make("TopK", x, np.int64(7), version="opset11", **attrs)[1].node.op
    folded = op.evaluate(x, np.int64(7))[1]
    want = reference(ov, factory("opset11", "TopK", attrs), [x, np.int64(7)])
    assert want is not None
    np.testing.assert_array_equal(folded, want[1])


def test_heap_replay_of_nan_free_rows_keeps_the_generic_heaps_order() -> None:
    """NaN-free rows replay the heap with ``>`` on flat lists (mode min on negated values); every
    order must be the generic replay's, on rows full of ties, negative zeros and both modes."""
    rng = np.random.default_rng(31)
    for trial in range(2000):
        n = int(rng.integers(1, 70))
        k = int(rng.integers(1, n + 1))
        row = rng.integers(-3, int(rng.integers(-2, 9)), n).astype(np.float64)
        row[rng.integers(0, n, 2)] = -0.0 if trial % 2 else 0.0
        values = row.tolist()
        for mode in ("max", "min"):
            keys = values if mode == "max" else [-v for v in values]
            assert cpu_topk._heap_ordered(keys, k) == cpu_topk._heap(values, k, mode), (values, k, mode)


def test_rows_with_ties_take_the_flat_heap_and_nan_rows_the_generic_one(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = np.array([[3.0, 1.0, 3.0, 2.0, 3.0, 1.0, 0.5, 2.0, 3.0], [3.0, np.nan, 3.0, 2.0, 3.0, 1.0, 0.5, 2.0, 3.0]],
                    np.float32)
    want = cpu_topk.cpu_topk_indices(rows, 7, "max", "heap")
    generic = cpu_topk._heap
    calls: list[int] = []

    def counted(values: list, k: int, mode: str) -> list[int]:
        calls.append(len(values))
        return generic(values, k, mode)

    monkeypatch.setattr(cpu_topk, "_heap", counted)
    got = cpu_topk.cpu_topk_indices(rows, 7, "max", "heap")
    assert calls == [9]  # the NaN row only
    assert got.tolist() == want.tolist()
    assert got[0].tolist() == generic(rows[0].astype(np.float64).tolist(), 7, "max")
