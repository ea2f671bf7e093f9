"""README.md: the quick start runs as written, its file is what OpenVINO reads, the op recipe works."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graphir.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, re.S)


def _run_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter, so the README's code sees a fresh process (ids, registry) as a reader would."""
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def quick_start(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    blocks = _python_blocks()
    assert blocks, "README.md has no ```python block"
    where = tmp_path_factory.mktemp("readme")
    return _run_python(blocks[0], where), where


def test_quick_start_is_short() -> None:
    lines = [line for line in _python_blocks()[0].splitlines() if line.strip()]
    assert len(lines) <= 10


def test_quick_start_runs_and_prints_the_selected_values(quick_start) -> None:  # type: ignore[no-untyped-def]
    done, where = quick_start
    assert done.returncode == 0, done.stderr
    assert "array([[1, 8]], dtype=int32)" in done.stdout
    assert (where / "select.xml").is_file() and (where / "select.bin").is_file()
    assert (where / "select.bin").stat().st_size == 0  # no constants: an empty .bin, as OpenVINO writes


def test_quick_start_file_is_read_and_run_by_openvino(ov, quick_start) -> None:  # type: ignore[no-untyped-def]
    done, where = quick_start
    assert done.returncode == 0, done.stderr
    model = ov.Core().read_model(str(where / "select.xml"))
    assert [p.get_friendly_name() for p in model.get_parameters()] == ["cond", "then", "else"]
    assert str(model.output(0).get_partial_shape()) == "[?,2]"
    assert model.output(0).get_element_type().get_type_name() == "i32"
    compiled = ov.Core().compile_model(model, "CPU")
    out = compiled([np.array([[True, False]]), np.array([[1, 2]], np.int32), np.array([[9, 8]], np.int32)])
    np.testing.assert_array_equal(out[compiled.output(0)], [[1, 8]])


def test_quick_start_file_loads_back_into_graphir(quick_start) -> None:  # type: ignore[no-untyped-def]
    import graphir

    done, where = quick_start
    assert done.returncode == 0, done.stderr
    m = graphir.read_model(where / "select.xml")
    assert str(m.outputs[0].tensor_type) == "i32[?,2]"
    out = m.run({"cond": [[False, True]], "then": np.array([[1, 2]], np.int32), "else": np.array([[9, 8]], np.int32)})
    np.testing.assert_array_equal(next(iter(out.values())), [[9, 2]])


def test_setup_commands_are_exactly_the_two_in_the_issue() -> None:
    commands = re.findall(r"^    (pip install .*)$", README, re.M)
    assert commands == ["pip install -e . && graphir shapes examples/select.xml",
                        "pip install -e '.[test]' && pytest"]


def test_main_job_on_the_shipped_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shapes", str(ROOT / "examples" / "select.xml")]) == 0
    assert "Select-opset1" in capsys.readouterr().out


def test_adding_an_op_recipe_works_as_one_class(tmp_path: Path) -> None:
    """The recipe, renamed so it cannot clash with a real Relu, is found, built and run."""
    blocks = [b for b in _python_blocks() if "class " in b and "(Op)" in b]
    assert blocks, "README.md has no op recipe"
    recipe = blocks[0].replace('"Relu"', '"ReadmeRelu"').replace('"ReLU"', '"ReadmeReLU"')
    check = recipe + "\n".join([
        "",
        "import numpy as _np, graphir  # not `np`: the recipe must import what it uses",
        "from graphir import opset",
        "from graphir.ops.registry import lookup",
        "assert lookup('openvino', 'ReadmeReLU', 'opset8').__name__ == 'Relu'",
        "x = opset.parameter('[2]', 'f32', name='x')",
        "y = opset.readme_relu(x)",
        "print(graphir.Model([y], [x]).run({'x': _np.array([-1.5, 2.0], _np.float32)}))",
    ])
    done = _run_python(check, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "array([0., 2.], dtype=float32)" in done.stdout
