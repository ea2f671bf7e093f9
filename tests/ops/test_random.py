"""RandomUniform-8 and Multinomial-13 against OpenVINO 2026: OpenVINO's numbers for the same seeds,
bit for bit (CPU plugin), over output types, alignments, seeds, ranges; shapes and rejected inputs."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.model import Model
from tests.ops.ov_diff import Const, Param, core
from tests.ops.ov_diff import reference
from tests.ops.test_shape_ops import agree_or_both_fail, factory

NP = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32, "i64": np.int64}


def _ov_values(ov, name: str, version: str, consts: list[np.ndarray], attrs: dict, params=()):
    from openvino import opset13 as ops
    from openvino.utils.node_factory import NodeFactory

    inputs = [ops.constant(c).output(0) for c in consts]
    node = NodeFactory(version).create(name, inputs, attrs)
    compiled = core(ov).compile_model(ov.Model([node], []), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    out = compiled.create_infer_request()
    out.infer([])
    return out.get_output_tensor(0).data.copy()


def _ours(name: str, version: str, consts: list[np.ndarray], attrs: dict, numerics: str = "reference") -> np.ndarray:
    node = opset.make(name, *[opset.constant(c) for c in consts], version=version, **attrs)
    return list(Model([node], []).run([], numerics=numerics).values())[0]


@pytest.mark.parametrize("dtype,lo,hi", [("f32", 0, 1), ("f32", -5.5, 3.25), ("f16", -2, 7), ("bf16", -1, 3), ("bf16", -150, 200),
                                         ("f64", 0, 1), ("f64", -3, 10), ("i32", -10, 50), ("i32", 0, 7),
                                         ("i64", -100, 1000), ("i64", 0, 2**40)])
@pytest.mark.parametrize("seeds", [(150, 10), (1, 0), (0, 7), (2**40 + 3, 2**33 + 1)])
@pytest.mark.parametrize("alignment", ["tensorflow", "pytorch"])
def test_random_uniform_is_bit_exact_with_openvino(ov, dtype: str, lo, hi, seeds, alignment: str) -> None:
    """Every type bit for bit with OpenVINO's reference evaluator under the reference profile (the
    default); f32 and i32 bit for bit with the CPU plugin under the openvino-cpu profile (f32: its
    fused multiply-add, up to a few ulp of the span from the reference's two roundings). (The CPU
    computes f16/bf16/f64/i64 through its f32/i32 stream.)"""
    if alignment == "pytorch" and seeds[0] == 0:
        return  # pytorch alignment uses the global seed only; 0 is OpenVINO's "unseeded"
    import ml_dtypes

    np_type = ml_dtypes.bfloat16 if dtype == "bf16" else NP[dtype]
    attrs = {"output_type": dtype, "global_seed": seeds[0], "op_seed": seeds[1], "alignment": alignment}
    consts = [np.array([3, 7], np.int64), np.array(lo, np_type), np.array(hi, np_type)]
    got = _ours("RandomUniform", "opset8", consts, attrs)
    cpu = _ours("RandomUniform", "opset8", consts, attrs, numerics="openvino-cpu")
    if dtype in ("f32", "i32"):
        want = _ov_values(ov, "RandomUniform", "opset8", consts, attrs)
        assert cpu.dtype == want.dtype
        np.testing.assert_array_equal(cpu.view(np.uint32), want.view(np.uint32))
    else:
        assert cpu.tobytes() == got.tobytes()  # the profile overrides f32 only
    want = _reference_bf16(ov, consts, attrs) if dtype == "bf16" else \
        reference(ov, factory("opset8", "RandomUniform", attrs), consts)[0]
    np.testing.assert_array_equal(got.view(np.uint16) if dtype == "bf16" else got,
                                  want.view(np.uint16) if dtype == "bf16" else want)
    if dtype == "f32":  # fused (CPU) and unfused (reference) multiply-add round differently
        np.testing.assert_allclose(cpu, got, rtol=0, atol=2.0**-23 * (hi - lo) * 4)


def _reference_bf16(ov, consts, attrs):
    """OpenVINO's reference evaluator on bf16 min/max (its Python API takes no numpy bf16 arrays)."""
    from openvino import opset13 as ops
    from openvino.utils.node_factory import NodeFactory

    shape = ops.constant(consts[0])
    lo = ops.constant(np.float32(consts[1]), dtype=ov.Type.bf16)
    hi = ops.constant(np.float32(consts[2]), dtype=ov.Type.bf16)
    node = NodeFactory("opset8").create("RandomUniform", [shape.output(0), lo.output(0), hi.output(0)], attrs)
    out = ov.Tensor(ov.Type.bf16, list(node.get_output_shape(0)))
    inputs = [ov.Tensor(consts[0]), ov.Tensor(ov.Type.bf16, []), ov.Tensor(ov.Type.bf16, [])]
    inputs[1].data[...] = np.float32(consts[1]).astype(ml_bf16()).view(np.float16)
    inputs[2].data[...] = np.float32(consts[2]).astype(ml_bf16()).view(np.float16)
    assert node.evaluate([out], inputs)
    return out.data.copy()


