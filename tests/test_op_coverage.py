"""scripts/op_coverage.py counts OpenVINO's op versions from the wheel's opset tables: 245 versions of
209 types in 2026.4 (the ``#define _OPENVINO_OP_REG(x, y)`` line is no entry)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.script_modules import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "op_coverage.py"


def _module():
    return load_script(SCRIPT, "op_coverage")


def test_reference_has_no_phantom_entries(ov) -> None:
    versions = _module().openvino_op_versions()
    names = {name for name, _ in versions}
    assert len(versions) == 245 and len(names) == 209
    assert not {"a", "x", "b", "y"} & names
    assert versions[("Select", "ov::op::v1")] == "opset1" and versions[("Gelu", "ov::op::v7")] == "opset7"


def test_report_lists_every_version_with_its_status(ov) -> None:
    out = subprocess.run([sys.executable, str(SCRIPT), "--list", "--per-opset"], capture_output=True, text=True,
                         check=True).stdout
    lines = [line.strip() for line in out.splitlines() if line.strip().endswith((": runs", ": defined", ": missing"))]
    assert len(lines) == 245
    assert "Select-opset1: runs" in lines and "RandomUniform-opset8: runs" in lines
    assert "of 245 in OpenVINO's opsets" in out.splitlines()[0]
    per_opset = [line for line in out.splitlines() if line.strip().startswith("opset") and " of " in line]
    assert sum(int(line.rsplit(" of ", 1)[1]) for line in per_opset) == 245
