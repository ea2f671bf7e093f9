"""Numerics profiles (graphir.numerics, docs/numerics.md).

* Under each profile, ``evaluator(op, profile)`` node by node, ``Model.run`` and a request give the same
  bits: on every corpus file (tests/fixtures/corpus), on a grid of the ops the openvino-cpu profile
  overrides (ties, NaN, static and dynamic shapes, a Loop body), and on every op's differential grid
  (tests/ops/ov_diff.py ``check`` and tests/ops/detection_oracle.py ``compare`` call the same assertion,
  tests/numerics_consistency.py; a test below shows that ``check`` fails when they disagree).
* The reference profile never reads /proc/cpuinfo and never calls through ctypes.
* Where a replay depends on the ISA and this host is not one it matches, openvino-cpu gives the reference.
* An unknown profile is a GraphirError naming the valid ones, wherever it is given.
"""
from __future__ import annotations

import ctypes
import pathlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
import graphir.numerics
from graphir import opset
from graphir.errors import GraphirError
from graphir.kernels import blas_host
from graphir.model import Model
from graphir.numerics.openvino_cpu import dft, dft_kernels, host
from graphir.ops.openvino.fft import DFT, IDFT
from graphir.ops.openvino.unary import Sigmoid
from tests.numerics_consistency import assert_profiles_agree, walk

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
XMLS = sorted(CORPUS.glob("*.xml"))
RNG = np.random.default_rng(33)


def _corpus_inputs(xml: Path) -> list[np.ndarray]:
    with np.load(CORPUS / f"{xml.stem.removesuffix('_fp16')}.npz") as data:
        return [data[f"arr_{i}"] for i in range(len(data.files))]


@pytest.mark.parametrize("xml", XMLS, ids=[x.stem for x in XMLS])
def test_corpus_file_gives_one_answer_per_profile(xml: Path) -> None:
    model = graphir.read_model(xml)
    walked = assert_profiles_agree(model, _corpus_inputs(xml))
    assert "reference" in walked  # the reference has no plan-level fusion: always compared node by node


def test_corpus_is_there_and_mostly_compared_node_by_node_under_both_profiles() -> None:
    assert len(XMLS) >= 15
    both = sum(assert_profiles_agree(graphir.read_model(x), _corpus_inputs(x)) == list(graphir.numerics.PROFILES)
               for x in XMLS[:6])
    assert both >= 3


def _single(build: Any, *params: tuple[str, str]) -> tuple[Model, list[Any]]:
    nodes = [opset.parameter(shape, dtype, name=f"in{i}") for i, (shape, dtype) in enumerate(params)]
    outs = build(*nodes)
    return Model(outs if isinstance(outs, list) else [outs], [n.node for n in nodes]), nodes


def _ties(shape: tuple[int, ...], nan: bool = False) -> np.ndarray:
    pool = np.array([0.0, 0.5, 1.0] + ([np.nan] if nan else []), np.float32)
    return RNG.choice(pool, shape)


TOPK_CASES = [  # (partial shape, value shape, axis, k): bubble, horizontal, heap, bitonic, dynamic heap/bubble
    ("[3,40]", (3, 40), 1, 4), ("[2,50]", (2, 50), 1, 1), ("[2,100]", (2, 100), 1, 30),
    ("[300,2]", (300, 2), 0, 40), ("[?,?]", (3, 60), 1, 1), ("[?,?]", (70, 2), 0, 9),
]


@pytest.mark.parametrize("shape,values_shape,axis,k", TOPK_CASES)
@pytest.mark.parametrize("mode", ["max", "min"])
@pytest.mark.parametrize("nan", [False, True])
def test_topk_gives_one_answer_per_profile(shape: str, values_shape: tuple[int, ...], axis: int, k: int, mode: str,
                                           nan: bool) -> None:
    model, _ = _single(lambda x: list(opset.make("TopK", x, opset.constant(np.int64(k)), version="opset11", axis=axis,
                                                 mode=mode, sort="value", index_element_type="i32")), (shape, "f32"))
    x = _ties(values_shape, nan)
    assert assert_profiles_agree(model, [x]) == ["reference", "openvino-cpu"]
    reference = list(model.run([x]).values())[1]
    keys = -x.astype(np.float64) if mode == "max" else x.astype(np.float64)
    np.testing.assert_array_equal(reference, np.argsort(keys, axis=axis, kind="stable").take(range(k), axis=axis))


