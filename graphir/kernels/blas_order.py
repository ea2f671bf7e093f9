"""The order numpy's BLAS (OpenBLAS) sums a matrix product's inner dimension in, replayed.

OpenBLAS's level-3 driver splits the inner dimension ``K`` of ``A @ B`` into chunks (``Q`` items
while ``2Q`` or more remain, then the rest halved, rounded up to the kernel's unroll ``U``); each
chunk's products are summed from zero with FMAs and added to ``C`` in chunk order. So a product
with rows of ``B`` known to be zero (im2col rows of taps that only read padding) gives the same
bits as the product over the remaining rows *within each chunk*, the chunks' results added in
order: :class:`ChunkedProduct`. Nothing is assumed: ``Q`` is found by a probe against
``numpy.matmul`` once per process, only lengths whose chunks do not depend on ``U`` (which differs
between OpenBLAS's threaded and one-thread drivers) are replayed, and each shape that uses the
replay is checked once against the full product on random values (:func:`replay_matches`); any
mismatch (another BLAS, another kernel) keeps the full product.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from graphir.kernels.once import once_per_key

#: the chunk sizes probed: OpenBLAS's GEMM_Q for f32 on x86-64/arm64 kernels lies in 64-1024
_Q_CANDIDATES = tuple(range(64, 1025, 16))
_U_CANDIDATES = (16, 8, 4, 32, 2, 1, 48, 64)
_lock = threading.Lock()
_rule: tuple[int, int] | None | bool = False  # False: not probed yet; None: no rule found
_verified: dict[tuple, bool] = {}


def k_chunks(k: int, q: int, u: int) -> list[tuple[int, int]]:
    """OpenBLAS's split of an inner dimension ``k`` into ``[start, stop)`` chunks."""
    chunks, start = [], 0
    while start < k:
        size = k - start
        if size >= 2 * q:
            size = q
        elif size > q:
            size = (size // 2 + u - 1) // u * u
        chunks.append((start, start + size))
        start += size
    return chunks


def _chunked(a: np.ndarray, b: np.ndarray, chunks: Sequence[tuple[int, int]]) -> np.ndarray:
    out: np.ndarray | None = None
    for start, stop in chunks:
        part = a[:, start:stop] @ b[start:stop]
        out = part if out is None else np.add(out, part, out=out)
    assert out is not None
    return out


def chunk_rule() -> tuple[int, int] | None:
    """``(Q, U)`` of numpy's f32 matrix product, or None when no candidate replays it."""
    global _rule
    with _lock:
        if _rule is False:
            _rule = _probe()
        return _rule  # type: ignore[return-value]


def _probe() -> tuple[int, int] | None:
    """Find ``Q`` (the tail's rounding differs between OpenBLAS's threaded and one-thread drivers:
    :class:`ChunkedProduct` only replays lengths where it does not matter)."""
    rng = np.random.default_rng(1234)
    m = n = 96  # sub-products past OpenBLAS's small-matrix kernels (<= 100^3 multiply-adds)
    a = rng.standard_normal((m, 4099), dtype=np.float32)
    b = rng.standard_normal((4099, n), dtype=np.float32)
    full = a @ b
    for q in _Q_CANDIDATES:
        for u in _U_CANDIDATES:
            if np.array_equal(_chunked(a, b, k_chunks(4099, q, u)), full):
                return q, u
    return None


class ChunkedProduct:
    """``w @ cols`` for ``w [M, K]`` and ``cols [K, N]`` given only the rows of ``cols`` in ``kept``
    (sorted; the other rows are zero): the full product's bits, with the zero rows' work left out."""

    def __init__(self, m: int, k: int, n: int, kept: Sequence[int]) -> None:
        rule = chunk_rule()
        self.kept = np.asarray(kept, np.int64)
        self.chunks: list[tuple[int, int]] = []
        if rule is not None and all(k_chunks(k, rule[0], u) == k_chunks(k, rule[0], 1) for u in (rule[1], 2)):
            positions = np.searchsorted(self.kept, [c for chunk in k_chunks(k, *rule) for c in chunk])
            pairs = positions.reshape(-1, 2)
            self.chunks = [(int(a), int(b)) for a, b in pairs if b > a]
        self.ok = rule is not None and bool(self.chunks) and replay_matches(self, m, k, n)

    def __call__(self, w: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``w [M, len(kept)]`` (the kept columns of the filters), ``cols [len(kept), N]``."""
        return _chunked(w, cols, self.chunks)


def replay_matches(product: ChunkedProduct, m: int, k: int, n: int) -> bool:
    """Does the replay give the full product's bits on random values of this shape (once per shape)?"""
    return once_per_key(_verified, (m, k, n, product.kept.tobytes()), lambda: _replay_is_exact(product, m, k, n))


def _replay_is_exact(product: ChunkedProduct, m: int, k: int, n: int) -> bool:
    rng = np.random.default_rng(4321)
    full_cols = np.zeros((k, n), np.float32)
    full_cols[product.kept] = rng.standard_normal((len(product.kept), n), dtype=np.float32)
    w = rng.standard_normal((m, k), dtype=np.float32)
    return np.array_equal(product(np.ascontiguousarray(w[:, product.kept]), full_cols[product.kept]), w @ full_cols)
