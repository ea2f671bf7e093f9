"""Per-node dispatch overhead of the interpreter on a 1,000-node chain of small tensors.

Builds ``x -> Add(c) -> Add(c) -> ...`` (1,000 Adds on f32[2,2]) and reports, per node:
the whole run, the ops' own ``evaluate`` cost (the same calls in a bare loop) and the difference
(the interpreter's dispatch overhead); and the run of a chain of do-nothing ops (the interpreter
alone, plus one trivial Python call per node). Also the fixed per-run overhead of a one-node model
(input checks + plan loop), and, when onnx is installed, onnx.reference.ReferenceEvaluator on the
equivalent ONNX chain. Usage: ``python benchmarks/dispatch.py [--nodes N] [--repeat R] [--json]``.
"""
from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import ClassVar

import numpy as np

import graphir
from graphir import opset
from graphir.node import Node
from graphir.ops.base import Op, Port, TensorType


def best_of(fn: Callable[[], object], repeat: int, number: int = 1) -> float:
    """The fastest of ``repeat`` timings of ``number`` calls, in seconds per call."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def chain_model(n: int) -> graphir.Model:
    x = opset.parameter([2, 2], "f32", name="x")
    c = opset.constant(np.full((2, 2), 0.5, np.float32), name="c")
    y = x
    for i in range(n):
        y = opset.add(y, c, name=f"add{i}")
    return graphir.Model([y], [x], name=f"chain{n}")


def onnx_chain(n: int) -> object | None:
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        from onnx.reference import ReferenceEvaluator
    except ImportError:
        return None
    nodes = [helper.make_node("Add", ["x" if i == 0 else f"t{i - 1}", "c"], [f"t{i}"]) for i in range(n)]
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info(f"t{n - 1}", TensorProto.FLOAT, [2, 2])],
        [numpy_helper.from_array(np.full((2, 2), 0.5, np.float32), "c")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return ReferenceEvaluator(model)


class _Identity(Op):
    """A do-nothing op: a chain of these times the interpreter alone."""

    dialect: ClassVar[str] = "bench"
    version: ClassVar[str] = "bench1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("x"), Port("c"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [inputs[0]]

    def evaluate(self, x: np.ndarray, c: np.ndarray) -> list[np.ndarray]:
        return [x]


_Identity.type_name = "Identity"  # set after creation: never registered


def identity_chain(n: int) -> graphir.Model:
    x = opset.parameter([2, 2], "f32", name="x")
    c = opset.constant(np.full((2, 2), 0.5, np.float32), name="c")
    y = x
    for i in range(n):
        y = Node(_Identity(), [y, c], name=f"id{i}").output(0)
    return graphir.Model([y], [x], name=f"identity{n}")


def interleaved(fns: dict[str, Callable[[], object]], repeat: int, number: int = 1) -> dict[str, float]:
    """Best time per call of each function, measured in turns (fair under a noisy machine)."""
    best = {k: float("inf") for k in fns}
    for _ in range(repeat):
        for key, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[key] = min(best[key], (time.perf_counter() - start) / number)
    return best


def measure(n: int = 1000, repeat: int = 15) -> dict[str, float]:
    model = chain_model(n)
    x = np.ones((2, 2), np.float32)
    out = model.run({"x": x})  # builds the plan
    assert np.allclose(next(iter(out.values())), x + 0.5 * n), "chain result is wrong"
    plan = model._plan
    steps = [(s[0], s[5]) for s in plan.steps]
    c = plan.template[steps[0][1][1]]

    def bare() -> None:
        v = x
        for evaluate, _ in steps:
            v = evaluate(v, c)[0]

    noop = identity_chain(n)
    noop.run({"x": x})
    noop_steps = [s[0] for s in noop._plan.steps]

    def bare_noop() -> None:
        v = x
        for evaluate in noop_steps:
            v = evaluate(v, c)[0]

    one = graphir.Model([opset.add(opset.parameter([2, 2], "f32", name="a"), c)], name="one")
    one.run({"a": x})
    step = one._plan.steps[0]
    chain = interleaved({"run": lambda: model.run({"x": x}), "bare": bare,
                         "noop": lambda: noop.run({"x": x}), "bare_noop": bare_noop}, repeat)
    single = interleaved({"run": lambda: one.run({"a": x}), "eval": lambda: step[0](x, c)}, repeat * 4, 500)
    figures: dict[str, float] = {
        "nodes": n,
        "add_chain_run_us_per_node": chain["run"] / n * 1e6,
        "add_evaluate_alone_us_per_node": chain["bare"] / n * 1e6,
        "add_run_minus_evaluate_us_per_node": (chain["run"] - chain["bare"]) / n * 1e6,
        "noop_chain_run_us_per_node": chain["noop"] / n * 1e6,
        # the interpreter alone: a chain of do-nothing ops run, minus the same calls in a bare loop
        "dispatch_us_per_node": (chain["noop"] - chain["bare_noop"]) / n * 1e6,
        "one_node_run_us": single["run"] * 1e6,
        "one_node_evaluate_us": single["eval"] * 1e6,
        "one_node_overhead_us": (single["run"] - single["eval"]) * 1e6,
    }
    ref = onnx_chain(n)
    if ref is not None:
        ref_s = best_of(lambda: ref.run(None, {"x": x}), max(2, repeat // 5))
        figures["onnx_reference_us_per_node"] = ref_s / n * 1e6
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = measure(args.nodes, args.repeat)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        print(f"{key:<36} {value:10.2f}" if isinstance(value, float) else f"{key:<36} {value:>10}")


if __name__ == "__main__":
    main()
