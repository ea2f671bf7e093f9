"""DirectML ``DML_OPERATOR_ELEMENT_WISE_IF``: ``out = cond != 0 ? a : b``, no implicit broadcasting.

The op's type name is ``ElementWiseIf`` (CamelCase like every graphir op; ``ELEMENT_WISE_IF`` and
``DML_OPERATOR_ELEMENT_WISE_IF`` resolve to it too). Its attributes are DirectML's own: the four
buffer tensor descs and the ``feature_level`` to validate against. Each graph input is the *buffer*
its desc reads: any shape, read as flat elements through the desc's Sizes and Strides (a zero
stride re-reads one element, which is how a caller broadcasts). A boolean graph tensor is read as
UINT8 bytes for the condition, as ONNX Runtime's DirectML EP reinterprets ONNX bool.
Validation follows the operator's tensor constraints and per-feature-level support tables; a
violation names the tensor, the rule and the lowest feature level that would accept it.
"""
from __future__ import annotations

import math

from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import numpy as np
from pydantic import field_validator

from graphir.errors import EvaluationError
from graphir.kernels.select import select
from graphir.ops.base import Op, Port, TensorType
from graphir.ops.directml.feature_levels import NEWEST, FeatureLevel, SupportTable
from graphir.ops.directml.tensor_desc import BufferTensorDesc, TensorDataType, TensorFlags
from graphir.shapes import PartialShape
from graphir.types import ElementType


@dataclass(frozen=True)
class IfSupport:
    """One row of the operator's tensor support table."""

    dimension_counts: tuple[int, ...]
    value_types: tuple[TensorDataType, ...]  # ATensor, BTensor, OutputTensor
    condition_types: tuple[TensorDataType, ...] = (TensorDataType.UINT8,)

    def accepts(self, tensor: str, desc: BufferTensorDesc) -> bool:
        allowed = self.condition_types if tensor == "ConditionTensor" else self.value_types
        return desc.DimensionCount in self.dimension_counts and desc.DataType in allowed


def _t(*names: str) -> tuple[TensorDataType, ...]:
    return tuple(TensorDataType(n) for n in names)


