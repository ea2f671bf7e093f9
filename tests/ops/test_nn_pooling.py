"""MaxPool-1/8/14, AvgPool-1/14 and the adaptive pools against the real OpenVINO runtime."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError
from tests.ops.test_nn_oracle import diff, rand

POOL_GRID = [case for case in itertools.product(
    [[1, 2, 9, 8], [2, 3, 7]],      # data
    [2, 3],                         # kernel
    [1, 2],                         # stride
    [(0, 0), (1, 1)],               # pads
    ["floor", "ceil"],
    ["explicit", "same_upper", "valid"],
) if len(case[0]) == 4 or case[2] == 2]  # 1-D pooling: stride 2 only (time budget; shapes are fuzzed)


def _attrs(data: list[int], kernel: int, stride: int, pads: tuple[int, int]) -> dict:
    n = len(data) - 2
    return dict(kernel=[kernel] * n, strides=[stride] * n, pads_begin=[pads[0]] * n, pads_end=[pads[1]] * n)


@pytest.mark.parametrize("data,kernel,stride,pads,rounding,auto_pad", POOL_GRID)
def test_max_pool_1_and_avg_pool_1_match_openvino(ov, data, kernel, stride, pads, rounding, auto_pad) -> None:
    from openvino import opset1

    a = _attrs(data, kernel, stride, pads)
    x = rand(data)
    shape = [(str(data).replace(" ", ""), "f32")]
    diff(ov, lambda p: opset.make("MaxPool", p, version="opset1", rounding_type=rounding, auto_pad=auto_pad, **a),
         lambda p: opset1.max_pool(p, a["strides"], a["pads_begin"], a["pads_end"], a["kernel"], rounding, auto_pad),
         shape, [x])
    for exclude in (True, False):
        diff(ov, lambda p: opset.make("AvgPool", p, version="opset1", rounding_type=rounding, auto_pad=auto_pad,
                                      **{"exclude-pad": exclude}, **a),
             lambda p: opset1.avg_pool(p, a["strides"], a["pads_begin"], a["pads_end"], a["kernel"], exclude,
                                       rounding, auto_pad), shape, [x])


@pytest.mark.parametrize("data,kernel,stride,pads,rounding,dilation,axis", [
    ([1, 2, 9, 8], 3, 2, (1, 1), "ceil_torch", 1, 0),
    ([1, 2, 9, 8], 3, 2, (1, 1), "ceil", 2, 0),
    ([2, 3, 10, 7], 2, 2, (0, 1), "ceil_torch", 1, 1),
    ([2, 3, 10, 7], 3, 3, (1, 1), "ceil_torch", 1, 2),
    ([2, 3, 8], 2, 2, (0, 0), "floor", 2, -1),
    ([1, 1, 6, 6, 5], 2, 2, (1, 0), "ceil_torch", 1, 0),
    # axis 3 of 5-D data: indices count within each [H, W] plane (op_reference max_pool 3D axis=3)
    ([1, 2, 3, 5, 4], 2, 1, (0, 0), "floor", 1, 3),
    ([2, 1, 4, 6, 5], 2, 2, (1, 0), "ceil", 1, 4),
    ([1, 2, 7, 6], 3, 2, (1, 1), "floor", 1, 3),
])
def test_max_pool_14_values_and_indices_match_openvino(ov, data, kernel, stride, pads, rounding, dilation, axis) -> None:
    from openvino import opset14

    a = _attrs(data, kernel, stride, pads)
    dil = [dilation] * (len(data) - 2)
    x = rand(data)
    for index_type in ("i64", "i32"):
        diff(ov, lambda p: opset.make("MaxPool", p, version="opset14", rounding_type=rounding, dilations=dil,
                                      index_element_type=index_type, axis=axis, **a),
             lambda p: opset14.max_pool(p, a["strides"], dil, a["pads_begin"], a["pads_end"], a["kernel"],
                                        rounding, "explicit", index_type, axis),
             [(str(data).replace(" ", ""), "f32")], [x])
    if rounding != "ceil_torch":
        from openvino import opset8

        diff(ov, lambda p: opset.make("MaxPool", p, version="opset8", rounding_type=rounding, dilations=dil, axis=axis, **a),
             lambda p: opset8.max_pool(p, a["strides"], dil, a["pads_begin"], a["pads_end"], a["kernel"],
                                       rounding, "explicit", "i64", axis),
             [(str(data).replace(" ", ""), "f32")], [x])


@pytest.mark.parametrize("data,kernel,stride,pads,exclude", [
    ([1, 2, 9, 8], 3, 2, (1, 1), True), ([1, 2, 9, 8], 3, 2, (1, 1), False),
    ([2, 3, 10, 7], 2, 2, (0, 1), False), ([1, 2, 7, 7], 3, 3, (1, 1), True),
])
def test_avg_pool_14_ceil_torch_matches_openvino(ov, data, kernel, stride, pads, exclude) -> None:
    from openvino import opset14

    a = _attrs(data, kernel, stride, pads)
    diff(ov, lambda p: opset.make("AvgPool", p, version="opset14", rounding_type="ceil_torch",
                                  **{"exclude-pad": exclude}, **a),
         lambda p: opset14.avg_pool(p, a["strides"], a["pads_begin"], a["pads_end"], a["kernel"], exclude,
                                    "ceil_torch", "explicit"),
         [(str(data).replace(" ", ""), "f32")], [rand(data)])


@pytest.mark.parametrize("data", ["[?,3,?,8]", "[1..4,3,10..20,5..]", "[...]"])
def test_pool_dynamic_shapes_match_openvino(ov, data: str) -> None:
    from openvino import opset1, opset14

    a = dict(kernel=[3, 2], strides=[2, 1], pads_begin=[1, 0], pads_end=[1, 1])
    for rounding in ("floor", "ceil"):
        for auto_pad in ("explicit", "same_lower", "valid"):
            diff(ov, lambda p: opset.make("MaxPool", p, version="opset14", rounding_type=rounding, auto_pad=auto_pad, **a),
                 lambda p: opset14.max_pool(p, a["strides"], [1, 1], a["pads_begin"], a["pads_end"], a["kernel"],
                                            rounding, auto_pad),
                 [(data, "f32")])
            diff(ov, lambda p: opset.make("AvgPool", p, version="opset1", rounding_type=rounding, auto_pad=auto_pad,
                                          **{"exclude-pad": True}, **a),
                 lambda p: opset1.avg_pool(p, a["strides"], a["pads_begin"], a["pads_end"], a["kernel"], True,
                                           rounding, auto_pad),
                 [(data, "f32")])


@pytest.mark.parametrize("data,out", [([1, 2, 9, 8], [4, 3]), ([2, 3, 7], [3]), ([1, 2, 5, 6, 7], [2, 3, 4]),
                                      ([1, 1, 4, 4], [4, 4]), ([1, 2, 5, 3], [7, 2])])
def test_adaptive_pools_match_openvino(ov, data, out) -> None:
    from openvino import opset8

    size = np.array(out, dtype=np.int64)
    shape = [(str(data).replace(" ", ""), "f32")]
    x = rand(data)
    diff(ov, lambda p: opset.adaptive_avg_pool(p, size), lambda p: opset8.adaptive_avg_pool(p, ops_const(size)), shape, [x])
    # the CPU plugin cannot output i64 indices here: values with i32, shapes with i64
    diff(ov, lambda p: opset.adaptive_max_pool(p, size, index_element_type="i32"),
         lambda p: opset8.adaptive_max_pool(p, ops_const(size), "i32"), shape, [x])
    diff(ov, lambda p: opset.adaptive_max_pool(p, size), lambda p: opset8.adaptive_max_pool(p, ops_const(size)), shape)


def ops_const(value: np.ndarray):  # noqa: ANN201 - an openvino node
    from openvino import opset13

    return opset13.constant(value)


def test_pool_kernel_larger_than_input_is_an_error() -> None:
    with pytest.raises(InferenceError, match=r"does not fit the padded data.*\[1,1,2,2\]"):
        opset.make("MaxPool", opset.parameter("[1,1,2,2]"), version="opset1", kernel=[3, 3], strides=[1, 1],
                   pads_begin=[0, 0], pads_end=[0, 0])


def test_pool_attribute_length_mismatch_is_an_error() -> None:
    with pytest.raises(InferenceError, match="'strides'.*must have 2 values"):
        opset.make("AvgPool", opset.parameter("[1,1,4,4]"), version="opset1", kernel=[2, 2], strides=[1],
                   pads_begin=[0, 0], pads_end=[0, 0], **{"exclude-pad": False})


@pytest.mark.parametrize("dilation,rounding,exclude", [(2, "floor", True), (2, "ceil_torch", False), (3, "ceil", True)])
def test_avg_pool_16_dilations_match_openvino(ov, dilation: int, rounding: str, exclude: bool) -> None:
    from openvino import opset16

    a = _attrs([1, 2, 11, 9], 2, 2, (1, 1))
    dil = [dilation, dilation]
    diff(ov, lambda p: opset.make("AvgPool", p, version="opset16", rounding_type=rounding, dilations=dil,
                                  **{"exclude-pad": exclude}, **a),
         lambda p: opset16.avg_pool(p, a["strides"], a["pads_begin"], a["pads_end"], a["kernel"], exclude, rounding,
                                    "explicit", dil),
         [("[1,2,11,9]", "f32")], [rand([1, 2, 11, 9])])


@pytest.mark.parametrize("data,kernel,stride", [([1, 2, 2], [1], [2]), ([1, 2, 7, 5], [2, 3], [3, 2]),
                                                ([1, 1, 10], [3], [4])])
@pytest.mark.parametrize("rounding", ["ceil", "ceil_torch", "floor"])
@pytest.mark.parametrize("auto_pad", ["same_upper", "same_lower"])
def test_same_padding_with_ceil_rounding_matches_openvino(ov, data, kernel, stride, rounding, auto_pad) -> None:
    """OpenVINO resolves same_* pads first and then rounds, so ceil can add a window of padding only
    (its max is the lowest float, its index spatial 0)."""
    from openvino import opset14

    n = len(kernel)
    zeros = [0] * n
    shape = [(str(data).replace(" ", ""), "f32")]
    diff(ov, lambda p: opset.make("MaxPool", p, version="opset14", kernel=kernel, strides=stride, pads_begin=zeros,
                                  pads_end=zeros, rounding_type=rounding, auto_pad=auto_pad),
         lambda p: opset14.max_pool(p, stride, [1] * n, zeros, zeros, kernel, rounding, auto_pad), shape, [rand(data)])
    diff(ov, lambda p: opset.make("AvgPool", p, version="opset14", kernel=kernel, strides=stride, pads_begin=zeros,
                                  pads_end=zeros, rounding_type=rounding, auto_pad=auto_pad, **{"exclude-pad": False}),
         lambda p: opset14.avg_pool(p, stride, zeros, zeros, kernel, False, rounding, auto_pad), shape, [rand(data)])


def test_pool_14_interval_shapes_match_openvino(ov) -> None:
    """Shape inference only, over intervals that start at 0 and pads larger than the kernel: with
    ceil_torch, OpenVINO skips the drop of a last window in the end padding when data plus begin
    padding is empty (a length or lower bound of 0), and a lower bound above the upper one gives ?."""
    from openvino import opset14

    from graphir.ops.base import TensorType
    from graphir.ops.registry import find

    max_pool, avg_pool = find("openvino", "MaxPool", "opset14"), find("openvino", "AvgPool", "opset14")
    checked, mismatches = 0, []
    for (lo, hi), k, s, pb, pe, rounding, auto_pad in itertools.product(
            [(0, -1), (0, 0), (0, 1), (0, 5), (1, -1), (3, 7)], [1, 2, 3], [1, 2, 3], [0, 1], [0, 1, 2],
            ["ceil_torch", "ceil", "floor"], ["explicit", "valid"]):
        dim = f"{lo}..{'' if hi < 0 else hi}"
        param = opset14.parameter(ov.PartialShape([1, 1, ov.Dimension(lo, hi)]), ov.Type.f32)
        ours = TensorType.of("f32", f"[1,1,{dim}]")
        for theirs_op, op in (
                (lambda: opset14.max_pool(param, [s], [1], [pb], [pe], [k], rounding, auto_pad),
                 max_pool(strides=[s], dilations=[1], pads_begin=[pb], pads_end=[pe], kernel=[k],
                          rounding_type=rounding, auto_pad=auto_pad)),
                (lambda: opset14.avg_pool(param, [s], [pb], [pe], [k], True, rounding, auto_pad),
                 avg_pool(strides=[s], pads_begin=[pb], pads_end=[pe], kernel=[k], rounding_type=rounding,
                          auto_pad=auto_pad, **{"exclude-pad": True}))):
            try:
                theirs = str(theirs_op().get_output_partial_shape(0)).replace(" ", "")
            except RuntimeError:
                theirs = "error"
            try:
                mine = str(op.infer([ours])[0].shape).replace(" ", "")
            except InferenceError:
                mine = "error"
            checked += 1
            if mine != theirs:
                mismatches.append((type(op).__name__, dim, k, s, pb, pe, rounding, auto_pad, theirs, mine))
    assert checked == 2 * 6 * 3 * 3 * 2 * 3 * 3 * 2
    assert mismatches == []


def test_avg_pool_window_of_padding_only_is_nan_as_openvino_2026(ov) -> None:
    """op_reference (2022) expects 0 where a ceil-rounded window lies in the padding only, with
    exclude-pad; OpenVINO 2026.4's CPU plugin gives NaN (0/0), and graphir matches 2026.4."""
    from openvino import opset1

    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    got = diff(ov, lambda p: opset.avg_pool(p, kernel_shape=[2, 2], strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1],
                                            exclude_pad=True, rounding_type="ceil"),
               lambda p: opset1.avg_pool(p, [2, 2], [1, 1], [1, 1], [2, 2], True, "ceil", "explicit"),
               [("[1,1,3,3]", "f32")], [x])
    np.testing.assert_array_equal(np.isnan(got[0][0, 0]), [[0, 0, 1], [0, 0, 1], [1, 1, 1]])
    np.testing.assert_array_equal(got[0][0, 0, :2, :2], [[1.0, 2.5], [5.5, 7.0]])
