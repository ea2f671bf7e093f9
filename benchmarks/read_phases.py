"""Where ``graphir.read_model`` spends its time, phase by phase, on IR files (CPU clock).

    python benchmarks/read_phases.py                       # the worst corpus files of the read goal
    python benchmarks/read_phases.py densenet121 path/to/model.xml --repeat 9

A name is a file of the benchmark corpus (``$GRAPHIR_BENCH_DIR`` or ``~/.cache/graphir-bench``) or
a path. Each phase is timed by wrapping the reader's own functions (exclusive time: a phase's
calls into another timed phase count for that one), the cyclic GC by ``gc.callbacks`` (its passes
run inside whichever phase allocated; they are listed apart and not subtracted). A timed call
costs ~1 us more than a plain one: that cost, measured on a wrapped no-op, is subtracted per call,
and the instrumented total is printed next to a plain read's, so one can see that they agree.
The best of ``--repeat`` instrumented reads is shown (each phase from that read), and the freeing
of the model after it. The libxml2 tree is freed inside the read, when the reader returns: "tree
free + rest" is mostly that.
"""
from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import graphir  # noqa: E402
from graphir.serializers import ir_parser, ir_reader, openvino_xml  # noqa: E402

CLOCK = time.process_time
DEFAULT_FILES = ("varied_matmul_chain", "densenet121", "maskrcnn")

#: (module or class, function name, phase); the order of the printed table
PHASES: tuple[tuple[Any, str, str], ...] = (
    (ir_parser, "refuse_dtd", "DTD probe (SAX, up to the root tag)"),
    (ir_parser, "parse_xml", "libxml2 parse (lxml tree)"),
    (ir_reader, "dims_are_valid", "dims check (one regex over the bytes)"),
    (ir_reader._Reader, "read_graph", "layer walk (lxml proxies) + rest"),
    (ir_reader, "_parse_layer", "layer records (_parse_layer)"),
    (ir_reader, "_parse_ports", "port records (_parse_ports)"),
    (ir_reader._Reader, "_edges", "edges"),
    (ir_reader._Reader, "_toposort", "topological order"),
    (ir_reader._Reader, "_build_nodes", "node loop (inputs, Outputs)"),
    (ir_reader._Reader, "_plain_node", "ops + nodes (known ops)"),
    (ir_reader._Reader, "_constant_node", "Const ops + nodes"),
    (ir_reader._Reader, "_constant_type", "Const values (.bin views)"),
    (ir_reader._Reader, "_infer", "shape inference (memo + ops)"),
    (ir_reader._Reader, "_op", "other ops (bodies, opaque)"),
    (ir_reader._Reader, "_make_node", "other nodes"),
    (ir_reader._Reader, "_read_body", "subgraph bodies (own inference)"),
    (ir_reader.Model, "__init__", "Model()"),
    (openvino_xml, "_finish", "net rt_info, variables, v10"),
    (openvino_xml, "_read_bytes", "tree free + rest"),
)

#: one instrumented read: (total, exclusive time per phase, calls per phase, GC time, GC passes,
#: freeing the model afterwards)
Read = tuple[float, dict[str, float], dict[str, int], float, int, float]


class Timer:
    """Exclusive CPU time and calls per phase, and the GC's passes, over one read."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.stack: list[float] = []
        self.gc_time = 0.0
        self.gc_passes = 0
        self._gc_start: list[float] = []

    def wrap(self, function: Callable[..., Any], phase: str) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = CLOCK()
            self.stack.append(0.0)
            try:
                return function(*args, **kwargs)
            finally:
                took = CLOCK() - start
                inner = self.stack.pop()
                self.spent[phase] = self.spent.get(phase, 0.0) + took - inner
                self.calls[phase] = self.calls.get(phase, 0) + 1
                if self.stack:
                    self.stack[-1] += took
        return timed

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start.append(CLOCK())
        elif self._gc_start:
            self.gc_time += CLOCK() - self._gc_start.pop()
            self.gc_passes += 1

    def reset(self) -> None:
        self.spent, self.calls = {}, {}
        self.gc_time, self.gc_passes = 0.0, 0


def wrapper_cost() -> float:
    """What one timed call adds to a phase (seconds): a wrapped no-op's best of 5 rounds, less the
    no-op's own."""
    def nothing() -> None:
        return None

    timed = Timer().wrap(nothing, "calibration")
    best_timed = best_plain = float("inf")
    for _ in range(5):
        start = CLOCK()
        for _ in range(20000):
            timed()
        best_timed = min(best_timed, CLOCK() - start)
        start = CLOCK()
        for _ in range(20000):
            nothing()
        best_plain = min(best_plain, CLOCK() - start)
    return max(best_timed - best_plain, 0.0) / 20000


