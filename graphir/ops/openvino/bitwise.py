"""OpenVINO bitwise ops: BitwiseAnd/Or/Xor-13, BitwiseNot-13, BitwiseLeftShift/RightShift-15, and
the legacy logical ``Xor-1``. Inputs are integers or boolean (boolean: the logical op)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.binary import BinaryElementwise, BinaryLogical, fold
from graphir.types import ElementType


def _check_integer_or_boolean(op: Op, t: TensorType) -> None:
    et = t.element_type
    if not (et.is_integral or et.is_dynamic):
        raise op.fail(f"The element type of the input tensor must be integer or boolean (got {t}).")


class _Bitwise(BinaryElementwise):
    version: ClassVar[str] = "opset13"

    def output_element_type(self, inputs: list[TensorType]) -> ElementType:
        et = self.merged_element_type(inputs)
        for t in inputs:
            _check_integer_or_boolean(self, t)
        return et


class BitwiseAnd(_Bitwise):
    type_name: ClassVar[str] = "BitwiseAnd"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.bitwise_and(a, b)


class BitwiseOr(_Bitwise):
    type_name: ClassVar[str] = "BitwiseOr"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.bitwise_or(a, b)


class BitwiseXor(_Bitwise):
    type_name: ClassVar[str] = "BitwiseXor"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.bitwise_xor(a, b)


class _Shift(_Bitwise):
    """Shifts by ``B`` bits, the count taken modulo the type's width (as x86 and OpenVINO's
    reference do: ``255 << 33`` on i32 is ``255 << 1``)."""

    version: ClassVar[str] = "opset15"

    def output_element_type(self, inputs: list[TensorType]) -> ElementType:
        et = super().output_element_type(inputs)
        if et is ElementType.boolean:
            raise self.fail(f"The element type of the input tensor must be integer (got {inputs[0]}).")
        return et

    def shift(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        bits = max(a.dtype.itemsize * 8, 32)  # narrow types shift as promoted 32-bit ints
        count = np.bitwise_and(b.astype(np.int64), bits - 1)
        return self.shift(a.astype(np.int64), count).astype(a.dtype)


class BitwiseLeftShift(_Shift):
    type_name: ClassVar[str] = "BitwiseLeftShift"

    def shift(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.left_shift(a, b)


class BitwiseRightShift(_Shift):
    type_name: ClassVar[str] = "BitwiseRightShift"

    def shift(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.right_shift(a, b)


class BitwiseNot(Op):
    type_name: ClassVar[str] = "BitwiseNot"
    version: ClassVar[str] = "opset13"
    inputs: ClassVar[tuple[Port, ...]] = (Port("arg"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        t = inputs[0]
        _check_integer_or_boolean(self, t)
        return [TensorType(t.element_type, t.shape, fold(self, inputs, t.shape, t.element_type))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        return [np.logical_not(x) if x.dtype == np.bool_ else np.invert(x)]


class Xor(BinaryLogical):
    """Xor-1: the opset1 spelling of LogicalXor (boolean inputs)."""

    type_name: ClassVar[str] = "Xor"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.logical_xor(a, b)
