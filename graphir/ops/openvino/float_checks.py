"""OpenVINO IsNaN-10, IsInf-10 (``detect_negative``/``detect_positive``) and IsFinite-10: boolean
masks over real inputs."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.binary import fold
from graphir.types import ElementType


class _FloatCheck(Op):
    version: ClassVar[str] = "opset10"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        t = inputs[0]
        if not (t.element_type.is_real or t.element_type.is_dynamic):
            raise self.fail(f"The element type of the input tensor must be a floating point number (got {t}).")
        return [TensorType(ElementType.boolean, t.shape, fold(self, inputs, t.shape, ElementType.boolean))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        return [self.check(x.astype(np.float32) if x.dtype not in (np.float32, np.float64) else x)]

    def check(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class IsNaN(_FloatCheck):
    type_name: ClassVar[str] = "IsNaN"

    def check(self, x: np.ndarray) -> np.ndarray:
        return np.isnan(x)


class IsFinite(_FloatCheck):
    type_name: ClassVar[str] = "IsFinite"

    def check(self, x: np.ndarray) -> np.ndarray:
        return np.isfinite(x)


class IsInf(_FloatCheck):
    type_name: ClassVar[str] = "IsInf"

    detect_negative: bool = True
    detect_positive: bool = True

    def check(self, x: np.ndarray) -> np.ndarray:
        return (np.isneginf(x) & self.detect_negative) | (np.isposinf(x) & self.detect_positive)
