"""Shared test fixtures: the real OpenVINO runtime (differential tests) and data paths."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.shared_data import SHARED, require_shared  # noqa: F401 (SHARED re-exported)
from hypothesis import settings

# Property tests draw the same examples on every run (a failure reproduces; CI does not flip);
# set GRAPHIR_HYPOTHESIS_RANDOM=1 to explore new examples locally.
settings.register_profile("graphir", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("explore" if os.environ.get("GRAPHIR_HYPOTHESIS_RANDOM") else "graphir")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def ov():
    """The openvino package; differential tests skip with a clear reason when it is absent."""
    return pytest.importorskip(
        "openvino", reason="openvino is not installed: pip install -e '.[test]' to run differential tests"
    )


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared``: skips the test with one reason when absent, fails it when ``CI`` is set."""
    return require_shared()