def test_topk_ties_differ_between_the_profiles_as_the_issue_measured() -> None:
    """TopK over 10 equal values, k=8 (issue 33): the reference is [0..7] by every way of running;
    openvino-cpu gives the CPU plugin's heap order [1..7, 0] by every way."""
    model, _ = _single(lambda x: list(opset.make("TopK", x, opset.constant(np.int64(8)), version="opset11", axis=0,
                                                 mode="max", sort="value", index_element_type="i32")), ("[10]", "f32"))
    x = np.zeros(10, np.float32)
    op = next(n.op for n in model.get_ordered_ops() if n.type_name == "TopK")
    assert op.evaluate(x, np.int64(8))[1].tolist() == list(range(8))
    assert list(model.run([x]).values())[1].tolist() == list(range(8))
    assert list(model.run([x], numerics="openvino-cpu").values())[1].tolist() == [1, 2, 3, 4, 5, 6, 7, 0]
    assert graphir.numerics.evaluator(op, "openvino-cpu")([x, np.int64(8)])[1].tolist() == [1, 2, 3, 4, 5, 6, 7, 0]
    assert_profiles_agree(model, [x])


@pytest.mark.parametrize("dtype", ["f32", "f16", "f64"])
def test_sigmoid_gives_one_answer_per_profile(dtype: str) -> None:
    model, _ = _single(opset.sigmoid, ("[?]", dtype))
    x = (RNG.standard_normal(5000) * 6).astype({"f32": np.float32, "f16": np.float16, "f64": np.float64}[dtype])
    assert assert_profiles_agree(model, [x]) == ["reference", "openvino-cpu"]
    reference = list(model.run([x]).values())[0]
    np.testing.assert_array_equal(reference, (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype))
    if dtype == "f32":  # oneDNN's exp rounds differently from the correctly rounded logistic
        assert not np.array_equal(reference, list(model.run([x], numerics="openvino-cpu").values())[0])


@pytest.mark.parametrize("builder", ["hswish", "hsigmoid"])
@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_hard_activations_give_one_answer_per_profile(builder: str, dtype: str) -> None:
    """HSwish/HSigmoid: the reference is the spec's formula in f32 (x + 3, clamp, then / 6), the
    openvino-cpu profile oneDNN's rounding (tests/ops/test_cpu_exp.py compares both with OpenVINO)."""
    model, _ = _single(getattr(opset, builder), ("[?]", dtype))
    x = np.concatenate([RNG.standard_normal(5000) * 5, [np.nan, np.inf, -np.inf, -3, 3, 0]]).astype(
        np.float32 if dtype == "f32" else np.float16)
    assert assert_profiles_agree(model, [x]) == ["reference", "openvino-cpu"]
    v = x.astype(np.float32)
    with np.errstate(invalid="ignore"):
        gate = np.clip(v + np.float32(3), np.float32(0), np.float32(6))
        want = (v * gate / np.float32(6) if builder == "hswish" else gate / np.float32(6)).astype(x.dtype)
        reference = list(model.run([x]).values())[0]
        cpu = list(model.run([x], numerics="openvino-cpu").values())[0]
    np.testing.assert_array_equal(reference, want)
    if dtype == "f32":
        assert not np.array_equal(reference, cpu)


@pytest.mark.parametrize("output_type", ["f32", "f16"])
def test_random_uniform_gives_one_answer_per_profile(output_type: str) -> None:
    """RandomUniform f32: the reference rounds ``unit * span`` and ``+ min`` apart (OpenVINO's reference
    evaluator), openvino-cpu once (the plugin's FMA; tests/ops/test_random.py compares both with OpenVINO);
    other types are the same under both."""
    dtype = np.float32 if output_type == "f32" else np.float16
    shape = opset.parameter([2], "i64", name="shape")
    node = opset.make("RandomUniform", shape, opset.constant(np.array(-5.5, dtype)), opset.constant(np.array(3.25, dtype)),
                      version="opset8", output_type=output_type, global_seed=150, op_seed=10)
    model = Model([node], [shape.node])
    dims = np.array([50, 40], np.int64)
    assert assert_profiles_agree(model, [dims]) == ["reference", "openvino-cpu"]
    reference, cpu = (list(model.run([dims], numerics=p).values())[0] for p in graphir.numerics.PROFILES)
    assert (reference.tobytes() != cpu.tobytes()) == (output_type == "f32")
    np.testing.assert_allclose(cpu, reference, rtol=0, atol=8.75 * 2.0 ** -22)


