"""The Select kernel equals ``numpy.where(...).astype(then.dtype)`` byte for byte.

Property tests run with tiny block/thread/size thresholds (the ``tiny_blocks`` fixture) so that
hypothesis' small shapes go through the blocked, multi-block and threaded paths; a few tests at
the real thresholds use sizes large enough to engage them.
"""
from __future__ import annotations

import os
from collections.abc import Iterator

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from graphir.kernels import _buffers, _threads
from graphir.kernels import select as kernel
from graphir.kernels.select import select

DTYPES = [
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, np.dtype("datetime64[ns]"),
    ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.int4,
    ml_dtypes.uint4, np.dtype("U3"), np.dtype("S2"), np.dtype(object),
]
FLOAT_SPECIALS = {
    # quiet NaN with payloads, signalling NaN, negative NaN, inf, -inf, -0.0, 0.0, denormal
    2: [0x7E01, 0x7C01, 0xFE55, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x0001],
    4: [0x7FC00001, 0x7F800001, 0xFFC12345, 0x7F800000, 0xFF800000, 0x80000000, 0, 1],
    8: [0x7FF8000000000001, 0x7FF0000000000001, 0xFFF8DEADBEEF0000, 0x7FF0000000000000,
        0xFFF0000000000000, 0x8000000000000000, 0, 1],
}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
BF16_SPECIALS = [0x7FC1, 0x7F81, 0xFFC3, 0x7F80, 0xFF80, 0x8000, 0x0000, 0x0001]


def expected(cond: np.ndarray, then: np.ndarray, otherwise: np.ndarray) -> np.ndarray:
    out = np.where(cond, then, otherwise)
    return out if out.dtype == then.dtype else out.astype(then.dtype)


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    if want.dtype.hasobject:
        assert got.tolist() == want.tolist()
    else:
        assert got.tobytes() == want.tobytes()


