"""README.md: every code block runs as written, the quick start's file is what OpenVINO reads, and the
README stays a five-minute read."""
from __future__ import annotations

import os
import re
import shlex
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
    """A fresh interpreter, so the README's code sees a fresh process (ids, registry) as a reader would;
    ``examples/`` is reachable from ``cwd`` as from the checkout's root."""
    if not (cwd / "examples").exists():
        (cwd / "examples").symlink_to(ROOT / "examples")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


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
    assert commands == ["pip install -e . --config-settings editable_mode=compat && graphir shapes examples/select.xml",
                        "pip install -e '.[test]' --config-settings editable_mode=compat && pytest"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet --disable-pip-version-check -e '.[test]' --config-settings editable_mode=compat" in ci


def test_main_job_on_the_shipped_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shapes", str(ROOT / "examples" / "select.xml")]) == 0
    assert "Select-opset1" in capsys.readouterr().out


def test_readme_is_a_five_minute_read() -> None:
    assert len(README.splitlines()) < 250


@pytest.mark.parametrize("index", range(len(_python_blocks())))
def test_every_python_block_runs(index: int, tmp_path: Path) -> None:
    done = _run_python(_python_blocks()[index], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]


def test_recipes_print_what_their_comments_say(tmp_path: Path) -> None:
    blocks = _python_blocks()
    [load] = [b for b in blocks if "m.reshape(" in b]
    assert _run_python(load, tmp_path).stdout.splitlines() == ["i32[?,2]", "[[1 8]]"]
    [edit] = [b for b in blocks if ".insert(" in b]
    out = _run_python(edit, tmp_path).stdout
    assert "array([0., 6.], dtype=float32)" in out
    [numerics] = [b for b in blocks if ".profile(" in b]
    assert _run_python(numerics, tmp_path).stdout.splitlines() == ["[[1, 0], [1, 0], [1, 0]]", "True"]
    [convert] = [b for b in blocks if "convert_model" in b]
    assert _run_python(convert, tmp_path).stdout.splitlines() == ["[2. 2. 2.]", "True"]


def _console_blocks() -> list[str]:
    return re.findall(r"```console\n(.*?)```", README, re.S)


def test_every_console_block_prints_what_it_shows(tmp_path: Path) -> None:
    """Each ``$ graphir ...`` line runs from the checkout's root; the lines after it are its output."""
    blocks = _console_blocks()
    assert blocks, "README.md shows no command with its output"
    for block in blocks:
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, *expected = chunk.rstrip("\n").split("\n")
            argv = shlex.split(command)
            assert argv[0] == "graphir"
            done = subprocess.run([sys.executable, "-m", "graphir", *argv[1:]], cwd=ROOT, capture_output=True,
                                  text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
            assert done.returncode == 0, done.stderr
            assert [line.rstrip() for line in done.stdout.splitlines()] == [line.rstrip() for line in expected]
