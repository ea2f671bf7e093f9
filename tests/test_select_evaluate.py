"""OpenVINO Select-1 evaluation: numpy semantics for every numeric type, pdpd alignment, and
values against the OpenVINO CPU plugin."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.ops.openvino.select import Select
from graphir.types import ElementType
from tests.tolerances import assert_close

NUMERIC = [t for t in ElementType if t.is_numeric and t.value not in ("u1", "u3", "u6", "nf4")]


def _model(cond_shape, then_shape, else_shape, et: str, mode: str = "numpy", axis: int = 0) -> graphir.Model:
    c = opset.parameter(list(cond_shape), "boolean", name="cond")
    a = opset.parameter(list(then_shape), et, name="then")
    b = opset.parameter(list(else_shape), et, name="else")
    y = opset.make("Select", c, a, b, auto_broadcast=mode, axis=axis)
    return graphir.Model([y], [c.node, a.node, b.node], name="select")


def _run(model: graphir.Model, *arrays: np.ndarray) -> np.ndarray:
    out = model.run({"cond": arrays[0], "then": arrays[1], "else": arrays[2]})
    return next(iter(out.values()))


def test_documented_example_exactly() -> None:
    cond = np.array([[False, False], [True, False], [True, True]])
    then = np.array([[-1, 0], [1, 2], [3, 4]], np.int32)
    other = np.array([[11, 10], [9, 8], [7, 6]], np.int32)
    out = _run(_model((3, 2), (3, 2), (3, 2), "i32"), cond, then, other)
    assert out.dtype == np.int32
    assert out.tolist() == [[11, 10], [1, 8], [3, 4]]


@pytest.mark.parametrize("et", NUMERIC, ids=str)
def test_every_numeric_type_broadcasts_like_numpy(et: ElementType) -> None:
    rng = np.random.default_rng(3)
    dt = et.numpy_dtype
    lo, hi = (0, 3) if not et.is_signed else (-2, 3)
    then = rng.integers(lo, hi, size=(2, 1, 4)).astype(dt)
    other = rng.integers(lo, hi, size=(3, 1)).astype(dt)
    cond = rng.random((1, 3, 4)) < 0.5
    out = _run(_model((1, 3, 4), (2, 1, 4), (3, 1), str(et)), cond, then, other)
    expected = np.where(cond, then, other)
    assert out.dtype == dt and out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.astype(np.float64), expected.astype(np.float64))


@pytest.mark.parametrize("et", ["f32", "bf16", "i4", "f8e5m2"])
def test_zero_size(et: str) -> None:
    dt = ElementType.parse(et).numpy_dtype
    out = _run(_model((0, 3), (1, 3), (3,), et), np.zeros((0, 3), bool), np.ones((1, 3), dt), np.zeros(3, dt))
    assert out.shape == (0, 3) and out.dtype == dt


def test_cond_raises_rank_in_numpy_mode() -> None:
    cond = np.array([[[True], [False]]])  # [1,2,1]
    out = _run(_model((1, 2, 1), (3,), (3,), "f32"), cond, np.array([1, 2, 3], np.float32),
               np.array([7, 8, 9], np.float32))
    assert out.tolist() == [[[1, 2, 3], [7, 8, 9]]]


def test_pdpd_alignment_leading_and_trailing() -> None:
    then = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    other = np.full((2, 3, 4), -1, np.float32)
    lead = np.array([[True, False, True], [False, True, False]])  # [2,3] at axis 0
    out = Select(auto_broadcast="pdpd", axis=0).evaluate(lead, then, other)[0]
    np.testing.assert_array_equal(out, np.where(lead[:, :, None], then, other))
    trail = np.array([True, False, False, True])  # [4] at axis -1
    out = Select(auto_broadcast="pdpd", axis=-1).evaluate(trail, then, other)[0]
    np.testing.assert_array_equal(out, np.where(trail, then, other))
    mid = np.array([False, True, True])  # [3] at axis 1
    out = Select(auto_broadcast="pdpd", axis=1).evaluate(mid, then, other[:, :, :1])[0]
    np.testing.assert_array_equal(out, np.where(mid[None, :, None], then, other[:, :, :1]))


def test_constant_inputs_fold_to_a_value() -> None:
    y = opset.select(opset.constant(np.array([True, False])), opset.constant(np.array([1, 2], np.int64)),
                     opset.constant(np.array([5, 6], np.int64)))
    assert y.tensor_type.value.tolist() == [1, 6]


def test_64_bit_types_are_exact() -> None:
    """The CPU plugin computes i64 in 32 bits and f64 as f32; graphir keeps the spec's exact values."""
    big = np.array([2**40 + 1, -(2**50)], np.int64)
    out = _run(_model((2,), (2,), (2,), "i64"), np.array([True, False]), big, big[::-1].copy())
    assert out.tolist() == [2**40 + 1, 2**40 + 1]
    tiny = np.array([1e300, 1e-300])
    out = _run(_model((2,), (2,), (2,), "f64"), np.array([True, True]), tiny, -tiny)
    assert out.tolist() == [1e300, 1e-300]


