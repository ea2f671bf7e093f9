"""Values of small integer tensors that are partly known: what lets shape subgraphs fold.

OpenVINO folds ``ShapeOf -> Gather -> Concat -> Reshape`` through value bounds even when a dim is
dynamic. Here a tensor carries either its whole ``value`` (an array) or ``bounds``: one item per
element in flat order, an ``int`` when known or a :class:`Dimension` bounding an unknown
non-negative value (a dynamic dim read by ShapeOf). The helpers below read and write both forms.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Union

import numpy as np

from graphir.ops.base import TensorType
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

Element = Union[int, Dimension]

#: bounds are tracked only for tensors up to this many elements
BOUNDS_LIMIT = 64


def elements(t: TensorType) -> list[Element] | None:
    """The flat elements of an integer tensor when at least partly known, else None."""
    if t.value is not None:
        arr = np.asarray(t.value)
        if arr.dtype.kind not in "iub" or arr.size > BOUNDS_LIMIT * 64:
            return None
        return (arr.astype(np.int64) if arr.dtype.kind == "b" else arr).reshape(-1).tolist()  # Python ints
    if t.bounds is not None:
        return list(t.bounds)
    return None


def is_known(items: Sequence[Element]) -> bool:
    return all(isinstance(e, int) for e in items)


def make(et: ElementType, shape: PartialShape, items: Sequence[Element] | None) -> TensorType:
    """A TensorType carrying ``items`` as ``value`` (all known) or ``bounds`` (partly known)."""
    if items is None or not shape.is_static or et.is_dynamic:
        return TensorType(et, shape)
    items = [from_dimension(e) if isinstance(e, Dimension) else e for e in items]
    if is_known(items):
        arr = np.array(list(items), dtype=np.int64).astype(et.numpy_dtype).reshape(shape.to_shape())
        return TensorType(et, shape, arr)
    if len(items) > BOUNDS_LIMIT or not et.is_integral_number:
        return TensorType(et, shape)
    return TensorType(et, shape, None, tuple(items))


def as_dimension(item: Element) -> Dimension:
    """An element read as a dimension length (a negative int is not a length: fully dynamic)."""
    if isinstance(item, Dimension):
        return item
    return Dimension.static(item) if item >= 0 else Dimension.dynamic()


def as_interval(item: Element) -> tuple[int, int | None]:
    """(least, greatest) an element may be (greatest None: unbounded)."""
    if isinstance(item, Dimension):
        return item.min, item.max
    return item, item


def interval_element(lo: int, hi: int | None) -> Element:
    """The element known to lie in ``[lo, hi]``: an int when they meet, else an unknown
    non-negative value (``lo`` < 0 only when ``lo == hi``: unknown values are lengths)."""
    if hi == lo:
        return lo
    return Dimension(max(lo, 0), hi)


def from_dimension(d: Dimension) -> Element:
    return d.min if d.is_static else d


def moved(data: TensorType, move: "Callable[[np.ndarray], Sequence[np.ndarray]]",
          out_shapes: Sequence[PartialShape]) -> list[TensorType] | None:
    """The outputs of an op that only moves elements (Split, Gather), applied to ``data``'s
    bounds: ``move`` runs the op's own evaluate on an object array of the elements. None when
    ``data`` has no bounds or a shape is not static."""
    if data.bounds is None or not data.shape.is_static or not all(s.is_static for s in out_shapes):
        return None
    items = np.empty(len(data.bounds), dtype=object)
    items[:] = list(data.bounds)
    try:
        parts = move(items.reshape(data.shape.to_shape()))
    except (TypeError, ValueError, IndexError):
        return None
    return [make(data.element_type, s, list(np.asarray(p, dtype=object).reshape(-1))) for s, p in zip(out_shapes, parts)]
