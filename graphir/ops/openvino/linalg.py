"""OpenVINO linear algebra: Inverse-14 (batched square matrix inverse)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.binary import fold


class Inverse(Op):
    """Inverse-14: the inverse of each ``[N, N]`` matrix in the last two dims (of its transpose
    with ``adjoint``); the output keeps the input's shape (OpenVINO does not merge the two dims)."""

    type_name: ClassVar[str] = "Inverse"
    version: ClassVar[str] = "opset14"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    adjoint: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        if not data.element_type.is_dynamic and not data.element_type.is_real:
            raise self.fail(f"Expected floating point type as element type for the 'data' input "
                            f"(got {data.element_type}).")
        if data.shape.rank_is_static:
            if len(data.shape) < 2:
                raise self.fail(f"Input must be at least a 2D matrix (got {data.shape}).")
            if not data.shape[-1].compatible(data.shape[-2]):
                raise self.fail(f"Input must contain square matrices of the same shape (got {data.shape}).")
        return [TensorType(data.element_type, data.shape, fold(self, inputs, data.shape, data.element_type))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        a = x.astype(np.float64)
        if self.adjoint:
            a = np.swapaxes(a, -1, -2)
        with np.errstate(all="ignore"):
            try:
                inv = np.linalg.inv(a)
            except np.linalg.LinAlgError:  # a singular matrix: OpenVINO's LU divides by zero
                inv = np.stack([self._inv_or_inf(m) for m in a.reshape((-1,) + a.shape[-2:])]).reshape(a.shape)
        return [inv.astype(x.dtype)]

    @staticmethod
    def _inv_or_inf(m: np.ndarray) -> np.ndarray:
        try:
            return np.linalg.inv(m)
        except np.linalg.LinAlgError:
            return np.full_like(m, np.inf)
