"""Convert/ConvertLike and the shape ops (ShapeOf, Reshape, Squeeze, Unsqueeze, Transpose, Concat,
Broadcast, Tile) against OpenVINO 2026: inferred shapes over grids with dynamic, interval and
dynamic-rank inputs, value-dependent shapes through constants and shape subgraphs, errors, and
CPU values."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError
from tests.ops.ov_diff import Const, Param, check, infer_error, random_array, reference


def ovs():
    from openvino import opset1, opset3, opset13, opset15

    return opset1, opset3, opset13, opset15


def factory(opset_name: str, type_name: str, attrs: dict | None = None):
    """An openvino node from explicit inputs and IR attributes (no Python-API defaults added)."""
    def build(*inputs):
        from openvino.utils.node_factory import NodeFactory

        return NodeFactory(opset_name).create(type_name, [i.output(0) for i in inputs], attrs or {})

    return build


def gr(type_name: str, version: str | None = None, **attrs):
    return lambda *inputs: opset.make(type_name, *inputs, version=version, **attrs)


def same(ov, type_name: str, version: str, attrs: dict, inputs, values=None, **kw):
    """The op built from the same attributes in both."""
    return check(ov, gr(type_name, version, **attrs), factory(version, type_name, _ov_attrs(attrs)), inputs,
                 values, **kw)


def _ov_attrs(attrs: dict) -> dict:
    return {k: (str(v) if k in ("destination_type", "output_type") else v) for k, v in attrs.items()}


def agree_or_both_fail(ov, type_name: str, version: str, attrs: dict, inputs) -> str | None:
    """Both infer the same, or both reject; returns graphir's message when they reject."""
    try:
        same(ov, type_name, version, attrs, inputs)
        return None
    except InferenceError:
        gr_msg, ov_msg = infer_error(ov, gr(type_name, version, **attrs),
                                     factory(version, type_name, _ov_attrs(attrs)), inputs)
        return gr_msg + " || " + ov_msg


# --- Convert ---------------------------------------------------------------------------------
CONVERT_SRC = np.array([-300.7, -129.5, -1.7, -0.5, 0.5, 1.5, 2.5, 127.6, 255.5, 300.2, 70000.0], np.float32)


@pytest.mark.parametrize("dst", ["i8", "u8", "i32", "u16", "f16", "bf16", "boolean", "f32"])
def test_convert_from_f32_matches_openvino_cpu(ov, dst: str) -> None:
    got = same(ov, "Convert", "opset1", {"destination_type": dst}, [Param("[11]", "f32")], [CONVERT_SRC])
    if dst == "i8":
        np.testing.assert_array_equal(got[0], [-44, 127, -1, 0, 0, 1, 2, 127, -1, 44, 112])


@pytest.mark.parametrize("src,dst", [("i32", "i8"), ("i32", "u8"), ("i32", "boolean"), ("u8", "i32"),
                                     ("boolean", "f32"), ("f16", "i32"), ("i8", "f16"), ("i32", "f32")])
def test_convert_between_types_matches_openvino_cpu(ov, src: str, dst: str) -> None:
    x = random_array((3, 4), src, np.random.default_rng(1), -300, 300)
    same(ov, "Convert", "opset1", {"destination_type": dst}, [Param("[?,4]", src)], [x])


def test_convert_to_and_from_wide_types_is_exact(ov) -> None:
    x = np.array([2**40 + 5, -(2**33), 7], np.int64)
    same(ov, "Convert", "opset1", {"destination_type": "f64"}, [Param("[3]", "i64")], [x],
         expected=[x.astype(np.float64)])
    f = np.array([1e12 + 0.7, -3.9, np.nan])
    want = np.array([1000000000000, -3, np.iinfo(np.int64).min])
    same(ov, "Convert", "opset1", {"destination_type": "i64"}, [Param("[3]", "f64")], [f], expected=[want])
    ref = reference(ov, factory("opset1", "Convert", {"destination_type": "i64"}), [f])
    np.testing.assert_array_equal(ref[0], want)


def test_convert_like_takes_the_like_type(ov) -> None:
    x = random_array((2, 3), "f32", np.random.default_rng(2), -9, 9)
    like = np.zeros((1,), np.int8)
    got = check(ov, lambda a, b: opset.convert_like(a, b), factory("opset1", "ConvertLike"),
                [Param("[2,?]", "f32"), Param("[1]", "i8")], [x, like])
    assert got[0].dtype == np.int8
    check(ov, lambda a, b: opset.convert_like(a, b), factory("opset1", "ConvertLike"),
          [Param("[...]", "f32"), Param("[...]", "dynamic")])


