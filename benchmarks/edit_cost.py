"""What an edit costs with few and with many live models: ``Output.uses()``, ``Node.set_input`` and
an attribute edit (``Node.set_attribute``), on one small model while 2 or 2,000 other models are alive.

    python benchmarks/edit_cost.py [--models 2 2000] [--repeat 2000]

Each node keeps its uses and belongs to one model, so an edit costs O(uses) whatever else is alive
(before issue 33 every edit walked a process-wide set of live models: an attribute edit cost 6.4 us
with 2 live models and 851 us with 2,002). Prints microseconds per call, best of 5 rounds.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import graphir
from graphir import opset


def chain(length: int = 20) -> tuple[graphir.Model, list[graphir.Output]]:
    """x -> Relu -> Add(+1) -> ... -> Result; the outputs of the chain."""
    x = opset.parameter("[?,4]", "f32", name="x")
    outs = [x]
    one = opset.constant(np.ones((1, 4), np.float32), name="one")
    for i in range(length):
        outs.append(opset.add(opset.relu(outs[-1]), one, name=f"add{i}"))
    return graphir.Model([outs[-1]], [x], name="chain"), outs


def per_call(fn: Callable[[], object], repeat: int) -> float:
    """Microseconds per call of ``fn``, best of 5 rounds of ``repeat`` calls."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best * 1e6


def measure(live: int, repeat: int) -> dict[str, float]:
    """Per-call microseconds of the three edits on one chain while ``live`` other models exist."""
    others = [chain(3)[0] for _ in range(live)]
    model, outs = chain()
    middle = outs[10]
    add = middle.node
    relu_out = add.inputs[0]
    assert relu_out is not None
    alternative = opset.relu(outs[9], name="alt")  # joins the model on the first set_input
    sources = [alternative, relu_out]
    flip = [0]

    def set_input() -> None:
        flip[0] ^= 1
        add.set_input(0, sources[flip[0]])

    softmax = opset.softmax(outs[-1], axis=1, name="sm")
    model.add_results([softmax])
    axes = [0, 1]

    def set_attribute() -> None:
        flip[0] ^= 1
        softmax.node.set_attribute("axis", axes[flip[0]])

    figures = {
        "uses()": per_call(lambda: middle.uses(), repeat),
        "set_input": per_call(set_input, repeat),
        "set_attribute": per_call(set_attribute, repeat),
    }
    assert len(others) == live
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, nargs="+", default=[2, 2000], help="live models besides the edited one")
    parser.add_argument("--repeat", type=int, default=2000, help="calls per round (best of 5 rounds)")
    args = parser.parse_args(argv)
    rows = {live: measure(live, args.repeat) for live in args.models}
    names = list(next(iter(rows.values())))
    print(f"{'live models':>12}  " + "  ".join(f"{n:>14}" for n in names) + "   (us per call)")
    for live, figures in rows.items():
        print(f"{live:>12}  " + "  ".join(f"{figures[n]:>14.2f}" for n in names))
    first, last = rows[args.models[0]], rows[args.models[-1]]
    print("ratio " + ", ".join(f"{n} {last[n] / first[n]:.2f}x" for n in names)
          + f" ({args.models[-1]} vs {args.models[0]} live models)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
