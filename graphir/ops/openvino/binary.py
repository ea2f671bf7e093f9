"""The binary-elementwise pattern OpenVINO's Add, Less, LogicalAnd... share.

Each op has an ``auto_broadcast`` attribute (numpy, none or pdpd with an axis); its output shape
is ``broadcast_merge_into(A, B)`` under that rule (pdpd broadcasts B into A). Three families:

- arithmetic: A and B merge to one element type, which may not be boolean or string
  ("This operation does not support inputs with element type: boolean"); output has that type;
- comparison: A and B merge to one element type (boolean allowed); output is boolean;
- logical: A and B must be boolean; output is boolean.

Element types and messages follow OpenVINO 2026.4 (tests/ops/test_elementwise.py pins them).
Outputs fold (``TensorType.value``) when both input values are known and the result is small.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar, Literal, Protocol

import numpy as np
from pydantic import Field

from graphir.broadcast import AutoBroadcastSpec, broadcast_merge, numpy_merge
from graphir.errors import GraphirError
from graphir.ops.base import NodeSignature, Op, Port, TensorType, fresh_output, writes_into
from graphir.ops.step_forms import inline
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

#: constant folding is attempted only up to this many output elements
FOLD_LIMIT = 4096

_RULES = {
    "none": "none: shapes must be equal",
    "numpy": "numpy: right-aligned, each dim equal or 1",
    "pdpd": "pdpd: B fits into A from the axis, each dim equal or 1",
}


class Evaluates(Protocol):
    """What :func:`fold` needs of an op: ``evaluate(*arrays) -> arrays``."""

    @property
    def evaluate(self) -> Callable[..., list[np.ndarray]]: ...


def fold(op: Evaluates, inputs: list[TensorType], shape: PartialShape, et: ElementType) -> Any:
    """Evaluate ``op`` on its inputs' known values when all are known and the result is small."""
    for t in inputs:
        if t.value is None:
            return None
    if et.is_dynamic or not shape.is_static:
        return None
    if math.prod(shape.to_shape()) > FOLD_LIMIT:
        return None
    try:
        with np.errstate(all="ignore"):
            return op.evaluate(*(np.asarray(t.value) for t in inputs))[0]
    except (GraphirError, ValueError, TypeError, ArithmeticError):
        return None


def _unbounded(item: object) -> bool:
    """A partly known element without an upper bound: OpenVINO's bounds arithmetic (Add, Multiply,
    Minimum, FloorMod...) gives a fully unknown element for it, keeping no lower bound."""
    return isinstance(item, Dimension) and item.max is None


def pdpd_align(array: np.ndarray, rank: int, axis: int) -> np.ndarray:
    """Reshape a lower-rank array so numpy broadcasting places its dims starting at ``axis``."""
    if array.ndim >= rank:
        return array
    start = rank - array.ndim if axis == -1 else axis
    return array.reshape((1,) * start + array.shape + (1,) * (rank - start - array.ndim))