# --- ShapeOf and shape subgraphs --------------------------------------------------------------
@pytest.mark.parametrize("shape", ["[2,3]", "[?,3]", "[1..5,?,2]", "[...]", "[]"])
@pytest.mark.parametrize("version,attrs", [("opset1", {}), ("opset3", {"output_type": "i32"}),
                                           ("opset3", {"output_type": "i64"})])
def test_shape_of_matches_openvino(ov, shape: str, version: str, attrs: dict) -> None:
    same(ov, "ShapeOf", version, attrs, [Param(shape)])


def _flatten_subgraph(ops_mod, const, x, gather, concat, shape_of):
    s = shape_of(x)
    g = gather(s, const(np.array([0], np.int64)), const(np.int64(0)))
    c = concat([g, const(np.array([-1], np.int64))])
    return s, g, c


@pytest.mark.parametrize("shape", ["[?,3,4]", "[2,3,4]", "[1..8,?,4]", "[2,?,?]"])
def test_shape_subgraph_folds_like_openvino(ov, shape: str) -> None:
    """ShapeOf -> Gather -> Concat -> Reshape / Broadcast, the pattern PyTorch conversions emit."""
    opset1, opset3, opset13, _ = ovs()

    def build_gr(x):
        s = opset.make("ShapeOf", x, version="opset3")
        g = opset.make("Gather", s, np.array([0], np.int64), np.int64(0), version="opset8")
        c = opset.make("Concat", g, np.array([-1], np.int64), axis=0)
        s2 = opset.make("Gather", s, np.array([2, 1], np.int64), np.int64(0), version="opset8")
        b = opset.make("Broadcast", np.float32(1.0), opset.make("Concat", s2, axis=0), version="opset3")
        return [s, g, c, opset.reshape(x, c, special_zero=False), opset.reshape(x, np.array([0, -1]), special_zero=True), b]

    def build_ov(x):
        s = opset3.shape_of(x)
        g = opset13.gather(s, opset13.constant(np.array([0], np.int64)), opset13.constant(np.int64(0)))
        c = opset1.concat([g, opset13.constant(np.array([-1], np.int64))], 0)
        s2 = opset13.gather(s, opset13.constant(np.array([2, 1], np.int64)), opset13.constant(np.int64(0)))
        b = opset3.broadcast(opset13.constant(np.float32(1.0)), opset1.concat([s2], 0))
        return [s, g, c, opset1.reshape(x, c, False), opset1.reshape(x, opset13.constant(np.array([0, -1])), True), b]

    values = None
    if "?" not in shape and ".." not in shape:
        values = [random_array((2, 3, 4), "f32", np.random.default_rng(0))]
        out = check(ov, build_gr, build_ov, [Param(shape)], values, expected=None, cpu=False)
        assert out[3].shape == (2, 12)
    check(ov, build_gr, build_ov, [Param(shape)])
    s = opset.make("ShapeOf", opset.parameter(shape), version="opset3")
    if "..." not in shape:
        assert s.tensor_type.value is not None or s.tensor_type.bounds is not None


def test_shape_values_flow_through_arithmetic_and_convert() -> None:
    x = opset.parameter("[2,3,4]")
    s = opset.make("ShapeOf", x, version="opset3", output_type="i32")
    doubled = opset.multiply(s, np.array([2], np.int32))
    np.testing.assert_array_equal(doubled.tensor_type.value, [4, 6, 8])
    c = opset.convert(s, destination_type="i64")
    np.testing.assert_array_equal(c.tensor_type.value, [2, 3, 4])
    y = opset.parameter("[?,3]")
    sy = opset.convert(opset.shape_of(y), destination_type="i32")
    assert sy.tensor_type.value is None and sy.tensor_type.bounds[1] == 3


