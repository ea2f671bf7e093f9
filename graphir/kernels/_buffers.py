"""Output buffers recycled once nothing references them, so large outputs skip page faults.

A fresh 40 MB ``np.empty`` is mmap'ed memory: writing it first costs a page fault per 4 KiB page,
which on a 2-core VM measured about as much as the whole Select kernel (~9 ms of ~25 ms at 1e7
f32 elements), and it is unmapped again when the result is dropped. Native runtimes keep such
memory in an arena. This is that arena, in Python: large outputs are views of pooled byte
buffers; a buffer is handed out again only when the pool holds the last reference to it. numpy
views always reference the buffer that owns the memory, so any live array, view of a view,
memoryview or DLPack/torch tensor made from an output keeps its buffer out of reuse.

Only CPython (where ``sys.getrefcount`` is exact) and only buffers of at least ``MIN_BYTES``;
at most ``MAX_BYTES`` are retained, least recently used first out.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

MIN_BYTES = 1 << 20
MAX_BYTES = 256 << 20
_ENABLED = sys.implementation.name == "cpython"

_lock = threading.Lock()
_pool: list[np.ndarray] = []  # byte buffers, most recently used last
_pooled_bytes = 0


def empty(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Like ``np.empty(shape, dtype)`` (C order, uninitialised), recycling large buffers."""
    nbytes = dtype.itemsize
    for dim in shape:
        nbytes *= dim
    if not _ENABLED or nbytes < MIN_BYTES or nbytes > MAX_BYTES or dtype.hasobject:
        return np.empty(shape, dtype)
    with _lock:
        buffer = _take_free(nbytes)
        if buffer is None:
            buffer = np.empty(nbytes, np.uint8)
            _add(buffer)
        return buffer.view(dtype).reshape(shape)


def _is_free(index: int) -> bool:
    # references: the pool's list and getrefcount's own argument
    return sys.getrefcount(_pool[index]) <= 2


def _take_free(nbytes: int) -> np.ndarray | None:
    for index in range(len(_pool) - 1, -1, -1):
        if _pool[index].nbytes == nbytes and _is_free(index):
            buffer = _pool.pop(index)
            _pool.append(buffer)
            return buffer
    return None


def _add(buffer: np.ndarray) -> None:
    """Pool a new buffer, dropping least recently used free ones to stay under MAX_BYTES."""
    global _pooled_bytes
    _pool.append(buffer)
    _pooled_bytes += buffer.nbytes
    index = 0
    while _pooled_bytes > MAX_BYTES and index < len(_pool) - 1:
        if _is_free(index):
            _pooled_bytes -= _pool.pop(index).nbytes
        else:
            index += 1
    if _pooled_bytes > MAX_BYTES:  # everything else is in use: do not keep this one either
        _pooled_bytes -= _pool.pop().nbytes


def pooled_bytes() -> int:
    """Bytes the pool holds (in use or free)."""
    return _pooled_bytes


def clear() -> None:
    """Forget every pooled buffer (arrays still using one keep it alive themselves)."""
    global _pooled_bytes
    with _lock:
        _pool.clear()
        _pooled_bytes = 0
