"""Hostile input: every case of ``tests/hostile_cases.py`` (DTDs in UTF-8/16/32, huge counts and
dims, deep nesting, bad .bin offsets, mutated real IR and JSON files, runs that would allocate
terabytes, failing and killed saves) gives a correct result or a GraphirError subclass whose message
names the place and the rule, within the case's time and memory limits.

All cases run in one subprocess that forks a worker per case (3 at a time) with its own
``RLIMIT_AS``, ``RLIMIT_CPU`` and alarm; a worker that hangs or dies is reported as such.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests.hostile_cases import CASES, ROOT

#: the longest message any error may have (GraphirError clips at 4,000 characters)
MAX_MESSAGE = 4100


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    workdir = tmp_path_factory.mktemp("hostile")
    out = workdir / "outcomes.json"
    env = {k: v for k, v in os.environ.items() if k != "GRAPHIR_MAX_TENSOR_BYTES"}
    env["OPENBLAS_NUM_THREADS"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-m", "tests.hostile_cases", str(out), str(workdir)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(name: str, outcomes: dict[str, Any]) -> None:
    case = CASES[name]
    outcome = outcomes[name]
    got, message = outcome["class"], outcome["message"]
    detail = f"{name}: {got}: {message[:2000]}\n{outcome.get('traceback', '')}"
    if got != "ok":
        assert outcome.get("graphir"), f"not a GraphirError: {detail}"
        assert outcome["message_length"] <= MAX_MESSAGE, f"message of {outcome['message_length']:,} characters"
    assert got == case.expect, detail
    for fragment in case.fragments:
        assert fragment in message, f"{fragment!r} missing: {detail}"
    assert outcome["seconds"] <= case.seconds, detail
