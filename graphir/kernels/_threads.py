"""A tiny pool of worker threads, created once, for numpy kernels split into halves.

numpy releases the GIL inside its ufunc loops, so a memory-bound kernel split into contiguous
parts runs on several cores from plain Python. The pool is deliberately minimal: one call hands
its parts to the workers and waits for all of them.
If the workers are busy (a kernel called from several user threads at once), the caller simply
runs every part itself, so nothing ever queues behind another call. The parts run on the
workers, each kept on its own CPU (``_place_workers``, Linux), while the caller waits: the
caller's CPU affinity is a process-wide setting of the program's and is never touched.
"""
from __future__ import annotations

import os
import queue
import threading
import time
from collections import deque
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
        thread = threading.Thread(target=self._loop, name="graphir-kernel", daemon=True)
        thread.start()
        tid = thread.native_id  # set before start() returns
        assert tid is not None
        self.tid: int = tid
        self.placed: set[int] | None = None  # the CPUs this worker was last restricted to

    def _loop(self) -> None:
        while True:
            task = self.tasks.get()
            try:
                task()
            except BaseException as exc:  # handed back to the caller, re-raised there
                self.done.put(exc)
            else:
                self.done.put(None)


def _place_workers(workers: Sequence[_Worker]) -> None:
    """Put each worker on its own CPU among those the calling thread may use (Linux).

    Only graphir's own threads are pinned; the caller's affinity is read, never changed. Left to
    itself the scheduler often ran the two halves of a call on one core of an otherwise idle
    2-core VM; one CPU per worker keeps them apart. A worker is moved again only when the
    caller's allowed set changed (e.g. the program called ``os.sched_setaffinity`` itself).
    """
    if not hasattr(os, "sched_getaffinity"):
        return
    try:
        allowed = sorted(os.sched_getaffinity(0))
        for slot, worker in enumerate(workers):
            # fewer CPUs than workers: all of them may use every allowed CPU
            target = {allowed[slot]} if len(allowed) >= len(workers) else set(allowed)
            if worker.placed != target:
                os.sched_setaffinity(worker.tid, target)
                worker.placed = target
    except OSError:  # e.g. a sandbox that forbids it: run unplaced
        return


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
    """Run every callable in ``parts``, in parallel where workers are free; re-raise failures.

    Every part runs on a worker thread, one CPU each, while the caller waits. Measured against
    the caller running ``parts[0]`` itself (1e6 f32 Select forced onto 2 threads, interleaved
    A/B runs, load average 5-8 from other processes): handing every part to placed workers was
    as fast or faster, and it needs no change to the caller's affinity. When the workers are
    busy with another call, the caller runs all parts itself.
    """
    if len(parts) <= 1 or not _lock.acquire(blocking=False):
        for part in parts:
            part()
        return
    try:
        while len(_workers) < len(parts):
            _workers.append(_Worker())
        used = _workers[: len(parts)]
        _place_workers(used)
        for worker, part in zip(used, parts):
            worker.tasks.put(part)
        first: BaseException | None = None
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
    measured 4-6x slower than 1 thread (load average 7 on 2 cores), while on a quiet machine two
    threads ran 1.7x faster than one (1e6 f32 elements, caches cold). So both are timed as they
    run, per power-of-two size class (cache-resident and memory-bound sizes differ): each keeps
    its last ``WINDOW`` timings (seconds per byte) and costs their median (the smaller of two),
    so that one preempted call, or a first call that paid for page faults or a worker's start,
    decides nothing on its own. The two are tried in turn until each has ``TRIALS`` timings;
    then the cheaper one is used and the other re-tried after 2, 4, 8, ... calls, at most every
    ``EXPLORE`` calls, back to every 2 whenever the choice flips: early timings (a process that
    is still starting other runtimes' thread pools) are soon corrected, and a steady machine
    pays for one try in ``EXPLORE``. A chosen option that turns slow is dropped after two calls.
    """

    EXPLORE = 32
    WINDOW = 3
    TRIALS = 3

    def __init__(self) -> None:
        # (size class, threads) -> the last WINDOW timings, seconds per byte, oldest first
        self.samples: dict[tuple[int, int], deque[float]] = {}
        # size class -> [calls since the trials, call number of the next try, gap, last best]
        self.state: dict[int, list[int]] = {}

    def cost(self, nbytes: int, threads: int) -> float | None:
        """Seconds per byte that ``threads`` threads are taken to cost on ``nbytes`` (None: untried)."""
        window = self.samples.get((nbytes.bit_length(), threads))
        if not window:
            return None
        return sorted(window)[(len(window) - 1) // 2]

    def choose(self, most: int, nbytes: int) -> int:
        """How many threads the next call on ``nbytes`` of output should use (at most ``most``)."""
        if most <= 1:
            return 1
        size_class = nbytes.bit_length()
        tried_many = len(self.samples.get((size_class, most), ()))
        tried_one = len(self.samples.get((size_class, 1), ()))
        if tried_many < self.TRIALS or tried_one < self.TRIALS:
            return most if tried_many <= tried_one else 1
        one, many = self.cost(nbytes, 1), self.cost(nbytes, most)
        best, other = (1, most) if one <= many else (most, 1)  # type: ignore[operator]
        state = self.state.get(size_class)
        if state is None or state[3] != best:  # first choice, or a flip: try the other soon
            state = self.state[size_class] = [0, 2, 2, best]
        state[0] += 1
        if state[0] < state[1]:
            return best
        state[2] = min(2 * state[2], self.EXPLORE)
        state[1] = state[0] + state[2]
        return other

    def record(self, threads: int, seconds: float, nbytes: int) -> None:
        key = (nbytes.bit_length(), threads)
        window = self.samples.get(key)
        if window is None:
            window = self.samples[key] = deque(maxlen=self.WINDOW)
        window.append(seconds / max(nbytes, 1))


def timed(fn: Callable[[], None]) -> float:
    """Seconds ``fn()`` took."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
