"""OpenVINO CPU's DFT-7/IDFT-7 arithmetic on an axis whose length is not a power of two, replayed in
numpy: the plugin's twiddle table and its x86-64 JIT kernel's summation order.

Twiddle table (the plugin's ``generateTwiddlesDFT``): ``phase = 2 * pi * float(n * k) / N`` in f32
(``n * k`` not reduced modulo ``N``), then ``cos``/``sin`` of that f32 from the C library (glibc's
``cosf``/``sinf`` differ from the correctly rounded value for about 2.6% of the phases of N in
{19, 40, 600}; they are called here through ctypes when the C library has them, else the f64
values rounded to f32 are used).

JIT kernel (``jit_uni_dft_kernel_f32``), per output frequency ``k``: four separate f32 sums,
``sum(im*tr)``, ``sum(re*ti)``, ``sum(re*tr)``, ``sum(im*ti)``, each kept in as many 128-bit lanes as the
vector register holds (4 on AVX-512, 2 on AVX2, 1 on SSE4.1); lane ``j`` accumulates, by fused
multiply-adds in increasing ``n``, the elements ``n`` with ``n mod 2L`` in ``{2j, 2j+1}`` while a full
register of ``2L`` elements is left; the lanes are then added pairwise (``(l0 + l2) + (l1 + l3)``), the
remaining ``N mod 2L`` elements are accumulated one by one into that sum, and the output is
``re = sum(re*tr) - sum(im*ti)``, ``im = sum(im*tr) + sum(re*ti)`` (times ``f32(1/N)`` for IDFT).

Replaying that is exact (tests/ops/test_cpu_dft.py: bit-equal to OpenVINO 2026.4 on AVX-512) but costs
one numpy pass per element and term; ``dft.py`` decides where it is worth it. (On a CPU with SSE4.1 but
no FMA the kernel rounds each product before adding it; that case is not replayed.) Power-of-two lengths
take the plugin's radix-2 FFT instead (``fft_lines``), replayed always.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable

import numpy as np

_F32 = np.float32
_F64 = np.float64
#: elements (line x frequency x lane) of one block of the replayed sums: bounds the temporaries
_BLOCK = 1 << 20


@functools.lru_cache(maxsize=1)
def c_library() -> tuple[Callable[[float], float], Callable[[float], float]] | None:
    """The C library's single-precision ``cosf``/``sinf`` (what the plugin's ``std::cos(float)``
    calls), or None where ctypes cannot find them."""
    name = ctypes.util.find_library("m")
    try:
        lib = ctypes.CDLL(name) if name else ctypes.CDLL(None)
        cosf, sinf = lib.cosf, lib.sinf
    except (OSError, AttributeError):
        return None
    for fn in (cosf, sinf):
        fn.restype = ctypes.c_float
        fn.argtypes = [ctypes.c_float]
    return cosf, sinf


@functools.lru_cache(maxsize=8)
def twiddles(n: int, inverse: bool) -> tuple[np.ndarray, np.ndarray]:
    """The plugin's ``[k, n]`` table of length ``n``: (cos, +-sin) of its f32 phases, as f32."""
    idx = np.arange(n, dtype=np.int64)
    phase = _F32(2.0) * _F32(np.pi) * np.outer(idx, idx).astype(_F32) / _F32(n)
    unique, where = np.unique(phase, return_inverse=True)
    libm = c_library()
    if libm is None:
        cos = np.cos(unique.astype(_F64)).astype(_F32)
        sin = np.sin(unique.astype(_F64)).astype(_F32)
    else:
        cosf, sinf = libm
        values = unique.tolist()
        cos = np.fromiter((cosf(v) for v in values), _F32, len(values))
        sin = np.fromiter((sinf(v) for v in values), _F32, len(values))
    sign = _F32(1) if inverse else _F32(-1)
    cos_t, sin_t = cos[where].reshape(phase.shape), sin[where].reshape(phase.shape) * sign
    cos_t.flags.writeable = sin_t.flags.writeable = False
    return cos_t, sin_t


