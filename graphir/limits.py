"""The documented limits of a run: how large one tensor may be.

Kernels that allocate a tensor whose size comes from input *values* (Broadcast's target shape,
Tile's repeats, Range's bounds, Pad's pads, OneHot's depth, a Loop's trip count...) call
:func:`check_tensor` with the shape before they allocate, and the interpreter checks every output
whose shape is known from shape inference before a run starts. Either way a run that would build a
tensor over the limit stops with a :class:`~graphir.errors.ResourceLimitError` naming the node and
the byte count, instead of numpy failing to allocate (or the machine swapping).

The limit is, in this order: ``run(..., max_tensor_bytes=N)`` (or :func:`tensor_limit`), the
environment variable ``GRAPHIR_MAX_TENSOR_BYTES``, and :data:`DEFAULT_MAX_TENSOR_BYTES` (4 GiB).
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from graphir.errors import ResourceLimitError

#: the default largest tensor of a run, in bytes
DEFAULT_MAX_TENSOR_BYTES = 4 << 30
#: the environment variable that overrides the default (an integer number of bytes)
ENVIRONMENT_VARIABLE = "GRAPHIR_MAX_TENSOR_BYTES"

_current: ContextVar["int | None"] = ContextVar("graphir_max_tensor_bytes", default=None)


def max_tensor_bytes() -> int:
    """The limit in force: the innermost :func:`tensor_limit`, else the environment, else the default."""
    limit = _current.get()
    if limit is not None:
        return limit
    text = os.environ.get(ENVIRONMENT_VARIABLE)
    if text is None:
        return DEFAULT_MAX_TENSOR_BYTES
    cached = _parsed.get(text)
    if cached is None:
        cached = _parsed[text] = _parse(text.strip(), ENVIRONMENT_VARIABLE) if text.strip() else DEFAULT_MAX_TENSOR_BYTES
    return cached


_parsed: dict[str, int] = {}


def _parse(value: Any, where: str) -> int:
    return parse_byte_count(value, where, "the tensor size limit", minimum=1)


def parse_byte_count(value: Any, where: str, what: str, *, minimum: int) -> int:
    """A byte count given by the user (``where`` names the parameter or environment variable);
    a ResourceLimitError naming it when the text is not an integer or ``what`` is below ``minimum``."""
    try:
        count = int(value)
    except (TypeError, ValueError):
        raise ResourceLimitError(f"{where}: expected a number of bytes, got {str(value)[:40]!r}") from None
    if count < minimum:
        rule = {0: "not be negative", 1: "be positive"}.get(minimum, f"be at least {minimum}")
        raise ResourceLimitError(f"{where}: {what} must {rule}, got {count}")
    return count


@contextmanager
def tensor_limit(nbytes: "int | None") -> Iterator[int]:
    """Within the block, tensors may have up to ``nbytes`` bytes (None: keep the limit in force)."""
    limit = max_tensor_bytes() if nbytes is None else _parse(nbytes, "max_tensor_bytes")
    token = _current.set(limit)
    try:
        yield limit
    finally:
        _current.reset(token)


def tensor_bytes(shape: Iterable[int], itemsize: int) -> int:
    """The byte count of a tensor (Python integers: no overflow); negative dims count as 0."""
    return math.prod(max(int(d), 0) for d in shape) * max(int(itemsize), 1)


def check_tensor(shape: Iterable[int], dtype: Any, what: str = "output") -> None:
    """Refuse, before allocating, a tensor of ``shape`` and ``dtype`` over the limit in force.

    ``what`` says which tensor (the interpreter adds the node); e.g. ``"output 0"``."""
    dims = [int(d) for d in shape]
    nbytes = tensor_bytes(dims, _itemsize(dtype))
    if nbytes > max_tensor_bytes():  # the message is worded only for a tensor refused
        check_bytes(nbytes, f"{what} of shape {_short(dims)}")


def check_bytes(nbytes: int, what: str) -> None:
    """Refuse a tensor of ``nbytes`` bytes over the limit in force (``what`` describes it)."""
    limit = max_tensor_bytes()
    if nbytes > limit:
        raise ResourceLimitError(
            f"{what} would take {nbytes:,} bytes, over the tensor size limit of "
            f"{limit:,} bytes (raise it with max_tensor_bytes=, --max-tensor-bytes or {ENVIRONMENT_VARIABLE})")


def _itemsize(dtype: Any) -> int:
    try:
        return np.dtype(dtype).itemsize or 1
    except TypeError:
        return 8  # object arrays (strings): a pointer each


def _short(dims: list[int]) -> str:
    if len(dims) <= 16:
        return str(dims)
    return f"[{', '.join(map(str, dims[:8]))}, ... ({len(dims)} dims)]"
