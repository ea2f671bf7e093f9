"""NV12/I420 to RGB/BGR (-8) and RGB/BGR to NV12 (-17) against OpenVINO 2026: shapes (single and
separate planes; static, intervals, dynamic), rejected inputs, CPU values for u8 and f32."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Param
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(8)
TO_RGB = ["NV12toRGB", "NV12toBGR", "I420toRGB", "I420toBGR"]


@pytest.mark.parametrize("name", TO_RGB)
@pytest.mark.parametrize("shape", ["[1,6,4,1]", "[?,?,?,?]", "[1,3..9,2..6,1]", "[2,4..10,?,1]", "[...]",
                                   "[1,5,4,1]", "[1,6,3,1]", "[1,6,4,2]", "[1,6,4]"])
@pytest.mark.parametrize("dtype", ["u8", "f32", "i32"])
def test_single_plane_shapes(ov, name: str, shape: str, dtype: str) -> None:
    agree_or_both_fail(ov, name, "opset8", {}, [Param(shape, dtype)])


@pytest.mark.parametrize("name", TO_RGB)
@pytest.mark.parametrize("y,c", [("[1,4,4,1]", "[1,2,2,?]"), ("[1,?,4,1]", "[1,2..3,?,?]"), ("[...]", "[2,3,?,?]"),
                                 ("[1,4,4,1]", "[1,3,2,?]"), ("[1,4,6,1]", "[1,2,2,?]"), ("[1,4,4,1]", "[1,2,2,3]")])
def test_separate_plane_shapes(ov, name: str, y: str, c: str) -> None:
    channels = "2" if name.startswith("NV12") else "1"
    c = c.replace("?]", channels + "]") if c.endswith("?]") else c
    planes = [Param(y), Param(c)] if name.startswith("NV12") else [Param(y), Param(c), Param(c)]
    agree_or_both_fail(ov, name, "opset8", {}, planes)


@pytest.mark.parametrize("name", TO_RGB)
@pytest.mark.parametrize("dtype", ["u8", "f32"])
def test_values_match_openvino_cpu(ov, name: str, dtype: str) -> None:
    planes = RNG.integers(0, 256, (2, 6, 8, 1)).astype(np.uint8 if dtype == "u8" else np.float32)
    planes[0, 0, :4, 0] = [0, 255, 16, 235]
    same(ov, name, "opset8", {}, [Param("[2,6,8,1]", dtype)], [planes])
    y = RNG.integers(0, 256, (1, 4, 6, 1)).astype(planes.dtype)
    if name.startswith("NV12"):
        uv = RNG.integers(0, 256, (1, 2, 3, 2)).astype(planes.dtype)
        same(ov, name, "opset8", {}, [Param("[1,4,6,1]", dtype), Param("[1,2,3,2]", dtype)], [y, uv])
    else:
        u, v = (RNG.integers(0, 256, (1, 2, 3, 1)).astype(planes.dtype) for _ in range(2))
        same(ov, name, "opset8", {}, [Param("[1,4,6,1]", dtype)] + [Param("[1,2,3,1]", dtype)] * 2, [y, u, v])


@pytest.mark.parametrize("name", ["RGBtoNV12", "BGRtoNV12"])
@pytest.mark.parametrize("single", [True, False])
@pytest.mark.parametrize("shape", ["[1,4,4,3]", "[?,?,?,?]", "[1,2..9,2..6,3]", "[...]", "[1,5,4,3]", "[1,4,4,1]"])
def test_to_nv12_shapes(ov, name: str, single: bool, shape: str) -> None:
    agree_or_both_fail(ov, name, "opset17", {"single_plane": single}, [Param(shape, "u8")])


def test_to_nv12_values_by_the_formula() -> None:
    """OpenVINO 2026's CPU plugin cannot run RGBtoNV12 (no kernel, no evaluate), so these values are
    the spec's BT.601 formula worked by hand: black, white, red and blue in one 2x2 block; U and V are
    the block means 146.5 and 151.5, rounded half away from zero for u8."""
    from graphir import opset

    rgb = np.array([[[[0, 0, 0], [255, 255, 255]], [[255, 0, 0], [0, 0, 255]]]], np.uint8)
    y, uv = opset.make("RGBtoNV12", rgb, single_plane=False)
    np.testing.assert_array_equal(y.tensor_type.value[0, ..., 0], [[16, 235], [82, 41]])
    np.testing.assert_array_equal(uv.tensor_type.value.reshape(-1), [147, 152])
    plane = opset.make("RGBtoNV12", rgb).tensor_type.value
    np.testing.assert_array_equal(plane.reshape(-1), [16, 235, 82, 41, 147, 152])
    bgr = opset.make("BGRtoNV12", rgb[..., ::-1].copy()).tensor_type.value
    np.testing.assert_array_equal(bgr, plane)
    floats = opset.make("RGBtoNV12", rgb.astype(np.float32), single_plane=False)[1].tensor_type.value
    np.testing.assert_allclose(floats.reshape(-1), [(256 + 90.26 + 239.945) / 4, (256 + 239.945 + 109.895) / 4], atol=1e-3)


def test_to_nv12_and_back_on_openvino_cpu_is_close(ov) -> None:
    """Smooth colors survive RGB -> NV12 (graphir) -> RGB (OpenVINO CPU) within a few levels."""
    from graphir import opset
    from tests.ops.ov_diff import core

    base = RNG.integers(40, 200, (1, 1, 1, 3))
    rgb = np.clip(base + RNG.integers(-2, 3, (1, 4, 6, 3)), 0, 255).astype(np.uint8)
    plane = opset.make("RGBtoNV12", rgb).tensor_type.value
    from openvino import opset8 as ops

    p = ops.parameter([1, 6, 6, 1], ov.Type.u8)
    back = core(ov).compile_model(ov.Model([ops.nv12_to_rgb(p)], [p]), "CPU")([plane])[0]
    assert np.abs(back.astype(int) - rgb.astype(int)).max() <= 4
