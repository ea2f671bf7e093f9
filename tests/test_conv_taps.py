"""The reference profile's small depthwise convolutions: a tap-by-tap numpy sum (graphir/kernels/taps.py).

Each output is OpenVINO's reference convolution's sum: the products in tap order, each product and
each sum rounded to f32 (no fused multiply-adds), from +0, padding left out. Checked bit for bit
against that loop written out, on random layers (strides, dilations, negative pads, zeros of both
signs, infinities, blocks of every size); the numpy reduction order it rests on; the profiles'
split (openvino-cpu keeps the BLAS products, OpenVINO CPU's bits where numpy's BLAS is OpenBLAS
SkylakeX: tests/test_conv_kernel.py); a real export under both profiles; OpenVINO CPU within the
rounding of a sum of products (tests/conv_host.py).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.interpreter import execute
from graphir.kernels import conv, taps
from graphir.kernels.conv import ConvKernel
from graphir.model import Model
from tests.conv_host import ROUNDING, built_kernels

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _loop(x: np.ndarray, w: np.ndarray, strides: list[int], dilations: list[int], begin: list[int],
          out_spatial: tuple[int, ...]) -> np.ndarray:
    """OpenVINO's reference depthwise convolution written out: for each output, ``sum = 0``, then
    ``sum += x * w`` over the taps in order (f32 roundings), taps on padding skipped."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[-2:]
    oh, ow = out_spatial
    out = np.zeros((n, c, oh, ow), np.float32)
    filters = w.reshape(c, kh, kw)
    with np.errstate(all="ignore"):
        for i in range(kh):
            for j in range(kw):
                for a in range(oh):
                    r = a * strides[0] + i * dilations[0] - begin[0]
                    for b in range(ow):
                        q = b * strides[1] + j * dilations[1] - begin[1]
                        if 0 <= r < h and 0 <= q < wd:
                            out[:, :, a, b] = out[:, :, a, b] + x[:, :, r, q] * filters[None, :, i, j]
    return out


def _same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    nan = np.isnan(want)
    return bool(got.shape == want.shape and (np.isnan(got) == nan).all()
                and got[~nan].tobytes() == want[~nan].tobytes())


def test_tap_sums_are_the_reference_loops_bits_on_random_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conv, "TAPS_MAX_WORK", 10**9)  # every size: the bits, not the choice
    monkeypatch.setattr(conv, "TAPS_MAX_WORK_STRIDED", 10**9)
    rng = np.random.default_rng(7)
    used = {"channels last": 0, "channels first": 0, "blocked": 0, "filters per channel": 0}
    for trial in range(260):
        c = int(rng.integers(1, 40)) if trial % 2 else int(rng.integers(1, 6))  # fewer channels than columns too
        h, wd = int(rng.integers(1, 12)), int(rng.integers(1, 17))
        kh, kw = (int(v) for v in rng.integers(1, 6, 2))
        strides = [int(v) for v in rng.integers(1, 4, 2)]
        dilations = [int(v) for v in rng.integers(1, 3, 2)]
        begin, end = [int(v) for v in rng.integers(-1, 4, 2)], [int(v) for v in rng.integers(-1, 4, 2)]
        x = rng.standard_normal((int(rng.integers(1, 4)), c, h, wd), dtype=np.float32)
        x[x > 1.6] = 0.0
        x[x < -1.6] = -0.0
        if trial % 5 == 0:
            x[0, 0, 0, 0] = np.inf
        w = rng.standard_normal((c, 1, 1, kh, kw), dtype=np.float32)
        blocked = trial % 3 == 0
        monkeypatch.setattr(taps, "TAPS_BLOCK_BYTES", 64 if blocked else 1 << 19)
        monkeypatch.setattr(taps, "TAPS_TILE_BYTES", 0 if trial % 4 == 1 else 1 << 20)  # filters per channel
        kernel = ConvKernel(x.shape, x.dtype, w.shape, strides, dilations, begin, end, taps=True)
        if kernel.tap_sum is None:
            assert c == 1 or min(kernel.out_spatial) <= 0  # one channel: a plain convolution's product
            continue
        got = kernel(x, kernel.weights(w))
        want = _loop(x, w, strides, dilations, begin, kernel.out_spatial)
        assert _same_bits(got, want), (x.shape, w.shape, strides, dilations, begin, end)
        used["channels last" if kernel.tap_sum.channels_last else "channels first"] += 1
        used["blocked"] += blocked and kernel.tap_sum.part < kernel.tap_sum.inner
        used["filters per channel"] += not kernel.tap_sum.tiled
    assert min(used.values()) >= 30, used


