"""OpenVINO CPU's f32 logistic (Sigmoid) bit for bit: oneDNN's JIT eltwise injector's algorithm
(``jit_uni_eltwise_injector`` in oneDNN, which OpenVINO's CPU plugin runs for Sigmoid), replayed in
numpy f32 arithmetic.

exp(x) there: clamp x to [ln(FLT_MIN), ln(FLT_MAX)] (0xc2aeac50, 0x42b17218); n = floor(x * log2(e) +
0.5); r = x - n * ln2 (one fused multiply-add); p(r) = a degree-5 polynomial by Horner's rule in
fused multiply-adds (its coefficients below, then 1); exp = p * 2^(n-1) * 2, the 2^(n-1) built in
the exponent bits (zero for x below ln(FLT_MIN)). logistic(x) = e / (e + 1) with e = exp(-|x|),
mirrored as 1 - that for x >= 0 (sign bit clear).

numpy's correctly rounded exp differs from this in the last bit for about half of all inputs;
near-equal detection scores then order differently (tests/ops/test_cpu_exp.py: equal to OpenVINO
on 400,000 inputs).
"""
from __future__ import annotations

import numpy as np


def _f32(bits: int) -> np.float32:
    return np.float32(np.array(bits, np.uint32).view(np.float32).item())


_LOG2E, _LN_MAX, _LN_MIN, _LN2 = _f32(0x3fb8aa3b), _f32(0x42b17218), _f32(0xc2aeac50), _f32(0x3f317218)
#: p(r) = 1 + r*(c1 + r*(c2 + r*(c3 + r*(c4 + r*c5)))), coefficients c1..c5
_POLY = (_f32(0x3f7ffffb), _f32(0x3efffee3), _f32(0x3e2aad40), _f32(0x3d2b9d0d), _f32(0x3c07cfce))
_ONE = np.float32(1)


#: low 29 bits of an f64 significand: what rounding to f32's 24 bits drops (normal range)
_DROPPED = np.uint64((1 << 29) - 1)
#: the dropped bits of an f64 lying exactly halfway between two f32 values
_HALFWAY = np.uint64(1 << 28)
#: below this magnitude f32 is subnormal and rounding drops more bits: the careful path decides
_F32_MIN_NORMAL = float(np.finfo(np.float32).tiny)


def fma_f32(a: np.ndarray | np.float32, b: np.ndarray | np.float32, c: np.ndarray | np.float32) -> np.ndarray:
    """``a * b + c`` of f32 arrays with one rounding (a fused multiply-add). The product is exact
    in f64, so rounding the f64 sum to f32 is right unless that sum landed exactly halfway
    between two f32 values (its dropped bits ``1000...``) or in f32's subnormal range; only then
    (rare) does :func:`_fma_f32_careful` settle it with the sum's rounding error."""
    p = np.multiply(np.asarray(a, np.float64), np.asarray(b, np.float64))
    s = np.add(p, np.asarray(c, np.float64))
    rounded = s.astype(np.float32)
    dropped = np.bitwise_and(s.view(np.uint64), _DROPPED)
    suspect = np.equal(dropped, _HALFWAY, out=np.empty(s.shape, bool))
    if suspect.any():
        return _fma_f32_careful(p, np.asarray(c, np.float64), s, rounded)
    magnitude = np.abs(s)
    small = np.less(magnitude, _F32_MIN_NORMAL, out=suspect)
    if small.any() and (small & (magnitude != 0)).any():
        return _fma_f32_careful(p, np.asarray(c, np.float64), s, rounded)
    return rounded