# --- Reshape ---------------------------------------------------------------------------------
RESHAPE_CASES = [
    ("[2,3,4]", [0, -1], True), ("[2,3,4]", [0, -1], False), ("[?,3,4]", [0, -1], True), ("[?,3,4]", [-1, 12], True),
    ("[1..10,4]", [-1, 2], True), ("[1..10,4]", [-1, 3], True), ("[2,3,4]", [5, -1], True), ("[2,3,4]", [-1, -1], True),
    ("[2,3,4]", [-2, 12], True), ("[0,3]", [-1, 0], False), ("[0,3]", [3, -1], False), ("[2,3]", [4], False),
    ("[2,3]", [0, 0, 0], True), ("[...]", [0, -1, 6], True), ("[2,3,4]", [24], False), ("[2,3]", [], False),
    ("[1]", [], False), ("[?,?]", [-1], True), ("[2,?,4]", [0, 0, 2, 2], True), ("[2,3,4]", [1, 1, -1], True),
]


@pytest.mark.parametrize("shape,pattern,special_zero", RESHAPE_CASES)
def test_reshape_matches_openvino(ov, shape: str, pattern, special_zero: bool) -> None:
    inputs = [Param(shape), Const(np.array(pattern, np.int64))]
    agree_or_both_fail(ov, "Reshape", "opset1", {"special_zero": special_zero}, inputs)


@pytest.mark.parametrize("pattern_shape,dtype", [("[2]", "i64"), ("[?]", "i64"), ("[]", "i32"), ("[3]", "i32")])
def test_reshape_with_unknown_pattern_matches_openvino(ov, pattern_shape: str, dtype: str) -> None:
    agree_or_both_fail(ov, "Reshape", "opset1", {"special_zero": True}, [Param("[2,3,4]"), Param(pattern_shape, dtype)])


def test_reshape_errors_name_shapes(ov) -> None:
    msg = agree_or_both_fail(ov, "Reshape", "opset1", {"special_zero": False},
                             [Param("[2,3]"), Const(np.array([4], np.int64))])
    assert "Requested output shape [4] is incompatible with input shape [2,3]" in msg
    msg = agree_or_both_fail(ov, "Reshape", "opset1", {"special_zero": False},
                             [Param("[2,3]"), Const(np.array([6.0], np.float32))])
    assert "PartialShape pattern must be an integral number" in msg


def test_reshape_values_on_cpu(ov) -> None:
    x = random_array((2, 3, 4), "f32", np.random.default_rng(3))
    got = same(ov, "Reshape", "opset1", {"special_zero": True}, [Param("[?,3,4]"), Const(np.array([0, -1, 2]))], [x])
    np.testing.assert_array_equal(got[0], x.reshape(2, 6, 2))


# --- Squeeze / Unsqueeze ---------------------------------------------------------------------
SQUEEZE_CASES = [
    ("[1,?,3,1]", None), ("[1,2..3,1]", None), ("[1,3,1]", None), ("[2,3]", None), ("[...]", None), ("[]", None),
    ("[0..1,3]", None), ("[?,3]", [0]), ("[2,3]", [0]), ("[1,3]", [0, -2]), ("[1,3,1]", []), ("[1..10,3]", [0]),
    ("[1,3]", [2]), ("[...]", [0]), ("[2..3,3]", [0]), ("[]", [0]), ("[1,1,1]", [-1, 0]),
]


@pytest.mark.parametrize("shape,axes", SQUEEZE_CASES)
@pytest.mark.parametrize("version,attrs", [("opset1", {}), ("opset15", {"allow_axis_skip": False}),
                                           ("opset15", {"allow_axis_skip": True})])
def test_squeeze_matches_openvino(ov, shape: str, axes, version: str, attrs: dict) -> None:
    inputs = [Param(shape)] + ([Const(np.array(axes, np.int64))] if axes is not None else [])
    agree_or_both_fail(ov, "Squeeze", version, attrs, inputs)


@pytest.mark.parametrize("axes_shape", ["[1]", "[2]", "[]"])
def test_squeeze_with_unknown_axes_matches_openvino(ov, axes_shape: str) -> None:
    same(ov, "Squeeze", "opset1", {}, [Param("[1,3,1]"), Param(axes_shape, "i64")])


UNSQUEEZE_CASES = [("[2,3]", [0, -1]), ("[2,3]", [0, 0]), ("[2,3]", [3]), ("[]", [0]), ("[?,3]", [1]),
                   ("[...]", [0]), ("[2]", [-1, -2, 0])]


@pytest.mark.parametrize("shape,axes", UNSQUEEZE_CASES)
def test_unsqueeze_matches_openvino(ov, shape: str, axes) -> None:
    agree_or_both_fail(ov, "Unsqueeze", "opset1", {}, [Param(shape), Const(np.array(axes, np.int64))])


