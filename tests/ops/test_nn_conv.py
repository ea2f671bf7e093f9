"""MatMul, Einsum and the convolution family against the real OpenVINO runtime."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError
from tests.ops.test_nn_oracle import diff, rand

MATMUL_CASES = [
    ("[3,4]", "[4,5]", False, False),
    ("[4,3]", "[4,5]", True, False),
    ("[3,4]", "[5,4]", False, True),
    ("[2,1,3,4]", "[5,4,6]", False, False),
    ("[4]", "[2,4,3]", False, False),
    ("[2,3,4]", "[4]", False, False),
    ("[4]", "[4]", False, False),
    ("[4]", "[4,3]", True, False),
]


@pytest.mark.parametrize("a,b,ta,tb", MATMUL_CASES)
def test_matmul_matches_openvino(ov, a: str, b: str, ta: bool, tb: bool) -> None:
    from openvino import opset13 as ops

    sa, sb = [int(x) for x in a[1:-1].split(",")], [int(x) for x in b[1:-1].split(",")]
    diff(ov, lambda x, y: opset.matmul(x, y, transpose_a=ta, transpose_b=tb),
         lambda x, y: ops.matmul(x, y, ta, tb), [(a, "f32"), (b, "f32")], [rand(sa), rand(sb, seed=1)])


@pytest.mark.parametrize("a,b", [("[?,2..5,4]", "[4,?]"), ("[...]", "[4,3]"), ("[?,?]", "[1..3,?,7]")])
def test_matmul_dynamic_shapes_match_openvino(ov, a: str, b: str) -> None:
    from openvino import opset13 as ops

    diff(ov, lambda x, y: opset.matmul(x, y, False, False), lambda x, y: ops.matmul(x, y, False, False),
         [(a, "f32"), (b, "f32")])


def test_matmul_mismatch_names_both_shapes() -> None:
    with pytest.raises(InferenceError, match=r"K of A \(4\) != K of B \(5\).*\[3,4\].*\[5,6\]"):
        opset.matmul(opset.parameter("[3,4]"), opset.parameter("[5,6]"), False, False)


@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [[2, 3], [3, 4]]),
    ("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]]),
    ("ii->i", [[3, 3]]),
    ("...ij->...ji", [[2, 3, 4]]),
    ("ij->", [[3, 4]]),
    ("abc,cd", [[2, 3, 4], [4, 5]]),
])
def test_einsum_matches_openvino(ov, equation: str, shapes: list[list[int]]) -> None:
    from openvino import opset13 as ops

    params = [(str(s).replace(" ", ""), "f32") for s in shapes]
    diff(ov, lambda *xs: opset.einsum(list(xs), equation=equation), lambda *xs: ops.einsum(list(xs), equation),
         params, [rand(s, seed=i) for i, s in enumerate(shapes)])


CONV_GRID = list(itertools.product(
    [([1, 3, 9, 8], [4, 3, 3, 3]), ([2, 2, 7], [3, 2, 2]), ([1, 2, 5, 6, 4], [2, 2, 2, 3, 2])],
    [1, 2],                      # stride
    [1, 2],                      # dilation
    ["explicit", "same_upper", "same_lower", "valid"],
))


@pytest.mark.parametrize("shapes,stride,dilation,auto_pad", CONV_GRID)
def test_convolution_matches_openvino(ov, shapes, stride: int, dilation: int, auto_pad: str) -> None:
    from openvino import opset13 as ops

    data, filt = shapes
    n = len(data) - 2
    attrs = dict(strides=[stride] * n, pads_begin=[1] + [0] * (n - 1), pads_end=[0] * (n - 1) + [1],
                 dilations=[dilation] * n)
    w = rand(filt, seed=3)
    diff(ov, lambda x: opset.convolution(x, w, auto_pad=auto_pad, **attrs),
         lambda x: ops.convolution(x, ops.constant(w), attrs["strides"], attrs["pads_begin"], attrs["pads_end"],
                                   attrs["dilations"], auto_pad),
         [(str(data).replace(" ", ""), "f32")], [rand(data)])


@pytest.mark.parametrize("data", ["[?,3,?,8]", "[1..4,3,10..20,5..]", "[...]"])
def test_convolution_dynamic_shapes_match_openvino(ov, data: str) -> None:
    from openvino import opset13 as ops

    w = rand([4, 3, 3, 3])
    for auto_pad in ("explicit", "same_upper", "valid"):
        diff(ov, lambda x: opset.convolution(x, w, strides=[2, 1], pads_begin=[1, 1], pads_end=[0, 1],
                                             dilations=[1, 2], auto_pad=auto_pad),
             lambda x: ops.convolution(x, ops.constant(w), [2, 1], [1, 1], [0, 1], [1, 2], auto_pad),
             [(data, "f32")])


@pytest.mark.parametrize("groups,cin,cout,stride", [(2, 4, 6, 1), (4, 4, 4, 2), (3, 6, 3, 1)])
def test_group_convolution_matches_openvino(ov, groups: int, cin: int, cout: int, stride: int) -> None:
    from openvino import opset13 as ops

    w = rand([groups, cout // groups, cin // groups, 3, 3], seed=2)
    diff(ov, lambda x: opset.group_convolution(x, w, strides=[stride] * 2, pads_begin=[1, 1], pads_end=[1, 1],
                                               dilations=[1, 1]),
         lambda x: ops.group_convolution(x, ops.constant(w), [stride] * 2, [1, 1], [1, 1], [1, 1]),
         [(f"[2,{cin},7,6]", "f32")], [rand([2, cin, 7, 6])])


BACKPROP_GRID = [case for case in itertools.product(
    [1, 2, 3], [1, 2], [(0, 0), (1, 0), (1, 2)], [0, 1], ["explicit", "same_upper", "same_lower", "valid"],
) if case[3] < case[0]]  # output_padding must be smaller than the stride


@pytest.mark.parametrize("stride,dilation,pads,out_pad,auto_pad", BACKPROP_GRID)
def test_convolution_backprop_data_matches_openvino(ov, stride, dilation, pads, out_pad, auto_pad) -> None:
    from openvino import opset13 as ops

    w = rand([3, 2, 3, 2], seed=4)
    attrs = dict(strides=[stride] * 2, pads_begin=[pads[0]] * 2, pads_end=[pads[1]] * 2, dilations=[dilation] * 2,
                 output_padding=[out_pad] * 2)
    diff(ov, lambda x: opset.convolution_backprop_data(x, w, auto_pad=auto_pad, **attrs),
         lambda x: ops.convolution_backprop_data(x, ops.constant(w), attrs["strides"], None, attrs["pads_begin"],
                                                 attrs["pads_end"], attrs["dilations"], auto_pad,
                                                 attrs["output_padding"]),
         [("[1,3,5,4]", "f32")], [rand([1, 3, 5, 4])])


@pytest.mark.parametrize("out_shape,auto_pad", [([10, 9], "same_upper"), ([11, 8], "same_lower"),
                                                ([10, 8], "explicit"), ([12, 10], "valid")])
def test_convolution_backprop_data_with_output_shape(ov, out_shape, auto_pad) -> None:
    from openvino import opset13 as ops

    w = rand([3, 2, 3, 3], seed=5)
    shape = np.array(out_shape, dtype=np.int64)
    diff(ov, lambda x: opset.convolution_backprop_data(x, w, [2, 2], shape, pads_begin=[1, 1],
                                                       pads_end=[0, 0], dilations=[1, 1], auto_pad=auto_pad),
         lambda x: ops.convolution_backprop_data(x, ops.constant(w), [2, 2], ops.constant(shape), [1, 1], [0, 0],
                                                 [1, 1], auto_pad),
         [("[1,3,5,4]", "f32")], [rand([1, 3, 5, 4])])


@pytest.mark.parametrize("groups,stride", [(2, 2), (3, 1)])
def test_group_convolution_backprop_data_matches_openvino(ov, groups: int, stride: int) -> None:
    from openvino import opset13 as ops

    w = rand([groups, 2, 3, 3, 3], seed=6)
    diff(ov, lambda x: opset.group_convolution_backprop_data(x, w, strides=[stride] * 2, pads_begin=[1, 0],
                                                             pads_end=[1, 0], dilations=[1, 1]),
         lambda x: ops.group_convolution_backprop_data(x, ops.constant(w), [stride] * 2, None, [1, 0], [1, 0], [1, 1]),
         [(f"[2,{2 * groups},4,5]", "f32")], [rand([2, 2 * groups, 4, 5])])


def test_convolution_channel_mismatch_names_shapes() -> None:
    w = np.zeros([4, 2, 3, 3], np.float32)
    with pytest.raises(InferenceError, match=r"data channels 3 .* input channels 2.*\[1,3,8,8\]"):
        opset.convolution(opset.parameter("[1,3,8,8]"), w, strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0],
                          dilations=[1, 1])


def test_convolution_kernel_larger_than_input_is_an_error() -> None:
    w = np.zeros([1, 1, 5, 5], np.float32)
    with pytest.raises(InferenceError, match="larger than the padded data"):
        opset.convolution(opset.parameter("[1,1,3,3]"), w, strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0],
                          dilations=[1, 1])
