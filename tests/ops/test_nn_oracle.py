"""The differential oracle the NN/reduction/recurrent tests share: build the same single op in
graphir and in openvino, then compare inferred types/shapes and CPU values (f32 precision hint,
tolerances from tests/tolerances.py)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from graphir import opset
from graphir.model import Model
from tests.tolerances import assert_close

_CORE: list[Any] = []


def core(ov: Any) -> Any:
    if not _CORE:
        _CORE.append(ov.Core())
    return _CORE[0]


def ov_type(ov: Any, dtype: str) -> Any:
    return ov.Type(np.dtype({"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32,
                             "i64": np.int64, "boolean": np.bool_, "u8": np.uint8, "i8": np.int8}[dtype]))


def diff(
    ov: Any,
    build_gr: Callable[..., Any],
    build_ov: Callable[..., Any],
    params: Sequence[tuple[str, str]],
    inputs: Sequence[np.ndarray] | None = None,
    *,
    values: bool = True,
    tolerance_dtype: Any = None,
) -> list[np.ndarray]:
    """Build one graph in both from ``params`` (shape text, dtype) and compare.

    ``build_gr(*graphir outputs)`` and ``build_ov(*openvino parameters)`` return one output or a
    list. Shapes and element types must print identically; with ``inputs`` the values must agree.
    Returns graphir's output values (or [] without inputs).
    """
    from openvino import opset13 as ops

    gr_params = [opset.parameter(shape, dtype) for shape, dtype in params]
    ov_params = [ops.parameter(ov.PartialShape(shape), ov_type(ov, dtype)) for shape, dtype in params]
    gr_out = build_gr(*gr_params)
    ov_out = build_ov(*ov_params)
    gr_out = list(gr_out) if isinstance(gr_out, (list, tuple)) else gr_out.outputs() if hasattr(gr_out, "outputs") else [gr_out]
    if not isinstance(ov_out, (list, tuple)):
        ov_out = [ov_out.output(i) for i in range(ov_out.get_output_size())] if hasattr(ov_out, "get_output_size") else [ov_out]
    ov_out = [o.output(0) if hasattr(o, "get_output_size") else o for o in ov_out]
    assert len(gr_out) == len(ov_out), f"{len(gr_out)} outputs vs openvino's {len(ov_out)}"
    for i, (g, o) in enumerate(zip(gr_out, ov_out)):
        assert str(g.shape) == str(o.get_partial_shape()), f"output {i}: shape {g.shape} vs openvino {o.get_partial_shape()}"
        assert str(g.element_type) == o.get_element_type().get_type_name(), (
            f"output {i}: type {g.element_type} vs openvino {o.get_element_type().get_type_name()}")
    if inputs is None or not values:
        return []
    model = Model(gr_out, gr_params)
    got = list(model.run(list(inputs)).values())
    ov_model = ov.Model([ops.result(o) for o in ov_out], ov_params)
    compiled = core(ov).compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer([np.ascontiguousarray(x) for x in inputs])
    for i, g in enumerate(got):
        expected = request.get_output_tensor(i).data.copy()
        assert_close(g, expected, tolerance_dtype if tolerance_dtype is not None else expected.dtype)
    return got


def rand(shape: Sequence[int], dtype: str = "f32", seed: int = 0, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype in ("i32", "i64", "u8", "i8"):
        return rng.integers(int(low), int(high) + 1, size=tuple(shape)).astype(
            {"i32": np.int32, "i64": np.int64, "u8": np.uint8, "i8": np.int8}[dtype])
    if dtype == "boolean":
        return rng.random(tuple(shape)) > 0.5
    return rng.uniform(low, high, size=tuple(shape)).astype({"f32": np.float32, "f16": np.float16, "f64": np.float64}[dtype])


def test_oracle_detects_a_wrong_value(ov: Any) -> None:
    """The helper itself fails when graphir and openvino disagree (so a pass means something)."""
    from openvino import opset13 as ops
    import pytest

    x = rand([2, 3])
    with pytest.raises(AssertionError):
        diff(ov, lambda a: opset.reduce_sum(a, np.array([1]), keep_dims=False),
             lambda a: ops.reduce_max(a, np.array([1]), keep_dims=False), [("[2,3]", "f32")], [x])
    with pytest.raises(AssertionError, match="shape"):
        diff(ov, lambda a: opset.reduce_sum(a, np.array([1]), keep_dims=True),
             lambda a: ops.reduce_sum(a, np.array([1]), keep_dims=False), [("[2,3]", "f32")], None)