def test_matrix_nms_ties_give_one_answer_per_profile() -> None:
    """MatrixNms over equal scores of overlapping boxes (each decays by the boxes before it): the
    reference takes them by index, openvino-cpu in libstdc++'s std::partial_sort order (the CPU plugin's;
    tests/ops/test_detection_*.py compare it with OpenVINO), which decays other boxes."""
    boxes = opset.parameter([1, 12, 4], "f32", name="boxes")
    scores = opset.parameter([1, 1, 12], "f32", name="scores")
    model = Model(opset.matrix_nms(boxes, scores, sort_result_type="score", nms_top_k=8, output_type="i32").outputs(),
                  [boxes.node, scores.node])
    corners = np.arange(12, dtype=np.float32)[:, None] + np.array([0, 0, 5, 5], np.float32)  # each overlaps the next
    values = [corners[None], np.full((1, 1, 12), 0.5, np.float32)]
    assert assert_profiles_agree(model, values) == ["reference", "openvino-cpu"]
    reference = list(model.run(values).values())[1].reshape(-1).tolist()
    cpu = list(model.run(values, numerics="openvino-cpu").values())[1].reshape(-1).tolist()
    assert sorted(reference) == list(range(8))  # the first 8 by index, box 0 undecayed first
    assert reference[0] == 0 and cpu != reference


@pytest.mark.parametrize("seed", range(4))
def test_proposal_ties_give_one_answer_per_profile(seed: int) -> None:
    """Proposal-4 over tied scores (quarters): one answer per profile by every way of running."""
    from tests.ops.test_detection_more import _proposal_case

    attrs, probs, deltas, info = _proposal_case(np.random.default_rng(80 + seed))
    params = [opset.parameter(list(x.shape), "f32", name=f"p{i}") for i, x in enumerate((probs, deltas, info))]
    model = Model(opset.make("Proposal", *params, version="opset4", **attrs), [p.node for p in params])
    assert assert_profiles_agree(model, [probs, deltas, info]) == ["reference", "openvino-cpu"]


@pytest.mark.parametrize("op,shape,axes", [("dft", (4, 12, 2), [1]), ("idft", (3, 16, 7, 2), [0, 2]),
                                           ("dft", (5, 6, 8, 2), [0, 1, 2])])
def test_dft_gives_one_answer_per_profile(op: str, shape: tuple[int, ...], axes: list[int]) -> None:
    model, _ = _single(lambda x: getattr(opset, op)(x, opset.constant(np.array(axes, np.int64))),
                       (str(list(shape)).replace(" ", ""), "f32"))
    x = RNG.uniform(-1, 1, shape).astype(np.float32)
    assert assert_profiles_agree(model, [x]) == ["reference", "openvino-cpu"]
    want = np.fft.fftn(x[..., 0] + 1j * x[..., 1].astype(np.float64), axes=axes) if op == "dft" else \
        np.fft.ifftn(x[..., 0] + 1j * x[..., 1].astype(np.float64), axes=axes)
    got = list(model.run([x]).values())[0]
    np.testing.assert_allclose(got[..., 0] + 1j * got[..., 1], want, rtol=1e-5, atol=1e-5)


def test_a_loop_body_runs_under_the_profile_of_the_run() -> None:
    """A Sigmoid inside a Loop body: the body computes under the run's profile, whichever way it is run."""
    body_x = opset.parameter([64], "f32", name="bx")
    body = Model([opset.sigmoid(body_x)], [body_x.node])
    x = (RNG.standard_normal(64) * 4).astype(np.float32)
    from graphir.interpreter import RUN_CONTEXT
    from graphir.trampoline import drive

    def run_body(body: Model, args: list[np.ndarray]) -> list[np.ndarray]:  # as a Loop's step runs its body
        return drive(RUN_CONTEXT.run_body(body, args))  # type: ignore[no-any-return]

    with graphir.numerics.using("openvino-cpu"):
        cpu = run_body(body, [x])[0]
    assert run_body(body, [x])[0].tobytes() == list(body.run([x]).values())[0].tobytes()
    assert cpu.tobytes() == list(body.run([x], numerics="openvino-cpu").values())[0].tobytes()
    assert cpu.tobytes() != list(body.run([x]).values())[0].tobytes()


