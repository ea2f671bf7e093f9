"""OpenVINO ops whose outputs are sequences or orderings: Range-1/4, NonZero-3, TopK-1/3/11,
CumSum-3, OneHot-1/16 and Roll-7. Range and NonZero have value-dependent shapes: known inputs
fold to a static shape, unknown ones leave the length dynamic (NonZero: ``[rank, ..size]``)."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np

from graphir.limits import check_tensor
from graphir.ops.base import INDEX, INTEGRAL, NodeSignature, Op, Port, TensorType
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.ops.openvino.shape_ops import axis_in_range
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def _scalar(op: Op, t: TensorType, port: str) -> None:
    """Range's start/stop/step: rank 0 or unknown; OpenVINO 2026.4 (Range-1 and -4) refuses a [1]
    tensor too ("'start' input is not a scalar", range_shape_inference.hpp)."""
    if t.shape.rank_is_static and len(t.shape) != 0:
        raise op.fail(f"'{port}' input is not a scalar, got {t.shape} (Range takes rank-0 start, stop and step)")


def _one(value: object) -> float:
    return float(np.asarray(value, dtype=np.float64).reshape(-1)[0])


# --- Range -----------------------------------------------------------------------------------
def range_length(start: float, stop: float, step: float, integral: bool) -> int:
    if integral:
        start, stop, step = math.trunc(start), math.trunc(stop), math.trunc(step)
        if step == 0:  # Range-4 with real inputs and an integer output: a step in (-1, 1) gives nothing
            return 0
    n = math.ceil((stop - start) / step)
    return max(int(n), 0)


class Range(Op):
    """Range-1: start/stop/step of one numeric type; output of that type."""

    type_name: ClassVar[str] = "Range"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("start"), Port("stop"), Port("step"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def result_type(self, inputs: list[TensorType]) -> ElementType:
        et = ElementType.dynamic
        for t in inputs:
            merged = et.merge(t.element_type)
            if merged is None:
                raise self.fail(
                    "Element types for start, stop, and step do not match: "
                    + ", ".join(f"{p.name} {t}" for p, t in zip(self.inputs, inputs)))
            et = merged
        if et is ElementType.boolean:
            raise self.fail("Element type for start, stop, and step, must not be boolean.")
        return et

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        for port, t in zip(("start", "stop", "step"), inputs):
            _scalar(self, t, port)
        et = self.result_type(inputs)
        if any(t.value is None for t in inputs):
            return [TensorType(et, PartialShape([Dimension.dynamic()]))]
        start, stop, step = (_one(t.value) for t in inputs)
        if step == 0 or not math.isfinite(step):
            raise self.fail("'step' cannot be zero, nan, or infinite.")
        if not (math.isfinite(start) and math.isfinite(stop)):
            raise self.fail("'start' and 'stop' must be finite")
        n = range_length(start, stop, step, self._integral(inputs))
        shape = PartialShape([n])
        return [TensorType(et, shape, fold(self, inputs, shape, et))]

    def _integral(self, inputs: list[TensorType]) -> bool:
        """Whether start, stop and step are truncated to integers first."""
        return all(t.element_type.is_integral_number for t in inputs)

    def evaluate(self, start: np.ndarray, stop: np.ndarray, step: np.ndarray) -> list[np.ndarray]:
        dtype = np.asarray(start).dtype
        return [self._values(_one(start), _one(stop), _one(step), np.issubdtype(dtype, np.integer), dtype)]

    @staticmethod
    def _values(start: float, stop: float, step: float, integral: bool, dtype: np.dtype) -> np.ndarray:
        if integral:
            start, stop, step = math.trunc(start), math.trunc(stop), math.trunc(step)
        n = range_length(start, stop, step, integral)
        check_tensor([n], np.float64)
        return (start + np.arange(n, dtype=np.float64) * step).astype(dtype)


class Range4(Range):
    """Range-4: any numeric inputs (they need not match); ``output_type`` names the result."""

    type_name: ClassVar[str] = "Range"
    version: ClassVar[str] = "opset4"

    output_type: ElementType

    def result_type(self, inputs: list[TensorType]) -> ElementType:
        for p, t in zip(self.inputs, inputs):
            if t.element_type is ElementType.boolean:
                raise self.fail(f"'{p.name}' input element type must be numeric, got {t}")
        return self.output_type

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        out = super().infer(inputs)[0]
        if out.shape.rank_is_static and out.shape.is_static and out.value is None and all(t.value is not None for t in inputs):
            value = self.evaluate(*(np.asarray(t.value) for t in inputs))[0]
            return [TensorType(out.element_type, out.shape, value)]
        return [out]

    def _integral(self, inputs: list[TensorType]) -> bool:
        """An integer output truncates real inputs too (OpenVINO 2026.4: f32 1.2, 11.3, 1.6 to u64 gives
        1..10, and a step in (-1, 1) gives an empty range)."""
        return self.output_type.is_integral_number

    def evaluate(self, start: np.ndarray, stop: np.ndarray, step: np.ndarray) -> list[np.ndarray]:
        integral = self.output_type.is_integral_number
        return [self._values(_one(start), _one(stop), _one(step), integral, self.output_type.numpy_dtype)]


# --- NonZero ---------------------------------------------------------------------------------
class NonZero(Op):
    """NonZero-3: the indices of non-zero elements, one row per input dim: ``[rank, count]``."""

    type_name: ClassVar[str] = "NonZero"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    output_type: Literal["i32", "i64"] = "i64"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        et = ElementType.parse(self.output_type)
        if data.value is not None:
            value = self.evaluate(np.asarray(data.value))[0]
            return [TensorType(et, PartialShape(list(value.shape)), value)]
        if data.shape.rank_is_dynamic or len(data.shape) == 0:
            return [TensorType(et, PartialShape.dynamic(2))]
        count = Dimension.static(1)
        for d in data.shape.dims:
            count = count * d
        return [TensorType(et, PartialShape([len(data.shape), Dimension(0, count.max)]))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        dtype = ElementType.parse(self.output_type).numpy_dtype
        if x.ndim == 0:
            return [np.zeros((0, 1 if x != 0 else 0), dtype)]
        return [np.array(np.nonzero(x), dtype=dtype).reshape(x.ndim, -1)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """Inputs of static rank >= 1: ``evaluate``'s ``nonzero``, the index type decoded once."""
        shape = node.inputs[0].shape
        if not shape.rank_is_static or len(shape) == 0:
            return self.evaluate
        dtype = np.dtype(ElementType.parse(self.output_type).numpy_dtype)
        rank = len(shape)
        return lambda x: [np.array(np.nonzero(x), dtype=dtype).reshape(rank, -1)]


