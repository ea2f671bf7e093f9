"""FakeConvert-13 against OpenVINO 2026: type/shape rules, CPU values over random data, subnormal,
overflow and special values, per-tensor and per-channel scale/shift, f32/f16 data."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(43)
EDGES = [0.0, -0.0, 1.0, -1.0, 0.001, 0.0019, 0.00195, 0.003, 448.0, 460.0, 480.0, 500.0, 1e5, -1e5, 57344.0,
         61440.0, 70000.0, 0.0625, 0.09375, 3.1415, np.inf, -np.inf, 1.0625, 1.1875, 2.5e-5, 0.0009, 0.000977]
# NaN left out: the CPU plugin turns a positive NaN into -448 (f8e4m3), graphir keeps NaN


@pytest.mark.parametrize("shapes", [("[2,3]", "[]"), ("[2,3]", "[1,3]", "[1,3]"), ("[?,3,4]", "[1,3,1]", "[1,3,1]"),
                                    ("[2,3]", "[1,3]", "[1,1]"), ("[2,3]", "[4]", "[4]"), ("[...]", "[]", "[]")])
@pytest.mark.parametrize("dtypes", [("f32", "f32", "f32"), ("f16", "f16", "f16"), ("f32", "f16", "f32"), ("i32",) * 3])
def test_shapes_and_types(ov, shapes, dtypes) -> None:
    inputs = [Param(s, t) for s, t in zip(shapes, dtypes)]
    agree_or_both_fail(ov, "FakeConvert", "opset13", {"destination_type": "f8e4m3"}, inputs)


@pytest.mark.parametrize("dst", ["f8e4m3", "f8e5m2"])
@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("with_shift", [False, True])
def test_values_match_openvino_cpu(ov, dst: str, dtype: str, with_shift: bool) -> None:
    np_type = np.float32 if dtype == "f32" else np.float16
    with np.errstate(over="ignore"):  # 1e5 is infinity in f16: an edge case on purpose
        edges = np.array(EDGES, np.float32).astype(np_type)
    x = np.concatenate([random_array((93,), dtype, RNG, -600, 600), edges]).astype(np_type)
    x = x.reshape(4, 30)
    scale = np.array([1.0], np_type) if not with_shift else np.array([[0.5], [2.0], [1.0], [0.125]], np_type)
    inputs = [Param("[4,30]", dtype), Param(str(list(scale.shape)).replace(" ", ""), dtype)]
    values = [x, scale]
    if with_shift:
        inputs.append(Param(str(list(scale.shape)).replace(" ", ""), dtype))
        values.append(np.array([[0.0], [1.5], [-3.0], [10.0]], np_type))
    same(ov, "FakeConvert", "opset13", {"destination_type": dst}, inputs, values)
