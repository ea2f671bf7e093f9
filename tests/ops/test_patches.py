"""ExtractImagePatches-3 and Col2Im-15 against OpenVINO 2026: shapes over grids (padding modes,
intervals, unknown sizes), rejected inputs, CPU values."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Const, Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(17)
EIP = [([3, 3], [5, 5], [1, 1]), ([2, 3], [1, 2], [2, 1]), ([4, 4], [8, 8], [1, 1]), ([1, 1], [3, 2], [1, 1])]


@pytest.mark.parametrize("sizes,strides,rates", EIP)
@pytest.mark.parametrize("pad", ["valid", "same_upper", "same_lower"])
@pytest.mark.parametrize("shape", ["[1,1,10,10]", "[2,3,2..10,?]", "[1,1,2,10]", "[...]", "[1,2,3]"])
def test_extract_image_patches_shapes(ov, sizes, strides, rates, pad: str, shape: str) -> None:
    attrs = {"sizes": sizes, "strides": strides, "rates": rates, "auto_pad": pad}
    agree_or_both_fail(ov, "ExtractImagePatches", "opset3", attrs, [Param(shape)])


@pytest.mark.parametrize("sizes,strides,rates", EIP)
@pytest.mark.parametrize("pad", ["valid", "same_upper", "same_lower"])
def test_extract_image_patches_values_match_openvino_cpu(ov, sizes, strides, rates, pad: str) -> None:
    attrs = {"sizes": sizes, "strides": strides, "rates": rates, "auto_pad": pad}
    x = random_array((2, 3, 9, 10), "f32", RNG)
    same(ov, "ExtractImagePatches", "opset3", attrs, [Param("[2,3,9,10]")], [x])


C2I = {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0]}
C2I_B = {"strides": [2, 1], "dilations": [1, 2], "pads_begin": [1, 0], "pads_end": [0, 2]}


@pytest.mark.parametrize("data", ["[2,12,9]", "[12,9]", "[12,8]", "[?,?,?]", "[2,13,9]", "[2,12..16,9]", "[...]", "[2]"])
@pytest.mark.parametrize("size,kernel", [([4, 4], [2, 2]), ("P", [2, 2]), ([4, 4], "P")])
def test_col2im_shapes(ov, data: str, size, kernel) -> None:
    inputs = [Param(data)] + [Param("[2]", "i64") if v == "P" else Const(np.array(v, np.int64)) for v in (size, kernel)]
    agree_or_both_fail(ov, "Col2Im", "opset15", C2I, inputs)


@pytest.mark.parametrize("attrs", [C2I, C2I_B])
@pytest.mark.parametrize("batched", [True, False])
def test_col2im_values_match_openvino_cpu(ov, attrs: dict, batched: bool) -> None:
    size, kernel = [5, 6], [2, 3]
    blocks = 1
    for i in range(2):
        blocks *= (size[i] + attrs["pads_begin"][i] + attrs["pads_end"][i] - attrs["dilations"][i] * (kernel[i] - 1)
                   - 1) // attrs["strides"][i] + 1
    shape = ((2,) if batched else ()) + (3 * 6, blocks)
    x = random_array(shape, "f32", RNG)
    same(ov, "Col2Im", "opset15", attrs, [Param(str(list(shape)).replace(" ", "")), Const(np.array(size, np.int64)),
                                          Const(np.array(kernel, np.int64))], [x])
