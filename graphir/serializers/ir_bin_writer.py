"""The IR ``.bin`` being written: Constant blobs laid back to back, identical blobs stored once (as
OpenVINO does: they share an offset, whatever their element types), with no copy of the data.

A blob is kept as the buffer it came in (a slice of the memory-mapped ``.bin`` a model was read
from, or the packed bytes of a value); the file is written from those buffers. Finding duplicates
does not hash every byte: blobs are grouped by their size and first and last bytes (distinct
weights almost always differ there), and only blobs in the same group are compared in full; a
group that grows past a few blobs is split further by a CRC-32 of each blob's whole data (computed
at most once per blob), so the work stays linear in the data however many blobs look alike.
"""
from __future__ import annotations

import zlib
from typing import Any, BinaryIO

import numpy as np

#: blobs up to this size are their own dictionary key (bytes); larger ones are grouped (see above)
SMALL_BLOB = 256
_EDGE = 32  # bytes of each end in a large blob's group key
_GROUP_BEFORE_CRC = 4  # members of a group compared directly before CRCs sort them
_COMPARE_CHUNK = 1 << 22
_COPY_TO_COMPARE = 1 << 16  # smaller buffers are compared as bytes (numpy's overhead is larger)


class _Large:
    __slots__ = ("offset", "data", "crc")

    def __init__(self, offset: int, data: memoryview) -> None:
        self.offset = offset
        self.data = data
        self.crc: int | None = None

    def checksum(self) -> int:
        if self.crc is None:
            self.crc = zlib.crc32(self.data)
        return self.crc


def same_bytes(a: memoryview, b: memoryview) -> bool:
    """Whether two buffers of one length hold the same bytes (compared in chunks, no copies of
    large ones)."""
    if len(a) <= _COPY_TO_COMPARE:
        return a.tobytes() == b.tobytes()
    for start in range(0, len(a), _COMPARE_CHUNK):
        x = np.frombuffer(a[start:start + _COMPARE_CHUNK], np.uint8)
        y = np.frombuffer(b[start:start + _COMPARE_CHUNK], np.uint8)
        if not np.array_equal(x, y):
            return False
    return True


class BinWriter:
    """Collects blobs (deduplicated, see the module docstring); ``chunks`` in file order."""

    def __init__(self) -> None:
        self.chunks: list[Any] = []
        self.size = 0
        self._small: dict[bytes, int] = {}
        self._large: dict[tuple[int, bytes, bytes], list[_Large]] = {}

    def add(self, blob: "bytes | memoryview") -> int:
        """The offset of ``blob`` in the file (an earlier identical blob's, if any)."""
        view = memoryview(blob)
        if view.format != "B" or view.ndim != 1:
            view = view.cast("B")
        n = len(view)
        if n <= SMALL_BLOB:
            key = view.tobytes()
            known = self._small.get(key)
            if known is not None:
                return known
            self._small[key] = self.size
            return self._append(key)
        group_key = (n, view[:_EDGE].tobytes(), view[-_EDGE:].tobytes())
        group = self._large.get(group_key)
        if group is None:
            group = self._large[group_key] = []
        entry = _Large(self.size, view)
        crc = entry.checksum() if len(group) >= _GROUP_BEFORE_CRC else None
        for other in group:
            if (crc is None or other.checksum() == crc) and same_bytes(other.data, view):
                return other.offset
        group.append(entry)
        return self._append(view)

    def _append(self, data: Any) -> int:
        offset = self.size
        self.chunks.append(data)
        self.size += len(data)
        return offset

    def tobytes(self) -> bytes:
        return b"".join(self.chunks)

    def write_to(self, fh: BinaryIO) -> None:
        """Write the file's bytes to ``fh`` (a buffered binary file: small blobs are gathered by its
        buffer, large ones go to the system as they are)."""
        for chunk in self.chunks:
            fh.write(chunk)
