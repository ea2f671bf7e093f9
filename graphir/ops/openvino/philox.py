"""OpenVINO's random number streams, bit for bit: the Philox-4x32-10 counter generator (the
``tensorflow`` alignment, OpenVINO's default) and the MT19937 stream (``pytorch`` alignment), and
the conversions of their 32-bit words to each output type. Written from OpenVINO's op
specification and its reference behaviour; every function here is pure (no global state).
"""
from __future__ import annotations

import numpy as np

_MASK32 = np.uint64(0xFFFFFFFF)
_M_N, _M_COUNTER = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_KEY_STEP = (0x9E3779B9, 0xBB67AE85)
WORDS_PER_CALL = 4


def philox_words(calls: int, global_seed: int, op_seed: int, first_call: int = 0) -> np.ndarray:
    """``[calls, 4]`` uint32 words: call ``i`` runs 10 Philox rounds on counter ``n = first_call + i``
    (low 64 bits) and ``op_seed`` (high 64 bits), keyed by ``global_seed``."""
    n = np.arange(first_call, first_call + calls, dtype=np.uint64)
    n_lo, n_hi = n & _MASK32, n >> np.uint64(32)
    c_lo = np.full(calls, op_seed & 0xFFFFFFFF, dtype=np.uint64)
    c_hi = np.full(calls, (op_seed >> 32) & 0xFFFFFFFF, dtype=np.uint64)
    k_lo, k_hi = global_seed & 0xFFFFFFFF, (global_seed >> 32) & 0xFFFFFFFF
    for r in range(10):
        p0 = _M_N * n_lo
        p1 = _M_COUNTER * c_lo
        n_lo, n_hi, c_lo, c_hi = ((p1 >> np.uint64(32)) ^ n_hi ^ np.uint64(k_lo), p1 & _MASK32,
                                  (p0 >> np.uint64(32)) ^ c_hi ^ np.uint64(k_hi), p0 & _MASK32)
        if r < 9:
            k_lo, k_hi = (k_lo + _KEY_STEP[0]) & 0xFFFFFFFF, (k_hi + _KEY_STEP[1]) & 0xFFFFFFFF
    return np.stack([n_lo, n_hi, c_lo, c_hi], axis=1).astype(np.uint32)


