"""Weight decompression as OpenVINO's CPU plugin computes it under the ``openvino-cpu`` numerics profile: the
f16 subgraph evaluated in f32 (graphir/numerics/openvino_cpu/decompression.py). The default reference profile
computes the subgraph as written, every f16 step rounding."""
from __future__ import annotations

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.numerics.openvino_cpu.decompression import fold_decompressions
from graphir.ops.openvino.conversion import NF4_TABLE, convert_array
from graphir.types import ElementType

pytestmark = pytest.mark.openvino

# (codes type, code range, zero point): u8/u4 asymmetric, i8/i4 symmetric, nf4 and f4e2m1 codes
CASES = [("u8", (0, 256), True), ("i8", (-128, 128), False), ("u4", (0, 16), True), ("i4", (-8, 8), False),
         ("nf4", (0, 16), False), ("f4e2m1", (0, 16), False)]


def _pattern(builder, codes_type: str, codes: np.ndarray, zero: np.ndarray | None, scale: np.ndarray):
    """x[3,64] @ decompress(codes[16,2,32])^T, written the way nncf writes it (f16 arithmetic)."""
    w = builder.convert(builder.constant(codes, codes_type), "f16")
    if zero is not None:
        w = builder.subtract(w, builder.convert(builder.constant(zero, codes_type), "f16"))
    w = builder.multiply(w, builder.constant(scale.astype(np.float16)))
    w = builder.reshape(w, builder.constant(np.array([16, 64], np.int64)), False)
    return builder.convert(w, "f32")


class _OpenVINOBuilder:
    """The calls _pattern makes, on OpenVINO's opset (its constant takes the element type apart)."""

    def __init__(self) -> None:
        import openvino as ov
        import openvino.opset13 as ops

        self.ov, self.ops = ov, ops

    def constant(self, value: np.ndarray, element_type: str | None = None):  # noqa: ANN201
        value = np.asarray(value)
        if element_type is None:
            return self.ops.constant(value)
        et = getattr(self.ov.Type, element_type)
        return self.ov.op.Constant(et, self.ov.Shape(list(value.shape)), value.reshape(-1).tolist())

    def __getattr__(self, name: str):  # noqa: ANN204 - convert, subtract, multiply, reshape
        return getattr(self.ops, name)


class _GraphirBuilder:
    def constant(self, value: np.ndarray, element_type: str | None = None):  # noqa: ANN201
        return opset.constant(value, element_type)

    def convert(self, x, element_type: str):  # noqa: ANN001, ANN201
        return opset.convert(x, destination_type=element_type)

    def reshape(self, x, shape, special_zero: bool):  # noqa: ANN001, ANN201
        return opset.reshape(x, shape, special_zero=special_zero)

    def __getattr__(self, name: str):  # noqa: ANN204 - subtract, multiply
        return getattr(opset, name)


def _codes(codes_type: str, low: int, high: int, rng: np.random.Generator) -> np.ndarray:
    raw = rng.integers(low, high, size=(16, 2, 32))
    if codes_type == "nf4":
        return NF4_TABLE[raw]  # OpenVINO's Constant takes nf4 values; graphir keeps the codes
    if codes_type == "f4e2m1":
        import ml_dtypes

        return raw.astype(np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    return raw


@pytest.mark.parametrize(("codes_type", "code_range", "asym"), CASES, ids=[c[0] for c in CASES])
def test_decompressed_matmul_matches_openvino_cpu(codes_type: str, code_range: tuple[int, int], asym: bool) -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset13 as ops

    rng = np.random.default_rng(11)
    codes = _codes(codes_type, *code_range, rng)
    zero = rng.integers(*code_range, size=(16, 2, 1)) if asym else None
    scale = (rng.random((16, 2, 1)) * 0.37 + 0.01).astype(np.float16)
    x = rng.standard_normal((3, 64)).astype(np.float32)

    p = ops.parameter([3, 64], np.float32, name="x")
    ref_model = ov.Model([ops.matmul(p, _pattern(_OpenVINOBuilder(), codes_type, codes, zero, scale), False, True)], [p])
    config = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
    want = list(ov.Core().compile_model(ref_model, "CPU", config).create_infer_request().infer([x]).values())[0]

    our_codes = codes
    if codes_type == "nf4":
        our_codes = np.searchsorted(NF4_TABLE, codes).astype(np.uint8)
    gx = opset.parameter("[3,64]", "f32", name="x")
    weights = _pattern(_GraphirBuilder(), codes_type, our_codes, zero, scale)
    model = graphir.Model([opset.matmul(gx, weights, False, True)], [gx.node])
    got = list(model.run({"x": x}, numerics="openvino-cpu").values())[0]
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6 * float(np.abs(want).max()))
    assert fold_decompressions(model.get_ordered_ops()), "the pattern was not folded"