# --- values against the OpenVINO CPU plugin -------------------------------------------------------

def _ov_run(ov, xml_or_model, arrays, et: str, config: dict | None = None) -> np.ndarray:
    core = ov.Core()
    compiled = core.compile_model(xml_or_model, "CPU", config or {})
    tensors = []
    for array, port in zip(arrays, compiled.inputs):
        if array.dtype == ml_dtypes.bfloat16:
            tensor = ov.Tensor(ov.Type.bf16, ov.Shape(list(array.shape)))
            tensor.data[...] = array.view(np.uint16).view(np.float16)  # bf16 data is an f16 view of bits
            tensors.append(tensor)
        else:
            tensors.append(ov.Tensor(np.ascontiguousarray(array)))
    result = compiled(tensors)[compiled.outputs[0]]
    if et == "bf16":
        return np.asarray(result).view(np.uint16).view(ml_dtypes.bfloat16)
    return np.asarray(result)


def _ov_select(ov, shapes, et: str, mode: str = "numpy"):
    import openvino.opset1 as ops

    ps = [ops.parameter(list(s), t) for s, t in zip(shapes, (ov.Type.boolean,) + (getattr(ov.Type, et),) * 2)]
    return ov.Model([ops.select(*ps, auto_broadcast=mode)], ps, "select")


@pytest.mark.parametrize("et", ["f32", "f16", "bf16", "i32", "i8", "u8", "u32", "boolean"])
def test_values_match_openvino_cpu(ov, et: str) -> None:
    rng = np.random.default_rng(11)
    shapes = ((2, 1, 5), (3, 1), (1, 3, 5))
    dt = ElementType.parse(et).numpy_dtype
    cond = rng.random(shapes[0]) < 0.5
    then = (rng.standard_normal(shapes[1]) * 50).astype(dt)
    other = (rng.standard_normal(shapes[2]) * 50).astype(dt)
    ours = _run(_model(*shapes, et), cond, then, other)
    theirs = _ov_run(ov, _ov_select(ov, shapes, et), (cond, then, other), et)
    assert ours.dtype == dt
    assert_close(ours, theirs.astype(dt), dt)
    np.testing.assert_array_equal(ours.astype(np.float64), np.where(cond, then, other).astype(np.float64))


def test_zero_size_matches_openvino_cpu(ov) -> None:
    shapes = ((0, 3), (1, 3), (3,))
    args = (np.zeros((0, 3), bool), np.ones((1, 3), np.float32), np.zeros(3, np.float32))
    theirs = _ov_run(ov, _ov_select(ov, shapes, "f32"), args, "f32")
    assert _run(_model(*shapes, "f32"), *args).shape == theirs.shape == (0, 3)


def test_pdpd_trailing_axis_values_match_openvino_cpu(ov) -> None:
    """pdpd compiles on CPU with axis -1 set in the IR; compare the values."""
    from graphir.shapes import PartialShape
    from tests.test_select_differential import select_ir

    shapes = ((4,), (2, 3, 4), (3, 4))
    xml = select_ir(tuple(PartialShape(s) for s in shapes), -1)
    model = ov.Core().read_model(xml.encode(), ov.Tensor(ov.Type.u8, [0]))
    rng = np.random.default_rng(5)
    cond = rng.random(4) < 0.5
    then = rng.standard_normal((2, 3, 4)).astype(np.float32)
    other = rng.standard_normal((3, 4)).astype(np.float32)
    theirs = _ov_run(ov, model, (cond, then, other), "f32")
    ours = _run(_model(*shapes, "f32", mode="pdpd", axis=-1), cond, then, other)
    np.testing.assert_array_equal(ours, theirs)


def test_pdpd_leading_axis_values_match_openvino_cpu(ov) -> None:
    """The CPU plugin compiles a pdpd Select only with snippets off; then it aligns cond at axis 0."""
    shapes = ((2, 3), (2, 3, 4), (2, 3, 4))
    rng = np.random.default_rng(9)
    cond = rng.random(shapes[0]) < 0.5
    then = rng.standard_normal(shapes[1]).astype(np.float32)
    other = rng.standard_normal(shapes[2]).astype(np.float32)
    theirs = _ov_run(ov, _ov_select(ov, shapes, "f32", "pdpd"), (cond, then, other), "f32",
                     {"SNIPPETS_MODE": "DISABLE"})
    ours = _run(_model(*shapes, "f32", mode="pdpd", axis=0), cond, then, other)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(ours, np.where(cond[:, :, None], then, other))
