"""oneDNN Graph ``Select``: ``dst[i] = cond[i] ? src_0[i] : src_1[i]``.

Broadcasting (``auto_broadcast="numpy"``) is the spec's two steps: src_0 and src_1 broadcast to
each other numpy-style giving dst, then cond is one-way broadcast to dst (rank <= dst rank, each
dim equal or 1). Unlike OpenVINO's Select-1, cond can never enlarge the output: cond ``[2,3,4,5]``
with src ``[4,5]`` is valid in OpenVINO and invalid here. ``none``: all three shapes are equal.
Types: cond boolean; src_0, src_1 and dst one of f32, bf16, f16, all the same.
"""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.broadcast import none_merge, numpy_merge, one_way_merge
from graphir.kernels.select import select
from graphir.ops.base import Op, Port, TensorType, types
from graphir.shapes import PartialShape
from graphir.types import ElementType

FLOATS = types("f32", "bf16", "f16")
_TYPE_RULE = "oneDNN Graph Select types: cond boolean; src_0, src_1 and dst f32, bf16 or f16, all the same"


class Select(Op):
    """oneDNN Graph Select (all oneDNN Graph op versions are "1")."""

    dialect: ClassVar[str] = "onednn"
    type_name: ClassVar[str] = "Select"
    version: ClassVar[str] = "1"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("cond", types("boolean"), description="selection mask"),
        Port("src_0", FLOATS, description="taken where cond is true"),
        Port("src_1", FLOATS, description="taken where cond is false"),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst"),)

    auto_broadcast: Literal["none", "numpy"] = "numpy"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        cond, src_0, src_1 = inputs
        et = self._infer_type(cond, src_0, src_1)
        return [TensorType(et, self._infer_shape(cond.shape, src_0.shape, src_1.shape))]

    def _infer_type(self, cond: TensorType, src_0: TensorType, src_1: TensorType) -> ElementType:
        if cond.element_type not in (ElementType.boolean, ElementType.dynamic):
            raise self.fail(f"input 0 ('cond') has data type {cond.element_type}, expected boolean ({_TYPE_RULE})")
        for index, tensor in ((1, src_0), (2, src_1)):
            if not self.inputs[index].allows(tensor.element_type):
                raise self.fail(
                    f"input {index} ('{self.inputs[index].name}') has data type {tensor.element_type}, "
                    f"expected f32, bf16 or f16 ({_TYPE_RULE})"
                )
        et = src_0.element_type.merge(src_1.element_type)
        if et is None:
            raise self.fail(
                f"input 2 ('src_1') has data type {src_1.element_type} but input 1 ('src_0') has "
                f"{src_0.element_type} ({_TYPE_RULE})"
            )
        return et

    def _infer_shape(self, cond: PartialShape, src_0: PartialShape, src_1: PartialShape) -> PartialShape:
        if self.auto_broadcast == "none":
            dst = none_merge(src_0, src_1)
            merged = None if dst is None else none_merge(dst, cond)
            if merged is None:
                raise self.fail(
                    f"invalid shape: cond {cond}, src_0 {src_0}, src_1 {src_1} must be equal "
                    f"(auto_broadcast none)"
                )
            return merged
        dst = numpy_merge(src_0, src_1)
        if dst is None:
            raise self.fail(
                f"invalid shape: src_0 {src_0} and src_1 {src_1} do not broadcast to each other "
                f"(step 1 of the two-step broadcast: numpy rules)"
            )
        merged = one_way_merge(dst, cond)
        if merged is None:
            raise self.fail(
                f"invalid shape: cond {cond} cannot be one-way broadcast to dst {dst} (step 2 of the "
                f"two-step broadcast: cond rank <= dst rank and each cond dim equal to dst's or 1)"
            )
        return merged

    def infer_known(self, inputs: list[TensorType]) -> list[TensorType]:
        """oneDNN's graph-level shape inference: every input shape must be fully known first."""
        for index, tensor in enumerate(inputs):
            if not tensor.shape.is_static:
                raise self.fail(
                    f"invalid shape: input {index} ('{self.input_port(index).name}') has shape "
                    f"{tensor.shape}; oneDNN Graph infers shapes only from fully known input shapes"
                )
        return self.infer(inputs)

    def check_output(self, inferred: TensorType, declared: TensorType) -> TensorType:
        """Reconcile a declared dst (from a serialized graph) with the inferred one.

        The data type must be the one src_0 fixes (invalid_graph_op); the rank must match and each
        known dim must equal the inferred one, unknown dims being wildcards (invalid_shape).
        """
        if declared.element_type.merge(inferred.element_type) is None:
            raise self.fail(
                f"output 0 ('dst') has data type {declared.element_type} but src_0 fixes {inferred.element_type} "
                f"({_TYPE_RULE})"
            )
        et = inferred.element_type.merge(declared.element_type) or inferred.element_type
        merged = inferred.shape.merge(declared.shape)
        if merged is None:
            raise self.fail(
                f"invalid shape: output 0 ('dst') is declared {declared.shape} but inference gives "
                f"{inferred.shape} (same rank; each known dim must match)"
            )
        return TensorType(et, merged)

    def evaluate(self, cond: np.ndarray, src_0: np.ndarray, src_1: np.ndarray) -> list[np.ndarray]:
        return [select(cond, src_0, src_1)]
