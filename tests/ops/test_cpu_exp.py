"""Sigmoid, HSwish and HSigmoid on f32 bit for bit as OpenVINO 2026.4's CPU plugin computes them (graphir/ops/openvino/cpu_exp.py
replays oneDNN's JIT logistic): every bit of 400,000 outputs, random and special inputs, static and
dynamic shapes. (numpy's exp-based formula differs in the last bit for about half of them, which
reorders near-equal detection scores.)"""
from __future__ import annotations

import numpy as np
import pytest

from graphir.ops.openvino import cpu_exp
from tests.ops.ov_diff import Param
from tests.ops.test_shape_ops import same

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, -87.33655, -87.4, -88.0, 88.7, 89.0,
                    -100.0, 100.0, 16.63, -16.63, 1e-8, -1e-8, 0.5, -0.5], np.float32)


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(7)
    return np.concatenate([rng.standard_normal(300_000) * 3, rng.uniform(-100, 100, 100_000 - len(SPECIAL)),
                           SPECIAL]).astype(np.float32)


@pytest.mark.parametrize("shape", ["[400000]", "[?]"])
def test_sigmoid_f32_bits_equal_openvino_cpu(ov, shape: str) -> None:
    x = _inputs()
    got = same(ov, "Sigmoid", "opset1", {}, [Param(shape)], [x])[0]
    from openvino import Core, Model, Type, opset13 as ops

    p = ops.parameter([-1] if shape == "[?]" else [x.size], Type.f32)
    want = Core().compile_model(Model([ops.sigmoid(p)], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([x])[0]
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_fused_multiply_add_rounds_once() -> None:
    """fma_f32 against exact rational arithmetic rounded once to f32 (ties to even), on triples
    chosen so that a * b and c nearly cancel (where a separate f32 product would be wrong)."""
    from fractions import Fraction

    rng = np.random.default_rng(3)
    a = rng.uniform(0.5, 2, 2000).astype(np.float32)
    b = rng.uniform(0.5, 2, 2000).astype(np.float32)
    c = (-(a.astype(np.float64) * b) * (1 + rng.uniform(-1e-6, 1e-6, 2000))).astype(np.float32)
    got = cpu_exp.fma_f32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        lo = np.float32(float(exact))  # nearest f64, then the f32 neighbours around it
        best = min((lo, np.nextafter(lo, np.float32(np.inf)), np.nextafter(lo, np.float32(-np.inf))),
                   key=lambda v: (abs(Fraction(float(v)) - exact), int(np.array(v).view(np.uint32)) & 1))
        assert g == best, (x, y, z)


@pytest.mark.parametrize("op_type, opset, builder", [("HSwish", "opset4", "hswish"), ("HSigmoid", "opset5", "hsigmoid")])
def test_hard_activation_f32_bits_equal_openvino_cpu(ov, op_type: str, opset: str, builder: str) -> None:
    x = _inputs()[:200_000]
    got = same(ov, op_type, opset, {}, [Param("[?]")], [x])[0]
    from openvino import Core, Model, Type, opset13 as ops

    p = ops.parameter([-1], Type.f32)
    want = Core().compile_model(Model([getattr(ops, builder)(p)], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([x])[0]
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