def test_the_sum_of_zero_products_is_plus_zero() -> None:
    """``-0 * w`` products only: the sum from +0 stays +0, as the reference loop's (the padding's
    products cannot turn a sum negative-zero either)."""
    x = np.full((1, 3, 4, 4), -0.0, np.float32)
    w = np.ones((3, 1, 1, 3, 3), np.float32)
    kernel = ConvKernel(x.shape, x.dtype, w.shape, [1, 1], [1, 1], [1, 1], [1, 1], taps=True)
    out = kernel(x, kernel.weights(w))
    assert kernel.tap_sum is not None and not np.signbit(out).any()


@pytest.mark.parametrize("taps_count, items", [(2, 2), (9, 3), (25, 2048), (49, 7), (200, 5)])
def test_numpy_reduces_the_leading_axis_row_after_row(taps_count: int, items: int) -> None:
    """What the tap sum rests on: ``np.add.reduce`` over axis 0 of a C-contiguous ``[T, M]`` array
    (``M >= 2``) from ``initial=0`` adds the rows in order, each sum rounded (not pairwise)."""
    rng = np.random.default_rng(taps_count)
    a = (rng.standard_normal((taps_count, items)) * 10.0 ** rng.uniform(-4, 4, (taps_count, items))).astype(np.float32)
    running = np.zeros(items, np.float32)
    for row in a:
        running = running + row
    assert np.add.reduce(a, axis=0, initial=np.float32(0)).tobytes() == running.tobytes()


def _depthwise_model(shape: tuple[int, ...], w: np.ndarray, stride: int, pad: int) -> Model:
    p = opset.parameter(list(shape), "f32")
    y = opset.make("GroupConvolution", p, opset.constant(w), strides=[stride] * 2, pads_begin=[pad] * 2,
                   pads_end=[pad] * 2, dilations=[1, 1])
    return Model([y], [p.node])


@pytest.mark.parametrize("shape, k, stride", [((2, 72, 4, 4), 5, 2), ((1, 64, 4, 4), 5, 1), ((2, 24, 16, 16), 3, 2),
                                              ((1, 144, 2, 2), 5, 1)])