def resolve(name: str) -> Path:
    path = Path(name)
    if path.suffix == ".xml" and path.exists():
        return path
    corpus = Path(os.environ.get("GRAPHIR_BENCH_DIR", Path.home() / ".cache" / "graphir-bench"))
    return corpus / f"{name}.xml"


def plain_read(path: Path, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        model = None
        gc.collect()
        start = CLOCK()
        model = graphir.read_model(path)
        best = min(best, CLOCK() - start)
    del model
    return best


def instrumented_read(path: Path, repeat: int, timer: Timer) -> Read:
    """The fastest of ``repeat`` instrumented reads."""
    best: Read | None = None
    for _ in range(repeat):
        gc.collect()
        timer.reset()
        start = CLOCK()
        model = graphir.read_model(path)
        total = CLOCK() - start
        start = CLOCK()
        del model
        freed = CLOCK() - start
        if best is None or total < best[0]:
            best = (total, dict(timer.spent), dict(timer.calls), timer.gc_time, timer.gc_passes, freed)
    assert best is not None
    return best


def report(name: str, plain: float, read: Read, cost: float, repeat: int) -> None:
    total, spent, calls, gc_time, gc_passes, freed = read
    overhead = cost * sum(calls.values())
    net = max(total - overhead, 1e-9)
    print(f"== {name}: plain read {plain * 1e3:.1f} ms; instrumented {total * 1e3:.1f} ms, less the timers' "
          f"{overhead * 1e3:.1f} ms ({cost * 1e6:.2f} us per call): {net * 1e3:.1f} ms "
          f"(CPU clock, best of {repeat}; load average {os.getloadavg()[0]:.2f})")
    print(f"  {'phase (less the timers)':42s} {'calls':>7s} {'ms':>8s} {'share':>6s}")
    for _, _, phase in PHASES:
        if phase in spent:
            own = max(spent[phase] - cost * calls[phase], 0.0)
            print(f"  {phase:42s} {calls[phase]:7d} {own * 1e3:8.2f} {own / net * 100:5.1f}%")
    print(f"  {'(of which the cyclic GC)':42s} {gc_passes:7d} {gc_time * 1e3:8.2f} {gc_time / net * 100:5.1f}%")
    print(f"  {'(after the read: freeing the model)':42s} {'':7s} {freed * 1e3:8.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", default=list(DEFAULT_FILES),
                        help="corpus names or .xml paths (default: the read goal's worst files)")
    parser.add_argument("--repeat", type=int, default=5, help="reads per file, best taken (default 5)")
    args = parser.parse_args(argv)
    paths = [resolve(name) for name in args.files]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"no such file: {', '.join(missing)} (make the corpus: python benchmarks/make_corpus.py)",
              file=sys.stderr)
        return 2
    plain = {path: plain_read(path, args.repeat) for path in paths}  # before any wrapper is in place
    cost = wrapper_cost()
    timer = Timer()
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in PHASES]
    gc.callbacks.append(timer.on_gc)  # (this script's process: a benchmark, not a library call)
    try:
        for owner, name, phase in PHASES:
            setattr(owner, name, timer.wrap(getattr(owner, name), phase))
        openvino_xml.parse_xml = ir_parser.parse_xml  # (imported by name there)
        for path in paths:
            report(path.stem, plain[path], instrumented_read(path, args.repeat, timer), cost, args.repeat)
    finally:
        gc.callbacks.remove(timer.on_gc)
        for owner, name, original in originals:
            setattr(owner, name, original)
        openvino_xml.parse_xml = ir_parser.parse_xml
    return 0


if __name__ == "__main__":
    sys.exit(main())