_FL3 = _t("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
SUPPORT: SupportTable[IfSupport] = SupportTable([
    (FeatureLevel.L2_0, IfSupport((4,), _t("FLOAT16"))),
    (FeatureLevel.L3_0, IfSupport(tuple(range(1, 9)), _FL3)),
    (FeatureLevel.L5_0, IfSupport(tuple(range(1, 9)), _t("FLOAT64") + _FL3 + _t("INT64", "UINT64"))),
])

TENSORS = ("ConditionTensor", "ATensor", "BTensor", "OutputTensor")


def _counts(row: IfSupport) -> str:
    c = row.dimension_counts
    return str(c[0]) if len(c) == 1 else f"{c[0]} to {c[-1]}"


class ElementWiseIf(Op):
    """Selects from ATensor where ConditionTensor is non-zero, else from BTensor."""

    dialect: ClassVar[str] = "directml"
    type_name: ClassVar[str] = "ElementWiseIf"
    version: ClassVar[str] = "1"
    serialized_type_names: ClassVar[dict[str, str]] = {
        "dml": "DML_OPERATOR_ELEMENT_WISE_IF", "short": "ELEMENT_WISE_IF"}
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("ConditionTensor", description="UINT8 buffer (a boolean tensor is read as its bytes)"),
        Port("ATensor", description="taken where the condition is non-zero"),
        Port("BTensor", description="taken where the condition is zero"),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("OutputTensor"),)

    ConditionTensor: BufferTensorDesc
    ATensor: BufferTensorDesc
    BTensor: BufferTensorDesc
    OutputTensor: BufferTensorDesc
    feature_level: FeatureLevel = NEWEST

    @field_validator("feature_level", mode="before")
    @classmethod
    def _level(cls, value: Any) -> FeatureLevel:
        return FeatureLevel.parse(value)

    @classmethod
    def from_inputs(cls, condition: BufferTensorDesc, a: BufferTensorDesc, b: BufferTensorDesc,
                    feature_level: "FeatureLevel | str" = NEWEST) -> "ElementWiseIf":
        """DirectMLX's ``dml::If``: the output takes A's DataType and Sizes, packed strides."""
        output = BufferTensorDesc(DataType=a.DataType, Sizes=list(a.Sizes))
        return cls(ConditionTensor=condition, ATensor=a, BTensor=b, OutputTensor=output,
                   feature_level=FeatureLevel.parse(feature_level))

    def descs(self) -> dict[str, BufferTensorDesc]:
        return {name: getattr(self, name) for name in TENSORS}

    # --- validation (what CreateOperator checks) -----------------------------------------------
    def validate_descs(self) -> None:
        """Raise an InferenceError (E_INVALIDARG) for the first rule the descs break."""
        level, descs = self.feature_level, self.descs()
        row = SUPPORT.row(level)
        if row is None:
            raise self.fail(
                f"E_INVALIDARG: DML_OPERATOR_ELEMENT_WISE_IF was introduced in "
                f"{SUPPORT.introduced.dml_name}; {level.dml_name} does not have it"
            )
        if descs["OutputTensor"].Flags is TensorFlags.OWNED_BY_DML:
            raise self.fail("E_INVALIDARG: OutputTensor: DML_TENSOR_FLAG_OWNED_BY_DML is allowed only on input tensors")
        out = descs["OutputTensor"]
        for name in TENSORS[:3]:
            desc = descs[name]
            if desc.DimensionCount != out.DimensionCount:
                raise self.fail(
                    f"E_INVALIDARG: {name}: DimensionCount {desc.DimensionCount} differs from OutputTensor's "
                    f"{out.DimensionCount} (all four tensors must have the same DimensionCount and Sizes)"
                )
            if list(desc.Sizes) != list(out.Sizes):
                raise self.fail(
                    f"E_INVALIDARG: {name}: Sizes {desc.Sizes} differ from OutputTensor's {out.Sizes} (all four "
                    f"tensors must have the same Sizes; DirectML does not broadcast, use zero Strides)"
                )
        for name in ("ATensor", "BTensor"):
            if descs[name].DataType != out.DataType:
                raise self.fail(
                    f"E_INVALIDARG: {name}: DataType {descs[name].DataType} differs from OutputTensor's "
                    f"{out.DataType} (ATensor, BTensor and OutputTensor must have the same DataType)"
                )
        for name in TENSORS:
            desc = descs[name]
            if row.accepts(name, desc):
                continue
            lowest = SUPPORT.lowest(partial(IfSupport.accepts, tensor=name, desc=desc))
            allowed = row.condition_types if name == "ConditionTensor" else row.value_types
            if desc.DimensionCount not in row.dimension_counts:
                rule = f"DimensionCount {desc.DimensionCount} is not supported (supported: {_counts(row)})"
            else:
                rule = (f"DataType {desc.DataType} is not supported "
                        f"(supported: {', '.join(t.value for t in allowed)})")
            where = (f"the lowest feature level that accepts it is {lowest.dml_name}" if lowest is not None
                     else "no feature level accepts it")
            raise self.fail(f"E_INVALIDARG: {name}: {rule} at {level.dml_name}; {where}")

    # --- graph semantics ------------------------------------------------------------------------
    def output_type(self) -> TensorType:
        out = self.OutputTensor
        shape = out.Sizes if out.is_packed else [out.required_elements]
        return TensorType(out.DataType.element_type, PartialShape(shape))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.validate_descs()
        for index, (name, tensor) in enumerate(zip(TENSORS, inputs)):
            desc = getattr(self, name)
            expected = desc.DataType.element_type
            accepted = (expected, ElementType.boolean) if name == "ConditionTensor" else (expected,)
            if tensor.element_type.is_static and tensor.element_type not in accepted:
                raise self.fail(
                    f"input {index} ('{name}') has element type {tensor.element_type} but its desc says "
                    f"{desc.DataType}"
                )
            if tensor.shape.is_static:
                count = math.prod(tensor.shape.to_shape())
                if count < desc.required_elements:
                    raise self.fail(
                        f"input {index} ('{name}') {tensor.shape} holds {count} elements; its desc "
                        f"({desc.summary()}) reads {desc.required_elements}"
                    )
        return [self.output_type()]

    def evaluate(self, condition: np.ndarray, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
        try:
            cond_view = self.ConditionTensor.read(_as_uint8(condition))
            a_view, b_view = self.ATensor.read(a), self.BTensor.read(b)
        except ValueError as exc:
            raise EvaluationError(f"{self.describe()}: {exc}") from None
        out_desc = self.OutputTensor
        dtype = out_desc.DataType.element_type.numpy_dtype
        result = select(cond_view != 0, a_view, b_view).astype(dtype, copy=False)
        if out_desc.is_packed:
            return [np.ascontiguousarray(result)]
        buffer = np.zeros(out_desc.required_elements, dtype)
        view = np.lib.stride_tricks.as_strided(
            buffer, shape=tuple(out_desc.Sizes), strides=tuple(s * buffer.itemsize for s in out_desc.strides_or_packed))
        view[...] = result
        return [buffer]


def _as_uint8(array: np.ndarray) -> np.ndarray:
    array = np.asarray(array)
    return array.view(np.uint8) if array.dtype == np.bool_ else array

