"""Gelu (ERF form) on f32 with the bits of its f64 formulation, without an f64 ``erf`` per element.

graphir's Gelu computes ``f32(f64(f32(0.5 * v)) * (1.0 + erf(f64(v) / sqrt 2)))``: an f64 ``erf``
(scipy's, ~8-10 ns per element) that is a third of a small transformer's run. Its f32 result
depends only on which side of a rounding boundary (the midpoint between two f32 numbers) the f64
product ``p`` falls. :func:`gelu_erf_f32` therefore evaluates ``p = v * Phi(v)`` (``Phi`` the
normal distribution: the same product, ``0.5 * v`` being exact in f32 for all but the smallest
``v``) with ``Phi`` from a table: its expansion to third order around the nearest multiple of
``1/GRID``, within a relative error far below ``TOLERANCE``. An element whose interval
``p * (1 -+ TOLERANCE)`` rounds to one f32 number gets that number, which is then the old
product's rounding too (rounding is monotonic and the old product lies in the interval). Any other
element (near a rounding boundary, ~0.5%; outside ``[V_LOW, V_HIGH]``; NaN, inf; subnormal ``v``
whose half is not an f32 number) is computed by the old formulation itself.

Bits: ``tests/test_gelu_kernel.py`` compares with the former formulation over every f32 number of
several binades, a dense sample of ``[V_LOW, V_HIGH]``, the edges (+-0, subnormals, inf, NaN, large
magnitudes) and the benchmark models; ``benchmarks/gelu_exhaustive.py`` compares every f32 number
of ``[V_LOW, V_HIGH]`` (2.2e9 values, minutes). The tolerance is ~100x the measured relative
error of the table (:func:`table_error`), which also covers ``erf``'s own last-bit error.
"""
from __future__ import annotations

import math
import threading
from collections.abc import Callable

import numpy as np

#: table rows per unit of ``v`` (each row: the expansion around ``k / GRID``, used for
#: ``|v - k/GRID| <= 1/(2 GRID)``)
GRID = 512
#: the inputs the table covers; the rest (and NaN, inf) take the f64 formulation. Below V_LOW the
#: old product's ``1 + erf`` has cancelled to a relative error above TOLERANCE itself.
V_LOW, V_HIGH = -4.5, 8.5
#: relative half-width of the interval around the table's product that must round to one f32
TOLERANCE = 2.0 ** -33
#: arrays smaller than this take the formula itself (the table's ~25 numpy calls cost more there:
#: 4,096 elements 39 us against 26 us; from ~10,000 elements the table is faster)
MIN_ELEMENTS = 8192
#: elements per block (the block's scratch arrays, ~40 bytes per element, stay in cache)
BLOCK = 1 << 15

_K_LOW, _K_HIGH = round(V_LOW * GRID), round(V_HIGH * GRID)
#: added to ``rint(v * GRID)`` to index the tables (row 0 and the last row are NaN sentinels)
_OFFSET = np.float32(1 - _K_LOW)

_table_lock = threading.Lock()
_tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
_scratch = threading.local()


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Taylor coefficients of ``Phi(c + t / GRID)`` in ``t``, per row ``c = k / GRID``:
    ``Phi' = phi``, ``Phi'' = -c phi``, ``Phi''' = (c^2 - 1) phi``."""
    rows = _K_HIGH - _K_LOW + 1
    a0, a1, a2, a3 = (np.full(rows + 2, np.nan) for _ in range(4))
    g = float(GRID)
    norm = 1.0 / math.sqrt(2.0 * math.pi)
    for i in range(rows):
        c = (_K_LOW + i) / g
        big_phi = 0.5 * math.erfc(-c / math.sqrt(2.0))
        phi = norm * math.exp(-0.5 * c * c)
        a0[i + 1] = big_phi
        a1[i + 1] = phi / g
        a2[i + 1] = -c * phi / (2.0 * g * g)
        a3[i + 1] = (c * c - 1.0) * phi / (6.0 * g * g * g)
    return a0, a1, a2, a3


def tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The coefficient tables (built once per process, ~10 ms)."""
    global _tables
    with _table_lock:
        if _tables is None:
            _tables = _build_tables()
        return _tables


class _Scratch:
    """One thread's work arrays for a block of up to ``size`` elements."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.wide = np.empty((3, size))  # t, the product, a gathered coefficient
        self.narrow = np.empty((2, size), np.float32)  # v * GRID and its rounding; then the bounds
        self.index = np.empty(size, np.intp)
        self.bad = np.empty(size, np.bool_)


def _scratch_for(size: int) -> _Scratch:
    scratch = getattr(_scratch, "arrays", None)
    if scratch is None or scratch.size < size:
        scratch = _scratch.arrays = _Scratch(max(size, min(BLOCK, 4096)))
    return scratch


def gelu_erf_f32(v: np.ndarray, out: np.ndarray, reference: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Write Gelu(v) of the C-contiguous f32 array ``v`` into ``out`` (same shape; may be ``v``
    itself) with the bits of ``reference`` (the former formulation, f32 in and out), which also
    computes the elements the table cannot decide."""
    gelu_erf_f32_fallbacks(v, out, reference)
    return out


