"""OpenVINO string tensors to and from their bytes: StringTensorUnpack-15 and StringTensorPack-15.

A string tensor (object arrays of ``str``; bytes that are not UTF-8 kept by surrogateescape, as
graphir's IR reader keeps them) unpacks to ``begins``/``ends`` (i32, the tensor's shape) indexing
one flat ``u8`` buffer of the concatenated UTF-8 bytes; packing reads them back.
"""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import INDEX, Op, Port, TensorType, types
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def encode(value: object) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode("utf-8", errors="surrogateescape")


class StringTensorUnpack(Op):
    type_name: ClassVar[str] = "StringTensorUnpack"
    version: ClassVar[str] = "opset15"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", types("string")),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("begins"), Port("ends"), Port("symbols"))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        if not data.element_type.is_dynamic and data.element_type is not ElementType.string:
            raise self.fail(f"StringTensorUnpack expects a tensor with string elements (got {data.element_type}).")
        return [TensorType(ElementType.i32, data.shape), TensorType(ElementType.i32, data.shape),
                TensorType(ElementType.u8, PartialShape([Dimension.dynamic()]))]

    def evaluate(self, data: np.ndarray) -> list[np.ndarray]:
        data = np.asarray(data, dtype=object)
        encoded = [encode(v) for v in data.reshape(-1)]
        lengths = np.array([len(e) for e in encoded], dtype=np.int64)
        ends = np.cumsum(lengths)
        begins = ends - lengths
        symbols = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
        return [begins.astype(np.int32).reshape(data.shape), ends.astype(np.int32).reshape(data.shape), symbols]


class StringTensorPack(Op):
    type_name: ClassVar[str] = "StringTensorPack"
    version: ClassVar[str] = "opset15"
    inputs: ClassVar[tuple[Port, ...]] = (Port("begins", INDEX), Port("ends", INDEX), Port("symbols", types("u8")))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    mode: Literal["begins_ends"] = "begins_ends"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        begins, ends, symbols = inputs
        self.check_input_types(inputs)
        if begins.element_type.merge(ends.element_type) is None:
            raise self.fail(f"The element types of the begins and ends input tensors must match "
                            f"(got {begins.element_type} and {ends.element_type}).")
        shape = begins.shape.merge(ends.shape) if begins.shape.rank_is_static or ends.shape.rank_is_static \
            else begins.shape
        if shape is None:
            raise self.fail(f"The shapes of the begins and ends input tensors must match "
                            f"(got {begins.shape} and {ends.shape}).")
        if symbols.shape.rank_is_static and len(symbols.shape) != 1:
            raise self.fail(f"Symbols input must be 1D (got {symbols.shape}).")
        return [TensorType(ElementType.string, shape)]

    def evaluate(self, begins: np.ndarray, ends: np.ndarray, symbols: np.ndarray) -> list[np.ndarray]:
        begins, ends = np.asarray(begins), np.asarray(ends)
        body = np.asarray(symbols, dtype=np.uint8).tobytes()
        out = np.empty(begins.shape, dtype=object)
        flat = out.reshape(-1)
        for i, (b, e) in enumerate(zip(begins.reshape(-1), ends.reshape(-1))):
            b, e = int(b), int(e)
            if not 0 <= b <= e <= len(body):
                raise ValueError(f"StringTensorPack-15: string {i} spans [{b}, {e}) outside the {len(body)} symbols "
                                 f"(or ends before it begins)")
            flat[i] = body[b:e].decode("utf-8", errors="surrogateescape")
        return [out]
