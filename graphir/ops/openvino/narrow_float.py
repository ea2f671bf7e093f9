"""Arithmetic in bf16 and f16 the way OpenVINO's reference kernels do it: their kernels are
templates on the element type, so every intermediate result of a bf16/f16 op (each sum, product,
clamp, activation, and each product and running sum of a matmul) is a value of that type, rounded
to it as ``ov::bfloat16(float)`` / ``ov::float16(float)`` round. Ops whose reference values are
built that way (OpenVINO's op_reference tests hard-code them) compute with ``TypeRounding``; values
stay f32 arrays holding values of the type. Wider types pass through unchanged."""
from __future__ import annotations

import numpy as np

from graphir.ops.openvino.philox import ov_bfloat16


class TypeRounding:
    """``q(x)`` rounds ``x`` to ``dtype`` (bf16, f16) and back to f32; identity for other types."""

    def __init__(self, dtype: np.dtype) -> None:
        self.bf16 = str(dtype) == "bfloat16"
        self.narrow = self.bf16 or np.dtype(dtype) == np.float16

    def __call__(self, x: np.ndarray | float) -> np.ndarray:
        if not self.narrow:
            return np.asarray(x)
        x = np.asarray(x, dtype=np.float32)
        narrowed = ov_bfloat16(x) if self.bf16 else x.astype(np.float16)
        return narrowed.astype(np.float32)

    def matmul_t(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``a @ b.T`` accumulated product by product in the type, as OpenVINO's 2022 reference
        ``dot`` did for bf16/f16 (2026.4's accumulates them in f32)."""
        if not self.narrow:
            return a @ b.T
        acc = np.zeros((a.shape[0], b.shape[0]), dtype=np.float32)
        for k in range(a.shape[1]):
            acc = self(acc + self(np.multiply.outer(a[:, k], b[:, k])))
        return acc
