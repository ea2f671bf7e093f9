"""Unary math ops and activations against OpenVINO 2026: element-type rules and messages, shapes
(dynamic, interval, dynamic rank, scalar, zero-size), CPU values per real dtype, integer values
against OpenVINO's reference evaluator, attributes (Round mode, Gelu mode, Elu alpha, Clamp
bounds, softmax axes) and PRelu's slope layouts."""
from __future__ import annotations

import math

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError, OpDefinitionError
from graphir.ops.registry import lookup
from tests.ops.ov_diff import Param, check, infer_error, random_array, reference


def _ov():
    from openvino import opset1, opset2, opset4, opset5, opset7, opset8

    return opset1, opset2, opset4, opset5, opset7, opset8


def gr(name: str, version: str | None = None, **attrs):
    return lambda x: opset.make(name, x, version=version, **attrs)


def ovb(fn_name: str, module: int, *args):
    def build(x):
        mods = dict(zip((1, 2, 4, 5, 7, 8), _ov()))
        return getattr(mods[module], fn_name)(x, *args)

    return build


def _factory(opset_name: str, type_name: str, *inputs, **attrs):
    """A node with exactly these inputs (the Python opset4.swish adds an f32 beta constant)."""
    from openvino.utils.node_factory import NodeFactory

    return NodeFactory(opset_name).create(type_name, [i.output(0) for i in inputs], attrs)


#: name -> (graphir builder, openvino builder, value domain (low, high))
UNARY = {
    "Abs": (gr("Abs"), ovb("absolute", 1), (-4, 4)),
    "Negative": (gr("Negative"), ovb("negative", 1), (-4, 4)),
    "Floor": (gr("Floor"), ovb("floor", 1), (-4, 4)),
    "Ceiling": (gr("Ceiling"), ovb("ceiling", 1), (-4, 4)),
    "Round-even": (gr("Round", mode="half_to_even"), ovb("round", 5, "half_to_even"), (-4, 4)),
    "Round-away": (gr("Round", mode="half_away_from_zero"), ovb("round", 5, "half_away_from_zero"), (-4, 4)),
    "Sign": (gr("Sign"), ovb("sign", 1), (-4, 4)),
    "Exp": (gr("Exp"), ovb("exp", 1), (-4, 4)),
    "Log": (gr("Log"), ovb("log", 1), (0.1, 8)),
    "Sqrt": (gr("Sqrt"), ovb("sqrt", 1), (0, 8)),
    "Erf": (gr("Erf"), ovb("erf", 1), (-3, 3)),
    "Tanh": (gr("Tanh"), ovb("tanh", 1), (-4, 4)),
    "Sigmoid": (gr("Sigmoid"), ovb("sigmoid", 1), (-6, 6)),
    "Sin": (gr("Sin"), ovb("sin", 1), (-4, 4)),
    "Cos": (gr("Cos"), ovb("cos", 1), (-4, 4)),
    "Tan": (gr("Tan"), ovb("tan", 1), (-1.2, 1.2)),
    "Asin": (gr("Asin"), ovb("asin", 1), (-0.95, 0.95)),
    "Acos": (gr("Acos"), ovb("acos", 1), (-0.95, 0.95)),
    "Atan": (gr("Atan"), ovb("atan", 1), (-4, 4)),
    "Sinh": (gr("Sinh"), ovb("sinh", 1), (-3, 3)),
    "Cosh": (gr("Cosh"), ovb("cosh", 1), (-3, 3)),
    "Asinh": (gr("Asinh"), ovb("asinh", 4), (-4, 4)),
    "Acosh": (gr("Acosh"), ovb("acosh", 4), (1.1, 5)),
    "Atanh": (gr("Atanh"), ovb("atanh", 4), (-0.9, 0.9)),
    "Relu": (gr("Relu"), ovb("relu", 1), (-4, 4)),
    "Gelu-2": (gr("Gelu", "opset2"), ovb("gelu", 2), (-4, 4)),
    "Gelu-7-erf": (gr("Gelu", "opset7", approximation_mode="ERF"), ovb("gelu", 7, "erf"), (-4, 4)),
    "Gelu-7-tanh": (gr("Gelu", "opset7", approximation_mode="TANH"), ovb("gelu", 7, "tanh"), (-4, 4)),
    "Swish": (gr("Swish"), lambda x: _factory("opset4", "Swish", x), (-5, 5)),
    "HSwish": (gr("HSwish"), ovb("hswish", 4), (-5, 5)),
    "HSigmoid": (gr("HSigmoid"), ovb("hsigmoid", 5), (-5, 5)),
    "SoftPlus": (gr("SoftPlus"), ovb("softplus", 4), (-25, 25)),
    "Mish": (gr("Mish"), ovb("mish", 4), (-5, 5)),
    "Elu": (gr("Elu", alpha=0.7), ovb("elu", 1, 0.7), (-4, 4)),
    "Clamp": (gr("Clamp", min=-1.5, max=2.25), ovb("clamp", 1, -1.5, 2.25), (-4, 4)),
    "Softmax-1": (gr("Softmax", "opset1", axis=1), ovb("softmax", 1, 1), (-4, 4)),
    "Softmax-8": (gr("Softmax", "opset8", axis=-1), ovb("softmax", 8, -1), (-4, 4)),
    "LogSoftmax": (gr("LogSoftmax", axis=-2), ovb("log_softmax", 5, -2), (-4, 4)),
}
TYPES = ["f32", "f16", "bf16", "f64", "i32", "i64", "u8", "i8", "boolean", "dynamic"]


