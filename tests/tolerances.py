"""Comparison tolerances per element type, stated once for every differential test.

OpenVINO CPU runs with INFERENCE_PRECISION_HINT=f32; i64 and f64 are compared against the exact
(spec) value, not the plugin's 32-bit result.
"""
from __future__ import annotations

import numpy as np

#: element type name -> (rtol, atol)
TOLERANCES: dict[str, tuple[float, float]] = {
    "f64": (1e-6, 1e-6),
    "f32": (1e-4, 1e-5),
    "f16": (2e-3, 2e-3),
    "bf16": (2e-2, 2e-2),
    "f8e4m3": (1.25e-1, 1.25e-1),
    "f8e5m2": (2.5e-1, 2.5e-1),
}


def tolerance(dtype: object) -> tuple[float, float]:
    name = {"float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
            "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2"}.get(str(np.dtype(dtype)), "")
    return TOLERANCES.get(name, (0.0, 0.0))


def assert_close(actual: np.ndarray, expected: np.ndarray, dtype: object | None = None) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    rtol, atol = tolerance(dtype if dtype is not None else expected.dtype)
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol)
