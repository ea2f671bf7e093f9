"""OpenVINO BatchToSpace-2 and SpaceToBatch-2: blocks of the batch moved into spatial dims and back.

``block_shape`` has one entry per data dim (entry 0, the batch, must be 1); the crops (pads) of
BatchToSpace (SpaceToBatch) apply per dim after (before) the move. Output dims follow OpenVINO's
interval arithmetic: a batch interval divided by the block product keeps ``ceil(min/k)..floor(max/k)``.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import INTEGRAL, Op, Port, TensorType
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape


def divide(d: Dimension, k: int) -> Dimension:
    """``d / k`` as OpenVINO divides an interval: the lengths ``n/k`` for multiples ``n`` in ``d``."""
    lo = -(-d.min // k)
    hi = None if d.max is None else d.max // k
    if hi is not None and hi < lo:
        raise ValueError(f"dimension {d} holds no multiple of {k}")
    return Dimension(lo, hi)


class _BlockMove(Op):
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def _vectors(self, inputs: list[TensorType]) -> tuple[int, list[list[int]] | None]:
        data = inputs[0]
        for i, t in enumerate(inputs[1:], start=1):
            if not t.element_type.is_dynamic and not t.element_type.is_integral_number:
                raise self.fail(f"{self.inputs[i].name} must be an integral number (got {t.element_type}).")
            if t.shape.rank_is_static and len(t.shape) != 1:
                raise self.fail(f"{self.inputs[i].name} input must be a 1D tensor (got {t.shape}).")
        if data.shape.rank_is_static and len(data.shape) < 2:
            raise self.fail(f"data input must have rank greater or equal than 2. Got: {len(data.shape)}")
        lengths = {t.shape[0] for t in inputs[1:] if t.shape.rank_is_static and t.shape[0].is_static}
        if len({d.min for d in lengths}) > 1:
            raise self.fail("block_shape and crops/pads inputs must have the same shape "
                            f"(got {', '.join(str(t.shape) for t in inputs[1:])}).")
        if data.shape.rank_is_static and lengths and next(iter(lengths)).min != len(data.shape):
            raise self.fail(f"block_shape and crops/pads inputs must have the same number of elements as the "
                            f"data rank (data {data.shape}, block_shape {inputs[1].shape}).")
        values = [v for v in (sv.elements(t) for t in inputs[1:]) if v is not None and sv.is_known(v)]
        if len(values) != len(inputs) - 1:
            return 0, None
        block, *rest = values
        if any(int(b) < 1 for b in block):  # type: ignore[arg-type]
            raise self.fail(f"Elements of block_shape input must be greater or equal to one (got {block}).")
        if block and int(block[0]) != 1:  # type: ignore[arg-type]
            raise self.fail(f"block_shape[0] is expected to be 1 (got {block[0]}).")
        if any(int(v) < 0 for vec in rest for v in vec):  # type: ignore[arg-type]
            raise self.fail("Elements of crops_begin/crops_end (pads_begin/pads_end) must be non-negative.")
        return 1, [[int(v) for v in vec] for vec in values]  # type: ignore[arg-type]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        known, vectors = self._vectors(inputs)
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, PartialShape.dynamic())]
        if not known or vectors is None:
            return [TensorType(data.element_type, PartialShape.dynamic(len(data.shape)))]
        try:
            shape = self._shape(data.shape, *vectors)
        except ValueError as exc:
            raise self.fail(f"{exc} (data {data.shape}, block_shape {vectors[0]})") from None
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def _shape(self, shape: PartialShape, block: list[int], first: list[int], second: list[int]) -> PartialShape:
        raise NotImplementedError


class BatchToSpace(_BlockMove):
    """BatchToSpace-2: ``[B, D1..Dn]`` to ``[B/prod(block), D1*b1 - cb1 - ce1, ...]``."""

    type_name: ClassVar[str] = "BatchToSpace"
    version: ClassVar[str] = "opset2"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("block_shape", INTEGRAL),
                                          Port("crops_begin", INTEGRAL), Port("crops_end", INTEGRAL))

    def _shape(self, shape: PartialShape, block: list[int], begin: list[int], end: list[int]) -> PartialShape:
        prod = int(np.prod(block))
        batch = shape[0]
        if batch.is_static and batch.min % prod:
            raise ValueError(f"The input data's 'batch' axis size: {batch.min} must be a multiple of product of "
                             f"block_shape values: {prod}")
        dims = [divide(batch, prod)]
        for d, b, cb, ce in zip(shape.dims[1:], block[1:], begin[1:], end[1:]):
            grown = d * b
            if grown.is_static and cb + ce > grown.min:
                raise ValueError(f"crops_begin[i] + crops_end[i] must be less or equal to block_shape[i] * "
                                 f"input_shape[i] (got {cb} + {ce} > {grown})")
            lo = max(grown.min - cb - ce, 0)
            hi = None if grown.max is None else grown.max - cb - ce
            dims.append(Dimension(lo, hi))
        return PartialShape(dims)

    def evaluate(self, x: np.ndarray, block: np.ndarray, begin: np.ndarray, end: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        b = [int(v) for v in np.asarray(block).reshape(-1)]
        n = len(b) - 1
        batch = x.shape[0] // int(np.prod(b))
        y = x.reshape(tuple(b[1:]) + (batch,) + x.shape[1:])
        perm = [n] + [p for i in range(n) for p in (n + 1 + i, i)]
        y = y.transpose(perm).reshape((batch,) + tuple(d * bb for d, bb in zip(x.shape[1:], b[1:])))
        cb = [int(v) for v in np.asarray(begin).reshape(-1)]
        ce = [int(v) for v in np.asarray(end).reshape(-1)]
        crop = tuple(slice(s, y.shape[i] - e) for i, (s, e) in enumerate(zip(cb, ce)))
        return [np.ascontiguousarray(y[crop])]


class SpaceToBatch(_BlockMove):
    """SpaceToBatch-2: pads each dim, then moves blocks of the spatial dims into the batch."""

    type_name: ClassVar[str] = "SpaceToBatch"
    version: ClassVar[str] = "opset2"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("block_shape", INTEGRAL),
                                          Port("pads_begin", INTEGRAL), Port("pads_end", INTEGRAL))

    def _shape(self, shape: PartialShape, block: list[int], begin: list[int], end: list[int]) -> PartialShape:
        prod = int(np.prod(block))
        dims = [shape[0] * prod]
        for d, b, pb, pe in zip(shape.dims[1:], block[1:], begin[1:], end[1:]):
            padded = d + (pb + pe)
            if padded.is_static and padded.min % b:
                raise ValueError(f"The dimension on position: {len(dims)} equal to: {padded.min} must be a "
                                 f"multiple of block_shape[i]: {b}")
            dims.append(divide(padded, b))
        return PartialShape(dims)

    def evaluate(self, x: np.ndarray, block: np.ndarray, begin: np.ndarray, end: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        b = [int(v) for v in np.asarray(block).reshape(-1)]
        pads = [(int(s), int(e)) for s, e in zip(np.asarray(begin).reshape(-1), np.asarray(end).reshape(-1))]
        x = np.pad(x, pads)
        n = len(b) - 1
        split = [x.shape[0]] + [v for d, bb in zip(x.shape[1:], b[1:]) for v in (d // bb, bb)]
        y = x.reshape(split)
        perm = [2 + 2 * i for i in range(n)] + [0] + [1 + 2 * i for i in range(n)]
        out = (x.shape[0] * int(np.prod(b)),) + tuple(d // bb for d, bb in zip(x.shape[1:], b[1:]))
        return [np.ascontiguousarray(y.transpose(perm).reshape(out))]
