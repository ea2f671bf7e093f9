"""Prepared steps for the small nets of benchmarks/real_files.py (vit, bert, lstm_classifier), each against its
former formulation bit for bit, and taken where it applies:

* MatMul by constant transposed weights: the weights laid out once (contiguous) where the product's
  bits are checked equal to the transposed view's (``contiguous_b_keeps_bits``);
* Convolution whose windows tile the input (a ViT's patch embedding): the im2col columns as one
  transposed copy (``ConvKernel.patches``);
* MVN f32 over static shapes: ``np.mean``'s arithmetic without its Python layers;
* LSTMSequence f32: the sigmoid gates' rows of W, R, B negated once (no ``negative`` per step);
* Gather with constant indices: checked once.
"""
from __future__ import annotations

import numpy as np
import pytest

from graphir import Model, opset
from graphir.interpreter import get_plan, _run_unspecialized, specialization
from graphir.kernels.columns import TapColumns
from graphir.kernels.conv import ConvKernel
from graphir.ops.openvino import matmul as matmul_module
from graphir.ops.openvino.matmul import contiguous_b_keeps_bits, matmul
from graphir.ops.openvino.normalization import _mvn, _mvn_f32_prepared


def _edge_values(shape: tuple[int, ...], rng: np.random.Generator) -> list[np.ndarray]:
    base = rng.standard_normal(shape).astype(np.float32)
    special = base.copy().reshape(-1)
    special[::9] = 0.0
    special[1::9] = -0.0
    special[2::13] = np.inf
    special[3::17] = -np.inf
    special[4::19] = np.nan
    special[5::23] = 1e-40
    return [base, base * np.float32(1e30), base * np.float32(1e-30), special.reshape(shape), np.zeros(shape, np.float32)]


@pytest.mark.parametrize("a_shape,n", [((1, 65, 128), 128), ((1, 65, 128), 512), ((1, 65, 512), 128),
                                       ((1, 32, 128), 128), ((1, 32, 128), 512), ((1, 32, 512), 128),
                                       ((2, 7, 64), 64), ((1, 1, 128), 2)])
def test_contiguous_weights_keep_the_transposed_views_bits(a_shape: tuple[int, ...], n: int) -> None:
    """Where the check says the layouts agree, they agree on values it did not try (random, huge,
    tiny, zeros of both signs, infinities, NaN); where it says no, the view is kept."""
    rng = np.random.default_rng(n + a_shape[1])
    k = a_shape[-1]
    same = contiguous_b_keeps_bits(a_shape, k, n)
    if a_shape[-2] * k * n <= matmul_module.SMALL_KERNEL_MAX_MACS:
        assert not same  # OpenBLAS's small kernels (bert's [32,128] x [128,128] differ in zero signs)
        return
    assert same  # OpenBLAS's level-3 driver packs both layouts into the same panels
    w = rng.standard_normal((n, k)).astype(np.float32)
    for a in _edge_values(a_shape, rng):
        for weights in (w, w * np.float32(1e-20)):
            with np.errstate(all="ignore"):
                assert matmul(a, weights.T).tobytes() == matmul(a, np.ascontiguousarray(weights.T)).tobytes()


def test_vits_products_use_contiguous_weights_and_keep_the_generic_bits() -> None:
    rng = np.random.default_rng(7)
    x = opset.parameter([1, 65, 128], "f32", name="x")
    w = rng.standard_normal((512, 128)).astype(np.float32)
    y = opset.matmul(x, opset.constant(w), False, True)
    model = Model([y], [x.node])
    value = rng.standard_normal((1, 65, 128)).astype(np.float32)
    matmul_module._layout_same.clear()
    fast = model.run([value])
    assert matmul_module._layout_same == {((1, 65, 128), 128, 512): True}  # checked once, then used
    generic = _run_unspecialized(model, [value])
    assert [a.tobytes() for a in fast.values()] == [a.tobytes() for a in generic.values()]


def test_a_layout_that_changes_the_bits_keeps_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    numpy_matmul = np.matmul

    def fake_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        seen.append(bool(b.flags.c_contiguous))
        return numpy_matmul(a, b)

    monkeypatch.setattr(matmul_module, "contiguous_b_keeps_bits", lambda *args: False)
    # numpy's own: the prepared step calls it directly for sizes matmul() would not flatten
    monkeypatch.setattr(np, "matmul", fake_matmul)
    x = opset.parameter([1, 65, 128], "f32", name="x")
    model = Model([opset.matmul(x, opset.constant(np.ones((64, 128), np.float32)), False, True)], [x.node])
    model.run([np.ones((1, 65, 128), np.float32)])
    assert seen == [False]


@pytest.mark.parametrize("x_shape,w_shape,kernel", [
    ((1, 3, 64, 64), (1, 128, 3, 8, 8), (8, 8)), ((2, 3, 66, 67), (1, 16, 3, 8, 8), (8, 8)),
    ((1, 4, 9, 10), (1, 5, 4, 3, 2), (3, 2)), ((3, 2, 12), (1, 3, 2, 4), (4,)), ((1, 2, 4, 4, 6), (1, 3, 2, 2, 2, 3), (2, 2, 3)),
])
def test_patch_columns_keep_the_tap_columns_bits(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                                                 kernel: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(x_shape) + x_shape[-1])
    ns = len(kernel)
    args = (x_shape, np.dtype(np.float32), w_shape, kernel, (1,) * ns, (0,) * ns, (0,) * ns)
    patches = ConvKernel(*args)
    assert patches.patches and patches.columns is None
    taps = ConvKernel(*args)
    taps.patches = False
    taps.columns = TapColumns(x_shape[2:], w_shape[3:], kernel, (1,) * ns, (0,) * ns, taps.out_spatial)
    w = rng.standard_normal(w_shape[1:]).astype(np.float32)
    for x in _edge_values(x_shape, rng):
        with np.errstate(all="ignore"):
            assert patches(x, patches.weights(w)).tobytes() == taps(x, taps.weights(w)).tobytes()


