"""OpenVINO GroupedMatMul-17 (mixture-of-experts matmuls): ``mat_b [G, N, K]`` holds each group's
weights transposed. 3D x 3D: ``mat_a [G, M, K]`` to ``[G, M, N]``; 2D x 3D: the rows of
``mat_a [T, K]`` split by the cumulative end ``offsets [G]``, group g's rows times its weights,
to ``[T, N]`` (rows past the last offset stay 0).

OpenVINO 2026.4 has no kernel for it on CPU and no evaluate; values follow the op's definition."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import INDEX, Op, Port, TensorType
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape


class GroupedMatMul(Op):
    type_name: ClassVar[str] = "GroupedMatMul"
    version: ClassVar[str] = "opset17"
    inputs: ClassVar[tuple[Port, ...]] = (Port("mat_a"), Port("mat_b"), Port("offsets", INDEX, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        a, b = inputs[:2]
        et = a.element_type.merge(b.element_type)
        if et is None:
            raise self.fail(f"Arguments do not have the same element type (mat_a element type: {a.element_type}, "
                            f"mat_b element type: {b.element_type}).")
        if len(inputs) > 2 and not inputs[2].element_type.is_dynamic and inputs[2].element_type not in INDEX:
            raise self.fail(f"Offsets element type must be i32 or i64. Got: {inputs[2].element_type}")
        if a.shape.rank_is_dynamic or b.shape.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        ra, rb = len(a.shape), len(b.shape)
        A, B = a.shape.dims, b.shape.dims

        def same(x: Dimension, y: Dimension, what: str, case: str) -> Dimension:
            m = x.merge(y)
            if m is None:
                raise self.fail(f"GroupedMatMul {case}: {what} dimension mismatch mat_a: {x}, mat_b: {y}")
            return m

        if ra == 3 and rb == 3:
            g = same(A[0], B[0], "batch", "3Dx3D")
            same(A[2], B[2], "inner", "3Dx3D")
            shape = PartialShape([g, A[1], B[1]])
        elif ra == 2 and rb == 3:
            if len(inputs) < 3:
                raise self.fail("GroupedMatMul 2Dx3D case requires offsets input.")
            same(A[1], B[2], "inner", "2Dx3D")
            shape = PartialShape([A[0], B[1]])
        else:
            raise self.fail(f"GroupedMatMul unsupported combination: mat_a {ra}D x mat_b {rb}D. Supported: 2Dx3D, 3Dx3D.")
        return [TensorType(et, shape, fold(self, inputs, shape, et))]

    def evaluate(self, a: np.ndarray, b: np.ndarray, offsets: np.ndarray | None = None) -> list[np.ndarray]:
        a, b = np.asarray(a), np.asarray(b)
        work = np.float64 if a.dtype.kind == "f" else np.int64
        bt = np.swapaxes(b, 1, 2).astype(work)
        if a.ndim == 3:
            return [np.matmul(a.astype(work), bt).astype(a.dtype)]
        out = np.zeros((a.shape[0], b.shape[1]), dtype=work)
        start = 0
        for g, end in enumerate(int(v) for v in np.asarray(offsets).reshape(-1)):
            if end > start:
                out[start:end] = a[start:end].astype(work) @ bt[g]
            start = end
        return [out.astype(a.dtype)]
