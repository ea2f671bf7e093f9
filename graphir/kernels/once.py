"""Answers worked out once per process per key (does this layout or replay give the reference's
bits for this shape?), shared by the threads of a process."""
from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, MutableMapping
from typing import TypeVar

_lock = threading.Lock()
K = TypeVar("K", bound=Hashable)


def once_per_key(cache: MutableMapping[K, bool], key: K, check: Callable[[], bool]) -> bool:
    """``cache[key]``, from ``check()`` the first time. The check runs outside the lock (it can take
    milliseconds); two threads asking at once may both run it, and get the same answer."""
    with _lock:
        known = cache.get(key)
    if known is not None:
        return known
    answer = check()
    with _lock:
        cache[key] = answer
    return answer