def mt19937_words(count: int, seed: int) -> np.ndarray:
    """The first ``count`` tempered outputs of MT19937 seeded with the low 32 bits of ``seed``
    (the standard ``init_genrand``), as uint32."""
    n, m = 624, 397
    state = np.zeros(n, dtype=np.uint64)
    state[0] = seed & 0xFFFFFFFF
    for j in range(1, n):
        prev = int(state[j - 1])
        state[j] = (1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF
    state = state.astype(np.uint32)
    out = np.empty(0, dtype=np.uint32)
    while out.size < count:
        state = _twist(state, m)
        out = np.concatenate([out, _temper(state)])
    return out[:count]


def _twist(mt: np.ndarray, m: int) -> np.ndarray:
    mt = mt.astype(np.uint64).copy()
    n = mt.size

    def mixed(i: np.ndarray, nxt: np.ndarray) -> np.ndarray:
        y = (mt[i] & np.uint64(0x80000000)) | (nxt & np.uint64(0x7FFFFFFF))
        return (y >> np.uint64(1)) ^ np.where((y & np.uint64(1)) != 0, np.uint64(0x9908B0DF), np.uint64(0))

    first = np.arange(0, n - m)
    mt[first] = mt[first + m] ^ mixed(first, mt[first + 1])
    for lo in range(n - m, n - 1, m):  # later words read words updated just above: in chunks of m
        idx = np.arange(lo, min(lo + m, n - 1))
        mt[idx] = mt[idx + m - n] ^ mixed(idx, mt[idx + 1])
    mt[n - 1] = mt[m - 1] ^ mixed(np.array([n - 1]), mt[np.array([0])])[0]
    return mt.astype(np.uint32)


def _temper(y: np.ndarray) -> np.ndarray:
    y = y.astype(np.uint64)
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return (y & _MASK32).astype(np.uint32)


# --- words to values ----------------------------------------------------------------------------
def ov_bfloat16(x: np.ndarray) -> np.ndarray:
    """float32 values to bf16 the way ``ov::bfloat16(float)`` rounds: half of the dropped range is
    added only when the kept part's last bit is 1 (so ties and everything above them round up from
    odd values, and values with an even last bit are truncated)."""
    import ml_dtypes

    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((u + ((u & np.uint64(0x10000)) >> np.uint64(1))) >> np.uint64(16)).astype(np.uint16)
    return bits.view(ml_dtypes.bfloat16)


def _bf16_op(a: np.ndarray, b: np.ndarray, op: str) -> np.ndarray:
    fa, fb = np.asarray(a).astype(np.float32), np.asarray(b).astype(np.float32)
    return ov_bfloat16(fa * fb if op == "*" else fa + fb if op == "+" else fa - fb)

def _unit_from_mantissa(words: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """[1, 2) by filling the mantissa with the word's low bits, minus 1 (tensorflow alignment)."""
    if dtype == np.float32:
        return (((words.astype(np.uint32) & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32)
                - np.float32(1))
    if dtype == np.float16:
        return (((words.astype(np.uint16) & np.uint16(0x3FF)) | np.uint16(15 << 10)).view(np.float16)
                - np.float16(1))
    import ml_dtypes

    bits = (words.astype(np.uint16) & np.uint16(0x7F)) | np.uint16(127 << 7)
    return bits.view(ml_dtypes.bfloat16) - ml_dtypes.bfloat16(1)


def _modulo(x: np.ndarray, lo: int, hi: int, bits: int) -> np.ndarray:
    """``x % (hi - lo) + lo`` in unsigned ``bits`` arithmetic, read back as signed."""
    mod = 1 << bits
    span = (hi - lo) % mod
    if span == 0:
        raise ZeroDivisionError("RandomUniform: min and max of an integer output must differ")
    v = (x.astype(object) % span + lo) % mod
    v = np.where(v >= mod // 2, v - mod, v)
    return v.astype(np.int64)


def words_to_values(words: np.ndarray, dtype: np.dtype, lo: float, hi: float, alignment: str,
                    fused: bool = False) -> np.ndarray:
    """``[calls, 4]`` words to the flat values of one output type, as OpenVINO converts them
    (``fused``: see :func:`uniform`)."""
    dtype = np.dtype(dtype)
    wide = dtype.itemsize > 4
    if alignment == "pytorch":
        return _pytorch_values(words, dtype, lo, hi)
    if wide:
        a, b = words[:, 0::2].reshape(-1).astype(np.uint64), words[:, 1::2].reshape(-1).astype(np.uint64)
        if dtype == np.float64:
            bits = (np.uint64(1023) << np.uint64(52)) | ((a & np.uint64(0xFFFFF)) << np.uint64(32)) | b
            unit = bits.view(np.float64) - 1.0
            return unit * (np.float64(hi) - np.float64(lo)) + np.float64(lo)
        return _modulo((b << np.uint64(32)) + a, int(lo), int(hi), 64)  # type: ignore[call-overload]
    flat = words.reshape(-1)
    if dtype.kind in "iu":
        return _modulo(flat.astype(np.uint64), int(lo), int(hi), 32).astype(dtype)  # type: ignore[call-overload]
    unit = _unit_from_mantissa(flat, dtype)
    if dtype.name == "bfloat16":  # every ov::bfloat16 operation rounds its float result
        span = _bf16_op(np.asarray(hi, dtype), np.asarray(lo, dtype), "-")
        return _bf16_op(_bf16_op(unit, span, "*"), np.asarray(lo, dtype), "+")
    if dtype == np.float32 and fused:  # OpenVINO's CPU plugin fuses the multiply-add: one rounding
        span32 = np.float32(np.float32(hi) - np.float32(lo))
        return (unit.astype(np.float64) * np.float64(span32) + np.float64(np.float32(lo))).astype(np.float32)
    span = (np.asarray(hi, dtype) - np.asarray(lo, dtype)).astype(dtype)
    return (unit * span + np.asarray(lo, dtype)).astype(dtype)


def _pytorch_values(words: np.ndarray, dtype: np.dtype, lo: float, hi: float) -> np.ndarray:
    flat = words.reshape(-1).astype(np.uint64)
    if dtype == np.int64:
        if int(lo) <= 0xFFFFFFFF and int(hi) <= 0xFFFFFFFF:  # type: ignore[call-overload]
            int_span = int(hi) - int(lo)
            return (flat.astype(np.int64) % int_span + int(lo)).astype(np.int64)
        pairs = words.reshape(-1, 2).astype(np.uint64)
        return _modulo((pairs[:, 0] << np.uint64(32)) + pairs[:, 1], int(lo), int(hi), 64)  # type: ignore
    if dtype == np.float64:
        pairs = words.reshape(-1, 2).astype(np.uint64)
        val = ((pairs[:, 0] << np.uint64(32)) + pairs[:, 1]) & np.uint64((1 << 53) - 1)
        return val.astype(np.float64) * (1.0 / (1 << 53)) * (np.float64(hi) - np.float64(lo)) + np.float64(lo)
    if dtype.kind in "iu":
        return _modulo(flat, int(lo), int(hi), 32).astype(dtype)  # type: ignore[call-overload]
    digits = {np.dtype(np.float32): 24, np.dtype(np.float16): 11}.get(dtype, 8)
    unit = (flat & np.uint64((1 << digits) - 1)).astype(np.float32) * np.float32(1.0 / (1 << digits))
    if dtype.name == "bfloat16":  # float unit times a bf16 span, then one ov::bfloat16 rounding
        bf16_span = _bf16_op(np.asarray(hi, dtype), np.asarray(lo, dtype), "-").astype(np.float32)
        return ov_bfloat16(unit * bf16_span + np.float32(np.asarray(lo, dtype)))
    span = np.float32(np.asarray(hi, dtype).astype(np.float32) - np.asarray(lo, dtype).astype(np.float32))
    if dtype != np.float32:
        span = np.float32(np.asarray(span).astype(dtype))  # (max - min) in the output type first
    return (unit * span + np.float32(np.asarray(lo, dtype))).astype(dtype)


def uniform(count: int, dtype: np.dtype, lo: float, hi: float, global_seed: int, op_seed: int,
            alignment: str, fused: bool = False) -> np.ndarray:
    """``count`` values of RandomUniform as OpenVINO produces them for these seeds (``fused``: f32's
    ``unit * span + min`` rounded once, as the CPU plugin computes it; else twice, as the reference)."""
    dtype = np.dtype(dtype)
    if alignment == "pytorch":
        per_call = 2 if dtype.itemsize > 4 and not (dtype == np.int64 and int(lo) <= 0xFFFFFFFF  # type: ignore
                                                    and int(hi) <= 0xFFFFFFFF) else 4  # type: ignore
        calls = -(-count // per_call)
        words = mt19937_words(calls * WORDS_PER_CALL, global_seed).reshape(calls, WORDS_PER_CALL)
    else:
        per_call = 2 if dtype.itemsize > 4 else 4
        calls = -(-count // per_call)
        words = philox_words(calls, global_seed, op_seed)
    return words_to_values(words, dtype, lo, hi, alignment, fused)[:count]


def seed_seq_words(seeds: list[int], count: int) -> np.ndarray:
    """``std::seed_seq(seeds).generate`` of ``count`` words (the C++ standard's algorithm; each seed
    is taken modulo 2^32)."""
    v = [s & 0xFFFFFFFF for s in seeds]
    n, s = count, len(v)
    mask = 0xFFFFFFFF
    out = [0x8B8B8B8B] * n
    t = 11 if n >= 623 else 7 if n >= 68 else 5 if n >= 39 else 3 if n >= 7 else (n - 1) // 2
    p = (n - t) // 2
    q = p + t
    m = max(s + 1, n)

    def mix(x: int) -> int:
        return x ^ (x >> 27)

    for k in range(m):
        r1 = (1664525 * mix(out[k % n] ^ out[(k + p) % n] ^ out[(k - 1) % n])) & mask
        r2 = (r1 + (s if k == 0 else (k % n + v[k - 1] if k <= s else k % n))) & mask
        out[(k + p) % n] = (out[(k + p) % n] + r1) & mask
        out[(k + q) % n] = (out[(k + q) % n] + r2) & mask
        out[k % n] = r2
    for k in range(m, m + n):
        r3 = (1566083941 * mix((out[k % n] + out[(k + p) % n] + out[(k - 1) % n]) & mask)) & mask
        r4 = (r3 - k % n) & mask
        out[(k + p) % n] ^= r3
        out[(k + q) % n] ^= r4
        out[k % n] = r4
    return np.array(out, dtype=np.uint32)


def mt19937_seeded_words(count: int, seeds: list[int]) -> np.ndarray:
    """``std::mt19937`` seeded with ``std::seed_seq(seeds)``: its first ``count`` outputs."""
    state = seed_seq_words(seeds, 624)
    if (int(state[0]) & 0x80000000) == 0 and not np.any(state[1:]):
        state[0] = 0x80000000  # the standard's rule for an all-zero state
    out = np.empty(0, dtype=np.uint32)
    while out.size < count:
        state = _twist(state, 397)
        out = np.concatenate([out, _temper(state)])
    return out[:count]
