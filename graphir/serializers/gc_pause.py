"""Building many long-lived objects without the cyclic garbage collector scanning them as young.

Reading a 10,000-layer IR creates over 100,000 container objects (nodes, ops, lists, sets) and no
cycles among them worth collecting. With the collector on, it would rescan the growing heap again
and again while they are built; with it off until the end, its first pass afterwards still visits
every one of them as a young object (~45 ms on the 10,000-layer chain, a third of the read), and
a second pass visits them again in the middle generation. They are a model, long-lived by nature:
:func:`long_lived_objects` first collects the two young generations as the collector would (so
what other code left there is judged as usual, and its survivors counted as usual), turns the
collector off while the objects are built and, when the build succeeds, files what was made
meanwhile straight into the oldest generation (``gc.freeze()`` then ``gc.unfreeze()``: no
collection runs), where only full collections look at them, as they would at any object that
lives long enough. Skipped when someone else has frozen objects (``gc.get_freeze_count()``), so
their permanent generation is never touched, and when the collector was off to begin with.
"""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def long_lived_objects() -> Iterator[None]:
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.collect(1)
    gc.disable()
    try:
        yield
        if was_enabled and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
    finally:
        if was_enabled:
            gc.enable()
