"""Element-wise unary ops (forward and backward): one input, one output of the same type/shape.

Forward ops compute in f32 (numpy) and cast back to the input's type, as oneDNN's f32 accumulation
of bf16/f16 data does.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np

from graphir.ops.onednn.base import FLOAT, BackwardOp, OneDNNOp, Port, TensorType, as_f32


GeluMode = Literal["gelu_erf", "gelu_tanh"]


class UnaryOp(OneDNNOp):
    """src -> dst, same element type and shape; subclasses define :meth:`compute` on f32 data."""

    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return self.identity(inputs)

    def compute(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = arrays[0]
        with np.errstate(all="ignore"):
            return [np.asarray(self.compute(as_f32(x))).astype(x.dtype, copy=False)]


class UnaryBackwardOp(BackwardOp):
    """(src or dst, diff_dst) -> diff_src with src's type and shape."""

    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("diff_dst", FLOAT))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        merged = inputs[0].shape.merge(inputs[1].shape)
        if merged is None:
            raise self.fail(f"inputs 0 ('src') {inputs[0].shape} and 1 ('diff_dst') {inputs[1].shape} must have the same shape")
        return [TensorType(self.merge_types(inputs, (0, 1)), merged)]


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x) if x.size else x.astype(np.float64)


def gelu_erf(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    return 0.5 * x64 * (1.0 + _erf(x64 / math.sqrt(2.0)))


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def _unary(name: str, fn: Callable[[np.ndarray], np.ndarray], doc: str) -> type[UnaryOp]:
    cls = type(name, (UnaryOp,), {
        "__doc__": doc, "__module__": __name__,
        "__annotations__": {"type_name": ClassVar[str]}, "type_name": name,
        "compute": lambda self, x: fn(x),
    })
    return cls  # type: ignore[return-value]


def _backward(name: str, doc: str, first: str = "src") -> type[UnaryBackwardOp]:
    ports = (Port(first, FLOAT), Port("diff_dst", FLOAT))
    return type(name, (UnaryBackwardOp,), {  # type: ignore[return-value]
        "__doc__": doc, "__module__": __name__,
        "__annotations__": {"type_name": ClassVar[str], "inputs": ClassVar[tuple[Port, ...]]},
        "type_name": name, "inputs": ports,
    })


Abs = _unary("Abs", np.abs, "|x|.")
Exp = _unary("Exp", np.exp, "e**x.")
Log = _unary("Log", np.log, "Natural logarithm.")
ReLU = _unary("ReLU", lambda x: np.maximum(x, 0), "max(x, 0).")
Sigmoid = _unary("Sigmoid", lambda x: 1.0 / (1.0 + np.exp(-x)), "1 / (1 + e**-x).")
Tanh = _unary("Tanh", np.tanh, "Hyperbolic tangent.")
Sqrt = _unary("Sqrt", np.sqrt, "Square root.")
Square = _unary("Square", np.square, "x * x.")
Reciprocal = _unary("Reciprocal", lambda x: 1.0 / x, "1 / x.")
Round = _unary("Round", np.rint, "Round to nearest (ties to even, as std::nearbyint does by default).")
HardSwish = _unary("HardSwish", lambda x: x * np.clip(x / 6.0 + 0.5, 0.0, 1.0), "x * max(0, min(1, x/6 + 1/2)).")
Mish = _unary("Mish", lambda x: x * np.tanh(np.logaddexp(0.0, x)), "x * tanh(softplus(x)).")


class Clamp(UnaryOp):
    type_name: ClassVar[str] = "Clamp"
    min: float
    max: float

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.minimum(np.maximum(x, self.min), self.max)


class Elu(UnaryOp):
    type_name: ClassVar[str] = "Elu"
    alpha: float

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.where(x > 0, x, self.alpha * np.expm1(np.minimum(x, 0)))


class GELU(UnaryOp):
    type_name: ClassVar[str] = "GELU"
    mode: GeluMode = "gelu_erf"

    def compute(self, x: np.ndarray) -> np.ndarray:
        return gelu_tanh(x) if self.mode == "gelu_tanh" else gelu_erf(x)


class HardSigmoid(UnaryOp):
    type_name: ClassVar[str] = "HardSigmoid"
    alpha: float
    beta: float

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.clip(self.alpha * x + self.beta, 0.0, 1.0)


class LeakyReLU(UnaryOp):
    type_name: ClassVar[str] = "LeakyReLU"
    alpha: float

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.where(x >= 0, x, self.alpha * x)


class Pow(UnaryOp):
    type_name: ClassVar[str] = "Pow"
    beta: float

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.power(x, self.beta)


class SoftPlus(UnaryOp):
    type_name: ClassVar[str] = "SoftPlus"
    beta: float = 1.0

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.logaddexp(0.0, self.beta * x) / self.beta


# --- backward ---------------------------------------------------------------------------------
AbsBackward = _backward("AbsBackward", "Gradient of Abs.")
HardSwishBackward = _backward("HardSwishBackward", "Gradient of HardSwish.")
MishBackward = _backward("MishBackward", "Gradient of Mish.")


class _UseDstBackward(UnaryBackwardOp):
    use_dst: bool = True


class ReLUBackward(_UseDstBackward):
    type_name: ClassVar[str] = "ReLUBackward"


class SigmoidBackward(_UseDstBackward):
    type_name: ClassVar[str] = "SigmoidBackward"


class SqrtBackward(_UseDstBackward):
    type_name: ClassVar[str] = "SqrtBackward"


class TanhBackward(_UseDstBackward):
    type_name: ClassVar[str] = "TanhBackward"


class ClampBackward(_UseDstBackward):
    type_name: ClassVar[str] = "ClampBackward"
    min: float
    max: float


class EluBackward(_UseDstBackward):
    type_name: ClassVar[str] = "EluBackward"
    alpha: float


class GELUBackward(UnaryBackwardOp):
    type_name: ClassVar[str] = "GELUBackward"
    mode: GeluMode = "gelu_erf"


class HardSigmoidBackward(UnaryBackwardOp):
    type_name: ClassVar[str] = "HardSigmoidBackward"
    alpha: float
    beta: float


class SoftPlusBackward(UnaryBackwardOp):
    type_name: ClassVar[str] = "SoftPlusBackward"
    beta: float = 1.0
