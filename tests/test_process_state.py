"""Library calls leave process-wide state they do not own as they found it: the cyclic garbage
collector (enabled, thresholds, frozen objects) and the calling thread's CPU affinity.

A read of a large IR file (the one reader) and a
Select run large enough to use the kernel's worker threads are each checked."""
from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.kernels import _threads
from graphir.kernels.select import select


def _state() -> dict[str, object]:
    state: dict[str, object] = {"enabled": gc.isenabled(), "threshold": gc.get_threshold(),
                                "freeze_count": gc.get_freeze_count()}
    if hasattr(os, "sched_getaffinity"):
        state["affinity"] = os.sched_getaffinity(0)
    return state


@pytest.fixture
def changed_gc_settings() -> Iterator[None]:
    """Thresholds a program might have chosen (and no frozen objects: a call that froze some would
    raise the count; objects frozen by the program may die during the call, so none are)."""
    threshold = gc.get_threshold()
    gc.set_threshold(1234, 7, 9)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


def _chain_xml(tmp_path: Path, layers: int) -> Path:
    """A chain Parameter -> (Add of a Constant) * n -> Result, written by graphir."""
    x = opset.parameter([4], "f32", name="x")
    y = x
    for i in range(layers):
        y = opset.add(y, opset.constant(np.full(4, i, np.float32)))
    path = tmp_path / "chain.xml"
    graphir.save_model(graphir.Model([y], [x], name="chain"), path)
    return path


def _big_select() -> None:
    size = 1 << 21  # 8 MiB of f32 output: blocked, and eligible for two threads
    rng = np.random.default_rng(0)
    cond = rng.random(size) < 0.5
    then, other = rng.random(size, dtype=np.float32), rng.random(size, dtype=np.float32)
    for _ in range(8):  # the thread chooser tries one and two threads in turn
        out = select(cond, then, other)
    np.testing.assert_array_equal(out, np.where(cond, then, other))


@pytest.mark.parametrize("gc_enabled", [True, False], ids=["gc-on", "gc-off"])
@pytest.mark.parametrize("action", ["read", "select"])
def test_library_calls_leave_gc_and_affinity_unchanged(tmp_path: Path, changed_gc_settings: None,
                                                       gc_enabled: bool, action: str) -> None:
    calls: dict[str, Callable[[], object]] = {
        "read": lambda: graphir.read_model(xml),
        "select": _big_select,
    }
    xml = _chain_xml(tmp_path, 600)
    was = gc.isenabled()
    if not gc_enabled:
        gc.disable()
    collections: list[int] = []  # the generation of each collection during the call

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(seen)
    watcher = _AffinityWatcher()
    try:
        before = _state()
        assert before["freeze_count"] == 0
        with watcher:
            model = calls[action]()
        during = list(collections)
        # (before the collector is turned back on: the backlog would be collected at once)
        young = {id(o) for generation in (0, 1) for o in gc.get_objects(generation)}
        nodes_young = action.startswith("read") and any(id(n) in young for n in model.nodes())  # type: ignore[attr-defined]
        assert _state() == before
        assert watcher.seen <= {frozenset(before.get("affinity", ()))}  # type: ignore[arg-type]  # also while it ran
    finally:
        gc.callbacks.remove(seen)
        if was:
            gc.enable()
    if action.startswith("read"):
        assert len(model) == 1 + 2 * 600 + 1  # type: ignore[arg-type]
        # the collector ran on its own while the objects of the model were made (a young pass
        # comes first), and unless a pass of generation 1 or 2 ran (it moves survivors to the
        # oldest generation), they are still young: nothing turned it off or refiled them as old
        assert (0 in during) == gc_enabled
        if max(collections, default=0) == 0:
            assert nodes_young


class _AffinityWatcher:
    """Samples the calling thread's CPU affinity from another thread while a call runs."""

    def __init__(self) -> None:
        self.seen: set[object] = set()
        self._stop = threading.Event()
        self._tid = threading.get_native_id()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            self.seen.add(frozenset(os.sched_getaffinity(self._tid)))
            time.sleep(0.0002)

    def __enter__(self) -> "_AffinityWatcher":
        if hasattr(os, "sched_getaffinity"):
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no sched_getaffinity/sched_setaffinity here")
def test_select_threads_run_while_the_caller_keeps_a_restricted_affinity() -> None:
    """A program that restricted itself to one CPU stays there; the kernel's workers follow it."""
    before = os.sched_getaffinity(0)
    one = {min(before)}
    threads = _threads.num_threads()
    _threads.set_num_threads(2)
    os.sched_setaffinity(0, one)
    try:
        _big_select()
        assert os.sched_getaffinity(0) == one
    finally:
        os.sched_setaffinity(0, before)
        _threads.set_num_threads(threads)
    assert os.sched_getaffinity(0) == before


def test_ops_read_from_one_template_share_a_fields_set_until_one_changes(tmp_path: Path) -> None:
    """The reader gives ops of the same attributes one pydantic fields-set (fewer objects for the
    collector to track); changing an op gives it its own, and copies are independent."""
    import copy

    model = graphir.read_model(_chain_xml(tmp_path, 600))
    adds = [n.op for n in model.nodes() if n.type_name == "Add"]
    first, second = adds[0], adds[1]
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__
    shared = set(second.model_fields_set)
    first = first.with_attributes(auto_broadcast="none")  # ops are values: an edit is a new op
    assert first.model_fields_set == shared | {"auto_broadcast"}
    assert second.model_fields_set == shared and first.__pydantic_fields_set__ is not second.__pydantic_fields_set__
    updated = second.model_copy(update={"auto_broadcast": "pdpd"})
    cloned = copy.deepcopy(second).with_attributes(auto_broadcast="pdpd")
    assert adds[2].model_fields_set == shared  # neither the copy nor the clone changed the others
    assert updated.auto_broadcast == "pdpd" and adds[2].auto_broadcast == "numpy"  # type: ignore[attr-defined]
