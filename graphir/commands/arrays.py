"""Input arrays from .npy and .npz files, of any element type (bf16, f8, int4... through ml_dtypes).

numpy writes ml_dtypes arrays with a raw descriptor (``|V2`` for bf16, ``|V1`` for int4) and
float8_e5m2 as ``<f1``, which ``numpy.load`` cannot read back. So the header is read here: a
descriptor numpy knows gives that dtype; a raw or unknown one of the right item size is read as
the input's own element type. Arrays of plain numbers convert to an ml_dtypes element type
(f32 values for a bf16 input); otherwise the dtype must be the input's.
"""
from __future__ import annotations

import ast
import io
import math
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from graphir.cli import UsageError
from graphir.errors import clip
from graphir.limits import check_bytes, check_tensor

_MAGIC = b"\x93NUMPY"


def read_npy(stream: BinaryIO, target: np.dtype | None, where: str) -> np.ndarray:
    """One array from an open .npy stream; ``target``: the dtype a raw descriptor is read as."""
    if stream.read(6) != _MAGIC:
        raise UsageError(f"{where}: not a readable .npy file (no NUMPY magic)")
    major = stream.read(2)[:1]
    size_bytes = 2 if major == b"\x01" else 4
    length = int.from_bytes(stream.read(size_bytes), "little")
    try:
        header = ast.literal_eval(stream.read(length).decode("latin1"))
        descr, fortran, shape = header["descr"], header["fortran_order"], tuple(header["shape"])
    except (ValueError, SyntaxError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{where}: unreadable .npy header ({exc})") from None
    dtype = _dtype_of(descr, target, where)
    if not all(type(d) is int and d >= 0 for d in shape):
        raise UsageError(f"{where}: unreadable .npy header (shape {clip(repr(shape))} is not a list of sizes)")
    check_tensor(shape, dtype, f"{where}: the array")  # before reading (or allocating) any data
    count = math.prod(shape)
    data = stream.read(count * dtype.itemsize)
    if len(data) != count * dtype.itemsize:
        raise UsageError(f"{where}: the file ends early ({len(data)} of {count * dtype.itemsize} data bytes)")
    array = np.frombuffer(data, dtype=dtype, count=count)
    return array.reshape(shape, order="F" if fortran else "C").copy()


def _dtype_of(descr: Any, target: np.dtype | None, where: str) -> np.dtype:
    raw = isinstance(descr, str) and re.fullmatch(r"[|<>=]V\d+", descr) is not None
    known: np.dtype | None = None
    if not raw:
        try:
            known = np.dtype(descr if isinstance(descr, str) else [tuple(f) for f in descr])
        except (TypeError, ValueError):
            known = None
    if known is not None:
        if known.kind == "O":
            raise UsageError(f"{where}: holds Python objects; only plain arrays are read")
        return known
    size = re.search(r"(\d+)$", descr) if isinstance(descr, str) else None
    if target is not None and size is not None and int(size.group(1)) == target.itemsize:
        return target  # raw bytes of an ml_dtypes type: read as the input's own type
    wanted = f"; the input is {target} ({target.itemsize} bytes)" if target is not None else ""
    raise UsageError(f"{where}: element descriptor {descr!r} is not a type graphir can read{wanted}")


def load_npy(file: str, name: str, target: np.dtype | None) -> np.ndarray:
    """The array of a .npy file, for input ``name`` (converted to ``target`` when that is lossless in kind)."""
    path = Path(file)
    if not path.is_file():
        raise UsageError(f"input '{name}': {file}: no such file")
    where = f"input '{name}': {file}"
    with open(path, "rb") as stream:
        head = stream.read(6)
        stream.seek(0)
        if head.startswith(b"PK"):
            raise UsageError(f"{where}: expected one array (.npy), got an archive (give it with --inputs)")
        return coerce(read_npy(stream, target, where), target, where)


def load_npz(file: str) -> dict[str, Any]:
    """The members of an .npz file: key -> a callable reading it as a given target dtype."""
    path = Path(file)
    if not path.is_file():
        raise UsageError(f"--inputs {file}: no such file")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UsageError(f"--inputs {file}: not a readable .npz file ({exc})") from None
    members: dict[str, Any] = {}
    with archive:
        for info in archive.infolist():
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            # the member's declared size first (zipfile reads no more than it declares): an archive
            # member that would inflate past the tensor limit is refused before it is inflated
            check_bytes(info.file_size - _HEADER_ALLOWANCE, f"--inputs {file}: member '{key}' ({info.file_size:,} bytes "
                                                            f"inflated)")
            try:
                members[key] = archive.read(info)
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, zlib.error) as exc:
                raise UsageError(f"--inputs {file}: member '{key}' cannot be read ({exc})") from None
    return members


#: bytes an .npy member may hold beyond its data (the header)
_HEADER_ALLOWANCE = 1 << 16


def read_member(data: bytes, target: np.dtype | None, where: str) -> np.ndarray:
    return coerce(read_npy(io.BytesIO(data), target, where), target, where)


def coerce(array: np.ndarray, target: np.dtype | None, where: str) -> np.ndarray:
    """``array`` as ``target``: as it is when the dtype is the input's; numbers converted to an
    ml_dtypes type (bf16, f8, int4...) or a string input from text; otherwise a UsageError."""
    if target is None or array.dtype == target:
        return array
    extended = type(target).__module__.startswith("ml_dtypes") or target.type.__module__.startswith("ml_dtypes")
    if extended and array.dtype.kind in "biuf":
        if target.kind in "iu" or "int" in target.name:
            info = _int_range(target)
            if info is not None and array.size and (array.min() < info[0] or array.max() > info[1]):
                raise UsageError(f"{where}: values from {array.min()} to {array.max()} do not fit {target.name} "
                                 f"({info[0]}..{info[1]})")
        return array.astype(target)
    raise UsageError(f"{where}: expected element type {_type_name(target)} ({target}), got an array of "
                     f"{array.dtype} with shape {list(array.shape)}")


def _type_name(dtype: np.dtype) -> str:
    from graphir.errors import GraphirError
    from graphir.types import ElementType

    try:
        return str(ElementType.from_numpy(dtype))
    except GraphirError:
        return str(dtype)


def _int_range(dtype: np.dtype) -> tuple[int, int] | None:
    try:
        import ml_dtypes

        info = ml_dtypes.iinfo(dtype)
        return int(info.min), int(info.max)
    except (ImportError, ValueError, TypeError):
        return None
