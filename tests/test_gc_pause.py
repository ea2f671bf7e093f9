"""graphir.serializers.gc_pause: what a read builds goes to the oldest GC generation, and nothing
else about the program's collector changes (its setting, its frozen objects, its young garbage)."""
from __future__ import annotations

import gc
import weakref

import pytest

from graphir.serializers.gc_pause import long_lived_objects


class _Thing:
    pass


def _in_generation(obj: object, generation: int) -> bool:
    return any(o is obj for o in gc.get_objects(generation))


def test_objects_built_go_to_the_oldest_generation_and_the_collector_is_back_on() -> None:
    assert gc.isenabled()
    with long_lived_objects():
        assert not gc.isenabled()
        built = [[_Thing()] for _ in range(10)]
    assert gc.isenabled()
    assert _in_generation(built, 2) and _in_generation(built[0], 2)
    assert not _in_generation(built, 0)


def test_young_cyclic_garbage_of_the_program_is_still_collected() -> None:
    a, b = _Thing(), _Thing()
    a.other, b.other = b, a  # a cycle, young and unreachable once the names go
    alive = weakref.ref(a)
    del a, b
    with long_lived_objects():
        pass
    assert alive() is None


def test_a_failed_build_promotes_nothing() -> None:
    with pytest.raises(RuntimeError):
        with long_lived_objects():
            built = [_Thing()]
            raise RuntimeError("boom")
    assert gc.isenabled()
    assert not _in_generation(built, 2)


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with long_lived_objects():
            built = [_Thing()]
        assert not gc.isenabled()
        assert not _in_generation(built, 2)
    finally:
        gc.enable()


def test_objects_the_program_froze_stay_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with long_lived_objects():
            built = [_Thing()]
        assert gc.get_freeze_count() == frozen
        assert not _in_generation(built, 2)
    finally:
        gc.unfreeze()
