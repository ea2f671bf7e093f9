"""OpenVINO normalizations: ``BatchNormInference-1/5``, ``MVN-1/6`` and ``NormalizeL2-1``."""
from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np

from graphir.errors import InferenceError
from graphir.ops.base import INDEX, REAL, NodeSignature, Op, Port, TensorType
from graphir.ops.openvino.reduction import normalize_axes
from graphir.shapes import PartialShape
from graphir.types import ElementType


def _work(x: np.ndarray) -> np.ndarray:
    return x if x.dtype == np.float64 else x.astype(np.float32)


class BatchNormInference(Op):
    """``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` per channel (axis 1).
    Version 5 takes ``data`` first; version 1 took ``gamma, beta`` before it."""

    type_name: ClassVar[str] = "BatchNormInference"
    version: ClassVar[str] = "opset5"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("data", REAL), Port("gamma", REAL), Port("beta", REAL), Port("mean", REAL), Port("variance", REAL),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    data_index: ClassVar[int] = 0

    epsilon: float

    def _order(self, items: list) -> tuple:  # type: ignore[type-arg]
        """(data, gamma, beta, mean, variance) whatever the version's port order."""
        if self.data_index == 0:
            return tuple(items)
        gamma, beta, data, mean, var = items
        return data, gamma, beta, mean, var

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, tuple(range(5)))
        if self.epsilon < 0:
            raise self.fail(f"epsilon must be non-negative, got {self.epsilon}")
        data, *params = self._order(inputs)
        channel = None
        if data.shape.rank_is_static:
            if len(data.shape) < 2:
                raise self.fail(f"data must have rank >= 2 (channels on axis 1), got {data.shape}")
            channel = data.shape.dims[1]
        names = ("gamma", "beta", "mean", "variance")
        for name, p in zip(names, params):
            if p.shape.rank_is_dynamic:
                continue
            if len(p.shape) != 1:
                raise self.fail(f"'{name}' must be 1-D, got {p.shape}")
            merged = p.shape.dims[0] if channel is None else channel.merge(p.shape.dims[0])
            if merged is None:
                raise self.fail(f"'{name}' has {p.shape.dims[0]} channels but data {data.shape} has {channel}")
            channel = merged
        shape = data.shape
        if shape.rank_is_static and channel is not None:
            shape = PartialShape([shape.dims[0], channel] + list(shape.dims[2:]))
        return [TensorType(et, shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x, gamma, beta, mean, var = self._order(list(arrays))
        shape = (1, -1) + (1,) * (x.ndim - 2)
        g, b, m, v = (_work(a).reshape(shape) for a in (gamma, beta, mean, var))
        out = g * (_work(x) - m) / np.sqrt(v + self.epsilon) + b
        return [out.astype(x.dtype)]


class BatchNormInference1(BatchNormInference):
    type_name: ClassVar[str] = "BatchNormInference"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("gamma", REAL), Port("beta", REAL), Port("data", REAL), Port("mean", REAL), Port("variance", REAL),
    )
    data_index: ClassVar[int] = 2


def _mvn(x: np.ndarray, axes: tuple[int, ...], normalize_variance: bool, eps: float, inside: bool) -> np.ndarray:
    w = _work(x)
    centered = w - w.mean(axis=axes, keepdims=True)
    if normalize_variance:
        var = (centered * centered).mean(axis=axes, keepdims=True)
        centered = centered / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)
    return centered.astype(x.dtype)


def _mvn_f32(x: np.ndarray, axes: tuple[int, ...], normalize_variance: bool, eps: float, inside: bool) -> np.ndarray:
    """:func:`_mvn` of f32 data in three full passes instead of five: no copy of the input (it is
    only read) or of the result, the division into the centered values' own buffer: the same bits."""
    centered = x - x.mean(axis=axes, keepdims=True)
    if normalize_variance:
        var = (centered * centered).mean(axis=axes, keepdims=True)
        np.divide(centered, np.sqrt(var + eps) if inside else np.sqrt(var) + eps, out=centered)
    return centered