# --- TopK ------------------------------------------------------------------------------------
class TopK(Op):
    """TopK-1: the ``k`` largest (``mode`` max) or smallest values along ``axis`` and their
    indices, ordered by value or by index (``sort``: value, index, none)."""

    type_name: ClassVar[str] = "TopK"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("k", INTEGRAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("values"), Port("indices"))

    axis: int
    mode: Literal["max", "min"]
    sort: Literal["value", "index", "none"]
    index_element_type: Literal["i32", "i64"] = "i32"

    @property
    def is_stable(self) -> bool:
        return getattr(self, "stable", False)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, k_t = inputs
        if k_t.shape.rank_is_static and len(k_t.shape) != 0:
            raise self.fail(f"The 'K' input must be a scalar, got {k_t.shape}")
        if not (k_t.element_type.is_integral_number or k_t.element_type.is_dynamic):
            raise self.fail(f"K input element type must be integral, got {k_t}")
        idx_et = ElementType.parse(self.index_element_type)
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, data.shape), TensorType(idx_et, data.shape)]
        rank = len(data.shape)
        if rank == 0:
            raise self.fail(f"Input rank must be greater than 0 (input 0 ('data') is {data})")
        axis = axis_in_range(self, self.axis, rank)
        items = sv.elements(k_t)
        d = data.shape[axis]
        if items is not None and isinstance(items[0], int):
            k = items[0]
            if k < 0:
                raise self.fail(f"The value of 'K' must be greater or equal to zero. (got {k})")
            kdim = Dimension.static(k)  # OpenVINO: k even when the axis may be shorter
        elif items is not None and isinstance(items[0], Dimension):
            # k known as an interval (e.g. min(dim, 50)): OpenVINO takes the lower of both minima and,
            # when the axis is bounded, the lower of both maxima ([..3234] with k in [0, 50]: [..50])
            # an unbounded axis gives a dynamic dim, unless k is that dim itself ([30..] stays [30..])
            k_dim = items[0]
            if d.max is None:
                kdim = d if k_dim == d else Dimension.dynamic()
            else:
                kdim = Dimension(min(d.min, k_dim.min), d.max if k_dim.max is None else min(d.max, k_dim.max))
        else:
            kdim = Dimension(0, d.max)
        shape = PartialShape([kdim if i == axis else x for i, x in enumerate(data.shape.dims)])
        return [TensorType(data.element_type, shape), TensorType(idx_et, shape)]

    def evaluate(self, x: np.ndarray, k: np.ndarray) -> list[np.ndarray]:
        """OpenVINO's reference order: sorted by value, equal values by index, NaN last in either
        mode. OpenVINO CPU's orders among equal values and NaN are the ``openvino-cpu`` numerics
        profile (graphir.numerics.openvino_cpu.topk)."""
        x = np.asarray(x)
        kk = int(np.asarray(k).reshape(-1)[0])
        if kk < 0:  # as OpenVINO refuses it (numpy's slicing would take all but the last -k)
            raise self.fail(f"The value of 'K' must be greater or equal to zero. (got {kk})")
        axis = self.axis % x.ndim
        self.check_k(kk, x.shape[axis])
        key = -x.astype(np.float64) if self.mode == "max" else x.astype(np.float64)
        order = np.argsort(key, axis=axis, kind="stable")  # nan sorts last; ties keep the lower index first
        return self.gathered(x, np.take(order, np.arange(kk), axis=axis))

    def check_k(self, k: int, n: int) -> None:
        """A run refuses ``k`` above the axis's size (over a zero-size axis: any k > 0), as OpenVINO
        CPU does ("K (5) exceeds the axis dimension (3)"); shape inference gives k elements there, so
        fewer would contradict it, and OpenVINO CPU returns uninitialized memory for an empty axis."""
        if k > n:
            raise self.fail(f"K ({k}) exceeds the axis dimension ({n})")

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """A static shape and a constant k: ``evaluate``'s sort, the first k taken by a slice and
        the values gathered by one index with grids laid out once (``take_along_axis`` builds them
        per call: a post-processing head's TopK 8 -> 3 us)."""
        shape, k = node.static_shape(node.inputs[0]), node.constants[1]
        if shape is None or not shape or k is None or int(np.asarray(k).reshape(-1)[0]) < 0:
            return self.evaluate
        axis = self.axis % len(shape)
        kk = int(np.asarray(k).reshape(-1)[0])
        if kk > shape[axis]:
            return self.evaluate  # refused there (check_k), as OpenVINO CPU refuses it
        first = tuple(slice(0, kk) if i == axis else slice(None) for i in range(len(shape)))
        grids = tuple(np.arange(n).reshape([-1 if j == i else 1 for j in range(len(shape))])
                      for i, n in enumerate(shape))
        before, after = grids[:axis], grids[axis + 1:]
        idx_dtype = np.dtype(ElementType.parse(self.index_element_type).numpy_dtype)
        negate, by_index, generic = self.mode == "max", self.sort == "index", self.evaluate

        def topk(x: np.ndarray, k_value: np.ndarray) -> list[np.ndarray]:
            if x.shape != shape:
                return generic(x, k_value)
            key = x.astype(np.float64)
            order = (np.negative(key) if negate else key).argsort(axis=axis, kind="stable")[first]
            if by_index:
                order = np.sort(order, axis=axis)
            return [x[before + (order,) + after], order.astype(idx_dtype)]

        return topk

    def gathered(self, x: np.ndarray, order: np.ndarray) -> list[np.ndarray]:
        """The outputs for the picked indices ``order`` (sorted by value): re-sorted by index when
        ``sort`` says so, the values gathered, the indices in ``index_element_type``."""
        axis = self.axis % x.ndim
        if self.sort == "index":
            order = np.sort(order, axis=axis)
        values = np.take_along_axis(x, order, axis=axis)
        idx_dtype = ElementType.parse(self.index_element_type).numpy_dtype
        return [values, order.astype(idx_dtype)]


