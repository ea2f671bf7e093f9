"""The IR ``.bin``: Constant blobs, packed as OpenVINO packs them, read lazily.

Layout facts (measured on OpenVINO 2026.4): blobs lie back to back with no alignment; identical
blobs share one offset; little-endian. Sub-byte types are packed: u1 MSB-first, u2 LSB-first,
u4/i4/nf4/f4e2m1 low nibble first. u3: 8 elements in 3 bytes, their low 2 bits in bytes 0-1 and
their high bit in byte 2, all MSB-first. u6: 4 elements in 3 bytes, their low 4 bits in bytes 0-1 and
their high 2 bits in byte 2, all MSB-first (measured on OpenVINO 2026.4).
string: i32 count, count+1 i32 offsets, then the bytes back to back.
"""
from __future__ import annotations

import math
import mmap
import os
import stat
from pathlib import Path
from typing import Any

import numpy as np

from graphir.errors import SerializationError
from graphir.types import ElementType

_LITTLE = {ElementType.bf16, ElementType.f16, ElementType.f32, ElementType.f64, ElementType.i16,
           ElementType.i32, ElementType.i64, ElementType.u16, ElementType.u32, ElementType.u64}


#: a .bin of up to this many bytes is read into memory by ``read_model`` (a private copy nothing
#: done to the file afterwards can change); a larger one is memory-mapped, its descriptor kept open
#: (see :class:`BinSource`). Copying costs about 0.5-0.6 ms per MB (CPU time, fresh pages: squeezenet's
#: 5.0 MB .bin took its read from 4.0 to 6.9 ms, densenet121's 15.9 MB from 40 to 50 ms, 2026-11-29),
#: which at 16 MiB put the real exports' read at up to 3.0x OpenVINO's (which maps); 4 MiB keeps the
#: copy under ~2.5 ms
COPY_UP_TO = 4 << 20