def _fma_f32_careful(p: np.ndarray, c64: np.ndarray, s: np.ndarray, rounded: np.ndarray) -> np.ndarray:
    """The f64 sum ``s = p + c64`` rounded once to f32: its rounding error (two-sum) breaks the
    halfway cases toward the exact sum."""
    back = s - p
    err = (p - (s - back)) + (c64 - back)
    r64 = rounded.astype(np.float64)
    up = np.nextafter(rounded, np.float32(np.inf)).astype(np.float64)
    down = np.nextafter(rounded, np.float32(-np.inf)).astype(np.float64)
    halfway = (err != 0) & ((s == (r64 + up) / 2) | (s == (r64 + down) / 2))
    if np.any(halfway):
        s = np.where(halfway, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        rounded = s.astype(np.float32)
    return rounded


def _min(a: np.ndarray, b: np.float32) -> np.ndarray:
    """x86 ``minps``: the second operand unless the first is smaller (so NaN gives the second)."""
    return np.where(a < b, a, b)


def _max(a: np.ndarray, b: np.float32) -> np.ndarray:
    return np.where(a > b, a, b)


def exp_f32(x: np.ndarray) -> np.ndarray:
    """oneDNN's JIT exp of an f32 array."""
    x = np.asarray(x, np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        tiny = x < _LN_MIN
        x = _max(_min(x, _LN_MAX), _LN_MIN)
        n = np.floor(x * _LOG2E + np.float32(0.5)).astype(np.float32)
        r = fma_f32(-n, _LN2, x)
        biased = np.clip((n - _ONE).astype(np.int64) + 127, 0, 255).astype(np.uint32)
        scale = np.where(tiny, np.float32(0), (biased << np.uint32(23)).view(np.float32))
        p = np.full(x.shape, _POLY[4], np.float32)
        for c in (_POLY[3], _POLY[2], _POLY[1], _POLY[0], _ONE):
            p = fma_f32(p, r, c)
        return (p * scale * np.float32(2)).astype(np.float32)


#: elements computed at a time by logistic_f32: its ~60 passes then stay in cache (2x faster)
LOGISTIC_BLOCK = 1 << 14
#: inputs up to this many elements take :func:`_logistic_block_checked` (half the numpy calls: 96
#: elements 51 -> 27 us, 1152 70 -> 42). Larger ones keep :func:`_logistic_block`: the checked
#: form's f64 sums then leave the cache (4096: 114 -> 171 us) and a block that needs the careful
#: path (about 1% of 1 Ki-element blocks of real activations) is computed twice
LOGISTIC_CHECKED_MAX = 2048


def logistic_f32(x: np.ndarray) -> np.ndarray:
    """oneDNN's JIT logistic (OpenVINO CPU's Sigmoid) of an f32 array."""
    x = np.asarray(x, np.float32)
    if x.size <= LOGISTIC_CHECKED_MAX:
        return _logistic_block_checked(x)
    if x.size <= LOGISTIC_BLOCK:
        return _logistic_block(x)
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.shape, np.float32)
    for start in range(0, flat.size, LOGISTIC_BLOCK):
        out[start:start + LOGISTIC_BLOCK] = _logistic_block(flat[start:start + LOGISTIC_BLOCK])
    return out.reshape(x.shape)


def _logistic_block_checked(x: np.ndarray) -> np.ndarray:
    """:func:`_logistic_block`'s bits in half the numpy calls (what small inputs, such as the
    ``[1, C, 1, 1]`` gates of EfficientNet's squeeze-excite blocks, pay for): its six FMAs are
    rounded from the f64 sums without checking each, the sums kept; one check over all of them
    afterwards, and only if one of them needs :func:`fma_f32`'s careful rounding (halfway between
    two f32, or f32-subnormal) is the block computed again the careful way."""
    flat = np.ascontiguousarray(x).reshape(-1)
    with np.errstate(over="ignore", invalid="ignore"):
        fast = _logistic_block_fast(flat)
    return (fast if fast is not None else _logistic_block(flat)).reshape(x.shape)


#: f64 magnitude bits below which an f64 sum rounds to an f32 subnormal (or is zero: excluded by
#: comparing ``bits - 1``, which wraps zero around to the top)
_F32_MIN_NORMAL_BITS = np.uint64(np.array(_F32_MIN_NORMAL, np.float64).view(np.uint64))
_ABS_BITS = np.uint64((1 << 63) - 1)
_SIGN = np.uint32(0x80000000)


def _logistic_block_fast(x: np.ndarray) -> np.ndarray | None:
    """:func:`_logistic_block` of a flat f32 array step for step (the same operations and
    roundings), or None when some FMA's f64 sum needs the careful rounding."""
    f64 = np.float64
    negative_abs = np.bitwise_or(x.view(np.uint32), _SIGN).view(np.float32)  # -|x|
    # exp_f32 of -|x|
    tiny = np.less(negative_abs, _LN_MIN)
    clamped = np.fmax(np.fmin(negative_abs, _LN_MAX), _LN_MIN)  # minps/maxps: NaN gives LN_MAX, as _min/_max
    n = np.multiply(clamped, _LOG2E)
    np.add(n, np.float32(0.5), out=n)
    np.floor(n, out=n)
    sums = np.empty((6, x.size), f64)  # each FMA's f64 sum, checked at the end
    np.multiply(n.astype(f64), -f64(_LN2), out=sums[0])  # (-n) * ln2: exact in f64
    np.add(sums[0], clamped.astype(f64), out=sums[0])
    r = sums[0].astype(np.float32)
    r64 = r.astype(f64)
    np.multiply(r64, f64(_POLY[4]), out=sums[1])
    np.add(sums[1], f64(_POLY[3]), out=sums[1])
    p = sums[1].astype(np.float32)
    for row, c in ((2, _POLY[2]), (3, _POLY[1]), (4, _POLY[0]), (5, _ONE)):
        np.multiply(p.astype(f64), r64, out=sums[row])
        np.add(sums[row], f64(c), out=sums[row])
        p = sums[row].astype(np.float32)
    bits = sums.view(np.uint64)
    if np.equal(np.bitwise_and(bits, _DROPPED), _HALFWAY).any():
        return None
    magnitude = np.bitwise_and(bits, _ABS_BITS)
    np.subtract(magnitude, np.uint64(1), out=magnitude)
    if np.less(magnitude, _F32_MIN_NORMAL_BITS - np.uint64(1)).any():
        return None
    # 2^(n-1) from the exponent bits: n lies in [-126, 128] once x is clamped, so (n - 1) + 127 needs no clip
    scale = np.add(n, np.float32(126)).astype(np.uint32)
    np.left_shift(scale, np.uint32(23), out=scale)
    e = np.where(tiny, np.float32(0), scale.view(np.float32))
    np.multiply(p, e, out=e)
    np.multiply(e, np.float32(2), out=e)
    # e / (e + 1), mirrored as 1 - that where the sign bit is clear
    y = np.add(e, _ONE)
    np.divide(e, y, out=y)
    return np.where(np.signbit(x), y, np.subtract(_ONE, y))


def _logistic_block(x: np.ndarray) -> np.ndarray:
    raw = x.view(np.uint32)
    negative = (raw & np.uint32(0x80000000)) != 0
    e = exp_f32((raw | np.uint32(0x80000000)).view(np.float32))
    with np.errstate(invalid="ignore"):
        y = (e / (e + _ONE)).astype(np.float32)
        return np.where(negative, y, (_ONE - y).astype(np.float32))