@pytest.mark.parametrize("name", list(UNARY))
def test_element_type_rules_match_openvino(ov, name: str) -> None:
    g, o, _ = UNARY[name]
    for dt in TYPES:
        inputs = [Param("[2,3]", dt)]
        try:
            check(ov, g, o, inputs)
        except InferenceError:
            gr_msg, ov_msg = infer_error(ov, g, o, inputs)
            head = ov_msg.split("(")[0].split(", Got")[0].split(". Got")[0].strip().rstrip(".")
            assert head in gr_msg, (gr_msg, ov_msg)
            assert dt in gr_msg or (dt == "boolean" and "bool" in gr_msg)


@pytest.mark.parametrize("name", list(UNARY))
def test_shapes_match_openvino(ov, name: str) -> None:
    g, o, _ = UNARY[name]
    shapes = ["[?,2..5,3]", "[...]", "[0,3]", "[1..8,?]"]
    if not name.startswith(("Softmax", "LogSoftmax")):
        shapes.append("[]")
    for shape in shapes:
        check(ov, g, o, [Param(shape, "f32")])


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_values_match_openvino_cpu(ov, dtype: str) -> None:
    """Every op in one model (one CPU compile), each fed from its own input in its domain."""
    names = list(UNARY)
    rng = np.random.default_rng(7)
    values = []
    for name in names:
        low, high = UNARY[name][2]
        x = random_array((2, 3, 4), dtype, rng, low, high)
        if name.startswith("Round"):  # exact halves exercise the mode
            x = (np.round(x.astype(np.float32) * 2) / 2).astype(x.dtype)
        values.append(x)
    specs = [Param("[2,3,4]", dtype) for _ in names]
    check(ov, lambda *xs: [UNARY[n][0](x) for n, x in zip(names, xs)],
          lambda *xs: [UNARY[n][1](x) for n, x in zip(names, xs)], specs, values)


def test_f64_is_computed_exactly(ov) -> None:
    x = np.array([1e-300, 0.5, 2.0, 700.0])
    for name, fn in [("Exp", np.exp), ("Log", np.log), ("Sqrt", np.sqrt), ("Tanh", np.tanh)]:
        g, o, _ = UNARY[name]
        check(ov, g, o, [Param("[4]", "f64")], [x], expected=[fn(x)])
    got = opset.erf(np.array([0.5, -1.0, 3.0])).tensor_type.value
    np.testing.assert_allclose(got, [math.erf(0.5), math.erf(-1.0), math.erf(3.0)], rtol=1e-15)


INT_X = np.array([-5, -3, -2, -1, 0, 1, 2, 3, 5, 9], np.int32)


#: real-only ops, and ops OpenVINO has no integer reference kernel for (CPU rounds differently)
_NO_INT_REFERENCE = ("Gelu-2", "Gelu-7-erf", "Gelu-7-tanh", "Swish", "SoftPlus", "Mish", "HSwish", "HSigmoid",
                     "Elu", "Softmax-1", "Softmax-8", "LogSoftmax")


