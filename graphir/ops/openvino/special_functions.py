"""OpenVINO special functions: ErfInv-17 (the inverse error function)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.binary import fold


#: M. Giles, "Approximating the erfinv function" (GPU Computing Gems Jade, 2011), single-precision
#: coefficients, highest power first: the approximation OpenVINO 2026 evaluates (in double)
_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
            -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
         -0.0076224613, -0.00943887047, 1.00167406, 2.83297682)


def erfinv(x: np.ndarray) -> np.ndarray:
    """The inverse error function in float64 by Giles' approximation (as OpenVINO computes it, not
    the exact function: they differ by up to ~1e-6 relative); NaN outside [-1, 1], +-inf at +-1."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - x) * (1.0 + x))
        central = np.polyval(_CENTRAL, w - 2.5)
        tail = np.polyval(_TAIL, np.sqrt(w) - 3.0)
        y = np.where(w < 5.0, central, tail) * x
    y = np.where(x == 0, 0.0, y)
    y = np.where(np.abs(x) == 1, np.copysign(np.inf, x), y)
    return np.where(np.abs(x) > 1, np.nan, y)


class ErfInv(Op):
    """ErfInv-17: floating-point inputs only; the output keeps the input's type and shape."""

    type_name: ClassVar[str] = "ErfInv"
    version: ClassVar[str] = "opset17"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        t = inputs[0]
        if not t.element_type.is_dynamic and not t.element_type.is_real:
            raise self.fail(f"Input element type must be floating-point, instead got: {t.element_type}")
        return [TensorType(t.element_type, t.shape, fold(self, inputs, t.shape, t.element_type))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        with np.errstate(all="ignore"):
            return [erfinv(x).astype(x.dtype)]
