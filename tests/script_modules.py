"""The repository's scripts (examples/, scripts/, benchmarks/) imported by the tests that check them."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path, name: str, *, search: Path | None = None) -> ModuleType:
    """``path`` executed as a new module ``name`` (not registered in sys.modules); ``search``: a
    folder on sys.path while it loads, for a script that imports its neighbours."""
    if search is not None:
        sys.path.insert(0, str(search))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if search is not None:
            sys.path.remove(str(search))
    return module