def test_the_reference_profile_never_reads_cpuinfo_nor_calls_ctypes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every op the openvino-cpu profile overrides, run under the reference with /proc/cpuinfo and ctypes
    made to fail; the same run under openvino-cpu does reach them (so the trap is live)."""
    read_text = pathlib.Path.read_text

    class Touched(Exception):
        pass

    def no_cpuinfo(self: pathlib.Path, *args: Any, **kwargs: Any) -> str:
        if str(self) == "/proc/cpuinfo":
            raise Touched("read /proc/cpuinfo")
        return read_text(self, *args, **kwargs)

    def no_ctypes(*args: Any, **kwargs: Any) -> Any:
        raise Touched("called ctypes")

    x = opset.parameter([3, 12, 2], "f32", name="x")
    y = opset.parameter([4, 10], "f32", name="y")
    outs = [opset.dft(x, opset.constant(np.array([1], np.int64))), opset.idft(x, opset.constant(np.array([1], np.int64))),
            opset.sigmoid(y),
            *opset.make("TopK", y, opset.constant(np.int64(1)), version="opset11", axis=1, mode="max", sort="value")]
    model = Model(outs, [x.node, y.node])
    values = [RNG.uniform(-1, 1, (3, 12, 2)).astype(np.float32), _ties((4, 10))]
    host.cpu_flags.cache_clear()
    dft_kernels.c_library.cache_clear()
    monkeypatch.setattr(pathlib.Path, "read_text", no_cpuinfo)
    monkeypatch.setattr(ctypes, "CDLL", no_ctypes)
    monkeypatch.setattr(ctypes.util, "find_library", no_ctypes)
    try:
        model.run(values)
        model.create_infer_request().infer(values)
        walk(model, values, "reference")
        with pytest.raises(GraphirError, match="Touched: read /proc/cpuinfo"):  # the run names the node
            model.run(values, numerics="openvino-cpu")
    finally:
        monkeypatch.undo()
        host.cpu_flags.cache_clear()
        dft_kernels.c_library.cache_clear()


def test_off_the_replays_host_openvino_cpu_gives_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without AVX-512 (the DFT kernel's lanes and FMAs, TopK's 16-lane k=1 reduction) the profile computes
    the reference for those, and says so in its host report."""
    monkeypatch.setattr(host, "has_avx512_core", lambda: False)
    x = RNG.uniform(-1, 1, (5, 12, 2)).astype(np.float32)
    axes = np.array([1], np.int64)
    for op in (DFT(), IDFT()):
        assert graphir.numerics.evaluator(op, "openvino-cpu")([x, axes])[0].tobytes() == op.evaluate(x, axes)[0].tobytes()
    ties = np.zeros((2, 40), np.float32)
    model, _ = _single(lambda v: list(opset.make("TopK", v, opset.constant(np.int64(1)), version="opset11", axis=1,
                                                 mode="max", sort="value")), ("[2,40]", "f32"))
    assert list(model.run([ties], numerics="openvino-cpu").values())[1].tolist() == [[0], [0]]
    assert all("not this host" in line for line in graphir.numerics.host_report())
    monkeypatch.setattr(host, "has_avx512_core", lambda: True)
    if dft_kernels.c_library() is not None:
        dft_line, topk_line, conv_line = graphir.numerics.host_report()
        assert "not this host" not in dft_line and "not this host" not in topk_line
        # convolutions also need numpy's BLAS to be the one measured (graphir.kernels.blas_host)
        assert ("not this host" in conv_line) != blas_host.layouts_verified()
        got = graphir.numerics.evaluator(DFT(), "openvino-cpu")([x, axes])[0]
        assert got.tobytes() != DFT().evaluate(x, axes)[0].tobytes()  # the replay: the plugin's twiddles


