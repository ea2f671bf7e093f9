"""Bitwise ops, Xor-1, IsNaN/IsInf/IsFinite-10, HardSigmoid-1, Selu-1, SoftSign-9, Identity-16,
Reverse-1, ReverseSequence-1, ShuffleChannels-1 and Eye-9 against OpenVINO 2026: type rules,
shapes, and values (CPU, or the reference evaluator where CPU is not exact)."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from tests.ops.ov_diff import Const, Param, random_array, reference
from tests.ops.test_shape_ops import agree_or_both_fail, factory, same

RNG = np.random.default_rng(31)
BITWISE = [("BitwiseAnd", "opset13"), ("BitwiseOr", "opset13"), ("BitwiseXor", "opset13")]


@pytest.mark.parametrize("name,version", BITWISE + [("BitwiseLeftShift", "opset15"), ("BitwiseRightShift", "opset15")])
@pytest.mark.parametrize("dtype", ["i32", "u8", "boolean", "f32", "i64"])
def test_bitwise_types_shapes_and_values(ov, name: str, version: str, dtype: str) -> None:
    attrs = {"auto_broadcast": "numpy"}
    inputs = [Param("[3,4]", dtype), Param("[4]", dtype)]
    msg = agree_or_both_fail(ov, name, version, attrs, inputs)
    if msg is not None:
        assert "must be integer" in msg
        return
    a = random_array((3, 4), dtype, RNG, 0, 100)
    b = random_array((4,), dtype, RNG, 0, 7 if "Shift" in name else 100)
    want = reference(ov, factory(version, name, attrs), [a, b])
    if dtype in ("i64",) or want is None:
        got = opset.make(name, a, b, version=version).tensor_type.value
        if want is not None:
            np.testing.assert_array_equal(got, want[0])
        return
    same(ov, name, version, attrs, inputs, [a, b])


def test_shift_past_the_width_matches_openvino_reference(ov) -> None:
    a = np.array([1, -8, 255, 7], np.int32)
    b = np.array([31, 2, 33, 0], np.int32)
    for name in ("BitwiseLeftShift", "BitwiseRightShift"):
        want = reference(ov, factory("opset15", name, {"auto_broadcast": "numpy"}), [a, b])[0]
        np.testing.assert_array_equal(opset.make(name, a, b).tensor_type.value, want[:4] if want.size else want)


def test_bitwise_not_and_xor1(ov) -> None:
    x = np.array([0, 5, 255], np.uint8)
    same(ov, "BitwiseNot", "opset13", {}, [Param("[3]", "u8")], [x])
    same(ov, "BitwiseNot", "opset13", {}, [Param("[2]", "boolean")], [np.array([True, False])])
    assert "must be integer or boolean" in agree_or_both_fail(ov, "BitwiseNot", "opset13", {}, [Param("[2]")])
    a, b = RNG.random((2, 3)) > 0.5, RNG.random((3,)) > 0.5
    same(ov, "Xor", "opset1", {"auto_broadcast": "numpy"}, [Param("[2,3]", "boolean"), Param("[3]", "boolean")], [a, b])


@pytest.mark.parametrize("name,attrs", [("IsNaN", {}), ("IsFinite", {}),
                                        ("IsInf", {"detect_negative": True, "detect_positive": True}),
                                        ("IsInf", {"detect_negative": False, "detect_positive": True}),
                                        ("IsInf", {"detect_negative": True, "detect_positive": False})])
@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_float_checks_match_openvino_cpu(ov, name: str, attrs: dict, dtype: str) -> None:
    x = np.array([0.0, np.nan, np.inf, -np.inf, -2.5, 7.0], dtype=np.float32 if dtype == "f32" else np.float16)
    same(ov, name, "opset10", attrs, [Param("[6]", dtype)], [x])
    msg = agree_or_both_fail(ov, name, "opset10", attrs, [Param("[2]", "i32")])
    assert "must be a floating point number" in msg


def test_hard_sigmoid_selu_soft_sign_match_openvino_cpu(ov) -> None:
    x = random_array((2, 5), "f32", RNG, -6, 6)
    same(ov, "HardSigmoid", "opset1", {}, [Param("[2,5]"), Const(np.float32(0.2)), Const(np.float32(0.5))], [x])
    same(ov, "Selu", "opset1", {}, [Param("[2,5]"), Const(np.array([1.67], np.float32)),
                                    Const(np.array([1.05], np.float32))], [x])
    same(ov, "SoftSign", "opset9", {}, [Param("[2,5]")], [x])
    same(ov, "SoftSign", "opset9", {}, [Param("[?,2..5]", "f16")])
    assert "must be float" in agree_or_both_fail(ov, "SoftSign", "opset9", {}, [Param("[2]", "i32")])
    msg = agree_or_both_fail(ov, "Selu", "opset1", {}, [Param("[2]", "i32"), Const(np.int32(1)), Const(np.int32(1))])
    assert "Input element types must be floating-point" in msg


def test_identity_copies_and_keeps_values(ov) -> None:
    x = random_array((2, 3), "i32", RNG)
    same(ov, "Identity", "opset16", {}, [Param("[2,?]", "i32")], [x])
    s = opset.identity(opset.shape_of(opset.parameter("[?,4]")))
    assert s.tensor_type.bounds[1] == 4


@pytest.mark.parametrize("mode,axes", [("index", [0, 2]), ("index", [-1]), ("index", []), ("mask", [True, False, True])])
def test_reverse_matches_openvino_cpu(ov, mode: str, axes) -> None:
    x = random_array((3, 4, 2), "f32", RNG)
    axes_arr = np.array(axes, np.bool_ if mode == "mask" else np.int64)
    got = same(ov, "Reverse", "opset1", {"mode": mode}, [Param("[3,4,2]"), Const(axes_arr)], [x])
    flipped = [i for i, f in enumerate(axes) if f] if mode == "mask" else [a % 3 for a in axes]
    np.testing.assert_array_equal(got[0], np.flip(x, tuple(flipped)) if flipped else x)
    msg = agree_or_both_fail(ov, "Reverse", "opset1", {"mode": "mask"}, [Param("[3,4,2]"), Const(np.array([True]))])
    assert "must match the input data tensor rank" in msg


@pytest.mark.parametrize("batch_axis,seq_axis", [(1, 0), (0, 1), (0, 2), (2, -3)])
def test_reverse_sequence_matches_openvino_cpu(ov, batch_axis: int, seq_axis: int) -> None:
    x = random_array((3, 4, 3), "f32", RNG)
    n = x.shape[batch_axis]
    lengths = np.array([1, 3, 2, 0][:n], np.int32)
    same(ov, "ReverseSequence", "opset1", {"batch_axis": batch_axis, "seq_axis": seq_axis},
         [Param("[3,4,3]"), Param(f"[{n}]", "i32")], [x, lengths])
    same(ov, "ReverseSequence", "opset1", {"batch_axis": 0, "seq_axis": 1}, [Param("[?,4]"), Param("[5]", "i32")])


@pytest.mark.parametrize("shape,axis,group", [("[1,6,2,2]", 1, 3), ("[2,4]", -1, 2), ("[1,6,2]", 1, 4), ("[?,6]", 1, 2)])
def test_shuffle_channels_matches_openvino(ov, shape: str, axis: int, group: int) -> None:
    msg = agree_or_both_fail(ov, "ShuffleChannels", "opset1", {"axis": axis, "group": group}, [Param(shape)])
    if msg is None and "?" not in shape:
        dims = tuple(int(v) for v in shape[1:-1].split(","))
        same(ov, "ShuffleChannels", "opset1", {"axis": axis, "group": group}, [Param(shape)],
             [random_array(dims, "f32", RNG)])


@pytest.mark.parametrize("rows,cols,k,batch", [(3, 4, 1, None), (4, 3, -1, [2]), (3, 3, 5, [2, 1]), (0, 2, 0, None)])
def test_eye_matches_openvino(ov, rows: int, cols: int, k: int, batch) -> None:
    inputs = [Const(np.int64(rows)), Const(np.int64(cols)), Const(np.int64(k))]
    if batch is not None:
        inputs.append(Const(np.array(batch, np.int64)))
    same(ov, "Eye", "opset9", {"output_type": "f32"}, inputs)
    args = [np.int64(rows), np.int64(cols), np.int64(k)] + ([np.array(batch, np.int64)] if batch is not None else [])
    want = reference(ov, factory("opset9", "Eye", {"output_type": "f32"}), args)[0]
    np.testing.assert_array_equal(opset.make("Eye", *args, output_type="f32").tensor_type.value, want)
    same(ov, "Eye", "opset9", {"output_type": "i32"}, [Param("[]", "i64"), Const(np.int64(4)), Const(np.int64(0))])


@pytest.mark.parametrize("right", [True, False])
def test_bucketize_and_search_sorted_match_openvino_cpu(ov, right: bool) -> None:
    x = np.array([[0.5, 1, 2.5], [3, -1, 9]], np.float32)
    b = np.array([1, 2, 3, 4], np.float32)
    got = same(ov, "Bucketize", "opset3", {"output_type": "i32", "with_right_bound": right},
               [Param("[2,3]"), Param("[4]")], [x, b])
    np.testing.assert_array_equal(got[0], np.searchsorted(b, x, side="left" if right else "right"))
    same(ov, "SearchSorted", "opset15", {"right_mode": right, "output_type": "i32"}, [Param("[4]"), Param("[2,3]")],
         [b, x])
    seq = np.sort(random_array((2, 5), "f32", RNG), axis=1)
    same(ov, "SearchSorted", "opset15", {"right_mode": right, "output_type": "i32"}, [Param("[2,5]"), Param("[2,3]")],
         [seq, x])
    for inputs in ([Param("[3,5]"), Param("[2,3]")], [Param("[5]"), Param("[2,3]", "i32")], [Param("[?,5]"), Param("[2,?]")]):
        agree_or_both_fail(ov, "SearchSorted", "opset15", {"right_mode": right, "output_type": "i64"}, inputs)
    assert "must be a 1D tensor" in agree_or_both_fail(
        ov, "Bucketize", "opset3", {"output_type": "i64", "with_right_bound": right}, [Param("[2,3]"), Param("[4,1]")])
