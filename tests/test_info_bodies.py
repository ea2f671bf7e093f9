"""`graphir info` looks inside subgraph bodies for ops graphir cannot run."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from graphir.cli import main

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "ir" / "control_flow" / "if_shapes.xml"


def test_an_unknown_op_inside_an_if_body_is_reported(tmp_path: Path, capsys) -> None:
    xml = tmp_path / "if_fancy.xml"
    text = FIXTURE.read_text()
    assert text.count('name="Add_162" type="Add" version="opset1"') == 1
    # an extension's op (a standard opset must name one of its ops: "Opset opset1 doesn't contain...")
    xml.write_text(text.replace('name="Add_162" type="Add" version="opset1"',
                                'name="Add_162" type="FancyAdd" version="my_extension"'))
    shutil.copy(FIXTURE.with_suffix(".bin"), xml.with_suffix(".bin"))

    assert main(["info", str(xml), "--json"]) == 0
    blocked = json.loads(capsys.readouterr().out)["not_runnable"]
    assert [(b["name"], b["type"]) for b in blocked] == [("If_168", "If")]
    assert "'Add_162' (FancyAdd-my_extension)" in blocked[0]["reason"]


def test_a_fully_known_if_body_is_runnable(capsys) -> None:
    assert main(["info", str(FIXTURE), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["not_runnable"] == []
