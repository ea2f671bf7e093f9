"""The table Gelu (graphir.kernels.gelu) against its former formulation, bit for bit.

The former formulation is the Gelu op's ``compute`` (``compute_real(v, gelu_erf)``: scipy's f64
erf). Every f32 number of whole binades, the table's edges, every special kind of value (NaN
payloads of both signs at every position, +-0, subnormals, inf, huge magnitudes) and the
distributions of real models; ``benchmarks/gelu_exhaustive.py`` covers all 2.2e9 f32 numbers of
the table's range (0 differ, 0.84% computed by the formula, 2026-11-24).
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

from graphir import Model, opset
from graphir.interpreter import get_plan, _run_unspecialized, specialization
from graphir.kernels import gelu
from graphir.ops.openvino.activations import _gelu_erf_reference, gelu_erf


@pytest.fixture(autouse=True)
def _table_for_every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small arrays normally take the formula (MIN_ELEMENTS): here the table decides them too."""
    monkeypatch.setattr(gelu, "MIN_ELEMENTS", 0)


def _same_bits(v: np.ndarray) -> int:
    """Assert the kernel (into a new array and into ``v`` itself) gives the formula's bits; return
    how many elements the formula computed."""
    with np.errstate(all="ignore"):
        expected = np.asarray(gelu_erf(v), np.float32)
    out = np.empty_like(v)
    fallbacks = gelu.gelu_erf_f32_fallbacks(v, out, _gelu_erf_reference)
    assert out.tobytes() == expected.tobytes()
    inplace = v.copy()
    gelu.gelu_erf_f32(inplace, inplace, _gelu_erf_reference)
    assert inplace.tobytes() == expected.tobytes()
    return fallbacks


def _binade(low_bits: int, high_bits: int, stride: int = 1) -> np.ndarray:
    return np.arange(low_bits, high_bits, stride, dtype=np.uint32).view(np.float32)


