"""The Select kernel shared by OpenVINO Select, oneDNN Select and DirectML ElementWiseIf.

Bit-identical to ``numpy.where(cond, then, otherwise).astype(then.dtype)``.

``numpy.where`` branches per element, so a random mask costs it a mispredict every other
element. The fast path is branch-free over the unsigned-integer view of the data::

    out = else ^ ((then ^ else) * cond)

three ufunc passes that move raw bits only (NaN payloads and -0.0 survive), run over blocks small
enough to stay in L2 so main memory sees each byte once (two passes when then/else are small
next to the output: their xor is computed once), shared by two threads for large outputs when
that measures faster (numpy releases the GIL in its loops; see ``_threads.ThreadChooser``).
Large outputs come from ``_buffers``, which recycles unreferenced memory instead of taking page
faults on fresh pages every run. Same-shape C-contiguous inputs (the common case) take a short
path over flat 1-D views (``blend_flat``). Every other broadcast pattern goes through one
blocked loop: blocks are taken along the output's leading axes and each input contributes the
matching slice, or its size-1 dims whole. Types without a same-width unsigned integer view
(object, strings, 16-byte types) or mixed then/else dtypes fall back to ``numpy.where``.
benchmarks/bench_select.py measures the alternatives (mask-and blend, masked ``copyto``, ``where``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache, partial
from typing import Any

import numpy as np

from graphir.kernels import _buffers, _threads

#: unsigned view per item size: the blend is done on these
_UINT: dict[int, np.dtype[Any]] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
#: output bytes per block: three passes over a block stay in L2 (measured: 128-512 KiB all good)
BLOCK_BYTES = 256 * 1024
#: below this many output bytes one thread is used (thread hand-off costs ~20-50 us)
THREAD_MIN_BYTES = 1 << 20
#: below this many output elements numpy.where itself is used (fewer calls)
SMALL = 2048
#: below this many elements the blend runs unblocked (three calls on whole arrays)
_UNBLOCKED = 1 << 14

#: then ^ else is precomputed when their broadcast is this many times smaller than the output
_DIFF_RATIO = 8

_Key = tuple["int | slice", ...]
_Body = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]
#: one thread chooser per loop (their costs per byte differ): flat, blocked 3-pass, blocked 2-pass
_flat_chooser = _threads.ThreadChooser()
_choosers: dict[object, _threads.ThreadChooser] = {}


def select(cond: np.ndarray, then: np.ndarray, otherwise: np.ndarray) -> np.ndarray:
    """``where(cond, then, otherwise)`` broadcast numpy-style, in ``then``'s dtype."""
    cond = np.asarray(cond)
    then = np.asarray(then)
    otherwise = np.asarray(otherwise)
    if cond.dtype != np.bool_:
        if cond.dtype.kind not in "biufc":
            return _reference(cond, then, otherwise)
        cond = cond.astype(np.bool_)
    dtype = then.dtype
    uint = _UINT.get(dtype.itemsize)
    if uint is None or otherwise.dtype != dtype or dtype.hasobject or not dtype.isnative:
        return _reference(cond, then, otherwise)
    shape = then.shape
    if cond.shape == shape == otherwise.shape:
        if then.size < SMALL:  # numpy.where's one call beats three at this size
            return _reference(cond, then, otherwise)
        out = _buffers.empty(shape, dtype)
        if cond.flags.c_contiguous and then.flags.c_contiguous and otherwise.flags.c_contiguous:
            # the common case, kept short: every Python step here runs before the first block,
            # and right after the machine ran something else each one costs 5-10x its warm time
            blend_flat(cond.reshape(-1), then.reshape(-1).view(uint), otherwise.reshape(-1).view(uint),
                       out.reshape(-1).view(uint))
            return out
    else:
        shape = _broadcast_shape(cond.shape, shape, otherwise.shape)
        if _size(shape) < SMALL:
            return _reference(cond, then, otherwise)
        out = _buffers.empty(shape, dtype)
    if cond.size == 1:  # one choice for every element: a broadcast copy
        np.copyto(out, then if cond.reshape(-1)[0] else otherwise)
        return out
    blend(cond, then.view(uint), otherwise.view(uint), out.view(uint))
    return out


