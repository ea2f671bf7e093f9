"""LeakyRelu composed from Select, as DirectML's ELEMENT_WISE_IF remark suggests:

    LeakyRelu(x) = Select(Less(x, 0), Multiply(x, alpha), x)

Builds it with the OpenVINO-style builder, runs it with graphir, checks it against a direct numpy
leaky relu, saves it as OpenVINO IR, and (when the openvino package is installed) loads and runs
the IR with OpenVINO's CPU plugin and checks that it gives the same result.

    python examples/leaky_relu.py [OUTPUT_DIR] [--alpha 0.1]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

import graphir
from graphir import opset


def build(alpha: float = 0.1, shape: str = "[?,8]", dtype: str = "f32") -> graphir.Model:
    """The composition; ``x`` keeps a dynamic batch so the same model runs any batch size."""
    np_dtype = graphir.ElementType.parse(dtype).numpy_dtype
    x = opset.parameter(shape, dtype, name="x")
    negative = opset.less(x, opset.constant(np.array(0, np_dtype)), auto_broadcast="numpy")
    scaled = opset.multiply(x, opset.constant(np.array(alpha, np_dtype)), auto_broadcast="numpy")
    y = opset.select(negative, scaled, x, name="leaky_relu")
    y.names = {"y"}
    return graphir.Model([y], [x.node], name="leaky_relu")


def reference(x: np.ndarray, alpha: float) -> np.ndarray:
    """Leaky relu written directly in numpy."""
    return np.where(x < 0, x * x.dtype.type(alpha), x).astype(x.dtype)


def run_graphir(model: graphir.Model, x: np.ndarray) -> np.ndarray:
    return model.run({"x": x})["y"]


def run_openvino(xml: Path, x: np.ndarray) -> np.ndarray | None:
    """The IR run by OpenVINO's CPU plugin; None when openvino is not installed."""
    try:
        import openvino as ov
    except ImportError:
        return None
    compiled = ov.Core().compile_model(str(xml), "CPU")
    return np.asarray(compiled([x])[compiled.outputs[0]])


def check_saved(out_dir: Path, model: graphir.Model, x: np.ndarray, ours: np.ndarray) -> None:
    """Save the IR in ``out_dir``; OpenVINO (when installed) runs it to ``ours``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    xml = out_dir / "leaky_relu.xml"
    graphir.save_model(model, xml)
    print(f"saved {xml}")
    theirs = run_openvino(xml, x)
    if theirs is None:
        print("openvino is not installed: skipped the OpenVINO run")
    else:
        np.testing.assert_allclose(theirs, ours, rtol=1e-6, atol=0)
        print("openvino: the saved IR gives the same result")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output_dir", nargs="?",
                        help="where to write leaky_relu.xml/.bin (default: a temporary folder, removed at exit)")
    parser.add_argument("--alpha", type=float, default=0.1)
    args = parser.parse_args(argv)

    model = build(args.alpha)
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    ours = run_graphir(model, x)
    np.testing.assert_array_equal(ours, reference(x, args.alpha))
    print(f"graphir: {model.outputs[0].tensor_type} matches numpy leaky relu (alpha={args.alpha})")

    if args.output_dir:
        check_saved(Path(args.output_dir), model, x, ours)
    else:  # a temporary folder, removed on the way out
        with tempfile.TemporaryDirectory(prefix="leaky_relu_") as temporary:
            check_saved(Path(temporary), model, x, ours)
    return 0


if __name__ == "__main__":
    sys.exit(main())
