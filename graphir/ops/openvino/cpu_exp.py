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


def logistic_f32(x: np.ndarray) -> np.ndarray:
    """oneDNN's JIT logistic (OpenVINO CPU's Sigmoid) of an f32 array."""
    x = np.asarray(x, np.float32)
    if x.size <= LOGISTIC_BLOCK:
        return _logistic_block(x)
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.shape, np.float32)
    for start in range(0, flat.size, LOGISTIC_BLOCK):
        out[start:start + LOGISTIC_BLOCK] = _logistic_block(flat[start:start + LOGISTIC_BLOCK])
    return out.reshape(x.shape)


def _logistic_block(x: np.ndarray) -> np.ndarray:
    raw = x.view(np.uint32)
    negative = (raw & np.uint32(0x80000000)) != 0
    e = exp_f32((raw | np.uint32(0x80000000)).view(np.float32))
    with np.errstate(invalid="ignore"):
        y = (e / (e + _ONE)).astype(np.float32)
        return np.where(negative, y, (_ONE - y).astype(np.float32))
