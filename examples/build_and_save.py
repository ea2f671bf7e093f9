"""Build a graph programmatically, save it as OpenVINO IR, read it back and run both.

A small gated MLP: y = Select(Greater(h, 0), h, h * 0.01) with h = x @ W + b. Saved as IR v11
(.xml + .bin) into OUTPUT_DIR (default: a temporary directory), read back, and run on the same
input; the two results must agree. When the openvino package is installed, OpenVINO's CPU plugin
runs the saved file too.

    python examples/build_and_save.py [OUTPUT_DIR]
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

import graphir
from graphir import opset


def build(features: int = 6, hidden: int = 4) -> graphir.Model:
    rng = np.random.default_rng(0)
    x = opset.parameter(f"[?,{features}]", "f32", name="x")  # dynamic batch
    w = opset.constant(rng.standard_normal((features, hidden)).astype(np.float32), name="W")
    b = opset.constant(rng.standard_normal((1, hidden)).astype(np.float32), name="b")
    h = opset.add(opset.matmul(x, w, False, False, name="matmul"), b, name="bias")
    leak = opset.multiply(h, opset.constant(np.float32(0.01)), name="leak")
    y = opset.select(opset.greater(h, opset.constant(np.float32(0)), name="positive"), h, leak, name="gate")
    y.names = {"y"}
    return graphir.Model([y], [x], name="gated_mlp")


def main(argv: list[str]) -> int:
    model = build()
    print(f"built {model}")
    for node in model.get_ordered_ops():
        print(f"  {node.id:>4} {node.name:<10} {node.type_name:<10} -> {', '.join(map(str, node.output_types))}")

    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(argv[0]) if argv else Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / "gated_mlp.xml"
        graphir.save_model(model, path)
        print(f"saved {path} ({path.stat().st_size} bytes) and {path.with_suffix('.bin').name} "
              f"({path.with_suffix('.bin').stat().st_size} bytes)")

        loaded = graphir.read_model(path)
        x = np.random.default_rng(1).standard_normal((3, 6)).astype(np.float32)
        ours = model.run({"x": x})["y"]
        again = loaded.run({"x": x})["y"]
        assert np.array_equal(ours, again), "the saved model computes something else"
        print(f"built and reloaded models agree on a batch of 3:\n{np.array2string(again, precision=3)}")

        try:
            import openvino as ov
        except ImportError:
            print("openvino is not installed; skipping the OpenVINO check")
            return 0
        # f32 explicitly: on CPUs with bf16 support (AVX512-BF16, AMX) the plugin defaults to bf16
        compiled = ov.Core().compile_model(str(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        theirs = compiled({"x": x})[compiled.outputs[0]]
        assert np.allclose(ours, theirs, rtol=1e-4, atol=1e-5), "OpenVINO disagrees"
        print("OpenVINO's CPU plugin gives the same result")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
