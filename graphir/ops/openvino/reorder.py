"""OpenVINO reorderings and generators: Reverse-1 (``mode`` index or mask), ReverseSequence-1,
ShuffleChannels-1 and Eye-9. Output shapes equal input shapes except Eye's, which folds from its
known row/column counts and batch shape and stays dynamic otherwise."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.limits import check_tensor
from graphir.ops.base import INTEGRAL, Op, Port, TensorType
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.ops.openvino.shape_ops import axis_in_range
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


class Reverse(Op):
    """Reverse-1: flips the axes listed (``mode`` index) or flagged (``mode`` mask, boolean)."""

    type_name: ClassVar[str] = "Reverse"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("reversed_axes"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    mode: Literal["index", "mask"]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, axes = inputs
        et = axes.element_type
        if self.mode == "index" and not (et.is_integral_number or et.is_dynamic):
            raise self.fail(f"In 'index' mode the second input must contain integer values (got {axes})")
        if self.mode == "mask" and et not in (ElementType.boolean, ElementType.dynamic):
            raise self.fail(f"In 'mask' mode the second input must contain boolean values (got {axes})")
        if axes.shape.rank_is_static and len(axes.shape) != 1:
            raise self.fail(f"The reversed_axes input must be a 1D tensor (got {axes.shape})")
        if axes.value is not None and data.shape.rank_is_static:
            self._axes(np.asarray(axes.value), len(data.shape))
        return [TensorType(data.element_type, data.shape, fold(self, inputs, data.shape, data.element_type))]

    def _axes(self, axes: np.ndarray, rank: int) -> list[int]:
        if self.mode == "mask":
            if axes.size != rank:
                raise self.fail(f"The number of elements in the reversed_axes tensor ({axes.size}) must match the "
                                f"input data tensor rank ({rank}) in 'mask' mode")
            return [i for i, flag in enumerate(axes.reshape(-1)) if flag]
        return [axis_in_range(self, int(a), rank) for a in axes.reshape(-1)]

    def evaluate(self, x: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        picked = self._axes(np.asarray(axes), x.ndim)
        return [np.flip(x, axis=tuple(picked)).copy() if picked else x.copy()]


class ReverseSequence(Op):
    """ReverseSequence-1: along ``seq_axis``, the first ``seq_lengths[b]`` elements of each batch
    item ``b`` (on ``batch_axis``) are reversed; the rest stay."""

    type_name: ClassVar[str] = "ReverseSequence"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("seq_lengths", INTEGRAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    batch_axis: int = 0
    seq_axis: int = 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, lengths = inputs
        if lengths.shape.rank_is_static and len(lengths.shape) != 1:
            raise self.fail(f"Sequence lengths must be a 1D tensor (got shape: {lengths.shape}).")
        shape = data.shape
        if shape.rank_is_static:
            rank = len(shape)
            b = axis_in_range(self, self.batch_axis, rank)
            axis_in_range(self, self.seq_axis, rank)
            if lengths.shape.rank_is_static:
                merged = shape[b].merge(lengths.shape[0])
                if merged is None:
                    raise self.fail(f"Sequence lengths input size ({lengths.shape[0]}) is not equal to batch axis "
                                    f"dimension of data input ({shape[b]}) (argument shape: {shape}).")
                shape = PartialShape([merged if i == b else d for i, d in enumerate(shape.dims)])
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def evaluate(self, x: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        out = x.copy()
        b, s = self.batch_axis % x.ndim, self.seq_axis % x.ndim
        for i, n in enumerate(np.asarray(lengths).reshape(-1)):
            n = int(n)
            src: list[int | slice] = [slice(None)] * x.ndim
            src[b] = i
            src[s] = slice(0, n)
            dst = list(src)
            out[tuple(dst)] = np.flip(x[tuple(src)], axis=s - (1 if b < s else 0))
        return [out]


class ShuffleChannels(Op):
    """ShuffleChannels-1: the ``axis`` dim viewed as ``[group, C/group]`` and transposed."""

    type_name: ClassVar[str] = "ShuffleChannels"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    axis: int = 1
    group: int = 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        if self.group < 1:
            raise self.fail(f"The 'group' parameter must be greater or equal to 1 (got {self.group})")
        if data.shape.rank_is_static:
            if len(data.shape) < 1:
                raise self.fail(f"The input tensor's shape is expected to be at least 1D (got {data.shape})")
            d = data.shape[axis_in_range(self, self.axis, len(data.shape))]
            if d.is_static and d.min % self.group:
                raise self.fail(f"The channel dimension size has to be a multiple of the groups parameter value "
                                f"(dim {d.min}, group {self.group}, input {data.shape}).")
        return [TensorType(data.element_type, data.shape, fold(self, inputs, data.shape, data.element_type))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        ax = self.axis % x.ndim
        c = x.shape[ax]
        y = x.reshape(x.shape[:ax] + (self.group, c // self.group) + x.shape[ax + 1:])
        return [np.swapaxes(y, ax, ax + 1).reshape(x.shape)]


class Eye(Op):
    """Eye-9: ``[batch..., rows, cols]`` with ones on diagonal ``diagonal_index`` (k > 0: above)."""

    type_name: ClassVar[str] = "Eye"
    version: ClassVar[str] = "opset9"
    inputs: ClassVar[tuple[Port, ...]] = (Port("num_rows", INTEGRAL), Port("num_columns", INTEGRAL),
                                          Port("diagonal_index", INTEGRAL), Port("batch_shape", INTEGRAL, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    output_type: ElementType

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        dims: list[Dimension] = []
        if len(inputs) > 3:
            batch = inputs[3]
            if batch.shape.rank_is_static and len(batch.shape) != 1:
                raise self.fail(f"'batch_shape' input must be a 1D tensor. Got: {batch.shape}")
            items = sv.elements(batch)
            if items is None:
                if not batch.shape.is_static:
                    return [TensorType(self.output_type, PartialShape.dynamic())]
                dims += [Dimension.dynamic()] * batch.shape.to_shape()[0]
            else:
                dims += [sv.as_dimension(e) for e in items]
        for port, t in zip(("num_rows", "num_columns"), inputs[:2]):
            if t.shape.rank_is_static and not (len(t.shape) == 0 or (len(t.shape) == 1 and t.shape[0].contains(1))):
                raise self.fail(f"'{port}' value must be a scalar or 1D tensor with 1 element. Got: {t.shape}")
            items = sv.elements(t)
            if items is not None and isinstance(items[0], int) and items[0] < 0:
                raise self.fail(f"'{port}' must be non-negative value. Got: {items[0]}")
            dims.append(sv.as_dimension(items[0]) if items is not None else Dimension.dynamic())
        shape = PartialShape(dims)
        return [TensorType(self.output_type, shape, fold(self, inputs, shape, self.output_type))]

    def evaluate(self, rows: np.ndarray, cols: np.ndarray, k: np.ndarray,
                 batch: np.ndarray | None = None) -> list[np.ndarray]:
        n, m = int(np.asarray(rows).reshape(-1)[0]), int(np.asarray(cols).reshape(-1)[0])
        batch_dims = [int(v) for v in np.asarray(batch).reshape(-1)] if batch is not None else []
        check_tensor(batch_dims + [n, m], np.float64)  # np.eye builds f64 first
        eye = np.eye(n, m, int(np.asarray(k).reshape(-1)[0])).astype(self.output_type.numpy_dtype)
        if batch is not None:
            eye = np.broadcast_to(eye, tuple(int(v) for v in np.asarray(batch).reshape(-1)) + (n, m)).copy()
        return [eye]