@pytest.mark.parametrize("name,dtype", [(n, t) for t in (np.int32, np.int64, np.uint32, np.uint64) for n in UNARY
                                        if n not in _NO_INT_REFERENCE  # no unsigned Negative kernel in OpenVINO
                                        and not (n == "Negative" and np.dtype(t).kind == "u")])
def test_integer_values_match_openvino_reference(ov, name: str, dtype) -> None:
    """Unsigned types included: a negative real result wraps (Cos/Tan of u32 2: 2^32-2, as
    op_reference's tan cases expect), Atanh saturates by sign at any magnitude."""
    g, o, _ = UNARY[name]
    x = INT_X[INT_X >= 0] if np.dtype(dtype).kind == "u" else INT_X
    x = x.astype(dtype)
    if name in ("Log", "Sqrt", "Acosh"):
        x = x[x > 0]
    if name in ("Asin", "Acos"):
        x = x[np.abs(x.astype(np.int64)) <= 1]
    want = reference(ov, o, [x.reshape(1, -1)])
    assert want is not None, f"OpenVINO has no reference {name} for {np.dtype(dtype)}"
    got = g(opset.constant(x.reshape(1, -1))).tensor_type.value
    np.testing.assert_array_equal(got, want[0])
    assert got.dtype == want[0].dtype


def test_round_modes_on_halves() -> None:
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4], np.float32)
    np.testing.assert_array_equal(opset.round(x, mode="half_to_even").tensor_type.value,
                                  [-2, -2, -0, 0, 2, 2, 2])
    np.testing.assert_array_equal(opset.round(x, mode="half_away_from_zero").tensor_type.value,
                                  [-3, -2, -1, 1, 2, 3, 2])
    with pytest.raises(OpDefinitionError, match="mode"):
        opset.round(x, mode="up")


def test_gelu_versions_and_mode_spelling() -> None:
    assert lookup("openvino", "Gelu", "opset2").version == "opset2"
    g7 = lookup("openvino", "Gelu", "opset13")
    assert g7.version == "opset7" and g7(approximation_mode="tanh").approximation_mode == "TANH"
    assert lookup("openvino", "Softmax", "opset1").serialized_type_names == {"ir": "SoftMax"}
    assert lookup("openvino", "Softmax", "opset13").version == "opset8"
    assert lookup("openvino", "ReLU").type_name == "Relu"
    assert lookup("openvino", "PReLU").type_name == "PRelu"


@pytest.mark.parametrize("case", [("Softmax-1", "[2,3]", 2), ("Softmax-8", "[2,3]", 2), ("Softmax-8", "[2,3]", -3),
                                  ("LogSoftmax", "[2,3]", 2), ("Softmax-8", "[...]", 5), ("LogSoftmax", "[2,3]", -2),
                                  ("Softmax-1", "[?,?,?]", 2), ("Softmax-8", "[]", 0)])
def test_softmax_axis_rules_match_openvino(ov, case) -> None:
    name, shape, axis = case
    version = {"Softmax-1": "opset1", "Softmax-8": "opset8", "LogSoftmax": None}[name]
    g = gr("LogSoftmax" if name == "LogSoftmax" else "Softmax", version, axis=axis)
    o = ovb("log_softmax", 5, axis) if name == "LogSoftmax" else ovb("softmax", 1 if name == "Softmax-1" else 8, axis)
    try:
        check(ov, g, o, [Param(shape)])
    except InferenceError:
        gr_msg, ov_msg = infer_error(ov, g, o, [Param(shape)])
        assert ov_msg.rstrip(".") in gr_msg or ov_msg.split(" (")[0] in gr_msg, (gr_msg, ov_msg)


def test_softmax_values_on_every_axis(ov) -> None:
    x = random_array((2, 3, 4), "f32", np.random.default_rng(2), -3, 3)
    for axis in (-3, -2, -1, 0, 1, 2):
        got = check(ov, gr("Softmax", "opset8", axis=axis), ovb("softmax", 8, axis), [Param("[2,3,4]")], [x])[0]
        np.testing.assert_allclose(got.sum(axis=axis), 1.0, rtol=1e-6)
    np.testing.assert_allclose(opset.softmax(np.float32(3.0), axis=0).tensor_type.value, 1.0)


