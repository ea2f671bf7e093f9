"""OpenVINO random ops with OpenVINO's numbers for the same seeds: RandomUniform-8 and
Multinomial-13 (streams in :mod:`graphir.ops.openvino.philox`).

RandomUniform follows OpenVINO's definition (its reference evaluator, bit for bit, both
alignments); the CPU plugin's fused multiply-add for f32 (1 ulp from the reference in some values)
is the ``openvino-cpu`` numerics profile's (graphir.numerics.openvino_cpu.random_uniform). The CPU
computes f16/bf16/f64/i64 through its f32/i32 streams, which graphir does not copy.
Multinomial follows the CPU plugin, the only implementation OpenVINO 2026.4 has (no evaluate): it
draws ``float(mt19937()) / float(mt19937.max())`` from ``std::mt19937`` seeded by
``std::seed_seq{global_seed, op_seed}``, not from the Philox stream the specification describes.
With both seeds 0 OpenVINO draws from a time-seeded stream; graphir then draws fresh seeds from the
operating system (the values cannot match, and are not meant to)."""
from __future__ import annotations

import secrets
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from graphir.limits import check_tensor
from graphir.ops.base import INDEX, Op, Port, TensorType, types
from graphir.ops.openvino import philox
from graphir.ops.openvino import shape_values as sv
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

#: the largest seed: OpenVINO 2026.4 reads seed attributes as int64 (a file with 2^63 or more
#: cannot be read back), so larger ones are refused when an op is built or read
MAX_SEED = (1 << 63) - 1

_OUTPUT_TYPES = ("f16", "bf16", "f32", "f64", "i32", "i64")


def _seeds(global_seed: int, op_seed: int) -> tuple[int, int]:
    if global_seed == 0 and op_seed == 0:
        return secrets.randbits(63) or 1, 0
    return global_seed, op_seed


