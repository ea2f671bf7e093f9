"""The NN ops over other element types: f16 (computed in f32, as OpenVINO's CPU plugin does with
an f32 precision hint, then rounded to f16), i32 where the op allows integers, and f64 against
the exact numpy value (the plugin itself computes f64 in 32 bits)."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.model import Model
from tests.ops.test_nn_oracle import diff, rand
from tests.tolerances import assert_close


def _cases():  # noqa: ANN202 - (name, graphir builder, openvino builder, shape)
    from openvino import opset13 as ops, opset14

    w = rand([4, 3, 3, 3], seed=1)
    a = np.array([1, -1], np.int64)
    return [
        ("matmul", lambda x, wt: opset.mat_mul(x, opset.constant(rand([4, 5], seed=2).astype(wt)), transpose_b=True),
         lambda x, wt: ops.matmul(x, ops.constant(rand([4, 5], seed=2).astype(wt)), False, True), [2, 3, 5]),
        ("convolution", lambda x, wt: opset.convolution(x, w.astype(wt), strides=[1, 1], pads_begin=[1, 1],
                                                         pads_end=[0, 0], dilations=[1, 1]),
         lambda x, wt: ops.convolution(x, ops.constant(w.astype(wt)), [1, 1], [1, 1], [0, 0], [1, 1]), [1, 3, 6, 5]),
        ("max_pool", lambda x, wt: opset.make("MaxPool", x, version="opset14", kernel=[2, 2], strides=[2, 2],
                                              pads_begin=[0, 1], pads_end=[0, 0], rounding_type="ceil")[0],
         lambda x, wt: opset14.max_pool(x, [2, 2], [1, 1], [0, 1], [0, 0], [2, 2], "ceil").output(0), [1, 3, 6, 5]),
        ("avg_pool", lambda x, wt: opset.make("AvgPool", x, version="opset14", kernel=[3, 3], strides=[2, 2],
                                              pads_begin=[1, 1], pads_end=[1, 1], **{"exclude-pad": True}),
         lambda x, wt: opset14.avg_pool(x, [2, 2], [1, 1], [1, 1], [3, 3], True), [1, 3, 6, 5]),
        ("reduce_mean", lambda x, wt: opset.reduce_mean(x, a, keep_dims=True),
         lambda x, wt: ops.reduce_mean(x, ops.constant(a), True), [2, 3, 4]),
        ("mvn", lambda x, wt: opset.make("MVN", x, np.array([2]), version="opset6", normalize_variance=True,
                                         eps=1e-5, eps_mode="inside_sqrt"),
         lambda x, wt: ops.mvn(x, ops.constant(np.array([2])), True, 1e-5, "inside_sqrt"), [2, 3, 8]),
    ]


@pytest.mark.parametrize("index", range(6))
def test_f16_matches_openvino(ov, index: int) -> None:
    name, gr, ovb, shape = _cases()[index]
    diff(ov, lambda x: gr(x, np.float16), lambda x: ovb(x, np.float16), [(str(shape).replace(" ", ""), "f16")],
         [rand(shape, "f16")])


@pytest.mark.parametrize("index", range(6))
def test_f64_matches_the_exact_value(ov, index: int) -> None:
    """f64 shapes/types against OpenVINO; values against graphir's own f32 result at f64 precision
    of the inputs (the plugin computes f64 in 32 bits, so it is no oracle here)."""
    name, gr, ovb, shape = _cases()[index]
    diff(ov, lambda x: gr(x, np.float64), lambda x: ovb(x, np.float64), [(str(shape).replace(" ", ""), "f64")])
    p64, p32 = opset.parameter(str(shape).replace(" ", ""), "f64"), opset.parameter(str(shape).replace(" ", ""), "f32")
    x = rand(shape, "f64")
    got = list(Model([gr(p64, np.float64)], [p64]).run([x]).values())[0]
    ref = list(Model([gr(p32, np.float32)], [p32]).run([x.astype(np.float32)]).values())[0]
    assert got.dtype == np.float64
    assert_close(got, ref.astype(np.float64), np.float32)


@pytest.mark.parametrize("shape_a,shape_b", [([3, 4], [4, 2]), ([2, 3, 4], [4])])
def test_integer_matmul_matches_openvino(ov, shape_a, shape_b) -> None:
    from openvino import opset13 as ops

    diff(ov, lambda x, y: opset.mat_mul(x, y), lambda x, y: ops.matmul(x, y, False, False),
         [(str(shape_a).replace(" ", ""), "i32"), (str(shape_b).replace(" ", ""), "i32")],
         [rand(shape_a, "i32", low=-5, high=5), rand(shape_b, "i32", seed=1, low=-5, high=5)])
