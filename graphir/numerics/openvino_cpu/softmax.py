"""Softmax under ``openvino-cpu``: an f16 input computed in f32 and rounded once at the end, as the
CPU plugin computes it (the reference profile rounds each step to f16, as ONNX's reference does)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphir.numerics import Evaluate, register
from graphir.ops.base import Op, TensorType
from graphir.ops.openvino.activations import Softmax, Softmax8


@register("openvino-cpu", Softmax, ("f16",))
@register("openvino-cpu", Softmax8, ("f16",))
def softmax(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
    assert isinstance(op, (Softmax, Softmax8))

    def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(arrays[0])
        return [y.astype(x.dtype) for y in op.evaluate(x.astype(np.float32))]

    return evaluate
