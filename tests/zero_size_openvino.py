"""OpenVINO CPU's outcome for each zero-size case of tests/test_zero_size_dims.py, in a child process:
OpenVINO 2026.4 dies (SIGFPE) compiling some of these models, so the cases run in a child that
writes one JSON line per case as it goes; when it dies, the parent records that case as a crash of
OpenVINO's and starts a new child at the next case.

Child: ``python -m tests.zero_size_openvino OUT START`` (runs the openvino-dialect cases from START).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def outcomes(directory: Path, count: int) -> dict[int, Any]:
    """Case index -> OpenVINO CPU's output shapes (a list), "refused" or "crashed"."""
    out = directory / "openvino.jsonl"
    found: dict[int, Any] = {}
    crashes: list[int] = []
    start = 0
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    while start < count:
        proc = subprocess.run([sys.executable, "-m", "tests.zero_size_openvino", str(out), str(start)], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=900)
        for line in out.read_text().splitlines() if out.exists() else []:
            record = json.loads(line)
            found[record["index"]] = record["outcome"]
        found.update({i: "crashed" for i in crashes})
        if proc.returncode == 0:
            break
        last = max((i for i in found if i >= start), default=start - 1)
        crashed = last if found.get(last) == "started" else last + 1  # the case the child died on
        crashes.append(crashed)
        found[crashed] = "crashed"
        start = crashed + 1
    return found


def _child(out: Path, start: int) -> None:
    import numpy as np
    import openvino as ov

    import graphir
    from graphir.errors import GraphirError
    from tests.test_zero_size_dims import OPENVINO_CASES, build

    core = ov.Core()
    with out.open("a") as f, tempfile.TemporaryDirectory() as tmp:
        for index in range(start, len(OPENVINO_CASES)):
            key, _, axis = OPENVINO_CASES[index]
            outcome: Any = "not built"
            built = build(key, axis)
            if not isinstance(built, GraphirError):
                model, values, _ = built
                path = Path(tmp) / f"case{index}.xml"
                try:
                    graphir.save_model(model, str(path))
                except GraphirError:
                    outcome = "not saved"
                else:
                    f.write(json.dumps({"index": index, "outcome": "started"}) + "\n")
                    f.flush()
                    try:
                        compiled = core.compile_model(core.read_model(str(path)), "CPU")
                        outcome = [list(np.shape(v)) for v in compiled(values).values()]
                    except Exception:  # noqa: BLE001 - any refusal of OpenVINO's
                        outcome = "refused"
            f.write(json.dumps({"index": index, "outcome": outcome}) + "\n")
            f.flush()


if __name__ == "__main__":
    _child(Path(sys.argv[1]), int(sys.argv[2]))
