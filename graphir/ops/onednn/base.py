"""The base of every oneDNN Graph op schema, its attribute kinds and shared inference helpers.

oneDNN Graph attributes have one of six kinds (``string``, ``s64``, ``s64[]``, ``f32``, ``f32[]``,
``bool``); a field's kind follows from its annotation (``int`` -> ``s64``, ``list[float]`` ->
``f32[]``, a ``Literal`` of strings -> ``string`` ...), so the JSON writer can emit
``{"type": kind, "value": ...}`` without a second table. Required attributes have no default.

Some outputs take the element type the graph declares rather than one derived from the inputs
(TypeCast's dst, Quantize's dst, MatMul's dst): their indices are in ``free_output_types`` and the
reader (or a converter) declares them with :meth:`OneDNNOp.declare_output_types`.
"""
from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from pydantic import PrivateAttr

from graphir.errors import EvaluationError, InferenceError
from graphir.ops.base import Op, Port, TensorType, types
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

#: the floating types nearly every oneDNN Graph op accepts
FLOAT = types("f32", "bf16", "f16")
F32_BF16 = types("f32", "bf16")
FLOAT_S32 = types("f32", "bf16", "f16", "i32")
S32 = types("i32")

ATTRIBUTE_KINDS = ("string", "s64", "s64[]", "f32", "f32[]", "bool")


def _kind_of(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _kind_of(args[0])
    if origin is typing.Literal:
        return "string"
    if origin is list:
        (item,) = typing.get_args(annotation)
        return "s64[]" if item is int else "f32[]"
    if annotation is bool:
        return "bool"
    if annotation is int:
        return "s64"
    if annotation is float:
        return "f32"
    if annotation is str:
        return "string"
    raise TypeError(f"no oneDNN attribute kind for annotation {annotation!r}")


class OneDNNOp(Op):
    """Base of the ``onednn`` dialect: version ``1``, attribute kinds, declared output types."""

    dialect: ClassVar[str] = "onednn"
    version: ClassVar[str] = "1"
    #: output indices whose element type the graph declares (TypeCast, Quantize, MatMul dst, ...)
    free_output_types: ClassVar[frozenset[int]] = frozenset()
    #: minimum number of outputs a graph must list (trailing optional outputs may be left out)
    min_outputs: ClassVar[int | None] = None

    _declared_types: tuple[ElementType, ...] | None = PrivateAttr(default=None)
    _output_count: int | None = PrivateAttr(default=None)

    # --- attributes -------------------------------------------------------------------------
    @classmethod
    def attribute_kind(cls, name: str) -> str:
        """The oneDNN attribute kind of field ``name`` (``s64[]``, ``bool``, ...)."""
        return _kind_of(cls.model_fields[name].annotation)

    @classmethod
    def attribute_kinds(cls) -> dict[str, str]:
        return {name: cls.attribute_kind(name) for name in cls.model_fields}

    def explicit_attributes(self) -> dict[str, Any]:
        """The attributes that were given explicitly (what a writer emits), in field order."""
        given = self.model_fields_set
        return {n: getattr(self, n) for n in type(self).model_fields if n in given}

    # --- outputs ----------------------------------------------------------------------------
    def default_num_outputs(self) -> int:
        return len([p for p in self.outputs if not p.optional])

    def num_outputs(self) -> int:
        return self._output_count if self._output_count is not None else self.default_num_outputs()

    def output_count_range(self) -> tuple[int, int | None]:
        """(minimum, maximum) outputs a graph may list for this op; maximum None when variadic."""
        low = self.min_outputs if self.min_outputs is not None else len([p for p in self.outputs if not p.optional])
        high = None if self.outputs and self.outputs[-1].variadic else len(self.outputs)
        return low, high

    def set_output_count(self, count: int) -> None:
        self._output_count = count

    def declare_output_types(self, element_types: Sequence[ElementType | None]) -> None:
        """The element types the graph gives this op's outputs (used for ``free_output_types``)."""
        self._declared_types = tuple(ElementType.dynamic if t is None else ElementType.parse(t) for t in element_types)

    def output_element_type(self, index: int, default: ElementType) -> ElementType:
        """The declared type of a free output (checked against its port), else ``default``."""
        declared = self._declared_types
        if index in self.free_output_types and declared is not None and index < len(declared):
            et = declared[index]
            if et.is_static:
                port = self.output_port(index)
                if not port.allows(et):
                    allowed = ", ".join(str(t) for t in port.types or ())
                    raise self.fail(f"output {index} ('{port.name}') has element type {et}; allowed: {allowed}")
                return et
        return default

    def finish(self, outputs: list[TensorType]) -> list[TensorType]:
        """The first ``num_outputs()`` of all the outputs an op can produce."""
        return outputs[: self.num_outputs()]

    # --- helpers ----------------------------------------------------------------------------
    def identity(self, inputs: list[TensorType], index: int = 0) -> list[TensorType]:
        """One output with the element type and shape of input ``index``, after a type check."""
        self.check_input_types(inputs)
        return [TensorType(inputs[index].element_type, inputs[index].shape)]

    def axis_of(self, axis: int, rank: int, what: str = "axis") -> int:
        """``axis`` normalized into [0, rank); an error naming the attribute otherwise."""
        if not -rank <= axis < max(rank, 1) or (rank == 0 and axis not in (0, -1)):
            raise self.fail(f"attribute '{what}' = {axis} is out of range for rank {rank}")
        return axis + rank if axis < 0 else axis


class BackwardOp(OneDNNOp):
    """A training (gradient) op: loads, validates, infers and round-trips, but does not run here."""

    runnable: ClassVar[bool] = False

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        raise EvaluationError(
            f"{self.describe()} is a backward (training) op; graphir does not run backward ops"
        )


def static_dims(shape: PartialShape) -> list[int | None]:
    """Each dimension's length, None where it is not static."""
    return [d.get_length() if d.is_static else None for d in shape]


def to_shape(dims: Sequence[int | None | Dimension]) -> PartialShape:
    return PartialShape([Dimension.dynamic() if d is None else d if isinstance(d, Dimension) else Dimension.static(d) for d in dims])


def cast_to(array: np.ndarray, element_type: ElementType) -> np.ndarray:
    return np.asarray(array).astype(element_type.numpy_dtype, copy=False)


def as_f32(array: np.ndarray) -> np.ndarray:
    return np.asarray(array).astype(np.float32, copy=False)


def ensure(condition: bool, op: OneDNNOp, message: str) -> None:
    if not condition:
        raise op.fail(message)


__all__ = [
    "ATTRIBUTE_KINDS", "BackwardOp", "FLOAT", "F32_BF16", "FLOAT_S32", "InferenceError", "OneDNNOp",
    "Port", "S32", "TensorType", "as_f32", "cast_to", "ensure", "static_dims", "to_shape", "types",
]
