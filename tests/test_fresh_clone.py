"""A fresh clone has no ../shared beside it: the test suite must still collect, and the tests that
need the shared data skip inside the test (the README's test command on a new machine)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_suite_collects_without_shared_data(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["GRAPHIR_SHARED_DIR"] = str(tmp_path / "no-shared-here")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", str(ROOT / "tests")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    assert done.returncode == 0, tail
    assert "error" not in tail.lower() and "tests collected" in tail, tail
    assert int(tail.split()[0]) > 3000, tail


def test_shared_tests_skip_with_one_reason_without_shared_data(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["GRAPHIR_SHARED_DIR"] = str(tmp_path / "no-shared-here")
    args = [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", "tests/test_directml.py::test_conformance_case",
            "tests/test_onednn_conformance.py::test_backward_graph_refuses_to_run"]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "2 skipped" in done.stdout and "needs " in done.stdout and "absent in a fresh clone" in done.stdout
    env["CI"] = "true"
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "2 failed" in done.stdout, done.stdout[-2000:]
    assert "CI is set, so shared data is required" in done.stdout
