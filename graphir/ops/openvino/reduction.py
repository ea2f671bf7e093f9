"""OpenVINO reductions: ``ReduceMean/Sum/Max/Min/Prod/LogicalAnd/LogicalOr-1`` and ``ReduceL1/L2-4``.

They share one rule for the ``axes`` input (negative axes count from the end, repeats are allowed,
out of range is an error) and one for ``keep_dims``; the rule lives in :func:`reduced_shape`.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from graphir.errors import InferenceError
from graphir.ops.base import INDEX, NUMERIC, NodeSignature, Op, Port, TensorType, fresh_output, types
from graphir.ops.openvino import shape_values as sv
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def normalize_axes(axes: "np.ndarray | list[int]", rank: int, what: str = "axes") -> list[int]:
    """Axes in ``[0, rank)`` (sorted, unique); an InferenceError names any out of range."""
    out = set()
    for a in np.asarray(axes).reshape(-1).tolist():
        a = int(a)
        if not -rank <= a < rank:
            raise InferenceError(f"{what} value {a} is out of the range [{-rank}, {rank - 1}] for rank {rank}")
        out.add(a % rank if rank else a)
    return sorted(out)


def reduced_shape(data: PartialShape, axes: TensorType, keep_dims: bool) -> PartialShape:
    """The output shape of a reduction of ``data`` over the ``axes`` tensor."""
    if axes.shape.rank_is_static and len(axes.shape) > 1:
        raise InferenceError(f"axes must be a scalar or 1-D tensor, got shape {axes.shape}")
    if data.rank_is_dynamic:
        return PartialShape.dynamic()
    rank = len(data)
    if axes.value is None:
        if keep_dims:
            return PartialShape.dynamic(rank)
        if axes.shape.rank_is_static and len(axes.shape) == 0:  # one axis, whichever it is
            return PartialShape.dynamic(max(rank - 1, 0))
        return PartialShape.dynamic()  # repeated axes make the rank unknowable from the count
    reduced = normalize_axes(axes.value, rank)
    dims = []
    for i, d in enumerate(data.dims):
        if i in reduced:
            if keep_dims:
                dims.append(Dimension.static(1))
        else:
            dims.append(d)
    return PartialShape(dims)


def _interval_product(items: "list[sv.Element]") -> "sv.Element | None":
    """The product of partly known elements (a dims product: ``[..100] * 91`` is ``[..9100]``);
    None when a negative known factor meets an unknown one (the sign is then unknown)."""
    intervals = [sv.as_interval(e) for e in items]
    if any(lo == hi == 0 for lo, hi in intervals):
        return 0
    if any(lo < 0 for lo, _ in intervals) and any(lo != hi for lo, hi in intervals):
        return None
    lo = math.prod(lo for lo, _ in intervals)
    highs = [hi for _, hi in intervals]
    return sv.interval_element(lo, None if None in highs else math.prod(highs))  # type: ignore[arg-type]


def _interval_min(items: "list[sv.Element]") -> "sv.Element":
    """The least of partly known elements: the least of their minima and of their maxima."""
    lo = min(sv.as_interval(e)[0] for e in items)
    highs = [sv.as_interval(e)[1] for e in items]
    known = [h for h in highs if h is not None]
    return sv.interval_element(lo, min(known) if known else None)


def _interval_max(items: "list[sv.Element]") -> "sv.Element":
    """The greatest of partly known elements: the greatest of their minima and of their maxima."""
    lo = max(sv.as_interval(e)[0] for e in items)
    highs = [sv.as_interval(e)[1] for e in items]
    return sv.interval_element(lo, None if None in highs else max(highs))  # type: ignore[type-var]


class _Reduce(Op):
    """A reduction over the axes given by input 1."""

    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", NUMERIC), Port("axes", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    keep_dims: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        try:
            shape = reduced_shape(inputs[0].shape, inputs[1], self.keep_dims)
        except InferenceError as exc:
            raise self.fail(f"{exc} (data {inputs[0].shape}, axes input {inputs[1].shape})") from None
        value = None
        if inputs[0].value is not None and inputs[1].value is not None and shape.is_static:
            value = self.evaluate(np.asarray(inputs[0].value), np.asarray(inputs[1].value))[0]
        elif self.interval_rule is not None and inputs[0].bounds is not None and inputs[1].value is not None:
            bounded = self._bounded(inputs[0], inputs[1].value, shape)
            if bounded is not None:
                return [bounded]
        return [TensorType(inputs[0].element_type, shape, value)]

    #: how the partly known values of a shape computation reduce (ReduceMin/ReduceMax: OpenVINO
    #: evaluates their lower and upper bounds, e.g. ``min(300, boxes)`` bounds a TopK's k); None: not
    interval_rule: ClassVar[Any] = None  # Callable[[list[sv.Element]], sv.Element | None]

    def _bounded(self, data: TensorType, axes: np.ndarray, shape: PartialShape) -> TensorType | None:
        """The output carrying the reduced partly known elements of ``data`` (None when a shape is
        not static or the axes are out of range: inference proper has said so)."""
        if not data.shape.is_static or not shape.is_static or self.interval_rule is None:
            return None
        dims = data.shape.to_shape()
        try:
            reduced = normalize_axes(axes, len(dims))
        except InferenceError:
            return None
        items = np.empty(len(data.bounds), dtype=object)
        items[:] = list(data.bounds)
        kept = [i for i in range(len(dims)) if i not in reduced]
        rows = items.reshape(dims).transpose(kept + reduced).reshape(-1, math.prod(dims[i] for i in reduced))
        if rows.shape[1] == 0:
            return None
        rule = self.interval_rule
        out: list[sv.Element] = []
        for row in rows:
            element = rule(list(row))
            if element is None:
                return None
            out.append(element)
        return sv.make(data.element_type, shape, out)

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        return self.prepare_generic(node)

    def prepare_generic(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """Constant axes normalized once; then what ``evaluate`` does."""
        shape, axes = node.static_shape(node.inputs[0]), node.constants[1]
        if shape is None or axes is None or not shape:
            return self.evaluate
        try:
            ax = tuple(normalize_axes(axes, len(shape)))
        except InferenceError:
            return self.evaluate  # the run reports it
        reduce, keep = self._reduce, self.keep_dims

        def reduced(x: np.ndarray, _: np.ndarray) -> list[np.ndarray]:
            out = reduce(x, ax)
            if keep and ax:
                out = np.expand_dims(out, ax)
            return [np.asarray(out).astype(x.dtype, copy=False)]

        return reduced

    def evaluate(self, x: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        ax = tuple(normalize_axes(axes, x.ndim))
        if x.ndim == 0:
            return [x.copy()]
        out = self._reduce(x, ax)
        if self.keep_dims:
            out = np.expand_dims(out, ax) if ax else out
        return [np.asarray(out).astype(x.dtype, copy=False)]


def _acc(x: np.ndarray) -> np.ndarray:
    """Half-precision inputs accumulate in f32, as OpenVINO's CPU plugin does."""
    dt = x.dtype
    if dt.itemsize > 2 and dt.kind in "fiub":  # the common case first (str(dtype) costs ~1 us)
        return x
    return x.astype(np.float32) if x.dtype == np.float16 or x.dtype.kind == "V" or str(x.dtype) == "bfloat16" else x


