"""Convolution columns built tap by tap from the input (graphir/kernels/columns.py) and the im2col
product that leaves out taps reading only padding (graphir/kernels/blas_order.py) keep the bits of
the former formulation: the padded input's window view, copied whole, then one BLAS product. The
skipping product replays OpenBLAS SkylakeX's chunked order and is used only with that BLAS
(graphir.kernels.blas_host); elsewhere the full product runs (asserted)."""
from __future__ import annotations

import numpy as np
import pytest

from graphir.kernels import blas_order
from graphir.kernels.columns import TapColumns
from graphir.kernels.conv import ConvKernel
from tests.conv_host import LAYOUTS, assert_matches_openvino


def _window_columns(kernel: ConvKernel, x: np.ndarray) -> np.ndarray:
    """The former layout: ``[N, C, k..., o...]`` from the padded input's window view."""
    win = kernel._windows(kernel._pad(x))
    ns = len(kernel.kernel)
    return np.ascontiguousarray(win.transpose((0, 1) + tuple(range(2 + ns, 2 + 2 * ns)) + tuple(range(2, 2 + ns))))


def _former(kernel: ConvKernel, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The former product: depthwise ``[G, 1, K] @ [N, G, K, O]``, im2col one 2-D product per image."""
    cols = _window_columns(kernel, x.astype(kernel.ct))
    w = w.astype(kernel.ct)
    if kernel.strategy == "depthwise":
        out = np.matmul(np.ascontiguousarray(w.reshape(kernel.groups, 1, -1)), cols.reshape(kernel.n, kernel.groups, -1, int(np.prod(kernel.out_spatial))))
    else:
        flat = np.ascontiguousarray(w.reshape(kernel.co, -1))
        cols = cols.reshape(kernel.n, flat.shape[1], -1)
        out = np.stack([flat @ cols[i] for i in range(kernel.n)])
    return out.reshape(kernel.out_shape).astype(kernel.out_dtype, copy=False)


def _random_layer(rng: np.random.Generator, rank: int) -> tuple[tuple[int, ...], list[int], list[int], list[int], list[int], list[int]]:
    spatial = tuple(int(v) for v in rng.integers(1, 12, rank))
    kernel = [int(v) for v in rng.integers(1, 5, rank)]
    strides = [int(v) for v in rng.integers(1, 4, rank)]
    dilations = [int(v) for v in rng.integers(1, 4, rank)]
    begin = [int(v) for v in rng.integers(-1, 5, rank)]
    end = [int(v) for v in rng.integers(-1, 5, rank)]
    return spatial, kernel, strides, dilations, begin, end


def test_tap_columns_equal_the_window_views_on_random_layers() -> None:
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(500):
        rank = int(rng.integers(1, 4))
        spatial, kern, strides, dilations, begin, end = _random_layer(rng, rank)
        n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
        x = rng.standard_normal((n, c) + spatial, dtype=np.float32)
        kernel = ConvKernel(x.shape, x.dtype, (1, 2, c, *kern), strides, dilations, begin, end)
        if min(kernel.out_spatial) <= 0:
            continue
        columns = TapColumns(spatial, kern, strides, dilations, begin, kernel.out_spatial)
        got = columns.build(x, np.dtype(np.float32)).reshape((n, c, *kern, *kernel.out_spatial))
        want = _window_columns(kernel, x)
        assert got.tobytes() == want.tobytes(), (x.shape, kern, strides, dilations, begin, end)
        checked += 1
    assert checked > 300


def test_tap_columns_refill_keeps_the_zeros_of_the_first_fill() -> None:
    rng = np.random.default_rng(2)
    columns = TapColumns((9, 7), (3, 3), (2, 1), (1, 2), (1, 2), (5, 7))
    first, second = (rng.standard_normal((1, 3, 9, 7), dtype=np.float32) for _ in range(2))
    buffer = columns.build(first, np.dtype(np.float32))
    columns.fill(buffer, second, zeros=False)
    assert buffer.tobytes() == columns.build(second, np.dtype(np.float32)).tobytes()


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_convolutions_keep_the_former_bits_on_random_layers(rank: int) -> None:
    rng = np.random.default_rng(20 + rank)
    seen: set[str] = set()
    for _ in range(150):
        spatial, kern, strides, dilations, begin, end = _random_layer(rng, rank)
        n, c = int(rng.integers(1, 3)), int(rng.integers(1, 6))
        depthwise = bool(rng.integers(0, 2))
        w_shape = (c, 1, 1, *kern) if depthwise else (1, int(rng.integers(2, 6)), c, *kern)
        x = rng.standard_normal((n, c) + spatial, dtype=np.float32)
        w = rng.standard_normal(w_shape, dtype=np.float32)
        kernel = ConvKernel(x.shape, x.dtype, w_shape, strides, dilations, begin, end)
        if min(kernel.out_spatial) <= 0 or kernel.phased is not None or kernel.strategy not in ("depthwise", "im2col"):
            continue
        seen.add(kernel.strategy)
        got = kernel(x, kernel.weights(w))
        assert got.tobytes() == _former(kernel, x, w).tobytes(), (x.shape, w_shape, strides, dilations, begin, end)
    assert seen == {"depthwise", "im2col"}


# the corpus layers these paths take: SSDlite, EfficientNet-B0, DeepLabV3 and LRASPP (MobileNetV3-large)
@pytest.mark.parametrize("shape, k, stride", [((1, 64, 160, 160), 3, 2), ((1, 16, 160, 160), 3, 1),
                                              ((1, 72, 80, 80), 5, 2), ((1, 96, 112, 112), 3, 2),
                                              ((1, 64, 128, 128), 3, 2), ((1, 16, 128, 128), 3, 1),
                                              ((1, 144, 56, 56), 3, 1), ((1, 72, 80, 80), 3, 1), ((1, 240, 40, 40), 3, 2)])
def test_corpus_depthwise_layers_keep_the_former_bits(shape: tuple[int, ...], k: int, stride: int) -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape, dtype=np.float32)
    w = rng.standard_normal((shape[1], 1, 1, k, k), dtype=np.float32)
    kernel = ConvKernel(x.shape, x.dtype, w.shape, [stride] * 2, [1, 1], [k // 2] * 2, [k // 2] * 2)
    assert kernel.phased is None and kernel.columns is not None
    assert kernel(x, kernel.weights(w)).tobytes() == _former(kernel, x, w).tobytes()


@pytest.mark.parametrize("shape, co, k, stride, dilation, skips",
                         [((1, 960, 16, 16), 256, 3, 1, 36, True), ((1, 960, 16, 16), 256, 3, 1, 24, True),
                          ((1, 960, 16, 16), 256, 3, 1, 12, False), ((1, 256, 16, 16), 256, 3, 1, 1, False),
                          ((1, 3, 320, 320), 16, 3, 2, 1, False), ((2, 960, 16, 16), 256, 3, 1, 36, True),
                          ((1, 960, 24, 16), 256, 3, 1, 30, True)])
def test_im2col_layers_keep_the_former_bits(shape: tuple[int, ...], co: int, k: int, stride: int, dilation: int,
                                            skips: bool) -> None:
    """DeepLabV3's ASPP (dilation 24 and 36 on 16x16: 8 of 9 taps read only padding) leaves those
    taps out and replays OpenBLAS's chunked sum over the rest: the full product's bits."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal(shape, dtype=np.float32)
    w = (rng.standard_normal((1, co, shape[1], k, k)) * 0.05).astype(np.float32)
    pad = k // 2 * dilation
    kernel = ConvKernel(x.shape, x.dtype, w.shape, [stride] * 2, [dilation] * 2, [pad] * 2, [pad] * 2)
    assert (kernel.skipping is not None) == (skips and LAYOUTS)
    assert kernel(x, kernel.weights(w)).tobytes() == _former(kernel, x, w).tobytes()


def test_blas_chunk_rule_replays_numpys_product() -> None:
    rule = blas_order.chunk_rule()
    assert rule is not None  # numpy's wheels ship OpenBLAS: its level-3 driver splits K this way
    rng = np.random.default_rng(3)
    for m, k, n in [(128, 3000, 100), (200, 2304, 150), (256, 8640, 64)]:  # tails U does not change
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        chunks = blas_order.k_chunks(k, *rule)
        assert chunks[0][0] == 0 and chunks[-1][1] == k
        assert np.array_equal(blas_order._chunked(a, b, chunks), a @ b)


def test_a_replay_that_does_not_match_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blas_order, "_rule", (blas_order.chunk_rule()[0] + 16, 16))  # type: ignore[index]
    monkeypatch.setattr(blas_order, "_verified", {})
    kernel = ConvKernel((1, 960, 16, 16), np.dtype(np.float32), (1, 256, 960, 3, 3), [1, 1], [36, 36], [36, 36], [36, 36])
    assert kernel.skipping is None