class TopK3(TopK):
    """TopK-3: same as TopK-1 (any numeric type; i32/i64 indices)."""

    type_name: ClassVar[str] = "TopK"
    version: ClassVar[str] = "opset3"


class TopK11(TopK):
    """TopK-11: adds ``stable`` (equal values keep their input order)."""

    type_name: ClassVar[str] = "TopK"
    version: ClassVar[str] = "opset11"

    stable: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        if self.stable and self.sort == "none":  # OpenVINO's TopK-11 validate_and_infer_types
            raise self.fail("Stable sort can only be used when TopK's sorting mode is set to 'VALUE' or "
                            "'INDEX' (stable=true with sort='none')")
        return super().infer(inputs)


# --- CumSum ----------------------------------------------------------------------------------
class CumSum(Op):
    """CumSum-3: running sums along ``axis`` (input 1, default 0); ``exclusive`` shifts by one,
    ``reverse`` runs from the end."""

    type_name: ClassVar[str] = "CumSum"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("arg"), Port("axis", INDEX, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    exclusive: bool = False
    reverse: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        x = inputs[0]
        if len(inputs) > 1:
            if inputs[1].shape.rank_is_static and len(inputs[1].shape) != 0:
                raise self.fail(f"axis needs to be a scalar, got {inputs[1].shape}")
            if not (inputs[1].element_type in (ElementType.i32, ElementType.i64, ElementType.dynamic)):
                raise self.fail(f"axis element type must be either int64_t or int32_t but got ({inputs[1].element_type})")
        return [TensorType(x.element_type, x.shape, fold(self, inputs, x.shape, x.element_type))]

    def evaluate(self, x: np.ndarray, axis: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        ax = int(np.asarray(axis).reshape(-1)[0]) % x.ndim if axis is not None else 0
        y = np.flip(x, ax) if self.reverse else x
        out = np.cumsum(y, axis=ax, dtype=x.dtype)
        if self.exclusive:
            out = np.concatenate([np.zeros_like(np.take(out, [0], axis=ax)), np.delete(out, -1, axis=ax)], axis=ax) \
                if out.shape[ax] else out
        return [np.flip(out, ax) if self.reverse else out]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """A plain running sum (not exclusive, not reversed) over a constant axis of an input of a
        known rank: the axis decoded once, then ``evaluate``'s one ``cumsum`` (the array method)."""
        x_t = node.inputs[0]
        given = len(node.inputs) > 1
        if self.exclusive or self.reverse or not x_t.shape.rank_is_static or len(x_t.shape) == 0 \
                or (given and node.constants[1] is None):
            return self.evaluate
        rank = len(x_t.shape)
        ax = int(np.asarray(node.constants[1]).reshape(-1)[0]) % rank if given else 0
        generic = self.evaluate

        def cumsum(x: np.ndarray, *axis: np.ndarray) -> list[np.ndarray]:
            if type(x) is not np.ndarray or x.ndim != rank:
                return generic(x, *axis)
            return [x.cumsum(axis=ax, dtype=x.dtype)]

        return cumsum


# --- OneHot ----------------------------------------------------------------------------------
class OneHot(Op):
    """OneHot-1: ``on_value`` where ``indices`` hit position i along the new ``axis`` of length
    ``depth``, ``off_value`` elsewhere; out-of-range (incl. negative) indices give all off."""

    type_name: ClassVar[str] = "OneHot"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("indices", INTEGRAL), Port("depth", INTEGRAL),
                                          Port("on_value"), Port("off_value"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    axis: int

    def normalize_negative(self) -> bool:
        return False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        idx, depth_t, on, off = inputs
        et = on.element_type.merge(off.element_type)
        if et is None:
            raise self.fail(f"on_value element type must be compatible with off_value element type: {on}, {off}")
        for port, t in (("depth", depth_t), ("on_value", on), ("off_value", off)):
            if t.shape.rank_is_static and len(t.shape) != 0 and not (len(t.shape) == 1 and t.shape[0] == 1):
                raise self.fail(f"{port} input must be scalar, got {t.shape}")
        if idx.shape.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        rank = len(idx.shape) + 1
        axis = axis_in_range(self, self.axis, rank)
        items = sv.elements(depth_t)
        depth = Dimension.dynamic()
        if items is not None and isinstance(items[0], int):
            if items[0] < 0:
                raise self.fail(f"OneHot depth must be non-negative, got {items[0]}")
            depth = Dimension.static(items[0])
        dims = list(idx.shape.dims)
        dims.insert(axis, depth)
        shape = PartialShape(dims)
        return [TensorType(et, shape, fold(self, inputs, shape, et))]

    def evaluate(self, indices: np.ndarray, depth: np.ndarray, on: np.ndarray, off: np.ndarray) -> list[np.ndarray]:
        idx = np.asarray(indices).astype(np.int64)
        d = int(np.asarray(depth).reshape(-1)[0])
        on_v, off_v = np.asarray(on).reshape(-1)[0], np.asarray(off).reshape(-1)[0]
        if self.normalize_negative():
            idx = np.where(idx < 0, idx + d, idx)
        axis = self.axis % (idx.ndim + 1)
        out_shape = list(idx.shape)
        out_shape.insert(axis, d)
        check_tensor(out_shape, np.float64)  # the comparison and np.where build it (at most 8 bytes an item)
        hits = np.expand_dims(idx, axis) == np.arange(d).reshape((1,) * axis + (d,) + (1,) * (idx.ndim - axis))
        return [np.where(hits, on_v, off_v).astype(np.asarray(on).dtype)]


class OneHot16(OneHot):
    """OneHot-16: ``negative_indices_mode`` ignore_negative (all off) or normalize (count from
    the end of ``depth``)."""

    type_name: ClassVar[str] = "OneHot"
    version: ClassVar[str] = "opset16"

    negative_indices_mode: Literal["ignore_negative", "normalize"] = "ignore_negative"

    def normalize_negative(self) -> bool:
        return self.negative_indices_mode == "normalize"


# --- Roll ------------------------------------------------------------------------------------
class Roll(Op):
    """Roll-7: elements shifted along ``axes`` by ``shift`` (one shift for all, or one per axis)."""

    type_name: ClassVar[str] = "Roll"
    version: ClassVar[str] = "opset7"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("shift", INDEX), Port("axes", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, shift, axes = inputs
        for port, t in (("shift", shift), ("axes", axes)):
            if t.shape.rank_is_static and len(t.shape) > 1:
                raise self.fail(f"'{port}' input must be a scalar or 1D tensor, got {t.shape}")
        if shift.shape.rank_is_static and axes.shape.rank_is_static and len(shift.shape) == 1 \
                and len(axes.shape) == 1 and shift.shape[0].is_static and axes.shape[0].is_static \
                and shift.shape[0] != axes.shape[0]:
            raise self.fail(f"If shift is a 1D vector, axes must be a 1D tensor of the same size: "
                            f"shift {shift.shape}, axes {axes.shape}")
        items = sv.elements(axes)
        if items is not None and sv.is_known(items) and data.shape.rank_is_static:
            for a in items:
                axis_in_range(self, int(a), len(data.shape))  # type: ignore[arg-type]
        return [TensorType(data.element_type, data.shape, fold(self, inputs, data.shape, data.element_type))]

    def evaluate(self, x: np.ndarray, shift: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        ax = [int(a) % x.ndim for a in np.asarray(axes).reshape(-1)]
        sh = [int(s) for s in np.asarray(shift).reshape(-1)]
        if len(sh) == 1 and len(ax) > 1:
            sh = sh * len(ax)
        return [np.roll(x, sh, axis=ax)]
