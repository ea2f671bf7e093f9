"""OpenVINO shape ops: ShapeOf-1/3, Reshape-1, Squeeze-1/15, Unsqueeze-1, Transpose-1, Concat-1,
Broadcast-1/3, Tile-1.

Value-dependent outputs (Reshape's pattern, Broadcast's target, Tile's repeats, Squeeze's axes)
are read from the input's known value or its bounds (:mod:`graphir.ops.openvino.shape_values`),
so ``ShapeOf -> Gather -> Concat -> Reshape`` folds as OpenVINO folds it; where nothing is known
the output keeps what can be known (usually the rank). Shape-like outputs carry values/bounds on.
Rules and messages were measured on OpenVINO 2026.4 (tests/ops/test_shape_ops.py pins them).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np
from pydantic import field_validator

from graphir.broadcast import broadcast_merge
from graphir.limits import check_tensor
from graphir.ops.base import INDEX, INTEGRAL, NodeSignature, Op, Port, TensorType, types
from graphir.ops.openvino import reshape_bounds
from graphir.ops.step_forms import inline
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import FOLD_LIMIT, fold
from graphir.shapes import MAX_LENGTH, Dimension, PartialShape
from graphir.types import ElementType

ONE = Dimension.static(1)


def axis_in_range(op: Op, axis: int, rank: int) -> int:
    """``axis`` normalized into ``[0, rank)``; OpenVINO's message when it is out of range."""
    if not -rank <= axis < max(rank, 1) or (rank == 0 and axis != 0 and axis != -1):
        raise op.fail(f"Axis {axis} out of the tensor rank range [{-rank}, {rank - 1}].")
    return axis % rank if rank else 0


def flat_items(op: Op, t: TensorType, port: str) -> list[sv.Element] | None:
    """Elements of a 0/1-D integer input (axes, pattern, repeats), when at least partly known."""
    if t.shape.rank_is_static and len(t.shape) > 1:
        raise op.fail(f"input '{port}' must be a scalar or 1-D tensor, got shape {t.shape}")
    return sv.elements(t)


def with_value(op: Op, inputs: list[TensorType], et: ElementType, shape: PartialShape) -> TensorType:
    """The output type, folded when every input value is known."""
    return TensorType(et, shape, fold(op, inputs, shape, et))


