"""Sigmoid, HSwish and HSigmoid on f32 bit for bit as OpenVINO 2026.4's CPU plugin computes them (graphir/numerics/openvino_cpu/exp.py
replays, the ``openvino-cpu`` numerics profile) oneDNN's JIT logistic): every bit of 400,000 outputs, random and special inputs, static and
dynamic shapes. (numpy's exp-based formula differs in the last bit for about half of them, which
reorders near-equal detection scores.)"""
from __future__ import annotations

import numpy as np
import pytest

from graphir.numerics.openvino_cpu import exp as cpu_exp
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


@pytest.mark.parametrize("builder", ["hswish", "hsigmoid"])
def test_hard_activations_reference_profile_is_openvinos_reference_bit_for_bit(ov, builder: str) -> None:
    """The reference profile (the default) computes the spec's ``x * min(max(x + 3, 0), 6) / 6`` as
    OpenVINO's reference evaluator does (f32, and f16 through f32): every bit, NaN payloads included,
    on every kind of f32; the CPU plugin's rounding (the openvino-cpu profile) differs on many."""
    from openvino import opset13 as ops

    from graphir import opset
    from graphir.model import Model
    from tests.ops.ov_diff import reference

    x = _random_bits()
    p = opset.parameter([x.size], "f32")
    model = Model([getattr(opset, builder)(p)], [p.node])
    want = reference(ov, getattr(ops, builder), [x])[0]
    with np.errstate(all="ignore"):
        got = list(model.run([x]).values())[0]
        cpu = list(model.run([x], numerics="openvino-cpu").values())[0]
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.count_nonzero(cpu.view(np.uint32) != got.view(np.uint32)) > 1000
    half = x[np.isfinite(x) & (np.abs(x) < 60000)].astype(np.float16)
    p16 = opset.parameter([half.size], "f16")
    got16 = list(Model([getattr(opset, builder)(p16)], [p16.node]).run([half]).values())[0]
    np.testing.assert_array_equal(got16.view(np.uint16), reference(ov, getattr(ops, builder), [half])[0].view(np.uint16))


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
    from graphir.numerics.openvino_cpu.hard_activations import SIXTH_DOWN as _SIXTH_DOWN

    f = np.float32
    shifted = (v + f(3)).astype(f)
    shifted = np.where(shifted > f(0), shifted, f(0))
    shifted = np.where(shifted < f(6), shifted, f(6))
    return (shifted * _SIXTH_DOWN).astype(f)


def _cpu_into(into):  # noqa: ANN001, ANN202
    def fn(v: np.ndarray) -> np.ndarray:
        out = np.empty_like(v)
        into(v, out)
        return out

    return fn


@pytest.mark.parametrize("name, reference", [("hswish_into", _hswish_where), ("hsigmoid_into", _hsigmoid_where),
                                             ("_swish", lambda v: v / (1.0 + np.exp(-1.0 * v))),
                                             ("_swish_beta", lambda v: v / (1.0 + np.exp(-0.7 * v)))])
def test_in_place_activations_keep_the_bits_of_their_plain_numpy_form(name: str, reference) -> None:  # noqa: ANN001
    """HSwish/HSigmoid (the openvino-cpu profile's) and Swish run in one buffer (clip, fmax for x86's
    minps/maxps); the bits are those of the plain formulation (which the OpenVINO tests above pin
    down) on every kind of f32."""
    from graphir.numerics.openvino_cpu import hard_activations
    from graphir.ops.openvino import activations

    x = _random_bits()
    if name == "_swish_beta":
        fn = lambda v: activations._swish(v, 0.7)  # noqa: E731
    elif name == "_swish":
        fn = lambda v: activations._swish(v, 1.0)  # noqa: E731
    else:
        fn = _cpu_into(getattr(hard_activations, name))
    with np.errstate(all="ignore"):
        got, want = fn(x), reference(x)
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        x64 = x.astype(np.float64)[np.isfinite(x)]
        if name.startswith("_swish"):
            np.testing.assert_array_equal(fn(x64), reference(x64))


def _exact_fma(x: np.float32, y: np.float32, z: np.float32) -> np.float32:
    """``x * y + z`` rounded once to f32 (ties to even), from exact rational arithmetic."""
    from fractions import Fraction

    exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    lo = np.float32(float(exact))
    return min((lo, np.nextafter(lo, np.float32(np.inf)), np.nextafter(lo, np.float32(-np.inf))),
               key=lambda v: (abs(Fraction(float(v)) - exact), int(np.array(v).view(np.uint32)) & 1))


