"""The reference DFT/IDFT/RDFT/IRDFT transform large tensors in blocks cut along the axes they do not
transform: the same bits as one whole transform (written out here as it was before blocks), and
f64 temporaries bounded by the block, not by the tensor."""
from __future__ import annotations

import tracemalloc
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from graphir.ops.openvino import fft

RNG = np.random.default_rng(31)
DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16]


def _whole(name: str, x: np.ndarray, axes: list[int], sizes: list[int] | None) -> np.ndarray:
    """The transform of the whole tensor at once, in f64, rounded once (graphir before blocks)."""
    rank = x.ndim if name == "RDFT" else x.ndim - 1
    ax = [a + rank if a < 0 else a for a in axes]
    if name == "RDFT":
        s = [x.shape[a] if sizes is None or sizes[i] == -1 else sizes[i] for i, a in enumerate(ax)]
        z = np.fft.rfftn(x.astype(np.float64), s=s, axes=ax)
        return np.stack([z.real, z.imag], axis=-1).astype(x.dtype)
    zin = x[..., 0].astype(np.float64) + 1j * x[..., 1].astype(np.float64)
    s = [zin.shape[a] if sizes is None or sizes[i] == -1 else sizes[i] for i, a in enumerate(ax)]
    if name == "IRDFT":
        if sizes is None or sizes[-1] == -1:
            s[-1] = 2 * (zin.shape[ax[-1]] - 1)
        return np.fft.irfftn(zin, s=s, axes=ax).astype(x.dtype)
    shape = list(zin.shape)
    for a, n in zip(ax, s):
        shape[a] = n
    z = np.zeros(shape, np.complex128)
    common = tuple(slice(0, min(a, b)) for a, b in zip(zin.shape, shape))
    z[common] = zin[common]
    for a in sorted(set(ax)):
        z = np.fft.ifft(z, axis=a) if name == "IDFT" else np.fft.fft(z, axis=a)
    return np.stack([z.real, z.imag], axis=-1).astype(x.dtype)


def _case(rng: np.random.Generator, name: str) -> tuple[np.ndarray, list[int], list[int] | None]:
    rank = int(rng.integers(1, 5))
    shape = [int(v) for v in rng.integers(1, 8, rank)]
    axes = sorted(int(a) for a in rng.choice(rank, int(rng.integers(1, rank + 1)), replace=False))
    if rng.random() < 0.3:
        axes = [a - rank for a in axes]
    sizes = None
    if rng.random() < 0.5:
        sizes = [int(rng.integers(1, 9)) if rng.random() < 0.7 else -1 for _ in axes]
    if name == "IRDFT" and (sizes is None or sizes[-1] == -1) and shape[axes[-1]] < 2:
        shape[axes[-1]] = 2  # an IRDFT of a length-1 last axis has no output
    if name != "RDFT":
        shape.append(2)
    dtype = DTYPES[int(rng.integers(len(DTYPES)))]
    return rng.uniform(-2, 2, shape).astype(dtype), axes, sizes


@pytest.mark.parametrize("name", ["DFT", "IDFT", "RDFT", "IRDFT"])
def test_blocks_give_the_bits_of_one_whole_transform(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    op: Any = getattr(fft, name)()
    rng = np.random.default_rng(len(name))
    cut = 0
    for _ in range(150):
        x, axes, sizes = _case(rng, name)
        expected = _whole(name, x, axes, sizes)
        for limit in (1, 3, 1 << 22):
            monkeypatch.setattr(fft, "_BLOCK_ELEMENTS", limit)
            given = None if sizes is None else np.array(sizes, np.int64)
            got = op.evaluate(x, np.array(axes, np.int64), given)[0]
            assert got.dtype == expected.dtype and got.shape == expected.shape, (x.shape, axes, sizes)
            assert got.tobytes() == expected.tobytes(), (x.shape, x.dtype, axes, sizes, limit)
        cut += len(list(fft.blocks(expected.shape[:-1] if name != "IRDFT" else expected.shape, axes, 1))) > 1
    assert cut > 50  # most cases were really cut into blocks


def test_blocks_cut_only_untransformed_dims_and_cover_the_shape() -> None:
    shape = (3, 4, 5, 6)
    for transformed in ([1], [0, 2], [3], [0, 1, 2, 3]):
        for limit in (1, 7, 30, 1000):
            seen = np.zeros(shape, np.int64)
            for cut in fft.blocks(shape, transformed, limit):
                for d in transformed:
                    assert cut[d] == slice(None)
                seen[cut] += 1
            assert (seen == 1).all(), (transformed, limit)


def test_temporaries_are_bounded_by_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """A DFT of 1.6M complex outputs over two of three axes: whole, its complex128 signal alone was
    twice the f32 output; in blocks of 4,096 complex numbers the peak stays near the output."""
    x = RNG.uniform(-1, 1, (64, 40, 300, 2)).astype(np.float32)
    out_bytes = 64 * 80 * 300 * 2 * 4
    monkeypatch.setattr(fft, "_BLOCK_ELEMENTS", 1 << 12)
    tracemalloc.start()
    try:
        y = fft.DFT().evaluate(x, np.array([1, 2]), np.array([80, -1]))[0]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert y.shape == (64, 80, 300, 2)
    assert peak < out_bytes * 1.2, (peak, out_bytes)
    expected = _whole("DFT", x, [1, 2], [80, -1])
    assert y.tobytes() == expected.tobytes()
