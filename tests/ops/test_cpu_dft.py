"""DFT-7/IDFT-7 values bit for bit as OpenVINO 2026.4's CPU plugin computes them under the ``openvino-cpu``
numerics profile (graphir/numerics/openvino_cpu/dft_kernels.py): its naive DFT's twiddle table (C library
cosf/sinf of f32 phases) and JIT kernel's summation order, its radix-2 FFT's table and butterflies, and dft.py's
use of them (whole op replayed within the budget; past it, BLAS plus replayed cancelling components), in place
in blocks. The replay models the AVX-512 kernel: on other hosts the profile computes the reference, which
tests/test_numerics_profiles.py checks; the bit-for-bit comparisons here need an AVX-512 host."""
from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import pytest

import graphir.numerics
from graphir.numerics.openvino_cpu import dft
from graphir.numerics.openvino_cpu import dft_kernels as cpu_dft
from graphir.ops.openvino import fft

RNG = np.random.default_rng(14)
LANES = 4  # the AVX-512 kernel's 128-bit lanes

replay_host = pytest.mark.skipif(not dft.replayed_here(), reason=f"the DFT replay matches {dft.HOST}; this host "
                                 "is not one (the profile computes the reference here: tests/test_numerics_profiles.py)")
NAIVE_LENGTHS = [3, 7, 19, 40, 100, 180, 600]  # tail only, 2 and 5 register steps, 75 steps with no tail