def test_squeeze_unsqueeze_values_on_cpu(ov) -> None:
    x = random_array((1, 3, 1, 2), "f32", np.random.default_rng(4))
    got = same(ov, "Squeeze", "opset1", {}, [Param("[1,3,1,2]"), Const(np.array([0, 2]))], [x])
    assert got[0].shape == (3, 2)
    got = same(ov, "Unsqueeze", "opset1", {}, [Param("[1,3,1,2]"), Const(np.array([-1, 0]))], [x])
    assert got[0].shape == (1, 1, 3, 1, 2, 1)


# --- Transpose -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,order", [("[2,?,4]", []), ("[2,?,4]", [0, 0, 1]), ("[2,?,4]", [-1, 0, 1]),
                                         ("[2,?,4]", [1, 0]), ("[2,3,4]", [2, 0, 1]), ("[...]", [1, 0]),
                                         ("[1..3,4]", [1, 0]), ("[]", [])])
def test_transpose_matches_openvino(ov, shape: str, order) -> None:
    agree_or_both_fail(ov, "Transpose", "opset1", {}, [Param(shape), Const(np.array(order, np.int64))])


def test_transpose_unknown_order_and_values(ov) -> None:
    same(ov, "Transpose", "opset1", {}, [Param("[2,?,4]"), Param("[3]", "i64")])
    x = random_array((2, 3, 4), "f32", np.random.default_rng(5))
    got = same(ov, "Transpose", "opset1", {}, [Param("[2,3,4]"), Const(np.array([2, 0, 1]))], [x])
    np.testing.assert_array_equal(got[0], x.transpose(2, 0, 1))


# --- Concat ----------------------------------------------------------------------------------
CONCAT_CASES = [
    (["[2,?]", "[?,3]", "[1..3,3]"], 0), (["[2,?]", "[2,3]"], -1), (["[2,4]", "[3,3]"], 1), (["[2,4]", "[2,3,1]"], 1),
    (["[2,4]", "[2,3]"], 2), (["[...]", "[2,3]"], 1), (["[]", "[]"], 0), (["[...]", "[...]"], 0), (["[2,3]"], 0),
]


@pytest.mark.parametrize("shapes,axis", CONCAT_CASES)
def test_concat_matches_openvino(ov, shapes, axis: int) -> None:
    agree_or_both_fail(ov, "Concat", "opset1", {"axis": axis}, [Param(s) for s in shapes])


def test_concat_types_and_values(ov) -> None:
    msg = agree_or_both_fail(ov, "Concat", "opset1", {"axis": 1}, [Param("[2,4]"), Param("[2,3]", "i32")])
    assert "Argument element types are inconsistent" in msg and "i32[2,3]" in msg
    rng = np.random.default_rng(6)
    xs = [random_array((2, n), "f32", rng) for n in (1, 3, 2)]
    got = same(ov, "Concat", "opset1", {"axis": -1}, [Param(f"[2,{n}]") for n in (1, 3, 2)], xs)
    np.testing.assert_array_equal(got[0], np.concatenate(xs, axis=1))


# --- Broadcast -------------------------------------------------------------------------------
BROADCAST_CASES = [
    ("[2,3]", [2, 3]), ("[2,1]", [2, 4]), ("[3]", [2, 3]), ("[2,3]", [3]), ("[?,1]", [2, 3, 4]), ("[?,1]", [1, 1, 4]),
    ("[1,1]", [5]), ("[...]", [2, 3]), ("[4]", [2, 3]), ("[]", [2, 2]),
]


@pytest.mark.parametrize("shape,target", BROADCAST_CASES)
@pytest.mark.parametrize("version,mode", [("opset3", "numpy"), ("opset3", "bidirectional"), ("opset1", "numpy")])
def test_broadcast_matches_openvino(ov, shape: str, target, version: str, mode: str) -> None:
    agree_or_both_fail(ov, "Broadcast", version, {"mode": mode}, [Param(shape), Const(np.array(target, np.int64))])


@pytest.mark.parametrize("shape,target_shape,mode", [("[3]", "[2]", "numpy"), ("[3,1]", "[3]", "bidirectional"),
                                                      ("[3]", "[?]", "numpy")])