def _bits(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def test_the_reference_is_the_ops_compute() -> None:
    from graphir.ops.openvino.activations import Gelu, Gelu7

    v = np.linspace(-6, 9, 1001, dtype=np.float32)
    expected = _gelu_erf_reference(v).tobytes()
    assert Gelu().evaluate(v)[0].tobytes() == expected
    assert Gelu7(approximation_mode="ERF").evaluate(v)[0].tobytes() == expected


@pytest.mark.parametrize("low,high", [(0.5, 1.0), (1.0, 2.0), (2.0, 4.0), (-1.0, -0.5), (-2.0, -1.0), (-4.0, -2.0),
                                      (-4.5, -4.0)])
def test_every_f32_of_a_binade(low: float, high: float) -> None:
    if low < 0:
        v = _binade(_bits(high), _bits(low) + 1)
    else:
        v = _binade(_bits(low), _bits(high))
    fallbacks = _same_bits(v)
    assert fallbacks < 0.02 * v.size  # the table decided the rest


def test_every_subnormal() -> None:
    """Halving a subnormal rounds in f32: where ``0.5 v`` is not an f32 number the table's product
    sits on a rounding midpoint and the formula decides."""
    _same_bits(np.concatenate([_binade(0, 0x00800001), _binade(0x80000000, 0x80800001)]))


def test_a_sample_of_every_f32_in_and_around_the_range() -> None:
    positive = _binade(0, _bits(gelu.V_HIGH * 2), 997)  # subnormals to past V_HIGH
    negative = _binade(0x80000000, _bits(gelu.V_LOW * 2), 997)
    _same_bits(np.concatenate([positive, negative]))


def test_edges_and_special_values() -> None:
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    edges = [0.0, -0.0, tiny, -tiny, 3 * tiny, -3 * tiny, 5 * tiny, -5 * tiny, 1e-40, -1e-40, 2.0 ** -126, -(2.0 ** -126),
             2.0 ** -125, 1e-30, -1e-30, gelu.V_LOW, gelu.V_HIGH, np.nextafter(np.float32(gelu.V_LOW), np.float32(-9)),
             np.nextafter(np.float32(gelu.V_HIGH), np.float32(9)), gelu.V_HIGH + 1 / 2048, gelu.V_LOW - 1 / 2048,
             8.0, -8.0, 10.0, -10.0, 13.5, -13.5, 30.0, -30.0, 1e30, -1e30, 3.4e38, -3.4e38, np.inf, -np.inf]
    _same_bits(np.array(edges, np.float32))
    # every row centre and the midpoints between rows
    k = np.arange(round(gelu.V_LOW * gelu.GRID) - 2, round(gelu.V_HIGH * gelu.GRID) + 3)
    _same_bits(np.concatenate([k / gelu.GRID, (k + 0.5) / gelu.GRID]).astype(np.float32))


@pytest.mark.parametrize("size", [1, 7, 16, 33, 1000, gelu.BLOCK + 3])
def test_nan_payloads_and_signs_at_every_position(size: int) -> None:
    """A NaN's result depends on numpy's loop (vector body or scalar tail) at its position: the
    kernel reproduces the whole array's results, wherever the NaNs sit."""
    rng = np.random.default_rng(size)
    v = rng.standard_normal(size).astype(np.float32)
    bits = v.view(np.uint32)
    places = rng.permutation(size)[: max(1, size // 5)]
    payloads = rng.integers(1, 1 << 22, places.size, dtype=np.uint32)
    signs = rng.integers(0, 2, places.size, dtype=np.uint32) << 31
    bits[places] = signs | 0x7F800000 | payloads | 0x00400000
    bits[places[::3]] &= ~np.uint32(0x00400000)  # some signalling
    bits[places[::3]] |= 1
    if size > 3:
        v[-1] = np.nan
        v[0] = -np.inf
    _same_bits(v)


@pytest.mark.parametrize("scale", [0.2, 1.0, 3.0, 30.0])
def test_model_like_distributions_and_the_fast_path(scale: float) -> None:
    rng = np.random.default_rng(int(scale * 10))
    v = (rng.standard_normal((3, 65, 512)) * scale).astype(np.float32)
    fallbacks = _same_bits(v)
    outside = np.count_nonzero((v < gelu.V_LOW) | (v > gelu.V_HIGH))
    assert fallbacks - outside < 0.01 * v.size  # ~0.3-0.6% near rounding boundaries


def test_small_arrays_take_the_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gelu, "MIN_ELEMENTS", 8192)
    v = np.linspace(-2, 2, 8191, dtype=np.float32)
    assert _same_bits(v) == v.size
    v = np.linspace(-2, 2, 8192, dtype=np.float32)
    assert _same_bits(v) < 0.02 * v.size


def test_table_error_is_far_below_the_tolerance() -> None:
    v = np.linspace(gelu.V_LOW, gelu.V_HIGH, 20001, dtype=np.float32)
    error = gelu.table_error(v)
    assert 0 < error < gelu.TOLERANCE / 4


def test_threads_share_the_tables_not_the_scratch() -> None:
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal(50000 + 1000 * i).astype(np.float32) for i in range(4)]
    with np.errstate(all="ignore"):
        expected = [np.asarray(gelu_erf(v), np.float32).tobytes() for v in inputs]
    results: list[bytes | None] = [None] * len(inputs)

    def work(i: int) -> None:
        for _ in range(5):
            results[i] = gelu.gelu_erf_f32(inputs[i], np.empty_like(inputs[i]), _gelu_erf_reference).tobytes()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == expected


@pytest.mark.parametrize("version", ["opset2", "opset7"])
def test_gelu_steps_take_the_table_and_keep_the_generic_bits(version: str) -> None:
    """In a run plan: the table kernel, into the MatMul's fresh output; the bits of ``specialize=False``."""
    rng = np.random.default_rng(3)
    x = opset.parameter([2, 40, 64], "f32", name="x")
    w = opset.constant(rng.standard_normal((64, 300)).astype(np.float32))
    product = opset.matmul(x, w, False, False)
    y = opset.make("Gelu", product, version=version)
    model = Model([y], [x.node])
    value = (rng.standard_normal((2, 40, 64)) * 0.5).astype(np.float32)
    spec = specialization(model, get_plan(model), [value])
    names = {getattr(step[0], "__name__", "") for step in spec.steps if step[-1].op.type_name == "Gelu"}
    assert names == {"gelu_into"}
    fast = model.run([value])
    generic = _run_unspecialized(model, [value])
    assert [a.tobytes() for a in fast.values()] == [a.tobytes() for a in generic.values()]


def test_tanh_form_and_other_types_keep_their_steps() -> None:
    for dtype, mode, name in (("f32", "tanh", "unary"), ("f64", "erf", "unary")):
        x = opset.parameter([4, 5], dtype, name="x")
        model = Model([opset.gelu(x, approximation_mode=mode)], [x.node])
        value = np.linspace(-3, 3, 20).reshape(4, 5).astype(dtype.replace("f", "float"))
        spec = specialization(model, get_plan(model), [value])
        assert {getattr(step[0], "__name__", "") for step in spec.steps} == {name}
