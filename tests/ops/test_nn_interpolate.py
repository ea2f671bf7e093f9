"""Interpolate-1/4/11 over modes, coordinate transforms, nearest modes, sizes/scales and pads."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError
from tests.ops.test_nn_oracle import diff, rand

TRANSFORMS = ["half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"]
NEAREST = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"]
GRID = (
    [("nearest", t, n) for t, n in itertools.product(TRANSFORMS, NEAREST)]
    + [(m, t, "round_prefer_floor") for m, t in itertools.product(["linear_onnx", "cubic", "linear"], TRANSFORMS)]
)


@pytest.mark.parametrize("mode,transform,nearest", GRID)
@pytest.mark.parametrize("sizes", [[8, 3], [3, 10]])
def test_interpolate_11_sizes_matches_openvino(ov, mode, transform, nearest, sizes) -> None:
    from openvino import opset11

    s, axes = np.array(sizes, np.int64), np.array([2, 3], np.int64)
    attrs = dict(mode=mode, shape_calculation_mode="sizes", coordinate_transformation_mode=transform,
                 nearest_mode=nearest)
    diff(ov, lambda x: opset.make("Interpolate", x, s, axes, version="opset11", **attrs),
         lambda x: opset11.interpolate(x, opset11.constant(s), mode, "sizes", axes=opset11.constant(axes),
                                       coordinate_transformation_mode=transform, nearest_mode=nearest),
         [("[1,2,5,6]", "f32")], [rand([1, 2, 5, 6])])


@pytest.mark.parametrize("mode", ["nearest", "linear_onnx", "cubic", "linear"])
@pytest.mark.parametrize("scales", [[2.0, 1.5], [0.5, 0.7], [1.0, 3.0]])
@pytest.mark.parametrize("antialias", [False, True])
def test_interpolate_11_scales_matches_openvino(ov, mode, scales, antialias) -> None:
    from openvino import opset11

    sc, axes = np.array(scales, np.float32), np.array([2, 3], np.int64)
    diff(ov, lambda x: opset.make("Interpolate", x, sc, axes, version="opset11", mode=mode,
                                  shape_calculation_mode="scales", antialias=antialias),
         lambda x: opset11.interpolate(x, opset11.constant(sc), mode, "scales", axes=opset11.constant(axes),
                                       antialias=antialias),
         [("[2,3,6,7]", "f32")], [rand([2, 3, 6, 7])])


@pytest.mark.parametrize("mode,transform", [("nearest", "asymmetric"), ("linear_onnx", "half_pixel"),
                                            ("cubic", "align_corners"), ("linear", "pytorch_half_pixel")])
@pytest.mark.parametrize("calc", ["sizes", "scales"])
def test_interpolate_4_with_pads_matches_openvino(ov, mode, transform, calc) -> None:
    from openvino import opset4, opset10

    sizes, scales, axes = np.array([9, 4], np.int64), np.array([1.5, 0.5], np.float32), np.array([2, 3], np.int64)
    attrs = dict(mode=mode, shape_calculation_mode=calc, coordinate_transformation_mode=transform,
                 pads_begin=[0, 0, 1, 0], pads_end=[0, 0, 0, 2])
    diff(ov, lambda x: opset.make("Interpolate", x, sizes, scales, axes, version="opset4", **attrs),
         lambda x: opset10.interpolate(x, opset4.constant(sizes), opset4.constant(scales), mode, calc,
                                       coordinate_transformation_mode=transform, axes=opset4.constant(axes),
                                       pads_begin=[0, 0, 1, 0], pads_end=[0, 0, 0, 2]),
         [("[1,2,5,6]", "f32")], [rand([1, 2, 5, 6])])


@pytest.mark.parametrize("mode,align", [("nearest", False), ("linear", False), ("linear", True), ("cubic", False)])
def test_interpolate_1_matches_openvino(ov, mode, align) -> None:
    from openvino import opset1

    target = np.array([9, 4], np.int64)
    diff(ov, lambda x: opset.make("Interpolate", x, target, version="opset1", axes=[2, 3], mode=mode, align_corners=align),
         lambda x: opset1.interpolate(x, opset1.constant(target), {"axes": [2, 3], "mode": mode,
                                                                   "align_corners": align}),
         [("[1,2,5,6]", "f32")], [rand([1, 2, 5, 6])])


@pytest.mark.parametrize("shape,axes,target", [
    ("[1,2,6,5]", [0, 1, 2, 3], [1, 2, 9, 3]), ("[1,2,6,5]", [3], [3]), ("[1,2,6,5]", [2], [9]),
    ("[1,2,4,6,5]", [2, 3, 4], [7, 9, 3]), ("[1,2,4,6,5]", [3, 4], [9, 3]), ("[1,2,6]", [2], [9]),
    ("[1,2,48,80]", [0, 1, 2, 3], [1, 2, 50, 60])])
def test_interpolate_1_linear_on_other_axes_is_half_pixel(ov, shape: str, axes, target) -> None:
    """Interpolate-1 linear without align_corners: OpenVINO 2026.4's CPU plugin uses asymmetric
    coordinates only for exactly H and W of 4-D data and half_pixel otherwise (ngraph_reader's
    ReadInterpolate2Network resizes axes 0,2,1,3)."""
    from openvino import opset1

    t = np.array(target, np.int64)
    dims = [int(d) for d in shape[1:-1].split(",")]
    diff(ov, lambda x: opset.make("Interpolate", x, t, version="opset1", axes=axes, mode="linear"),
         lambda x: opset1.interpolate(x, opset1.constant(t), {"axes": axes, "mode": "linear", "align_corners": False}),
         [(shape, "f32")], [rand(dims)])


@pytest.mark.parametrize("data,calc", [("[?,3,10..20,?]", "scales"), ("[?,3,10..20,?]", "sizes"), ("[...]", "scales")])
def test_interpolate_dynamic_shapes_match_openvino(ov, data, calc) -> None:
    from openvino import opset11

    values = np.array([0.5, 2.0], np.float32) if calc == "scales" else np.array([4, 8], np.int64)
    axes = np.array([2, 3], np.int64)
    diff(ov, lambda x: opset.make("Interpolate", x, values, axes, version="opset11", mode="nearest",
                                  shape_calculation_mode=calc),
         lambda x: opset11.interpolate(x, opset11.constant(values), "nearest", calc, axes=opset11.constant(axes)),
         [(data, "f32")])


def test_interpolate_count_mismatch_is_an_error() -> None:
    with pytest.raises(InferenceError, match=r"3 sizes/scales .* for 2 axes"):
        opset.make("Interpolate", opset.parameter("[1,2,5,6]"), np.array([1, 2, 3]), np.array([2, 3]),
                   version="opset11", mode="nearest", shape_calculation_mode="sizes")


def test_interpolate_negative_axes_are_an_error_as_in_openvino() -> None:
    with pytest.raises(InferenceError, match=r"axes \[-1\] must lie in \[0, 3\]"):
        opset.make("Interpolate", opset.parameter("[1,2,5,6]"), np.array([4]), np.array([-1]),
                   version="opset11", mode="nearest", shape_calculation_mode="sizes")


@pytest.mark.parametrize("mode", ["bilinear_pillow", "bicubic_pillow"])
@pytest.mark.parametrize("sizes", [[4, 5], [3, 17], [9, 11], [18, 6]])
def test_interpolate_11_pillow_modes_match_openvino(ov, mode: str, sizes: list[int]) -> None:
    """torch's ``interpolate(..., antialias=True)`` converts to these modes."""
    from openvino import opset11

    s, axes = np.array(sizes, np.int64), np.array([2, 3], np.int64)
    diff(ov, lambda x: opset.make("Interpolate", x, s, axes, version="opset11", mode=mode,
                                  shape_calculation_mode="sizes", coordinate_transformation_mode="pytorch_half_pixel"),
         lambda x: opset11.interpolate(x, opset11.constant(s), mode, "sizes", axes=opset11.constant(axes),
                                       coordinate_transformation_mode="pytorch_half_pixel"),
         [("[1,2,9,11]", "f32")], [rand([1, 2, 9, 11])])
