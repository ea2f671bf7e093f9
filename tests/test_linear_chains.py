"""Chains of constant Adds/Multiplies run folded under the ``openvino-cpu`` numerics profile, as OpenVINO's
compile folds them (graphir/numerics/openvino_cpu/linear_chains.py); every run here asks for that profile,
except the last test's, which checks that the default (reference) profile computes the chain as written.

Each chain is built twice from the same constants (graphir's opset and OpenVINO's Python API) and
run on the same input: graphir's specialized run must equal OpenVINO CPU's output bit for bit
where the chain folds (OpenVINO's LinOpSequenceFusion reassociates it; the as-written chain differs,
which is asserted too, so the test cannot pass by computing the chain as written). Mixed Add/Multiply
chains are not folded: they run as written (their OpenVINO values are an FMA's, asserted below).
The user's model is never changed, and ``specialize=False`` still computes the chain as written."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from graphir import opset
from graphir.interpreter import execute, get_plan, specialization
from graphir.model import Model
from tests.ops.ov_diff import core, ov_type

N = 256


def _constants(kinds: str, dtype: str, shapes: Sequence[tuple[int, ...]], rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for kind, shape in zip(kinds, shapes):
        if dtype in ("i32", "i64"):
            value = rng.integers(-2**31, 2**31 - 1, size=shape)
        elif kind == "a":
            value = rng.standard_normal(shape) * 30
        else:
            value = 0.6 + rng.random(shape) * 0.8  # products stay finite over the chain
        out.append(np.asarray(value).astype({"f32": np.float32, "f16": np.float16, "i32": np.int32}[dtype]))
    return out


def _build(api: Any, kinds: str, x: Any, consts: list[Any], const_first: bool = False) -> list[Any]:
    """x -> op(c0) -> op(c1) -> ...; returns every intermediate output (index 0 is x)."""
    outs = [x]
    for kind, c in zip(kinds, consts):
        op = api.add if kind == "a" else api.multiply
        outs.append(op(c, outs[-1]) if const_first else op(outs[-1], c))
    return outs


def _both(ov: Any, kinds: str, dtype: str, consts: list[np.ndarray], shape: tuple[int, ...],
          results: Callable[[Any, list[Any]], list[Any]] = lambda api, outs: [outs[-1]], const_first: bool = False,
          compressed: bool = False) -> tuple[Model, Any]:
    """The same chain as a graphir Model and an OpenVINO model (``compressed``: f16 constants
    converted to f32 in the graph, as ``compress_to_fp16`` writes weights)."""
    from openvino import opset13 as ops

    def constants(api: Any, to_f32: Callable[[Any], Any]) -> list[Any]:
        if compressed:
            return [to_f32(api.constant(c.astype(np.float16))) for c in consts]
        return [api.constant(c) for c in consts]

    gx = opset.parameter(list(shape), dtype, name="x")
    g = _build(opset, kinds, gx, constants(opset, lambda c: opset.convert(c, destination_type="f32")), const_first)
    ox = ops.parameter(list(shape), ov_type(ov, dtype), name="x")
    o = _build(ops, kinds, ox, constants(ops, lambda c: ops.convert(c, "f32")), const_first)
    model = Model(results(opset, g), [gx.node])
    ov_model = ov.Model([ops.result(r) for r in results(ops, o)], [ox])
    return model, ov_model


def _ov_run(ov: Any, ov_model: Any, x: np.ndarray) -> list[np.ndarray]:
    compiled = core(ov).compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1})
    request = compiled.create_infer_request()
    request.infer([x])
    return [request.get_output_tensor(i).data.copy() for i in range(len(ov_model.outputs))]


def _input(dtype: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if dtype == "i32":
        return rng.integers(-2**31, 2**31 - 1, size=shape).astype(np.int32)
    return (rng.standard_normal(shape) * 100).astype({"f32": np.float32, "f16": np.float16}[dtype])


def run(model: Model, inputs: Any, specialize: bool = True) -> dict[str, np.ndarray]:
    """A run under the openvino-cpu profile (LinOpSequenceFusion is the CPU plugin's); with
    ``specialize=False`` every op's generic evaluate, nothing folded: the chain as written."""
    return execute(model, inputs, None, numerics="openvino-cpu", prepared=specialize)  # type: ignore[no-any-return]


def _steps(model: Model, x: np.ndarray) -> int:
    return len(specialization(model, get_plan(model), [x], numerics="openvino-cpu").steps)


FOLDED = [  # (id, kinds, element type, constant shapes, input shape, constants on port 0)
    ("add-f32", "a" * 12, "f32", [(N,)] * 12, (N,), False),
    ("multiply-f32", "m" * 12, "f32", [(N,)] * 12, (N,), False),
    ("add-f16", "a" * 8, "f16", [(N,)] * 8, (N,), False),
    ("multiply-f16", "m" * 8, "f16", [(N,)] * 8, (N,), False),
    ("add-i32", "a" * 6, "i32", [(N,)] * 6, (N,), False),
    ("multiply-i32", "m" * 6, "i32", [(N,)] * 6, (N,), False),
    ("constants-first", "a" * 8, "f32", [(N,)] * 8, (N,), True),
    ("broadcast", "aaaaaa", "f32", [(N,), (4, 1), (1, N), (), (4, N), (1, 1, N)], (4, N), False),
]


@pytest.mark.parametrize("kinds,dtype,shapes,shape,const_first", [c[1:] for c in FOLDED], ids=[c[0] for c in FOLDED])
def test_a_folded_chain_equals_openvino_bit_for_bit(ov: Any, kinds: str, dtype: str, shapes: list[tuple[int, ...]],
                                                    shape: tuple[int, ...], const_first: bool) -> None:
    rng = np.random.default_rng(len(kinds) + len(shapes[1]))
    consts = _constants(kinds, dtype, shapes, rng)
    model, ov_model = _both(ov, kinds, dtype, consts, shape, const_first=const_first)
    x = _input(dtype, shape, rng)
    (want,) = _ov_run(ov, ov_model, x)
    (got,) = run(model, [x]).values()
    (as_written,) = run(model, [x], specialize=False).values()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    if dtype == "i32":  # wrapping arithmetic: folding changes the time only
        assert as_written.tobytes() == want.tobytes()
    else:  # the chain as written rounds differently: the test sees the reassociation
        assert as_written.tobytes() != want.tobytes()
    assert _steps(model, x) == 1


def test_compressed_f16_constants_fold_in_f32_as_openvino_does(ov: Any) -> None:
    """Constant -> Convert(f32) inputs are constants of the chain (OpenVINO folds the Converts first)."""
    rng = np.random.default_rng(7)
    consts = _constants("a" * 10, "f32", [(N,)] * 10, rng)
    model, ov_model = _both(ov, "a" * 10, "f32", consts, (N,), compressed=True)
    x = _input("f32", (N,), rng)
    (want,) = _ov_run(ov, ov_model, x)
    (got,) = run(model, [x]).values()
    assert got.tobytes() == want.tobytes()
    (as_written,) = run(model, [x], specialize=False).values()
    assert as_written.tobytes() != want.tobytes()
    assert _steps(model, x) == 1


def test_a_second_reader_splits_the_chain_as_openvino_does(ov: Any) -> None:
    """x+c0 read twice (the chain and a Relu), x+c0+c1+c2 also a Result: OpenVINO folds only
    links whose first op has one consumer: ((x+c0) + (c1+c2)) + c3... checked against its bits."""
    rng = np.random.default_rng(3)
    consts = _constants("a" * 6, "f32", [(N,)] * 6, rng)
    model, ov_model = _both(ov, "a" * 6, "f32", consts, (N,),
                            results=lambda api, outs: [outs[-1], api.relu(outs[1]), outs[3]])
    x = _input("f32", (N,), rng)
    want = _ov_run(ov, ov_model, x)
    got = list(run(model, [x]).values())
    for g, w in zip(got, want):
        assert g.tobytes() == w.tobytes()
    c = consts
    first = x + c[0]
    assert got[2].tobytes() == (first + (c[1] + c[2])).tobytes()  # the Result splits after c2
    assert got[0].tobytes() == ((first + (c[1] + c[2])) + ((c[3] + c[4]) + c[5])).tobytes()
    assert _steps(model, x) == 4  # x+c0, +(c1+c2), +(c3+c4+c5), Relu


@pytest.mark.parametrize("kinds", ["am", "ma", "aamm", "mmaa", "amam"])
def test_mixed_add_multiply_chains_run_as_written(ov: Any, kinds: str) -> None:
    """OpenVINO rewrites (x+a)*m into x*m + a*m and computes a Multiply then Add of constants as one
    FMA: graphir cannot match that exactly without an emulated FMA, so it leaves mixed chains alone."""
    from graphir.numerics.openvino_cpu.exp import fma_f32

    rng = np.random.default_rng(len(kinds))
    consts = _constants(kinds, "f32", [(N,)] * len(kinds), rng)
    model, ov_model = _both(ov, kinds, "f32", consts, (N,))
    x = _input("f32", (N,), rng)
    (got,) = run(model, [x]).values()
    (as_written,) = run(model, [x], specialize=False).values()
    assert got.tobytes() == as_written.tobytes()
    assert _steps(model, x) == len(kinds)
    if kinds in ("am", "ma"):  # what OpenVINO computes instead: one FMA of the rewritten constants
        (want,) = _ov_run(ov, ov_model, x)
        m, a = (consts[1], consts[0] * consts[1]) if kinds == "am" else (consts[0], consts[1])
        assert want.tobytes() == fma_f32(x, m, a).tobytes()
        assert got.tobytes() != want.tobytes()


def test_the_users_model_is_unchanged() -> None:
    rng = np.random.default_rng(5)
    consts = _constants("a" * 8, "f32", [(N,)] * 8, rng)
    x = opset.parameter([N], "f32", name="x")
    model = Model(_build(opset, "a" * 8, x, [opset.constant(c) for c in consts])[-1:], [x.node])
    before = [(n.id, n.op.model_dump(), [(s.node.id, s.index) if s else None for s in n.inputs]) for n in model.nodes()]
    values = [c.copy() for c in consts]
    data = _input("f32", (N,), rng)
    run(model, [data])
    after = [(n.id, n.op.model_dump(), [(s.node.id, s.index) if s else None for s in n.inputs]) for n in model.nodes()]
    assert len(after) == len(before) == 1 + 8 * 2 + 1
    for (i, op_a, ins_a), (j, op_b, ins_b) in zip(before, after):
        assert (i, ins_a) == (j, ins_b)
        if "value" not in op_a:
            assert op_a == op_b
    constants = [n.op.value for n in model.nodes() if type(n.op).__name__ == "Constant"]
    assert sorted(c.tobytes() for c in constants) == sorted(c.tobytes() for c in values)
    expected = data
    for c in consts:
        expected = expected + c
    (as_written,) = run(model, [data], specialize=False).values()
    assert as_written.tobytes() == expected.tobytes()


def test_a_chain_over_the_constant_budget_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHIR_CONSTANT_CACHE_BYTES", "0")
    rng = np.random.default_rng(6)
    consts = _constants("a" * 8, "f32", [(N,)] * 8, rng)
    x = opset.parameter([N], "f32", name="x")
    model = Model(_build(opset, "a" * 8, x, [opset.constant(c) for c in consts])[-1:], [x.node])
    data = _input("f32", (N,), rng)
    (got,) = run(model, [data]).values()
    (as_written,) = run(model, [data], specialize=False).values()
    assert got.tobytes() == as_written.tobytes()
    assert _steps(model, data) == 8


def test_other_element_types_and_broadcasts_run_as_written() -> None:
    """f64 (computed exactly by graphir, as f32 by OpenVINO CPU) and pdpd broadcasting are not folded."""
    rng = np.random.default_rng(8)
    x64 = opset.parameter([N], "f64", name="x")
    consts = [rng.standard_normal(N) * 30 for _ in range(6)]
    model = Model(_build(opset, "a" * 6, x64, [opset.constant(c) for c in consts])[-1:], [x64.node])
    data = rng.standard_normal(N) * 100
    assert _steps(model, data) == 6
    x = opset.parameter([4, N], "f32", name="x")
    y: Any = x
    for c in _constants("a" * 4, "f32", [(4,)] * 4, rng):
        y = opset.add(y, opset.constant(c), auto_broadcast="pdpd", auto_broadcast_axis=0)
    model = Model([y], [x.node])
    assert _steps(model, _input("f32", (4, N), rng)) == 4


def test_the_reference_profile_runs_a_chain_as_written() -> None:
    """The default profile computes each Add as the model writes it (spec semantics), in one step each."""
    rng = np.random.default_rng(9)
    consts = _constants("a" * 6, "f32", [(N,)] * 6, rng)
    x = opset.parameter([N], "f32", name="x")
    model = Model(_build(opset, "a" * 6, x, [opset.constant(c) for c in consts])[-1:], [x.node])
    data = _input("f32", (N,), rng)
    expected = data
    for c in consts:
        expected = expected + c
    (got,) = model.run([data]).values()
    assert got.tobytes() == expected.tobytes()
    assert got.tobytes() != run(model, [data])[next(iter(run(model, [data])))].tobytes()  # the fold reassociates
    assert len(specialization(model, get_plan(model), [data]).steps) == 6
