"""Element-wise binary ops with ``auto_broadcast`` (``none`` | ``numpy``), BiasAdd and PReLU."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.broadcast import broadcast_merge, one_way_merge
from graphir.ops.onednn.base import (
    FLOAT, FLOAT_S32, BackwardOp, OneDNNOp, Port, TensorType, as_f32, cast_to, types,
)
from graphir.shapes import PartialShape
from graphir.types import ElementType

BroadcastMode = Literal["none", "numpy"]
DataFormat = Literal["NXC", "NCX"]


class BinaryOp(OneDNNOp):
    """(src_0, src_1) -> dst; shapes equal (``none``) or numpy-broadcast (``numpy``)."""

    inputs: ClassVar[tuple[Port, ...]] = (Port("src_0", FLOAT), Port("src_1", FLOAT))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    #: True when src_0 and src_1 may have different element types (then dst is declared)
    mixed_types: ClassVar[bool] = False

    auto_broadcast: BroadcastMode = "numpy"

    def output_shape(self, inputs: list[TensorType]) -> PartialShape:
        a, b = inputs[0].shape, inputs[1].shape
        merged = broadcast_merge(a, b, self.auto_broadcast)
        if merged is None:
            rule = "must be equal (auto_broadcast 'none')" if self.auto_broadcast == "none" else "cannot be numpy-broadcast"
            raise self.fail(f"inputs 0 ('src_0') {a} and 1 ('src_1') {b} {rule}")
        return merged

    def default_type(self, inputs: list[TensorType]) -> ElementType:
        if not self.mixed_types:
            return self.merge_types(inputs, (0, 1))
        a, b = inputs[0].element_type, inputs[1].element_type
        merged = a.merge(b)
        return merged if merged is not None else ElementType.f32

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        shape = self.output_shape(inputs)
        et = self.output_element_type(0, self.default_type(inputs))
        return [TensorType(et, shape)]

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        a, b = arrays
        if self.auto_broadcast == "none" and a.shape != b.shape:
            raise self.fail(f"auto_broadcast 'none' needs equal shapes, got {list(a.shape)} and {list(b.shape)}")
        out_type = self.output_element_type(0, ElementType.from_numpy(a.dtype) if a.dtype == b.dtype else ElementType.f32)
        integral = a.dtype.kind == "i" and b.dtype.kind == "i"
        with np.errstate(all="ignore"):
            result = self.compute(a.astype(np.int64) if integral else as_f32(a), b.astype(np.int64) if integral else as_f32(b))
        return [cast_to(result, out_type)]


class _Arithmetic(BinaryOp):
    mixed_types: ClassVar[bool] = True
    free_output_types: ClassVar[frozenset[int]] = frozenset({0})


class Add(_Arithmetic):
    type_name: ClassVar[str] = "Add"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src_0", FLOAT_S32), Port("src_1", FLOAT_S32))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT_S32),)

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a + b


class Subtract(_Arithmetic):
    type_name: ClassVar[str] = "Subtract"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src_0", FLOAT_S32), Port("src_1", FLOAT_S32))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT_S32),)

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a - b


class Multiply(_Arithmetic):
    type_name: ClassVar[str] = "Multiply"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a * b


class Divide(_Arithmetic):
    type_name: ClassVar[str] = "Divide"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a / b


class Maximum(BinaryOp):
    type_name: ClassVar[str] = "Maximum"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.maximum(a, b)


class Minimum(BinaryOp):
    type_name: ClassVar[str] = "Minimum"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.minimum(a, b)


class SquaredDifference(BinaryOp):
    type_name: ClassVar[str] = "SquaredDifference"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a - b) ** 2


class GreaterEqual(BinaryOp):
    """src_0 >= src_1 -> boolean."""

    type_name: ClassVar[str] = "GreaterEqual"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src_0", FLOAT_S32), Port("src_1", FLOAT_S32))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", types("boolean")),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        self.merge_types(inputs, (0, 1))
        return [TensorType(ElementType.boolean, self.output_shape(inputs))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        a, b = arrays
        if a.dtype.kind == "i":
            return [np.greater_equal(a, b)]
        return [np.greater_equal(as_f32(a), as_f32(b))]


def channel_axis(data_format: str, rank: int) -> int:
    return 1 if data_format == "NCX" else rank - 1


class BiasAdd(OneDNNOp):
    """src + bias, the 1-D bias laid along the channel axis that ``data_format`` names."""

    type_name: ClassVar[str] = "BiasAdd"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("bias", FLOAT))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    data_format: DataFormat = "NXC"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        src, bias = inputs[0].shape, inputs[1].shape
        if bias.rank_is_static and len(bias) != 1:
            raise self.fail(f"input 1 ('bias') must be 1-D, got {bias}")
        if src.rank_is_static and bias.rank_is_static:
            if len(src) < 2:
                raise self.fail(f"input 0 ('src') must have rank >= 2, got {src}")
            c = src[channel_axis(self.data_format, len(src))]
            if not c.compatible(bias[0]):
                raise self.fail(f"input 1 ('bias') {bias} does not match the channel dim of input 0 ('src') {src} ({self.data_format})")
        return [TensorType(et, src)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        src, bias = arrays
        shape = [1] * src.ndim
        shape[channel_axis(self.data_format, src.ndim)] = bias.shape[0]
        return [cast_to(as_f32(src) + as_f32(bias).reshape(shape), ElementType.from_numpy(src.dtype))]


class BiasAddBackward(BackwardOp):
    """diff_dst -> diff_bias, the sum over every axis but the channel one."""

    type_name: ClassVar[str] = "BiasAddBackward"
    serialized_type_names: ClassVar[dict[str, str]] = {"json_alias": "BiasAddBackprop"}
    inputs: ClassVar[tuple[Port, ...]] = (Port("diff_dst", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_bias", FLOAT),)
    data_format: DataFormat = "NXC"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        src = inputs[0].shape
        if src.rank_is_dynamic:
            return [TensorType(inputs[0].element_type, PartialShape.dynamic(1))]
        if len(src) < 2:
            raise self.fail(f"input 0 ('diff_dst') must have rank >= 2, got {src}")
        return [TensorType(inputs[0].element_type, PartialShape([src[channel_axis(self.data_format, len(src))]]))]


class PReLU(OneDNNOp):
    """x for x >= 0, slope * x otherwise; slope per channel or one-way broadcast to src."""

    type_name: ClassVar[str] = "PReLU"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("slope", FLOAT))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    data_format: DataFormat = "NXC"
    per_channel_broadcast: bool = True

    def _slope_shape(self, src_rank: int, slope_shape: tuple[int, ...]) -> list[int] | None:
        if self.per_channel_broadcast and len(slope_shape) == 1 and src_rank >= 2:
            shape = [1] * src_rank
            shape[channel_axis(self.data_format, src_rank)] = slope_shape[0]
            return shape
        return None

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        src, slope = inputs[0].shape, inputs[1].shape
        if src.rank_is_static and slope.rank_is_static:
            aligned = self._slope_shape(len(src), tuple(0 for _ in slope))
            if aligned is not None:
                c = src[channel_axis(self.data_format, len(src))] if len(src) >= 2 else None
                if c is not None and not (slope[0].compatible(c) or slope[0] == 1):
                    raise self.fail(f"input 1 ('slope') {slope} does not match the channel dim of input 0 ('src') {src}")
            elif one_way_merge(src, slope) is None:
                raise self.fail(f"input 1 ('slope') {slope} cannot be broadcast to input 0 ('src') {src}")
        return [TensorType(et, src)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        src, slope = arrays
        shape = self._slope_shape(src.ndim, slope.shape)
        s = as_f32(slope).reshape(shape) if shape is not None else as_f32(slope)
        x = as_f32(src)
        return [cast_to(np.where(x >= 0, x, s * x), ElementType.from_numpy(src.dtype))]


class PReLUBackward(BackwardOp):
    type_name: ClassVar[str] = "PReLUBackward"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("slope", FLOAT), Port("diff_dst", FLOAT))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT), Port("diff_slope", FLOAT))
    data_format: DataFormat = "NXC"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1, 2))
        if inputs[0].shape.merge(inputs[2].shape) is None:
            raise self.fail(f"inputs 0 ('src') {inputs[0].shape} and 2 ('diff_dst') {inputs[2].shape} must have the same shape")
        return [TensorType(et, inputs[0].shape), TensorType(et, inputs[1].shape)]
