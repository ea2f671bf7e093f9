"""Known-answer values and shape-inference rules of key oneDNN Graph ops (torch as the reference
for convolution, pooling and layer norm)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from graphir.errors import InferenceError, OpDefinitionError
from graphir.node import Node
from graphir.ops.base import TensorType
from graphir.ops.openvino.core import Parameter
from graphir.ops.registry import all_ops, lookup
from graphir.shapes import PartialShape
from graphir.types import ElementType
from tests.tolerances import assert_close


def op(kind: str, **attrs):  # type: ignore[no-untyped-def]
    return lookup("onednn", kind, "1")(**attrs)


def t(shape: str | list[int], et: str = "f32") -> TensorType:
    return TensorType.of(et, shape)


def test_every_public_kind_has_a_schema_with_attribute_kinds(shared_dir) -> None:  # type: ignore[no-untyped-def]
    listed = (shared_dir / "conformance" / "onednn" / "OPS.md").read_text().split("(names only, 88)")[1].split()
    ops = {cls.type_name: cls for cls in all_ops("onednn")}
    assert sorted(listed) == sorted(ops)
    for name in listed:
        cls = ops[name]
        assert cls.version == "1"
        if hasattr(cls, "attribute_kinds"):
            assert set(cls.attribute_kinds().values()) <= {"string", "s64", "s64[]", "f32", "f32[]", "bool"}
    assert ops["Convolution"].attribute_kinds()["strides"] == "s64[]"
    assert ops["Clamp"].attribute_kinds() == {"min": "f32", "max": "f32"}
    assert ops["MatMul"].attribute_kinds()["transpose_a"] == "bool"


def test_required_attributes_have_no_default() -> None:
    with pytest.raises(OpDefinitionError, match="strides"):
        op("Convolution", pads_begin=[0], pads_end=[0], dilations=[1])
    with pytest.raises(OpDefinitionError, match="data_format"):
        op("BiasAdd", data_format="NHWC")


# --- MatMul ------------------------------------------------------------------------------------
def test_matmul_values_transpose_and_bias() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    bias = np.array([1, 2, 3, 4], np.float32)
    (y,) = op("MatMul", transpose_b=True).evaluate(a, b, bias)
    np.testing.assert_array_equal(y, a @ b.T + bias)


@pytest.mark.parametrize("a, b, ta, tb, expected", [
    ("[4,8,32,384]", "[384,1024]", False, False, "[4,8,32,1024]"),
    ("[2,1,5,3]", "[7,3,6]", False, False, "[2,7,5,6]"),
    ("[3]", "[3,4]", False, False, "[4]"),
    ("[5,3]", "[3]", False, False, "[5]"),
    ("[3,5]", "[4,3]", True, True, "[5,4]"),
    ("[?,3]", "[3,?]", False, False, "[?,?]"),
])
def test_matmul_shapes(a: str, b: str, ta: bool, tb: bool, expected: str) -> None:
    (out,) = op("MatMul", transpose_a=ta, transpose_b=tb).infer([t(a), t(b)])
    assert out.shape == PartialShape.parse(expected)


def test_matmul_inner_dim_mismatch_names_inputs() -> None:
    with pytest.raises(InferenceError, match=r"inner dims differ.*\[2,3\].*\[4,5\]"):
        op("MatMul").infer([t("[2,3]"), t("[4,5]")])


# --- SoftMax / LogSoftmax ----------------------------------------------------------------------
def test_softmax_values_and_stats() -> None:
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], np.float32)
    s = op("SoftMax", axis=-1)
    s.set_output_count(2)
    y, stats = s.evaluate(x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert_close(y, e / e.sum(axis=1, keepdims=True))
    assert_close(stats, np.log(np.exp(x).sum(axis=1, keepdims=True)))
    assert [o.shape for o in s.infer([t("[2,3]")])] == [PartialShape.parse("[2,3]"), PartialShape.parse("[2,1]")]


def test_softmax_inf_as_zero() -> None:
    x = np.array([[-np.inf, -np.inf], [0.0, 0.0]], np.float32)
    (y,) = op("SoftMax", axis=1, mode="inf_as_zero").evaluate(x)
    np.testing.assert_array_equal(y, [[0, 0], [0.5, 0.5]])
    (plain,) = op("SoftMax", axis=1).evaluate(x)
    assert np.isnan(plain[0]).all()


def test_logsoftmax_values() -> None:
    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    (y,) = op("LogSoftmax", axis=1).evaluate(x)
    assert_close(y, torch.log_softmax(torch.from_numpy(x), 1).numpy())


# --- Convolution -------------------------------------------------------------------------------
@pytest.mark.parametrize("data_format, weights_format", [("NXC", "XIO"), ("NCX", "OIX"), ("NXC", "OIX")])
def test_convolution_layouts_match_torch(data_format: str, weights_format: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 9, 8)).astype(np.float32)  # NCHW
    w = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)  # OIHW, groups 2
    bias = rng.standard_normal(6).astype(np.float32)
    expected = torch.nn.functional.conv2d(torch.from_numpy(np.pad(x, [(0, 0), (0, 0), (1, 0), (0, 1)])),
                                          torch.from_numpy(w), torch.from_numpy(bias), stride=(2, 1), dilation=(1, 2), groups=2).numpy()
    xs = x if data_format == "NCX" else x.transpose(0, 2, 3, 1)
    ws = w if weights_format == "OIX" else w.transpose(2, 3, 1, 0)
    conv = op("Convolution", strides=[2, 1], pads_begin=[1, 0], pads_end=[0, 1], dilations=[1, 2], groups=2,
              data_format=data_format, weights_format=weights_format)
    (y,) = conv.evaluate(xs, ws, bias)
    got = y if data_format == "NCX" else y.transpose(0, 3, 1, 2)
    assert_close(got, expected)
    (out,) = conv.infer([t(list(xs.shape)), t(list(ws.shape)), t([6])])
    assert out.shape.to_shape() == y.shape


def test_convolution_auto_pad_same_upper_shape() -> None:
    conv = op("Convolution", strides=[2, 2], pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1], auto_pad="SAME_UPPER")
    (out,) = conv.infer([t("[1,7,8,3]"), t("[3,3,3,16]")])  # NXC, XIO
    assert out.shape == PartialShape.parse("[1,4,4,16]")


def test_convolution_channel_mismatch_is_named() -> None:
    conv = op("Convolution", strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1], data_format="NCX", weights_format="OIX")
    with pytest.raises(InferenceError, match=r"input channels 3 .*\[1,3,8,8\].*groups 1.*\[16,4,3,3\]"):
        conv.infer([t("[1,3,8,8]"), t("[16,4,3,3]")])


def test_conv_transpose_matches_torch() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 5, 5)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)  # IOX, groups 2 -> O = 6
    deconv = op("ConvTranspose", strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1], groups=2,
                data_format="NCX", weights_format="IOX", output_padding=[1, 1])
    (y,) = deconv.evaluate(x, w)
    expected = torch.nn.functional.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(w), stride=2, padding=1,
                                                    output_padding=1, groups=2).numpy()
    assert_close(y, expected)
    assert deconv.infer([t("[1,4,5,5]"), t("[4,3,3,3]")])[0].shape.to_shape() == expected.shape


# --- pooling -----------------------------------------------------------------------------------
@pytest.mark.parametrize("ceil", [False, True])
def test_maxpool_matches_torch(ceil: bool) -> None:
    x = np.random.default_rng(3).standard_normal((1, 2, 8, 7)).astype(np.float32)
    pool = op("MaxPool", strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1], kernel=[3, 3], data_format="NCX",
              rounding_type="ceil" if ceil else "floor")
    expected = torch.nn.functional.max_pool2d(torch.from_numpy(x), 3, 2, 1, ceil_mode=ceil).numpy()
    (y,) = pool.evaluate(x)
    assert_close(y, expected)
    assert pool.infer([t([1, 2, 8, 7])])[0].shape.to_shape() == expected.shape


@pytest.mark.parametrize("exclude_pad", [False, True])
def test_avgpool_nxc_matches_torch(exclude_pad: bool) -> None:
    x = np.random.default_rng(4).standard_normal((2, 3, 9, 9)).astype(np.float32)
    pool = op("AvgPool", strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1], kernel=[3, 3], exclude_pad=exclude_pad)
    expected = torch.nn.functional.avg_pool2d(torch.from_numpy(x), 3, 2, 1, count_include_pad=not exclude_pad).numpy()
    (y,) = pool.evaluate(x.transpose(0, 2, 3, 1))
    assert_close(y.transpose(0, 3, 1, 2), expected)


# --- normalization -----------------------------------------------------------------------------
def test_layernorm_matches_torch_with_stats() -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    g, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    ln = op("LayerNorm", epsilon=1e-5)
    y, mean, var = ln.evaluate(x, g, b)
    expected = torch.nn.functional.layer_norm(torch.from_numpy(x), (4,), torch.from_numpy(g), torch.from_numpy(b), 1e-5).numpy()
    assert_close(y, expected)
    assert_close(mean, x.mean(axis=-1))
    assert_close(var, x.var(axis=-1))
    shapes = [o.shape for o in ln.infer([t("[2,3,4]"), t("[4]"), t("[4]")])]
    assert shapes == [PartialShape.parse(s) for s in ("[2,3,4]", "[2,3]", "[2,3]")]


def test_layernorm_gamma_shape_error() -> None:
    with pytest.raises(InferenceError, match=r"input 1 \('gamma'\) \[5\] must be \[4\]"):
        op("LayerNorm", keep_stats=False).infer([t("[2,4]"), t("[5]"), t("[5]")])


def test_batchnorm_and_groupnorm_match_torch() -> None:
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    g, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    m, v = rng.standard_normal(4).astype(np.float32), rng.uniform(0.5, 2, 4).astype(np.float32)
    (y,) = op("BatchNormInference", epsilon=1e-3, data_format="NCX").evaluate(x, g, b, m, v)
    expected = torch.nn.functional.batch_norm(*(torch.from_numpy(a) for a in (x, m, v, g, b)), eps=1e-3).numpy()
    assert_close(y, expected)
    gn = op("GroupNorm", groups=2, keep_stats=False, data_format="NCX")
    (y,) = gn.evaluate(x, g, b)
    assert_close(y, torch.nn.functional.group_norm(torch.from_numpy(x), 2, torch.from_numpy(g), torch.from_numpy(b)).numpy())


# --- quantization, GenIndex, reshape/transpose --------------------------------------------------
def test_quantize_dequantize_per_channel() -> None:
    x = np.array([[0.0, 1.0, 2.6], [-1.0, 100.0, 0.24]], np.float32)
    q = op("Quantize", scales=[0.5, 0.1], zps=[10, 0], qtype="per_channel", axis=0)
    q.declare_output_types(["u8"])
    (y,) = q.evaluate(x)
    assert y.dtype == np.uint8
    np.testing.assert_array_equal(y, [[10, 12, 15], [0, 255, 2]])  # round half even, saturate
    (back,) = op("Dequantize", scales=[0.5, 0.1], zps=[10, 0], qtype="per_channel", axis=0).evaluate(y)
    assert_close(back, np.array([[0.0, 1.0, 2.5], [0.0, 25.5, 0.2]], np.float32))


def test_dequantize_per_channel_scales_of_grouped_weights() -> None:
    """groups x channels scales for axis 1 of grouped weights (groups in dim 0), as oneDNN runs
    int8_convtranspose_post_ops_add_fusion.json: element (i, c) takes scale [i // (dim0/groups), c]."""
    w = np.arange(16, dtype=np.int8).reshape(4, 2, 2, 1)
    deq = op("Dequantize", scales=[1.0, 2.0, 10.0, 20.0], qtype="per_channel", axis=1)  # 2 groups x 2 channels
    (y,) = deq.evaluate(w)
    factor = np.array([[1, 2], [1, 2], [10, 20], [10, 20]], np.float32)[:, :, None, None]
    np.testing.assert_array_equal(y, w.astype(np.float32) * factor)
    node = Node(deq, [Node(Parameter(shape=PartialShape.parse("[4,2,2,1]"), element_type="i8")).output(0)])
    assert str(node.output_types[0]) == "f32[4,2,2,1]"
    bad = op("Dequantize", scales=[1.0] * 6, qtype="per_channel", axis=1)  # 3 groups do not divide dim 0 (4)
    with pytest.raises(InferenceError, match=r"qtype 'per_channel': 6 scales for axis 1 of input 0 \('src'\) \[4,2,2,1\]"):
        Node(bad, [Node(Parameter(shape=PartialShape.parse("[4,2,2,1]"), element_type="i8")).output(0)])


def test_quantize_type_constraint_and_scale_count() -> None:
    q = op("Quantize", scales=[1.0])
    q.declare_output_types(["f16"])
    with pytest.raises(InferenceError, match=r"output 0 \('dst'\) has element type f16"):
        q.infer([t("[2]")])
    with pytest.raises(InferenceError, match=r"2 scales for axis 1"):
        op("Quantize", scales=[1.0, 2.0], qtype="per_channel").infer([t("[2,3]")])


def test_dynamic_dequantize_per_group() -> None:
    x = np.arange(8, dtype=np.int8).reshape(1, 8)
    scales = np.array([[1.0, 10.0]], np.float32)
    (y,) = op("DynamicDequantize", qtype="per_group", group_shape=[1, 4], axis=1).evaluate(x, scales)
    np.testing.assert_array_equal(y, [[0, 1, 2, 3, 40, 50, 60, 70]])


def test_genindex() -> None:
    (y,) = op("GenIndex", axis=1).evaluate(np.zeros((2, 3), np.float32))
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, [[0, 1, 2], [0, 1, 2]])


