"""A stack of f32 matrices times one 2-D matrix runs as one flattened BLAS product
(graphir.ops.openvino.matmul.matmul) only where that gives numpy's stacked product bit for bit: with
numpy on OpenBLAS's SkylakeX kernels (graphir.kernels.blas_host); on other BLAS kernels (Haswell: the
flattened product differs) it is not flattened, which the same bit-for-bit assertions check there."""
from __future__ import annotations

import numpy as np
import pytest

from graphir.kernels import blas_host
from graphir.ops.openvino.matmul import FLAT_MIN_MACS, matmul


@pytest.mark.parametrize("a_shape, b_shape", [
    ((1, 14, 14, 384), (384, 1536)), ((1, 14, 14, 1536), (1536, 384)), ((1, 7, 7, 768), (768, 3072)),
    ((4, 49, 384), (384, 1152)), ((1, 56, 56, 96), (96, 384)), ((2, 3, 65, 512), (512, 128)),
])
def test_flattened_product_keeps_the_stacked_bits_on_swin_and_vit_shapes(a_shape: tuple[int, ...],
                                                                        b_shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(a_shape, dtype=np.float32)
    w = rng.standard_normal(b_shape[::-1], dtype=np.float32)
    for b in (w.T, np.ascontiguousarray(w.T)):  # transposed constant weights (a view) and plain ones
        got = matmul(a, b)
        assert got.shape == a_shape[:-1] + (b_shape[1],)
        assert got.tobytes() == np.matmul(a, b).tobytes()


def test_flattened_product_keeps_the_stacked_bits_on_random_sizes() -> None:
    rng = np.random.default_rng(1)
    flattened = 0
    for _ in range(60):
        m, k, n = (int(v) for v in rng.integers(2, 400, 3))
        a = rng.standard_normal((int(rng.integers(1, 4)), int(rng.integers(1, 4)), m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        flattened += m * k * n >= FLAT_MIN_MACS
        assert matmul(a, b).tobytes() == np.matmul(a, b).tobytes(), (a.shape, b.shape)
    assert flattened >= 10  # sizes that are flattened where numpy's BLAS is the verified one


def test_another_blas_is_not_flattened(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a BLAS the flattening was not verified on, matmul is numpy's stacked product: the flattened
    product (what the verified BLAS runs) is not called."""
    calls: list[tuple[int, ...]] = []
    plain = np.matmul

    def counting(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        calls.append(x.shape)
        return plain(x, y)

    a = np.ones((1, 14, 14, 384), np.float32)
    b = np.ones((384, 1536), np.float32)
    for blas, flattened in ((("openblas", "Haswell"), False), (None, False), (("openblas", "SkylakeX"), True)):
        monkeypatch.setattr(blas_host, "numpy_blas", lambda blas=blas: blas)
        monkeypatch.setattr(np, "matmul", counting)
        calls.clear()
        matmul(a, b)
        monkeypatch.setattr(np, "matmul", plain)
        assert calls == [(196, 384) if flattened else (1, 14, 14, 384)], blas


def test_single_rows_and_small_matrices_keep_numpys_own_product() -> None:
    """One row per matrix is a gemv in numpy's stacked product (it rounds differently from a
    flattened gemm), and small matrices take OpenBLAS's small kernels: neither is flattened."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 1, 3072), dtype=np.float32)
    b = rng.standard_normal((3072, 384), dtype=np.float32)
    assert matmul(a, b).tobytes() == np.matmul(a, b).tobytes()
    a = rng.standard_normal((3, 7, 33), dtype=np.float32)
    b = rng.standard_normal((33, 17), dtype=np.float32)
    assert matmul(a, b).tobytes() == np.matmul(a, b).tobytes()