def test_f32_folding_differs_from_literal_f16_arithmetic() -> None:
    """Why the fold exists: u8 codes, zero points and f16 scales give values f16 cannot hold."""
    codes = np.array([[200, 3]], np.uint8)
    zero = np.array([[7, 250]], np.uint8)
    scale = np.array([[0.0123]], np.float16)
    w = _pattern_small(codes, zero, scale)
    folded = fold_decompressions(graphir.Model([w], []).get_ordered_ops())
    [value] = folded.values()
    exact = (codes.astype(np.float32) - zero.astype(np.float32)) * scale.astype(np.float32)
    np.testing.assert_array_equal(value, exact)
    literal = ((codes.astype(np.float16) - zero.astype(np.float16)) * scale).astype(np.float32)
    assert not np.array_equal(literal, exact)


def test_the_reference_profile_computes_the_subgraph_as_written() -> None:
    """Under the default profile every f16 step rounds (the spec's arithmetic); openvino-cpu gives the f32 fold."""
    codes = np.array([[200, 3]], np.uint8)
    zero = np.array([[7, 250]], np.uint8)
    scale = np.array([[0.0123]], np.float16)
    x = opset.parameter("[1,2]", "f32", name="x")
    model = graphir.Model([opset.add(x, _pattern_small(codes, zero, scale))], [x.node])
    data = np.zeros((1, 2), np.float32)
    literal = ((codes.astype(np.float16) - zero.astype(np.float16)) * scale).astype(np.float32)
    exact = (codes.astype(np.float32) - zero.astype(np.float32)) * scale.astype(np.float32)
    np.testing.assert_array_equal(list(model.run([data]).values())[0], literal)
    np.testing.assert_array_equal(list(model.run([data], numerics="openvino-cpu").values())[0], exact)


def _pattern_small(codes: np.ndarray, zero: np.ndarray, scale: np.ndarray):
    w = opset.convert(opset.constant(codes, "u8"), destination_type="f16")
    w = opset.subtract(w, opset.convert(opset.constant(zero, "u8"), destination_type="f16"))
    return opset.convert(opset.multiply(w, opset.constant(scale)), destination_type="f32")


def test_nf4_converts_through_its_code_table() -> None:
    ov = pytest.importorskip("openvino")
    import openvino.opset13 as ops

    codes = np.arange(16, dtype=np.uint8)
    const = ov.op.Constant(ov.Type.nf4, ov.Shape([16]), NF4_TABLE.tolist())
    model = ov.Model([ops.result(ops.convert(const, "f32"))], [])
    want = list(ov.Core().compile_model(model, "CPU").create_infer_request().infer({}).values())[0]
    np.testing.assert_array_equal(convert_array(codes, ElementType.f32, ElementType.nf4), want)
    node = opset.make("Convert", opset.constant(codes, "nf4"), destination_type="f16")
    out = graphir.Model([node], []).run()
    np.testing.assert_array_equal(list(out.values())[0], NF4_TABLE.astype(np.float16))
