"""The ``-1`` of a Reshape pattern as OpenVINO's shape inference bounds it (Reshape-1).

OpenVINO does not divide one interval product by another. It pairs off equal static dims of the
input and the pattern, splits what is left of each side into a static product and a product of the
dynamic dims, and, when the static products differ, folds each side's static product into its
dynamic one. The ``-1`` dim is then the input's dynamic product divided by the pattern's:
``[ceil(in.min / out.max), in.max // out.min]``, where an unbounded ``out.max`` gives a lower
bound of 1 (0 for an input that may be empty) and ``out.min == 0`` an unbounded upper bound. So
``[1,60,1..,1..]`` reshaped to ``[1,-1,4,1..,1..]`` gives ``1..``, not ``?``.

Intervals here are ``(lo, hi)`` with ``hi`` None for unbounded; products saturate at
:data:`~graphir.shapes.MAX_LENGTH` as OpenVINO's do at its infinity.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from graphir.shapes import MAX_LENGTH, Dimension

Interval = tuple[int, Optional[int]]


class ReshapeBoundsError(ValueError):
    """The pattern cannot hold the input (the caller words the error for its node)."""


def _times(a: int | None, b: int | None) -> int | None:
    if a == 0 or b == 0:
        return 0
    if a is None or b is None:
        return None
    product = a * b
    return None if product > MAX_LENGTH else product


def _mul(x: Interval, y: Interval) -> Interval:
    lo = _times(x[0], y[0])
    return (MAX_LENGTH if lo is None else lo), _times(x[1], y[1])


def _ceil_div(a: int, b: int | None) -> int:
    if a == 0:
        return 0
    return 1 if b is None else 1 + (a - 1) // b


def minus_one(inputs: Sequence[Dimension], outputs: Sequence[Dimension]) -> Dimension:
    """The ``-1`` dim given the input dims that count (all but special-zero copies) and the
    pattern's other dims (neither ``-1`` nor copies). Raises :class:`ReshapeBoundsError`."""
    left = list(outputs)
    one: Interval = (1, 1)
    in_static, in_dynamic, out_static, out_dynamic = one, one, one, one
    for d in inputs:
        if d.is_static and d.min != 0:
            match = next((k for k, p in enumerate(left) if p.is_static and p.min == d.min), None)
            if match is not None:  # an equal static dim on both sides cancels out
                del left[match]
                continue
        if d.is_static:
            in_static = _mul(in_static, (d.min, d.max))
        else:
            in_dynamic = _mul(in_dynamic, (d.min, d.max))
    for d in left:
        if d.is_static:
            out_static = _mul(out_static, (d.min, d.max))
        else:
            out_dynamic = _mul(out_dynamic, (d.min, d.max))
    if in_static != out_static:
        in_dynamic = _mul(in_dynamic, in_static)
        out_dynamic = _mul(out_dynamic, out_static)
    if out_static == (0, 0):
        if in_static != (0, 0):
            raise ReshapeBoundsError("Cannot infer '-1' dimension with zero-size output dimension unless at least "
                                     "one input dimension is also zero-size")
    lo, hi = in_dynamic
    out_lo, out_hi = out_dynamic
    if lo == hi and out_lo == out_hi:  # both static: the division must be exact
        if out_lo == 0 or lo % out_lo:
            raise ReshapeBoundsError("Non-'-1' output dimensions do not evenly divide the input dimensions")
        return Dimension.static(lo // out_lo)
    top = hi // out_lo if hi is not None and out_lo != 0 else None
    if out_hi != 0:
        lo = _ceil_div(lo, out_hi)
    if top is not None and top < lo:  # OpenVINO prints the inverted interval; no length fits it
        raise ReshapeBoundsError("Non-'-1' output dimensions do not evenly divide the input dimensions")
    return Dimension(lo, top)
