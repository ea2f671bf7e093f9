"""Data that lives outside this project, in ``../shared`` beside the checkout.

A fresh clone has no ``../shared``: tests that read it skip *inside the test* with one clear
reason, so collection never fails. Under CI (the ``CI`` environment variable set) the data is
required, and a missing file fails the test instead of skipping it.

Parametrized tests take their cases from :func:`shared_files` or :func:`shared_cases`; when the
data is absent these give a single ``shared-data-absent`` case whose test body calls
:func:`require_shared` and so skips (or fails under CI) with the reason.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: ``../shared``; GRAPHIR_SHARED_DIR points elsewhere (the fresh-clone test points it at nothing)
SHARED = Path(os.environ.get("GRAPHIR_SHARED_DIR") or ROOT.parent / "shared")
ABSENT = "shared-data-absent"

T = TypeVar("T")


def require_shared(*parts: str | Path) -> Path:
    """The path ``../shared/<parts>``; skips the calling test when it is absent (fails under CI)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        reason = f"needs {path} (the shared data beside the checkout); absent in a fresh clone"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set, so shared data is required: {reason}")
        pytest.skip(reason)
    return path


def shared_files(subdir: str, pattern: str) -> list[Any]:
    """Sorted files under ``../shared/<subdir>`` matching ``pattern``, as test parameters.

    With the folder absent: one ``None`` parameter with id ``shared-data-absent``; pass each
    parameter through :func:`shared_file` in the test body.
    """
    base = SHARED / subdir
    if not base.is_dir():
        return [pytest.param(None, id=ABSENT)]
    return sorted(base.glob(pattern))


def shared_file(path: Path | None, subdir: str = "") -> Path:
    """``path`` itself, or a skip/fail (as :func:`require_shared`) when it stands for absent data."""
    if path is None:
        require_shared(subdir or ".")
        require_shared("__missing__")  # the folder exists but the file list was empty
    assert path is not None
    return path


def or_absent(cases: Sequence[Any]) -> list[Any]:
    """``cases`` as test parameters, or the one absent case when there are none (data missing)."""
    return list(cases) if cases else [pytest.param(None, id=ABSENT)]


def shared_cases(subdir_file: str, load: Callable[[Path], Sequence[T]],
                 ids: Callable[[T], str] | None = None) -> list[Any]:
    """Cases loaded from one shared file (``load(path)``), as test parameters; one absent case otherwise."""
    path = SHARED / subdir_file
    if not path.exists():
        return [pytest.param(None, id=ABSENT)]
    cases = list(load(path))
    return [pytest.param(c, id=ids(c)) if ids else c for c in cases]


def shared_case(case: T | None, subdir_file: str) -> T:
    """``case`` itself, or a skip/fail (as :func:`require_shared`) when it stands for absent data."""
    if case is None:
        require_shared(subdir_file)
    assert case is not None
    return case