def _mvn_f32_prepared(axes: tuple[int, ...], count: int, normalize_variance: bool, eps: float,
                      inside: bool) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`_mvn_f32` for one static shape: each ``mean`` as what ``np.mean`` does without its
    Python layers (``np.add.reduce``, then the division by the count as a numpy ``intp``, in f64
    rounded to f32), the square into its own buffer, ``sqrt`` and ``+ eps`` in place: the same bits."""
    # np.mean divides an f32 sum by an intp count in f64 and rounds to f32; for a count f32 holds
    # exactly that is the f32 quotient itself (a quotient of 24-bit numbers rounded to 53 bits, then
    # to 24, is the correctly rounded one: 53 >= 2 * 24 + 2), and the f32 division skips the casts
    items = np.float32(count) if count <= 1 << 24 else np.intp(count)
    casting = "same_kind" if count <= 1 << 24 else "unsafe"
    add, divide, subtract, multiply, sqrt = np.add.reduce, np.true_divide, np.subtract, np.multiply, np.sqrt

    def mvn(x: np.ndarray) -> np.ndarray:
        mean = add(x, axis=axes, keepdims=True)
        divide(mean, items, out=mean, casting=casting)
        centered = subtract(x, mean)
        if not normalize_variance:
            return centered
        square = multiply(centered, centered)
        var = add(square, axis=axes, keepdims=True)
        divide(var, items, out=var, casting=casting)
        if inside:
            np.add(var, eps, out=var)
            sqrt(var, out=var)
        else:
            sqrt(var, out=var)
            np.add(var, eps, out=var)
        np.divide(centered, var, out=centered)
        return centered

    return mvn


def _check_axes(op: Op, data: PartialShape, axes: TensorType) -> None:
    """Known ``axes`` values must be valid for ``data``'s rank (the error names the data shape)."""
    if data.rank_is_static and axes.value is not None:
        try:
            normalize_axes(axes.value, len(data))
        except InferenceError as exc:
            raise op.fail(f"{exc} (data {data})") from None


class MVN1(Op):
    """Mean-variance normalization over the spatial axes (and channels when ``across_channels``),
    or over ``reduction_axes`` when given; eps is added inside the square root."""
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "eps", "across_channels", "normalize_variance", "reduction_axes"
    )

    type_name: ClassVar[str] = "MVN"
    version: ClassVar[str] = "opset2"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    across_channels: bool = False
    normalize_variance: bool = True
    eps: float = 1e-9
    reduction_axes: list[int] | None = None

    def _axes(self, rank: int) -> tuple[int, ...]:
        if self.reduction_axes:
            return tuple(normalize_axes(self.reduction_axes, rank, "reduction_axes"))
        return tuple(range(1 if self.across_channels else 2, rank))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        data = inputs[0].shape
        if data.rank_is_static:
            try:
                self._axes(len(data))
            except InferenceError as exc:
                raise self.fail(f"{exc} (data {data})") from None
        return [TensorType(inputs[0].element_type, data)]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        return [_mvn(x, self._axes(x.ndim), self.normalize_variance, self.eps, True)]


