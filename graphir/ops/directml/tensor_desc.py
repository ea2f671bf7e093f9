"""DirectML buffer tensor descriptions (``DML_BUFFER_TENSOR_DESC``) and their size rule.

A desc says how an operator reads a buffer: ``Sizes`` (the logical shape), optional ``Strides`` in
elements (a zero stride re-reads the same element: DirectML's way to broadcast; none means packed
row-major), ``TotalTensorSizeInBytes`` (at least :func:`calc_buffer_tensor_size`, DirectMLX's
``DMLCalcBufferTensorSize``: index of last element = dot(Sizes - 1, Strides), bytes = that + 1
elements, rounded up to 4) and ``GuaranteedBaseOffsetAlignment`` (0, or a power of two no smaller
than the element size). A desc that breaks a rule fails at construction (DirectML's E_INVALIDARG).
"""
from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from graphir.errors import ElementTypeError, OpDefinitionError
from graphir.types import ElementType

#: DML_TENSOR_DIMENSION_COUNT_MAX1: no DirectML tensor has more dimensions
MAX_DIMENSIONS = 8


class TensorDataType(str, enum.Enum):
    """``DML_TENSOR_DATA_TYPE``; ``str()`` is the short name (``FLOAT32``)."""

    UNKNOWN = "UNKNOWN"
    FLOAT32 = "FLOAT32"
    FLOAT16 = "FLOAT16"
    UINT32 = "UINT32"
    UINT16 = "UINT16"
    UINT8 = "UINT8"
    INT32 = "INT32"
    INT16 = "INT16"
    INT8 = "INT8"
    FLOAT64 = "FLOAT64"
    UINT64 = "UINT64"
    INT64 = "INT64"
    UINT4 = "UINT4"
    INT4 = "INT4"

    def __str__(self) -> str:
        return self.value

    @property
    def dml_name(self) -> str:
        return "DML_TENSOR_DATA_TYPE_" + self.value

    @property
    def bits(self) -> int:
        """Element width in bits (0 for UNKNOWN)."""
        return _BITS[self.value]

    @property
    def element_type(self) -> ElementType:
        if self.value not in _ELEMENT_TYPES:
            raise ElementTypeError(f"DirectML data type {self.value} has no graphir element type")
        return ElementType(_ELEMENT_TYPES[self.value])

    @classmethod
    def parse(cls, value: "str | TensorDataType") -> "TensorDataType":
        if isinstance(value, TensorDataType):
            return value
        key = str(value).strip().upper().removeprefix("DML_TENSOR_DATA_TYPE_")
        try:
            return cls(key)
        except ValueError:
            raise OpDefinitionError(
                f"unknown DirectML data type {value!r}; known: {', '.join(t.value for t in cls)}"
            ) from None

    @classmethod
    def from_element_type(cls, et: ElementType) -> "TensorDataType":
        """graphir element type -> DirectML data type (boolean has none: DirectML reads it as UINT8)."""
        for name, value in _ELEMENT_TYPES.items():
            if value == et.value:
                return cls(name)
        raise ElementTypeError(f"element type {et} has no DirectML data type")


_BITS = {"UNKNOWN": 0, "FLOAT32": 32, "FLOAT16": 16, "UINT32": 32, "UINT16": 16, "UINT8": 8, "INT32": 32,
         "INT16": 16, "INT8": 8, "FLOAT64": 64, "UINT64": 64, "INT64": 64, "UINT4": 4, "INT4": 4}
_ELEMENT_TYPES = {"FLOAT32": "f32", "FLOAT16": "f16", "UINT32": "u32", "UINT16": "u16", "UINT8": "u8",
                  "INT32": "i32", "INT16": "i16", "INT8": "i8", "FLOAT64": "f64", "UINT64": "u64",
                  "INT64": "i64", "UINT4": "u4", "INT4": "i4"}


class TensorFlags(str, enum.Enum):
    """``DML_TENSOR_FLAGS``: OWNED_BY_DML marks an input whose data DirectML may keep (weights)."""

    NONE = "NONE"
    OWNED_BY_DML = "OWNED_BY_DML"

    @classmethod
    def parse(cls, value: "str | int | TensorFlags") -> "TensorFlags":
        if isinstance(value, TensorFlags):
            return value
        if isinstance(value, int) and value in (0, 1):
            return cls.OWNED_BY_DML if value else cls.NONE
        key = str(value).strip().upper().removeprefix("DML_TENSOR_FLAG_").removeprefix("DML_TENSOR_FLAGS_")
        try:
            return cls(key)
        except ValueError:
            raise OpDefinitionError(f"unknown DirectML tensor flag {value!r}; known: NONE, OWNED_BY_DML") from None


def packed_strides(sizes: Sequence[int]) -> list[int]:
    """Row-major strides in elements (what DirectML assumes when a desc gives none)."""
    strides, step = [0] * len(sizes), 1
    for i in range(len(sizes) - 1, -1, -1):
        strides[i] = step
        step *= sizes[i]
    return strides


def last_element_index(sizes: Sequence[int], strides: Sequence[int] | None) -> int:
    """dot(Sizes - 1, Strides), with packed strides when none are given."""
    strides = packed_strides(sizes) if strides is None else strides
    return sum((n - 1) * s for n, s in zip(sizes, strides))