@pytest.mark.parametrize("shape, k, stride", [((1, 24, 20, 20), 3, 1), ((1, 40, 56, 56), 3, 2),
                                              ((1, 144, 56, 56), 3, 1), ((2, 8, 33, 31), 3, 1)])
def test_tap_column_depthwise_bits_equal_openvino_cpu(ov, shape: tuple[int, ...], k: int, stride: int) -> None:
    """Up to 16,384 outputs per channel OpenBLAS's (SkylakeX) gemv sums the taps in order with FMAs, as
    the CPU plugin's depthwise kernel does: the same bits, not a tolerance, on that host; elsewhere
    the measured cross-ISA rounding (tests/conv_host.py)."""
    from openvino import opset13 as ops

    from tests.ops.ov_diff import core

    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape, dtype=np.float32)
    w = rng.standard_normal((shape[1], 1, 1, k, k), dtype=np.float32)
    pad = k // 2
    kernel = ConvKernel(x.shape, x.dtype, w.shape, [stride] * 2, [1, 1], [pad] * 2, [pad] * 2)
    assert kernel.phased is None and kernel.columns is not None
    got = kernel(x, kernel.weights(w))
    p = ops.parameter(list(shape), ov.Type.f32)
    y = ops.group_convolution(p, ops.constant(w), [stride] * 2, [pad] * 2, [pad] * 2, [1, 1])
    compiled = core(ov).compile_model(ov.Model([y], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                                  "INFERENCE_NUM_THREADS": 1})
    assert_matches_openvino(got, compiled([x])[0], kernel(np.abs(x), kernel.weights(np.abs(w))))