def _broadcast_shape(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """numpy's broadcast of ``shapes`` (np.broadcast_shapes costs ~6 us; this ~1 us)."""
    ndim = max(len(s) for s in shapes)
    result = [1] * ndim
    for s in shapes:
        offset = ndim - len(s)
        for axis, dim in enumerate(s):
            current = result[offset + axis]
            if dim != current and dim != 1:
                if current != 1:
                    return np.broadcast_shapes(*shapes)  # raises numpy's error
                result[offset + axis] = dim
    return tuple(result)


def _size(shape: tuple[int, ...]) -> int:
    size = 1
    for dim in shape:
        size *= dim
    return size


def _reference(cond: np.ndarray, then: np.ndarray, otherwise: np.ndarray) -> np.ndarray:
    out = np.where(cond, then, otherwise)
    return out if out.dtype == then.dtype else out.astype(then.dtype)


def blend_flat(cond: np.ndarray, then: np.ndarray, otherwise: np.ndarray, out: np.ndarray) -> None:
    """``out[:] = where(cond, then, otherwise)`` on 1-D contiguous arrays of one length: ``cond``
    boolean, the others the same unsigned integer type, ``out`` not overlapping the inputs."""
    size = out.shape[0]
    if size <= _UNBLOCKED:
        _blend_block(cond, then, otherwise, out)
        return
    step = max(1, BLOCK_BYTES // out.itemsize)
    starts = range(0, size, step)
    nbytes = out.nbytes
    most = min(_threads.num_threads(), len(starts), nbytes // THREAD_MIN_BYTES)
    if most <= 1:
        _flat_blocks(cond, then, otherwise, out, step, iter(starts))
        return
    threads = _flat_chooser.choose(most, nbytes)
    # threads pull block starts from one shared iterator (next() is atomic under the GIL)
    parts = [partial(_flat_blocks, cond, then, otherwise, out, step, iter(starts))] * threads
    _flat_chooser.record(threads, _threads.timed(partial(_threads.run_parts, parts)), nbytes)


def _flat_blocks(cond: np.ndarray, then: np.ndarray, otherwise: np.ndarray, out: np.ndarray, step: int,
                 starts: Iterator[int]) -> None:
    for start in starts:
        stop = start + step
        _blend_block(cond[start:stop], then[start:stop], otherwise[start:stop], out[start:stop])


def blend(cond: np.ndarray, then: np.ndarray, otherwise: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = where(cond, then, otherwise)`` on same-width unsigned integer arrays.

    ``cond`` is boolean; all inputs broadcast to ``out.shape``; ``out`` is freshly allocated
    (it must not overlap the inputs: it is written before they are all read).
    """
    if out.size <= _UNBLOCKED:
        _blend_block(cond, then, otherwise, out)
        return
    ndim = out.ndim
    inputs = [a.reshape((1,) * (ndim - a.ndim) + a.shape) for a in (cond, then, otherwise)]
    body: _Body = _blend_block
    if _size(_broadcast_shape(then.shape, otherwise.shape)) * _DIFF_RATIO <= out.size:
        # then and else are small next to the output (a row, a scalar): their xor is computed
        # once, leaving two passes per block instead of three
        inputs[1] = np.bitwise_xor(inputs[1], inputs[2])
        body = _blend_diff_block
    keys = _cached_keys(out.shape, max(1, BLOCK_BYTES // out.itemsize))
    most = min(_threads.num_threads(), len(keys), max(1, out.nbytes // THREAD_MIN_BYTES))
    if most <= 1:
        _blend_blocks(body, inputs, out, keys, iter(range(len(keys))))
        return
    chooser = _choosers.get(body)
    if chooser is None:
        chooser = _choosers[body] = _threads.ThreadChooser()
    threads = chooser.choose(most, out.nbytes)
    # the threads pull block numbers from one shared iterator (next() is atomic under the GIL),
    # so a thread that the OS descheduled does not leave a fixed share of the work waiting
    shared = iter(range(len(keys)))
    parts = [partial(_blend_blocks, body, inputs, out, keys, shared)] * threads
    chooser.record(threads, _threads.timed(partial(_threads.run_parts, parts)), out.nbytes)


def _blend_blocks(body: _Body, inputs: list[np.ndarray], out: np.ndarray, keys: tuple[_Key, ...],
                  numbers: Iterator[int]) -> None:
    cond, then, otherwise = inputs
    shape = out.shape
    # inputs of the output's own shape take the output's key as is
    own = [a.shape == shape for a in inputs]
    for number in numbers:
        key = keys[number]
        body(cond[key] if own[0] else cond[_input_key(cond, key)],
             then[key] if own[1] else then[_input_key(then, key)],
             otherwise[key] if own[2] else otherwise[_input_key(otherwise, key)], out[key])


def _blend_block(cond: np.ndarray, then: np.ndarray, otherwise: np.ndarray, out: np.ndarray) -> None:
    """The branch-free blend: out = otherwise ^ ((then ^ otherwise) * cond), all in ``out``."""
    np.bitwise_xor(then, otherwise, out=out)
    np.multiply(out, cond, out=out)
    np.bitwise_xor(out, otherwise, out=out)


def _blend_diff_block(cond: np.ndarray, diff: np.ndarray, otherwise: np.ndarray, out: np.ndarray) -> None:
    """The blend with ``diff = then ^ otherwise`` precomputed: out = otherwise ^ (diff * cond)."""
    np.multiply(diff, cond, out=out)
    np.bitwise_xor(out, otherwise, out=out)


@lru_cache(maxsize=64)
def _cached_keys(shape: tuple[int, ...], block: int) -> tuple[_Key, ...]:
    return tuple(_block_keys(shape, block))


def _block_keys(shape: tuple[int, ...], block: int) -> Iterator[_Key]:
    """Index tuples cutting ``shape`` into blocks of at most ``block`` (and, but for tails,
    more than ``block / 2``) elements, in memory order, along the leading axes."""
    inner = 1
    axis = len(shape)
    while axis > 0 and inner * shape[axis - 1] <= block:
        axis -= 1
        inner *= shape[axis]
    if axis == 0:
        yield ()
        return
    rows = max(1, block // inner)
    length = shape[axis - 1]
    for outer in np.ndindex(*shape[: axis - 1]):
        for start in range(0, length, rows):
            yield tuple(outer) + (slice(start, min(start + rows, length)),)


def _input_key(array: np.ndarray, key: _Key) -> _Key:
    """The part of a (rank-padded) input that a block of the output reads: size-1 dims whole."""
    return tuple(
        (0 if isinstance(k, int) else slice(None)) if array.shape[d] == 1 else k
        for d, k in enumerate(key)
    )
