"""Shared test fixtures: the real OpenVINO runtime (differential tests) and data paths."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def ov():
    """The openvino package; differential tests skip with a clear reason when it is absent."""
    return pytest.importorskip(
        "openvino", reason="openvino is not installed: pip install -e '.[test]' to run differential tests"
    )


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared data not found at {SHARED}")
    return SHARED
