"""OpenVINO ``Select-1`` with the shape rules the real runtime (2026.x) applies.

numpy mode: the result starts as ``else``; ``then`` and then ``cond`` are broadcast into it
bidirectionally (so cond may raise the rank: the runtime's rule, not the spec text's one-way one).
none mode: all shapes merge. pdpd mode: the result starts as ``then``; ``else`` and ``cond`` are
one-way broadcast into it starting at ``axis`` (see :func:`graphir.broadcast.pdpd_merge`). The
Python factory ``openvino.opset1.select(..., "pdpd")`` and an IR without the axis attribute both
give axis 0 (leading alignment); only the IR attribute ``auto_broadcast.auto_broadcast_axis``
gives -1 (trailing) or any other axis. tests/test_select_differential.py pins all of it.
"""
from __future__ import annotations

import math

from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from graphir.broadcast import AutoBroadcastSpec, broadcast_merge
from graphir.kernels.select import select
from graphir.ops.base import Op, Port, TensorType, types
from graphir.shapes import PartialShape
from graphir.types import ElementType

#: constant folding is attempted only up to this many output elements
_FOLD_LIMIT = 4096


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
        shape = self._infer_shape(cond.shape, then.shape, other.shape)
        value = self._fold(cond, then, other, et, shape)
        if value is None and cond.value is not None and (then.bounds or other.bounds):
            picked = self._picked(cond, then, other, et, shape)
            if picked is not None:
                return [picked]
        return [TensorType(et, shape, value)]

    def _infer_shape(self, cond: PartialShape, then: PartialShape, other: PartialShape) -> PartialShape:
        spec = self.broadcast_spec
        if spec.type == "pdpd":
            rule = f"pdpd broadcast from axis {spec.axis}: rank <= {then.rank}, each dim fits or is 1"
            result = broadcast_merge(then, other, spec)
            if result is None:
                raise self.fail(
                    f"'Else' tensor shape is not broadcastable: input 2 ('else') {other} into "
                    f"input 1 ('then') {then} ({rule})"
                )
            merged = broadcast_merge(result, cond, spec)
            if merged is None:
                raise self.fail(
                    f"'Cond' tensor shape is not broadcastable: input 0 ('cond') {cond} into "
                    f"{result} ({rule})"
                )
            return merged
        rule = (
            "none: shapes must be equal" if spec.type == "none"
            else "numpy: right-aligned, each dim equal or 1"
        )
        result = other
        for index, shape in ((1, then), (0, cond)):
            merged = broadcast_merge(result, shape, spec)
            if merged is None:
                raise self.fail(
                    f"Argument shapes are inconsistent: cond {cond}, then {then}, else {other} "
                    f"({rule}; input {index} ('{self.inputs[index].name}') {shape} does not fit "
                    f"{result})"
                )
            result = merged
        return result

    def _fold(self, cond: TensorType, then: TensorType, other: TensorType, et: ElementType,
              shape: PartialShape) -> np.ndarray | None:
        """The output value when all three inputs are known and small (shape subgraphs)."""
        if cond.value is None or then.value is None or other.value is None or not shape.is_static:
            return None
        if math.prod(shape.to_shape()) > _FOLD_LIMIT or et.is_dynamic:
            return None
        try:
            return self.evaluate(np.asarray(cond.value), np.asarray(then.value), np.asarray(other.value))[0]
        except (ValueError, TypeError):
            return None

    def _picked(self, cond: TensorType, then: TensorType, other: TensorType, et: ElementType,
                shape: PartialShape) -> TensorType | None:
        """A known condition over partly known shape values (torch's ``expand`` target
        ``Where(Equal(shape, -1), 1, shape)``): each element taken from its branch, as OpenVINO's
        bounds take it (a dim of ``[?,?,2,?,8]`` stays known through the Where)."""
        from graphir.ops.openvino import shape_values as sv

        first, second = sv.elements(then), sv.elements(other)
        if (first is None or second is None or not shape.is_static or self.auto_broadcast != "numpy"
                or not (then.shape.is_static and other.shape.is_static)):
            return None
        a: np.ndarray = np.empty(len(first), dtype=np.object_)
        b: np.ndarray = np.empty(len(second), dtype=np.object_)
        a[:], b[:] = first, second
        try:
            picked = np.where(np.asarray(cond.value, dtype=bool), a.reshape(then.shape.to_shape()),
                              b.reshape(other.shape.to_shape()))
        except ValueError:
            return None
        return sv.make(et, shape, picked.reshape(-1).tolist())

    def evaluate(self, cond: np.ndarray, then: np.ndarray, other: np.ndarray) -> list[np.ndarray]:
        if self.auto_broadcast == "pdpd":
            rank = then.ndim
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
