"""OpenVINO local normalizations: LRN-1 (across a window of the given axes) and GRN-1 (across
channels)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import INDEX, REAL, Op, Port, TensorType
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold


def window_sum(x: np.ndarray, axis: int, half: int) -> np.ndarray:
    """Sum over ``[i - half, i + half]`` (clipped to the array) along ``axis``."""
    n = x.shape[axis]
    c = np.cumsum(x, axis=axis)
    c = np.concatenate([np.zeros_like(np.take(c, [0], axis=axis)), c], axis=axis)
    idx = np.arange(n)
    hi = np.minimum(idx + half + 1, n)
    lo = np.maximum(idx - half, 0)
    return np.take(c, hi, axis=axis) - np.take(c, lo, axis=axis)


def computed_in(x: np.ndarray) -> np.dtype:
    """f16/bf16 data are computed in f32 and rounded back; f32/f64 in their own type."""
    return x.dtype if x.dtype in (np.float32, np.float64) else np.dtype(np.float32)


class LRN(Op):
    """LRN-1: ``x / (bias + alpha / size^len(axes) * sum(x^2 over the window))^beta``; the window
    spans ``(size - 1) // 2`` elements either side along each axis of the ``axes`` input."""

    type_name: ClassVar[str] = "LRN"
    version: ClassVar[str] = "opset1"
    serialized_type_names: ClassVar[dict[str, str]] = {}
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL), Port("axes", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    alpha: float = 0.0001
    beta: float = 0.75
    bias: float = 1.0
    size: int = 5

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, axes = inputs
        if not axes.element_type.is_dynamic and not axes.element_type.is_integral_number:
            raise self.fail(f"Axes input must be integral numbers, but are: {axes.element_type}.")
        if axes.shape.rank_is_static and len(axes.shape) != 1:
            raise self.fail(f"Input axes must have rank equals 1 (axes_shape: {axes.shape}).")
        if data.shape.rank_is_static and axes.shape.rank_is_static and axes.shape[0].is_static \
                and axes.shape[0].min > len(data.shape):
            raise self.fail(f"Number of elements of axes must be >= 0 and <= argument rank "
                            f"(axes_shape[0]: {axes.shape[0]}, data {data.shape}).")
        values = sv.elements(axes)
        if values is not None and sv.is_known(values) and data.shape.rank_is_static:
            rank = len(data.shape)
            for a in values:
                if not 0 <= int(a) < rank:  # type: ignore[arg-type]
                    raise self.fail(f"Reduction axis ({a}) is out of bounds (argument shape: {data.shape}, "
                                    f"reduction axes: {values})")
        return [TensorType(data.element_type, data.shape, fold(self, inputs, data.shape, data.element_type))]

    def evaluate(self, x: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        work = computed_in(x)
        xf = x.astype(work)
        axis_set = sorted({int(a) for a in np.asarray(axes).reshape(-1)})
        sq = xf * xf
        half = (int(self.size) - 1) // 2
        for a in axis_set:
            sq = window_sum(sq, a, half)
        scale = work.type(self.alpha) / work.type(float(self.size) ** len(axis_set))
        with np.errstate(all="ignore"):
            out = xf / np.power(work.type(self.bias) + scale * sq, work.type(self.beta))
        return [out.astype(x.dtype)]


class GRN(Op):
    """GRN-1: ``x / sqrt(sum over axis 1 of x^2 + bias)`` for data of rank 2 to 4."""

    type_name: ClassVar[str] = "GRN"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    bias: float = 1.0

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        if data.shape.rank_is_static and not 2 <= len(data.shape) <= 4:
            raise self.fail(f"Input tensor rank must be 2, 3 or 4 dimensional (got input shape: {data.shape}).")
        return [TensorType(data.element_type, data.shape, fold(self, inputs, data.shape, data.element_type))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        work = computed_in(x)
        xf = x.astype(work)
        norm = np.sqrt(np.sum(xf * xf, axis=1, keepdims=True) + work.type(self.bias))
        return [(xf / norm).astype(x.dtype)]
