"""OpenVINO slicing: StridedSlice-1, Slice-8, Split-1, VariadicSplit-1.

A slice's output length is Python's ``len(range(*slice(b, e, s).indices(d)))``; on an interval
dim it is computed at both ends (it never shrinks as the dim grows), and an unbounded dim keeps an
unbounded length unless the slice itself bounds it (``x[1:5]`` is at most 4 long). Where the
begin/end values are unknown a sliced dim becomes ``..d``, as OpenVINO infers it.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from graphir.ops.base import INTEGRAL, NodeSignature, Op, Port, TensorType, fresh_output
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.ops.openvino.shape_ops import axis_in_range
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

_BIG = 1 << 62


def slice_length(d: int, begin: int | None, end: int | None, step: int) -> int:
    return len(range(*slice(begin, end, step).indices(d)))


def sliced_dim(dim: Dimension, begin: int | None, end: int | None, step: int) -> Dimension:
    """The length of ``dim[begin:end:step]`` as an interval, bounded as OpenVINO bounds it."""
    if end is not None and abs(end) >= _BIG:  # INT64_MAX-like ends mean "to the end"
        end = None
    if begin is not None and abs(begin) >= _BIG:
        begin = None
    if dim.is_static:
        return Dimension.static(slice_length(dim.min, begin, end, step))
    at_min = slice_length(dim.min, begin, end, step)
    if dim.max is not None:
        at_max = slice_length(dim.max, begin, end, step)
        return Dimension(min(at_min, at_max), max(at_min, at_max))
    cap = _length_cap(begin, end, step)
    if cap is None:
        return Dimension(at_min, None)
    return Dimension(min(at_min, cap), cap)


def _length_cap(begin: int | None, end: int | None, step: int) -> int | None:
    """An upper bound of the slice length whatever the dim (None: unbounded)."""
    if step > 0:
        if end is not None and end >= 0:
            start = begin if begin is not None and begin >= 0 else 0
            return max(0, -(-(end - start) // step))
        if begin is not None and begin < 0:
            span = -begin if end is None else end - begin
            return max(0, -(-span // step))
        return None
    down = -step
    if begin is not None and begin >= 0:
        stop = end if end is not None and end >= 0 else -1
        return max(0, -(-(begin - stop) // down))
    if end is not None and end < 0:
        start = begin if begin is not None else -1
        return max(0, -(-(start - end) // down))
    return None


def _upto(d: Dimension) -> Dimension:
    return Dimension(0, d.max)


def _ints(items: list[sv.Element] | None) -> list[int] | None:
    if items is None or not sv.is_known(items):
        return None
    return [int(v) for v in items]  # type: ignore[arg-type]


def _clip(v: int) -> int:
    return max(min(v, _BIG), -_BIG)


# --- StridedSlice ----------------------------------------------------------------------------
class StridedSlice(Op):
    """StridedSlice-1 with TensorFlow's masks (a 1 in ``begin_mask``/``end_mask`` ignores that
    begin/end; ``new_axis_mask`` inserts a 1; ``shrink_axis_mask`` takes one element and drops the
    dim; ``ellipsis_mask`` stands for all the dims not named)."""

    type_name: ClassVar[str] = "StridedSlice"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("begin", INTEGRAL), Port("end", INTEGRAL),
                                          Port("strides", INTEGRAL, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    begin_mask: list[int]
    end_mask: list[int]
    new_axis_mask: list[int] = []
    shrink_axis_mask: list[int] = []
    ellipsis_mask: list[int] = []

    @staticmethod
    def _bit(mask: list[int], i: int) -> bool:
        return i < len(mask) and mask[i] != 0

    def plan(self, rank: int, n: int, begin: list[int] | None, end: list[int] | None,
             strides: list[int]) -> list[tuple[str, int | None, int | None, int, int, int]]:
        """One entry per output step: (kind, begin, end, stride, input axis, spec index); kind is
        slice, new, shrink or keep. ``begin``/``end`` None: unknown, or masked (an open end)."""
        consuming = sum(1 for i in range(n) if not self._bit(self.new_axis_mask, i)
                        and not self._bit(self.ellipsis_mask, i))
        out: list[tuple[str, int | None, int | None, int, int, int]] = []
        axis = 0
        seen_ellipsis = False
        for i in range(n):
            if self._bit(self.ellipsis_mask, i) and not seen_ellipsis:
                seen_ellipsis = True
                for _ in range(max(rank - consuming, 0)):
                    out.append(("keep", None, None, 1, axis, i))
                    axis += 1
                continue
            if self._bit(self.new_axis_mask, i):
                out.append(("new", None, None, 1, axis, i))
                continue
            if axis >= rank:
                break
            stride = strides[i] if i < len(strides) else 1
            if stride == 0:
                raise self.fail("Stride must be non-zero (strides input has a 0)")
            b = None if self._bit(self.begin_mask, i) or begin is None else begin[i]
            e = None if self._bit(self.end_mask, i) or end is None else end[i]
            if self._bit(self.shrink_axis_mask, i):
                out.append(("shrink", b if b is not None else 0, None, 1, axis, i))
            else:
                out.append(("slice", b, e, stride, axis, i))
            axis += 1
        while axis < rank:
            out.append(("keep", None, None, 1, axis, -1))
            axis += 1
        return out

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        for port, t in zip(("begin", "end", "strides"), inputs[1:]):
            if t.shape.rank_is_static and len(t.shape) != 1:
                raise self.fail(f"{port} input must be 1D (got shape {t.shape})")
        begin = _ints(sv.elements(inputs[1]))
        end = _ints(sv.elements(inputs[2]))
        strides = _ints(sv.elements(inputs[3])) if len(inputs) > 3 else None
        lengths = [t.shape[0] for t in inputs[1:] if t.shape.rank_is_static and t.shape[0].is_static]
        if data.shape.rank_is_dynamic or not lengths:
            return [TensorType(data.element_type, PartialShape.dynamic())]
        n = lengths[0].get_length()
        if strides is None:
            strides = [1] * n if len(inputs) <= 3 else None
        if strides is None:
            plan = self.plan(len(data.shape), n, None, None, [1] * n)
            unknown = [self._unknown(kind, data.shape, ax) for kind, _, _, _, ax, _ in plan]
            return [TensorType(data.element_type, PartialShape([d for d in unknown if d is not None]))]
        plan = self.plan(len(data.shape), n, begin, end, strides)
        dims: list[Dimension] = []
        for kind, b, e, s, ax, spec in plan:
            if kind == "new":
                dims.append(Dimension.static(1))
            elif kind == "keep":
                dims.append(data.shape[ax])
            elif kind == "shrink":
                continue
            elif (begin is None and not self._bit(self.begin_mask, spec)) or \
                    (end is None and not self._bit(self.end_mask, spec)):
                dims.append(_upto(data.shape[ax]))
            else:
                dims.append(sliced_dim(data.shape[ax], b if b is None else _clip(b), e if e is None else _clip(e), s))
        shape = PartialShape(dims)
        out = TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))
        if out.value is None and data.bounds is not None and len(data.shape) == 1 and shape.is_static \
                and begin is not None and end is not None:
            kind, b, e, s, _, _ = plan[0]
            items = list(data.bounds)
            if kind == "slice":
                picked = items[slice(b, e, s)]
            elif kind == "shrink" and b is not None:  # begin is known here
                picked = [items[b]]
            else:
                picked = items
            return [sv.make(data.element_type, shape, picked)]
        return [out]

    @staticmethod
    def _unknown(kind: str, shape: PartialShape, ax: int) -> Dimension | None:
        if kind == "new":
            return Dimension.static(1)
        if kind == "shrink":
            return None
        if kind == "keep":
            return shape[ax]
        return _upto(shape[ax])

    def evaluate(self, x: np.ndarray, begin: np.ndarray, end: np.ndarray,
                 strides: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        b = [int(v) for v in np.asarray(begin).reshape(-1)]
        e = [int(v) for v in np.asarray(end).reshape(-1)]
        s = [int(v) for v in np.asarray(strides).reshape(-1)] if strides is not None else [1] * len(b)
        plan = self.plan(x.ndim, len(b), b, e, s)
        index: list[int | slice | None] = []
        for kind, bb, ee, ss, ax, _ in plan:
            if kind == "new":
                index.append(None)
            elif kind == "keep":
                index.append(slice(None))
            elif kind == "shrink":
                d = x.shape[ax]
                k = bb if bb is not None else 0
                index.append(k + d if k < 0 else k)
            else:
                index.append(slice(bb, ee, ss))
        return [np.array(x[tuple(index)], copy=True)]


# --- Slice -----------------------------------------------------------------------------------
class Slice(Op):
    """Slice-8: ``start``/``stop``/``step`` along ``axes`` (default: the first len(start) axes)."""

    type_name: ClassVar[str] = "Slice"
    version: ClassVar[str] = "opset8"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("start", INTEGRAL), Port("stop", INTEGRAL),
                                          Port("step", INTEGRAL), Port("axes", INTEGRAL, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        for port, t in zip(("start", "stop", "step", "axes"), inputs[1:]):
            if t.shape.rank_is_static and len(t.shape) != 1:
                raise self.fail(f"{port} input must be a 1D tensor, got shape {t.shape}")
        start, stop, step = (_ints(sv.elements(t)) for t in inputs[1:4])
        axes = _ints(sv.elements(inputs[4])) if len(inputs) > 4 else None
        if step is not None and 0 in step:
            raise self.fail("Step must be non-zero")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, data.shape)]
        rank = len(data.shape)
        if len(inputs) > 4 and axes is None:
            return [TensorType(data.element_type, PartialShape([_upto(d) for d in data.shape.dims]))]
        n = next((len(v) for v in (start, stop, step, axes) if v is not None), None)
        if n is None:
            n_dim = inputs[1].shape[0] if inputs[1].shape.rank_is_static else Dimension.dynamic()
            n = n_dim.get_length() if n_dim.is_static else rank
        if axes is None:
            axes = list(range(n))
        axes = [axis_in_range(self, a, rank) for a in axes]
        if len(set(axes)) != len(axes):
            raise self.fail(f"Slice values in `axes` input must be unique, got {axes}")
        dims = list(data.shape.dims)
        stop_items = sv.elements(inputs[2]) if stop is None else None
        for i, ax in enumerate(axes):
            if start is not None and step is not None and stop_items is not None and len(stop_items) == len(axes):
                dims[ax] = _stop_bounded_dim(dims[ax], start[i], stop_items[i], step[i])
            elif start is None or stop is None or step is None:
                dims[ax] = _upto(dims[ax])
            else:
                dims[ax] = sliced_dim(dims[ax], _clip(start[i]), _clip(stop[i]), step[i])
        shape = PartialShape(dims)
        out = TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))
        if out.value is None and data.bounds is not None and rank == 1 and shape.is_static \
                and None not in (start, stop, step):
            picked = list(data.bounds)[slice(start[0], stop[0], step[0])]  # type: ignore[index]
            return [sv.make(data.element_type, shape, picked)]
        return [out]

    def evaluate(self, x: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray,
                 axes: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        st, sp, sd = (list(map(int, np.asarray(v).reshape(-1))) for v in (start, stop, step))
        ax = list(map(int, np.asarray(axes).reshape(-1))) if axes is not None else list(range(len(st)))
        index = [slice(None)] * x.ndim
        for i, a in enumerate(ax):
            index[a % x.ndim] = slice(_clip(st[i]), _clip(sp[i]), sd[i])
        return [np.array(x[tuple(index)], copy=True)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """Constant start/stop/step/axes and a known rank: the index built once, then the copy
        ``evaluate`` makes (a zero step or an axis out of range keeps ``evaluate``, which reports it)."""
        data = node.inputs[0]
        values = node.constants[1:]
        if not data.shape.rank_is_static or any(v is None for v in values[:3]) or (len(values) > 3 and values[3] is None):
            return self.evaluate
        rank = len(data.shape)
        st, sp, sd = (list(map(int, np.asarray(v).reshape(-1))) for v in values[:3])
        ax = list(map(int, np.asarray(values[3]).reshape(-1))) if len(values) > 3 else list(range(len(st)))
        if rank == 0 or 0 in sd or not len(st) == len(sp) == len(sd) == len(ax) or any(not -rank <= a < rank for a in ax):
            return self.evaluate
        index: list[slice] = [slice(None)] * rank
        for i, a in enumerate(ax):
            index[a % rank] = slice(_clip(st[i]), _clip(sp[i]), sd[i])
        key = tuple(index)
        return fresh_output(lambda x, *_: [np.array(x[key], copy=True)])


# --- Split / VariadicSplit -------------------------------------------------------------------
def _stop_bounded_dim(d: Dimension, start: int, stop: "int | Dimension", step: int) -> Dimension:
    """A slice from a known start with step 1 to a stop known as an interval (Swin's ``x[:, :H, :W]``
    with H read from a shape): OpenVINO gives ``[min(lows) - start, min(highs) - start]``."""
    if isinstance(stop, int):
        return sliced_dim(d, _clip(start), _clip(stop), step)
    if step != 1 or start < 0:
        return _upto(d)
    low = max(min(d.min, stop.min) - start, 0)
    highs = [h for h in (d.max, stop.max) if h is not None]
    return Dimension(low, max(min(highs) - start, 0) if highs else None)


class Split(Op):
    """Split-1: ``num_splits`` equal parts along ``axis`` (input 1)."""

    type_name: ClassVar[str] = "Split"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("axis", INTEGRAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output", variadic=True),)

    num_splits: int

    def num_outputs(self) -> int:
        return self.num_splits

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, axis_t = inputs
        if self.num_splits <= 0:
            raise self.fail(f"Attribute 'num_splits' must be greater than zero. Got: {self.num_splits}")
        if axis_t.shape.rank_is_static and len(axis_t.shape) != 0:
            raise self.fail(f"'axis' input must be a scalar. Got: {axis_t.shape}")
        axis_items = _ints(sv.elements(axis_t))
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, data.shape)] * self.num_splits
        if axis_items is None:
            return [TensorType(data.element_type, PartialShape.dynamic(len(data.shape)))] * self.num_splits
        axis = axis_in_range(self, axis_items[0], len(data.shape))
        d = data.shape[axis]
        n = self.num_splits
        if d.is_static and d.min % n:
            raise self.fail(
                f"Dimension of data input shape along 'axis': {d.min} must be evenly divisible by "
                f"'num_splits' attribute value: {n} (data {data.shape})")
        part = Dimension(-(-d.min // n), None if d.max is None else d.max // n) if d.is_dynamic else Dimension.static(d.min // n)
        shape = PartialShape([part if i == axis else x for i, x in enumerate(data.shape.dims)])
        values = self._fold(inputs, shape)
        if values[0] is None:  # a shape vector split into parts keeps its bounds
            bounded = sv.moved(data, lambda a: self.evaluate(a, np.int64(axis)), [shape] * self.num_splits)
            if bounded is not None:
                return bounded
        return [TensorType(data.element_type, shape, v) for v in values]

    def _fold(self, inputs: list[TensorType], shape: PartialShape) -> list:
        if any(t.value is None for t in inputs) or not shape.is_static:
            return [None] * self.num_outputs_for(inputs)
        return self.evaluate(*(np.asarray(t.value) for t in inputs))

    def num_outputs_for(self, inputs: list[TensorType]) -> int:
        return self.num_splits

    def evaluate(self, x: np.ndarray, axis: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        ax = int(np.asarray(axis).reshape(-1)[0]) % x.ndim
        return [np.array(p, copy=True) for p in np.split(x, self.num_splits, axis=ax)]


class VariadicSplit(Op):
    """VariadicSplit-1: parts of the given ``split_lengths`` (one may be -1: the rest)."""

    type_name: ClassVar[str] = "VariadicSplit"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("axis", INTEGRAL), Port("split_lengths", INTEGRAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output", variadic=True),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, axis_t, lengths_t = inputs
        if lengths_t.shape.rank_is_static and len(lengths_t.shape) != 1:
            raise self.fail(f"Split lengths should be a 1-D tensor. Got {lengths_t.shape}")
        if not lengths_t.shape.is_static:
            raise self.fail(f"the number of outputs needs a static split_lengths shape, got {lengths_t.shape}")
        count = lengths_t.shape.to_shape()[0]
        axis_items = _ints(sv.elements(axis_t))
        lengths = _ints(sv.elements(lengths_t))
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, data.shape)] * count
        if axis_items is None:
            return [TensorType(data.element_type, PartialShape.dynamic(len(data.shape)))] * count
        axis = axis_in_range(self, axis_items[0], len(data.shape))
        d = data.shape[axis]
        if lengths is None:
            parts = [Dimension.dynamic()] * count
        else:
            parts = self._parts(d, lengths, data.shape)
        shapes = [PartialShape([p if i == axis else x for i, x in enumerate(data.shape.dims)]) for p in parts]
        if all(t.value is not None for t in inputs) and all(s.is_static for s in shapes):
            values = self.evaluate(*(np.asarray(t.value) for t in inputs))
            return [TensorType(data.element_type, s, v) for s, v in zip(shapes, values)]
        return [TensorType(data.element_type, s) for s in shapes]

    def _parts(self, d: Dimension, lengths: list[int], shape: PartialShape) -> list[Dimension]:
        if lengths.count(-1) > 1:
            raise self.fail(f"No more than one dimension in split_lengths can be -1, got {lengths}")
        known = sum(v for v in lengths if v != -1)
        if any(v < -1 for v in lengths):
            raise self.fail(f"split_lengths must be -1 or non-negative, got {lengths}")
        if d.is_static:
            if -1 in lengths:
                if known > d.min:
                    raise self.fail(f"Total length of splits: {known} exceeds the length of the chosen axis: {d.min}")
            elif known != d.min:
                raise self.fail(
                    f"Total length of splits: {known} must match the length of the chosen axis: {d.min} "
                    f"(data {shape}, split_lengths {lengths})")
            return [Dimension.static(d.min - known if v == -1 else v) for v in lengths]
        return [Dimension.dynamic() if v == -1 else Dimension.static(v) for v in lengths]

    def evaluate(self, x: np.ndarray, axis: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        ax = int(np.asarray(axis).reshape(-1)[0]) % x.ndim
        parts = self._parts(Dimension.static(x.shape[ax]), [int(v) for v in np.asarray(lengths).reshape(-1)],
                            PartialShape(list(x.shape)))
        cuts = np.cumsum([p.min for p in parts])[:-1]
        return [np.array(p, copy=True) for p in np.split(x, cuts, axis=ax)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """Constant axis and lengths, a known rank: the lengths checked once; per call the part
        bounds (a ``-1`` part takes the rest of the axis) and the copies ``evaluate`` makes.
        Lengths that do not fit the axis go through ``evaluate``, which reports them."""
        data, axis, lengths = node.inputs[0], node.constants[1], node.constants[2]
        if axis is None or lengths is None or not data.shape.rank_is_static or not len(data.shape):
            return self.evaluate
        rank = len(data.shape)
        ax = int(np.asarray(axis).reshape(-1)[0])
        items = [int(v) for v in np.asarray(lengths).reshape(-1)]
        if not -rank <= ax < rank or items.count(-1) > 1 or any(v < -1 for v in items):
            return self.evaluate
        ax %= rank
        known, rest = sum(v for v in items if v != -1), -1 in items
        lead = (slice(None),) * ax
        generic = self.evaluate

        def split(x: np.ndarray, axis_: np.ndarray, lengths_: np.ndarray) -> list[np.ndarray]:
            d = x.shape[ax]
            if (known > d) if rest else (known != d):
                return generic(x, axis_, lengths_)
            out, start = [], 0
            for v in items:
                stop = start + (d - known if v == -1 else v)
                out.append(np.array(x[lead + (slice(start, stop),)], copy=True))
                start = stop
            return out

        return split
