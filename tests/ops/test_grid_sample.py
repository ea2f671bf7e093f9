"""GridSample-9 against OpenVINO 2026: shapes, rejected inputs, CPU values for every mode x padding
x align_corners over random grids that reach outside the image."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(19)
ATTRS = {"align_corners": False, "mode": "bilinear", "padding_mode": "zeros"}


@pytest.mark.parametrize("data,grid", [("[2,3,5,6]", "[2,4,7,2]"), ("[?,3,?,?]", "[2,?,?,2]"), ("[1..3,3,5,6]", "[2..4,4,7,2]"),
                                       ("[...]", "[2,4,7,2]"), ("[2,3,5,6]", "[...]"), ("[2,3,5,6]", "[3,4,7,2]"),
                                       ("[2,3,5,6]", "[2,4,7,3]"), ("[2,3,5]", "[2,4,7,2]")])
@pytest.mark.parametrize("dtypes", [("f32", "f32"), ("i32", "f16"), ("f32", "i32")])
def test_shapes_and_types(ov, data: str, grid: str, dtypes) -> None:
    agree_or_both_fail(ov, "GridSample", "opset9", ATTRS, [Param(data, dtypes[0]), Param(grid, dtypes[1])])


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_values_match_openvino_cpu(ov, mode: str, padding: str, align: bool) -> None:
    data = random_array((2, 3, 5, 6), "f32", RNG)
    grid = random_array((2, 4, 7, 2), "f32", RNG, -1.4, 1.4)
    grid[0, 0, :4] = [[-1, -1], [1, 1], [0, 0], [0.5, -0.25]]
    attrs = {"align_corners": align, "mode": mode, "padding_mode": padding}
    same(ov, "GridSample", "opset9", attrs, [Param("[2,3,5,6]"), Param("[2,4,7,2]")], [data, grid])


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_integer_data_match_openvino_cpu(ov, mode: str, padding: str) -> None:
    """Interpolated integers are truncated toward zero, as the CPU plugin does."""
    data = random_array((1, 2, 4, 5), "i32", RNG, -20, 20)
    grid = random_array((1, 3, 3, 2), "f32", RNG, -1.2, 1.2)
    attrs = {"align_corners": False, "mode": mode, "padding_mode": padding}
    same(ov, "GridSample", "opset9", attrs, [Param("[1,2,4,5]", "i32"), Param("[1,3,3,2]")], [data, grid])
