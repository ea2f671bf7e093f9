"""OpenVINO ``Select-1`` with the shape rules the real runtime (2026.x) applies.

numpy mode: the result starts as ``else``; ``then`` and then ``cond`` are broadcast into it
bidirectionally (so cond may raise the rank: the runtime's rule, not the spec text's one-way one).
none mode: all shapes merge. pdpd mode: the result starts as ``then``; ``else`` and ``cond`` are
one-way broadcast into it starting at ``axis``.
"""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from graphir.broadcast import AutoBroadcastSpec, broadcast_merge
from graphir.kernels.select import select
from graphir.ops.base import Op, Port, TensorType, types
from graphir.types import ElementType


class Select(Op):
    """Picks ``then`` where ``cond`` is true and ``else`` elsewhere."""

    type_name: ClassVar[str] = "Select"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("cond", types("boolean"), description="selection mask"),
        Port("then", description="taken where cond is true"),
        Port("else", description="taken where cond is false"),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    auto_broadcast: Literal["none", "numpy", "pdpd"] = "numpy"
    axis: int = Field(
        default=0,
        description="pdpd only: where lower-rank inputs align (IR: auto_broadcast.auto_broadcast_axis)",
    )

    @property
    def broadcast_spec(self) -> AutoBroadcastSpec:
        return AutoBroadcastSpec(type=self.auto_broadcast, axis=self.axis)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        cond, then, other = inputs
        if cond.element_type not in (ElementType.boolean, ElementType.dynamic):
            raise self.fail(
                f"Argument 0 must have boolean element type (element type: {cond.element_type}); "
                f"input 0 ('cond') is {cond}"
            )
        et = then.element_type.merge(other.element_type)
        if et is None:
            raise self.fail(
                f"Argument 1 and 2 element types must match: input 1 ('then') is "
                f"{then.element_type}, input 2 ('else') is {other.element_type}"
            )
        spec = self.broadcast_spec
        if spec.type == "pdpd":
            result = broadcast_merge(then.shape, other.shape, spec)
            if result is None:
                raise self.fail(
                    f"'Else' tensor shape is not broadcastable: else {other.shape} into then "
                    f"{then.shape} (pdpd, axis {spec.axis})"
                )
            merged = broadcast_merge(result, cond.shape, spec)
            if merged is None:
                raise self.fail(
                    f"'Cond' tensor shape is not broadcastable: cond {cond.shape} into {result} "
                    f"(pdpd, axis {spec.axis})"
                )
            return [TensorType(et, merged)]
        result = other.shape
        for index, tensor in ((1, then), (0, cond)):
            merged = broadcast_merge(result, tensor.shape, spec)
            if merged is None:
                raise self.fail(
                    f"Argument shapes are inconsistent: cond {cond.shape}, then {then.shape}, "
                    f"else {other.shape} ({spec.type} broadcast; input {index} "
                    f"('{self.inputs[index].name}') {tensor.shape} does not fit {result})"
                )
            result = merged
        return [TensorType(et, result)]

    def evaluate(self, cond: np.ndarray, then: np.ndarray, other: np.ndarray) -> list[np.ndarray]:
        if self.auto_broadcast == "pdpd":
            target = np.broadcast_shapes(then.shape)
            rank = len(target)
            other = _pdpd_align(other, rank, self.axis)
            cond = _pdpd_align(cond, rank, self.axis)
        return [select(cond, then, other)]


def _pdpd_align(array: np.ndarray, rank: int, axis: int) -> np.ndarray:
    """Reshape a lower-rank array so numpy broadcasting places its dims starting at ``axis``."""
    if array.ndim == rank:
        return array
    start = rank - array.ndim if axis == -1 else axis
    shape = (1,) * start + array.shape + (1,) * (rank - start - array.ndim)
    return array.reshape(shape)