class BinSource:
    """A model's .bin, opened when the model is read: given in memory, read whole into a private
    copy (up to :data:`COPY_UP_TO` bytes), or memory-mapped (larger).

    The file is opened and validated by ``read_model``, so a model computes with the bytes that
    were at the path then: renaming or saving another model over the path later changes nothing
    (the open descriptor keeps the old file). A mapped file cannot be protected from being
    truncated or rewritten in place (``cp new.bin m.bin``): its size and modification time are
    checked (:meth:`check`) before the pages are touched (on each blob's first use, on each run,
    on each save), and a change is a SerializationError naming the file instead of a SIGBUS or
    other weights. A change made between that check and the touch cannot be caught (the kernel
    then sends SIGBUS); files below :data:`COPY_UP_TO` are not exposed to it."""

    def __init__(self, where: str, path: Path | None = None, data: "bytes | memoryview | None" = None) -> None:
        self.where = where
        self.path = path
        #: the .xml the model was read from, when read from a file (a save refuses to write over it)
        self.xml_path: Path | None = None
        self._data: Any = None if data is None else memoryview(data).toreadonly()
        self._size: int | None = None if data is None else len(data)
        self._exists: bool | None = None
        self._bytes: np.ndarray | None = None
        self._fd: int | None = None
        self._stamp: tuple[int, int] | None = None  # (size, mtime_ns) of a mapped file when read
        self._error: str | None = None
        if path is not None and data is None:
            self._open(path)

    @property
    def mapped(self) -> bool:
        return self._fd is not None

    def _open(self, path: Path) -> None:
        """Open the file now: read it whole, or map it (see the class docstring)."""
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            self._exists = False
            self._error = exc.strerror or str(exc)
            return
        keep = False
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                self._exists = False
                self._error = "not a regular file"
                return
            self._exists = True
            self._size = size = st.st_size
            if size == 0:
                self._data = memoryview(b"")
            elif size <= COPY_UP_TO:
                buffer = mmap.mmap(-1, size)  # anonymous: not zero-filled twice, returned to the system when freed
                got = 0
                view = memoryview(buffer)
                while got < size:
                    n = os.readv(fd, [view[got:]])
                    if n == 0:
                        raise SerializationError(f"{self.where}: the weights file ended after {got} of {size} bytes "
                                                 f"while it was read (changed meanwhile?)")
                    got += n
                self._data = view.toreadonly()
            else:
                self._data = memoryview(mmap.mmap(fd, size, access=mmap.ACCESS_READ))
                self._stamp = (size, st.st_mtime_ns)
                self._fd = fd
                keep = True
        except MemoryError:
            raise SerializationError(f"{self.where}: cannot read the weights file ({self._size:,} bytes): "
                                     f"out of memory") from None
        except (OSError, ValueError, OverflowError) as exc:
            raise SerializationError(f"{self.where}: cannot read the weights file: "
                                     f"{getattr(exc, 'strerror', None) or exc}") from None
        finally:
            if not keep:
                os.close(fd)

    def __del__(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:
            self._fd = None
            try:
                os.close(fd)
            except OSError:
                pass

    def check(self) -> None:
        """For a mapped file: a SerializationError naming it when it was truncated or rewritten
        since it was read (touching its pages then could end the process with SIGBUS or give
        other weights). Copies and in-memory data never change."""
        fd = self._fd
        if fd is None or self._stamp is None:
            return
        try:
            st = os.fstat(fd)
        except OSError as exc:
            raise SerializationError(f"{self.where}: the weights file cannot be checked: {exc.strerror}") from None
        size, mtime = self._stamp
        if st.st_size != size or st.st_mtime_ns != mtime:
            raise SerializationError(
                f"{self.where}: the weights file was changed in place after the model was read "
                f"({size:,} bytes then, {st.st_size:,} now): its memory-mapped weights are no longer the ones "
                f"read; read the model again (replace weights files by renaming, as save_model does)")

    def __getstate__(self) -> dict[str, Any]:
        """Pickled as its bytes (a copy), so a pickled model keeps the weights it was read with."""
        self.check()
        data = None if self._data is None else bytes(self._data)
        return {"where": self.where, "path": self.path, "data": data, "exists": self._exists, "error": self._error,
                "xml_path": self.xml_path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["where"], None, state["data"])  # type: ignore[misc]
        self.path, self.xml_path = state["path"], state.get("xml_path")
        if state["data"] is None:
            self._exists, self._error = state["exists"], state["error"]

    @property
    def size(self) -> int:
        if self._size is None:
            if self.path is None or not self.exists:
                self._size = 0
            else:
                raise SerializationError(f"{self.where}: cannot open weights: {self._error}")
        return self._size

    @property
    def exists(self) -> bool:
        if self._data is not None:
            return True
        if self._exists is None:
            self._exists = False
        return self._exists

    def buffer(self) -> Any:
        """The whole .bin as a buffer (checked first when mapped, see :meth:`check`)."""
        if self._data is None:
            reason = f" ({self._error})" if self._error and self._error != "No such file or directory" else ""
            raise SerializationError(f"{self.where}: the weights file is missing{reason}")
        if self._fd is not None:
            self.check()
        return self._data

    def byte_array(self) -> np.ndarray:
        """The whole .bin as one read-only uint8 array over :meth:`buffer`: a blob is a slice of it
        viewed as its type (cheaper than an ``np.frombuffer`` per blob, which also leaves a
        memoryview per blob for the cyclic GC to track)."""
        if self._bytes is None:
            self._bytes = np.frombuffer(self.buffer(), dtype=np.uint8)
        elif self._fd is not None:
            self.check()
        return self._bytes

    def read(self, offset: int, size: int) -> memoryview:
        buf = self.buffer()
        if offset + size > len(buf):
            raise SerializationError(f"{self.where}: bytes {offset}..{offset + size} lie outside the "
                                     f"weights file ({len(buf)} bytes)")
        return buf[offset:offset + size]


def expected_size(et: ElementType, shape: list[int]) -> int | None:
    """Bytes ``shape`` elements of ``et`` take in the .bin; None for strings (variable)."""
    if et is ElementType.string:
        return None
    count = math.prod(shape)
    bits = _WHOLE_BYTE_BITS.get(et)
    if bits is not None:  # the common case: no sub-byte packing
        return count * bits // 8
    return et.packed_size(count)


#: bit widths of the types whose packed size is count * bits / 8 exactly
_WHOLE_BYTE_BITS: dict[ElementType, int] = {
    t: t.bitwidth for t in ElementType
    if t is not ElementType.string and not t.is_dynamic and t.bitwidth >= 8 and t.bitwidth % 8 == 0
}


def unpack(raw: "bytes | memoryview | np.ndarray", et: ElementType, shape: list[int]) -> np.ndarray:
    """The values of a blob, one element per numpy item, shaped; read-only views where possible."""
    count = math.prod(shape)
    whole = _WHOLE_BYTE_DTYPES.get(et)
    if whole is not None and len(raw) >= count * whole.itemsize:  # the common case: one view
        return np.frombuffer(raw, dtype=whole, count=count).reshape(shape)
    data = np.frombuffer(raw, dtype=np.uint8)
    if et is ElementType.string:
        return _unpack_strings(data, count).reshape(shape)
    if et in (ElementType.u3, ElementType.u6):
        return _unpack_u3_u6(data, et, count).reshape(shape)
    if not et.is_sub_byte:
        dt = et.numpy_dtype
        if et in _LITTLE:
            dt = dt.newbyteorder("<") if dt.byteorder not in ("|",) else dt
        return data[: count * dt.itemsize].view(dt).reshape(shape)
    if et is ElementType.u1:
        return np.unpackbits(data, bitorder="big")[:count].reshape(shape)
    if et is ElementType.u2:
        codes = ((data[:, None] >> np.array([0, 2, 4, 6], np.uint8)) & 3).reshape(-1)[:count]
        return codes.view(et.numpy_dtype).reshape(shape)
    # 4-bit types, low nibble first
    codes = np.stack([data & 0x0F, data >> 4], axis=1).reshape(-1)[:count]
    if et is ElementType.nf4:
        return codes.reshape(shape)
    return codes.view(et.numpy_dtype).reshape(shape)


#: little-endian numpy dtypes of the types stored one element per 1, 2, 4 or 8 bytes (see unpack)
_WHOLE_BYTE_DTYPES: dict[ElementType, np.dtype] = {}
for _et in ElementType:
    if _et is ElementType.string or _et.is_dynamic or _et.is_sub_byte or _et in (ElementType.u3, ElementType.u6):
        continue
    _dt = _et.numpy_dtype
    _WHOLE_BYTE_DTYPES[_et] = _dt.newbyteorder("<") if _et in _LITTLE and _dt.byteorder not in ("|",) else _dt


def pack(value: np.ndarray, et: ElementType) -> bytes:
    """The .bin bytes of ``value`` as element type ``et`` (the inverse of :func:`unpack`)."""
    plain = _PLAIN_DTYPES.get(et._value_)  # by name: an enum member hashes slowly
    if plain is not None:  # whole-byte types: the values as little-endian numbers
        return np.ascontiguousarray(value, dtype=plain).tobytes()
    if et is ElementType.string:
        return _pack_strings(np.asarray(value, dtype=object).reshape(-1))
    if et in (ElementType.u3, ElementType.u6):
        return _pack_u3_u6(np.asarray(value, dtype=np.uint8).reshape(-1), et)
    if not et.is_sub_byte:
        arr = np.ascontiguousarray(value, dtype=et.numpy_dtype)
        if arr.dtype.byteorder == ">":
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        return arr.tobytes()
    flat = np.asarray(value).reshape(-1)
    if et is ElementType.u1:
        return np.packbits(flat.astype(np.uint8) & 1, bitorder="big").tobytes()
    if flat.dtype != np.uint8 or et is not ElementType.nf4:
        flat = np.asarray(flat, dtype=et.numpy_dtype) if et is not ElementType.nf4 else flat
    codes = flat.view(np.uint8) if flat.dtype.itemsize == 1 else flat.astype(np.uint8)
    if et is ElementType.u2:
        quads = np.concatenate([codes & 3, np.zeros((-len(codes)) % 4, np.uint8)]).reshape(-1, 4)
        return (quads[:, 0] | quads[:, 1] << 2 | quads[:, 2] << 4 | quads[:, 3] << 6).astype(np.uint8).tobytes()
    pairs = np.concatenate([codes & 0x0F, np.zeros(len(codes) % 2, np.uint8)]).reshape(-1, 2)
    return (pairs[:, 0] | pairs[:, 1] << 4).astype(np.uint8).tobytes()


#: the numpy dtype of each whole-byte element type (pack writes the values as they are in memory)
_PLAIN_DTYPES: dict[str, np.dtype] = {
    t.value: np.dtype(t.numpy_dtype)
    for t in ElementType
    if t is not ElementType.string and not t.is_dynamic and not t.is_sub_byte and t not in (ElementType.u3, ElementType.u6)
}

_MSB_PAIRS = np.array([6, 4, 2, 0], np.uint8)
_MSB_BITS = np.array([7, 6, 5, 4, 3, 2, 1, 0], np.uint8)
_MSB_NIBBLES = np.array([4, 0], np.uint8)


def _unpack_u3_u6(data: np.ndarray, et: ElementType, count: int) -> np.ndarray:
    groups = np.concatenate([data, np.zeros((-len(data)) % 3, np.uint8)]).reshape(-1, 3)
    if et is ElementType.u3:  # 8 per group: 2 low bits x 8 in bytes 0-1, 1 high bit x 8 in byte 2
        low = (groups[:, :2, None] >> _MSB_PAIRS) & 3
        high = (groups[:, 2:3] >> _MSB_BITS) & 1
        values = low.reshape(-1, 8) | (high << 2)
    else:  # u6, 4 per group: 4 low bits x 4 in bytes 0-1, 2 high bits x 4 in byte 2
        low = (groups[:, :2, None] >> _MSB_NIBBLES) & 15
        high = (groups[:, 2:3] >> _MSB_PAIRS) & 3
        values = low.reshape(-1, 4) | (high << 4)
    return values.reshape(-1)[:count].astype(np.uint8)


def _pack_u3_u6(flat: np.ndarray, et: ElementType) -> bytes:
    per = 8 if et is ElementType.u3 else 4
    v = np.concatenate([flat, np.zeros((-len(flat)) % per, np.uint8)]).reshape(-1, per)
    out = np.zeros((len(v), 3), np.uint8)
    if et is ElementType.u3:
        low = (v & 3).reshape(-1, 2, 4) << _MSB_PAIRS
        out[:, :2] = np.bitwise_or.reduce(low, axis=2)
        out[:, 2] = np.bitwise_or.reduce(((v >> 2) & 1) << _MSB_BITS, axis=1)
    else:
        low = (v & 15).reshape(-1, 2, 2) << _MSB_NIBBLES
        out[:, :2] = np.bitwise_or.reduce(low, axis=2)
        out[:, 2] = np.bitwise_or.reduce(((v >> 4) & 3) << _MSB_PAIRS, axis=1)
    return out.tobytes()


def _unpack_strings(data: np.ndarray, count: int) -> np.ndarray:
    if len(data) < 4:
        raise ValueError(f"a string blob needs at least 4 bytes, has {len(data)}")
    n = int(data[:4].view("<i4")[0])
    if n != count or len(data) < 4 * (n + 2):
        raise ValueError(f"the string blob holds {n} strings in {len(data)} bytes; shape needs {count}")
    offsets = data[4: 4 * (n + 2)].view("<i4")
    body = data[4 * (n + 2):].tobytes()
    if np.any(np.diff(offsets) < 0) or offsets[0] < 0 or offsets[-1] > len(body):
        raise ValueError("the string blob's offsets are not increasing within the blob")
    out = np.empty(count, dtype=object)
    for i in range(count):
        out[i] = body[offsets[i]:offsets[i + 1]].decode("utf-8", errors="surrogateescape")
    return out


def _pack_strings(values: np.ndarray) -> bytes:
    encoded = [v if isinstance(v, bytes) else str(v).encode("utf-8", errors="surrogateescape") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype="<i4")
    offsets[1:] = np.cumsum([len(e) for e in encoded], dtype=np.int64)
    return np.array([len(encoded)], "<i4").tobytes() + offsets.tobytes() + b"".join(encoded)


def describe_layer(where: "str | tuple[str, int, str, str]") -> str:
    """How errors name a layer: given as text, or as (file, id, name, type) formatted only when an
    error needs it (the reader builds thousands of Constants that never fail)."""
    if isinstance(where, str):
        return where
    file, lid, name, ltype = where
    return f"{file}: layer id={lid} name='{name}' type={ltype}"


class BlobLoader:
    """Reads and unpacks one blob on first call; errors name the layer (see describe_layer).
    ``ir_blob`` (source, offset, size) lets a writer copy the raw bytes without unpacking them."""

    __slots__ = ("source", "offset", "size", "et", "shape", "where")

    def __init__(self, source: BinSource, offset: int, size: int, et: ElementType, shape: list[int],
                 where: "str | tuple[str, int, str, str]") -> None:
        self.source = source
        self.offset = offset
        self.size = size
        self.et = et
        self.shape = shape
        self.where = where

    @property
    def ir_blob(self) -> tuple[BinSource, int, int]:
        return (self.source, self.offset, self.size)

    def __call__(self) -> np.ndarray:
        whole = _WHOLE_BYTE_DTYPES.get(self.et)
        if whole is not None:  # one view of the whole .bin at the blob's offset: no slice object per
            count = math.prod(self.shape)  # blob (a memoryview the cyclic GC would track)
            if count * whole.itemsize <= self.size:
                data = self.source.byte_array()
                if self.offset + self.size <= len(data):
                    start = self.offset
                    return data[start:start + count * whole.itemsize].view(whole).reshape(self.shape)
        raw = self.source.read(self.offset, self.size)  # (its message when the blob lies outside)
        try:
            return unpack(raw, self.et, self.shape)
        except (ValueError, TypeError) as exc:
            raise SerializationError(f"{describe_layer(self.where)}: cannot decode {self.et}{self.shape} "
                                     f"at offset {self.offset}: {exc}") from None
