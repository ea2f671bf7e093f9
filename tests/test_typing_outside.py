"""Types outside the checkout: installed as the docs say (``pip install -e . --config-settings
editable_mode=compat``, what .ci/run does), mypy run on a user's script in a folder of its own
finds graphir's ``py.typed`` and types the builders (setuptools' default editable install is an
import hook type checkers cannot follow: mypy then says the module has no stubs and every builder
is Any).

The install goes into a throw-away virtual environment that sees this interpreter's packages
(``--system-site-packages``), with no network and no build isolation: the checkout itself is what
is installed and checked."""
from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = '''\
import numpy as np
from graphir import opset

x = opset.parameter([-1, 4], np.float32, name="x")
reveal_type(opset.relu)
reveal_type(opset.matmul(x, x, False, True))
reveal_type(opset.topk(x, 2, 1, "max", "value"))
'''


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def test_mypy_outside_the_checkout_sees_typed_builders(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    prefix = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(prefix)
    python = str(prefix / "bin" / "python")
    installed = _run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps",
                      "--no-build-isolation", "--no-index", "--disable-pip-version-check", "-e", str(ROOT),
                      "--config-settings", "editable_mode=compat"], tmp_path, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    user = tmp_path / "project"
    user.mkdir()
    (user / "uses.py").write_text(SCRIPT)
    where = _run([python, "-c", "import graphir; print(graphir.__file__)"], user, env)
    assert where.stdout.strip() == str(ROOT / "graphir" / "__init__.py"), where.stdout + where.stderr
    done = _run([python, "-m", "mypy", "--no-incremental", "--follow-imports=silent", "uses.py"], user, env)
    notes = [line.split(": note: ", 1)[1] for line in done.stdout.splitlines() if ": note: " in line]
    assert "error" not in done.stdout, done.stdout
    assert notes[0].startswith('Revealed type is "def (node: graphir.node.Output | graphir.node.Node | '), notes
    assert notes[0].endswith('-> graphir.node.Output"'), notes
    assert notes[1:] == ['Revealed type is "graphir.node.Output"', 'Revealed type is "graphir.node.Node"'], notes
