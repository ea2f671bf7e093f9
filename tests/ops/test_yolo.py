"""RegionYolo-1 and ReorgYolo-2 against OpenVINO 2026.4: shapes over static, dynamic and
interval inputs, errors, CPU values."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.errors import GraphirError
from tests.ops.detection_oracle import Param, compare, shapes_of
from tests.ops.ov_diff import build_both

REORG_SHAPES = ["[1,8,4,6]", "[?,8,4,6]", "[1,?,4,6]", "[1,8,?,6]", "[1,8,2..9,6]", "[1,3..9,4,6]", "[...]", "[1,8,0,6]"]


@pytest.mark.parametrize("shape", REORG_SHAPES)
def test_reorg_yolo_shapes(ov, shape: str) -> None:
    from openvino import opset2

    g, _, o, _ = build_both(ov, lambda x: opset.make("ReorgYolo", x, stride=[2]), lambda x: opset2.reorg_yolo(x, [2]), [Param(shape)])
    assert shapes_of(g) == shapes_of(o)


def test_reorg_yolo_errors(ov) -> None:
    with pytest.raises(GraphirError, match="H and W should be divisible by stride"):
        opset.make("ReorgYolo", opset.parameter("[1,8,5,6]"), stride=[2])
    with pytest.raises(GraphirError, match=r"\[N, C, H, W\] input shape is required"):
        opset.make("ReorgYolo", opset.parameter("[1,8,4]"), stride=[2])


@pytest.mark.parametrize("shape,stride", [((1, 8, 4, 6), 2), ((2, 18, 6, 3), 3), ((1, 4, 2, 2), 1)])
def test_reorg_yolo_values(ov, shape: tuple[int, ...], stride: int) -> None:
    from openvino import opset2

    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    compare(ov, lambda a: opset.make("ReorgYolo", a, stride=[stride]), lambda a: opset2.reorg_yolo(a, [stride]),
            [Param(str(list(shape)).replace(" ", ""))], [x], rtol=0, atol=0)


REGION_SHAPES = ["[1,125,13,13]", "[?,125,13,13]", "[1,?,13,13]", "[1,125,?,13]", "[1,125,2..13,13]", "[...]"]


@pytest.mark.parametrize("shape", REGION_SHAPES)
@pytest.mark.parametrize("softmax,axis,end_axis", [(True, 1, 3), (False, 1, 3), (True, 2, 3), (True, 0, -1)])
def test_region_yolo_shapes(ov, shape: str, softmax: bool, axis: int, end_axis: int) -> None:
    from openvino import opset1

    attrs = dict(coords=4, classes=20, num=5, do_softmax=softmax, mask=[0, 1, 2], axis=axis, end_axis=end_axis, anchors=[])
    g, _, o, _ = build_both(ov, lambda x: opset.make("RegionYolo", x, **attrs),
                            lambda x: opset1.region_yolo(x, 4, 20, 5, softmax, [0, 1, 2], axis, end_axis, []), [Param(shape)])
    assert shapes_of(g) == shapes_of(o)


def test_region_yolo_errors() -> None:
    with pytest.raises(GraphirError, match="Type of input is expected to be a floating point type"):
        opset.make("RegionYolo", opset.parameter("[1,125,13,13]", "i32"))
    with pytest.raises(GraphirError, match="Input must be a tensor of rank 4, but got 3"):
        opset.make("RegionYolo", opset.parameter("[1,125,13]"))


@pytest.mark.parametrize("coords,classes,num,softmax,mask", [(4, 20, 5, True, [0, 1, 2]), (4, 80, 9, False, [3, 4, 5]),
                                                             (4, 3, 2, False, [0]), (4, 3, 2, True, [])])
def test_region_yolo_values(ov, coords: int, classes: int, num: int, softmax: bool, mask: list[int]) -> None:
    from openvino import opset1

    channels = (coords + classes + 1) * (num if softmax else max(len(mask), 1))
    x = (np.random.default_rng(3).standard_normal((2, channels, 5, 4)) * 3).astype(np.float32)
    attrs = dict(coords=coords, classes=classes, num=num, do_softmax=softmax, mask=mask, axis=1, end_axis=3, anchors=[])
    compare(ov, lambda a: opset.make("RegionYolo", a, **attrs),
            lambda a: opset1.region_yolo(a, coords, classes, num, softmax, mask, 1, 3, []),
            [Param(f"[2,{channels},5,4]")], [x], rtol=1e-5, atol=1e-6)
