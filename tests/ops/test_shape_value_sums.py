"""Sums and products of unknown lengths stay lengths: ``ShapeOf -> Gather -> Add -> Concat ->
Broadcast`` keeps the known entries of the target (what the attention-mask and GQA-expand
subgraphs of LLM exports need: OpenVINO infers [?,2,2,?,16] and [?,1,?,?] there)."""
from __future__ import annotations

import numpy as np
import pytest

import graphir
from graphir import opset

pytestmark = pytest.mark.openvino


@pytest.mark.parametrize("arith", ["add", "multiply"])
def test_broadcast_target_with_a_sum_of_dims_matches_openvino(arith: str) -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset13 as ops

    def build(b, param, const):  # noqa: ANN001, ANN202 - the same graph on both builders
        x = param("[?,2,1,?,16]")
        y = param("[?,?,64]")
        sx, sy = b.shape_of(x), b.shape_of(y)
        head = b.gather(sx, const(np.array([0, 1])), const(np.int64(0)))
        unknown = getattr(b, arith)(b.gather(sx, const(np.array([3])), const(np.int64(0))),
                                    b.gather(sy, const(np.array([1])), const(np.int64(0))))
        target = b.concat([head, const(np.array([2])), unknown, const(np.array([16]))], 0)
        return b.broadcast(x, target, "bidirectional")

    ref = build(ops, lambda s: ops.parameter(ov.PartialShape(s), np.float32), ops.constant)
    ours = build(_Graphir(), lambda s: opset.parameter(s, "f32"), opset.constant)
    assert str(ours.partial_shape) == str(ref.get_output_partial_shape(0)) == "[?,2,2,?,16]"


class _Graphir:
    def shape_of(self, x):  # noqa: ANN001, ANN201
        return opset.shape_of(x, output_type="i64")

    def gather(self, x, idx, axis):  # noqa: ANN001, ANN201
        return opset.gather(x, idx, axis)

    def concat(self, xs, axis):  # noqa: ANN001, ANN201
        return opset.concat(list(xs), axis=axis)

    def broadcast(self, x, target, mode):  # noqa: ANN001, ANN201
        return opset.broadcast(x, target, broadcast_spec=mode)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(opset, name)