def test_broadcast_unknown_target_matches_openvino(ov, shape: str, target_shape: str, mode: str) -> None:
    same(ov, "Broadcast", "opset3", {"mode": mode}, [Param(shape), Param(target_shape, "i64")])


def test_broadcast_explicit_and_values(ov) -> None:
    same(ov, "Broadcast", "opset3", {"mode": "explicit"},
         [Param("[3]"), Const(np.array([2, 3, 4])), Const(np.array([1]))])
    msg = agree_or_both_fail(ov, "Broadcast", "opset3", {"mode": "explicit"},
                             [Param("[3]"), Const(np.array([2, 3, 4])), Const(np.array([0]))])
    assert "Broadcast target[axes_mapping[0]] Expected 3. Got 2" in msg
    x = random_array((3, 1), "f32", np.random.default_rng(7))
    for mode, target in (("numpy", [2, 3, 4]), ("bidirectional", [2, 1, 5])):
        got = same(ov, "Broadcast", "opset3", {"mode": mode}, [Param("[3,1]"), Const(np.array(target))], [x])
        assert got[0].shape == np.broadcast_shapes((3, 1), tuple(target))
    e = random_array((3,), "f32", np.random.default_rng(8))
    got = same(ov, "Broadcast", "opset3", {"mode": "explicit"},
               [Param("[3]"), Const(np.array([2, 3, 4])), Const(np.array([1]))], [e])
    np.testing.assert_array_equal(got[0][1, :, 2], e)


@pytest.mark.parametrize("version", ["opset1", "opset3"])
@pytest.mark.parametrize("target,axes", [([1, 2], [0]), ([2, 1], [1]), ([2, 2], [0]), ([3, 1, 4], [1]), ([2], [0, 1])])
def test_broadcast_explicit_scalar_data_is_rank_one(ov, version: str, target, axes) -> None:
    """OpenVINO takes scalar data as [1] in explicit mode (op_reference's broadcast_scalar_vector_explicit):
    one axis in axes_mapping, whose target dim must be 1."""
    x = np.float32(6.5)
    msg = agree_or_both_fail(ov, "Broadcast", version, {"mode": "explicit"},
                             [Param("[]"), Const(np.array(target, np.int64)), Const(np.array(axes, np.int64))])
    if msg is None:
        got = same(ov, "Broadcast", version, {"mode": "explicit"},
                   [Param("[]"), Const(np.array(target, np.int64)), Const(np.array(axes, np.int64))], [x])
        np.testing.assert_array_equal(got[0], np.full(target, 6.5, np.float32))
    assert (msg is None) == (target in ([1, 2], [2, 1], [3, 1, 4]))


# --- Tile ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,repeats", [("[2,?]", [2, 3, 1]), ("[2,3,4]", [2]), ("[2,3,4]", [-2]),
                                           ("[1..3]", [2]), ("[...]", [2]), ("[]", [3]), ("[2,3]", [])])
def test_tile_matches_openvino(ov, shape: str, repeats) -> None:
    agree_or_both_fail(ov, "Tile", "opset1", {}, [Param(shape), Const(np.array(repeats, np.int64))])


def test_tile_unknown_repeats_and_values(ov) -> None:
    same(ov, "Tile", "opset1", {}, [Param("[2,?]"), Param("[3]", "i64")])
    x = random_array((2, 3), "i32", np.random.default_rng(9))
    got = same(ov, "Tile", "opset1", {}, [Param("[2,3]", "i32"), Const(np.array([2, 1, 2]))], [x])
    np.testing.assert_array_equal(got[0], np.tile(x, (2, 1, 2)))


