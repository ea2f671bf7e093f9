"""A tiny pool of worker threads, created once, for numpy kernels split into halves.

numpy releases the GIL inside its ufunc loops, so a memory-bound kernel split into contiguous
parts runs on several cores from plain Python. The pool is deliberately minimal: one call runs
``parts[0]`` on the calling thread and the others on the workers, then waits for all of them.
If the workers are busy (a kernel called from several user threads at once), the caller simply
runs every part itself, so nothing ever queues behind another call.
"""
from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Sequence

_Task = Callable[[], None]

_lock = threading.Lock()  # held while one call owns the workers
_workers: list["_Worker"] = []
_num_threads: int = max(1, min(2, os.cpu_count() or 1))
_env = os.environ.get("GRAPHIR_NUM_THREADS", "")
if _env.isdigit() and int(_env) > 0:
    _num_threads = int(_env)


class _Worker:
    """A daemon thread that runs one task at a time and reports its exception, if any."""

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue[_Task] = queue.SimpleQueue()
        self.done: queue.SimpleQueue[BaseException | None] = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="graphir-kernel", daemon=True).start()

    def _loop(self) -> None:
        while True:
            task = self.tasks.get()
            try:
                task()
            except BaseException as exc:  # handed back to the caller, re-raised there
                self.done.put(exc)
            else:
                self.done.put(None)


def num_threads() -> int:
    """How many threads a kernel may use (default: min(2, cpu count); env GRAPHIR_NUM_THREADS)."""
    return _num_threads


def set_num_threads(count: int) -> None:
    """Set how many threads kernels may use; 1 turns threading off."""
    global _num_threads
    if count < 1:
        raise ValueError(f"set_num_threads: count must be >= 1, got {count}")
    _num_threads = count


def run_parts(parts: Sequence[_Task]) -> None:
    """Run every callable in ``parts``, in parallel where workers are free; re-raise failures."""
    if len(parts) <= 1 or not _lock.acquire(blocking=False):
        for part in parts:
            part()
        return
    try:
        while len(_workers) < len(parts) - 1:
            _workers.append(_Worker())
        used = _workers[: len(parts) - 1]
        for worker, part in zip(used, parts[1:]):
            worker.tasks.put(part)
        first: BaseException | None = None
        try:
            parts[0]()
        except BaseException as exc:
            first = exc
        for worker in used:
            failure = worker.done.get()
            if first is None and failure is not None:
                first = failure
        if first is not None:
            raise first
    finally:
        _lock.release()


class ThreadChooser:
    """Picks 1 or ``num_threads()`` threads for a kernel from measured speed, per call.

    Python threads pay off only while a core is idle: on a machine that other processes keep
    busy, every GIL hand-off waits for the OS to schedule the other thread, and a 2-thread Select
    measured 4-6x slower than 1 thread (load average 7 on 2 cores). So both are timed as they run
    (seconds per byte, a moving average per power-of-two size class, since cache-resident and
    memory-bound sizes differ), the faster one is used, and the other is re-tried every
    ``EXPLORE`` calls of that size class to follow the machine's load.
    """

    EXPLORE = 32
    #: samples of each option taken before choosing; the first one is a warm-up and is replaced
    #: (it pays one-off costs such as a fresh output buffer's page faults, which favour neither)
    WARMUP = 2

    def __init__(self) -> None:
        self.cost: dict[tuple[int, int], float] = {}  # (size class, threads) -> seconds per byte
        self.samples: dict[tuple[int, int], int] = {}
        self.calls: dict[int, int] = {}

    def choose(self, most: int, nbytes: int) -> int:
        """How many threads the next call on ``nbytes`` of output should use (at most ``most``)."""
        if most <= 1:
            return 1
        size_class = nbytes.bit_length()
        if self.samples.get((size_class, most), 0) < self.WARMUP:
            return most
        if self.samples.get((size_class, 1), 0) < self.WARMUP:
            return 1
        one, many = self.cost[(size_class, 1)], self.cost[(size_class, most)]
        calls = self.calls[size_class] = self.calls.get(size_class, 0) + 1
        best, other = (1, most) if one <= many else (most, 1)
        return other if calls % self.EXPLORE == 0 else best

    def record(self, threads: int, seconds: float, nbytes: int) -> None:
        key = (nbytes.bit_length(), threads)
        per_byte = seconds / max(nbytes, 1)
        count = self.samples[key] = self.samples.get(key, 0) + 1
        old = self.cost.get(key)
        self.cost[key] = per_byte if old is None or count <= self.WARMUP else 0.7 * old + 0.3 * per_byte


def timed(fn: Callable[[], None]) -> float:
    """Seconds ``fn()`` took."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