def calc_buffer_tensor_size(data_type: "TensorDataType | str", sizes: Sequence[int],
                            strides: Sequence[int] | None = None) -> int:
    """``DMLCalcBufferTensorSize``: the minimum TotalTensorSizeInBytes, in bits then rounded up to
    whole bytes and to a multiple of 4; 0 for an unknown data type."""
    data_type = TensorDataType.parse(data_type)
    if data_type.bits == 0 or not sizes:
        return 0
    bits = (last_element_index(sizes, strides) + 1) * data_type.bits
    size = (bits + 7) // 8
    return (size + 3) & ~3


class BufferTensorDesc(BaseModel):
    """``DML_BUFFER_TENSOR_DESC`` with DirectML's field names."""

    # a value, like the op holding it: its lists are frozen by the op (graphir.ops.frozen)
    model_config = ConfigDict(extra="forbid", frozen=True)

    DataType: TensorDataType
    Flags: TensorFlags = TensorFlags.NONE
    DimensionCount: int | None = None
    Sizes: list[int]
    Strides: list[int] | None = None
    TotalTensorSizeInBytes: int | None = None
    GuaranteedBaseOffsetAlignment: int = 0

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'desc'}: {e['msg']}" for e in exc.errors())
            raise OpDefinitionError(f"DirectML tensor desc: {problems}") from None

    @field_validator("DataType", mode="before")
    @classmethod
    def _data_type(cls, value: Any) -> TensorDataType:
        return TensorDataType.parse(value)

    @field_validator("Flags", mode="before")
    @classmethod
    def _flags(cls, value: Any) -> TensorFlags:
        return TensorFlags.parse(value)

    @model_validator(mode="after")
    def _check(self) -> "BufferTensorDesc":
        def bad(rule: str) -> ValueError:
            return ValueError(f"E_INVALIDARG: {rule} ({self.summary()})")

        count = len(self.Sizes)
        if self.DimensionCount is None:
            self._fill("DimensionCount", count)
        elif self.DimensionCount != count:
            raise bad(f"DimensionCount {self.DimensionCount} but {count} Sizes")
        if count > MAX_DIMENSIONS:
            raise bad(f"DimensionCount {count} exceeds DML_TENSOR_DIMENSION_COUNT_MAX1 ({MAX_DIMENSIONS}); "
                      "no feature level accepts it")
        if any(n <= 0 for n in self.Sizes):
            raise bad(f"Sizes {self.Sizes}: a size of zero (or below) in any dimension is invalid")
        if self.Strides is not None:
            if len(self.Strides) != count:
                raise bad(f"{len(self.Strides)} Strides for DimensionCount {count}")
            if any(s < 0 for s in self.Strides):
                raise bad(f"Strides {self.Strides} must not be negative")
        minimum = calc_buffer_tensor_size(self.DataType, self.Sizes, self.Strides)
        if self.TotalTensorSizeInBytes is None:
            self._fill("TotalTensorSizeInBytes", minimum)
        elif self.TotalTensorSizeInBytes < minimum:
            raise bad(f"TotalTensorSizeInBytes {self.TotalTensorSizeInBytes} is below the minimum {minimum} "
                      "that Sizes, Strides and DataType imply (DMLCalcBufferTensorSize)")
        alignment, element_bytes = self.GuaranteedBaseOffsetAlignment, max(1, self.DataType.bits // 8)
        if alignment != 0 and (alignment & (alignment - 1) or alignment < element_bytes):
            raise bad(f"GuaranteedBaseOffsetAlignment {alignment} must be 0 or a power of two of at "
                      f"least the element size ({element_bytes})")
        return self

    def _fill(self, name: str, value: int) -> None:
        """Set a field left None to what the others imply (as an assignment did before the desc was
        frozen: the field counts as set)."""
        self.__dict__[name] = value
        self.__pydantic_fields_set__.add(name)

    # --- queries ----------------------------------------------------------------------------
    def summary(self) -> str:
        strides = "" if self.Strides is None else f", Strides {self.Strides}"
        return f"{self.DataType} Sizes {self.Sizes}{strides}"

    @property
    def strides_or_packed(self) -> list[int]:
        return packed_strides(self.Sizes) if self.Strides is None else list(self.Strides)

    @property
    def is_packed(self) -> bool:
        return self.Strides is None or list(self.Strides) == packed_strides(self.Sizes)

    @property
    def required_elements(self) -> int:
        """Elements the buffer must hold: index of the last element + 1."""
        return last_element_index(self.Sizes, self.Strides) + 1

    def read(self, buffer: np.ndarray) -> np.ndarray:
        """A read-only view of ``buffer`` (any shape, read as flat elements) through Sizes/Strides."""
        flat = np.ascontiguousarray(buffer).reshape(-1)
        if flat.size < self.required_elements:
            raise ValueError(
                f"buffer of {flat.size} elements is too small for {self.summary()} "
                f"(needs {self.required_elements})"
            )
        itemsize = flat.dtype.itemsize
        return np.lib.stride_tricks.as_strided(
            flat, shape=tuple(self.Sizes), strides=tuple(s * itemsize for s in self.strides_or_packed),
            writeable=False,
        )