def ml_bf16():
    import ml_dtypes

    return ml_dtypes.bfloat16


@pytest.mark.parametrize("shape", [Const(np.array([2, 3], np.int64)), Param("[3]", "i64"), Param("[?]", "i32"),
                                   Param("[2,2]", "i64"), Param("[3]", "f32")])
def test_random_uniform_shapes(ov, shape) -> None:
    attrs = {"output_type": "f32", "global_seed": 1, "op_seed": 2, "alignment": "tensorflow"}
    agree_or_both_fail(ov, "RandomUniform", "opset8", attrs, [shape, Const(np.float32(0)), Const(np.float32(1))])
    assert agree_or_both_fail(ov, "RandomUniform", "opset8", attrs, [shape, Const(np.float32(2)), Const(np.float32(1))])
    assert agree_or_both_fail(ov, "RandomUniform", "opset8", attrs, [shape, Const(np.int32(0)), Const(np.int32(1))])


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("log_probs", [False, True])
@pytest.mark.parametrize("seeds", [(1, 2), (150, 10), (7, 0)])
@pytest.mark.parametrize("dtype", ["f32", "f64", "f16"])
def test_multinomial_is_bit_exact_with_openvino_cpu(ov, replacement: bool, log_probs: bool, seeds, dtype: str) -> None:
    probs = np.array([[0.1, 0.5, 0.05, 0.3, 0.05], [0.0, 0.2, 0.2, 0.0, 0.6], [0.3, 0.3, 0.1, 0.2, 0.1]], NP[dtype])
    if log_probs:
        probs = np.log(probs + 1e-3).astype(NP[dtype])
    attrs = {"convert_type": "i32" if dtype != "f16" else "i64", "with_replacement": replacement, "log_probs": log_probs,
             "global_seed": seeds[0], "op_seed": seeds[1]}
    # without replacement at most 3 draws: row 1 has 3 classes of non-zero probability, and past that
    # the CPU plugin leaves its output element unwritten (garbage); graphir writes 0 there
    consts = [probs, np.array(3 if not replacement else 9, np.int64)]
    want = _ov_values(ov, "Multinomial", "opset13", consts, attrs)
    got = _ours("Multinomial", "opset13", consts, attrs)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("probs", ["[3,5]", "[?,5]", "[5]", "[...]", "[2,3,5]"])
@pytest.mark.parametrize("samples", [Const(np.int64(4)), Param("[]", "i64"), Const(np.array([2], np.int32))])
def test_multinomial_shapes(ov, probs: str, samples) -> None:
    attrs = {"convert_type": "i64", "with_replacement": True, "log_probs": False, "global_seed": 1, "op_seed": 2}
    agree_or_both_fail(ov, "Multinomial", "opset13", attrs, [Param(probs), samples])
