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
        ("matmul", lambda x, wt: opset.matmul(x, opset.constant(rand([4, 5], seed=2).astype(wt)), False, True),
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

    diff(ov, lambda x, y: opset.matmul(x, y, False, False), lambda x, y: ops.matmul(x, y, False, False),
         [(str(shape_a).replace(" ", ""), "i32"), (str(shape_b).replace(" ", ""), "i32")],
         [rand(shape_a, "i32", low=-5, high=5), rand(shape_b, "i32", seed=1, low=-5, high=5)])


_INTEGER_CONVS = [  # (op type, data shape, filter shape, attributes)
    ("Convolution", [1, 2, 5, 4], [3, 2, 3, 3], {}),
    ("GroupConvolution", [1, 4, 5], [2, 1, 2, 3], {}),
    ("ConvolutionBackpropData", [1, 2, 3, 3], [2, 3, 3, 3], {"output_padding": [0, 0]}),
    ("GroupConvolutionBackpropData", [1, 4, 4], [2, 2, 1, 3], {"output_padding": [0]}),
]


@pytest.mark.parametrize("dtype", ["i8", "u8", "i32", "i64", "u64"])
@pytest.mark.parametrize("index", range(len(_INTEGER_CONVS)))
def test_integer_convolutions_match_openvino_cpu(ov, index: int, dtype: str) -> None:
    """Integer convolutions (op_reference has i8..u64 cases; the spec lists real types only, OpenVINO
    2026.4 builds any numeric type but has no integer kernel on CPU nor in Node.evaluate): values
    small enough that every sum is exact are compared with the same op on CPU in f32."""
    from tests.ops.test_shape_ops import factory

    name, xs, ws, extra = _INTEGER_CONVS[index]
    spatial = len(xs) - 2
    attrs = {"strides": [1] * spatial, "pads_begin": [1] * spatial, "pads_end": [0] * spatial,
             "dilations": [1] * spatial, "auto_pad": "explicit", **extra}
    rng = np.random.default_rng(index)
    low, high = (0, 4) if dtype.startswith("u") else (-3, 4)
    x = rng.integers(low, high, xs).astype(_NP[dtype])
    w = rng.integers(low, high, ws).astype(x.dtype)
    node = factory("opset1", name, attrs)(ov.opset13.constant(x), ov.opset13.constant(w))  # integer types build
    assert node.get_output_element_type(0).get_type_name() == dtype
    p = ov.opset13.parameter(xs, np.float32)
    f32 = factory("opset1", name, attrs)(p, ov.opset13.constant(w.astype(np.float32)))
    want = ov.Core().compile_model(ov.Model([f32], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(
        [x.astype(np.float32)])[0]
    gp = opset.parameter(str(xs).replace(" ", ""), dtype)
    out = opset.make(name, gp, w, version="opset1", **attrs)
    assert str(out.tensor_type.shape) == str(node.get_output_partial_shape(0)).replace(" ", "")
    got = list(Model([out], [gp]).run([x]).values())[0]
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, want.astype(x.dtype))


_NP = {"i8": np.int8, "u8": np.uint8, "i32": np.int32, "i64": np.int64, "u64": np.uint64}


@pytest.mark.parametrize("dtype", ["i32", "i64"])
def test_integer_adaptive_max_pool_matches_openvino_cpu(ov, dtype: str) -> None:
    """AdaptiveMaxPool on integers (op_reference's i64 cases): CPU in f32 on distinct small integers."""
    x = np.random.default_rng(3).permutation(210).reshape(2, 3, 7, 5).astype(_NP[dtype]) - 100
    size = np.array([3, 2], np.int64)
    p = ov.opset13.parameter(list(x.shape), np.float32)
    node = ov.opset8.adaptive_max_pool(p, ov.opset13.constant(size), "i32")
    want = ov.Core().compile_model(ov.Model(node.outputs(), [p]), "CPU")([x.astype(np.float32)])
    gp = opset.parameter("[2,3,7,5]", dtype)
    outs = opset.make("AdaptiveMaxPool", gp, size, version="opset8", index_element_type="i32")
    got = list(Model(list(outs), [gp]).run([x]).values())
    assert got[0].dtype == x.dtype
    np.testing.assert_array_equal(got[0], want[0].astype(x.dtype))
    np.testing.assert_array_equal(got[1], want[1])