@pytest.mark.parametrize("shape", ["[?,?,32]", "[2..6,?,32]", "[3,5,32]"])
def test_shape_arithmetic_keeps_bounds_like_openvino(ov, shape: str) -> None:
    """The attention reshape PyTorch emits: [B, H, L, D/H] from ShapeOf, Multiply, Divide, Concat."""
    opset1, opset3, opset13, _ = ovs()
    c = lambda v: np.array(v, np.int64)  # noqa: E731

    def build_gr(x):
        s = opset.make("ShapeOf", x, version="opset3")
        batch = opset.make("Gather", s, c([0]), c(0), version="opset8")
        heads = opset.multiply(batch, c([4]))
        depth = opset.divide(opset.make("Gather", s, c([2]), c(0), version="opset8"), c([4]))
        length = opset.add(opset.make("Gather", s, c([1]), c(0), version="opset8"), c([0]))
        pattern = opset.make("Concat", heads, length, depth, axis=0)
        return [heads, depth, pattern, opset.reshape(x, pattern, False), opset.reshape(x, opset.make(
            "Concat", batch, c([4]), length, depth, axis=0), False)]

    def build_ov(x):
        s = opset3.shape_of(x)
        g = lambda i: opset13.gather(s, opset13.constant(c([i])), opset13.constant(c(0)))  # noqa: E731
        heads = opset1.multiply(g(0), opset13.constant(c([4])))
        depth = opset1.divide(g(2), opset13.constant(c([4])))
        length = opset1.add(g(1), opset13.constant(c([0])))
        pattern = opset1.concat([heads, length, depth], 0)
        return [heads, depth, pattern, opset1.reshape(x, pattern, False), opset1.reshape(x, opset1.concat(
            [g(0), opset13.constant(c([4])), length, depth], 0), False)]

    check(ov, build_gr, build_ov, [Param(shape)])
    out = build_gr(opset.parameter(shape))
    assert out[1].tensor_type.value is not None or out[1].tensor_type.bounds == (8,)


def test_older_and_newer_versions_run_like_openvino_cpu(ov) -> None:
    """Values of the versions the grids above check only for shapes."""
    rng = np.random.default_rng(12)
    x = random_array((1, 3, 1, 2), "f32", rng)
    for version, attrs, dtype in (("opset1", {}, np.int64), ("opset3", {"output_type": "i32"}, np.int32)):
        same(ov, "ShapeOf", version, attrs, [Param("[1,3,1,2]")], [x], expected=[np.array([1, 3, 1, 2], dtype)])
    got = same(ov, "Squeeze", "opset15", {"allow_axis_skip": True}, [Param("[1,3,1,2]"), Const(np.array([0, 1]))], [x])
    assert got[0].shape == (3, 1, 2)
    same(ov, "Broadcast", "opset1", {"mode": "numpy"}, [Param("[1,3,1,2]"), Const(np.array([2, 3, 4, 2]))], [x])
    data = random_array((5, 4), "f32", rng)
    same(ov, "Gather", "opset1", {}, [Param("[5,4]"), Param("[2]", "i32"), Const(np.int64(0))],
         [data, np.array([4, 1], np.int32)])
    for version in ("opset1", "opset3"):
        same(ov, "TopK", version, {"axis": 1, "mode": "min", "sort": "value", "index_element_type": "i32"},
             [Param("[5,4]"), Const(np.int64(2))], [np.arange(20, dtype=np.float32)[::-1].reshape(5, 4).copy()])


def test_large_repeating_broadcast_is_a_read_only_view_with_the_copied_values() -> None:
    from graphir.model import Model
    from graphir.ops.openvino.shape_ops import BROADCAST_VIEW_BYTES

    rows = np.arange(1000, dtype=np.int64).reshape(1000, 1, 1, 1)
    target = np.array([1000, 256, 7, 7], np.int64)
    p = opset.parameter([1000, 1, 1, 1], "i64")
    b = opset.make("Broadcast", p, opset.constant(target))
    doubled = opset.make("Add", b, b)
    out = Model([b, doubled], [p.node]).run([rows])
    got, twice = out.values()
    assert got.nbytes >= BROADCAST_VIEW_BYTES and not got.flags.writeable and got.base is not None
    np.testing.assert_array_equal(got, np.broadcast_to(rows, (1000, 256, 7, 7)))
    np.testing.assert_array_equal(twice, 2 * np.broadcast_to(rows, (1000, 256, 7, 7)))
    p = opset.parameter([1000, 1, 1, 1], "i64")  # a node belongs to one model: a new Parameter
    small = Model([opset.make("Broadcast", p, opset.constant(np.array([1000, 2, 1, 1], np.int64)))], [p.node]).run([rows])
    assert next(iter(small.values())).flags.writeable  # small outputs stay copies
    both = opset.make("Broadcast", p, opset.constant(np.array([1, 256, 7, 7], np.int64)), mode="bidirectional")
    got = next(iter(Model([both], [p.node]).run([rows]).values()))  # integers: x * 1 is x, a view
    assert not got.flags.writeable
    np.testing.assert_array_equal(got, rows * np.ones((1, 256, 7, 7), np.int64))