def test_reference_sums_taps_and_openvino_cpu_keeps_the_blas_products(shape: tuple[int, ...], k: int, stride: int) -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape, dtype=np.float32)
    w = rng.standard_normal((shape[1], 1, 1, k, k), dtype=np.float32)
    model = _depthwise_model(shape, w, stride, k // 2)
    reference = list(model.run([x]).values())[0]
    generic = list(execute(model, [x], None, prepared=False).values())[0]
    cpu = list(model.run([x], numerics="openvino-cpu").values())[0]
    cpu_generic = list(execute(model, [x], None, numerics="openvino-cpu", prepared=False).values())[0]
    blas = ConvKernel(x.shape, x.dtype, w.shape, [stride] * 2, [1, 1], [k // 2] * 2, [k // 2] * 2)
    out_spatial = blas.out_spatial
    assert reference.tobytes() == generic.tobytes() == _loop(x, w, [stride] * 2, [1, 1], [k // 2] * 2, out_spatial).tobytes()
    assert cpu.tobytes() == cpu_generic.tobytes() == blas(x, blas.weights(w)).tobytes()
    magnitude = _loop(np.abs(x), np.abs(w), [stride] * 2, [1, 1], [k // 2] * 2, out_spatial).astype(np.float64)
    assert (np.abs(reference.astype(np.float64) - cpu) <= ROUNDING * np.finfo(np.float32).eps * magnitude).all()
    assert reference.tobytes() != cpu.tobytes()  # the FMAs' rounding differs somewhere on 1,000+ outputs


@pytest.mark.parametrize("channels, size, k, stride, summed", [
    (16, 4, 5, 1, True), (16, 7, 3, 1, True), (16, 7, 5, 1, False), (16, 14, 3, 1, False), (24, 16, 3, 2, True),
    (24, 16, 5, 2, True), (8, 32, 3, 2, True), (8, 64, 3, 2, False), (32, 32, 3, 2, True), (16, 56, 3, 1, False)])
def test_layers_past_the_work_keep_the_blas_products(channels: int, size: int, k: int, stride: int, summed: bool) -> None:
    """Taps times outputs per channel: up to 1,000 as tap sums (2,400 strided), the products past that."""
    f32, x_shape, w_shape = np.dtype(np.float32), (1, channels, size, size), (channels, 1, 1, k, k)
    kernel = ConvKernel(x_shape, f32, w_shape, [stride] * 2, [1, 1], [k // 2] * 2, [k // 2] * 2, taps=True)
    assert (kernel.tap_sum is not None) == summed and kernel.strategy == ("taps" if summed else "depthwise")
    blas = ConvKernel(x_shape, f32, w_shape, [stride] * 2, [1, 1], [k // 2] * 2, [k // 2] * 2)
    assert blas.tap_sum is None  # without taps=True (openvino-cpu, transposed convolutions): never


def test_only_f32_and_half_precision_layers_sum_taps() -> None:
    shapes = ((1, 16, 4, 4), (16, 1, 1, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1])
    f64 = ConvKernel(shapes[0], np.dtype(np.float64), *shapes[1:], taps=True)  # type: ignore[arg-type]
    assert f64.tap_sum is None  # f64 keeps its products in f64
    f16 = ConvKernel(shapes[0], np.dtype(np.float16), *shapes[1:], taps=True)  # type: ignore[arg-type]
    x = np.random.default_rng(1).standard_normal(shapes[0]).astype(np.float16)
    w = np.random.default_rng(2).standard_normal(shapes[1]).astype(np.float16)
    want = _loop(x.astype(np.float32), w.astype(np.float32), [1, 1], [1, 1], [1, 1], (4, 4)).astype(np.float16)
    assert f16.tap_sum is not None and f16(x, f16.weights(w)).tobytes() == want.tobytes()


def test_mobilenet_v3_small_export_under_both_profiles(monkeypatch: pytest.MonkeyPatch) -> None:
    built = built_kernels(monkeypatch)
    model = graphir.read_model(FIXTURES / "onnx" / "mobilenet_v3_small.onnx")
    x = np.random.default_rng(0).standard_normal((2, 3, 64, 64), dtype=np.float32)
    reference = model.run([x])
    summed = sum(k.tap_sum is not None for k in built)
    assert summed == 11  # every depthwise layer of this 64x64 export (2x2 to 16x16 outputs)
    built.clear()
    cpu = model.run([x], numerics="openvino-cpu")
    assert built and not any(k.tap_sum is not None for k in built)
    assert sum(k.strategy == "depthwise" for k in built) >= 11  # (and the band's once-per-shape checks)
    for name in reference:
        np.testing.assert_allclose(reference[name], cpu[name], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape, k, stride", [((1, 72, 4, 4), 5, 2), ((2, 40, 7, 7), 5, 1), ((1, 8, 32, 32), 3, 2)])
def test_reference_is_within_rounding_of_openvino_cpu(ov, shape: tuple[int, ...], k: int, stride: int) -> None:  # noqa: ANN001
    from tests.test_conv_kernel import openvino_depthwise

    rng = np.random.default_rng(9)
    x = rng.standard_normal(shape, dtype=np.float32)
    w = rng.standard_normal((shape[1], 1, 1, k, k), dtype=np.float32)
    got = list(_depthwise_model(shape, w, stride, k // 2).run([x]).values())[0]
    want = openvino_depthwise(ov, x, w, stride, k // 2, 1)
    magnitude = list(_depthwise_model(shape, np.abs(w), stride, k // 2).run([np.abs(x)]).values())[0]
    bound = ROUNDING * np.finfo(np.float32).eps * magnitude.astype(np.float64)
    assert got.shape == want.shape and (np.abs(got.astype(np.float64) - want) <= bound).all()