def test_static_reshape_special_zero_and_transpose() -> None:
    (out,) = op("StaticReshape", shape=[0, -1], special_zero=True).infer([t("[4,3,2]")])
    assert out.shape == PartialShape.parse("[4,6]")
    with pytest.raises(InferenceError, match="cannot reshape"):
        op("StaticReshape", shape=[5, -1], special_zero=False).infer([t("[4,3]")])
    (out,) = op("StaticTranspose", order=[0, 2, 1]).infer([t("[1,2,3]")])
    assert out.shape == PartialShape.parse("[1,3,2]")


def test_binary_broadcast_rules() -> None:
    assert op("Add").infer([t("[2,1,3]"), t("[4,1]")])[0].shape == PartialShape.parse("[2,4,3]")
    with pytest.raises(InferenceError, match=r"must be equal \(auto_broadcast 'none'\)"):
        op("Add", auto_broadcast="none").infer([t("[2,3]"), t("[3]")])
    (ge,) = op("GreaterEqual").infer([t("[2]", "i32"), t("[1]", "i32")])
    assert str(ge.element_type) == "boolean"
    with pytest.raises(InferenceError, match=r"input 0 \('src_0'\) has element type i32"):
        op("Maximum").infer([t("[2]", "i32"), t("[2]", "i32")])


