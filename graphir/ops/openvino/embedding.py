"""OpenVINO embedding bags: EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3,
EmbeddingSegmentsSum-3 and the -15 versions with a ``reduction`` (sum or mean).

Each output row gathers rows of ``emb_table`` (optionally scaled by ``per_sample_weights``) and
sums (or averages) them; an empty bag gets the ``default_index`` row when one is given (>= 0), else
zeros. Output dims: the bag count, then ``emb_table``'s dims after the first.
"""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import INDEX, Op, Port, TensorType
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


class _EmbeddingBag(Op):
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    #: input index -> required rank, checked when static
    ranks: ClassVar[dict[int, int]] = {}
    #: the inputs whose element type must be the index type of ``indices``
    index_inputs: ClassVar[tuple[int, ...]] = ()
    weights_input: ClassVar[int] = -1

    def _reduction(self) -> str:
        return "sum"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        emb = inputs[0]
        present = [i for i in self.index_inputs if i < len(inputs)]
        index_type = ElementType.dynamic
        for i in present:
            et = inputs[i].element_type
            if not et.is_dynamic and et not in INDEX:
                raise self.fail(f"{self.inputs[i].name} type must be i32 or i64 (got {et}).")
            merged_type = index_type.merge(et)
            if merged_type is None:
                raise self.fail(f"{self.inputs[i].name} element type ({et}) must match indices element type "
                                f"({index_type}).")
            index_type = merged_type
        w = self.weights_input
        if 0 <= w < len(inputs):
            if self._reduction() == "mean":
                raise self.fail("Per sample weights can only be used in Reduction::SUM mode.")
            if emb.element_type.merge(inputs[w].element_type) is None:
                raise self.fail(f"Per sample weight element type ({inputs[w].element_type}) must match embedding "
                                f"table element type ({emb.element_type}).")
        for i, rank in self.ranks.items():
            if i < len(inputs) and inputs[i].shape.rank_is_static and len(inputs[i].shape) != rank:
                raise self.fail(f"{self.inputs[i].name} must be {'a scalar' if rank == 0 else f'{rank}D'} "
                                f"(got {inputs[i].shape}).")
        if emb.shape.rank_is_static and len(emb.shape) < 1:
            raise self.fail(f"EMB_TABLE can't be a scalar (got {emb.shape}).")
        self._check_lengths(inputs)
        bags = self._bag_count(inputs)
        if emb.shape.rank_is_dynamic:
            return [TensorType(emb.element_type, PartialShape.dynamic())]
        shape = PartialShape([bags, *emb.shape.dims[1:]])
        return [TensorType(emb.element_type, shape, fold(self, inputs, shape, emb.element_type))]

    def _check_lengths(self, inputs: list[TensorType]) -> None:
        w = self.weights_input
        if 0 <= w < len(inputs):
            a, b = inputs[1].shape, inputs[w].shape
            if a.rank_is_static and b.rank_is_static and a.merge(b) is None:
                raise self.fail(f"INDICES and PER_SAMPLE_WEIGHTS shape must be same (got {a} and {b}).")

    def _bag_count(self, inputs: list[TensorType]) -> Dimension:
        raise NotImplementedError

    def _bags(self, indices: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
        """The row indices of each bag, in order."""
        raise NotImplementedError

    def _reduce(self, emb: np.ndarray, bags: list[np.ndarray], weights: list[np.ndarray] | None,
                default: int | None) -> np.ndarray:
        emb = np.asarray(emb)
        out = np.zeros((len(bags),) + emb.shape[1:], dtype=emb.dtype)
        for b, rows in enumerate(bags):
            if rows.size == 0:
                if default is not None and default >= 0:
                    out[b] = emb[default]
                continue
            if np.any((rows < 0) | (rows >= emb.shape[0])):
                raise ValueError(f"{self.describe()}: an index of bag {b} is out of range of EMB_TABLE rows "
                                 f"({emb.shape[0]}): {rows.tolist()}")
            picked = emb[rows]
            if weights is not None:
                picked = picked * weights[b].reshape((-1,) + (1,) * (emb.ndim - 1)).astype(emb.dtype)
            total = picked.sum(axis=0, dtype=emb.dtype)
            if self._reduction() == "mean":
                total = (total / np.asarray(rows.size, dtype=emb.dtype)).astype(emb.dtype)
            out[b] = total
        return out


class EmbeddingBagOffsetsSum(_EmbeddingBag):
    """EmbeddingBagOffsetsSum-3: bags are runs of ``indices`` starting at each ``offsets`` entry."""

    type_name: ClassVar[str] = "EmbeddingBagOffsetsSum"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("emb_table"), Port("indices", INDEX), Port("offsets", INDEX),
                                          Port("default_index", INDEX, optional=True),
                                          Port("per_sample_weights", optional=True))
    ranks: ClassVar[dict[int, int]] = {1: 1, 2: 1, 3: 0, 4: 1}
    index_inputs: ClassVar[tuple[int, ...]] = (1, 2, 3)
    weights_input: ClassVar[int] = 4

    def _bag_count(self, inputs: list[TensorType]) -> Dimension:
        offsets = inputs[2].shape
        return offsets[0] if offsets.rank_is_static else Dimension.dynamic()

    def evaluate(self, emb: np.ndarray, indices: np.ndarray, offsets: np.ndarray,
                 default: np.ndarray | None = None, weights: np.ndarray | None = None) -> list[np.ndarray]:
        indices, offsets = np.asarray(indices).reshape(-1), np.asarray(offsets).reshape(-1).astype(np.int64)
        ends = np.append(offsets[1:], indices.size)
        for b, start in enumerate(offsets):
            if not 0 <= start < max(indices.size, 1) or (indices.size == 0 and start != 0):
                raise ValueError(f"{self.describe()}: offset {int(start)} of bag {b} exceeds the indices size "
                                 f"{indices.size}")
        bags = [indices[s:e].astype(np.int64) for s, e in zip(offsets, ends)]
        per_bag = None if weights is None else [np.asarray(weights).reshape(-1)[s:e] for s, e in zip(offsets, ends)]
        d = None if default is None else int(np.asarray(default).reshape(-1)[0])
        return [self._reduce(emb, bags, per_bag, d)]


