"""DeformableConvolution-1/8 against OpenVINO 2026: shapes (static, intervals, dynamic, errors),
CPU values over random offsets reaching outside the image, groups, deformable groups, masks."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(23)
BASE = {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1], "auto_pad": "explicit",
        "group": 1, "deformable_group": 1}


@pytest.mark.parametrize("version", ["opset1", "opset8"])
@pytest.mark.parametrize("shapes", [("[1,4,5,5]", "[1,18,3,3]", "[2,4,3,3]"), ("[?,4,?,?]", "[?,18,?,?]", "[2,4,3,3]"),
                                    ("[1..3,4,5..9,5]", "[2,18,?,3]", "[2,4,3,3]"), ("[...]", "[...]", "[...]"),
                                    ("[1,4,5,5]", "[1,16,3,3]", "[2,4,3,3]"), ("[1,4,5,5]", "[2,18,3,3]", "[2,4,3,3]"),
                                    ("[1,4,5,5]", "[1,18,3,3]", "[2,3,3,3]"), ("[1,4,5]", "[1,18,3]", "[2,4,3]")])
def test_shapes(ov, version: str, shapes) -> None:
    agree_or_both_fail(ov, "DeformableConvolution", version, BASE, [Param(s) for s in shapes])


@pytest.mark.parametrize("attrs", [{}, {"strides": [2, 1], "pads_begin": [1, 0], "pads_end": [0, 1]},
                                   {"dilations": [2, 1]}, {"group": 2}, {"deformable_group": 2},
                                   {"group": 2, "deformable_group": 2, "auto_pad": "same_upper"}])
@pytest.mark.parametrize("version,pad,with_mask", [("opset1", False, False), ("opset8", False, True),
                                                   ("opset8", True, True), ("opset8", True, False)])
def test_values_match_openvino_cpu(ov, attrs: dict, version: str, pad: bool, with_mask: bool) -> None:
    a = dict(BASE, **attrs)
    if version == "opset8":
        a["bilinear_interpolation_pad"] = pad
    from graphir import opset

    data = random_array((2, 4, 6, 5), "f32", RNG)
    filters = random_array((4, 4 // a["group"], 3, 2), "f32", RNG)
    taps = 6 * a["deformable_group"]
    probe = opset.make("DeformableConvolution", opset.parameter("[2,4,6,5]"), opset.parameter(f"[2,{2 * taps},?,?]"),
                       opset.parameter(f"[4,{4 // a['group']},3,2]"), version=version, **a)
    oh, ow = probe.shape.to_shape()[2:]
    offsets = random_array((2, 2 * taps, oh, ow), "f32", RNG, -2.5, 2.5)
    inputs = [Param("[2,4,6,5]"), Param(f"[2,{2 * taps},{oh},{ow}]"), Param(f"[4,{4 // a['group']},3,2]")]
    values = [data, offsets, filters]
    if with_mask:
        inputs.append(Param(f"[2,{taps},{oh},{ow}]"))
        values.append(random_array((2, taps, oh, ow), "f32", RNG, 0, 1))
    same(ov, "DeformableConvolution", version, a, inputs, values)