def test_concat_and_reduce() -> None:
    (out,) = op("Concat", axis=-1).infer([t("[2,3]"), t("[2,?]")])
    assert out.shape == PartialShape.parse("[2,3..]")  # 3 plus an unknown length
    (out,) = op("ReduceSum", axes=[0, -1], keep_dims=True).infer([t("[2,3,4]")])
    assert out.shape == PartialShape.parse("[1,3,1]")
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    (y,) = op("ReduceL2", axes=[1]).evaluate(x)
    assert_close(y, np.sqrt((x * x).sum(axis=1)))


def test_interpolate_linear_matches_torch() -> None:
    x = np.random.default_rng(8).standard_normal((1, 2, 5, 6)).astype(np.float32)
    (y,) = op("Interpolate", mode="linear", sizes=[7, 4], data_format="NCX").evaluate(x)
    expected = torch.nn.functional.interpolate(torch.from_numpy(x), size=(7, 4), mode="bilinear", align_corners=False).numpy()
    assert_close(y, expected)


def test_backward_op_infers_but_does_not_run() -> None:
    node = Node(op("ReLUBackward"), [Node(Parameter(shape=PartialShape.parse("[2,3]"), element_type="f32")),
                                     Node(Parameter(shape=PartialShape.parse("[2,3]"), element_type="f32"))])
    assert node.output_types[0].shape == PartialShape.parse("[2,3]")
    assert not node.op.runnable
    with pytest.raises(Exception, match="backward"):
        node.op.evaluate(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("auto_pad, rows", [("SAME_UPPER", slice(0, 10)), ("SAME_LOWER", slice(1, 11))])
def test_conv_transpose_same_padding(auto_pad: str, rows: slice) -> None:
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((1, 2, 5, 5)).astype(np.float32), rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    deconv = op("ConvTranspose", strides=[2, 2], pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1], auto_pad=auto_pad,
                data_format="NCX", weights_format="IOX")
    (y,) = deconv.evaluate(x, w)
    full = torch.nn.functional.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(w), stride=2).numpy()  # 11x11
    assert_close(y, full[:, :, rows, rows])  # total padding (k - stride) = 1, at the end (UPPER) or start (LOWER)
    assert deconv.infer([t("[1,2,5,5]"), t("[2,3,3,3]")])[0].shape == PartialShape.parse("[1,3,10,10]")