def test_fused_multiply_add_double_rounding_cases_take_the_careful_path() -> None:
    """Sums just under an f32 halfway point whose f64 rounding lands exactly on it: rounding that
    f64 to f32 (ties to even) would go up; the fused result stays below. Also f32-subnormal sums."""
    rng = np.random.default_rng(9)
    odd = (rng.integers(1, 1 << 22, 200) * 2 + 1 + (127 << 23)).astype(np.uint32).view(np.float32)  # [1, 2), odd
    c = np.concatenate([odd, -odd])
    a = np.full(c.shape, np.float32(1 + 2.0 ** -23))
    b = np.full(c.shape, np.float32(2.0 ** -24 * (1 - 2.0 ** -23)))
    b[c < 0] *= -1
    got = cpu_exp.fma_f32(a, b, c)
    want = np.array([_exact_fma(x, y, z) for x, y, z in zip(a, b, c)], np.float32)
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert (naive != want).all()  # every case is one where one f64 sum rounded to f32 is wrong
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    tiny = rng.uniform(-1, 1, 300).astype(np.float32) * np.float32(2.0 ** -63)  # products in the subnormal range
    small = (rng.uniform(-1, 1, 300) * 2.0 ** -126).astype(np.float32)
    got = cpu_exp.fma_f32(tiny, tiny[::-1], small)
    want = np.array([_exact_fma(x, y, z) for x, y, z in zip(tiny, tiny[::-1], small)], np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_fused_multiply_add_fast_path_keeps_the_careful_bits() -> None:
    """The careful path alone (the former fma_f32) against the fast check, on every kind of f32
    but NaN (numpy's loops do not keep one NaN payload of two: exp_f32 never passes NaN here)."""
    rng = np.random.default_rng(12)
    bits = _random_bits()
    bits = bits[~np.isnan(bits)]
    a, b, c = (bits[rng.permutation(bits.size)] for _ in range(3))
    with np.errstate(all="ignore"):
        got = cpu_exp.fma_f32(a, b, c)
        p = a.astype(np.float64) * b
        c64 = c.astype(np.float64)
        want = cpu_exp._fma_f32_careful(p, c64, p + c64, (p + c64).astype(np.float32))
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_blocked_logistic_gives_the_bits_of_one_pass() -> None:
    x = _random_bits()
    with np.errstate(all="ignore"):
        whole = cpu_exp._logistic_block(x)
        blocked = cpu_exp.logistic_f32(x.reshape(3, -1))
    assert x.size > cpu_exp.LOGISTIC_BLOCK and blocked.shape == (3, x.size // 3)
    np.testing.assert_array_equal(blocked.reshape(-1).view(np.uint32), whole.view(np.uint32))


def test_checked_logistic_keeps_the_careful_bits_on_every_kind_of_input() -> None:
    """Small inputs (EfficientNet's squeeze-excite gates) take the form with one check over all
    six FMAs' sums: where it answers, every bit is the step-by-step form's; where a sum needs
    the careful rounding (subnormal inputs here) it answers None and the block is computed again."""
    rng = np.random.default_rng(21)
    answered = fell_back = 0
    with np.errstate(all="ignore"):
        for x in (_random_bits(), (rng.standard_normal(200_000) * 5).astype(np.float32), SPECIAL):
            for start in range(0, x.size, 1024):
                block = x[start:start + 1024]
                fast = cpu_exp._logistic_block_fast(block)
                if fast is None:
                    fell_back += 1
                    continue
                answered += 1
                np.testing.assert_array_equal(fast.view(np.uint32), cpu_exp._logistic_block(block).view(np.uint32))
    assert answered > 150 and fell_back > 0
    assert cpu_exp._logistic_block_fast(np.array([1e-45], np.float32)) is None  # r is f32-subnormal


def test_small_sigmoid_inputs_take_the_checked_form(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(22)
    x = (rng.standard_normal((1, 1152, 1, 1)) * 4).astype(np.float32)
    with np.errstate(all="ignore"):
        want = cpu_exp._logistic_block(x.reshape(-1)).reshape(x.shape)

    def careful(block: np.ndarray) -> np.ndarray:
        raise AssertionError("the step-by-step form was used")

    monkeypatch.setattr(cpu_exp, "_logistic_block", careful)
    got = cpu_exp.logistic_f32(x)
    assert got.shape == x.shape
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("size", [96, 1152, 2048])
def test_small_sigmoid_bits_equal_openvino_cpu(ov, size: int) -> None:
    from openvino import Core, Model, Type, opset13 as ops

    x = np.concatenate([SPECIAL, _inputs()[:size - len(SPECIAL)]])
    got = cpu_exp.logistic_f32(x)
    p = ops.parameter([size], Type.f32)
    want = Core().compile_model(Model([ops.sigmoid(p)], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([x])[0]
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
