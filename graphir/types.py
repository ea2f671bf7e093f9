"""Element types: OpenVINO's names, bit widths, numpy dtypes, IR precisions and dialect spellings."""
from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from graphir.errors import ElementTypeError


# oneDNN Graph's logical_tensor::data_type has f16 bf16 f32 s32 s8 u8 boolean f8_e5m2 f8_e4m3 s4 u4
# (no f64, no s64); DirectML has no boolean and no bf16.
@dataclass(frozen=True)
class _Info:
    bits: int
    kind: str  # "real", "int", "uint", "bool", "string", "dynamic", "nf4" (a quantized code)
    numpy: "type[Any] | None"  # numpy scalar type of the *unpacked* element (None when there is none)
    ir_precision: str
    onednn: str | None
    directml: str | None


_U, _S = "uint", "int"
_TABLE: dict[str, _Info] = {
    "dynamic": _Info(0, "dynamic", None, "UNSPECIFIED", "undef", None),
    "boolean": _Info(8, "bool", np.bool_, "BOOL", "boolean", None),
    "bf16": _Info(16, "real", ml_dtypes.bfloat16, "BF16", "bf16", None),
    "f16": _Info(16, "real", np.float16, "FP16", "f16", "DML_TENSOR_DATA_TYPE_FLOAT16"),
    "f32": _Info(32, "real", np.float32, "FP32", "f32", "DML_TENSOR_DATA_TYPE_FLOAT32"),
    "f64": _Info(64, "real", np.float64, "FP64", None, "DML_TENSOR_DATA_TYPE_FLOAT64"),
    "i4": _Info(4, _S, ml_dtypes.int4, "I4", "s4", None),
    "i8": _Info(8, _S, np.int8, "I8", "s8", "DML_TENSOR_DATA_TYPE_INT8"),
    "i16": _Info(16, _S, np.int16, "I16", None, "DML_TENSOR_DATA_TYPE_INT16"),
    "i32": _Info(32, _S, np.int32, "I32", "s32", "DML_TENSOR_DATA_TYPE_INT32"),
    "i64": _Info(64, _S, np.int64, "I64", None, "DML_TENSOR_DATA_TYPE_INT64"),
    "u1": _Info(1, _U, np.uint8, "BIN", None, None),
    "u2": _Info(2, _U, ml_dtypes.uint2, "U2", None, None),
    "u3": _Info(3, _U, np.uint8, "U3", None, None),
    "u4": _Info(4, _U, ml_dtypes.uint4, "U4", "u4", None),
    "u6": _Info(6, _U, np.uint8, "U6", None, None),
    "u8": _Info(8, _U, np.uint8, "U8", "u8", "DML_TENSOR_DATA_TYPE_UINT8"),
    "u16": _Info(16, _U, np.uint16, "U16", None, "DML_TENSOR_DATA_TYPE_UINT16"),
    "u32": _Info(32, _U, np.uint32, "U32", None, "DML_TENSOR_DATA_TYPE_UINT32"),
    "u64": _Info(64, _U, np.uint64, "U64", None, "DML_TENSOR_DATA_TYPE_UINT64"),
    "f8e4m3": _Info(8, "real", ml_dtypes.float8_e4m3fn, "F8E4M3", "f8_e4m3", None),
    "f8e5m2": _Info(8, "real", ml_dtypes.float8_e5m2, "F8E5M2", "f8_e5m2", None),
    "f8e8m0": _Info(8, "real", ml_dtypes.float8_e8m0fnu, "F8E8M0", None, None),
    "f4e2m1": _Info(4, "real", ml_dtypes.float4_e2m1fn, "F4E2M1", None, None),
    "nf4": _Info(4, "nf4", np.uint8, "NF4", None, None),
    "string": _Info(0, "string", np.object_, "STRING", None, None),
}


