"""reduce: a planted failure in a 1,200-layer model brought down to the failing layer."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import graphir
from graphir.errors import GraphirError
from graphir.tools.reduce import layers_of, reduce
from tests.tools.conftest import CORPUS, cli
from tests.tools.planted import differs_from_clean, plant


def test_planted_failure_in_1200_layers_reduces_to_its_layer(deep_ir: Path) -> None:
    model = graphir.read_model(deep_ir)
    assert len(layers_of(model)) == 1200
    bad, layer = plant(model, which=0.7)
    lines: list[str] = []
    result = reduce(bad, differs_from_clean(model), log=lines.append, progress=False)
    assert result.layers_before == 1200
    assert result.layers == [layer]  # at most 3 asked; the bisection finds the one
    assert lines[0] == "whole model: 1200 layers, check fails"
    assert lines[-1].startswith("reduced 1200 -> 1 layers: ")
    assert len(result.steps) <= 2 * 11 + 1 and all({"phase", "layers", "fails"} <= set(s) for s in result.steps)
    assert [p.output_types[0].shape.to_shape() for p in result.model.get_parameters()] == [(2, 16)]


def test_shell_command_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The check exits 1 while the candidate still holds a given layer: reduce keeps just it."""
    model = graphir.read_model(CORPUS / "transformer_encoder.xml")
    target = layers_of(model)[20]
    script = tmp_path / "check.py"
    script.write_text("import sys\nsys.exit(1 if sys.argv[2] in open(sys.argv[1]).read() else 0)\n")
    status, out, _ = cli(capsys, "reduce", str(CORPUS / "transformer_encoder.xml"), "--check",
                         f"{sys.executable} {script} {{model}} '{target.name}'", "-o", str(tmp_path / "small.xml"))
    assert status == 0
    small = graphir.read_model(tmp_path / "small.xml")
    assert [n.name for n in layers_of(small)] == [target.name]
    assert "whole model: 60 layers, check fails" in out and "check passes" in out


def test_a_check_that_passes_on_the_whole_model_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(GraphirError, match="the check passes on the whole model; nothing to reduce"):
        reduce(CORPUS / "mlp.xml", lambda m: False, log=None)
