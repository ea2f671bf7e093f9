"""ONNX tensors and types -> graphir: element types, partial shapes, initializer data.

Initializers stored in external files are memory-mapped (numpy.memmap over the file), not read.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import numpy as np

from graphir.errors import SerializationError
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

#: ONNX TensorProto.DataType -> graphir element type name (complex types have none)
_ONNX_TYPES: dict[int, str] = {
    1: "f32", 2: "u8", 3: "i8", 4: "u16", 5: "i16", 6: "i32", 7: "i64", 8: "string", 9: "boolean",
    10: "f16", 11: "f64", 12: "u32", 13: "u64", 16: "bf16", 17: "f8e4m3", 19: "f8e5m2", 21: "u4",
    22: "i4", 23: "f4e2m1", 24: "f8e8m0",
}
_ONNX_TYPE_NAMES: dict[int, str] = {
    14: "COMPLEX64", 15: "COMPLEX128", 18: "FLOAT8E4M3FNUZ", 20: "FLOAT8E5M2FNUZ", 25: "UINT2", 26: "INT2",
}


def element_type(onnx_type: int, where: str) -> ElementType:
    """The graphir element type of an ONNX data type number; ``where`` names the tensor in errors."""
    name = _ONNX_TYPES.get(onnx_type)
    if name is None:
        shown = _ONNX_TYPE_NAMES.get(onnx_type, str(onnx_type))
        raise SerializationError(f"{where}: ONNX element type {shown} has no OpenVINO element type")
    return ElementType(name)


def onnx_type_of(et: ElementType) -> int:
    """The ONNX data type number of a graphir element type (Cast's ``to`` and friends)."""
    for number, name in _ONNX_TYPES.items():
        if name == et.name:
            return number
    raise SerializationError(f"element type {et} has no ONNX data type")


def partial_shape(type_proto: Any) -> PartialShape:
    """The partial shape of an ONNX TypeProto's tensor type (no shape: dynamic rank)."""
    tensor = type_proto.tensor_type
    if not tensor.HasField("shape"):
        return PartialShape.dynamic()
    dims = [Dimension(d.dim_value, d.dim_value) if d.HasField("dim_value") else Dimension.dynamic() for d in tensor.shape.dim]
    return PartialShape(dims)


def _external_loader(tensor: Any, et: ElementType, base: Path, where: str) -> Callable[[], np.ndarray]:
    info = {e.key: e.value for e in tensor.external_data}
    location = info.get("location", "")
    target = (base / location).resolve()
    if not location or Path(location).is_absolute() or base.resolve() not in target.parents:
        raise SerializationError(f"{where}: external data location '{location}' is not a file beside the model")
    offset = int(info.get("offset", 0) or 0)
    shape = tuple(int(d) for d in tensor.dims)
    dtype = np.dtype(et.numpy_dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if "length" in info and int(info["length"]) < count * dtype.itemsize:
        raise SerializationError(f"{where}: external data holds {info['length']} bytes, "
                                 f"{count * dtype.itemsize} needed for {list(shape)} {et}")
    if not target.is_file():
        raise SerializationError(f"{where}: external data file {target} is missing")

    def load() -> np.ndarray:
        if count == 0:
            return np.zeros(shape, dtype)
        return np.memmap(target, dtype=dtype, mode="r", offset=offset, shape=shape)

    return load


def tensor_data(tensor: Any, base: Path | None, where: str) -> "tuple[ElementType, list[int], Callable[[], np.ndarray]]":
    """Element type, shape and a loader of an ONNX TensorProto's data (memory-mapped when external)."""
    et = element_type(tensor.data_type, where)
    shape = [int(d) for d in tensor.dims]
    if tensor.data_location == 1:  # EXTERNAL
        if base is None:
            raise SerializationError(f"{where}: external data but the model was not read from a file")
        if et.name in ("u4", "i4", "f4e2m1", "string"):
            raise SerializationError(f"{where}: external data of {et} is not supported")
        return et, shape, _external_loader(tensor, et, base, where)
    from onnx import numpy_helper

    def load() -> np.ndarray:
        arr = numpy_helper.to_array(tensor)
        if et is ElementType.string:
            return np.asarray([x.decode() if isinstance(x, bytes) else x for x in arr.flat],
                              dtype=object).reshape(arr.shape)
        return np.asarray(arr, dtype=et.numpy_dtype).reshape(shape)

    return et, shape, load


#: ONNX data types whose ``raw_data`` numpy reads as it is (little-endian, one item per element), by
#: their element type's numpy dtype
_RAW_DTYPES: dict[int, Any] = {
    number: np.dtype(ElementType(name).numpy_dtype) for number, name in _ONNX_TYPES.items()
    if name in ("f32", "u8", "i8", "u16", "i16", "i32", "i64", "boolean", "f16", "f64", "u32", "u64")}
_LITTLE_ENDIAN = np.little_endian


def raw_array(tensor: Any) -> "np.ndarray | None":
    """The data of an in-file TensorProto stored as ``raw_data`` of a plain numpy type: read-only, over
    the bytes protobuf hands out (no further copy; what numpy_helper.to_array reads too). None for any
    other tensor (typed fields, external data, packed or exotic types), which takes :func:`tensor_data`."""
    dtype = _RAW_DTYPES.get(tensor.data_type)
    if dtype is None or not _LITTLE_ENDIAN or tensor.data_location == 1 or not tensor.HasField("raw_data"):
        return None
    shape = tuple(tensor.dims)
    data = np.frombuffer(tensor.raw_data, dtype=dtype)
    if data.size != math.prod(shape):
        return None  # the general path names the mismatch
    return data.reshape(shape)


def tensor_array(tensor: Any, base: Path | None, where: str) -> np.ndarray:
    """An ONNX TensorProto's data as an array of its graphir element type's numpy dtype."""
    return tensor_data(tensor, base, where)[2]()