class ReduceSum(_Reduce):
    type_name: ClassVar[str] = "ReduceSum"

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.sum(_acc(x), axis=axes)


class ReduceMean(_Reduce):
    type_name: ClassVar[str] = "ReduceMean"

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """f32 over some (not all) axes: what ``np.mean`` does without its Python layers: the sum
        (``np.add.reduce``) divided by the count as a numpy ``intp`` (so in f64, rounded to f32)."""
        generic = super().prepare(node)
        shape, axes = node.static_shape(node.inputs[0]), node.constants[1]
        if generic == self.evaluate or shape is None or axes is None or node.inputs[0].element_type != ElementType.f32:
            return generic
        ax = tuple(normalize_axes(axes, len(shape)))
        count = int(np.prod([shape[a] for a in ax])) if ax else 0
        if not ax or len(ax) == len(shape) or count == 0:
            return generic
        items, keep = np.intp(count), self.keep_dims
        add: Callable[..., np.ndarray] = np.add.reduce
        divide, f32 = np.true_divide, np.dtype(np.float32)

        def mean(x: np.ndarray, axes_value: np.ndarray) -> list[np.ndarray]:
            if x.dtype != f32:
                return generic(x, axes_value)
            total = add(x, axis=ax, keepdims=keep)
            return [divide(total, items, out=total, casting="unsafe")]

        return fresh_output(mean)  # a new array, no reference to x kept (x's last reader may write into it)

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        if x.dtype.kind in "iu":
            count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
            return np.sum(x, axis=axes) // max(count, 1)
        if x.size == 0:  # OpenVINO's reference returns the sum (zeros) of an empty input undivided
            return np.sum(_acc(x), axis=axes)
        return np.mean(_acc(x), axis=axes)