def test_reduce_axes_rules() -> None:
    with pytest.raises(InferenceError, match=r"axes \[1, -2\] name an axis twice"):
        op("ReduceSum", axes=[1, -2]).infer([t("[2,3,4]")])
    with pytest.raises(InferenceError, match="'axes' is empty"):
        op("ReduceMax").infer([t("[2,3]")])
    with pytest.raises(InferenceError, match=r"'axes' = 3 is out of range for rank 3"):
        op("ReduceMean", axes=[3]).infer([t("[2,3,4]")])


def test_interpolate_scales_and_sizes() -> None:
    (out,) = op("Interpolate", mode="nearest", scales=[1.66667, 0.5], data_format="NCX").infer([t("[2,16,3,11]")])
    assert out.shape == PartialShape.parse("[2,16,5,5]")  # trunc(3 * 1.66667), trunc(11 * 0.5)
    (out,) = op("Interpolate", mode="linear", sizes=[4], scales=[9.0]).infer([t("[1,7,3]")])  # NXC; sizes win
    assert out.shape == PartialShape.parse("[1,4,3]")
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 4)
    (y,) = op("Interpolate", mode="nearest", sizes=[8], data_format="NCX").evaluate(x)
    np.testing.assert_array_equal(y, [[[0, 0, 1, 1, 2, 2, 3, 3]]])


