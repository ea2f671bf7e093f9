"""Sigmoid under ``openvino-cpu``: f32 (and f16/bf16, computed in f32) as OpenVINO CPU computes it,
oneDNN's JIT logistic (:func:`graphir.numerics.openvino_cpu.exp.logistic_f32`). The replay is plain
f32 arithmetic with emulated fused multiply-adds: the same bits on every host, equal to OpenVINO
2026.4's CPU plugin on every x86-64 ISA it was compared on (tests/ops/test_cpu_exp.py)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphir.numerics import Evaluate, register
from graphir.numerics.openvino_cpu.exp import logistic_f32
from graphir.ops.base import Op, TensorType
from graphir.ops.openvino.unary import Sigmoid, compute_real


@register("openvino-cpu", Sigmoid, ("f32", "f16", "bf16"))
def sigmoid(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
    def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
        return [compute_real(np.asarray(arrays[0]), logistic_f32)]

    return evaluate