class ElementType(str, enum.Enum):
    """An element type, named as OpenVINO names it. ``str(t)`` is that name."""

    dynamic = "dynamic"
    boolean = "boolean"
    bf16 = "bf16"
    f16 = "f16"
    f32 = "f32"
    f64 = "f64"
    i4 = "i4"
    i8 = "i8"
    i16 = "i16"
    i32 = "i32"
    i64 = "i64"
    u1 = "u1"
    u2 = "u2"
    u3 = "u3"
    u4 = "u4"
    u6 = "u6"
    u8 = "u8"
    u16 = "u16"
    u32 = "u32"
    u64 = "u64"
    f8e4m3 = "f8e4m3"
    f8e5m2 = "f8e5m2"
    f8e8m0 = "f8e8m0"
    f4e2m1 = "f4e2m1"
    nf4 = "nf4"
    string = "string"

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"ElementType.{self.value}"

    @functools.cached_property
    def _info(self) -> _Info:
        return _TABLE[self.value]

    # --- properties -------------------------------------------------------------------------
    @functools.cached_property
    def bitwidth(self) -> int:
        return self._info.bits

    @property
    def is_dynamic(self) -> bool:
        return self is ElementType.dynamic

    @property
    def is_static(self) -> bool:
        return self is not ElementType.dynamic

    @functools.cached_property
    def is_real(self) -> bool:
        """Floating point (nf4 is not: OpenVINO counts its 4-bit codes as integral)."""
        return self._info.kind == "real"

    @functools.cached_property
    def is_integral(self) -> bool:
        """Integers, boolean and nf4, as OpenVINO's ``is_integral`` (``!is_real``) counts them,
        except that ``dynamic`` and ``string`` are not integral here (OpenVINO says they are)."""
        return self._info.kind in ("int", "uint", "bool", "nf4")

    @functools.cached_property
    def is_integral_number(self) -> bool:
        """Integral and not boolean."""
        return self._info.kind in ("int", "uint", "nf4")

    @functools.cached_property
    def is_signed(self) -> bool:
        """As OpenVINO's table has it: reals, signed ints and boolean (stored as ``char``)."""
        return self._info.kind in ("int", "real", "bool")

    @functools.cached_property
    def is_numeric(self) -> bool:
        return self._info.kind in ("int", "uint", "real", "nf4")

    @functools.cached_property
    def is_sub_byte(self) -> bool:
        return 0 < self.bitwidth < 8

    @property
    def numpy_dtype(self) -> np.dtype:
        """The dtype of one *unpacked* element (sub-byte types unpack to one element per byte)."""
        if self._info.numpy is None:
            raise ElementTypeError(f"element type '{self}' has no numpy dtype")
        return np.dtype(self._info.numpy)

    @functools.cached_property
    def ir_precision(self) -> str:
        return self._info.ir_precision

    @functools.cached_property
    def onednn_name(self) -> str | None:
        return self._info.onednn

    @functools.cached_property
    def directml_name(self) -> str | None:
        return self._info.directml

    def packed_size(self, count: int) -> int:
        """Bytes that ``count`` elements occupy in an IR .bin (sub-byte types packed)."""
        if self is ElementType.string or self.is_dynamic:
            raise ElementTypeError(f"element type '{self}' has no fixed packed size")
        if self.value == "u3":
            return (count + 7) // 8 * 3
        if self.value == "u6":
            return (count + 3) // 4 * 3
        return (count * self.bitwidth + 7) // 8

    # --- conversions ------------------------------------------------------------------------
    @classmethod
    def parse(cls, name: "str | ElementType") -> "ElementType":
        """OpenVINO's lower-case name (``f32``, ``boolean``, ``dynamic``; ``undefined`` reads as dynamic)."""
        if isinstance(name, ElementType):
            return name
        key = str(name).strip()
        aliases = {"undefined": "dynamic", "bool": "boolean"}
        key = aliases.get(key.lower(), key.lower())
        try:
            return cls(key)
        except ValueError:
            raise ElementTypeError(
                f"unknown element type '{name}'; expected one of: {', '.join(_TABLE)}"
            ) from None

    @classmethod
    def from_ir_precision(cls, precision: str) -> "ElementType":
        key = precision.strip().upper()
        for name, info in _TABLE.items():
            if info.ir_precision == key:
                return cls(name)
        extra = {"FP8E4M3": "f8e4m3", "FP8E5M2": "f8e5m2", "U1": "u1", "BOOLEAN": "boolean",
                 "UNDEFINED": "dynamic", "DYNAMIC": "dynamic"}
        if key in extra:
            return cls(extra[key])
        raise ElementTypeError(f"unknown IR port precision '{precision}'")

    @classmethod
    def from_onednn(cls, name: str) -> "ElementType":
        for key, info in _TABLE.items():
            if info.onednn == name:
                return cls(key)
        raise ElementTypeError(f"unknown oneDNN Graph data type '{name}'")

    @classmethod
    def from_directml(cls, name: str) -> "ElementType":
        full = name if name.startswith("DML_TENSOR_DATA_TYPE_") else "DML_TENSOR_DATA_TYPE_" + name
        for key, info in _TABLE.items():
            if info.directml == full:
                return cls(key)
        raise ElementTypeError(f"unknown DirectML tensor data type '{name}' (DirectML has no boolean)")

    @classmethod
    def from_numpy(cls, dtype: "np.dtype | type") -> "ElementType":
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise ElementTypeError(f"{dtype!r} is neither an element type name nor a numpy dtype") from None
        for key in ("boolean", "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16",
                    "u32", "u64", "bf16", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "i4", "u4", "u2"):
            scalar = _TABLE[key].numpy
            if scalar is not None and np.dtype(scalar) == dt:
                return cls(key)
        if dt.kind in ("U", "S", "O"):
            return cls.string
        raise ElementTypeError(f"numpy dtype '{dt}' has no graphir element type")

    def to_onednn(self) -> str:
        if self.onednn_name is None:
            raise ElementTypeError(f"element type '{self}' has no oneDNN Graph data type")
        return self.onednn_name

    def to_directml(self) -> str:
        if self.directml_name is None:
            hint = " (DirectML has no boolean; use UINT8)" if self is ElementType.boolean else ""
            raise ElementTypeError(f"element type '{self}' has no DirectML data type{hint}")
        return self.directml_name

    # --- merging ----------------------------------------------------------------------------
    def merge(self, other: "ElementType") -> "ElementType | None":
        """OpenVINO's ``element::Type::merge``: dynamic merges with anything; None on conflict."""
        if self is ElementType.dynamic:
            return other
        if other is ElementType.dynamic or other is self:
            return self
        return None

    def compatible(self, other: "ElementType") -> bool:
        return self.merge(other) is not None

    # --- pydantic: attributes typed ElementType accept any spelling ``parse`` accepts --------
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            as_element_type,
            serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="json"),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        return {"type": "string", "enum": [t.value for t in cls], "description": "OpenVINO element type name"}


def as_element_type(value: "str | ElementType | np.dtype | type") -> ElementType:
    """Accept an ElementType, its name, or a numpy dtype (not None: numpy reads None as f64)."""
    if value is None:
        raise ElementTypeError("no element type given (None); give one, e.g. 'f32', or 'dynamic'")
    if isinstance(value, ElementType):
        return value
    if isinstance(value, str):
        return ElementType.parse(value)
    return ElementType.from_numpy(value)
