"""graphir's side of ONNX's backend node tests, held against tests/onnx_backend/known_failures.json.

Every case runs (about 1,900; ~1.5 min on one core). A case failing that is not in the list fails the
test, and so does a listed case that now passes (take it out: the list may only shrink). The full side
by side with OpenVINO is tests/onnx_backend/run_node_tests.py.
"""
from __future__ import annotations

import json
import os

import pytest

from tests.onnx_backend import node_cases as nc

if os.environ.get("CI"):
    import onnx  # noqa: F401 - required under CI (the test extra installs it)
else:
    pytest.importorskip("onnx", reason="the ONNX node tests need the onnx package (graphir[onnx])")


@pytest.fixture(scope="module")
def cases() -> list:
    return nc.load_cases()


@pytest.fixture(scope="module")
def outcomes(cases: list) -> dict[str, nc.Outcome]:
    return dict(nc.iter_outcomes(cases, nc.graphir_engine))


@pytest.fixture(scope="module")
def known() -> dict[str, str]:
    return json.loads(nc.KNOWN_FAILURES.read_text())


def test_every_known_failure_is_a_case_with_a_reason(cases: list, known: dict[str, str]) -> None:
    names = {c.name for c in cases}
    assert sorted(set(known) - names) == []
    assert [name for name, reason in known.items() if not reason.strip()] == []


def test_no_case_fails_outside_the_known_list(outcomes: dict[str, nc.Outcome], known: dict[str, str]) -> None:
    new = {name: o.reason for name, o in outcomes.items() if not o.ok and name not in known}
    assert new == {}, f"{len(new)} node test(s) fail that are not in {nc.KNOWN_FAILURES.name}"


def test_known_failures_still_fail(outcomes: dict[str, nc.Outcome], known: dict[str, str]) -> None:
    fixed = sorted(name for name in known if outcomes[name].ok)
    assert fixed == [], f"these now pass: remove them from {nc.KNOWN_FAILURES.name}: {fixed}"


def test_most_cases_pass(outcomes: dict[str, nc.Outcome]) -> None:
    # a floor well under today's count: a reader that broke wholesale fails here first, with a clear count
    assert sum(o.ok for o in outcomes.values()) >= 1200
