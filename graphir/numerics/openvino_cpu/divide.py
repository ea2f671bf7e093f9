"""Divide under ``openvino-cpu``: an f32 quotient as OpenVINO's CPU plugin computes it in a run,
``a * (1 / b)``, each step rounded to f32 (equal to OpenVINO 2026.4 CPU on 200,000 inputs spanning
every exponent, zeros, infinities, subnormals and NaNs; ``a / b`` differs in the last bit in about
20% of them: tests/ops/test_cpu_divide.py). Plain f32 arithmetic: the same bits on every host.
OpenVINO's constant folding divides exactly; under this profile graphir folds as it runs, so a Divide
of two constants may be 1 ulp from OpenVINO's fold. The reference profile divides exactly (the spec)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphir.numerics import Evaluate, register
from graphir.ops.base import Op, TensorType
from graphir.ops.openvino.binary import pdpd_align
from graphir.ops.openvino.elementwise import Divide


@register("openvino-cpu", Divide, ("f32",))
def divide(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
    assert isinstance(op, Divide)

    def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
        a, b = np.asarray(arrays[0]), np.asarray(arrays[1])
        if a.dtype != np.float32 or b.dtype != np.float32 or (op.auto_broadcast == "none" and a.shape != b.shape):
            return op.evaluate(a, b)  # not an f32 quotient, or the op's own refusal
        if op.auto_broadcast == "pdpd":
            b = pdpd_align(b, a.ndim, op.auto_broadcast_axis)
        with np.errstate(all="ignore"):
            return [np.asarray(np.multiply(a, np.reciprocal(b)))]

    return evaluate