class EmbeddingBagPackedSum(_EmbeddingBag):
    """EmbeddingBagPackedSum-3: ``indices [B, L]``; each row is a bag of L indices."""

    type_name: ClassVar[str] = "EmbeddingBagPackedSum"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("emb_table"), Port("indices", INDEX),
                                          Port("per_sample_weights", optional=True))
    ranks: ClassVar[dict[int, int]] = {1: 2, 2: 2}
    index_inputs: ClassVar[tuple[int, ...]] = (1,)
    weights_input: ClassVar[int] = 2

    def _bag_count(self, inputs: list[TensorType]) -> Dimension:
        indices: PartialShape | None = inputs[1].shape
        if indices is not None and len(inputs) > 2 and inputs[2].shape.rank_is_static:
            indices = indices.merge(inputs[2].shape) if indices.rank_is_static else inputs[2].shape
        return indices[0] if indices is not None and indices.rank_is_static else Dimension.dynamic()

    def evaluate(self, emb: np.ndarray, indices: np.ndarray, weights: np.ndarray | None = None) -> list[np.ndarray]:
        indices = np.asarray(indices).astype(np.int64)
        bags = list(indices)
        per_bag = None if weights is None else list(np.asarray(weights))
        return [self._reduce(emb, bags, per_bag, None)]


class EmbeddingSegmentsSum(_EmbeddingBag):
    """EmbeddingSegmentsSum-3: ``indices`` and ``segment_ids`` (same length) put rows into
    ``num_segments`` segments."""

    type_name: ClassVar[str] = "EmbeddingSegmentsSum"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("emb_table"), Port("indices", INDEX), Port("segment_ids", INDEX),
                                          Port("num_segments", INDEX), Port("default_index", INDEX, optional=True),
                                          Port("per_sample_weights", optional=True))
    ranks: ClassVar[dict[int, int]] = {1: 1, 2: 1, 3: 0, 4: 0, 5: 1}
    index_inputs: ClassVar[tuple[int, ...]] = (1, 2, 3, 4)
    weights_input: ClassVar[int] = 5

    def _check_lengths(self, inputs: list[TensorType]) -> None:
        super()._check_lengths(inputs)
        a, b = inputs[1].shape, inputs[2].shape
        if a.rank_is_static and b.rank_is_static and a.merge(b) is None:
            raise self.fail(f"SEGMENT_IDS and INDICES shape must be same (got {b} and {a}).")

    def _bag_count(self, inputs: list[TensorType]) -> Dimension:
        values = sv.elements(inputs[3])
        if values is not None and len(values) == 1:
            return sv.as_dimension(values[0])
        return Dimension.dynamic()

    def evaluate(self, emb: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray,
                 default: np.ndarray | None = None, weights: np.ndarray | None = None) -> list[np.ndarray]:
        indices = np.asarray(indices).reshape(-1).astype(np.int64)
        segment_ids = np.asarray(segment_ids).reshape(-1).astype(np.int64)
        count = int(np.asarray(num_segments).reshape(-1)[0])
        if np.any((segment_ids < 0) | (segment_ids >= count)):
            raise ValueError(f"{self.describe()}: segment ids must lie in [0, {count}): {segment_ids.tolist()}")
        bags = [indices[segment_ids == s] for s in range(count)]
        per_bag = None if weights is None else [np.asarray(weights).reshape(-1)[segment_ids == s] for s in range(count)]
        d = None if default is None else int(np.asarray(default).reshape(-1)[0])
        return [self._reduce(emb, bags, per_bag, d)]


class EmbeddingBagOffsets(EmbeddingBagOffsetsSum):
    """EmbeddingBagOffsets-15: EmbeddingBagOffsetsSum with ``reduction`` sum or mean (mean takes no
    per-sample weights)."""

    type_name: ClassVar[str] = "EmbeddingBagOffsets"
    version: ClassVar[str] = "opset15"

    reduction: Literal["sum", "mean"] = "sum"

    def _reduction(self) -> str:
        return self.reduction


class EmbeddingBagPacked(EmbeddingBagPackedSum):
    """EmbeddingBagPacked-15: EmbeddingBagPackedSum with ``reduction`` sum or mean."""

    type_name: ClassVar[str] = "EmbeddingBagPacked"
    version: ClassVar[str] = "opset15"

    reduction: Literal["sum", "mean"] = "sum"

    def _reduction(self) -> str:
        return self.reduction
