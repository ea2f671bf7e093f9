"""``graphir info`` lists a stateful model's variables; ``graphir run`` runs one step and says so."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphir.cli import main

GROW = Path(__file__).resolve().parent / "fixtures" / "llm" / "variables" / "grow.xml"
LLAMA = Path(__file__).resolve().parent / "fixtures" / "llm" / "llama-fp32" / "openvino_model.xml"


def test_info_lists_the_variables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(GROW)]) == 0
    out = capsys.readouterr().out
    assert "Variables (2; state carried between steps by an infer request):" in out
    assert "  k   f32   [?,3]  1" in out and "  w   i32   [?,3]  1" in out
    assert main(["info", str(GROW), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["variables"] == [{"id": "k", "type": "f32", "shape": "[?,3]", "writers": 1},
                                 {"id": "w", "type": "i32", "shape": "[?,3]", "writers": 1}]


def test_run_on_a_stateful_model_runs_one_step_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(LLAMA), "--random"]) == 0
    captured = capsys.readouterr()
    assert "stateful model: ran one step from the initial state of its 4 variable(s)" in captured.err
    assert "logits  f32   [1,16,256]" in captured.out  # 16 tokens: the default for a dynamic dim past the batch


def test_a_stateless_model_says_nothing_about_state(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(LLAMA.parent.parent / "llama-stateless" / "openvino_model.xml"), "--random"]) == 0
    assert "stateful" not in capsys.readouterr().err