class ReduceProd(_Reduce):
    type_name: ClassVar[str] = "ReduceProd"
    interval_rule: ClassVar[Any] = staticmethod(_interval_product)

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.prod(_acc(x), axis=axes)


def _prepared_extreme(op: _Reduce, node: NodeSignature, ufunc: np.ufunc) -> Callable[..., list[np.ndarray]]:
    """ReduceMax/Min of a static, non-empty shape over constant axes: the ufunc's reduce called
    directly (``np.max`` is that reduce behind two Python layers)."""
    generic = op.prepare_generic(node)
    shape, axes = node.static_shape(node.inputs[0]), node.constants[1]
    if generic == op.evaluate or shape is None or axes is None or not all(shape):
        return generic
    ax = tuple(normalize_axes(axes, len(shape)))
    if not ax:
        return generic
    keep, reduce = op.keep_dims, ufunc.reduce

    def extreme(x: np.ndarray, axes_value: np.ndarray) -> list[np.ndarray]:
        if x.shape != shape:
            return generic(x, axes_value)
        return [reduce(x, axis=ax, keepdims=keep)]

    return extreme


class ReduceMax(_Reduce):
    type_name: ClassVar[str] = "ReduceMax"
    interval_rule: ClassVar[Any] = staticmethod(_interval_max)

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        return _prepared_extreme(self, node, np.maximum)

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        if x.size == 0:
            return np.full([n for i, n in enumerate(x.shape) if i not in axes], _extreme(x.dtype, low=True), x.dtype)
        return np.max(x, axis=axes)


class ReduceMin(_Reduce):
    type_name: ClassVar[str] = "ReduceMin"
    interval_rule: ClassVar[Any] = staticmethod(_interval_min)

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        return _prepared_extreme(self, node, np.minimum)

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        if x.size == 0:
            return np.full([n for i, n in enumerate(x.shape) if i not in axes], _extreme(x.dtype, low=False), x.dtype)
        return np.min(x, axis=axes)


def _extreme(dtype: np.dtype, low: bool) -> object:
    """What ReduceMax (``low``) / ReduceMin give over a zero-size axis, as OpenVINO's reference
    (its constant folding, measured on 2026.4) gives it: ReduceMax the type's lowest finite value
    (``numeric_limits<T>::lowest()``: -3.4028235e38 for f32; types narrower than f32 are folded in
    f32, so f16 gets -inf), ReduceMin +inf for a floating type and the highest value otherwise.
    OpenVINO CPU's f32 ReduceMin (3.4028235e38) is the ``openvino-cpu`` profile's
    (graphir.numerics.openvino_cpu.empty_reductions)."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if low else info.max
    if dtype.kind == "b":
        return not low
    if not low:
        return np.inf
    if dtype.itemsize >= 4:
        return np.finfo(dtype).min
    with np.errstate(over="ignore"):  # folded in f32: f16's lowest becomes -inf, bf16 keeps its range
        return np.float32(np.finfo(np.float32).min).astype(dtype)


class ReduceL1(_Reduce):
    type_name: ClassVar[str] = "ReduceL1"
    version: ClassVar[str] = "opset4"

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.sum(np.abs(_acc(x)), axis=axes)


class ReduceL2(_Reduce):
    type_name: ClassVar[str] = "ReduceL2"
    version: ClassVar[str] = "opset4"

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        a = _acc(x)
        return np.sqrt(np.sum(a * a, axis=axes))


class ReduceLogicalAnd(_Reduce):
    type_name: ClassVar[str] = "ReduceLogicalAnd"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", types("boolean")), Port("axes", INDEX))

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.all(x, axis=axes)


class ReduceLogicalOr(_Reduce):
    type_name: ClassVar[str] = "ReduceLogicalOr"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", types("boolean")), Port("axes", INDEX))

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.any(x, axis=axes)
