"""GroupConvolution under ``openvino-cpu``: depthwise layers as BLAS products, whatever their size.

The reference profile computes small depthwise layers as a tap-by-tap numpy sum, each product and
sum rounded to f32 (graphir.kernels.taps: OpenVINO's reference convolution, the same bits on every
host). OpenVINO's CPU plugin sums the taps in the same order with fused multiply-adds; numpy's
OpenBLAS with its SkylakeX kernels does too, so under this profile every depthwise layer is a BLAS
product per channel (graphir.kernels.conv: OpenVINO CPU's bits there, within rounding elsewhere:
graphir.kernels.blas_host)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphir.numerics import Evaluate, register
from graphir.ops.base import Op, TensorType, fresh_output
from graphir.ops.openvino.conv import GroupConvolution


@register("openvino-cpu", GroupConvolution, ("f32", "f16", "bf16"))
def group_convolution(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
    assert isinstance(op, GroupConvolution)
    blas = op.blas_evaluate()

    def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
        return blas(np.asarray(arrays[0]), np.asarray(arrays[1]))

    return fresh_output(evaluate)  # every kernel strategy returns a new array, as the prepared step's
