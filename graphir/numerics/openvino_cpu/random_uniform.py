"""RandomUniform under ``openvino-cpu``: an f32 output's ``unit * (max - min) + min`` as one fused
multiply-add, as OpenVINO 2026.4's CPU plugin computes it (bit for bit, tests/ops/test_random.py);
the reference profile rounds the product and the sum apart, as OpenVINO's reference evaluator does.
Exact arithmetic in f64 rounded once: the same bits on every host."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphir.numerics import Evaluate, register
from graphir.ops.base import Op, TensorType
from graphir.ops.openvino.random import RandomUniform


@register("openvino-cpu", RandomUniform, ("i32", "i64"))  # keyed by the shape input's type
def random_uniform(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
    assert isinstance(op, RandomUniform)
    if op.output_type != "f32":
        return lambda arrays: op.evaluate(*arrays)

    def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
        return op.generate(arrays[0], arrays[1], arrays[2], fused=True)

    return evaluate