def test_clamp_attributes(ov) -> None:
    from openvino import opset1

    g, o = gr("Clamp", min=2.0, max=1.0), ovb("clamp", 1, 2.0, 1.0)
    gr_msg, ov_msg = infer_error(ov, g, o, [Param("[2]")])
    assert "Attribute 'min' must be less or equal than 'max'. Got: 2 and 1" in gr_msg and "'min'" in ov_msg
    x = np.array([-3, -2, -1, 0, 1, 2, 3, 127, -128], np.int8)
    got = check(ov, gr("Clamp", min=-1.5, max=2.5), lambda v: opset1.clamp(v, -1.5, 2.5), [Param("[9]", "i8")], [x])
    np.testing.assert_array_equal(got[0], [-1, -1, -1, 0, 1, 2, 2, 2, -1])
    wide = opset.clamp(np.array([0, 100], np.uint8), min_value=-1e9, max_value=1e9).tensor_type.value
    np.testing.assert_array_equal(wide, [0, 100])


@pytest.mark.parametrize("low,high", [(10.0, float("inf")), (float("-inf"), 20.0), (float("-inf"), float("inf"))])
@pytest.mark.parametrize("dtype", ["i8", "u8", "i32", "u64"])
def test_clamp_integers_with_infinite_bounds_match_openvino_reference(ov, low: float, high: float, dtype: str) -> None:
    """An infinite bound leaves that side unclamped (op_reference's min=10_max=inf cases)."""
    from tests.ops.ov_diff import reference

    x = np.array([0, 5, 10, 15, 20, 25, 100, 127], dtype=np.dtype(dtype.replace("u", "uint") if dtype[0] == "u"
                                                                  else dtype.replace("i", "int")))
    want = reference(ov, ovb("clamp", 1, low, high), [x])[0]
    got = opset.clamp(x, min_value=low, max_value=high).tensor_type.value
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("data,slope", [("[2,3,4]", "[3]"), ("[2,3,4]", "[1]"), ("[2,3,4]", "[4]"), ("[2,3,4]", "[]"),
                                        ("[2,3,4]", "[3,1]"), ("[3]", "[3]"), ("[2,3,4,5]", "[3]"), ("[2,4]", "[4]")])
def test_prelu_slope_layouts_match_openvino_cpu(ov, data: str, slope: str) -> None:
    from openvino import opset1

    rng = np.random.default_rng(3)
    shape = lambda s: tuple(int(v) for v in s[1:-1].split(",") if v)  # noqa: E731
    x, s = random_array(shape(data), "f32", rng), random_array(shape(slope), "f32", rng, 0, 1)
    check(ov, lambda a, b: opset.prelu(a, b), lambda a, b: opset1.prelu(a, b), [Param(data), Param(slope)], [x, s])


def test_prelu_infers_data_shape_without_checks(ov) -> None:
    from openvino import opset1

    for data, slope in [("[?,?,4]", "[5]"), ("[...]", "[5]"), ("[2,3]", "[2,3,4]"), ("[2,1..3,4]", "[5]")]:
        check(ov, lambda a, b: opset.prelu(a, b), lambda a, b: opset1.prelu(a, b), [Param(data), Param(slope)])
    with pytest.raises(Exception, match=r"slope of shape \[5\] does not broadcast to data of shape \[2, 3\]"):
        lookup("openvino", "PRelu")().evaluate(np.zeros((2, 3), np.float32), np.ones(5, np.float32))


def test_swish_beta_rules_and_values(ov) -> None:
    from openvino import opset4

    x = random_array((2, 5), "f32", np.random.default_rng(4))
    beta = np.array(0.75, np.float32)
    got = check(ov, lambda a, b: opset.swish(a, b), lambda a, b: opset4.swish(a, b), [Param("[2,5]"), Param("[]")],
                [x, beta])
    np.testing.assert_allclose(got[0], x / (1 + np.exp(-0.75 * x)), rtol=1e-5)
    for shape, dt in [("[1]", "f32"), ("[]", "i32")]:
        gr_msg, ov_msg = infer_error(ov, lambda a, b: opset.swish(a, b), lambda a, b: opset4.swish(a, b),
                                     [Param("[2,5]"), Param(shape, dt)])
        assert ov_msg.split(": ")[0] in gr_msg


def test_constant_inputs_fold() -> None:
    v = opset.relu(np.array([-1, 2, -3], np.int64))
    np.testing.assert_array_equal(v.tensor_type.value, [0, 2, 0])
    assert opset.exp(opset.parameter("[3]")).tensor_type.value is None
