"""OpenVINO ``ScaledDotProductAttention-13``: ``softmax(Q K^T * scale + mask) V``."""
from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from graphir.broadcast import broadcast_merge
from graphir.ops.base import REAL, NodeSignature, Op, Port, TensorType, types
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


class ScaledDotProductAttention(Op):
    """Attention over ``query [..., L, E]``, ``key [..., S, E]``, ``value [..., S, Ev]``.

    ``attention_mask`` is boolean (false: masked out) or added to the scores; ``scale`` defaults to
    ``1/sqrt(E)``; ``causal`` masks with a lower-triangular ``[L, S]`` instead of the mask input.
    """

    type_name: ClassVar[str] = "ScaledDotProductAttention"
    version: ClassVar[str] = "opset13"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("query", REAL), Port("key", REAL), Port("value", REAL),
        Port("attention_mask", REAL + types("boolean"), optional=True),
        Port("scale", REAL, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    causal: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1, 2))
        if len(inputs) > 3 and inputs[3].element_type.is_real:
            self.merge_types(inputs, (0, 1, 2, 3))
        q, k, v = (t.shape for t in inputs[:3])
        for name, s in (("query", q), ("key", k), ("value", v)):
            if s.rank_is_static and len(s) < 3:
                raise self.fail(f"{name} must have rank >= 3 ([batch..., length, embedding]), got {s}")
        if q.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        if k.rank_is_static and q.dims[-1].merge(k.dims[-1]) is None:
            raise self.fail(f"query and key embedding sizes differ: query {q}, key {k}")
        if k.rank_is_static and v.rank_is_static and k.dims[-2].merge(v.dims[-2]) is None:
            raise self.fail(f"key and value sequence lengths differ: key {k}, value {v}")
        batch = PartialShape(q.dims[:-2])
        for name, s in (("key", k), ("value", v)):
            if s.rank_is_dynamic:
                continue
            merged = broadcast_merge(batch, PartialShape(s.dims[:-2]), "numpy")
            if merged is None:
                raise self.fail(f"batch dimensions of query {q} and {name} {s} do not broadcast")
            batch = merged
        value_size = v.dims[-1] if v.rank_is_static else Dimension.dynamic()
        return [TensorType(et, PartialShape(list(batch.dims) + [q.dims[-2], value_size]))]

    def evaluate(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None,
                 scale: np.ndarray | None = None) -> list[np.ndarray]:
        out_dtype = q.dtype
        ct = np.float64 if q.dtype == np.float64 else np.float32
        q, k, v = q.astype(ct), k.astype(ct), v.astype(ct)
        factor = ct(1.0 / np.sqrt(q.shape[-1])) if scale is None else np.asarray(scale, dtype=ct).reshape(())
        scores = np.matmul(q * factor, np.swapaxes(k, -1, -2))
        length, source = scores.shape[-2:]
        if self.causal:
            keep = np.tril(np.ones((length, source), dtype=bool))
            scores = np.where(keep, scores, -np.inf)
        elif mask is not None:
            if mask.dtype == np.bool_:
                scores = np.where(mask, scores, -np.inf)
            else:
                scores = scores + mask.astype(ct)
        peak = np.max(scores, axis=-1, keepdims=True)
        peak = np.where(np.isfinite(peak), peak, 0)
        weights = np.exp(scores - peak)
        weights = weights / np.sum(weights, axis=-1, keepdims=True)
        return [np.matmul(weights, v).astype(out_dtype)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """f32 inputs: ``evaluate``'s arithmetic with the softmax computed in the scores' own buffer
        (a fresh array), the reductions as array methods and no copy of the result: the same bits."""
        if any(t.element_type != ElementType.f32 for t in node.inputs[:3]):
            return self.evaluate
        generic, causal, f32 = self.evaluate, self.causal, np.dtype(np.float32)

        def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None,
                      scale: np.ndarray | None = None) -> list[np.ndarray]:
            if q.dtype != f32 or k.dtype != f32 or v.dtype != f32:
                return generic(q, k, v, mask, scale)
            q, k, v = q.astype(f32), k.astype(f32), v.astype(f32)  # evaluate's compact copies: the same BLAS calls
            factor = np.float32(1.0 / np.sqrt(q.shape[-1])) if scale is None else np.asarray(scale, dtype=f32).reshape(())
            scores = np.matmul(q * factor, np.swapaxes(k, -1, -2))
            if causal:
                length, source = scores.shape[-2:]
                scores = np.where(np.tril(np.ones((length, source), dtype=bool)), scores, -np.inf)
            elif mask is not None:
                if mask.dtype == np.bool_:
                    scores = np.where(mask, scores, -np.inf)
                else:
                    scores = scores + mask.astype(f32, copy=False)
            peak = scores.max(axis=-1, keepdims=True)
            peak = np.where(np.isfinite(peak), peak, 0)
            weights = np.subtract(scores, peak, out=scores)  # every branch above made scores a new array
            np.exp(weights, out=weights)
            np.divide(weights, weights.sum(axis=-1, keepdims=True), out=weights)
            return [np.matmul(weights, v)]

        return attention
