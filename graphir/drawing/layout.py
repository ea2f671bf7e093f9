"""Runs the layout engine: Graphviz's ``dot`` as shipped by the ``graphviz-pure`` wheel (one
self-contained program installed next to the Python interpreter's scripts; no system Graphviz needed).
A system ``dot`` is used only when the wheel's program is missing."""
from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

from graphir.errors import GraphirError

#: the layout may take this long at most (a 2,000-layer model takes a few seconds)
TIMEOUT_SECONDS = 300


class LayoutError(GraphirError, RuntimeError):
    """The layout engine is missing or failed."""


def engine_command() -> list[str]:
    """The program to run: ``graphviz-pure`` from this interpreter's scripts, else on PATH, else ``dot``."""
    names = ["graphviz-pure" + (".exe" if os.name == "nt" else "")]
    for name in names:
        candidate = Path(sysconfig.get_path("scripts")) / name
        if candidate.is_file():
            return [str(candidate)]
    for name in names + ["dot"]:
        found = shutil.which(name)
        if found:
            return [found]
    raise LayoutError("no layout engine: the 'graphviz-pure' program is missing "
                      "(it comes with graphir's dependencies: pip install -e . or pip install graphviz-pure)")


def render_svg(dot: str) -> str:
    """Lay out DOT text with the dot engine and return the SVG document."""
    command = engine_command() + ["-Kdot", "-Tsvg"]
    try:
        done = subprocess.run(command, input=dot.encode("utf-8"), capture_output=True, timeout=TIMEOUT_SECONDS,
                              check=False)
    except subprocess.TimeoutExpired:
        raise LayoutError(f"layout engine {command[0]} took over {TIMEOUT_SECONDS} s") from None
    except OSError as exc:
        raise LayoutError(f"cannot run layout engine {command[0]}: {exc}") from None
    if done.returncode != 0:
        message = " ".join(done.stderr.decode("utf-8", "replace").split())
        raise LayoutError(f"layout engine {command[0]} failed (status {done.returncode}): {message[:500]}")
    return done.stdout.decode("utf-8")
