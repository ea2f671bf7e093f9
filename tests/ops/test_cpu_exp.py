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


def _random_bits() -> np.ndarray:
    """Every kind of f32: random bit patterns (NaN payloads, subnormals, infinities) and SPECIAL."""
    rng = np.random.default_rng(11)
    return np.concatenate([rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
                           (rng.standard_normal(100_000) * 4).astype(np.float32), SPECIAL])


def _hswish_where(v: np.ndarray) -> np.ndarray:  # the former formulation (np.where for minps/maxps)
    f = np.float32
    gate = (v * f(1 / 6)).astype(f) + f(0.5)
    gate = np.where(gate < f(1), gate, f(1))
    gate = np.where(gate > f(0), gate, f(0))
    return (v * gate).astype(f)


def _hsigmoid_where(v: np.ndarray) -> np.ndarray:
    from graphir.ops.openvino.activations import _SIXTH_DOWN

    f = np.float32
    shifted = (v + f(3)).astype(f)
    shifted = np.where(shifted > f(0), shifted, f(0))
    shifted = np.where(shifted < f(6), shifted, f(6))
    return (shifted * _SIXTH_DOWN).astype(f)


@pytest.mark.parametrize("name, reference", [("_hswish_f32", _hswish_where), ("_hsigmoid_f32", _hsigmoid_where),
                                             ("_swish", lambda v: v / (1.0 + np.exp(-1.0 * v))),
                                             ("_swish_beta", lambda v: v / (1.0 + np.exp(-0.7 * v)))])
def test_in_place_activations_keep_the_bits_of_their_plain_numpy_form(name: str, reference) -> None:  # noqa: ANN001
    """HSwish/HSigmoid/Swish run in one buffer with fmin/fmax for x86's minps/maxps; the bits are
    those of the plain formulation (which the OpenVINO tests above pin down) on every kind of f32."""
    from graphir.ops.openvino import activations

    x = _random_bits()
    if name == "_swish_beta":
        fn = lambda v: activations._swish(v, 0.7)  # noqa: E731
    elif name == "_swish":
        fn = lambda v: activations._swish(v, 1.0)  # noqa: E731
    else:
        fn = getattr(activations, name)
    with np.errstate(all="ignore"):
        got, want = fn(x), reference(x)
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        x64 = x.astype(np.float64)[np.isfinite(x)]
        if name.startswith("_swish"):
            np.testing.assert_array_equal(fn(x64), reference(x64))
