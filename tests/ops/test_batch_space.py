"""BatchToSpace-2 and SpaceToBatch-2 against OpenVINO 2026: shapes over a grid (static, intervals,
dynamic, unknown crops), the errors both reject, and CPU values."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Const, Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(7)
SHAPES = ["[4,3,2,2]", "[?,3,2,2]", "[4..8,3,1..5,2]", "[...]", "[12,?,2,3]", "[5,3,2,2]"]
VECTORS = [([1, 1, 2, 2], [0, 0, 0, 0], [0, 0, 1, 0]), ([1, 2, 1, 2], [0, 0, 1, 1], [0, 1, 0, 0]),
           ([1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]), ([1, 3, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0])]


@pytest.mark.parametrize("name", ["BatchToSpace", "SpaceToBatch"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("vectors", VECTORS)
def test_shapes_match_openvino(ov, name: str, shape: str, vectors) -> None:
    inputs = [Param(shape)] + [Const(np.array(v, np.int64)) for v in vectors]
    agree_or_both_fail(ov, name, "opset2", {}, inputs)


@pytest.mark.parametrize("name", ["BatchToSpace", "SpaceToBatch"])
def test_unknown_vectors_and_types(ov, name: str) -> None:
    same(ov, name, "opset2", {}, [Param("[4,3,2,2]"), Param("[4]", "i32"), Param("[4]", "i32"), Param("[4]", "i32")])
    same(ov, name, "opset2", {}, [Param("[...]"), Param("[4]", "i64"), Param("[?]", "i64"), Param("[4]", "i64")])
    assert agree_or_both_fail(ov, name, "opset2", {}, [Param("[4,3,2,2]"), Param("[4]", "f32"), Param("[4]", "i32"),
                                                        Param("[4]", "i32")])
    assert agree_or_both_fail(ov, name, "opset2", {}, [Param("[4]"), Const(np.array([1], np.int64)),
                                                        Const(np.array([0], np.int64)), Const(np.array([0], np.int64))])


@pytest.mark.parametrize("dtype", ["f32", "i32", "u8", "f16"])
def test_values_match_openvino_cpu(ov, dtype: str) -> None:
    block, cb, ce = [1, 2, 1, 2], [0, 1, 0, 1], [0, 0, 0, 2]
    x = random_array((8, 3, 2, 3), dtype, RNG)
    same(ov, "BatchToSpace", "opset2", {}, [Param("[8,3,2,3]", dtype), Const(np.array(block, np.int64)),
                                            Const(np.array(cb, np.int64)), Const(np.array(ce, np.int64))], [x])
    x = random_array((2, 3, 3, 4), dtype, RNG)
    pb, pe = [0, 1, 0, 1], [0, 0, 1, 1]
    same(ov, "SpaceToBatch", "opset2", {}, [Param("[2,3,3,4]", dtype), Const(np.array([1, 2, 2, 3], np.int64)),
                                            Const(np.array(pb, np.int64)), Const(np.array(pe, np.int64))], [x])
