"""The phased depthwise layout of graphir/kernels/conv.py gives the plain layout's bits.

A 2-D depthwise convolution (f32, at least 6 taps) builds its columns from the input's stride
phases over full phase rows (:class:`PhasedDepthwise`) instead of one window copy per tap and
output pixel. Both feed the same BLAS product, tap by tap in the same order, so every output must
keep its bits: checked on random shapes, strides, dilations and paddings, on real torchvision
exports run end to end, and against OpenVINO's CPU plugin (whose depthwise kernel sums the taps
in the same order with fused multiply-adds: equal bits, not a tolerance, where numpy's BLAS is
OpenBLAS SkylakeX). The phased layout is used only with that BLAS (graphir.kernels.blas_host):
elsewhere every layer keeps the plain layout (asserted), and the OpenVINO comparison is within the
measured cross-ISA rounding (tests/conv_host.py).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir.interpreter import _run_unspecialized
from graphir.kernels import conv
from graphir.kernels.conv import ConvKernel
from tests.conv_host import LAYOUTS, assert_matches_openvino, built_kernels

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def phased_for_every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the phased layout: 3x3 layers with large maps otherwise build their
    columns tap by tap (tests/test_conv_columns.py), and small maps run as banded products
    (tests/test_conv_banded.py)."""
    monkeypatch.setattr(conv, "TAP_COLUMNS_MAX_TAPS", 0)
    monkeypatch.setattr(conv, "BANDED_MAX_WIDTH", 0)


def _both(x: np.ndarray, w: np.ndarray, strides: list[int], dilations: list[int], begin: list[int],
          end: list[int]) -> tuple[np.ndarray, np.ndarray] | None:
    kernel = ConvKernel(x.shape, x.dtype, w.shape, strides, dilations, begin, end)
    if kernel.phased is None:
        return None
    assert LAYOUTS, "the phased layout on a BLAS it was not verified on"
    weights = kernel.weights(w)
    phased = kernel(x, weights)
    kernel.phased = None  # the plain layout: one window copy per tap and output pixel
    return phased, kernel(x, weights)


def test_phased_depthwise_keeps_the_plain_layouts_bits_on_random_layers() -> None:
    rng = np.random.default_rng(5)
    used = 0
    for _ in range(400):
        channels, height, width = (int(v) for v in rng.integers(1, 16, 3))
        kh, kw = int(rng.integers(2, 6)), int(rng.integers(2, 6))
        strides = [int(v) for v in rng.integers(1, 4, 2)]
        dilations = [int(v) for v in rng.integers(1, 3, 2)]
        begin, end = [int(v) for v in rng.integers(0, 4, 2)], [int(v) for v in rng.integers(0, 4, 2)]
        x = rng.standard_normal((int(rng.integers(1, 3)), channels, height, width), dtype=np.float32)
        w = rng.standard_normal((channels, 1, 1, kh, kw), dtype=np.float32)
        pair = _both(x, w, strides, dilations, begin, end)
        if pair is None:
            continue
        used += 1
        assert pair[0].shape == pair[1].shape
        assert pair[0].tobytes() == pair[1].tobytes(), (x.shape, w.shape, strides, dilations, begin, end)
    assert used > 150 if LAYOUTS else used == 0


@pytest.mark.parametrize("shape, k, stride", [((1, 32, 112, 112), 3, 1), ((1, 144, 56, 56), 5, 2),
                                              ((1, 672, 14, 14), 5, 1), ((1, 1152, 7, 7), 3, 1),
                                              ((1, 4, 126, 126), 3, 1)])  # 126 x 128 = 16,128 columns
