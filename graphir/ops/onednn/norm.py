"""Normalizations (batch, layer, group, RMS) and (log-)softmax, forward and backward."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.ops.onednn.base import (
    F32_BF16, FLOAT, BackwardOp, OneDNNOp, Port, TensorType, as_f32, cast_to, static_dims, to_shape, types,
)
from graphir.ops.onednn.binary import channel_axis
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

DataFormat = Literal["NXC", "NCX"]


def _channel(op: OneDNNOp, shape: PartialShape, data_format: str) -> Dimension:
    if shape.rank_is_dynamic:
        return Dimension.dynamic()
    if len(shape) < 2:
        raise op.fail(f"input 0 ('src') must have rank >= 2, got {shape}")
    return shape[channel_axis(data_format, len(shape))]


def _check_channel_vectors(op: OneDNNOp, inputs: list[TensorType], indices: range, c: Dimension) -> None:
    for i in indices:
        s = inputs[i].shape
        if s.rank_is_static and (len(s) != 1 or not s[0].compatible(c)):
            raise op.fail(f"input {i} ('{op.input_port(i).name}') {s} must be [{c}] (the channel count)")


def _channel_view(v: np.ndarray, rank: int, data_format: str) -> np.ndarray:
    shape = [1] * rank
    shape[channel_axis(data_format, rank)] = -1
    return as_f32(v).reshape(shape)


class BatchNormInference(OneDNNOp):
    """(src - mean) / sqrt(variance + epsilon) * gamma + beta along the channel axis."""

    type_name: ClassVar[str] = "BatchNormInference"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("gamma", F32_BF16), Port("beta", F32_BF16),
                                          Port("mean", F32_BF16), Port("variance", F32_BF16))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    epsilon: float
    data_format: DataFormat = "NXC"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        _check_channel_vectors(self, inputs, range(1, 5), _channel(self, inputs[0].shape, self.data_format))
        return [TensorType(inputs[0].element_type, inputs[0].shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x, gamma, beta, mean, var = arrays
        r, f = x.ndim, self.data_format
        y = (as_f32(x) - _channel_view(mean, r, f)) / np.sqrt(_channel_view(var, r, f) + self.epsilon)
        y = y * _channel_view(gamma, r, f) + _channel_view(beta, r, f)
        return [cast_to(y, ElementType.from_numpy(x.dtype))]


class BatchNormForwardTraining(OneDNNOp):
    """Batch statistics normalization; running stats = momentum * old + (1 - momentum) * batch."""

    type_name: ClassVar[str] = "BatchNormForwardTraining"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("mean", F32_BF16), Port("variance", F32_BF16),
                                          Port("gamma", F32_BF16, optional=True), Port("beta", F32_BF16, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT), Port("running_mean", F32_BF16), Port("running_variance", F32_BF16),
                                           Port("batch_mean", F32_BF16), Port("batch_variance", F32_BF16))
    epsilon: float
    momentum: float = 0.1
    data_format: DataFormat = "NXC"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        c = _channel(self, inputs[0].shape, self.data_format)
        _check_channel_vectors(self, inputs, range(1, len(inputs)), c)
        stat = TensorType(inputs[1].element_type, PartialShape([c]))
        return [TensorType(inputs[0].element_type, inputs[0].shape), stat, stat, stat, stat]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x, mean, var = arrays[:3]
        r, f = x.ndim, self.data_format
        axes = tuple(a for a in range(r) if a != channel_axis(f, r))
        xf = as_f32(x)
        bm, bv = xf.mean(axis=axes), xf.var(axis=axes)
        y = (xf - _channel_view(bm, r, f)) / np.sqrt(_channel_view(bv, r, f) + self.epsilon)
        if len(arrays) > 3:
            y = y * _channel_view(arrays[3], r, f)
        if len(arrays) > 4:
            y = y + _channel_view(arrays[4], r, f)
        m = self.momentum
        stat_type = mean.dtype
        return [cast_to(y, ElementType.from_numpy(x.dtype)),
                (m * as_f32(mean) + (1 - m) * bm).astype(stat_type), (m * as_f32(var) + (1 - m) * bv).astype(stat_type),
                bm.astype(stat_type), bv.astype(stat_type)]


class BatchNormTrainingBackward(BackwardOp):
    type_name: ClassVar[str] = "BatchNormTrainingBackward"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("diff_dst", FLOAT), Port("mean", F32_BF16),
                                          Port("variance", F32_BF16), Port("gamma", F32_BF16, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT), Port("diff_gamma", F32_BF16, optional=True),
                                           Port("diff_beta", F32_BF16, optional=True))
    min_outputs: ClassVar[int | None] = 1
    epsilon: float
    data_format: DataFormat = "NXC"

    def default_num_outputs(self) -> int:
        return 3

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        c = _channel(self, inputs[0].shape, self.data_format)
        stat = TensorType(inputs[2].element_type, PartialShape([c]))
        return self.finish([TensorType(inputs[0].element_type, inputs[0].shape), stat, stat])


def _norm_axis(op: OneDNNOp, shape: PartialShape, begin_norm_axis: int) -> int:
    rank = len(shape)
    return op.axis_of(begin_norm_axis, rank, "begin_norm_axis")


class LayerNorm(OneDNNOp):
    """Normalizes over the axes from ``begin_norm_axis`` on; optional gamma/beta; mean/variance out."""

    type_name: ClassVar[str] = "LayerNorm"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("gamma", F32_BF16, optional=True), Port("beta", F32_BF16, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT), Port("mean", F32_BF16, optional=True), Port("variance", F32_BF16, optional=True))
    min_outputs: ClassVar[int | None] = 1
    keep_stats: bool = True
    begin_norm_axis: int = -1
    use_affine: bool = True
    epsilon: float = 1e-5

    def default_num_outputs(self) -> int:
        return 3 if self.keep_stats else 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        stats_type = ElementType.f32 if inputs[0].element_type in (ElementType.f16, ElementType.bf16) else inputs[0].element_type
        if self.use_affine and len(inputs) == 1:
            raise self.fail("use_affine is true but inputs 1 ('gamma') and 2 ('beta') are not connected")
        if src.rank_is_dynamic:
            stats = PartialShape.dynamic()
        else:
            axis = _norm_axis(self, src, self.begin_norm_axis)
            stats = PartialShape(src.dims[:axis])
            normalized = PartialShape(src.dims[axis:])
            for i in range(1, len(inputs)):
                if inputs[i].shape.merge(normalized) is None:
                    raise self.fail(f"input {i} ('{self.input_port(i).name}') {inputs[i].shape} must be {normalized}, the normalized dims of input 0 ('src') {src}")
        stat = TensorType(stats_type, stats)
        return self.finish([TensorType(inputs[0].element_type, src), stat, stat])

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = arrays[0]
        axis = self.begin_norm_axis % x.ndim if x.ndim else 0
        axes = tuple(range(axis, x.ndim))
        xf = as_f32(x)
        mean = xf.mean(axis=axes, keepdims=True)
        var = ((xf - mean) ** 2).mean(axis=axes, keepdims=True)
        y = (xf - mean) / np.sqrt(var + self.epsilon)
        if len(arrays) > 1:
            y = y * as_f32(arrays[1])
        if len(arrays) > 2:
            y = y + as_f32(arrays[2])
        stats = np.float32 if x.dtype != np.float64 else np.float64
        outs = [cast_to(y, ElementType.from_numpy(x.dtype)), mean.reshape(x.shape[:axis]).astype(stats), var.reshape(x.shape[:axis]).astype(stats)]
        return outs[: self.num_outputs()]


class LayerNormBackward(BackwardOp):
    type_name: ClassVar[str] = "LayerNormBackward"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("diff_dst", FLOAT), Port("mean", F32_BF16), Port("variance", F32_BF16),
                                          Port("gamma", F32_BF16, optional=True), Port("beta", F32_BF16, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT), Port("diff_gamma", F32_BF16, optional=True), Port("diff_beta", F32_BF16, optional=True))
    min_outputs: ClassVar[int | None] = 1
    begin_norm_axis: int = -1
    use_affine: bool = True
    epsilon: float = 1e-5

    def default_num_outputs(self) -> int:
        return 3 if self.use_affine else 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        if src.rank_is_dynamic:
            normalized = PartialShape.dynamic()
        else:
            normalized = PartialShape(src.dims[_norm_axis(self, src, self.begin_norm_axis):])
        stat_type = inputs[4].element_type if len(inputs) > 4 else inputs[2].element_type
        return self.finish([TensorType(inputs[0].element_type, src), TensorType(stat_type, normalized), TensorType(stat_type, normalized)])


class GroupNorm(OneDNNOp):
    """Normalizes each of ``groups`` channel groups per sample; mean/variance are [N, groups]."""

    type_name: ClassVar[str] = "GroupNorm"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("gamma", F32_BF16, optional=True), Port("beta", F32_BF16, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT), Port("mean", F32_BF16, optional=True), Port("variance", F32_BF16, optional=True))
    min_outputs: ClassVar[int | None] = 1
    keep_stats: bool = True
    groups: int
    use_affine: bool = True
    epsilon: float = 1e-5
    data_format: DataFormat = "NXC"

    def default_num_outputs(self) -> int:
        return 3 if self.keep_stats else 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        c = _channel(self, src, self.data_format)
        if c.is_static and (self.groups <= 0 or c.get_length() % self.groups):
            raise self.fail(f"channels {c} of input 0 ('src') {src} are not divisible by groups = {self.groups}")
        _check_channel_vectors(self, inputs, range(1, len(inputs)), c)
        n = src[0] if src.rank_is_static else Dimension.dynamic()
        stat = TensorType(ElementType.f32, PartialShape([n, Dimension.static(self.groups)]))
        return self.finish([TensorType(inputs[0].element_type, src), stat, stat])

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = arrays[0]
        xf = np.moveaxis(as_f32(x), channel_axis(self.data_format, x.ndim), 1)
        n, c = xf.shape[:2]
        grouped = xf.reshape(n, self.groups, -1)
        mean, var = grouped.mean(axis=2, keepdims=True), grouped.var(axis=2, keepdims=True)
        y = ((grouped - mean) / np.sqrt(var + self.epsilon)).reshape(xf.shape)
        view = [1, c] + [1] * (x.ndim - 2)
        if len(arrays) > 1:
            y = y * as_f32(arrays[1]).reshape(view)
        if len(arrays) > 2:
            y = y + as_f32(arrays[2]).reshape(view)
        y = np.moveaxis(y, 1, channel_axis(self.data_format, x.ndim))
        outs = [cast_to(y, ElementType.from_numpy(x.dtype)), mean.reshape(n, self.groups), var.reshape(n, self.groups)]
        return outs[: self.num_outputs()]


class RMSNorm(OneDNNOp):
    """src / sqrt(mean(src**2 over the trailing axes) + epsilon) * gamma."""

    type_name: ClassVar[str] = "RMSNorm"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("gamma", FLOAT, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    begin_norm_axis: int = -1
    epsilon: float = 1e-5

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        if src.rank_is_static and len(inputs) > 1:
            normalized = PartialShape(src.dims[_norm_axis(self, src, self.begin_norm_axis):])
            if inputs[1].shape.merge(normalized) is None:
                raise self.fail(f"input 1 ('gamma') {inputs[1].shape} must be {normalized}, the normalized dims of input 0 ('src') {src}")
        return [TensorType(inputs[0].element_type, src)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = arrays[0]
        axes = tuple(range(self.begin_norm_axis % x.ndim, x.ndim))
        xf = as_f32(x)
        y = xf / np.sqrt((xf * xf).mean(axis=axes, keepdims=True) + self.epsilon)
        if len(arrays) > 1:
            y = y * as_f32(arrays[1])
        return [cast_to(y, ElementType.from_numpy(x.dtype))]


class SoftMax(OneDNNOp):
    """exp(x - max) / sum along ``axis``; optional ``stats`` output (f32 log-sum-exp, axis dim 1).

    ``mode='inf_as_zero'``: a row that is all -inf gives zeros instead of NaN.
    """

    type_name: ClassVar[str] = "SoftMax"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT), Port("stats", types("f32"), optional=True))
    free_output_types: ClassVar[frozenset[int]] = frozenset({0})
    axis: int = 1
    mode: Literal["none", "inf_as_zero"] = "none"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        stats = PartialShape.dynamic()
        if src.rank_is_static:
            axis = self.axis_of(self.axis, len(src))
            dims = list(src.dims)
            dims[axis] = Dimension.static(1)
            stats = PartialShape(dims)
        dst_type = self.output_element_type(0, inputs[0].element_type)
        return self.finish([TensorType(dst_type, src), TensorType(ElementType.f32, stats)])

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = as_f32(arrays[0])
        axis = self.axis % max(x.ndim, 1)
        with np.errstate(all="ignore"):
            m = x.max(axis=axis, keepdims=True)
            safe_m = np.where(np.isfinite(m), m, 0.0)
            e = np.exp(x - safe_m)
            s = e.sum(axis=axis, keepdims=True)
            y = e / s
            if self.mode == "inf_as_zero":
                y = np.where(s == 0, 0.0, y)
            stats = np.log(s) + safe_m
        dst_type = self.output_element_type(0, ElementType.from_numpy(arrays[0].dtype))
        return [cast_to(y, dst_type), stats.astype(np.float32)][: self.num_outputs()]


class LogSoftmax(OneDNNOp):
    type_name: ClassVar[str] = "LogSoftmax"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    axis: int = -1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        if inputs[0].shape.rank_is_static:
            self.axis_of(self.axis, len(inputs[0].shape))
        return [TensorType(inputs[0].element_type, inputs[0].shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = as_f32(arrays[0])
        axis = self.axis % max(x.ndim, 1)
        m = x.max(axis=axis, keepdims=True)
        y = x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
        return [cast_to(y, ElementType.from_numpy(arrays[0].dtype))]


class SoftMaxBackward(BackwardOp):
    type_name: ClassVar[str] = "SoftMaxBackward"
    inputs: ClassVar[tuple[Port, ...]] = (Port("diff_dst", FLOAT), Port("dst", FLOAT))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT),)
    free_output_types: ClassVar[frozenset[int]] = frozenset({0})
    axis: int = 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        return [TensorType(self.output_element_type(0, inputs[0].element_type), inputs[0].shape)]


class LogSoftmaxBackward(BackwardOp):
    type_name: ClassVar[str] = "LogSoftmaxBackward"
    inputs: ClassVar[tuple[Port, ...]] = (Port("diff_dst", FLOAT), Port("dst", FLOAT))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT),)
    axis: int = -1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return self.identity(inputs)


__all__ = ["static_dims", "to_shape"]