def _ov_dft(ov: Any, x: np.ndarray, axes: list[int], sizes: list[int] | None = None,
            inverse: bool = False) -> np.ndarray:
    from openvino import opset13 as ops

    from tests.ops.ov_diff import core

    p = ops.parameter(list(x.shape), ov.Type.f32)
    args = [p, ops.constant(np.array(axes, np.int64))]
    if sizes is not None:
        args.append(ops.constant(np.array(sizes, np.int64)))
    node = (ops.idft if inverse else ops.dft)(*args)
    compiled = core(ov).compile_model(ov.Model([node], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return np.asarray(compiled([x])[0])


def _graphir(x: np.ndarray, axes: list[int], sizes: list[int] | None = None, inverse: bool = False) -> np.ndarray:
    op = fft.IDFT() if inverse else fft.DFT()
    args = [x, np.array(axes, np.int64)] + ([] if sizes is None else [np.array(sizes, np.int64)])
    return graphir.numerics.evaluator(op, "openvino-cpu")(args)[0]


@replay_host
@pytest.mark.parametrize("n", NAIVE_LENGTHS)
def test_twiddle_table_is_the_plugins(ov, n: int) -> None:
    """The DFT of n unit impulses is the plugin's twiddle table itself (one product per sum)."""
    impulses = np.stack([np.eye(n, dtype=np.float32), np.zeros((n, n), np.float32)], axis=-1)
    want = _ov_dft(ov, impulses, [1])  # [n (impulse at m), k, 2] = table[k, m]
    cos, sin = cpu_dft.twiddles(n, inverse=False)
    assert np.array_equal(want[..., 0], cos.T) and np.array_equal(want[..., 1], sin.T)


def test_c_library_twiddles_differ_from_rounded_ones() -> None:
    """Why the C library is called: its cosf/sinf are not the correctly rounded values everywhere."""
    if cpu_dft.c_library() is None:
        pytest.skip("no C library cosf/sinf reachable through ctypes on this platform")
    cos, sin = cpu_dft.twiddles(600, inverse=False)
    idx = np.arange(600)
    phase = np.float32(2.0) * np.float32(np.pi) * np.outer(idx, idx).astype(np.float32) / np.float32(600)
    rounded = np.cos(phase.astype(np.float64)).astype(np.float32)
    assert 0 < int((cos != rounded).sum()) < cos.size // 10


@replay_host
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("n", NAIVE_LENGTHS)
def test_replayed_sums_equal_openvino_bit_for_bit(ov, n: int, inverse: bool) -> None:
    x = RNG.uniform(-1, 1, (24, n, 2)).astype(np.float32)
    want = _ov_dft(ov, x, [1], inverse=inverse)
    re, im = cpu_dft.dft_lines(x[..., 0], x[..., 1], inverse, LANES)
    assert np.array_equal(np.stack([re, im], axis=-1), want)
    lines, freqs = np.nonzero(np.ones((24, n), bool))
    for part, real_part in ((0, True), (1, False)):
        got = cpu_dft.dft_entries(x[..., 0], x[..., 1], lines, freqs, real_part, inverse, LANES)
        assert np.array_equal(got.reshape(24, n), want[..., part])


@replay_host
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("n", [2, 4, 8, 64, 256, 1024])
def test_radix2_fft_equals_openvino_bit_for_bit(ov, n: int, inverse: bool) -> None:
    x = RNG.uniform(-1, 1, (24, n, 2)).astype(np.float32)
    re, im = cpu_dft.fft_lines(x[..., 0], x[..., 1], inverse, LANES)
    assert np.array_equal(np.stack([re, im], axis=-1), _ov_dft(ov, x, [1], inverse=inverse))


@replay_host
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("shape,axes,sizes", [((8, 12, 16, 2), [0, 1, 2], None),  # FFT, DFT, FFT
                                              ((4, 30, 2), [1], [64]),
                                              ((3, 10, 30, 2), [0, 1, 2], None),
                                              ((5, 12, 9, 2), [2, 0], [11, -1]),
                                              ((7, 50, 4, 40, 2), [3, 0, 1], [60, -1, 40]),
                                              ((6, 20, 2), [-1], [24])])  # 24: naive; 6/20 untouched
def test_op_within_the_budget_equals_openvino_bit_for_bit(ov, shape, axes, sizes, inverse: bool) -> None:
    x = RNG.uniform(-1, 1, shape).astype(np.float32)
    assert np.array_equal(_graphir(x, axes, sizes, inverse), _ov_dft(ov, x, axes, sizes, inverse))


@replay_host
@pytest.mark.parametrize("inverse", [False, True])
def test_past_the_budget_cancelling_components_are_replayed(ov, monkeypatch: pytest.MonkeyPatch, inverse: bool) -> None:
    """With no budget for a whole axis, the BLAS product's nearly cancelling components (|v| < 2^-10 of
    the line's magnitude sum) are still OpenVINO's bits; the others are within f32 rounding of them."""
    x = RNG.uniform(-1, 1, (64, 600, 2)).astype(np.float32)
    x[:8] = 0.25  # constant lines: their frequencies k > 0 cancel
    want = _ov_dft(ov, x, [1], inverse=inverse)
    monkeypatch.setattr(dft, "_REPLAY_BUDGET", 4.0 * x[..., 0].size * 600 - 1)
    got = _graphir(x, [1], inverse=inverse)
    scale = (np.abs(x[..., 0]) + np.abs(x[..., 1])).sum(axis=-1, dtype=np.float32)[:, None] * np.float32(2.0 ** -10)
    if inverse:
        scale /= np.float32(600)
    for part in (0, 1):
        cancelling = np.abs(got[..., part]) < scale
        # the constant lines' k > 0, and a few per cent of the random lines' components
        assert 8 * 599 < cancelling.sum() < 8 * 600 + 56 * 600 // 10
        assert np.array_equal(got[..., part][cancelling], want[..., part][cancelling])
        np.testing.assert_allclose(got[..., part][~cancelling], want[..., part][~cancelling], rtol=1e-4)
    assert not np.array_equal(got, want)  # the rest is BLAS-summed (else the budget was not exceeded)


def test_without_budget_values_stay_within_f32_rounding(ov, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dft, "_REPLAY_BUDGET", 0.0)
    # its own generator: the module's RNG is drawn by the replay tests before it, which skip on a
    # host without AVX-512, so this test would see other values there than here
    x = np.random.default_rng(130).uniform(-1, 1, (4, 30, 18, 2)).astype(np.float32)
    np.testing.assert_allclose(_graphir(x, [1, 2]), _ov_dft(ov, x, [1, 2]), rtol=1e-4, atol=1e-4)


@replay_host
def test_transform_runs_in_place_in_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Peak memory: the complex64 output (8 bytes per complex element), the f32 view returned on it,
    and blocks of lines, not copies of the whole tensor per axis (the 43M- and 729M-float DFTs of
    OpenVINO's own reader tests)."""
    monkeypatch.setattr(dft, "_BLOCK_ELEMENTS", 1 << 12)
    monkeypatch.setattr(dft, "_REPLAY_BUDGET", 0.0)
    x = RNG.uniform(-1, 1, (8, 40, 200, 2)).astype(np.float32)
    out_bytes = 8 * 60 * 256 * 8
    tracemalloc.start()
    try:
        y = graphir.numerics.evaluator(fft.DFT(), "openvino-cpu")([x, np.array([1, 2]), np.array([60, 256])])[0]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert y.shape == (8, 60, 256, 2) and y.dtype == np.float32
    assert peak < out_bytes * 1.5, (peak, out_bytes)
