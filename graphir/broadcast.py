"""Broadcast rules over partial shapes, independent of any op.

``none``: shapes must merge. ``numpy``: bidirectional, right-aligned, as OpenVINO computes it on
partial shapes. ``one_way``: the target is fixed and the source must fit it (oneDNN Graph's cond).
``pdpd``: PaddlePaddle's rule with an ``axis``, as OpenVINO's ``AutoBroadcastSpec`` defines it.
Each function returns the merged shape or raises :class:`BroadcastError` naming the shapes.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from graphir.errors import BroadcastError
from graphir.shapes import Dimension, PartialShape

BroadcastMode = Literal["none", "numpy", "pdpd"]
_MODES: tuple[str, ...] = ("none", "numpy", "pdpd")


class AutoBroadcastSpec(BaseModel):
    """OpenVINO's ``AutoBroadcastSpec``: a mode and, for pdpd, the axis where alignment starts."""

    model_config = ConfigDict(frozen=True)
    type: BroadcastMode = "numpy"
    axis: int = 0


def numpy_merge(dst: PartialShape, src: PartialShape) -> PartialShape | None:
    """Bidirectional numpy broadcast of two partial shapes; None when they cannot broadcast."""
    if dst.rank_is_dynamic or src.rank_is_dynamic:
        return PartialShape.dynamic()
    a, b = dst.dims, src.dims
    if a == b:  # the common case: each dim merges with itself into itself
        return dst
    rank = max(len(a), len(b))
    one = Dimension.static(1)
    a = (one,) * (rank - len(a)) + a
    b = (one,) * (rank - len(b)) + b
    out = []
    for da, db in zip(a, b):
        if da is db or db is one:  # static lengths are shared instances: equal ones merge to themselves
            out.append(da)
            continue
        if da is one:
            out.append(db)
            continue
        m = da.broadcast_merge(db)
        if m is None:
            return None
        out.append(m)
    return PartialShape.of(tuple(out))


def none_merge(dst: PartialShape, src: PartialShape) -> PartialShape | None:
    """No broadcasting: the shapes must merge (intersect); a dynamic rank takes the other."""
    return dst.merge(src)


def one_way_merge(target: PartialShape, src: PartialShape) -> PartialShape | None:
    """One-way numpy: ``src`` fits ``target`` (rank <= target rank, each dim equal or 1).

    The result is ``target`` refined by what ``src`` tells about it; None when ``src`` does not fit.
    """
    if target.rank_is_dynamic or src.rank_is_dynamic:
        return target
    t, s = target.dims, src.dims
    if len(s) > len(t):
        return None
    out = list(t)
    offset = len(t) - len(s)
    for i, ds in enumerate(s):
        dt = t[offset + i]
        if ds == 1:
            continue
        if ds.contains(1) and ds.is_dynamic:
            continue  # may be 1 at run time: no constraint on the target
        m = dt.merge(ds)
        if m is None:
            return None
        out[offset + i] = m
    return PartialShape(out)


def pdpd_merge(dst: PartialShape, src: PartialShape, axis: int = -1) -> PartialShape | None:
    """PaddlePaddle broadcast of ``src`` into ``dst`` starting at ``axis`` (-1: trailing alignment).

    As OpenVINO 2026 computes it (pinned by tests/test_select_differential.py): a dynamic rank on
    either side gives a dynamic rank; ``src`` may not out-rank ``dst`` nor run past its end; an
    axis below -1 fails; two static dims fail when the source one is larger (so a source 1 does
    not fit a target 0); otherwise each pair takes :meth:`Dimension.broadcast_merge` (which lets
    a static source widen a dynamic target that may be 1: ``[5]`` into ``[1..4]`` gives ``[5]``).
    """
    if dst.rank_is_dynamic or src.rank_is_dynamic:
        return PartialShape.dynamic()
    d, s = dst.dims, src.dims
    if len(s) > len(d) or axis < -1:
        return None
    start = len(d) - len(s) if axis == -1 else axis
    if start + len(s) > len(d):
        return None
    out = list(d)
    for i, ds in enumerate(s):
        dd = d[start + i]
        if ds.is_static and dd.is_static and ds.min > dd.min:
            return None
        merged = dd.broadcast_merge(ds)
        if merged is None:
            return None
        out[start + i] = merged
    return PartialShape(out)


def broadcast_merge(
    dst: PartialShape, src: PartialShape, spec: AutoBroadcastSpec | BroadcastMode = "numpy"
) -> PartialShape | None:
    """``PartialShape::broadcast_merge_into`` for any mode; None on failure."""
    if isinstance(spec, str):  # a mode name (no pdpd axis): no spec object needed
        if spec == "numpy":
            return numpy_merge(dst, src)
        if spec not in _MODES:
            raise BroadcastError(f"unknown broadcast mode '{spec}'; expected one of: {', '.join(_MODES)}")
        spec = AutoBroadcastSpec(type=spec)
    if spec.type == "numpy":
        return numpy_merge(dst, src)
    if spec.type == "none":
        return none_merge(dst, src)
    return pdpd_merge(dst, src, spec.axis)


def broadcast_shapes(
    *shapes: PartialShape | str, mode: AutoBroadcastSpec | BroadcastMode = "numpy"
) -> PartialShape:
    """Broadcast several shapes left to right; raises BroadcastError naming them on failure."""
    parsed = [PartialShape.parse(s) for s in shapes]
    if not parsed:
        raise BroadcastError("broadcast_shapes needs at least one shape")
    result = parsed[0]
    for shape in parsed[1:]:
        merged = broadcast_merge(result, shape, mode)
        if merged is None:
            name = mode if isinstance(mode, str) else mode.type
            raise BroadcastError(
                f"shapes {', '.join(str(s) for s in parsed)} cannot be broadcast "
                f"({name} rule): {result} and {shape} conflict"
            )
        result = merged
    return result


def one_way_broadcast(target: PartialShape | str, src: PartialShape | str) -> PartialShape:
    target, src = PartialShape.parse(target), PartialShape.parse(src)
    merged = one_way_merge(target, src)
    if merged is None:
        raise BroadcastError(
            f"shape {src} cannot be one-way broadcast to {target}: its rank must not exceed "
            f"{target.rank} and each dimension must equal the target's or be 1"
        )
    return merged