def test_an_unknown_profile_is_refused_with_the_valid_ones() -> None:
    model, _ = _single(opset.relu, ("[2]", "f32"))
    x = np.zeros(2, np.float32)
    for call in (lambda: model.run([x], numerics="cpu"), lambda: model.create_infer_request(numerics="cpu"),
                 lambda: graphir.numerics.evaluator(Sigmoid(), "cpu")):
        with pytest.raises(GraphirError, match="unknown numerics profile 'cpu'; valid profiles: reference, openvino-cpu"):
            call()


def test_the_default_is_the_reference() -> None:
    model, _ = _single(opset.sigmoid, ("[64]", "f32"))
    x = (RNG.standard_normal(64) * 5).astype(np.float32)
    default = list(model.run([x]).values())[0]
    assert default.tobytes() == list(model.run([x], numerics="reference").values())[0].tobytes()
    assert model.create_infer_request().numerics == "reference"
    assert graphir.numerics.DEFAULT == "reference" and graphir.numerics.active() == "reference"


def test_the_oracle_fails_when_the_ways_disagree(monkeypatch: pytest.MonkeyPatch) -> None:
    """What makes every differential grid a profile check: an override that the run and the walk would
    not share (here one the walk sees and a run plan does not) is caught by ``assert_profiles_agree``."""
    import tests.numerics_consistency as consistency

    model, _ = _single(opset.sigmoid, ("[8]", "f32"))
    x = np.linspace(-3, 3, 8, dtype=np.float32)
    real = graphir.numerics.evaluator

    def skewed(op: Any, profile: str, inputs: Any = None) -> Any:
        fn = real(op, profile, inputs)
        return lambda arrays: [np.nextafter(a, np.float32(np.inf)) for a in fn(arrays)]

    monkeypatch.setattr(consistency.graphir.numerics, "evaluator", skewed)
    with pytest.raises(AssertionError, match="evaluator\\(op\\) node by node and Model.run differ"):
        assert_profiles_agree(model, [x])


def test_the_command_line_runs_under_the_profile_asked_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``graphir run --numerics``: TopK over equal values gives the reference order by default and the
    CPU plugin's heap order with openvino-cpu; an unknown profile is a usage error listing both."""
    from graphir.cli import main
    from graphir.commands.arrays import load_npz, read_member

    x = opset.parameter([10], "f32", name="x")
    topk = opset.make("TopK", x, opset.constant(np.int64(8)), version="opset11", axis=0, mode="max", sort="value",
                      index_element_type="i32")
    xml = tmp_path / "topk.xml"
    graphir.save_model(Model([topk[1]], [x.node]), str(xml))
    np.save(tmp_path / "x.npy", np.zeros(10, np.float32))
    indices = {}
    for profile in ("reference", "openvino-cpu"):
        out = tmp_path / f"{profile}.npz"
        assert main(["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output", str(out),
                     "--numerics", profile]) == 0
        [data] = load_npz(str(out)).values()
        indices[profile] = read_member(data, np.dtype(np.int32), profile).tolist()
    assert indices == {"reference": list(range(8)), "openvino-cpu": [1, 2, 3, 4, 5, 6, 7, 0]}
    capsys.readouterr()
    assert main(["run", str(xml), "--random", "--numerics", "cpu"]) == 2
    assert "invalid choice: 'cpu' (choose from 'reference', 'openvino-cpu')" in capsys.readouterr().err


def test_constant_folding_computes_under_the_runs_profile() -> None:
    """Nodes of constants only are folded when a plan is specialized: with the run's profile (a Sigmoid
    of a constant and a TopK of equal constants give the CPU plugin's bits under openvino-cpu, the
    reference's otherwise), and what follows them (an Add of a parameter) sees those values."""
    values = (RNG.standard_normal(256) * 4).astype(np.float32)
    x = opset.parameter([256], "f32", name="x")
    k = opset.parameter([8], "i32", name="k")
    sig = opset.sigmoid(opset.constant(values))
    top = opset.make("TopK", opset.constant(np.zeros(10, np.float32)), opset.constant(np.int64(8)), version="opset11",
                     axis=0, mode="max", sort="value", index_element_type="i32")
    model = Model([opset.add(x, sig), opset.add(k, top[1])], [x.node, k.node])
    zeros = [np.zeros(256, np.float32), np.zeros(8, np.int32)]
    for profile in graphir.numerics.PROFILES:
        want_sig = graphir.numerics.evaluator(Sigmoid(), profile)([values])[0]
        want_top = graphir.numerics.evaluator(top[1].node.op, profile)([np.zeros(10, np.float32), np.int64(8)])[1]
        for outs in (model.run(zeros, numerics=profile), model.create_infer_request(numerics=profile).infer(zeros)):
            got_sig, got_top = outs.values()
            assert got_sig.tobytes() == want_sig.tobytes() and got_top.tolist() == want_top.tolist(), profile
    assert want_top.tolist() == [1, 2, 3, 4, 5, 6, 7, 0]  # the last profile checked: openvino-cpu's heap