class BinaryElementwise(Op):
    """Base of the binary elementwise ops: broadcast attribute, shape rule, folding."""

    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("A"), Port("B"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    auto_broadcast: Literal["none", "numpy", "pdpd"] = "numpy"
    auto_broadcast_axis: int = Field(
        default=0,
        alias="auto_broadcast.auto_broadcast_axis",
        description="pdpd only: the axis of A where B's dims start (-1: trailing alignment)",
    )

    @property
    def broadcast_spec(self) -> AutoBroadcastSpec:
        return AutoBroadcastSpec(type=self.auto_broadcast, axis=self.auto_broadcast_axis)

    # --- inference --------------------------------------------------------------------------
    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = self.output_element_type(inputs)
        shape = self.infer_shape(inputs[0].shape, inputs[1].shape)
        value = fold(self, inputs, shape, et)
        if value is None and self.bounds_rule is not None and (inputs[0].bounds or inputs[1].bounds):
            return [self._bounded(inputs, shape, et)]
        return [TensorType(et, shape, value)]

    #: how a partly known element combines (shape arithmetic: Multiply, Add, Divide...); None: no rule
    bounds_rule: ClassVar[Any] = None
    #: an element without an upper bound combines into a fully unknown one, as OpenVINO 2026.4 bounds
    #: it (measured: ``[5..] + 16``, ``[5..] * 1`` and ``min([5..], 7)`` are ``?``); FloorMod keeps its rule
    unbounded_is_unknown: ClassVar[bool] = True

    def _bounded(self, inputs: list[TensorType], shape: PartialShape, et: ElementType) -> TensorType:
        """Partly known shape values through arithmetic (``ShapeOf * 4``, ``dim // heads``)."""
        from graphir.ops.openvino import shape_values as sv

        first, second = sv.elements(inputs[0]), sv.elements(inputs[1])
        if first is None or second is None or not shape.is_static or self.auto_broadcast == "pdpd":
            return TensorType(et, shape)
        a: np.ndarray = np.empty(len(first), dtype=np.object_)
        b: np.ndarray = np.empty(len(second), dtype=np.object_)
        a[:], b[:] = first, second
        try:
            a = a.reshape(inputs[0].shape.to_shape())
            b = b.reshape(inputs[1].shape.to_shape())
            pairs = np.broadcast_arrays(a, b)
        except ValueError:
            return TensorType(et, shape)
        out = []
        for x, y in zip(pairs[0].reshape(-1), pairs[1].reshape(-1)):
            if self.unbounded_is_unknown and (_unbounded(x) or _unbounded(y)):  # see the flag
                out.append(Dimension.dynamic())
                continue
            r = self.bounds_rule(x, y)
            if r is None:
                return TensorType(et, shape)
            out.append(r)
        return sv.make(et, shape, out)

    def output_element_type(self, inputs: list[TensorType]) -> ElementType:
        return self.merged_element_type(inputs)

    def merged_element_type(self, inputs: list[TensorType]) -> ElementType:
        a, b = inputs[0].element_type, inputs[1].element_type
        et = a.merge(b)
        if et is None:
            raise self.fail(
                f"Arguments do not have the same element type (arg0 element type: {a}, arg1 "
                f"element type: {b}); input 0 ('A') is {inputs[0]}, input 1 ('B') is {inputs[1]}"
            )
        return et

    def infer_shape(self, a: PartialShape, b: PartialShape) -> PartialShape:
        if self.auto_broadcast == "numpy":  # the common case, without building a spec
            merged = numpy_merge(a, b)
            if merged is not None:
                return merged
        spec = self.broadcast_spec
        merged = broadcast_merge(a, b, spec)
        if merged is None:
            rule = _RULES[spec.type] + (f" {spec.axis}" if spec.type == "pdpd" else "")
            raise self.fail(
                f"Argument shapes are inconsistent: input 0 ('A') {a} and input 1 ('B') {b} "
                f"({rule})"
            )
        return merged

    # --- evaluation -------------------------------------------------------------------------
    def evaluate(self, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
        a, b = np.asarray(a), np.asarray(b)
        if self.auto_broadcast == "pdpd":
            b = pdpd_align(b, a.ndim, self.auto_broadcast_axis)
        elif self.auto_broadcast == "none" and a.shape != b.shape:
            raise self.fail(f"auto_broadcast none: input shapes {list(a.shape)} and {list(b.shape)} differ")
        with np.errstate(all="ignore"):
            out = self.compute(a, b)
        return [np.asarray(out)]

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    #: the ufunc ``compute`` is for inputs of one numpy float or integer type (None: no such one),
    #: for :meth:`prepare`; ``ufunc_kinds``: the dtype kinds it covers
    ufunc: ClassVar["np.ufunc | None"] = None
    ufunc_kinds: ClassVar[str] = "fiu"

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """One ufunc call when both inputs have one plain numpy type, numpy broadcasting and an
        output of rank >= 1 (what ``evaluate`` then computes; a run plan suppresses numpy's
        floating-point warnings for the whole run, as ``evaluate`` does per call)."""
        ufunc = self.ufunc
        owner = next(c for c in type(self).__mro__ if "compute" in c.__dict__)
        if "ufunc" not in owner.__dict__:  # a subclass computing something else keeps its evaluate
            return self.evaluate
        a, b = node.inputs
        if (ufunc is None or self.auto_broadcast != "numpy" or a.element_type != b.element_type
                or a.element_type.is_dynamic or not node.outputs[0].shape.rank_is_static or len(node.outputs[0].shape) == 0):
            return self.evaluate
        try:
            dtype = np.dtype(a.element_type.numpy_dtype)
        except (TypeError, ValueError):
            return self.evaluate
        if dtype.kind not in self.ufunc_kinds or dtype.kind == "V":
            return self.evaluate
        return writes_into(inline(lambda a, b: [ufunc(a, b)], "call", ufunc),
                           inline(lambda a, b: [ufunc(a, b, out=a)], "call_out", ufunc, 0),
                           inline(lambda a, b: [ufunc(a, b, out=b)], "call_out", ufunc, 1))


class BinaryArithmetic(BinaryElementwise):
    """Same-type numeric inputs (no boolean, no string); output of that type."""

    def output_element_type(self, inputs: list[TensorType]) -> ElementType:
        et = self.merged_element_type(inputs)
        if et in (ElementType.boolean, ElementType.string):
            raise self.fail(
                f"This operation does not support inputs with element type: {et} "
                f"(input 0 ('A') is {inputs[0]}, input 1 ('B') is {inputs[1]})"
            )
        return et

    def evaluate(self, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
        out = super().evaluate(a, b)[0]
        return [out.astype(np.result_type(a, b), copy=False)]


class BinaryComparison(BinaryElementwise):
    """Same-type inputs (boolean allowed); boolean output."""

    def output_element_type(self, inputs: list[TensorType]) -> ElementType:
        self.merged_element_type(inputs)
        return ElementType.boolean

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """The comparison's one ufunc (see BinaryElementwise.prepare), into a new boolean array:
        never into an input (of another type)."""
        prepared = super().prepare(node)
        ufunc = self.ufunc
        if ufunc is None or getattr(prepared, "into_inputs", None) is None:
            return prepared
        return fresh_output(inline(lambda a, b: [ufunc(a, b)], "call", ufunc))


class BinaryLogical(BinaryElementwise):
    """Boolean inputs; boolean output."""

    inputs: ClassVar[tuple[Port, ...]] = (
        Port("A", (ElementType.boolean,)),
        Port("B", (ElementType.boolean,)),
    )

    def output_element_type(self, inputs: list[TensorType]) -> ElementType:
        et = self.merged_element_type(inputs)
        if et not in (ElementType.boolean, ElementType.dynamic):
            raise self.fail(
                f"Operands for logical operators must have boolean element type but have element "
                f"type {et} (input 0 ('A') is {inputs[0]}, input 1 ('B') is {inputs[1]})"
            )
        return ElementType.boolean
