"""The console script: ``graphir --version``, ``--help`` and ``graphir schema`` (subprocess tests)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

import graphir
from graphir.cli import main
from graphir.ops.openvino.select import Select


def _graphir(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed console script (the module when the script is not on PATH)."""
    script = shutil.which("graphir")
    command = [script] if script else [sys.executable, "-m", "graphir.cli"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=120)


def test_version() -> None:
    done = _graphir("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"graphir {graphir.__version__}"


def test_help_lists_the_subcommands() -> None:
    done = _graphir("--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: graphir")
    assert "schema" in done.stdout and "Print an op's JSON schema" in done.stdout
    assert "--version" in done.stdout


def test_no_command_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    captured = capsys.readouterr()
    assert "usage: graphir" in captured.out + captured.err


def test_schema_select_openvino_prints_the_pydantic_schema() -> None:
    done = _graphir("schema", "Select", "--dialect", "openvino")
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    meta = schema.pop("x-graphir")
    assert schema == json.loads(json.dumps(Select.model_json_schema()))
    assert schema["properties"]["auto_broadcast"]["enum"] == ["none", "numpy", "pdpd"]
    assert meta["dialect"] == "openvino" and meta["type"] == "Select" and meta["version"] == "opset1"
    assert [p["name"] for p in meta["inputs"]] == ["cond", "then", "else"]
    assert meta["inputs"][0]["types"] == ["boolean"] and meta["inputs"][1]["types"] is None
    assert [p["index"] for p in meta["inputs"]] == [0, 1, 2] and meta["outputs"][0]["name"] == "output"


def test_schema_other_dialects_versions_and_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "Select", "--dialect", "onednn"]) == 0
    assert json.loads(capsys.readouterr().out)["x-graphir"]["dialect"] == "onednn"
    assert main(["schema", "MaxPool", "--version", "opset13"]) == 0
    assert json.loads(capsys.readouterr().out)["x-graphir"]["version"] == "opset8"
    assert main(["schema", "Const"]) == 0
    meta = json.loads(capsys.readouterr().out)["x-graphir"]
    assert meta["type"] == "Constant" and meta["serialized_type_names"] == {"ir": "Const"}


def test_schema_unknown_op_is_a_one_line_error_with_a_suggestion() -> None:
    done = _graphir("schema", "Selcet")
    assert done.returncode == 2 and done.stdout == ""
    line = done.stderr.strip()
    assert line.startswith("graphir schema: error: unknown openvino op 'Selcet'; did you mean Select")
    assert "\n" not in line and "Traceback" not in done.stderr


def test_schema_bad_dialect_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "Select", "--dialect", "tflite"]) == 2
    assert "invalid choice: 'tflite'" in capsys.readouterr().err
