"""Every script in examples/ runs to completion (each checks its own results with asserts)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))


def test_the_examples_are_there() -> None:
    names = {p.name for p in EXAMPLES}
    assert {"load_and_run.py", "build_and_save.py", "dynamic_batch_shapes.py"} <= names


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script: Path, tmp_path: Path) -> None:
    temporary = tmp_path.parent / f"{tmp_path.name}-tmp"  # the scripts' temporary folder: empty after
    temporary.mkdir()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": str(temporary)}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, f"{script.name} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert done.stdout.strip(), f"{script.name} printed nothing"
    assert list(tmp_path.iterdir()) == [], f"{script.name} left files in the working directory"
    assert list(temporary.iterdir()) == [], f"{script.name} left {list(temporary.iterdir())} in the temporary folder"