def test_overlapping_or_padded_windows_are_not_patches() -> None:
    f32 = np.dtype(np.float32)
    assert not ConvKernel((1, 3, 16, 16), f32, (1, 8, 3, 4, 4), (2, 2), (1, 1), (0, 0), (0, 0)).patches
    assert not ConvKernel((1, 3, 16, 16), f32, (1, 8, 3, 4, 4), (4, 4), (1, 1), (1, 1), (1, 1)).patches
    assert not ConvKernel((1, 3, 16, 16), f32, (1, 8, 3, 2, 2), (2, 2), (2, 2), (0, 0), (0, 0)).patches
    assert not ConvKernel((1, 4, 16, 16), f32, (2, 2, 2, 4, 4), (4, 4), (1, 1), (0, 0), (0, 0)).patches  # grouped


@pytest.mark.parametrize("axes", [(2,), (1, 2), (1,), (0, 2)])
@pytest.mark.parametrize("variance", [True, False])
@pytest.mark.parametrize("inside", [True, False])
def test_prepared_mvn_keeps_the_former_bits(axes: tuple[int, ...], variance: bool, inside: bool) -> None:
    rng = np.random.default_rng(len(axes))
    shape = (2, 65, 128)
    count = int(np.prod([shape[a] for a in axes]))
    for eps in (1e-12, 1e-5, 0.25):
        prepared = _mvn_f32_prepared(axes, count, variance, eps, inside)
        for x in _edge_values(shape, rng):
            with np.errstate(all="ignore"):
                assert prepared(x).tobytes() == _mvn(x, axes, variance, eps, inside).tobytes()


def test_mvn_step_takes_the_prepared_path() -> None:
    x = opset.parameter([1, 65, 128], "f32", name="x")
    y = opset.mvn(x, opset.constant(np.array([2], np.int32)), normalize_variance=True, eps=1e-12, eps_mode="inside_sqrt")
    model = Model([y], [x.node])
    value = np.random.default_rng(2).standard_normal((1, 65, 128)).astype(np.float32)
    spec = specialization(model, get_plan(model), [value])
    (step,) = [s for s in spec.steps if s[-1].op.type_name == "MVN"]
    assert "fast" in step[0].__code__.co_freevars  # the closure over _mvn_f32_prepared's function
    assert [a.tobytes() for a in model.run([value]).values()] == \
        [a.tobytes() for a in _run_unspecialized(model, [value]).values()]


@pytest.mark.parametrize("dirs", [["forward"], ["reverse"], ["forward", "reverse"]])
@pytest.mark.parametrize("batch", [1, 3])
def test_lstm_with_negated_gate_rows_keeps_the_plain_bits(dirs: list[str], batch: int) -> None:
    """Random, huge (overflowing), tiny, zero, infinite and NaN inputs; NaN results (whose sign
    would follow the other path) are recomputed by the plain formulation."""
    from graphir.ops.openvino.recurrent import _lstm_f32, _lstm_f32_plain

    rng = np.random.default_rng(batch + len(dirs))
    n, k, seq = 16, 8, 5
    w = rng.standard_normal((len(dirs), 4 * n, k)).astype(np.float32)
    r = rng.standard_normal((len(dirs), 4 * n, n)).astype(np.float32)
    b = rng.standard_normal((len(dirs), 4 * n)).astype(np.float32)
    h0 = rng.standard_normal((batch, len(dirs), n)).astype(np.float32)
    c0 = rng.standard_normal((batch, len(dirs), n)).astype(np.float32)
    for x in _edge_values((batch, seq, k), rng) + [np.full((batch, seq, k), 1e20, np.float32)]:
        for weights in (w, w * np.float32(1e25)):
            with np.errstate(all="ignore"):
                fast = _lstm_f32(x, h0, c0, weights, r, b, dirs, n)
                plain = _lstm_f32_plain(x, h0, c0, weights, r, b, dirs, n)
            assert [a.tobytes() for a in fast] == [a.tobytes() for a in plain]


def test_constant_gather_indices_are_checked_once() -> None:
    for index in (-1, 3, 0):
        x = opset.parameter([2, 7, 4], "f32", name="x")  # a node belongs to one model: one per model
        y = opset.gather(x, opset.constant(np.array(index, np.int64)), opset.constant(np.array(1, np.int64)))
        model = Model([y], [x.node])
        value = np.random.default_rng(index + 5).standard_normal((2, 7, 4)).astype(np.float32)
        spec = specialization(model, get_plan(model), [value])
        assert {s[0].__name__ for s in spec.steps} == {"gather_constant"}
        (out,) = model.run([value]).values()
        assert out.tobytes() == value[:, index].tobytes()
        assert out.tobytes() == next(iter(_run_unspecialized(model, [value]).values())).tobytes()
