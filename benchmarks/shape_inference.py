"""Shape inference of a 10,000-layer IR: graphir ``Model.reshape`` vs openvino ``Model.reshape``.

Writes (with openvino when installed, else with graphir) an IR whose input is f32[?,16] followed by
a chain of Add/Multiply layers against one shared constant, reads it with both libraries and times
``reshape`` to alternating batch sizes (each reshape re-infers every layer) in the same process.
Usage: ``python benchmarks/shape_inference.py [--layers N] [--repeat R] [--json]``.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from synthetic_chains import make_shared_constant_chain

import graphir
from graphir import opset


def write_with_openvino(path: Path, layers: int) -> bool:
    try:
        import openvino  # noqa: F401
    except ImportError:
        return False
    make_shared_constant_chain(path, layers)
    return True


def write_with_graphir(path: Path, layers: int) -> None:
    x = opset.parameter("[?,16]", "f32", name="x")
    c = opset.constant(np.full((1, 16), 0.5, np.float32))
    y = x
    for i in range(layers - 3):
        y = (opset.add if i % 2 == 0 else opset.multiply)(y, c, name=f"l{i}")
    graphir.save_model(graphir.Model([y], [x], name="chain"), path)


def best(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(layers: int = 10_000, repeat: int = 5) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chain.xml"
        have_ov = write_with_openvino(path, layers)
        if not have_ov:
            write_with_graphir(path, layers)
        start = time.perf_counter()
        model = graphir.read_model(path)
        figures: dict[str, Any] = {"layers": len(model), "graphir_read_s": time.perf_counter() - start}
        batches = iter(range(1, 10**6))
        figures["graphir_reshape_s"] = best(lambda: model.reshape({"x": f"[{next(batches)},16]"}), repeat)
        figures["graphir_infer_shapes_s"] = best(model.infer_shapes, repeat)
        assert str(model.outputs[0].tensor_type.shape).endswith(",16]")
        if have_ov:
            import openvino as ov

            start = time.perf_counter()
            ov_model = ov.Core().read_model(str(path))
            figures["openvino_read_s"] = time.perf_counter() - start
            ov_batches = iter(range(1, 10**6))
            figures["openvino_reshape_s"] = best(
                lambda: ov_model.reshape({"x": ov.PartialShape([next(ov_batches), 16])}), min(repeat, 2))
            figures["reshape_ratio_graphir_over_openvino"] = (
                figures["graphir_reshape_s"] / figures["openvino_reshape_s"])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = measure(args.layers, args.repeat)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        print(f"{key:<40} {value:12.4f}" if isinstance(value, float) else f"{key:<40} {value:>12}")


if __name__ == "__main__":
    main()
