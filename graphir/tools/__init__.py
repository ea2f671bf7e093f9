"""Tools that find where a model goes wrong: compare, extract, fold, stats, diff, reduce.

The top layer of graphir: built only on the public model API and the passes and runtime below it.
Each tool is a Python function first (``from graphir.tools import compare``) and a ``graphir``
subcommand (``graphir compare MODEL``) with a table and ``--json``. OpenVINO is imported only by
the functions that run it; the library never requires it. Each tool's module is imported on first
use of its name.
"""
from __future__ import annotations

import importlib
from typing import Any

#: public name -> the module (graphir.tools.<module>) that defines it
_WHERE = {"compare": "compare", "Comparison": "compare", "LayerError": "compare",
          "extract": "extract", "fold": "fold", "FoldReport": "fold", "stats": "stats", "ModelStats": "stats",
          "diff": "diff", "ModelDiff": "diff", "reduce": "reduce", "Reduction": "reduce"}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'graphir.tools' has no attribute '{name}'")
    return getattr(importlib.import_module(f"graphir.tools.{module}"), name)
