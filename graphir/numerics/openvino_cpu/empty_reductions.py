"""ReduceMin over a zero-size axis under ``openvino-cpu``: OpenVINO CPU gives an f32 ReduceMin the
highest finite value, 3.4028235e38 (measured on 2026.4), where OpenVINO's reference gives +inf.
Non-empty inputs are the reference's."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphir.numerics import Evaluate, register
from graphir.ops.base import Op, TensorType
from graphir.ops.openvino.reduction import ReduceMin


def _with_empty_value(op: Op, value: float) -> Evaluate:
    def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
        out = op.evaluate(*arrays)
        if np.asarray(arrays[0]).size == 0:
            out = [np.full_like(out[0], value)]
        return out

    return evaluate


@register("openvino-cpu", ReduceMin, ("f32",))
def reduce_min_f32(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
    return _with_empty_value(op, float(np.finfo(np.float32).max))