def test_phased_depthwise_on_mobilenet_and_efficientnet_layers(shape: tuple[int, ...], k: int, stride: int) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape, dtype=np.float32)
    w = rng.standard_normal((shape[1], 1, 1, k, k), dtype=np.float32)
    pair = _both(x, w, [stride, stride], [1, 1], [k // 2] * 2, [k // 2] * 2)
    assert (pair is not None) == LAYOUTS
    if pair is not None:
        assert pair[0].tobytes() == pair[1].tobytes()


@pytest.mark.parametrize("name", ["torchvision/mobilenet_v3_small.xml", "torchvision/lraspp_mobilenet_v3_small.xml"])
def test_real_exports_run_with_the_same_bits_in_either_layout(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    built = built_kernels(monkeypatch)
    shape = [1, 3, 224, 224] if "lraspp" not in name else [1, 3, 160, 192]
    model = _reread(name, shape)
    x = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    # the phased layout is a BLAS layout: every depthwise layer's under openvino-cpu (the reference
    # sums small layers tap by tap: graphir.kernels.taps)
    phased = model.run([x], numerics="openvino-cpu")
    assert sum(k.phased is not None for k in built) >= 5 if LAYOUTS else not any(k.phased for k in built)
    monkeypatch.setattr(conv, "PhasedDepthwise", lambda *a: None)
    plain = _reread(name, shape).run([x], numerics="openvino-cpu")
    for key in phased:
        assert phased[key].tobytes() == plain[key].tobytes(), key


def _reread(name: str, shape: list[int]) -> graphir.Model:
    model = graphir.read_model(FIXTURES / name)
    model.reshape([shape])
    return model


@pytest.mark.parametrize("shape, k, stride, dilation", [((1, 24, 20, 20), 3, 1, 1), ((1, 40, 28, 28), 5, 2, 1),
                                                        ((2, 16, 15, 17), 3, 1, 2), ((1, 96, 9, 9), 5, 1, 1)])
def test_phased_depthwise_bits_equal_openvino_cpu(ov, shape: tuple[int, ...], k: int, stride: int, dilation: int) -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape, dtype=np.float32)
    w = rng.standard_normal((shape[1], 1, 1, k, k), dtype=np.float32)
    pad = k // 2 * dilation
    kernel = ConvKernel(x.shape, x.dtype, w.shape, [stride] * 2, [dilation] * 2, [pad] * 2, [pad] * 2)
    assert (kernel.phased is not None) == LAYOUTS
    got = kernel(x, kernel.weights(w))
    want = openvino_depthwise(ov, x, w, stride, pad, dilation)
    assert_matches_openvino(got, want, kernel(np.abs(x), kernel.weights(np.abs(w))))


def openvino_depthwise(ov, x: np.ndarray, w: np.ndarray, stride: int, pad: int, dilation: int) -> np.ndarray:  # noqa: ANN001
    """OpenVINO CPU's GroupConvolution of ``x`` with ``w [G, 1, 1, k, k]`` (f32, one thread)."""
    from openvino import opset13 as ops

    from tests.ops.ov_diff import core

    p = ops.parameter(list(x.shape), ov.Type.f32)
    y = ops.group_convolution(p, ops.constant(w), [stride] * 2, [pad] * 2, [pad] * 2, [dilation] * 2)
    compiled = core(ov).compile_model(ov.Model([y], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                                  "INFERENCE_NUM_THREADS": 1})
    return compiled([x])[0]


@pytest.mark.parametrize("n, ci, co, size, k", [(4, 256, 256, 14, 2), (1, 64, 64, 20, 2), (3, 128, 64, 10, 3),
                                                (2, 64, 32, 9, 2)])
def test_tiling_transposed_convolution_bits_equal_openvino_cpu(ov, n: int, ci: int, co: int, size: int, k: int) -> None:
    """Kernel == stride (Mask R-CNN's 2x2 stride-2 mask upsampling) runs as one product per image
    past OpenBLAS's small sizes; OpenVINO's deconvolution gives the same bits (the zero-dilated
    im2col it replaced matched OpenVINO on 11% of the Mask R-CNN layer's outputs), where numpy's
    BLAS is OpenBLAS SkylakeX; elsewhere within the measured cross-ISA rounding (tests/conv_host.py).
    The last case is below the size and keeps the general path, which matches there."""
    from openvino import opset13 as ops

    from graphir import opset
    from graphir.model import Model
    from graphir.ops.openvino import conv as conv_ops
    from tests.ops.ov_diff import core

    rng = np.random.default_rng(6)
    x = rng.standard_normal((n, ci, size, size), dtype=np.float32)
    w = (rng.standard_normal((ci, co, k, k)) * 0.05).astype(np.float32)
    tiled = conv_ops._tiled_transpose(x, w[None], [k, k], [1, 1], [0, 0], [0, 0], [0, 0])
    assert (tiled is not None) == (co * k * k * ci * size * size >= conv_ops.TILED_TRANSPOSE_MIN_MACS)
    p = opset.parameter([n, ci, size, size], "f32")
    y = opset.make("ConvolutionBackpropData", p, opset.constant(w), strides=[k, k], pads_begin=[0, 0],
                   pads_end=[0, 0], dilations=[1, 1])
    model = Model([y], [p.node])
    got = list(model.run([x]).values())[0]
    generic = list(_run_unspecialized(model, [x]).values())[0]
    q = ops.parameter([n, ci, size, size], ov.Type.f32)
    z = ops.convolution_backprop_data(q, ops.constant(w), strides=[k, k], pads_begin=[0, 0], pads_end=[0, 0],
                                      dilations=[1, 1])
    compiled = core(ov).compile_model(ov.Model([z], [q]), "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                                  "INFERENCE_NUM_THREADS": 1})
    want = compiled([x])[0]
    assert got.tobytes() == generic.tobytes()
    p_abs = opset.parameter([n, ci, size, size], "f32")
    absolute = Model([opset.make("ConvolutionBackpropData", p_abs, opset.constant(np.abs(w)), strides=[k, k],
                                 pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1])], [p_abs.node])
    assert_matches_openvino(got, want, list(absolute.run([np.abs(x)]).values())[0])


@pytest.mark.parametrize("shape, k", [((1, 16, 128, 128), 3), ((1, 8, 20, 20), 7)])
def test_depthwise_layers_where_gemv_sums_otherwise_keep_the_plain_layout(shape: tuple[int, ...], k: int) -> None:
    """DeepLabV3's 16x128x128 layer (128 x 130 = 16,640 phased columns: past 16,384 OpenBLAS's gemv
    sums in another order, which depends on the length) and 49 taps keep the plain layout."""
    x = np.zeros(shape, np.float32)
    kernel = ConvKernel(x.shape, x.dtype, (shape[1], 1, 1, k, k), [1, 1], [1, 1], [k // 2] * 2, [k // 2] * 2)
    assert kernel.strategy == "depthwise" and kernel.phased is None
