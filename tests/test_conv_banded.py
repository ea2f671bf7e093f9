"""Depthwise convolutions on small maps as banded products (graphir/kernels/banded.py) keep the
bits of the former formulation: the padded input's window view copied whole, then one BLAS gemv
per channel (whose taps are summed in order with FMAs from zero; the band's zeros add nothing).

Checked on random layers, on the corpus layers that take the path (asserting that they do), on
inputs with zeros, negative zeros, infinities and NaNs (those take the columns layout), on real
exports run end to end, and against OpenVINO's CPU plugin. The band is used only where numpy's BLAS
is the one it was verified on (OpenBLAS SkylakeX: graphir.kernels.blas_host); elsewhere every layer
takes the columns layout (asserted: the band is not used, and the bits are the former ones), and the
OpenVINO comparison is within the measured cross-ISA rounding (tests/conv_host.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir.interpreter import execute
from graphir.kernels import banded, conv
from graphir.kernels.conv import ConvKernel
from tests.conv_host import LAYOUTS, assert_matches_openvino, built_kernels
from tests.test_conv_columns import _former
from tests.test_conv_kernel import openvino_depthwise

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _layer(x: np.ndarray, k: tuple[int, int], stride: int = 1, dilation: int = 1,
           pads: tuple[int, int] | None = None) -> ConvKernel:
    begin = [k[0] // 2 * dilation, k[1] // 2 * dilation] if pads is None else [pads[0]] * 2
    end = list(begin) if pads is None else [pads[1]] * 2
    return ConvKernel(x.shape, x.dtype, (x.shape[1], 1, 1, *k), [stride] * 2, [dilation] * 2, begin, end)


def test_banded_depthwise_keeps_the_former_bits_on_random_layers() -> None:
    rng = np.random.default_rng(11)
    used = checked = 0
    for _ in range(300):
        channels, height, width = int(rng.integers(1, 12)), int(rng.integers(2, 20)), int(rng.integers(2, 20))
        k = (int(rng.integers(2, 7)), int(rng.integers(2, 7)))
        strides = [int(v) for v in rng.integers(1, 3, 2)]
        dilations = [int(v) for v in rng.integers(1, 3, 2)]
        begin, end = [int(v) for v in rng.integers(0, 4, 2)], [int(v) for v in rng.integers(0, 4, 2)]
        x = rng.standard_normal((int(rng.integers(1, 3)), channels, height, width), dtype=np.float32)
        w = rng.standard_normal((channels, 1, 1, *k), dtype=np.float32)
        kernel = ConvKernel(x.shape, x.dtype, w.shape, strides, dilations, begin, end)
        if min(kernel.out_spatial) <= 0 or (kernel.banded is None and LAYOUTS):
            continue
        used += kernel.banded is not None
        checked += 1
        got = kernel(x, kernel.weights(w))
        assert got.tobytes() == _former(kernel, x, w).tobytes(), (x.shape, k, strides, dilations, begin, end)
    assert used > 40 if LAYOUTS else (used == 0 and checked > 40)


# MobileNetV3-small/large, EfficientNet-B0 and SSDlite layers whose outputs are <= 16 wide and whose
# band wastes little (7-wide 5x5: two output rows per product row)
@pytest.mark.parametrize("shape, k, stride", [((1, 576, 7, 7), 5, 1), ((1, 240, 14, 14), 5, 1),
                                              ((1, 672, 14, 14), 5, 1), ((1, 480, 14, 14), 5, 1),
                                              ((1, 1152, 7, 7), 5, 1), ((1, 1152, 7, 7), 3, 1),
                                              ((1, 960, 10, 10), 5, 1), ((1, 512, 5, 5), 3, 1),
                                              ((1, 128, 5, 5), 3, 2), ((1, 120, 14, 14), 5, 1)])
def test_corpus_layers_take_the_banded_product_with_the_former_bits(shape: tuple[int, ...], k: int,
                                                                     stride: int) -> None:
    rng = np.random.default_rng(12)
    x = rng.standard_normal(shape, dtype=np.float32)
    w = rng.standard_normal((shape[1], 1, 1, k, k), dtype=np.float32)
    kernel = _layer(x, (k, k), stride)
    assert (kernel.banded is not None) == LAYOUTS
    weights = kernel.weights(w)
    assert isinstance(weights, conv.BandedWeights) == LAYOUTS
    if kernel.banded is not None:
        out = np.empty(kernel.out_shape, np.float32)
        assert kernel.banded(x, weights.band, out)  # the band itself computed it, not the fallback
        assert out.tobytes() == _former(kernel, x, w).tobytes()
    assert kernel(x, weights).tobytes() == _former(kernel, x, w).tobytes()


def test_wide_outputs_and_wasteful_bands_keep_the_columns_layout() -> None:
    x = np.zeros((1, 8, 40, 40), np.float32)
    assert _layer(x, (3, 3)).banded is None  # 40 wide: the band's zeros would cost more than the copies
    assert _layer(np.zeros((1, 8, 9, 9), np.float32), (2, 2)).banded is None  # 4 taps: gemv sums otherwise
    # 3x3 on 14 wide (16 columns read per 3 taps), 5x5/2 on 28 (31 per 5): measured slower in whole runs
    assert _layer(np.zeros((1, 8, 14, 14), np.float32), (3, 3)).banded is None
    assert _layer(np.zeros((1, 8, 28, 28), np.float32), (5, 5), 2).banded is None


def test_seven_wide_maps_take_two_output_rows_per_product_row() -> None:
    """One row of 7 outputs would leave a 14-column band half unused; two rows fill it."""
    kernel = _layer(np.zeros((1, 8, 7, 7), np.float32), (5, 5))
    if not LAYOUTS:
        assert kernel.banded is None
        return
    assert kernel.banded is not None
    assert (kernel.banded.rows_per, kernel.banded.columns, kernel.banded.products) == (2, 14, 4)
    assert kernel.banded.waste() < banded.BANDED_MAX_WASTE


def test_zeros_and_negative_zeros_keep_their_signs() -> None:
    rng = np.random.default_rng(13)
    x = rng.standard_normal((2, 6, 7, 7), dtype=np.float32)
    x[0, :3] = 0.0
    x[1, :3] = -0.0
    x[0, 4, ::2] = -0.0
    w = rng.standard_normal((6, 1, 1, 5, 5), dtype=np.float32)
    w[1] = -np.abs(w[1])
    w[2] = 0.0
    kernel = _layer(x, (5, 5))
    assert (kernel.banded is not None) == LAYOUTS
    got = kernel(x, kernel.weights(w))
    assert np.signbit(got).any() and (got == 0).any()
    assert got.tobytes() == _former(kernel, x, w).tobytes()


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan, 3e38])
def test_inputs_that_are_not_finite_take_the_columns_layout(bad: float) -> None:
    """``0 * inf`` in the band's zeros would turn outputs the infinity never reaches into NaN; a
    sum that overflows (3e38 twice) is treated alike. The columns layout computes those."""
    rng = np.random.default_rng(14)
    x = rng.standard_normal((1, 5, 14, 14), dtype=np.float32)
    x[0, 2, 3, 4] = bad
    x[0, 2, 5, 4] = bad
    w = rng.standard_normal((5, 1, 1, 5, 5), dtype=np.float32)
    kernel = _layer(x, (5, 5))
    assert (kernel.banded is not None) == LAYOUTS
    weights = kernel.weights(w)
    if kernel.banded is not None:
        assert not kernel.banded(x, weights.band, np.empty(kernel.out_shape, np.float32))
    got = kernel(x, weights)
    assert got.tobytes() == _former(kernel, x, w).tobytes()
    assert np.isfinite(got[0, 0]).all() and np.isfinite(got[0, 2, 0]).all()


def test_a_band_that_sums_otherwise_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """The once-per-shape check compares the band with the columns layout: a product that rounds
    differently (here: the columns' result one ulp off) keeps the columns layout."""
    monkeypatch.setattr(banded, "_checked", {})
    plain = ConvKernel._reference_with

    def off_by_one_ulp(self: ConvKernel, channels: int):  # type: ignore[no-untyped-def]
        exact = plain(self, channels)
        return lambda x, w: np.nextafter(exact(x, w), np.float32(np.inf))

    monkeypatch.setattr(ConvKernel, "_reference_with", off_by_one_ulp)
    x = np.zeros((1, 4, 7, 7), np.float32)
    kernel = _layer(x, (3, 3))
    assert kernel.banded is None and (kernel.phased is not None) == LAYOUTS
    assert all(not same for same in banded._checked.values())
    assert bool(banded._checked) == LAYOUTS  # elsewhere the band is not even tried


def test_the_band_width_chosen_is_one_that_matched_the_columns_layout() -> None:
    """OpenBLAS 0.3.31 (SkylakeX) sums 7-column products with 55 inner items in another order: the
    7x7 5x5 layers take a 14-column band there (its extra columns zero, dropped). Whatever the BLAS,
    the width chosen is one whose product matched the columns layout in the check."""
    kernel = _layer(np.zeros((1, 8, 7, 7), np.float32), (5, 5))
    if not LAYOUTS:
        assert kernel.banded is None
        return
    assert kernel.banded is not None and kernel.banded.columns >= 7
    key = [key for key, same in banded._checked.items() if same and key[-1] == kernel.banded.columns]
    assert key


@pytest.mark.parametrize("name", ["torchvision/mobilenet_v3_small.xml", "torchvision/lraspp_mobilenet_v3_small.xml"])
def test_real_exports_run_with_the_same_bits_with_and_without_the_band(name: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    shape = [1, 3, 224, 224] if "lraspp" not in name else [1, 3, 160, 192]
    x = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    built = built_kernels(monkeypatch)
    model = graphir.read_model(FIXTURES / name)
    model.reshape([shape])
    # the band is a BLAS layout: the openvino-cpu profile's (the reference sums small depthwise
    # layers tap by tap, graphir.kernels.taps)
    with_band = model.run([x], numerics="openvino-cpu")
    assert sum(k.banded is not None for k in built) >= 4 if LAYOUTS else not any(k.banded for k in built)
    generic = execute(model, [x], None, numerics="openvino-cpu", prepared=False)
    monkeypatch.setattr(conv, "BANDED_MAX_WIDTH", 0)
    model = graphir.read_model(FIXTURES / name)
    model.reshape([shape])
    without = model.run([x], numerics="openvino-cpu")
    for key in with_band:
        assert with_band[key].tobytes() == without[key].tobytes() == generic[key].tobytes(), key


@pytest.mark.parametrize("shape, k, stride, dilation", [((1, 96, 7, 7), 5, 1, 1), ((1, 40, 14, 14), 5, 1, 1),
                                                        ((2, 24, 10, 10), 5, 1, 1), ((1, 128, 5, 5), 3, 2, 1),
                                                        ((1, 64, 5, 5), 3, 1, 1)])
def test_banded_depthwise_bits_equal_openvino_cpu(ov, shape: tuple[int, ...], k: int, stride: int,
                                                  dilation: int) -> None:
    rng = np.random.default_rng(15)
    x = rng.standard_normal(shape, dtype=np.float32)
    w = rng.standard_normal((shape[1], 1, 1, k, k), dtype=np.float32)
    kernel = _layer(x, (k, k), stride, dilation)
    assert (kernel.banded is not None) == LAYOUTS
    got = kernel(x, kernel.weights(w))
    want = openvino_depthwise(ov, x, w, stride, k // 2 * dilation, dilation)
    assert_matches_openvino(got, want, kernel(np.abs(x), kernel.weights(np.abs(w))))


@pytest.mark.parametrize("blas", [("openblas", "Haswell"), ("openblas", "Zen"), None])
def test_another_blas_takes_the_plain_layouts(monkeypatch: pytest.MonkeyPatch, blas: tuple[str, str] | None) -> None:
    """On a BLAS the layouts were not verified on (OpenBLAS's Haswell or Zen kernels, an unknown one) no
    layer takes the band, the phased layout or the chunked skipping product, on any host: the plain
    layouts compute it, with the former bits, and the host report says the convolutions are not replayed."""
    import graphir.numerics
    from graphir.kernels import blas_host

    monkeypatch.setattr(blas_host, "numpy_blas", lambda: blas)
    rng = np.random.default_rng(16)
    for shape, k, stride in (((1, 96, 7, 7), 5, 1), ((1, 40, 28, 28), 5, 2), ((1, 24, 20, 20), 3, 1)):
        x = rng.standard_normal(shape, dtype=np.float32)
        w = rng.standard_normal((shape[1], 1, 1, k, k), dtype=np.float32)
        kernel = _layer(x, (k, k), stride)
        assert kernel.banded is None and kernel.phased is None
        assert kernel(x, kernel.weights(w)).tobytes() == _former(kernel, x, w).tobytes()
    aspp = ConvKernel((1, 960, 16, 16), np.dtype(np.float32), (1, 256, 960, 3, 3), [1, 1], [36, 36], [36, 36], [36, 36])
    assert aspp.skipping is None
    assert "not this host" in graphir.numerics.host_report()[-1]


@pytest.mark.parametrize("first", [np.float32, np.float16])
def test_half_precision_layers_take_the_band_and_keep_their_type(first: type) -> None:
    """The band computes in f32 and is checked once per shape in f32: an f16 layer takes it whether
    an f32 layer of that shape came first or not, and returns f16 (the f32 result rounded)."""
    rng = np.random.default_rng(21)
    shape, k = (1, 40, 9, 11), (3, 5)  # a shape of its own: the check's cache starts empty here
    x = rng.standard_normal(shape, dtype=np.float32).astype(np.float16)
    w = rng.standard_normal((shape[1], 1, 1, *k), dtype=np.float32).astype(np.float16)
    kernels = {}
    for dtype in (first, np.float16 if first is np.float32 else np.float32):
        kernels[dtype] = ConvKernel(shape, np.dtype(dtype), w.shape, [1, 1], [1, 1], [1, 2], [1, 2])
    half, single = kernels[np.float16], kernels[np.float32]
    assert (half.banded is not None) == (single.banded is not None) == LAYOUTS
    got = half(x, half.weights(w))
    assert got.dtype == np.float16
    want = single(x.astype(np.float32), single.weights(w.astype(np.float32))).astype(np.float16)
    assert got.tobytes() == want.tobytes()