_X = np.array([[-3.5, -1.0, -0.5, 0.0], [0.5, 1.5, 2.5, 4.0]], np.float32)
UNARY_REFERENCES = {
    "Abs": ({}, np.abs),
    "Exp": ({}, np.exp),
    "Log": ({}, lambda x: np.log(np.abs(x) + 1)),  # evaluated on |x| + 1
    "ReLU": ({}, lambda x: np.maximum(x, 0)),
    "Sigmoid": ({}, lambda x: torch.sigmoid(torch.from_numpy(x)).numpy()),
    "Tanh": ({}, np.tanh),
    "Sqrt": ({}, lambda x: np.sqrt(np.abs(x) + 1)),
    "Square": ({}, np.square),
    "Reciprocal": ({}, lambda x: 1 / (np.abs(x) + 1)),
    "Round": ({}, lambda x: np.array([[-4.0, -1.0, -0.0, 0.0], [0.0, 2.0, 2.0, 4.0]], np.float32)),  # ties to even
    "HardSwish": ({}, lambda x: torch.nn.functional.hardswish(torch.from_numpy(x)).numpy()),
    "Mish": ({}, lambda x: torch.nn.functional.mish(torch.from_numpy(x)).numpy()),
    "Clamp": ({"min": -1.0, "max": 2.0}, lambda x: np.clip(x, -1, 2)),
    "Elu": ({"alpha": 0.7}, lambda x: torch.nn.functional.elu(torch.from_numpy(x), 0.7).numpy()),
    "GELU": ({}, lambda x: torch.nn.functional.gelu(torch.from_numpy(x)).numpy()),
    "HardSigmoid": ({"alpha": 0.2, "beta": 0.5}, lambda x: np.clip(0.2 * x + 0.5, 0, 1)),
    "LeakyReLU": ({"alpha": 0.1}, lambda x: np.where(x >= 0, x, 0.1 * x)),
    "Pow": ({"beta": 2.0}, lambda x: x ** 2),
    "SoftPlus": ({"beta": 2.0}, lambda x: torch.nn.functional.softplus(torch.from_numpy(x), beta=2.0).numpy()),
}