# --- ShapeOf ---------------------------------------------------------------------------------
class ShapeOf(Op):
    """ShapeOf-1: the input's shape as an i64 1-D tensor."""

    type_name: ClassVar[str] = "ShapeOf"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def result_type(self) -> ElementType:
        return ElementType.i64

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        shape = inputs[0].shape
        et = self.result_type()
        if shape.rank_is_dynamic:
            return [TensorType(et, PartialShape([Dimension.dynamic()]))]
        out = PartialShape([len(shape)])
        return [sv.make(et, out, [sv.from_dimension(d) for d in shape.dims])]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        return [np.array(np.shape(x), dtype=self.result_type().numpy_dtype)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """The result type decoded once (a dynamic shape's ShapeOf runs per call: SSDlite's 181)."""
        dtype = np.dtype(self.result_type().numpy_dtype)
        return lambda x: [np.array(np.shape(x), dtype=dtype)]


class ShapeOf3(ShapeOf):
    """ShapeOf-3: ``output_type`` i64 (default) or i32."""

    type_name: ClassVar[str] = "ShapeOf"
    version: ClassVar[str] = "opset3"

    output_type: Literal["i32", "i64"] = "i64"

    def result_type(self) -> ElementType:
        return ElementType.parse(self.output_type)


# --- Reshape ---------------------------------------------------------------------------------
def prepared_reshape(op: Op, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
    """For ops whose output is their data input seen in another shape (Reshape, Squeeze,
    Unsqueeze): when the other inputs are constants and the output shape is static for the
    signature, a call is one ``reshape`` to that shape (the view ``evaluate`` returns)."""
    shape = node.static_shape(node.outputs[0])
    if shape is None or any(c is None for c in node.constants[1:]) or node.static_shape(node.inputs[0]) is None:
        return op.evaluate
    if len(node.inputs) == 2:  # (a step calls with one argument per input)
        return inline(lambda x, _: [x.reshape(shape) if type(x) is np.ndarray else np.asarray(x).reshape(shape)],
                      "method", ("reshape", shape))
    return lambda x, *_: [np.asarray(x).reshape(shape)]


class Reshape(Op):
    """Reshape-1: ``-1`` is inferred, ``0`` copies the input dim when ``special_zero``."""

    type_name: ClassVar[str] = "Reshape"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("shape", INTEGRAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    special_zero: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, pattern = inputs
        if not (pattern.element_type.is_integral_number or pattern.element_type.is_dynamic):
            raise self.fail(f"PartialShape pattern must be an integral number (input 1 ('shape') is {pattern}).")
        if pattern.shape.rank_is_static and len(pattern.shape) > 1:
            raise self.fail(f"Pattern shape must have rank 1 or be empty, got {pattern.shape}")
        items = sv.elements(pattern)
        if items is None:
            if pattern.shape.rank_is_static and len(pattern.shape) == 0:
                raise self.fail(f"Pattern shape must have rank 1, got a scalar (input 1 ('shape') is {pattern})")
            if pattern.shape.is_static:
                return [TensorType(data.element_type, PartialShape.dynamic(pattern.shape.to_shape()[0]))]
            return [TensorType(data.element_type, PartialShape.dynamic())]
        shape = self._output_shape(data.shape, items)
        if data.value is not None and pattern.value is not None and shape.is_static and not data.element_type.is_dynamic:
            dims = shape.to_shape()
            if math.prod(dims) <= FOLD_LIMIT:  # what folding through evaluate gives: the value viewed in the shape
                return [TensorType(data.element_type, shape, np.asarray(data.value).reshape(dims))]
        out = with_value(self, inputs, data.element_type, shape)
        if out.value is None and data.value is None:
            return [sv.make(data.element_type, shape, sv.elements(data)) if data.bounds is not None else out]
        return [out]

    def _output_shape(self, src: PartialShape, items: list[sv.Element]) -> PartialShape:
        if src.is_static:
            static = self._static_output_shape(src.to_shape(), items)
            if static is not None:
                return static
        dims: list[Dimension | None] = []
        copied: set[int] = set()  # special-zero dims: the same dim on both sides cancels out
        minus_one = None
        for i, item in enumerate(items):
            if isinstance(item, Dimension):
                dims.append(item)
            elif item == -1:
                if minus_one is not None:
                    raise self.fail("More than one dimension has size of -1")
                minus_one = i
                dims.append(None)
            elif item == 0 and self.special_zero:
                if src.rank_is_dynamic:
                    dims.append(Dimension.dynamic())
                elif i >= len(src):
                    raise self.fail(f"'0' dimension is out of range (pattern {items}, input shape {src})")
                else:
                    dims.append(src[i])
                    copied.add(i)
            elif item < -1:
                raise self.fail(f"Output pattern dim[{i}] has invalid bounds: {item},{item}")
            else:
                dims.append(Dimension.static(item))
        if src.rank_is_dynamic:
            if minus_one is not None:  # OpenVINO divides nothing (or, with a copied dim, '?') by the pattern
                unknown = [Dimension.dynamic()] if self.special_zero and 0 in items else []
                dims[minus_one] = reshape_bounds.minus_one(unknown, [Dimension.dynamic(), *unknown] + [
                    d for i, d in enumerate(dims) if d is not None and not (self.special_zero and items[i] == 0)])
            return PartialShape([Dimension.dynamic() if d is None else d for d in dims])
        if minus_one is None:
            total = _product([d for i, d in enumerate(src.dims) if i not in copied])
            known = _product([d for i, d in enumerate(dims) if d is not None and i not in copied])
            if total.is_static and known.is_static and total.min != known.min:
                raise self.fail(
                    f"Requested output shape {PartialShape([Dimension.dynamic() if d is None else d for d in dims])} is incompatible with input shape {src}"
                )
            return PartialShape(dims)  # type: ignore[arg-type]
        try:
            dims[minus_one] = reshape_bounds.minus_one(
                [d for i, d in enumerate(src.dims) if i not in copied],
                [d for i, d in enumerate(dims) if d is not None and i not in copied])
        except reshape_bounds.ReshapeBoundsError as e:
            raise self.fail(f"{e} (input shape {src}, output {_show(dims)})") from None
        return PartialShape(dims)  # type: ignore[arg-type]

    def _static_output_shape(self, src: tuple[int, ...], items: list[sv.Element]) -> PartialShape | None:
        """The output shape of a static input and a pattern of known integers, in plain integers;
        None for the general path (which also words every error)."""
        dims: list[int] = []
        minus_one = None
        total = known = 1
        special_zero = self.special_zero
        for i, item in enumerate(items):
            if type(item) is not int:
                return None
            if item == -1:
                if minus_one is not None:
                    return None
                minus_one = i
                dims.append(-1)
            elif item == 0 and special_zero:
                if i >= len(src):
                    return None
                dims.append(src[i])  # copied: cancels out of both products
            elif item < -1:
                return None
            else:
                dims.append(item)
                known *= item
        copied = {i for i, item in enumerate(items) if item == 0 and special_zero}
        for i, d in enumerate(src):
            if i not in copied:
                total *= d
        if minus_one is None:
            if total != known:
                return None
        elif known == 0:
            if total != 0:
                return None
            dims[minus_one] = 1
        else:
            if total % known:
                return None
            dims[minus_one] = total // known
        return PartialShape.of(tuple([Dimension.static(d) for d in dims]))


    def evaluate(self, x: np.ndarray, pattern: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        items: list[sv.Element] = [int(v) for v in np.asarray(pattern).reshape(-1)]
        shape = self._output_shape(PartialShape(list(x.shape)), items)
        return [x.reshape(shape.to_shape())]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """A static output shape: one ``reshape``; else, a constant pattern and a known input rank
        (a KV cache's length unknown until the call): the pattern decoded once, the copied (``0``)
        and inferred (``-1``) dims taken from the input per call. Whatever the pattern cannot give
        exactly (no room for ``-1``, a size mismatch) goes through ``evaluate``, which reports it."""
        fast = prepared_reshape(self, node)
        pattern, data = node.constants[1], node.inputs[0]
        if fast != self.evaluate or pattern is None or not data.shape.rank_is_static:
            return fast
        items = [int(v) for v in np.asarray(pattern).reshape(-1)]
        rank = len(data.shape)
        copied = [i for i, v in enumerate(items) if v == 0 and self.special_zero]
        if any(v < -1 for v in items) or items.count(-1) > 1 or any(i >= rank for i in copied):
            return fast
        minus = items.index(-1) if -1 in items else None
        fixed = math.prod(v for i, v in enumerate(items) if i not in copied and v != -1)
        kept = [i for i in range(rank) if i not in copied]
        generic = self.evaluate

        def reshape(x: np.ndarray, p: np.ndarray) -> list[np.ndarray]:
            dims = x.shape
            shape = list(items)
            for i in copied:
                shape[i] = dims[i]
            if minus is not None:
                total = math.prod([dims[i] for i in kept])
                if fixed == 0 or total % fixed:
                    return generic(x, p)
                shape[minus] = total // fixed
            try:
                return [x.reshape(shape)]
            except ValueError:
                return generic(x, p)

        return reshape


def _product(dims) -> Dimension:
    result = Dimension.static(1)
    for d in dims:
        result = result * d
    return result


def _show(dims: list[Dimension | None]) -> str:
    return "[" + ",".join("-1" if d is None else str(d) for d in dims) + "]"


# --- Squeeze / Unsqueeze ---------------------------------------------------------------------
class Squeeze(Op):
    """Squeeze-1: drops the given axes (each must be 1 when static), or every 1 without axes."""

    type_name: ClassVar[str] = "Squeeze"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("axes", INTEGRAL, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    skip_allowed: ClassVar[bool] = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        shape = self._shape(data.shape, inputs[1] if len(inputs) > 1 else None)
        out = with_value(self, inputs, data.element_type, shape)
        if out.value is None and data.bounds is not None and shape.is_static:
            return [sv.make(data.element_type, shape, data.bounds)]
        return [out]

    def allow_skip(self) -> bool:
        return False

    def _shape(self, src: PartialShape, axes_t: TensorType | None) -> PartialShape:
        if axes_t is None:
            if src.rank_is_dynamic:
                return src
            if any(d.is_dynamic and d.contains(1) for d in src.dims):
                return PartialShape.dynamic()
            return PartialShape([d for d in src.dims if d != 1])
        if axes_t.shape.rank_is_static and len(axes_t.shape) > 1:
            raise self.fail(f"Second input (axes) should not be of rank higher than 1. Got: {len(axes_t.shape)}")
        items = sv.elements(axes_t)
        if src.rank_is_dynamic:
            return src
        rank = len(src)
        if items is None or not sv.is_known(items):
            if axes_t.shape.is_static and axes_t.shape.to_shape() in ((1,), ()) and rank > 0:
                return PartialShape.dynamic(rank - 1)
            return PartialShape.dynamic()
        if not items:  # an empty axes list squeezes every 1, as no axes input does
            return self._shape(src, None)
        axes = {axis_in_range(self, int(a), rank) for a in items}  # type: ignore[arg-type]
        out = []
        for i, d in enumerate(src.dims):
            if i not in axes or d == 1:
                if i not in axes:
                    out.append(d)
                continue
            if d.is_dynamic and d.contains(1):
                if self.allow_skip():
                    return PartialShape.dynamic()  # it might not be 1, and then it stays
                continue  # removed: it must be 1 at run time
            out.append(d)  # certainly not 1: OpenVINO keeps it
        return PartialShape(out)

    def evaluate(self, x: np.ndarray, axes: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        if axes is None or np.asarray(axes).size == 0:
            return [x.reshape([d for d in x.shape if d != 1])]
        rank = x.ndim
        drop = {axis_in_range(self, int(a), rank) for a in np.asarray(axes).reshape(-1)}
        return [x.reshape([d for i, d in enumerate(x.shape) if not (i in drop and d == 1)])]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        return prepared_reshape(self, node)


class Squeeze15(Squeeze):
    """Squeeze-15: ``allow_axis_skip`` keeps static non-1 axes, and makes the rank dynamic when a
    listed axis is dynamic (it might not be 1)."""

    type_name: ClassVar[str] = "Squeeze"
    version: ClassVar[str] = "opset15"

    allow_axis_skip: bool = False

    def allow_skip(self) -> bool:
        return self.allow_axis_skip


class Unsqueeze(Op):
    """Unsqueeze-1: inserts 1s at the given axes (normalized against the output rank)."""

    type_name: ClassVar[str] = "Unsqueeze"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("axes", INTEGRAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, axes_t = inputs
        items = flat_items(self, axes_t, "axes")
        if data.shape.rank_is_dynamic or items is None or not sv.is_known(items):
            return [TensorType(data.element_type, PartialShape.dynamic())]
        shape = self._shape(data.shape, [int(a) for a in items])  # type: ignore[arg-type]
        out = with_value(self, inputs, data.element_type, shape)
        if out.value is None and data.bounds is not None and shape.is_static:
            return [sv.make(data.element_type, shape, data.bounds)]
        return [out]

    def _shape(self, src: PartialShape, axes: list[int]) -> PartialShape:
        rank = len(src) + len(set(axes))
        norm = {axis_in_range(self, a, rank) for a in axes}
        rank = len(src) + len(norm)
        out, it = [], iter(src.dims)
        for i in range(rank):
            out.append(ONE if i in norm else next(it))
        return PartialShape(out)

    def evaluate(self, x: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        shape = self._shape(PartialShape(list(x.shape)), [int(a) for a in np.asarray(axes).reshape(-1)])
        return [x.reshape(shape.to_shape())]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """A static output shape: one ``reshape``; else constant axes and a known input rank: the
        positions of the new 1s found once, inserted into the input's shape per call."""
        fast = prepared_reshape(self, node)
        axes, data = node.constants[1], node.inputs[0]
        if fast != self.evaluate or axes is None or not data.shape.rank_is_static:
            return fast
        items = [int(a) for a in np.asarray(axes).reshape(-1)]
        out_rank = len(data.shape) + len(set(items))
        if any(not -out_rank <= a < out_rank for a in items):
            return fast
        positions = sorted({a % out_rank for a in items})
        if len(positions) != len(set(items)):
            return fast

        def unsqueeze(x: np.ndarray, _: np.ndarray) -> list[np.ndarray]:
            shape = list(x.shape)
            for i in positions:
                shape.insert(i, 1)
            return [x.reshape(shape)]

        return unsqueeze


# --- Transpose -------------------------------------------------------------------------------
class Transpose(Op):
    """Transpose-1: ``input_order`` permutes the dims; an empty order reverses them."""

    type_name: ClassVar[str] = "Transpose"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("arg"), Port("input_order", INTEGRAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, order_t = inputs
        if order_t.shape.rank_is_static and len(order_t.shape) != 1:
            raise self.fail(f"Input order must be a vector, got shape {order_t.shape}")
        if data.shape.rank_is_static and order_t.shape.rank_is_static and order_t.shape[0].is_static:
            n = order_t.shape[0].get_length()
            if n not in (0, len(data.shape)):
                raise self.fail(
                    f"Input order must have shape [n], where n is the rank of arg (input order "
                    f"{order_t.shape}, arg {data.shape})."
                )
        items = sv.elements(order_t)
        if data.shape.rank_is_dynamic:
            if order_t.shape.is_static and order_t.shape.to_shape()[0] > 0:
                return [TensorType(data.element_type, PartialShape.dynamic(order_t.shape.to_shape()[0]))]
            return [TensorType(data.element_type, data.shape)]
        if items is None or not sv.is_known(items):
            return [TensorType(data.element_type, PartialShape.dynamic(len(data.shape)))]
        order = self._order([int(a) for a in items], data.shape)  # type: ignore[arg-type]
        dims = data.shape.dims
        shape = PartialShape.of(tuple([dims[i] for i in order]))  # type: ignore[index]
        return [with_value(self, inputs, data.element_type, shape)]

    def _order(self, order: list[int], shape: PartialShape) -> list[int]:
        rank = len(shape)
        if not order:
            return list(range(rank - 1, -1, -1))
        if sorted(order) != list(range(rank)):
            listed = ", ".join(str(o if o >= 0 else 2**64 + o) for o in order)
            raise self.fail(f"Permutation AxisVector{{{listed}}} is not valid for input shape {shape}")
        return order

    def evaluate(self, x: np.ndarray, order: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        perm = self._order([int(a) for a in np.asarray(order).reshape(-1)], PartialShape(list(x.shape)))
        return [np.transpose(x, perm)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """The permutation decided once when the order is a constant."""
        shape = node.static_shape(node.inputs[0])
        if shape is None or node.constants[1] is None:
            return self.evaluate
        perm = self._order([int(a) for a in np.asarray(node.constants[1]).reshape(-1)], PartialShape(list(shape)))
        return inline(lambda x, order: [x.transpose(perm) if type(x) is np.ndarray
                                        else np.transpose(np.asarray(x), perm)], "method", ("transpose", perm))


# --- Concat ----------------------------------------------------------------------------------
class Concat(Op):
    """Concat-1: joins its inputs along ``axis`` (negative counts from the end)."""

    type_name: ClassVar[str] = "Concat"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("inputs", variadic=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    axis: int

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = ElementType.dynamic
        for t in inputs:
            merged = et.merge(t.element_type)
            if merged is None:
                listed = ", ".join(str(t) for t in inputs)
                raise self.fail(f"Argument element types are inconsistent ({listed}).")
            et = merged
        shape = self._uniform_shape(inputs)
        if shape is None:
            shape = self._partial_shape(inputs)
        out = with_value(self, inputs, et, shape)
        if out.value is None and shape.rank_is_static and len(shape) == 1 and shape.is_static:
            parts = [sv.elements(t) for t in inputs]
            if all(p is not None for p in parts):
                return [sv.make(et, shape, [e for p in parts for e in p])]  # type: ignore[union-attr]
        return [out]

    def _uniform_shape(self, inputs: list[TensorType]) -> PartialShape | None:
        """The output shape when every input has the first one's static rank and equal dims off
        the axis (equal dims merge into themselves), without a shape per input (DenseNet's
        concatenations of dozens of inputs, static or with a dynamic batch); None for the general
        path, which also gives every error."""
        first_shape = inputs[0].shape
        if first_shape.rank_is_dynamic:
            return None
        first = first_shape.dims
        if not first:
            return None
        rank = len(first)
        axis = self.axis + rank if self.axis < 0 else self.axis
        if not 0 <= axis < rank:
            return None
        low: int = 0
        high: int | None = 0
        for t in inputs:
            shape = t.shape
            if shape is not first_shape:
                if shape.rank_is_dynamic:
                    return None
                dims = shape.dims
                if len(dims) != rank:
                    return None
                for i in range(rank):
                    d, f = dims[i], first[i]
                    if i != axis and d is not f and (d.min != f.min or d.max != f.max):
                        return None
            d = shape.dims[axis]
            low += d.min
            high = None if high is None or d.max is None else high + d.max
        if low > MAX_LENGTH or (high is not None and high > MAX_LENGTH):
            return None
        return PartialShape.of(first[:axis] + (Dimension(low, high),) + first[axis + 1:])

    def _partial_shape(self, inputs: list[TensorType]) -> PartialShape:
        result: PartialShape | None = None
        axis_len = Dimension.static(0)
        for t in inputs:
            if t.shape.rank_is_dynamic:
                continue
            rank = len(t.shape)
            if rank == 0:
                raise self.fail(f"Accessing out-of-range dimension: scalar input {t} cannot be concatenated")
            axis = axis_in_range(self, self.axis, rank)
            axis_len = axis_len + t.shape[axis]
            rest = PartialShape([Dimension.dynamic() if i == axis else d for i, d in enumerate(t.shape.dims)])
            merged_shape = rest if result is None else result.merge(rest)
            if merged_shape is None:
                listed = ", ".join(str(t.shape) for t in inputs)
                raise self.fail(
                    "Argument shapes are inconsistent; they must have the same rank, and must have equal "
                    f"dimension everywhere except on the concatenation axis (axis {self.axis}): {listed}"
                )
            result = merged_shape
        if result is None:
            return PartialShape.dynamic()
        axis = axis_in_range(self, self.axis, len(result))
        if any(t.shape.rank_is_dynamic for t in inputs):
            axis_len = Dimension(axis_len.min, None)
        return PartialShape([axis_len if i == axis else d for i, d in enumerate(result.dims)])

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        arrays_ = [np.asarray(a) for a in arrays]
        return [np.concatenate(arrays_, axis=self.axis)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        axis = self.axis
        return lambda *arrays: [np.concatenate(arrays, axis=axis)]


# --- Broadcast -------------------------------------------------------------------------------
#: Broadcast outputs from this size on that repeat their data are returned as read-only views
#: (numpy's broadcast_to, no copy), the way Constant outputs are read-only arrays
BROADCAST_VIEW_BYTES = 1 << 20


class Broadcast3(Op):
    """Broadcast-3: ``mode`` numpy (data fits the target), bidirectional (both broadcast),
    explicit (``axes_mapping`` places data dims) or pdpd."""

    type_name: ClassVar[str] = "Broadcast"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("data"), Port("target_shape", INTEGRAL), Port("axes_mapping", INTEGRAL, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    mode: Literal["numpy", "explicit", "bidirectional", "pdpd"] = "numpy"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, target_t = inputs[0], inputs[1]
        if target_t.shape.rank_is_static and len(target_t.shape) != 1:
            raise self.fail(f"Broadcast shape rank must be 1, but has {len(target_t.shape)}")
        items = sv.elements(target_t)
        if items is None:
            shape = self._unknown_target(data.shape, target_t.shape)
        else:
            target = PartialShape([sv.as_dimension(e) for e in items])
            shape = self._shape(data.shape, target, inputs[2] if len(inputs) > 2 else None)
            if self.mode == "numpy" and data.value is not None and target_t.value is not None and shape.is_static \
                    and not data.element_type.is_dynamic:
                dims = shape.to_shape()
                if math.prod(dims) <= FOLD_LIMIT:  # what folding through evaluate gives, without its checks
                    return [TensorType(data.element_type, shape, np.broadcast_to(np.asarray(data.value), dims).copy())]
        out = with_value(self, inputs, data.element_type, shape)
        if (out.value is None and data.bounds is not None and len(data.bounds) == 1 and shape.is_static
                and math.prod(shape.to_shape()) <= sv.BOUNDS_LIMIT):
            return [sv.make(data.element_type, shape, list(data.bounds) * int(np.prod(shape.to_shape())))]
        return [out]

    def _unknown_target(self, data: PartialShape, target: PartialShape) -> PartialShape:
        if not target.is_static:
            return PartialShape.dynamic()
        n = target.to_shape()[0]
        if self.mode == "bidirectional" and data.rank_is_static:
            rank = max(n, len(data))
            dims = [Dimension.dynamic()] * (rank - len(data)) + [
                d if d.is_static and d != 1 else Dimension.dynamic() for d in data.dims]
            return PartialShape(dims)
        if self.mode == "bidirectional":
            return PartialShape.dynamic()
        return PartialShape.dynamic(n)

    def _shape(self, data: PartialShape, target: PartialShape, mapping: TensorType | None) -> PartialShape:
        if self.mode == "bidirectional":
            merged = broadcast_merge(target, data, "numpy")
            if merged is None:
                raise self.fail(f"Broadcast shape {data} cannot be bidirectionally broadcast to {target}")
            return merged
        if self.mode == "explicit":
            return self._explicit(data, target, mapping)
        if data.rank_is_dynamic:
            return target
        if self.mode == "pdpd":
            return self._pdpd(data, target)
        if len(target) < len(data):
            raise self.fail(f"Broadcast target_shape has smaller rank {len(target)} than arg shape {len(data)}")
        offset = len(target) - len(data)
        for i, d in enumerate(data.dims):
            t = target[offset + i]
            if d.is_static and t.is_static and d != 1 and d != t:
                raise self.fail(
                    f"Broadcast incorrect target shape. Expecting either 1 or {d.min}. Got {t.min} "
                    f"(data {data}, target {target})"
                )
        return target

    def _pdpd(self, data: PartialShape, target: PartialShape) -> PartialShape:
        offset = len(target) - len(data)
        if offset < 0:
            raise self.fail(f"Broadcast target_shape has smaller rank {len(target)} than arg shape {len(data)}")
        for i, d in enumerate(data.dims):
            t = target[offset + i]
            if d.is_static and t.is_static and d != 1 and d != t:
                raise self.fail(f"Broadcast incorrect target shape. Expecting either 1 or {d.min} . Got {t.min}")
        return target

    def _explicit(self, data: PartialShape, target: PartialShape, mapping: TensorType | None) -> PartialShape:
        if mapping is None:
            raise self.fail("Broadcast explicit mode needs input 2 ('axes_mapping')")
        items = sv.elements(mapping)
        if items is None or not sv.is_known(items) or data.rank_is_dynamic:
            return target
        axes = [int(a) for a in items]  # type: ignore[arg-type]
        if len(data) == 0:  # OpenVINO takes scalar data as rank 1, to go where the target dim is 1
            if len(axes) != 1:
                raise self.fail(f"Broadcast axes_mapping shape [{len(axes)}] doesn't match rank of input tensor 1")
            if not 0 <= axes[0] < len(target):
                raise self.fail(f"Broadcast axes_mapping[0]: {axes[0]} exceeds target rank {len(target)}")
            if target[axes[0]].merge(Dimension.static(1)) is None:
                raise self.fail(f"Broadcast target[axes_mapping[0]]. Expected 1. Got {target[axes[0]]}")
            return target
        if len(axes) != len(data):
            raise self.fail(f"Broadcast axes_mapping {axes} must have one axis per data dim (data {data})")
        for i, a in enumerate(axes):
            if not 0 <= a < len(target):
                raise self.fail(f"Broadcast axes_mapping[{i}]: {a} exceeds target rank {len(target)}")
            d, t = data[i], target[a]
            if d.is_static and t.is_static and d != 1 and d != t:
                raise self.fail(f"Broadcast target[axes_mapping[{i}]] Expected {d.min}. Got {t.min}")
        return target

    def evaluate(self, x: np.ndarray, target: np.ndarray, mapping: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        shape = tuple(int(v) for v in np.asarray(target).reshape(-1))
        if self.mode == "bidirectional":
            check_tensor(np.broadcast_shapes(x.shape, shape) if all(d >= 0 for d in shape) else shape, x.dtype)
            if x.dtype.kind in "iu" and all(d >= 0 for d in shape):  # x * 1 is x: a view when large
                view = np.broadcast_to(x, np.broadcast_shapes(x.shape, shape))
                if view.nbytes >= BROADCAST_VIEW_BYTES and view.size >= 2 * x.size:
                    return [view]
            return [x * np.ones(shape, dtype=x.dtype) if x.dtype != np.bool_ else
                    np.logical_and(x, np.ones(shape, dtype=bool))]
        if self.mode == "explicit" and mapping is not None:
            axes = [int(a) for a in np.asarray(mapping).reshape(-1)]
            x = x.reshape(1) if x.ndim == 0 else x
            expanded = [1] * len(shape)
            for i, a in enumerate(axes):
                expanded[a] = x.shape[i]
            x = x.reshape(expanded)
        check_tensor(shape, x.dtype)
        view = np.broadcast_to(x, shape)
        if view.nbytes >= BROADCAST_VIEW_BYTES and view.size >= 2 * x.size:
            return [view]  # read-only; ops never write their inputs (Mask R-CNN: 100 MB index expands)
        return [view.copy()]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """Bidirectional mode on f32/f16 data (an LLM's KV heads repeated to the query heads, the
        target shape computed per call): ``x * 1`` over the broadcast shape, as ``evaluate``'s
        ``x * ones(target)`` (the same products, without building the ones). Numpy mode: the
        target decoded and the copy made without ``evaluate``'s mode dispatch (SSDlite broadcasts
        a scalar per class, 90 per run)."""
        if self.mode == "numpy" and len(node.inputs) == 2:
            return _prepared_numpy_broadcast
        if self.mode != "bidirectional" or node.inputs[0].element_type not in (ElementType.f32, ElementType.f16):
            return self.evaluate
        generic, dtype = self.evaluate, np.dtype(node.inputs[0].element_type.numpy_dtype)
        one = dtype.type(1)
        shape_in, target_value = node.static_shape(node.inputs[0]), node.constants[1]
        if shape_in is not None and target_value is not None:  # the output shape known: worked out once
            fixed = tuple(np.asarray(target_value).reshape(-1).tolist())
            try:
                out_fixed = np.broadcast_shapes(shape_in, fixed) if all(d >= 0 for d in fixed) else None
            except ValueError:
                out_fixed = None  # the run reports it
            if out_fixed is not None:  # its size is checked with the signature's other outputs (run_guard)
                def broadcast_fixed(x: np.ndarray, target: np.ndarray) -> list[np.ndarray]:
                    if x.dtype != dtype or x.shape != shape_in:
                        return generic(x, target)
                    return [np.multiply(x, one, out=np.empty(out_fixed, dtype))]  # broadcast to out

                return broadcast_fixed

        def broadcast(x: np.ndarray, target: np.ndarray) -> list[np.ndarray]:
            shape = tuple(target.reshape(-1).tolist())
            if x.dtype != dtype or any(d < 0 for d in shape):
                return generic(x, target)
            out = np.broadcast_shapes(x.shape, shape)
            check_tensor(out, x.dtype)
            return [np.multiply(np.broadcast_to(x, out), one)]

        return broadcast


def _prepared_numpy_broadcast(x: np.ndarray, target: np.ndarray) -> list[np.ndarray]:
    """Broadcast-3 numpy mode: ``evaluate``'s steps for that mode."""
    x = np.asarray(x)
    shape = tuple(np.asarray(target).reshape(-1).tolist())
    check_tensor(shape, x.dtype)
    view = np.broadcast_to(x, shape)
    if view.nbytes >= BROADCAST_VIEW_BYTES and view.size >= 2 * x.size:
        return [view]
    return [view.copy()]


class Broadcast(Broadcast3):
    """Broadcast-1: modes numpy, explicit, pdpd (no bidirectional). Without ``mode`` (IR files from
    OpenVINO's own tests leave it out) it is explicit when ``axes_mapping`` is connected and numpy
    otherwise, as OpenVINO 2026.4 reads them."""

    type_name: ClassVar[str] = "Broadcast"
    version: ClassVar[str] = "opset1"

    mode: Literal["numpy", "explicit", "pdpd"] | None = None  # type: ignore[assignment]

    def _resolved(self, input_count: int) -> "Broadcast":
        if self.mode is not None:
            return self
        return self.model_copy(update={"mode": "explicit" if input_count > 2 else "numpy"})

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        op = self._resolved(len(inputs))
        return Broadcast3.infer(op, inputs)

    def evaluate(self, x: np.ndarray, target: np.ndarray, mapping: np.ndarray | None = None) -> list[np.ndarray]:
        return Broadcast3.evaluate(self._resolved(2 if mapping is None else 3), x, target, mapping)

    @field_validator("mode", mode="before")
    @classmethod
    def _none_is_explicit(cls, value: object) -> object:
        return "explicit" if isinstance(value, str) and value.lower() == "none" else value


# --- Tile ------------------------------------------------------------------------------------
class Tile(Op):
    """Tile-1: repeats each dim; a shorter ``repeats`` is padded with 1s in front (and so is data)."""

    type_name: ClassVar[str] = "Tile"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("repeats", INTEGRAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, reps_t = inputs
        items = flat_items(self, reps_t, "repeats")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, PartialShape.dynamic())]
        if items is None:
            if reps_t.shape.is_static:
                n = reps_t.shape.to_shape()[0] if len(reps_t.shape) else 1
                return [TensorType(data.element_type, PartialShape.dynamic(max(n, len(data.shape))))]
            return [TensorType(data.element_type, PartialShape.dynamic())]
        reps = [sv.as_dimension(e) if not isinstance(e, int) or e >= 0 else Dimension.static(0) for e in items]
        rank = max(len(reps), len(data.shape))
        reps = [ONE] * (rank - len(reps)) + reps
        dims = [ONE] * (rank - len(data.shape)) + list(data.shape.dims)
        shape = PartialShape([d * r for d, r in zip(dims, reps)])
        return [with_value(self, inputs, data.element_type, shape)]

    def evaluate(self, x: np.ndarray, repeats: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        reps = [max(int(r), 0) for r in np.asarray(repeats).reshape(-1)]
        rank = max(len(reps), x.ndim)
        padded = [1] * (rank - x.ndim) + list(x.shape)
        check_tensor([d * r for d, r in zip(padded, [1] * (rank - len(reps)) + reps)], x.dtype)
        return [np.tile(x, reps)]
