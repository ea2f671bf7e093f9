"""Tools that find where a model goes wrong: compare, extract, fold, stats, diff, reduce.

The top layer of graphir: built only on the public model API and the passes and runtime below it.
Each tool is a Python function first (``from graphir.tools import compare``) and a ``graphir``
subcommand (``graphir compare MODEL``) with a table and ``--json``. OpenVINO is imported only by
the functions that run it; the library never requires it.
"""
from __future__ import annotations

from graphir.tools.compare import Comparison, LayerError, compare
from graphir.tools.diff import ModelDiff, diff
from graphir.tools.extract import extract
from graphir.tools.fold import FoldReport, fold
from graphir.tools.reduce import Reduction, reduce
from graphir.tools.stats import ModelStats, stats

__all__ = ["Comparison", "FoldReport", "LayerError", "ModelDiff", "ModelStats", "Reduction", "compare", "diff",
           "extract", "fold", "reduce", "stats"]