def random_values(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Random raw bits of ``dtype`` (so every float pattern, NaN payloads included, can occur),
    with the float specials planted at random places."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if dtype.hasobject:
        return np.array([f"v{i}" for i in rng.integers(0, 99, size)], dtype=object).reshape(shape)
    if dtype.kind in "US":
        chars = rng.choice(list("abcxyz"), size=(size, 2))
        return np.array(["".join(c) for c in chars], dtype=dtype).reshape(shape)
    if dtype.itemsize > 8:  # complex128: two float64 halves
        raw = random_values(rng, shape + (2,), np.float64)
        return np.ascontiguousarray(raw).view(dtype).reshape(shape)
    uint = UINT[dtype.itemsize]
    bits = rng.integers(0, np.iinfo(uint).max, size, dtype=uint, endpoint=True)
    specials = BF16_SPECIALS if dtype == ml_dtypes.bfloat16 else FLOAT_SPECIALS.get(dtype.itemsize)
    if dtype.kind in "fc" or dtype == ml_dtypes.bfloat16:
        if specials and size:
            where = rng.integers(0, size, max(1, size // 3))
            bits[where] = rng.choice(np.array(specials, dtype=uint), where.size)
    if dtype == np.bool_:
        bits &= 1
    return bits.view(dtype).reshape(shape)


def random_cond(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.random(shape) < rng.choice([0.0, 0.5, 1.0], p=[0.1, 0.8, 0.1])


@pytest.fixture
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Thresholds small enough that a 2-element output is blocked, split and threaded."""
    monkeypatch.setattr(kernel, "SMALL", 0)
    monkeypatch.setattr(kernel, "_UNBLOCKED", 0)
    monkeypatch.setattr(kernel, "BLOCK_BYTES", 16)
    monkeypatch.setattr(kernel, "THREAD_MIN_BYTES", 8)
    before = _threads.num_threads()
    _threads.set_num_threads(2)
    yield
    _threads.set_num_threads(before)


def make_view(rng: np.random.Generator, array: np.ndarray, layout: str) -> np.ndarray:
    """The same values as ``array`` held in a non-contiguous layout."""
    if array.ndim == 0:
        return array
    if layout == "strided":  # every other element of a twice-as-large buffer, per axis
        big = np.empty(tuple(2 * d for d in array.shape), array.dtype)
        view = big[tuple(slice(None, None, 2) for _ in array.shape)]
        view[...] = array
        return view
    if layout == "reversed":
        return np.ascontiguousarray(array[tuple(slice(None, None, -1) for _ in array.shape)])[
            tuple(slice(None, None, -1) for _ in array.shape)]
    if layout == "transposed":
        return np.ascontiguousarray(array.T).T
    return array


LAYOUTS = st.sampled_from(["contiguous", "strided", "reversed", "transposed"])
settings.register_profile("select_kernel", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.function_scoped_fixture])


@settings(settings.get_profile("select_kernel"))
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=4, min_side=0, max_side=5),
    dtype=st.sampled_from(DTYPES),
    layouts=st.tuples(LAYOUTS, LAYOUTS, LAYOUTS),
    diff_ratio=st.sampled_from([1, 10**9]),
    seed=st.integers(0, 2**32 - 1),
)
def test_equals_numpy_where_blocked(tiny_blocks: None, shapes, dtype, layouts, diff_ratio: int,
                                    seed: int) -> None:
    """diff_ratio 1: then ^ else is always precomputed (two passes); 10**9: never (three)."""
    rng = np.random.default_rng(seed)
    cshape, tshape, eshape = shapes.input_shapes
    cond = make_view(rng, random_cond(rng, cshape), layouts[0])
    then = make_view(rng, random_values(rng, tshape, dtype), layouts[1])
    other = make_view(rng, random_values(rng, eshape, dtype), layouts[2])
    kernel._DIFF_RATIO, before = diff_ratio, kernel._DIFF_RATIO
    try:
        got = select(cond, then, other)
    finally:
        kernel._DIFF_RATIO = before
    assert_same(got, expected(cond, then, other))


@settings(max_examples=40, deadline=None)
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=0, max_side=4),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**32 - 1),
)
def test_equals_numpy_where_default_thresholds(shapes, dtype, seed: int) -> None:
    rng = np.random.default_rng(seed)
    cshape, tshape, eshape = shapes.input_shapes
    cond, then, other = random_cond(rng, cshape), random_values(rng, tshape, dtype), random_values(rng, eshape, dtype)
    assert_same(select(cond, then, other), expected(cond, then, other))


@settings(settings.get_profile("select_kernel"))
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=1, max_dims=3, min_side=1, max_side=4),
    dtype=st.sampled_from([np.int32, np.float32, np.float64, ml_dtypes.bfloat16, np.uint8]),
    seed=st.integers(0, 2**32 - 1),
)
def test_zero_stride_views(tiny_blocks: None, shapes, dtype, seed: int) -> None:
    """DirectML-style inputs: broadcast views with stride 0 standing for the full output shape."""
    rng = np.random.default_rng(seed)
    cshape, tshape, eshape = shapes.input_shapes
    full = shapes.result_shape
    cond = np.broadcast_to(random_cond(rng, cshape), full)
    then = np.broadcast_to(random_values(rng, tshape, dtype), full)
    other = np.broadcast_to(random_values(rng, eshape, dtype), full)
    assert_same(select(cond, then, other), expected(cond, then, other))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
def test_nan_payloads_and_signed_zero_survive(tiny_blocks: None, dtype) -> None:
    itemsize = np.dtype(dtype).itemsize
    specials = BF16_SPECIALS if dtype == ml_dtypes.bfloat16 else FLOAT_SPECIALS[itemsize]
    then = np.array(specials, dtype=UINT[itemsize]).view(dtype)
    other = then[::-1].copy()
    cond = np.array([True, False, False, True, False, True, True, False])
    got = select(cond, then, other).view(UINT[itemsize])
    raw = then.view(UINT[itemsize]), other.view(UINT[itemsize])
    assert got.tolist() == [raw[0][i] if c else raw[1][i] for i, c in enumerate(cond)]
    assert got.tolist()[5] == specials[5]  # -0.0 taken from then, sign bit intact


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.float16])
@pytest.mark.parametrize("threads", [1, 2])
def test_large_same_shape_blocked_and_threaded(dtype, threads: int) -> None:
    """Real thresholds: 3 MB outputs are cut into many blocks and split across threads."""
    rng = np.random.default_rng(7)
    size = (3 << 20) // np.dtype(dtype).itemsize + 13  # a ragged tail block
    cond = random_cond(rng, (size,))
    then, other = random_values(rng, (size,), dtype), random_values(rng, (size,), dtype)
    before = _threads.num_threads()
    _threads.set_num_threads(threads)
    try:
        assert_same(select(cond, then, other), expected(cond, then, other))
    finally:
        _threads.set_num_threads(before)


@pytest.mark.parametrize(
    ("cshape", "tshape", "eshape"),
    [
        ((700, 1000), (1000,), ()),             # the benchmark's broadcast case
        ((1000,), (700, 1000), (700, 1000)),    # row-broadcast cond
        ((700, 1), (700, 1000), (1,)),          # column cond, scalar-like else
        ((3, 1, 300_000), (1, 2, 1), (3, 2, 300_000)),  # inner axis longer than a block
        ((1, 1), (900, 1000), (900, 1000)),     # one cond element: a plain copy
    ],
)
def test_large_broadcasts(cshape, tshape, eshape) -> None:
    rng = np.random.default_rng(11)
    cond = random_cond(rng, cshape)
    then, other = random_values(rng, tshape, np.float32), random_values(rng, eshape, np.float32)
    assert_same(select(cond, then, other), expected(cond, then, other))


def test_large_non_contiguous_inputs() -> None:
    rng = np.random.default_rng(3)
    base = random_values(rng, (1200, 2000), np.float32)
    then = base[:, ::2]                                   # strided rows
    other = random_values(rng, (1000, 1200), np.float32).T  # transposed
    cond = random_cond(rng, (1200, 1000))[::-1]           # negative stride
    assert_same(select(cond, then, other), expected(cond, then, other))


@pytest.mark.parametrize("cond", [np.array([0.0, np.nan, -0.0, 2.5]), np.array([0, 3, -1, 0], np.int8)])
def test_non_boolean_cond_uses_truthiness(cond: np.ndarray) -> None:
    then, other = np.arange(4, dtype=np.int32), -np.arange(4, dtype=np.int32) - 10
    assert select(cond, then, other).tolist() == expected(cond, then, other).tolist()


def test_mixed_then_else_dtypes_take_then_dtype() -> None:
    cond = np.array([True, False, True])
    then = np.array([1, 2, 3], np.int32)
    other = np.array([1.5, 2**40, -7.9], np.float64)
    got = select(cond, then, other)
    assert got.dtype == np.int32
    assert_same(got, expected(cond, then, other))


def test_zero_size_and_scalars() -> None:
    assert select(np.zeros((0, 3), bool), np.ones(3, np.float32), np.float32(2)).shape == (0, 3)
    got = select(np.bool_(True), np.array(1.5, np.float32), np.array(2.5, np.float32))
    assert got.shape == () and got.dtype == np.float32 and float(got) == 1.5


def test_output_never_aliases_an_input() -> None:
    cond = np.ones((100, 100), bool)
    then = np.zeros((100, 100), np.float32)
    got = select(cond, then, then)
    got[0, 0] = 5
    assert then[0, 0] == 0


def test_incompatible_shapes_raise_numpy_message() -> None:
    with pytest.raises(ValueError, match="shape mismatch"):
        select(np.ones((3000,), bool), np.ones(4000, np.float32), np.float32(0))


def test_thread_failures_reach_the_caller() -> None:
    def boom() -> None:
        raise RuntimeError("part failed")

    ran: list[int] = []
    with pytest.raises(RuntimeError, match="part failed"):
        _threads.run_parts([lambda: ran.append(0), boom])
    assert ran == [0]
    _threads.run_parts([lambda: ran.append(1), lambda: ran.append(2)])  # the pool still works
    assert sorted(ran) == [0, 1, 2]
    with pytest.raises(ValueError, match="count must be >= 1"):
        _threads.set_num_threads(0)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no sched_getaffinity/sched_setaffinity here")
def test_parts_run_on_their_own_cpus_and_the_callers_affinity_is_never_changed() -> None:
    before = os.sched_getaffinity(0)
    seen: dict[str, set[int]] = {}

    def record(name: str) -> None:
        seen[name] = os.sched_getaffinity(0)

    _threads.run_parts([lambda: record("a"), lambda: record("b")])
    assert os.sched_getaffinity(0) == before
    if len(before) > 1:
        assert len(seen["a"]) == len(seen["b"]) == 1          # each worker on one CPU...
        assert seen["a"] != seen["b"]                          # ...its own
        assert seen["a"] | seen["b"] <= before
    else:
        assert seen["a"] == seen["b"] == before
    if len(before) > 1:  # a caller restricted to one CPU: the workers follow it, it stays as set
        one = {min(before)}
        os.sched_setaffinity(0, one)
        try:
            _threads.run_parts([lambda: record("a"), lambda: record("b")])
            assert seen["a"] == seen["b"] == one
            assert os.sched_getaffinity(0) == one
        finally:
            os.sched_setaffinity(0, before)


def test_large_outputs_recycle_only_unreferenced_buffers() -> None:
    """Pooled output memory is reused only when no array (or view of one) still points at it."""
    rng = np.random.default_rng(5)
    size = (_buffers.MIN_BYTES // 4) * 2
    cond = random_cond(rng, (size,))
    then, other = random_values(rng, (size,), np.float32), random_values(rng, (size,), np.float32)
    first = select(cond, then, other)
    kept = first[::3]                       # a view outlives its parent
    first_bytes = kept.tobytes()
    address = first.__array_interface__["data"][0]
    del first
    second = select(~cond, then, other)     # must not land on memory `kept` still uses
    assert second.__array_interface__["data"][0] != address
    assert kept.tobytes() == first_bytes
    assert_same(second, expected(~cond, then, other))
    pooled_before = _buffers.pooled_bytes()
    del kept, second
    third = select(cond, then, other)       # now both buffers are free: one is reused
    assert _buffers.pooled_bytes() == pooled_before
    assert any(third.base is buffer for buffer in _buffers._pool)
    assert_same(third, expected(cond, then, other))
    assert _buffers.pooled_bytes() <= _buffers.MAX_BYTES


def test_buffer_pool_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_buffers, "MAX_BYTES", 3 * _buffers.MIN_BYTES)
    _buffers.clear()
    held = [_buffers.empty((_buffers.MIN_BYTES,), np.dtype(np.uint8)) for _ in range(5)]
    assert _buffers.pooled_bytes() <= 3 * _buffers.MIN_BYTES
    assert len({a.__array_interface__["data"][0] for a in held}) == 5  # all distinct while held
    del held
    again = _buffers.empty((_buffers.MIN_BYTES,), np.dtype(np.uint8))
    assert again.base is not None and _buffers.pooled_bytes() <= 3 * _buffers.MIN_BYTES
    small = _buffers.empty((10,), np.dtype(np.float32))
    assert small.base is None  # small outputs are plain np.empty
    _buffers.clear()


def test_thread_chooser_follows_the_faster_mode() -> None:
    chooser = _threads.ThreadChooser()
    n = 10**6
    assert chooser.choose(1, n) == 1                   # nothing to choose
    assert chooser.cost(n, 2) is None
    trials = []                                        # the modes are tried in turn
    timings = {2: [60e-3, 6e-3, 6e-3], 1: [50e-3, 1e-3, 1.2e-3]}  # first calls: page faults
    for _ in range(2 * chooser.TRIALS):
        mode = chooser.choose(2, n)
        trials.append(mode)
        chooser.record(mode, timings[mode].pop(0), n)
    assert trials == [2, 1] * chooser.TRIALS
    assert chooser.cost(n, 2) == 6e-3 / n              # the median: one slow call decides nothing
    assert chooser.cost(n, 1) == 1.2e-3 / n
    picks = [chooser.choose(2, n) for _ in range(4 * chooser.EXPLORE)]  # 1 thread is 5x faster:
    tries = [i + 1 for i, mode in enumerate(picks) if mode == 2]        # 2 threads are re-tried
    assert tries[:5] == [2, 6, 14, 30, 62]                             # ever less often,
    assert all(b - a == chooser.EXPLORE for a, b in zip(tries[4:], tries[5:]))  # at most every EXPLORE
    assert chooser.choose(2, 100 * n) == 2             # another size class is measured apart
    chooser.record(2, 0.5e-3, n)                       # the machine went quiet: one fast call
    assert chooser.choose(2, n) == 1                   # is not enough (it may be luck),
    chooser.record(2, 0.5e-3, n)                       # a second one is
    assert chooser.choose(2, n) == 2
    assert chooser.choose(2, n) == 1                   # after a flip the other is re-tried soon
    chooser.record(2, 9e-3, n)                         # busy again: two slow calls switch back
    assert chooser.cost(n, 2) == 0.5e-3 / n
    chooser.record(2, 9e-3, n)
    assert chooser.cost(n, 2) == 9e-3 / n
    assert chooser.choose(2, n) == 1
    assert len(chooser.samples[(n.bit_length(), 2)]) == chooser.WINDOW