def jit_sums(data: np.ndarray, table: np.ndarray, lanes: int) -> np.ndarray:
    """The kernel's f32 sums ``sum_n data[n] * table[n]``: ``data`` and ``table`` f64 arrays
    ``[N, ...]`` broadcasting against each other; returns f32 ``[...]`` (broadcast shape)."""
    n_len = data.shape[0]
    step = 2 * lanes
    full = n_len // step * step
    shape = np.broadcast_shapes(data.shape[1:], table.shape[1:])
    acc = np.zeros((lanes, *shape), _F32)
    prod = np.empty((lanes, *shape), _F64)
    for start in range(0, full, step):
        for half in (0, 1):  # the lanes' even elements, then their odd ones
            picks = slice(start + half, start + step, 2)
            np.multiply(data[picks], table[picks], out=prod)
            np.add(prod, acc, out=acc, casting="same_kind")
    if lanes == 4:
        acc = acc[:2] + acc[2:]
    total = acc[0] + acc[1] if lanes >= 2 else acc[0]
    for n in range(full, n_len):
        total = (data[n] * table[n] + total).astype(_F32)
    return total


def dft_lines(re: np.ndarray, im: np.ndarray, inverse: bool, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """Every frequency of each line: ``re``, ``im`` f32 ``[L, N]`` -> f32 ``[L, N]`` pair."""
    n_len = re.shape[1]
    cos, sin = twiddles(n_len, inverse)
    # [N, 4 terms, 1, K]: the terms' twiddles, against [N, 4 terms, lines, 1] data
    table = np.stack([cos, sin, cos, sin]).transpose(2, 0, 1)[:, :, None, :].astype(_F64)
    out_re, out_im = np.empty(re.shape, _F32), np.empty(re.shape, _F32)
    chunk = max(1, _BLOCK // (lanes * 4 * n_len))
    for a in range(0, re.shape[0], chunk):
        r, i = re[a:a + chunk].T.astype(_F64), im[a:a + chunk].T.astype(_F64)
        s = jit_sums(np.stack([i, r, r, i], axis=1)[..., None], table, lanes)
        out_re[a:a + chunk], out_im[a:a + chunk] = _combine(s[2], s[3], s[0], s[1], n_len, inverse)
    return out_re, out_im


def dft_entries(re: np.ndarray, im: np.ndarray, lines: np.ndarray, freqs: np.ndarray, real_part: bool,
                inverse: bool, lanes: int) -> np.ndarray:
    """One part (real or imaginary) of the outputs at (``lines[i]``, ``freqs[i]``) -> f32 ``[len(lines)]``."""
    n_len = re.shape[1]
    cos, sin = twiddles(n_len, inverse)
    out = np.empty(len(lines), _F32)
    chunk = max(1, _BLOCK // (lanes * 2 * n_len))
    for a in range(0, len(lines), chunk):
        ln, fq = lines[a:a + chunk], freqs[a:a + chunk]
        r, i = re[ln].T.astype(_F64), im[ln].T.astype(_F64)
        c, s = cos[fq].T.astype(_F64), sin[fq].T.astype(_F64)
        if real_part:  # sum(re*cos) - sum(im*sin)
            sums = jit_sums(np.stack([r, i], axis=1), np.stack([c, s], axis=1), lanes)
            out[a:a + chunk] = _combine(sums[0], sums[1], sums[0], sums[1], n_len, inverse)[0]
        else:  # sum(im*cos) + sum(re*sin)
            sums = jit_sums(np.stack([i, r], axis=1), np.stack([c, s], axis=1), lanes)
            out[a:a + chunk] = _combine(sums[0], sums[1], sums[0], sums[1], n_len, inverse)[1]
    return out


def _combine(re_cos: np.ndarray, im_sin: np.ndarray, im_cos: np.ndarray, re_sin: np.ndarray, n_len: int,
             inverse: bool) -> tuple[np.ndarray, np.ndarray]:
    re, im = re_cos - im_sin, im_cos + re_sin
    if inverse:
        scale = _F32(1) / _F32(n_len)
        re, im = re * scale, im * scale
    return re, im


@functools.lru_cache(maxsize=8)
def fft_twiddles(n: int, inverse: bool) -> tuple[np.ndarray, np.ndarray]:
    """The plugin's radix-2 table for length ``n`` (a power of two), as (cos, +-sin) f32 ``[n - 1]``:
    stage ``B`` (1, 2, 4, ... blocks) holds block ``b``'s twiddle at ``B - 1 + b``: ``(1, -0)`` for stage 1;
    then even blocks repeat the previous stage's ``b / 2``, odd ones are ``angle = f32(pi) * b / B`` in f32."""
    libm = c_library()

    def cos_sin(angle: np.float32) -> tuple[np.float32, np.float32]:
        if libm is None:
            return _F32(np.cos(_F64(angle))), _F32(np.sin(_F64(angle)))
        return _F32(libm[0](float(angle))), _F32(libm[1](float(angle)))

    sign = _F32(1) if inverse else _F32(-1)
    cos, sin = [_F32(1)], [_F32(-0.0)]
    blocks = 1
    while len(cos) < n - 1:
        blocks *= 2
        for b in range(blocks):
            if b % 2 == 0:
                cos.append(cos[blocks // 2 - 1 + b // 2])
                sin.append(sin[blocks // 2 - 1 + b // 2])
            else:
                c, s = cos_sin(_F32(np.pi) * _F32(b) / _F32(blocks))
                cos.append(c)
                sin.append(s * sign)
    return np.array(cos[:max(n - 1, 1)], _F32), np.array(sin[:max(n - 1, 1)], _F32)


def fft_lines(re: np.ndarray, im: np.ndarray, inverse: bool, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """The plugin's radix-2 FFT (``DFT::fft`` with its JIT butterfly) of each line: ``re``, ``im`` f32
    ``[L, N]``, N a power of two. Stage ``B`` splits the input into B blocks of 2h (h = N / 2B) and writes
    ``even + w_b * odd`` to ``out[b*h + p]`` and ``even - w_b * odd`` to ``out[N/2 + b*h + p]``; the twiddled
    odd value is one fused multiply-add on AVX-512 (``re = o.re*w.re - f32(o.im*w.im)``, ``im = o.im*w.re +
    f32(o.re*w.im)``), separately rounded products with AVX2/SSE4.1. IFFT divides by N at the end."""
    n_len = re.shape[1]
    cos, sin = fft_twiddles(n_len, inverse)
    fused = lanes == 4
    lines = re.shape[0]
    blocks = 1
    while blocks < n_len:
        h = n_len // (2 * blocks)
        w_re = cos[blocks - 1:2 * blocks - 1][None, :, None].astype(_F64)
        w_im = sin[blocks - 1:2 * blocks - 1][None, :, None].astype(_F64)
        r4, i4 = re.reshape(lines, blocks, 2, h), im.reshape(lines, blocks, 2, h)
        even_re, even_im = r4[:, :, 0], i4[:, :, 0]
        odd_re, odd_im = r4[:, :, 1].astype(_F64), i4[:, :, 1].astype(_F64)
        if fused:
            t_re = (odd_re * w_re - (odd_im * w_im).astype(_F32)).astype(_F32)
            t_im = (odd_im * w_re + (odd_re * w_im).astype(_F32)).astype(_F32)
        else:
            t_re = (odd_re * w_re).astype(_F32) - (odd_im * w_im).astype(_F32)
            t_im = (odd_im * w_re).astype(_F32) + (odd_re * w_im).astype(_F32)
        re = np.concatenate([(even_re + t_re).reshape(lines, -1), (even_re - t_re).reshape(lines, -1)], axis=1)
        im = np.concatenate([(even_im + t_im).reshape(lines, -1), (even_im - t_im).reshape(lines, -1)], axis=1)
        blocks *= 2
    if inverse:
        re, im = re / _F32(n_len), im / _F32(n_len)
    return re, im
