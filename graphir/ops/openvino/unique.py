"""OpenVINO Unique-10: the unique elements (or slices along ``axis``) of a tensor, with the index
of each one's first occurrence, the index of each input element's unique value, and the counts.

The unique count is data-dependent: OpenVINO bounds it by ``1..N`` (N: the element count, or the
axis length for the values' axis dim), and gives exact shapes when the input is a known constant.
"""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import INDEX, Op, Port, TensorType
from graphir.ops.openvino import shape_values as sv
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def _upto(d: Dimension) -> Dimension:
    """How many unique slices a dim of ``d`` holds, as OpenVINO bounds it: ``1..max`` (0 for an
    empty dim, ``?`` for an unbounded one)."""
    if d.max is None:
        return Dimension.dynamic()
    return Dimension.static(0) if d.max == 0 else Dimension(1, d.max)


def _upto_count(d: Dimension) -> Dimension:
    """The bound of the flat unique count: OpenVINO gives ``1..N`` only for a static N > 0, else ``?``."""
    return Dimension(1, d.max) if d.is_static and d.min > 0 else Dimension.dynamic()


class Unique(Op):
    type_name: ClassVar[str] = "Unique"
    version: ClassVar[str] = "opset10"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("axis", INDEX, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("unique"), Port("indices"), Port("rev_idx"), Port("counts"))

    sorted: bool = True
    index_element_type: Literal["i32", "i64"] = "i64"
    count_element_type: Literal["i32", "i64"] = "i64"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        idx_t, cnt_t = ElementType.parse(self.index_element_type), ElementType.parse(self.count_element_type)
        axis = None
        if len(inputs) > 1:
            a = inputs[1]
            if not a.element_type.is_dynamic and a.element_type not in INDEX:
                raise self.fail(f"The allowed element types of the 'axis' input tensor are i32 and i64 "
                                f"(got {a.element_type}).")
            if a.shape.rank_is_static and not (len(a.shape) == 0 or (len(a.shape) == 1 and a.shape[0] == 1)):
                raise self.fail(f"The 'axis' input tensor of the Unique operator must be a scalar or 1D tensor "
                                f"with 1 element (got {a.shape}).")
            values = sv.elements(a) if a.value is not None else None
            if values is None:
                raise self.fail("The 'axis' input of Unique must be a constant.")
            axis = int(values[0])  # type: ignore[arg-type]
            if data.shape.rank_is_static:
                rank = len(data.shape)
                if not -rank <= axis < rank:
                    raise self.fail(f"Axis {axis} out of the tensor rank range [{-rank}, {rank - 1}].")
                axis %= rank
        if data.value is not None and (axis is not None or len(inputs) == 1):
            outs = self.evaluate(np.asarray(data.value), *([] if axis is None else [np.array(axis)]))
            return [TensorType(e, PartialShape(list(o.shape)), o)
                    for e, o in zip((data.element_type, idx_t, idx_t, cnt_t), outs)]
        total = Dimension.dynamic()
        if data.shape.rank_is_static:
            total = Dimension.static(1)
            for d in data.shape.dims:
                total = total * d
        if axis is None or data.shape.rank_is_dynamic:
            unique = _upto_count(total)
            values_shape = PartialShape([unique]) if axis is None else PartialShape.dynamic()
            rev = PartialShape([total if total.is_static and total.min > 0 else Dimension.dynamic()])
        else:
            dims = list(data.shape.dims)
            rev = PartialShape([dims[axis]])
            dims[axis] = _upto(dims[axis])
            values_shape = PartialShape(dims)
            unique = Dimension.static(0) if rev[0] == 0 else _upto_count(total)
        return [TensorType(data.element_type, values_shape), TensorType(idx_t, PartialShape([unique])),
                TensorType(idx_t, rev), TensorType(cnt_t, PartialShape([unique]))]

    def evaluate(self, x: np.ndarray, axis: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        idx_dtype = ElementType.parse(self.index_element_type).numpy_dtype
        cnt_dtype = ElementType.parse(self.count_element_type).numpy_dtype
        if axis is None:
            flat = x.reshape(-1)
            items = [flat[i:i + 1] for i in range(flat.size)]
            ax = None
        else:
            ax = int(np.asarray(axis).reshape(-1)[0]) % x.ndim
            moved = np.moveaxis(x, ax, 0)
            items = [moved[i] for i in range(moved.shape[0])]
        first: dict[tuple, int] = {}
        order: list[int] = []
        rev = np.empty(len(items), dtype=np.int64)
        keys = [tuple(np.asarray(it).reshape(-1).tolist()) for it in items]  # -0.0 == 0.0, as in C++
        for i, key in enumerate(keys):
            if key not in first:
                first[key] = len(order)
                order.append(i)
            rev[i] = first[key]
        counts = np.bincount(rev, minlength=len(order)) if len(items) else np.zeros(0, np.int64)
        if self.sorted and order:
            ranking = sorted(range(len(order)), key=lambda k: keys[order[k]])
            new_pos = np.empty(len(order), dtype=np.int64)
            new_pos[ranking] = np.arange(len(order))
            order = [order[k] for k in ranking]
            counts = counts[ranking]
            rev = new_pos[rev]
        if ax is None:
            values = x.reshape(-1)[order] if order else x.reshape(-1)[:0]
        else:
            values = np.take(x, order, axis=ax) if order else np.take(x, [], axis=ax)
        return [values, np.asarray(order, dtype=idx_dtype), rev.astype(idx_dtype), counts.astype(cnt_dtype)]
