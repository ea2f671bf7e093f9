"""TopK under ``openvino-cpu``: the CPU plugin's order among equal values and NaN (topk_order).

Which of the plugin's sorts runs depends on whether the node's shapes are dynamic, known from the
model's types: a run plan passes them; without them (``evaluator(op, profile)`` called on arrays
alone) the node is taken as static. The horizontal sort (``k == 1`` on the innermost axis of a
static node) reduces 16 lanes of an AVX-512 register: it is replayed on hosts with AVX-512 (where it
was measured, tests/ops/test_topk_ties.py) and elsewhere gives the reference order."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from graphir.numerics import Evaluate, register
from graphir.numerics.openvino_cpu import host, topk_order
from graphir.ops.base import Op, TensorType
from graphir.ops.openvino.sequence import TopK

#: the element types TopK takes
_TYPES = ("f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
#: the host the horizontal sort's replay matches
HOST = "x86-64 with AVX-512 (F, BW, VL, DQ): TopK k=1 horizontal reduction over 16 lanes"


def _is_dynamic(op: TopK, inputs: Sequence[TensorType]) -> bool:
    if not inputs[0].shape.is_static:
        return True
    return not op.infer(list(inputs))[0].shape.is_static


@register("openvino-cpu", TopK, _TYPES)
def topk(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
    assert isinstance(op, TopK)
    dynamic = _is_dynamic(op, inputs) if inputs else False
    stable = op.is_stable and op.sort != "index"  # the plugin ignores stable when sorting by index

    def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(arrays[0])
        axis = op.axis % x.ndim
        n = x.shape[axis]
        k = int(np.asarray(arrays[1]).reshape(-1)[0])
        if k < 0:  # as OpenVINO refuses it
            raise op.fail(f"The value of 'K' must be greater or equal to zero. (got {k})")
        op.check_k(k, n)
        algo = topk_order.algorithm(n, k, innermost=axis == x.ndim - 1, dynamic=dynamic, stable=stable)
        if algo == "horizontal" and not host.has_avx512_core():
            return op.evaluate(x, arrays[1])  # not replayed on this host: the reference order
        rows = np.moveaxis(x, axis, -1)
        lanes = rows.reshape(math.prod(rows.shape[:-1]), n)
        picked = topk_order.cpu_topk_indices(lanes, k, op.mode, algo)
        return op.gathered(x, np.moveaxis(picked.reshape(rows.shape[:-1] + (k,)), -1, axis))

    return evaluate