def gelu_erf_f32_fallbacks(v: np.ndarray, out: np.ndarray, reference: Callable[[np.ndarray], np.ndarray]) -> int:
    """:func:`gelu_erf_f32`; returns how many elements ``reference`` computed (tests, benchmarks)."""
    flat_v, flat_out = v.reshape(-1), out.reshape(-1)
    size = flat_v.size
    if size == 0:
        return 0
    if size < MIN_ELEMENTS:
        flat_out[...] = reference(flat_v)
        return size
    blocks = -(-size // BLOCK)
    step = -(-size // blocks)
    scratch = _scratch_for(step)
    a0, a1, a2, a3 = tables()
    fallbacks = 0
    into_input = np.may_share_memory(v, out)
    with np.errstate(all="ignore"):  # NaN/inf inputs reach the index cast; they take the fallback
        for start in range(0, size, step):
            fallbacks += _block(flat_v[start:start + step], flat_out[start:start + step], scratch,
                                a0, a1, a2, a3, reference, start, size, into_input)
    return fallbacks


def _block(v: np.ndarray, out: np.ndarray, scratch: _Scratch, a0: np.ndarray, a1: np.ndarray,
           a2: np.ndarray, a3: np.ndarray, reference: Callable[[np.ndarray], np.ndarray], start: int, size: int,
           into_input: bool) -> int:
    """One block; ``into_input``: ``out`` is ``v`` (the result waits in the scratch until the
    elements the formula computes have been read from ``v``)."""
    n = v.size
    scaled, nearest = scratch.narrow[0, :n], scratch.narrow[1, :n]
    t, p, coefficient = scratch.wide[0, :n], scratch.wide[1, :n], scratch.wide[2, :n]
    index, bad = scratch.index[:n], scratch.bad[:n]
    np.multiply(v, np.float32(GRID), out=scaled)  # exact (a power of two)
    np.rint(scaled, out=nearest)
    np.subtract(scaled, nearest, out=scaled)  # t = v * GRID - k, exact, |t| <= 1/2
    np.copyto(t, scaled)
    np.add(nearest, _OFFSET, out=nearest)  # exact while in the table
    np.copyto(index, nearest, casting="unsafe")  # NaN/inf/huge: some index the clip sends to a sentinel
    a3.take(index, out=p, mode="clip")
    p *= t
    a2.take(index, out=coefficient, mode="clip")
    p += coefficient
    p *= t
    a1.take(index, out=coefficient, mode="clip")
    p += coefficient
    p *= t
    a0.take(index, out=coefficient, mode="clip")
    p += coefficient
    np.copyto(coefficient, v)
    p *= coefficient  # v * Phi(v): the sign of zero results too
    low, high = (scratch.narrow[0, :n] if into_input else out), scratch.narrow[1, :n]
    np.multiply(p, 1.0 - TOLERANCE, out=coefficient)
    np.copyto(low, coefficient, casting="same_kind")
    np.multiply(p, 1.0 + TOLERANCE, out=coefficient)
    np.copyto(high, coefficient, casting="same_kind")
    np.not_equal(low, high, out=bad)  # NaN (sentinel rows) compares unequal too
    fallback = None
    where = np.flatnonzero(bad)
    if where.size:
        values = v[where]
        fallback = (where, reference(values))
        special = ~np.isfinite(values)
        if special.any():
            fallback[1][special] = _in_place_of(values[special], start + where[special], size, reference)
    if into_input:
        np.copyto(out, low)
    if fallback is None:
        return 0
    out[fallback[0]] = fallback[1]
    return fallback[0].size


def _in_place_of(values: np.ndarray, positions: np.ndarray, size: int,
                 reference: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``reference`` of non-finite ``values`` as it computes them at these ``positions`` of an array of
    ``size`` elements. A product of two NaNs keeps one of them, and numpy's vector loops and their
    scalar tails pick different ones: the sign and payload of a NaN result depend on where the
    element sits. Elements are otherwise independent, so an array of that size holding these
    values at their places (zeros elsewhere) gives the whole input's results there."""
    probe = np.zeros(size, np.float32)
    probe[positions] = values
    return reference(probe)[positions]


def table_error(values: np.ndarray) -> float:
    """The largest relative difference between the table's product and ``v * Phi(v)`` computed
    with ``math.erfc`` over ``values`` (f32, inside ``[V_LOW, V_HIGH]``): what TOLERANCE must
    exceed (tests)."""
    a0, a1, a2, a3 = tables()
    v = np.asarray(values, np.float32).reshape(-1)
    k = np.rint(v * np.float32(GRID))
    t = (v * np.float32(GRID) - k).astype(np.float64)
    index = (k + _OFFSET).astype(np.intp)
    p = (((a3[index] * t + a2[index]) * t + a1[index]) * t + a0[index]) * v.astype(np.float64)
    exact = np.array([float(x) * 0.5 * math.erfc(-float(x) / math.sqrt(2.0)) for x in v])
    nonzero = exact != 0
    return float(np.max(np.abs(p[nonzero] - exact[nonzero]) / np.abs(exact[nonzero]), initial=0.0))
