"""OpenVINO Bucketize-3 and SearchSorted-15: positions of values among sorted boundaries
(``numpy.searchsorted``; Bucketize's ``with_right_bound`` and SearchSorted's ``right_mode`` pick
the side). The output has the values' shape and the ``output_type`` (i32 or i64)."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.binary import fold
from graphir.shapes import PartialShape
from graphir.types import ElementType


class Bucketize(Op):
    """Bucketize-3: for each input value, the index of its bucket among 1-D ``buckets``."""

    type_name: ClassVar[str] = "Bucketize"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("buckets"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    output_type: Literal["i32", "i64"] = "i64"
    with_right_bound: bool = True

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, buckets = inputs
        for port, t in (("Data", data), ("Buckets", buckets)):
            if not (t.element_type.is_numeric or t.element_type.is_dynamic):
                raise self.fail(f"{port} input type must be numeric, got {t}")
        if buckets.shape.rank_is_static and len(buckets.shape) != 1:
            raise self.fail(f"Buckets input must be a 1D tensor. Got: {buckets.shape}")
        et = ElementType.parse(self.output_type)
        return [TensorType(et, data.shape, fold(self, inputs, data.shape, et))]

    def evaluate(self, data: np.ndarray, buckets: np.ndarray) -> list[np.ndarray]:
        side: Literal["left", "right"] = "left" if self.with_right_bound else "right"
        b = np.asarray(buckets, dtype=np.float64)
        out = np.searchsorted(b, np.asarray(data, dtype=np.float64), side=side)
        return [out.astype(ElementType.parse(self.output_type).numpy_dtype)]


class SearchSorted(Op):
    """SearchSorted-15: insertion indices of ``values`` into ``sorted_sequence`` along its last
    dim; leading dims pair up (a 1-D sequence serves every row)."""

    type_name: ClassVar[str] = "SearchSorted"
    version: ClassVar[str] = "opset15"
    inputs: ClassVar[tuple[Port, ...]] = (Port("sorted_sequence"), Port("values"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    right_mode: bool = False
    output_type: Literal["i32", "i64"] = "i64"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        seq, values = inputs
        if seq.element_type.merge(values.element_type) is None:
            raise self.fail(f"Sorted sequence and values must have the same element type: {seq}, {values}")
        for port, t in (("sorted_sequence", seq), ("values", values)):
            if t.shape.rank_is_static and len(t.shape) == 0:
                raise self.fail(f"The {port} input must be at least 1D, got a scalar {t}")
        shape = values.shape
        if seq.shape.rank_is_static and values.shape.rank_is_static and len(seq.shape) != 1:
            if len(seq.shape) != len(values.shape) or seq.shape[:-1].merge(values.shape[:-1]) is None:
                raise self.fail(
                    "All dimensions but the last one have to be compatible: sorted_sequence "
                    f"{seq.shape}, values {values.shape}")
            shape = PartialShape(list(seq.shape[:-1].merge(values.shape[:-1]).dims) + [values.shape[-1]])
        et = ElementType.parse(self.output_type)
        return [TensorType(et, shape, fold(self, inputs, shape, et))]

    def evaluate(self, seq: np.ndarray, values: np.ndarray) -> list[np.ndarray]:
        seq, values = np.asarray(seq), np.asarray(values)
        side: Literal["left", "right"] = "right" if self.right_mode else "left"
        dtype = ElementType.parse(self.output_type).numpy_dtype
        if seq.ndim == 1:
            return [np.searchsorted(seq, values, side=side).astype(dtype)]
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = values.reshape(-1, values.shape[-1])
        out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(rows_s, rows_v)]) if len(rows_s) else \
            np.zeros(rows_v.shape, np.int64)
        return [out.reshape(values.shape).astype(dtype)]
