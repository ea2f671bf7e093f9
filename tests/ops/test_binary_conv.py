"""BinaryConvolution-1 against OpenVINO 2026: shapes; values against a brute-force reading of
OpenVINO's reference (op_reference's binary_convolution cases pass too). The CPU plugin is no
oracle here: on [1,1,2,2] all-ones data it gives 2 with an all-ones and with an all-zeros 2x2
filter (the reference, and the xnor-popcount definition, give 4 and -4): it reads the bits of a
filter byte from the lowest one, while OpenVINO's u1 Constant (and IR) hold element 0 in the highest
(measured: 8 channels, filter bits [1,0,0,0,0,0,0,0] match channel 7 on the CPU plugin)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Const, Param
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(29)
BASE = {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1], "auto_pad": "explicit",
        "mode": "xnor-popcount", "pad_value": 0.0}


@pytest.mark.parametrize("data", ["[1,3,5,5]", "[?,3,?,6]", "[1..2,3,4..8,5]", "[...]", "[1,2,5,5]"])
def test_shapes(ov, data: str) -> None:
    filters = Const(RNG.integers(0, 2, (4, 3, 3, 3)).astype(np.uint8), "u1")
    agree_or_both_fail(ov, "BinaryConvolution", "opset1", BASE, [Param(data), filters])


@pytest.mark.parametrize("attrs", [{}, {"pads_begin": [1, 1], "pads_end": [1, 0], "pad_value": 1.0},
                                   {"pads_begin": [1, 2], "pads_end": [0, 1], "pad_value": 0.0},
                                   {"strides": [2, 1], "dilations": [1, 2]}, {"auto_pad": "same_upper", "pad_value": 1.0}])
def test_values_on_binary_data_match_the_reference(ov, attrs: dict) -> None:
    a = dict(BASE, **attrs)
    data = RNG.integers(0, 2, (2, 3, 6, 7)).astype(np.float32)
    filters = Const(RNG.integers(0, 2, (4, 3, 3, 2)).astype(np.uint8), "u1")
    same(ov, "BinaryConvolution", "opset1", a, [Param("[2,3,6,7]"), filters])  # shapes
    from graphir import opset

    got = opset.make("BinaryConvolution", data, opset.constant(filters.array(), "u1"), **a)
    got = got.tensor_type.value if got.tensor_type.value is not None else None
    bits = filters.array().astype(int)
    begin, end = a["pads_begin"], a["pads_end"]
    if a["auto_pad"] == "same_upper":
        begin, end = [1, 0], [1, 1]  # kernel 3x2 at strides 1: totals 2 and 1, the odd one at the end
    padded = np.full((2, 3, 6 + begin[0] + end[0], 7 + begin[1] + end[1]), a["pad_value"], np.float32)
    padded[:, :, begin[0]:begin[0] + 6, begin[1]:begin[1] + 7] = data
    (sh, sw), (dh, dw) = a["strides"], a["dilations"]
    oh = (padded.shape[2] - (dh * 2 + 1)) // sh + 1
    ow = (padded.shape[3] - (dw * 1 + 1)) // sw + 1
    want = np.zeros((2, 4, oh, ow), np.float32)
    for n, o, y, x in np.ndindex(want.shape):
        window = padded[n, :, y * sh:y * sh + 2 * dh + 1:dh, x * sw:x * sw + dw + 1:dw]
        want[n, o, y, x] = 2 * np.sum(window == bits[o]) - bits[o].size
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bit", [0, 1])
def test_non_binary_data_counts_as_bit_one_above_zero_as_the_cpu_plugin(ov, bit: int) -> None:
    """Data outside 0/1: a value above 0 is bit 1, anything else (0, negatives, NaN) bit 0, as
    OpenVINO 2026.4's CPU plugin binarizes it (filters of all-equal bits here, so the plugin's
    bit order inside a filter byte does not matter)."""
    from openvino import opset1
    import openvino.op as ov_op

    from graphir import opset

    values = np.array([-2, -0.5, 0, 1e-30, 0.3, 1, 2, np.nan], np.float32)
    data = np.stack([np.roll(values, k) for k in range(8)])[None, :, :, None]  # [1, 8, 8, 1]
    attrs = dict(BASE, pad_value=1.0)
    got = opset.make("BinaryConvolution", data, opset.constant(np.full((2, 8, 1, 1), bit, np.uint8), "u1"), **attrs)
    p = opset1.parameter([1, 8, 8, 1], np.float32)
    w = ov_op.Constant(ov.Type.u1, ov.Shape([2, 8, 1, 1]), [bit] * 16)
    node = opset1.binary_convolution(p, w, [1, 1], [0, 0], [0, 0], [1, 1], "xnor-popcount", 1.0)
    compiled = ov.Core().compile_model(ov.Model([node], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    np.testing.assert_array_equal(got.tensor_type.value, compiled([data])[0])
