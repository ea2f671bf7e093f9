"""examples/leaky_relu.py: LeakyRelu as Select(Less(x, 0), Multiply(x, alpha), x)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphir.ops.openvino.select import Select
from tests.script_modules import load_script

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "leaky_relu.py"


@pytest.fixture(scope="module")
def example():
    return load_script(EXAMPLE, "leaky_relu_example")


def test_model_is_the_composition(example) -> None:
    model = example.build(0.2)
    types = sorted(n.type_name for n in model.nodes())
    assert types == ["Constant", "Constant", "Less", "Multiply", "Parameter", "Result", "Select"]
    assert str(model.outputs[0].tensor_type) == "f32[?,8]"
    assert isinstance(model.node("leaky_relu").op, Select)


@pytest.mark.parametrize("alpha,dtype", [(0.1, "f32"), (0.25, "f16"), (0.01, "f64")])
def test_matches_numpy(example, alpha: float, dtype: str) -> None:
    model = example.build(alpha, dtype=dtype)
    x = (np.random.default_rng(1).standard_normal((3, 8)) * 5).astype(model.parameters[0].op.element_type.numpy_dtype)
    x[0, :3] = [0.0, -0.0, -1.0]
    out = example.run_graphir(model, x)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, example.reference(x, alpha))
    assert out[0, 2] == x.dtype.type(-1.0) * x.dtype.type(alpha) and out[1].min() >= x[1].min() * alpha


def test_saved_ir_runs_in_openvino(example, ov, tmp_path: Path) -> None:
    assert example.main([str(tmp_path), "--alpha", "0.3"]) == 0
    x = np.linspace(-4, 4, 16, dtype=np.float32).reshape(2, 8)
    theirs = example.run_openvino(tmp_path / "leaky_relu.xml", x)
    np.testing.assert_allclose(theirs, example.reference(x, 0.3), rtol=1e-6)