class MVN(Op):
    """MVN-6: normalization over the ``axes`` input, eps ``inside_sqrt`` or ``outside_sqrt``."""
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "eps", "normalize_variance", "eps_mode"
    )

    type_name: ClassVar[str] = "MVN"
    version: ClassVar[str] = "opset6"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL), Port("axes", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    normalize_variance: bool
    eps: float
    eps_mode: Literal["inside_sqrt", "outside_sqrt", "INSIDE_SQRT", "OUTSIDE_SQRT"]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        data, axes = inputs[0].shape, inputs[1]
        if axes.shape.rank_is_static and len(axes.shape) != 1:
            raise self.fail(f"axes must be 1-D, got {axes.shape}")
        _check_axes(self, data, axes)
        return [TensorType(inputs[0].element_type, data)]

    def evaluate(self, x: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        ax = tuple(normalize_axes(axes, x.ndim))
        return [_mvn(x, ax, self.normalize_variance, self.eps, self.eps_mode.lower() == "inside_sqrt")]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """Constant axes and the eps mode decoded once."""
        shape, axes = node.static_shape(node.inputs[0]), node.constants[1]
        if shape is None or axes is None:
            return self.evaluate
        try:
            ax = tuple(normalize_axes(axes, len(shape)))
        except InferenceError:
            return self.evaluate
        variance, eps, inside = self.normalize_variance, self.eps, self.eps_mode.lower() == "inside_sqrt"
        count = int(np.prod([shape[a] for a in ax])) if ax else 1
        if node.inputs[0].element_type == ElementType.f32 and ax and count > 0:
            fast = _mvn_f32_prepared(ax, count, variance, eps, inside)
            return lambda x, _: [fast(x) if x.dtype == np.float32 and x.shape == shape
                                 else _mvn(x, ax, variance, eps, inside)]
        if node.inputs[0].element_type == ElementType.f32:
            return lambda x, _: [_mvn_f32(x, ax, variance, eps, inside) if x.dtype == np.float32
                                 else _mvn(x, ax, variance, eps, inside)]
        return lambda x, _: [_mvn(x, ax, variance, eps, inside)]


class NormalizeL2(Op):
    """``x / sqrt(max(sum(x^2), eps))`` (``eps_mode="max"``) or ``sqrt(sum + eps)`` (``"add"``)
    over the ``axes`` input; empty axes normalize each element by itself."""

    type_name: ClassVar[str] = "NormalizeL2"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL), Port("axes", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    eps: float
    eps_mode: Literal["add", "max", "ADD", "MAX"]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        data, axes = inputs[0].shape, inputs[1]
        if axes.shape.rank_is_static and len(axes.shape) > 1:
            raise self.fail(f"axes must be a scalar or 1-D, got {axes.shape}")
        _check_axes(self, data, axes)
        return [TensorType(inputs[0].element_type, data)]

    def evaluate(self, x: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        ax = tuple(normalize_axes(axes, x.ndim))
        if not ax:  # OpenVINO 2026.4 (CPU and op_reference): each element by itself, x/x; 0 stays 0
            return [(np.asarray(x) != 0).astype(x.dtype)]
        w = _work(x)
        sq = np.sum(w * w, axis=ax, keepdims=True)
        norm = np.sqrt(np.maximum(sq, self.eps) if self.eps_mode.lower() == "max" else sq + self.eps)
        return [(w / norm).astype(x.dtype)]


class GroupNormalization(Op):
    """Normalizes each of ``num_groups`` channel groups of every sample (mean/variance over the
    group's channels and all spatial dims), then applies the per-channel ``scale`` and ``bias``."""

    type_name: ClassVar[str] = "GroupNormalization"
    version: ClassVar[str] = "opset12"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL), Port("scale", REAL), Port("bias", REAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    num_groups: int
    epsilon: float

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1, 2))
        data = inputs[0].shape
        if self.num_groups < 1:
            raise self.fail(f"num_groups must be positive, got {self.num_groups}")
        channels = None
        if data.rank_is_static:
            if len(data) < 2:
                raise self.fail(f"data must have rank >= 2 (channels on axis 1), got {data}")
            channels = data.dims[1]
            if channels.is_static and channels.min % self.num_groups:
                raise self.fail(f"channels {channels} of data {data} are not divisible by num_groups {self.num_groups}")
        for name, t in (("scale", inputs[1]), ("bias", inputs[2])):
            if t.shape.rank_is_static:
                if len(t.shape) != 1:
                    raise self.fail(f"'{name}' must be 1-D, got {t.shape}")
                if channels is not None and channels.merge(t.shape.dims[0]) is None:
                    raise self.fail(f"'{name}' {t.shape} does not match the channels of data {data}")
        return [TensorType(et, data)]

    def evaluate(self, x: np.ndarray, scale: np.ndarray, bias: np.ndarray) -> list[np.ndarray]:
        w = _work(x)
        grouped = w.reshape((x.shape[0], self.num_groups, -1))
        mean = grouped.mean(axis=-1, keepdims=True)
        var = grouped.var(axis=-1, keepdims=True)
        normed = ((grouped - mean) / np.sqrt(var + self.epsilon)).reshape(x.shape)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        out = normed * _work(scale).reshape(shape) + _work(bias).reshape(shape)
        return [out.astype(x.dtype)]
