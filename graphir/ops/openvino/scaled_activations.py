"""OpenVINO activations with scale inputs: HardSigmoid-1 (``alpha``, ``beta``), Selu-1 (``alpha``,
``lambda``), and SoftSign-9 (``x / (1 + |x|)``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from graphir.kernels.clip import clip
from graphir.ops.base import NodeSignature, Op, Port, TensorType, fresh_output
from graphir.ops.openvino.binary import fold
from graphir.ops.openvino.unary import UnaryElementwise, compute_real
from graphir.types import ElementType


def _scalar_of(op: Op, t: TensorType, port: str) -> None:
    if t.shape.rank_is_static and not (len(t.shape) == 0 or (len(t.shape) == 1 and t.shape[0].contains(1))):
        raise op.fail(f"'{port}' input is expected to be a scalar or one element, got {t.shape}")


class HardSigmoid(Op):
    """HardSigmoid-1: ``max(0, min(1, alpha * x + beta))``."""

    type_name: ClassVar[str] = "HardSigmoid"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("alpha"), Port("beta"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        x, alpha, beta = inputs
        for port, t in (("alpha", alpha), ("beta", beta)):
            _scalar_of(self, t, port)
            if x.element_type.merge(t.element_type) is None:
                raise self.fail(f"The element types of '{port}' and data must match: data {x}, {port} {t}")
        return [TensorType(x.element_type, x.shape, fold(self, inputs, x.shape, x.element_type))]

    def evaluate(self, x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> list[np.ndarray]:
        a = float(np.asarray(alpha).reshape(-1)[0])
        b = float(np.asarray(beta).reshape(-1)[0])
        return [compute_real(np.asarray(x), lambda v: np.clip(a * v + b, 0.0, 1.0), integer="round")]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """f32 with constant alpha and beta: ``evaluate``'s three f32 steps in one buffer
        (MobileNetV3's squeeze-excitation gates: 5.8 -> 1.5 us)."""
        alpha, beta = node.constants[1], node.constants[2]
        if node.inputs[0].element_type != ElementType.f32 or alpha is None or beta is None:
            return self.evaluate
        a, b, generic = float(np.asarray(alpha).reshape(-1)[0]), float(np.asarray(beta).reshape(-1)[0]), self.evaluate

        @fresh_output
        def hard_sigmoid(x: np.ndarray, *args: np.ndarray) -> list[np.ndarray]:
            if x.dtype != np.float32:
                return generic(x, *args)
            out = np.multiply(x, a)
            np.add(out, b, out=out)
            return [clip(out, 0.0, 1.0, out=out)]

        return hard_sigmoid


class Selu(Op):
    """Selu-1: ``lambda * x`` for x > 0, else ``lambda * alpha * (exp(x) - 1)``; real types only."""

    type_name: ClassVar[str] = "Selu"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("alpha"), Port("lambda"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        x = inputs[0]
        for t in inputs:
            if not (t.element_type.is_real or t.element_type.is_dynamic):
                raise self.fail(f"Input element types must be floating-point. Got: {t.element_type} ({t})")
        for port, t in (("alpha", inputs[1]), ("lambda", inputs[2])):
            if x.element_type.merge(t.element_type) is None:
                raise self.fail(f"Input element types do not match: data {x}, {port} {t}")
        return [TensorType(x.element_type, x.shape, fold(self, inputs, x.shape, x.element_type))]

    def evaluate(self, x: np.ndarray, alpha: np.ndarray, lam: np.ndarray) -> list[np.ndarray]:
        a = float(np.asarray(alpha).reshape(-1)[0])
        s = float(np.asarray(lam).reshape(-1)[0])
        return [compute_real(np.asarray(x), lambda v: s * np.where(v > 0, v, a * np.expm1(np.minimum(v, 0.0))))]


class SoftSign(UnaryElementwise):
    """SoftSign-9: ``x / (1 + |x|)``; real types only."""

    type_name: ClassVar[str] = "SoftSign"
    version: ClassVar[str] = "opset9"

    def check_element_type(self, t: TensorType) -> None:
        if not (t.element_type.is_real or t.element_type.is_dynamic):
            raise self.fail(f"Input element type must be float, instead got: {t.element_type} ({t})")

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, lambda v: v / (1.0 + np.abs(v)))