class RandomUniform(Op):
    """RandomUniform-8: ``shape`` (1-D integer) values in ``[min, max)`` of ``output_type``."""

    type_name: ClassVar[str] = "RandomUniform"
    version: ClassVar[str] = "opset8"
    inputs: ClassVar[tuple[Port, ...]] = (Port("shape", INDEX), Port("minval"), Port("maxval"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    #: not folded: a random op is evaluated when the model runs
    foldable: ClassVar[bool] = False

    output_type: Literal["f16", "bf16", "f32", "f64", "i32", "i64"]
    global_seed: int = Field(default=0, le=MAX_SEED)
    op_seed: int = Field(default=0, le=MAX_SEED)
    alignment: Literal["tensorflow", "pytorch"] = "tensorflow"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        shape_t, lo, hi = inputs
        et = ElementType.parse(self.output_type)
        if self.global_seed < 0 or self.op_seed < 0:
            raise self.fail(f"Seeds must be non-negative (global_seed {self.global_seed}, op_seed {self.op_seed})")
        if not shape_t.element_type.is_dynamic and shape_t.element_type not in INDEX:
            raise self.fail(f"Type of the input should be int32 or int64 (got {shape_t.element_type}).")
        if shape_t.shape.rank_is_static and len(shape_t.shape) != 1:
            raise self.fail(f"The rank of the tensor defining output shape must be equal to 1 (got {shape_t.shape}).")
        for name, t in (("min", lo), ("max", hi)):
            if t.shape.rank_is_static and not (len(t.shape) == 0 or (len(t.shape) == 1 and t.shape[0].compatible(
                    Dimension.static(1)))):
                raise self.fail(f"'{name}_val' should have 1 element (got {t.shape}).")
            if not t.element_type.is_dynamic and t.element_type != et:
                raise self.fail(f"'{name}_val' should have the same type as 'output_type' attribute "
                                f"({t.element_type} vs {et}).")
        if lo.value is not None and hi.value is not None:
            if np.asarray(lo.value).reshape(-1)[0] >= np.asarray(hi.value).reshape(-1)[0]:
                raise self.fail(f"Min value must be less than max value. Got min value: "
                                f"{np.asarray(lo.value).reshape(-1)[0]}, max value: {np.asarray(hi.value).reshape(-1)[0]}.")
        items = sv.elements(shape_t)
        if items is not None:
            shape = PartialShape([sv.as_dimension(i) for i in items])
        elif shape_t.shape.rank_is_static and shape_t.shape[0].is_static:
            shape = PartialShape.dynamic(shape_t.shape[0].min)
        else:
            shape = PartialShape.dynamic()
        return [TensorType(et, shape)]

    def evaluate(self, shape: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
        return self.generate(shape, lo, hi)

    def generate(self, shape: np.ndarray, lo: np.ndarray, hi: np.ndarray, fused: bool = False) -> list[np.ndarray]:
        """The values; ``fused``: f32's multiply-add rounded once (OpenVINO CPU), else the reference's."""
        dims = tuple(int(v) for v in np.asarray(shape).reshape(-1))
        dtype = ElementType.parse(self.output_type).numpy_dtype
        check_tensor(dims, np.float64)  # the generator works in up to 64 bits an item
        count = int(np.prod(dims, dtype=np.int64))
        g, o = _seeds(self.global_seed, self.op_seed)
        low, high = np.asarray(lo, dtype).reshape(-1)[0], np.asarray(hi, dtype).reshape(-1)[0]
        values = philox.uniform(count, dtype, low, high, g, o, self.alignment, fused)
        return [np.asarray(values, dtype=dtype).reshape(dims)]


class Multinomial(Op):
    """Multinomial-13: ``num_samples`` class indices per row of ``probs [B, C]`` (or log
    probabilities), with or without replacement, from RandomUniform's stream in the probs' type:
    a sample picks the first class whose normalized cumulative probability reaches it."""

    type_name: ClassVar[str] = "Multinomial"
    version: ClassVar[str] = "opset13"
    inputs: ClassVar[tuple[Port, ...]] = (Port("probs", types("f32", "f16", "bf16", "f64")), Port("num_samples", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    foldable: ClassVar[bool] = False

    convert_type: Literal["i32", "i64"] = "i64"
    with_replacement: bool = False
    log_probs: bool = False
    global_seed: int = Field(default=0, le=MAX_SEED)
    op_seed: int = Field(default=0, le=MAX_SEED)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        probs, count = inputs
        self.check_input_types(inputs)
        et = ElementType.parse(self.convert_type)
        if probs.shape.rank_is_static and len(probs.shape) != 2:
            raise self.fail(f"Input probabilities must be a 2D tensor (got {probs.shape}).")
        if count.shape.rank_is_static and not (len(count.shape) == 0 or (
                len(count.shape) == 1 and count.shape[0].compatible(Dimension.static(1)))):
            raise self.fail(f"Number of samples must be a scalar or one element 1D tensor (got {count.shape}).")
        items = sv.elements(count)
        samples = sv.as_dimension(items[0]) if items is not None and len(items) == 1 else Dimension.dynamic()
        if probs.shape.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        if not self.with_replacement and samples.is_static and len(probs.shape) and probs.shape[-1].is_static \
                and samples.min > probs.shape[-1].min:
            raise self.fail(f"Number of samples ({samples.min}) must not exceed the number of classes "
                            f"({probs.shape[-1]}) without replacement.")
        batch = list(probs.shape.dims[:-1])
        return [TensorType(et, PartialShape(batch + [samples]))]

    def evaluate(self, probs: np.ndarray, num_samples: np.ndarray) -> list[np.ndarray]:
        probs = np.asarray(probs)
        work = np.dtype(np.float32) if probs.dtype == np.float64 else probs.dtype  # the CPU plugin: f64 as f32
        rows = probs.reshape(-1, probs.shape[-1]).astype(work)
        values = np.exp(rows).astype(work) if self.log_probs else rows
        cdf = np.cumsum(values, axis=1, dtype=work)  # sequential, as std::partial_sum
        tiny = np.finfo(work).tiny if work.kind == "f" else 1
        cdf = (cdf / np.maximum(cdf[:, -1:], work.type(tiny))).astype(work)
        samples = int(np.asarray(num_samples).reshape(-1)[0])
        check_tensor([rows.shape[0], samples], np.float64)
        g, o = _seeds(self.global_seed, self.op_seed)
        draws = philox.mt19937_seeded_words(rows.shape[0] * samples, [g, o]).astype(np.float32)
        uniform = (draws / np.float32(4294967295.0)).astype(work).reshape(rows.shape[0], samples)
        out = np.zeros((rows.shape[0], samples), dtype=np.int64)
        one = work.type(1)
        for b in range(rows.shape[0]):
            row_cdf = cdf[b].copy()
            for j in range(samples):
                hits = np.nonzero(uniform[b, j] <= row_cdf)[0]
                if not hits.size:
                    continue
                chosen = int(hits[0])
                out[b, j] = chosen
                if not self.with_replacement:
                    p = work.type(row_cdf[chosen] - row_cdf[chosen - 1] if chosen else row_cdf[0])
                    divisor = work.type(one - p)
                    row_cdf[chosen:] = (row_cdf[chosen:] - p).astype(work)
                    with np.errstate(all="ignore"):  # all mass drawn: 0/0, no class left (as on CPU)
                        row_cdf = (row_cdf / divisor).astype(work)
        dtype = ElementType.parse(self.convert_type).numpy_dtype
        return [out.reshape(probs.shape[:-1] + (samples,)).astype(dtype)]
