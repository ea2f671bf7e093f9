"""Binary elementwise ops and LogicalNot-1 against OpenVINO 2026: inferred types and shapes over a
grid (broadcast modes, dynamic and interval dims, dynamic rank), CPU values per dtype, exact
integer semantics against OpenVINO's reference evaluator, errors and constant folding."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.errors import EvaluationError, InferenceError
from graphir.model import Model
from tests.ops.ov_diff import Param, check, infer_error, random_array, reference

ARITHMETIC = ["Add", "Subtract", "Multiply", "Divide", "Power", "Maximum", "Minimum",
              "SquaredDifference", "FloorMod", "Mod"]
COMPARISON = ["Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"]
LOGICAL = ["LogicalAnd", "LogicalOr", "LogicalXor"]
BINARY = ARITHMETIC + COMPARISON + LOGICAL

_SNAKE = {"SquaredDifference": "squared_difference", "FloorMod": "floor_mod", "NotEqual": "not_equal",
          "LessEqual": "less_equal", "GreaterEqual": "greater_equal", "LogicalAnd": "logical_and",
          "LogicalOr": "logical_or", "LogicalXor": "logical_xor"}


def snake(name: str) -> str:
    return _SNAKE.get(name, name.lower())


def gr_op(name: str, mode: str = "numpy", axis: int | None = None, **attrs):
    extra = dict(attrs)
    if axis is not None:
        extra["auto_broadcast_axis"] = axis
    return lambda a, b: opset.make(name, a, b, auto_broadcast=mode, **extra)


def ov_op(name: str, mode: str = "numpy", axis: int | None = None, **attrs):
    from openvino import opset1

    def build(a, b):
        if not attrs and axis is None:
            return getattr(opset1, snake(name))(a, b, mode)
        # the factory validates at once: build on (a, a), set the attributes, then connect b
        node = getattr(opset1, snake(name))(a, a, mode)
        for key, value in attrs.items():
            node.set_attribute(key, value)
        if axis is not None:
            node.set_attribute("auto_broadcast.auto_broadcast_axis", axis)
        node.set_argument(1, b.output(0) if hasattr(b, "get_output_size") else b)
        node.validate_and_infer_types()
        return node

    return build


def family_dtype(name: str) -> str:
    return "boolean" if name in LOGICAL else "f32"


# --- shapes ----------------------------------------------------------------------------------
NUMPY_SHAPES = [
    ("[2,3]", "[2,3]"), ("[2,3]", "[3]"), ("[4,1,5]", "[3,1]"), ("[]", "[2,3]"), ("[1]", "[0]"),
    ("[?,3]", "[2,?]"), ("[?]", "[1]"), ("[?]", "[5]"), ("[1..10,4]", "[5,1]"), ("[1..10]", "[1..3]"),
    ("[2..10]", "[5..20]"), ("[1..3]", "[2..5]"), ("[0..10]", "[?]"), ("[...]", "[2,3]"),
    ("[2,3]", "[...]"), ("[0]", "[?]"),
    # errors
    ("[2,3]", "[4]"), ("[2..4]", "[6..8]"), ("[0]", "[3]"), ("[2,3]", "[3,3]"),
]
NONE_SHAPES = [("[2,3]", "[2,3]"), ("[?,3]", "[2,?]"), ("[1..10]", "[5..20]"), ("[...]", "[2,3]"),
               ("[2,3]", "[3]"), ("[1..10]", "[11..20]"), ("[1]", "[3]")]
PDPD_SHAPES = [("[2,3,4]", "[2,3]"), ("[2,3,4]", "[2,3,4]"), ("[2,3,4]", "[1,3]"), ("[2,3,4]", "[3,4]"),
               ("[?,3,4]", "[5,3]"), ("[1..4]", "[5]"), ("[2,3]", "[2,3,4]"), ("[2,3]", "[...]"),
               ("[2]", "[]")]


def _shape_case(ov, name: str, mode: str, a: str, b: str, axis: int | None = None) -> None:
    dt = family_dtype(name)
    inputs = [Param(a, dt), Param(b, dt)]
    try:
        check(ov, gr_op(name, mode, axis), ov_op(name, mode, axis), inputs)
    except InferenceError:
        gr_msg, ov_msg = infer_error(ov, gr_op(name, mode, axis), ov_op(name, mode, axis), inputs)
        assert "Argument shapes are inconsistent" in ov_msg
        assert "Argument shapes are inconsistent" in gr_msg and a in gr_msg and b in gr_msg


@pytest.mark.parametrize("a,b", NUMPY_SHAPES)
@pytest.mark.parametrize("name", ["Add", "Less", "LogicalOr"])
def test_numpy_broadcast_shapes_match_openvino(ov, name: str, a: str, b: str) -> None:
    _shape_case(ov, name, "numpy", a, b)


@pytest.mark.parametrize("a,b", NONE_SHAPES)
@pytest.mark.parametrize("name", ["Multiply", "Equal", "LogicalAnd"])
def test_none_broadcast_shapes_match_openvino(ov, name: str, a: str, b: str) -> None:
    _shape_case(ov, name, "none", a, b)


@pytest.mark.parametrize("axis", [None, -1, 1])
@pytest.mark.parametrize("a,b", PDPD_SHAPES)
def test_pdpd_broadcast_shapes_match_openvino(ov, a: str, b: str, axis: int | None) -> None:
    _shape_case(ov, "Subtract", "pdpd", a, b, axis)


@pytest.mark.parametrize("name", BINARY)
def test_every_op_infers_like_openvino(ov, name: str) -> None:
    for a, b in [("[?,1,4]", "[3,1]"), ("[1..5,2]", "[...]"), ("[2,3]", "[2,3]")]:
        _shape_case(ov, name, "numpy", a, b)


# --- element types ---------------------------------------------------------------------------
TYPES = ["f32", "f16", "bf16", "f64", "i8", "u8", "i32", "i64", "u64", "boolean", "dynamic"]


@pytest.mark.parametrize("name", BINARY)
def test_element_type_rules_match_openvino(ov, name: str) -> None:
    for dt in TYPES:
        inputs = [Param("[2]", dt), Param("[2]", dt)]
        try:
            check(ov, gr_op(name), ov_op(name), inputs)
        except InferenceError:
            gr_msg, ov_msg = infer_error(ov, gr_op(name), ov_op(name), inputs)
            head = ov_msg.split("(")[0].strip().rstrip(".")
            assert head in gr_msg, (gr_msg, ov_msg)
    for a, b in [("i32", "f32"), ("boolean", "u8"), ("f16", "f32")]:
        gr_msg, ov_msg = infer_error(ov, gr_op(name), ov_op(name), [Param("[2]", a), Param("[2]", b)])
        if name in LOGICAL and "same element type" not in ov_msg:
            assert "must have boolean element type" in ov_msg and "boolean element type" in gr_msg
        else:
            assert "Arguments do not have the same element type" in ov_msg
            assert f"arg0 element type: {a}, arg1 element type: {b}" in gr_msg
            assert "[2]" in gr_msg


def test_logical_not_keeps_any_type_like_openvino(ov) -> None:
    from openvino import opset1

    for dt in TYPES:
        check(ov, lambda x: opset.logical_not(x), lambda x: opset1.logical_not(x), [Param("[?,2..3]", dt)])


# --- values on CPU ---------------------------------------------------------------------------
#: ops whose integer results on CPU are not the spec's (CPU divides through floats, saturates u8)
_CPU_INT_EXACT = {"Add", "Multiply", "Maximum", "Minimum", "FloorMod", "Mod", "Power"}


def _values(name: str, dtype: str, shape: tuple[int, ...], seed: int, operand: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if name == "Power" and dtype not in ("boolean",):
        if operand == 0:
            return random_array(shape, dtype, rng, 1, 3)
        return random_array(shape, dtype, rng, 0, 3)
    x = random_array(shape, dtype, rng, -4, 4)
    if operand == 1 and name in ("Divide", "FloorMod", "Mod"):
        x = np.where(np.abs(x.astype(np.float32)) < 0.5, np.asarray(2, x.dtype), x).astype(x.dtype)
    return x


@pytest.mark.parametrize("dtype", ["f32", "f16", "i32", "i8", "u8"])
@pytest.mark.parametrize("shapes", [((2, 3, 4), (3, 1)), ((1, 5), (4, 1))])
def test_arithmetic_values_match_openvino_cpu(ov, dtype: str, shapes) -> None:
    """All ops in one model per case (one CPU compile): Power gets its own positive operands."""
    names = ARITHMETIC if dtype.startswith("f") else [n for n in ARITHMETIC if n in _CPU_INT_EXACT]
    others = [n for n in names if n != "Power"]
    sa, sb = shapes
    values = [_values("Divide", dtype, sa, 1, 0), _values("Divide", dtype, sb, 2, 1),
              _values("Power", dtype, sa, 3, 0), _values("Power", dtype, sb, 4, 1)]
    specs = [Param(str(list(s)).replace(" ", ""), dtype) for s in (sa, sb, sa, sb)]
    got = check(ov, lambda a, b, pa, pb: [gr_op(n)(a, b) for n in others] + [gr_op("Power")(pa, pb)],
                lambda a, b, pa, pb: [ov_op(n)(a, b) for n in others] + [ov_op("Power")(pa, pb)],
                specs, values)
    assert len(got) == len(names)


@pytest.mark.parametrize("dtype", ["f32", "f16", "i32", "u8", "boolean"])
def test_comparison_values_match_openvino_cpu(ov, dtype: str) -> None:
    rng = np.random.default_rng(3)
    a, b = random_array((3, 4), dtype, rng, -2, 2), random_array((4,), dtype, rng, -2, 2)
    check(ov, lambda x, y: [gr_op(n)(x, y) for n in COMPARISON],
          lambda x, y: [ov_op(n)(x, y) for n in COMPARISON], [Param("[?,4]", dtype), Param("[4]", dtype)],
          [a, b])


def test_logical_values_match_openvino_cpu(ov) -> None:
    from openvino import opset1

    rng = np.random.default_rng(4)
    a, b = rng.random((2, 3, 4)) > 0.5, rng.random((3, 1)) > 0.5
    check(ov, lambda x, y: [gr_op(n)(x, y) for n in LOGICAL] + [opset.logical_not(x)],
          lambda x, y: [ov_op(n)(x, y) for n in LOGICAL] + [opset1.logical_not(x)],
          [Param("[2,3,4]", "boolean"), Param("[3,1]", "boolean")], [a, b])


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_logical_not_on_numbers_matches_openvino_cpu(ov, dtype: str) -> None:
    from openvino import opset1

    x = np.array([0, 1, -2, 3, 0], dtype=np.float32 if dtype == "f32" else np.int32)
    got = check(ov, lambda v: opset.logical_not(v), lambda v: opset1.logical_not(v), [Param("[5]", dtype)], [x])
    np.testing.assert_array_equal(got[0], np.array([1, 0, 0, 0, 1], dtype=x.dtype))


@pytest.mark.parametrize("mode,axis,sb", [("pdpd", None, (2, 3)), ("pdpd", -1, (3, 4)), ("pdpd", 1, (3,)),
                                          ("none", None, (2, 3, 4))])
def test_pdpd_and_none_values_match_openvino_cpu(ov, mode: str, axis, sb) -> None:
    rng = np.random.default_rng(5)
    a, b = random_array((2, 3, 4), "f32", rng), random_array(sb, "f32", rng)
    got = check(ov, gr_op("Add", mode, axis), ov_op("Add", mode, axis),
                [Param("[2,3,4]"), Param(str(list(sb)).replace(" ", ""))], [a, b])
    start = 0 if axis is None else (3 - len(sb) if axis == -1 else axis)
    aligned = b.reshape((1,) * start + sb + (1,) * (3 - start - len(sb)))
    np.testing.assert_allclose(got[0], a + aligned, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["i64", "f64"])
def test_wide_types_are_exact(ov, dtype: str) -> None:
    big = np.array([2**40 + 3, -(2**40) - 7, 2**33], np.int64) if dtype == "i64" else \
        np.array([1e300, 1e-300, 1.0 / 3.0])
    small = np.array([3, 2, 5], big.dtype)
    specs = [Param("[3]", dtype), Param("[3]", dtype)]
    expected = {"Add": big + small, "Multiply": big * small,
                "Divide": big // small if dtype == "i64" else big / small,
                "FloorMod": np.mod(big, small), "Less": big < small}
    for name, want in expected.items():
        got = check(ov, gr_op(name), ov_op(name), specs, [big, small], expected=[want])
        assert got[0].dtype == want.dtype


# --- exact integer semantics: OpenVINO's reference evaluator is the oracle --------------------
def _reference(ov, name: str, a: np.ndarray, b: np.ndarray, **attrs) -> np.ndarray:
    got = reference(ov, ov_op(name, **attrs), [a, b])
    assert got is not None
    return got[0]


INT_A = np.array([7, -7, 7, -7, 3, 2, -2, 1, -1, 0, 9, -9], np.int32)
INT_B = np.array([2, 2, -2, -2, -1, -1, -1, -3, -3, 5, 3, -4], np.int32)


@pytest.mark.parametrize("name,attrs", [("Divide", {}), ("Divide", {"m_pythondiv": False}), ("FloorMod", {}),
                                        ("Mod", {}), ("Power", {}), ("Subtract", {}),
                                        ("Multiply", {})])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_semantics_match_openvino_reference(ov, name: str, attrs, dtype) -> None:
    a, b = INT_A.astype(dtype), INT_B.astype(dtype)
    want = _reference(ov, name, a, b, **attrs)
    got = opset.make(name, a, b, **attrs).tensor_type.value
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_squared_difference_is_exact_and_wraps() -> None:
    # OpenVINO has no reference evaluator for SquaredDifference: the spec's (a - b)^2 is the oracle
    a, b = np.array([5, -3, 100], np.int8), np.array([2, 4, -100], np.int8)
    got = opset.squared_difference(a, b).tensor_type.value
    np.testing.assert_array_equal(got, np.array([9, 49, (200 * 200) % 256 - 256 * ((200 * 200) % 256 > 127)], np.int8))
    assert got.dtype == np.int8


def test_unsigned_wraps_like_openvino_reference(ov) -> None:
    a, b = np.array([0, 3, 2**31 + 5, 7], np.uint32), np.array([2, 1, 3, 2], np.uint32)
    for name in ("Subtract", "Add", "Multiply", "Divide", "FloorMod"):
        np.testing.assert_array_equal(opset.make(name, a, b).tensor_type.value, _reference(ov, name, a, b))


def test_integer_division_by_zero_is_an_error_naming_the_node() -> None:
    x = opset.parameter("[2]", "i32", name="x")
    y = opset.parameter("[2]", "i32", name="y")
    model = Model([opset.divide(x, y, name="div")], [x, y])
    with pytest.raises(EvaluationError, match=r"div.*integer division by zero"):
        model.run([np.array([1, 2], np.int32), np.array([1, 0], np.int32)])
    folded = opset.floor_mod(np.array([1, 2], np.int32), np.array([0, 1], np.int32))
    assert folded.tensor_type.value is None and str(folded.shape) == "[2]"
    floats = opset.divide(np.array([1.0, -1.0], np.float32), np.array([0.0, 0.0], np.float32))
    np.testing.assert_array_equal(floats.tensor_type.value, [np.inf, -np.inf])


# --- folding, attributes, errors -------------------------------------------------------------
def test_constant_inputs_fold_and_parameters_do_not() -> None:
    c = opset.add(np.array([1, 2, 3], np.int64), np.array([10], np.int64))
    np.testing.assert_array_equal(c.tensor_type.value, [11, 12, 13])
    assert c.tensor_type.value.dtype == np.int64
    less = opset.less(c, np.array([12], np.int64))
    np.testing.assert_array_equal(less.tensor_type.value, [True, False, False])
    p = opset.parameter("[3]", "i64")
    assert opset.add(p, c).tensor_type.value is None
    big = opset.add(np.zeros(5000, np.float32), np.float32(1))
    assert big.tensor_type.value is None and str(big.shape) == "[5000]"


def test_attributes_and_ir_names() -> None:
    from graphir.ops.registry import lookup

    div = lookup("openvino", "Divide", "opset13")
    assert div.version == "opset1" and div().m_pythondiv is True
    add = lookup("openvino", "Add")(auto_broadcast="pdpd", **{"auto_broadcast.auto_broadcast_axis": -1})
    assert add.auto_broadcast_axis == -1
    assert add.model_dump(by_alias=True) == {"auto_broadcast": "pdpd", "auto_broadcast.auto_broadcast_axis": -1}
    with pytest.raises(Exception, match="auto_broadcast"):
        lookup("openvino", "Add")(auto_broadcast="bogus")


def test_none_mode_rejects_mismatched_arrays_at_run_time() -> None:
    x = opset.parameter("[?]", "f32", name="x")
    y = opset.parameter("[?]", "f32", name="y")
    add = opset.add(x, y, auto_broadcast="none")
    model = Model([add], [x, y])
    # a run shape-infers its concrete input shapes first: the Add is named with what it receives
    with pytest.raises(InferenceError) as info:
        model.run([np.ones(2, np.float32), np.ones(3, np.float32)])
    assert str(info.value) == (
        f"node {add.node.id} '{add.node.name}' (Add-opset1), inputs (f32[2], f32[3]): openvino::Add-opset1: "
        "Argument shapes are inconsistent: input 0 ('A') [2] and input 1 ('B') [3] (none: shapes must be equal) "
        "(shape inference for the run's input shapes: x [2], y [3])")
    # the kernel's own check still holds for a direct call
    with pytest.raises(Exception, match=r"\[2\] and \[3\] differ"):
        add.node.op.evaluate(np.ones(2, np.float32), np.ones(3, np.float32))


def _generated_shape_pairs(count: int, seed: int) -> list[tuple[str, str]]:
    """A seeded sample of rank-0..3 shape pairs over static, dynamic and interval dims."""
    import itertools

    dims = ["1", "3", "0", "?", "1..4", "2..5", "4..", "..2"]
    shapes = ["[]"] + ["[" + ",".join(c) + "]" for r in (1, 2, 3) for c in itertools.product(dims, repeat=r)]
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(shapes), size=(count, 2))
    return [(shapes[i], shapes[j]) for i, j in picks]


@pytest.mark.parametrize("mode", ["numpy", "none"])
def test_generated_shape_grid_matches_openvino(ov, mode: str) -> None:
    for a, b in _generated_shape_pairs(400, seed=1 if mode == "numpy" else 2):
        _shape_case(ov, "Add", mode, a, b)
