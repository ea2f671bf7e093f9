"""The docs site: it builds with ``mkdocs build --strict`` (a broken link or API reference fails), and
every ``python`` block in its pages runs as written (``py`` blocks are fragments, shown only)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _python_blocks() -> list[tuple[str, int, str]]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)):
            found.append((page.relative_to(ROOT).as_posix(), i, block))
    return found


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    for shipped in ("examples", "tests"):  # paths in the pages are relative to the checkout's root
        (cwd / shipped).symlink_to(ROOT / shipped)
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_site_builds_strictly(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").is_file()
    api = (tmp_path / "site" / "api" / "model" / "index.html").read_text(encoding="utf-8")
    assert "infer_shapes" in api and "create_infer_request" in api  # mkdocstrings rendered the docstrings


@pytest.mark.parametrize(("page", "index", "code"), _python_blocks(), ids=lambda v: str(v)[:40])
def test_python_blocks_run(page: str, index: int, code: str, tmp_path: Path) -> None:
    done = _run(code, tmp_path)
    assert done.returncode == 0, f"{page} block {index}:\n{done.stderr[-3000:]}"


def test_adding_an_op_recipe_runs_the_new_op(tmp_path: Path) -> None:
    [(_, _, recipe)] = [b for b in _python_blocks() if b[0] == "docs/adding-an-op.md" and "(Op)" in b[2]]
    done = _run(recipe, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "array([0., 4.], dtype=float32)" in done.stdout
