"""An edit costs the same whatever else is alive (issue 33): a node keeps its uses and belongs to one
model, so ``uses()``, ``set_input`` and an attribute edit never walk the other live models (they
did: 6.4 us with 2 live models, 851 us with 2,002). benchmarks/edit_cost.py prints the figures."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from edit_cost import measure  # noqa: E402


def test_edit_cost_does_not_grow_with_live_models() -> None:
    few = measure(2, 200)
    many = measure(1000, 200)
    for name, cost in few.items():
        # best of 5 rounds each; generous slack for a loaded machine (the old cost grew ~130x)
        assert many[name] < 3 * cost + 5.0, f"{name}: {cost:.2f} us with 2 live models, {many[name]:.2f} us with 1000"