def test_f16_softmax_rounds_each_step_under_reference_and_once_under_openvino_cpu() -> None:
    """ONNX's reference (its expected outputs, test_attention_4d_causal_fp16) rounds every step of an
    f16 softmax; OpenVINO CPU computes it in f32 and rounds the result."""
    model, _ = _single(lambda x: opset.softmax(x, -1), ("[?,6]", "f16"))
    x = (RNG.standard_normal((400, 6)) * 4).astype(np.float16)
    assert assert_profiles_agree(model, [x]) == ["reference", "openvino-cpu"]
    shifted = x - x.max(axis=-1, keepdims=True)
    per_step = np.exp(shifted) / np.exp(shifted).sum(axis=-1, keepdims=True)
    wide = x.astype(np.float32) - x.astype(np.float32).max(axis=-1, keepdims=True)
    once = (np.exp(wide) / np.exp(wide).sum(axis=-1, keepdims=True)).astype(np.float16)
    assert per_step.dtype == np.float16 and not np.array_equal(per_step, once)
    np.testing.assert_array_equal(list(model.run([x]).values())[0], per_step)
    np.testing.assert_array_equal(list(model.run([x], numerics="openvino-cpu").values())[0], once)


@pytest.mark.parametrize("cap,avx512", [("AVX2", False), ("avx2_vnni", False), ("SSE41", False), ("AVX512_CORE", True),
                                        ("avx512_core_amx", True), ("", True)])
def test_the_replays_host_follows_openvinos_isa_cap(monkeypatch: pytest.MonkeyPatch, cap: str, avx512: bool) -> None:
    """OpenVINO's CPU plugin runs oneDNN's ISA cap (ONEDNN_MAX_CPU_ISA): a host capped below avx512_core
    runs the plugin's AVX2 kernels, so the AVX-512 replays are off there (on a CPU that has AVX-512)."""
    monkeypatch.setattr(host, "cpu_flags", lambda: host.AVX512_CORE)
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", cap)
    assert host.has_avx512_core() == avx512
    if not avx512:
        assert not host.convolution_bits_match()
        assert all("not this host" in line for line in graphir.numerics.host_report())


def test_a_shape_read_after_an_override_still_folds_under_openvino_cpu() -> None:
    """ShapeOf reads its input's shape, not its values: an override upstream (f32 Divide under
    openvino-cpu) leaves the shape arithmetic after it folded, as under the reference profile (it ran
    every run: t5_encoder 0.55 -> 0.73 ms per run)."""
    from graphir.interpreter import get_plan, specialization

    x = opset.parameter("[?,6]", "f32", name="x")
    scaled = opset.divide(x, opset.constant(np.float32(3)))
    target = opset.concat([opset.gather(opset.shape_of(scaled), opset.constant(np.array([0], np.int64)),
                                        opset.constant(np.int64(0))), opset.constant(np.array([2, 3], np.int64))], 0)
    model = graphir.Model([opset.reshape(scaled, target, False)], [x.node])
    value = [np.arange(24, dtype=np.float32).reshape(4, 6)]
    kinds = {p: [step[-1].op.type_name for step in specialization(model, get_plan(model), value, numerics=p).steps]
             for p in ("reference", "openvino-cpu")}
    assert kinds["reference"] == kinds["openvino-cpu"] == ["Divide", "Reshape"], kinds
    assert assert_profiles_agree(model, value) == ["reference", "openvino-cpu"]