@pytest.mark.parametrize("kind", sorted(UNARY_REFERENCES))
@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_unary_values(kind: str, dtype: str) -> None:
    attrs, reference = UNARY_REFERENCES[kind]
    x = np.abs(_X) + 1 if kind in ("Log", "Sqrt", "Reciprocal") else _X
    base = np.abs(_X) if kind in ("Log", "Sqrt", "Reciprocal") else _X
    et = ElementType.parse(dtype)
    (y,) = op(kind, **attrs).evaluate(x.astype(et.numpy_dtype))
    assert y.dtype == et.numpy_dtype
    assert_close(y, reference(base).astype(np.float32).astype(et.numpy_dtype), et.numpy_dtype)


def test_binary_values_and_mixed_types() -> None:
    a, b = _X, np.float32(1.5) * np.ones((1, 4), np.float32)
    assert_close(op("Maximum").evaluate(a, b)[0], np.maximum(a, b))
    assert_close(op("Minimum").evaluate(a, b)[0], np.minimum(a, b))
    assert_close(op("SquaredDifference").evaluate(a, b)[0], (a - b) ** 2)
    add = op("Add")
    add.declare_output_types(["f32"])
    (out,) = add.infer([t("[2,4]", "bf16"), t("[1,4]")])  # oneDNN's T1/T2/T3 are independent
    assert str(out.element_type) == "f32"
    (y,) = add.evaluate(a.astype(ElementType.bf16.numpy_dtype), b)
    assert y.dtype == np.float32
    (i,) = op("Subtract").evaluate(np.array([5, 7], np.int32), np.array([2], np.int32))
    assert i.dtype == np.int32 and list(i) == [3, 5]


def test_dropout_is_seeded_and_scales() -> None:
    x = np.ones((4, 50), np.float32)
    d = op("Dropout")
    d.set_output_count(2)
    seed, offset, p = np.array([3], np.int64), np.array([0], np.int64), np.array([0.25], np.float32)
    y, mask = d.evaluate(x, seed, offset, p)
    y2, _ = d.evaluate(x, seed, offset, p)
    np.testing.assert_array_equal(y, y2)
    assert set(np.unique(mask)) <= {0, 1} and 0.5 < mask.mean() < 0.95
    assert_close(y, mask / np.float32(0.75))
    assert [str(o.element_type) for o in d.infer([t("[4,50]"), t("[1]", "i64"), t("[1]", "i64"), t("[1]")])] == ["f32", "u8"]


@pytest.mark.parametrize("kind, inputs, expected", [
    ("SigmoidBackward", ["[2,3]", "[2,3]"], ["[2,3]"]),
    ("TanhBackward", ["[2,3]", "[2,3]"], ["[2,3]"]),
    ("SqrtBackward", ["[2,3]", "[2,3]"], ["[2,3]"]),
    ("GELUBackward", ["[2,3]", "[2,3]"], ["[2,3]"]),
    ("HardSwishBackward", ["[4]", "[4]"], ["[4]"]),
    ("MishBackward", ["[4]", "[4]"], ["[4]"]),
    ("BiasAddBackward", ["[2,5,7]"], ["[7]"]),
    ("BatchNormTrainingBackward", ["[2,3,4]", "[2,3,4]", "[4]", "[4]", "[4]"], ["[2,3,4]", "[4]", "[4]"]),
    ("LayerNormBackward", ["[2,3,4]", "[2,3,4]", "[2,3]", "[2,3]", "[4]", "[4]"], ["[2,3,4]", "[4]", "[4]"]),
])
def test_backward_shapes(kind: str, inputs: list[str], expected: list[str]) -> None:
    schema = op(kind, **({"epsilon": 1e-5} if kind == "BatchNormTrainingBackward" else {}))
    outs = schema.infer([t(s) for s in inputs])
    assert [str(o.shape) for o in outs] == expected
    assert not schema.runnable
    with pytest.raises(Exception, match="backward"):
        schema.evaluate(*[np.zeros(PartialShape.parse(s).to_shape(), np.float32) for s in inputs])


def test_backward_shape_mismatch_is_named() -> None:
    with pytest.raises(InferenceError, match=r"inputs 0 \('src'\) \[2,3\] and 1 \('diff_dst'\) \[3,2\]"):
        op("SigmoidBackward").infer([t("[2,3]"), t("[3,2]")])
