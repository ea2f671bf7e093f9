"""DFT-7/IDFT-7 under ``openvino-cpu``: OpenVINO CPU's arithmetic (dft_kernels), axis after axis in
increasing order, in place, in f32 between axes. An axis whose length is not a power of two is the
plugin's naive DFT (its twiddle table, whose f32 phases ``2*pi*n*k/N`` carry errors growing with
``n*k``, up to 1e-3 on a length-180 axis, and its JIT kernel's summation order), replayed exactly
while an op's replay budget lasts (about 20 s of numpy; OpenVINO's DFT of 21.8M outputs over lengths
7, 40 and 600 fits), then as a BLAS product with the same twiddles whose nearly cancelling
components alone are replayed (they are where the summation order shows). Power-of-two axes replay
the plugin's radix-2 FFT (its butterflies and twiddle table), cheap enough to do always. Memory: the
output, plus blocks of ``_BLOCK_ELEMENTS`` lines' elements.

Host: the replay models the AVX-512 kernel (4 lanes of 128 bits, fused multiply-adds) and the C
library's ``cosf``/``sinf`` called through ctypes, as the plugin calls them: it matches OpenVINO CPU
on an x86-64 host with AVX-512 (F, BW, VL, DQ) and glibc (bit-equal to OpenVINO 2026.4,
tests/ops/test_cpu_dft.py). On any other host (AVX2 or older: other lanes and no FMA in the
butterflies; no ``cosf`` found) the profile computes the reference transform instead.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphir.numerics import Evaluate, register
from graphir.numerics.openvino_cpu import dft_kernels, host
from graphir.ops.base import Op, TensorType
from graphir.ops.openvino.fft import DFT, resized

#: the host the replay matches
HOST = "x86-64 with AVX-512 (F, BW, VL, DQ) and the C library's cosf/sinf: DFT/IDFT twiddles, lanes and FMAs"
#: the 128-bit lanes of the AVX-512 JIT kernel
_LANES = 4


def replayed_here() -> bool:
    """Whether this host is one the replay matches (else the profile gives the reference)."""
    return host.has_avx512_core() and dft_kernels.c_library() is not None


#: above this length an axis is transformed exactly (the plugin's N*N twiddle table would not fit)
_MAX_TWIDDLE_LENGTH = 4096
#: up to this length an axis may be replayed in full (its f64 table for the replay is 32*N*N bytes)
_MAX_REPLAY_LENGTH = 1024
#: complex elements per block of lines transformed at once (bounds the temporary memory)
_BLOCK_ELEMENTS = 1 << 22
#: products the exact replay of the plugin's sums may cost per op (about 20 s of numpy)
_REPLAY_BUDGET = 8e9
#: a component smaller than this fraction of its line's magnitude sum nearly cancels: the summation
#: order decides its value, so it is replayed even where the whole axis is not
_CANCELLING = 2.0 ** -10


class _Budget:
    """Products of exact replay an op may still spend (replays are exact but slow)."""

    def __init__(self, products: float) -> None:
        self.left = products

    def take(self, products: float) -> bool:
        if products > self.left:
            return False
        self.left -= products
        return True


def dft_axis(z: np.ndarray, axis: int, inverse: bool, budget: _Budget, lanes: int) -> None:
    """Transforms complex64 ``z`` (C-contiguous) in place along ``axis``, as the CPU plugin does, in f32.

    Power-of-two lengths replay the plugin's radix-2 FFT (``dft_kernels.fft_lines``, N log N: always);
    other lengths past ``_MAX_TWIDDLE_LENGTH`` are exact FFTs (the plugin's N*N table would not fit).
    Other lengths use the plugin's naive DFT: the whole axis replays its sums (``dft_kernels``) when that
    fits the budget; otherwise a BLAS product with its twiddles, whose nearly cancelling components
    are then replayed while the budget lasts."""
    n = z.shape[axis]
    if n <= 1 or z.size == 0:
        return
    outer, inner = int(np.prod(z.shape[:axis], dtype=np.int64)), int(np.prod(z.shape[axis + 1:], dtype=np.int64))
    cube = z.reshape(outer, n, inner)
    radix2 = n & (n - 1) == 0
    naive = not radix2 and n <= _MAX_TWIDDLE_LENGTH
    replay = naive and n <= _MAX_REPLAY_LENGTH and budget.take(4.0 * z.size * n)
    table = None
    if naive and not replay:
        cos, sin = dft_kernels.twiddles(n, inverse)
        table = (cos + np.complex64(1j) * sin).T
    # blocks of whole outer slices, or of part of one where a slice alone is larger than a block
    per_outer = max(1, _BLOCK_ELEMENTS // (n * inner))
    per_inner = min(inner, max(1, _BLOCK_ELEMENTS // n))
    for o in range(0, outer, per_outer):
        for i in range(0, inner, per_inner):
            part = cube[o:o + per_outer, :, i:i + per_inner]
            flat = part.transpose(0, 2, 1).reshape(-1, n)
            if radix2:
                re, im = dft_kernels.fft_lines(flat.real, flat.imag, inverse, lanes)
                out = re + np.complex64(1j) * im
            elif not naive:
                out = (np.fft.ifft(flat, axis=-1) if inverse else np.fft.fft(flat, axis=-1)).astype(np.complex64)
            elif replay:
                re, im = dft_kernels.dft_lines(flat.real, flat.imag, inverse, lanes)
                out = re + np.complex64(1j) * im
            else:
                out = flat @ table
                if inverse:
                    out *= np.float32(np.float32(1) / np.float32(n))
                _replay_cancelling(flat, out, inverse, lanes, budget)
            part[...] = out.reshape(part.shape[0], part.shape[2], n).transpose(0, 2, 1)


def _replay_cancelling(flat: np.ndarray, out: np.ndarray, inverse: bool, lanes: int, budget: _Budget) -> None:
    """Replaces the nearly cancelling components of ``out`` (lines x frequencies) by the plugin's sums."""
    n = flat.shape[1]
    # ``out`` is already divided by n for IDFT: so is the threshold
    factor = np.float32(_CANCELLING / n if inverse else _CANCELLING)
    scale = (np.abs(flat.real) + np.abs(flat.imag)).sum(axis=-1, dtype=np.float32)[:, None] * factor
    for real_part, values in ((True, out.real), (False, out.imag)):
        lines, freqs = np.nonzero(np.abs(values) < scale)
        if len(lines) and budget.take(2.0 * len(lines) * n):
            exact = dft_kernels.dft_entries(flat.real, flat.imag, lines, freqs, real_part, inverse, lanes)
            part = out.real if real_part else out.imag
            part[lines, freqs] = exact



@register("openvino-cpu", DFT, ("f32", "f16", "bf16"))
def dft(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
    assert isinstance(op, DFT)

    def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
        if not replayed_here():
            return op.evaluate(*arrays)
        x = np.asarray(arrays[0])
        ax, s = op.signal_plan(x.shape[:-1], x.ndim - 1, arrays[1], arrays[2] if len(arrays) > 2 else None)
        z = resized(x, ax, s, np.complex64)
        budget = _Budget(_REPLAY_BUDGET)
        for a in sorted(set(ax)):
            dft_axis(z, a, op.inverse, budget, _LANES)
        return [z.view(np.float32).reshape(*z.shape, 2).astype(x.dtype, copy=False)]

    return evaluate
