"""f32 Divide as OpenVINO CPU computes it in a run: ``a * (1 / b)``, the ``openvino-cpu`` numerics
profile (graphir/numerics/openvino_cpu/divide.py); the reference profile divides exactly, as the spec says.

Found where Mask R-CNN's run first departed from OpenVINO's (tests/detectors/test_mask_departure.py):
the input normalisation ``(x - mean) / std``. OpenVINO's constant folding divides exactly; graphir
folds as it runs (a folded value must be what a run computes), which the last test records.
"""
from __future__ import annotations

import numpy as np

import graphir
from graphir import opset


def _operands(n: int = 200_000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-38, 38, n)).astype(np.float32)
    b = (rng.standard_normal(n) * 10.0 ** rng.integers(-38, 38, n)).astype(np.float32)
    b[:100], a[100:200], b[200:300], a[400:500], b[500:600] = 0, 0, np.inf, np.nan, 3e-39  # zeros, inf, NaN, subnormal
    b[300:400] = -1e-42
    return a, b


def _same(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return (x == y) | (np.isnan(x) & np.isnan(y))


def test_a_run_divides_as_openvino_cpu(ov) -> None:
    import openvino.opset11 as ops

    a, b = _operands()
    pa, pb = ops.parameter(list(a.shape), np.float32), ops.parameter(list(b.shape), np.float32)
    compiled = ov.Core().compile_model(ov.Model([ops.divide(pa, pb)], [pa, pb]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    want = compiled([a, b])[0]
    x, y = opset.parameter(list(a.shape), "f32", name="a"), opset.parameter(list(b.shape), "f32", name="b")
    got = list(graphir.Model([opset.divide(x, y)], [x, y]).run([a, b], numerics="openvino-cpu").values())[0]
    assert got.dtype == np.float32
    assert _same(got, want).all()
    with np.errstate(all="ignore"):
        assert (~_same(a / b, want)).sum() > 10_000  # what a true division would have missed


def test_a_scalar_and_a_broadcast_divisor_too(ov) -> None:
    import openvino.opset11 as ops

    a, b = _operands(4096)
    b[9] = 3.0
    divisor = np.float32(0.229)
    p = ops.parameter([4096], np.float32)
    want = ov.Core().compile_model(ov.Model([ops.divide(p, ops.constant(divisor))], [p]), "CPU",
                                   {"INFERENCE_PRECISION_HINT": "f32"})([a])[0]
    x = opset.parameter([4096], "f32", name="x")
    got = list(graphir.Model([opset.divide(x, opset.constant(divisor))], [x]).run([a], numerics="openvino-cpu").values())[0]
    assert _same(got, want).all() and not _same(a / divisor, want).all()
    s, t = opset.parameter([], "f32", name="s"), opset.parameter([], "f32", name="t")
    scalar = list(graphir.Model([opset.divide(s, t)], [s, t]).run([a[7], b[9]], numerics="openvino-cpu").values())[0]
    assert scalar.shape == () and scalar == a[7] * (np.float32(1) / b[9])


def test_constant_folding_is_where_openvino_divides_exactly(ov) -> None:
    """OpenVINO CPU folds a Divide of constants with an exact division; graphir folds with the
    run's arithmetic (specialization reuses folded values as what a run computes): up to 1 ulp."""
    import openvino.opset11 as ops

    rng = np.random.default_rng(5)  # normal magnitudes: the run's Add flushes subnormal sums to zero
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    p = ops.parameter([1000], np.float32)
    folded = ops.divide(ops.constant(a), ops.constant(b))
    want = ov.Core().compile_model(ov.Model([ops.add(folded, p)], [p]), "CPU",
                                   {"INFERENCE_PRECISION_HINT": "f32"})([np.zeros(1000, np.float32)])[0]
    assert _same(want, a / b).all() and not _same(want, a * (np.float32(1) / b)).all()
    x = opset.parameter([1000], "f32", name="x")
    got = list(graphir.Model([opset.add(opset.divide(opset.constant(a), opset.constant(b)), x)], [x])
               .run([np.zeros(1000, np.float32)], numerics="openvino-cpu").values())[0]
    assert _same(got, a * (np.float32(1) / b)).all()
    assert np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64)).max() == 1


def test_the_reference_profile_divides_exactly() -> None:
    a, b = _operands(4096)
    x, y = opset.parameter([4096], "f32", name="a"), opset.parameter([4096], "f32", name="b")
    got = list(graphir.Model([opset.divide(x, y)], [x, y]).run([a, b]).values())[0]
    with np.errstate(all="ignore"):
        assert _same(got, a / b).all() and not _same(got, a * (np.float32(1) / b)).all()
