"""reduce: a planted failure in a 1,200-layer model brought down to the failing layer."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir.errors import GraphirError
from graphir.node import Node
from graphir.ops.openvino.core import Constant
from graphir.tools import compare
from graphir.tools.reduce import layers_of, reduce
from tests.tools.conftest import CORPUS, cli
from tests.tools.planted import plant


def clean_check(clean: graphir.model.Model):  # type: ignore[no-untyped-def]
    """A check "compare fails": the candidate against itself with the clean model's weights."""
    weights = {n.name: n.op for n in clean.get_ordered_ops() if isinstance(n.op, Constant)}

    def fails(candidate: graphir.model.Model) -> bool:
        reference = candidate.clone()
        for node in reference.get_ordered_ops():
            op = weights.get(node.name)
            if isinstance(node.op, Constant) and op is not None and not np.array_equal(node.op.value, op.value):
                reference.replace_all_uses_with(node.output(0), Node(Constant.from_array(op.value, op.element_type)).output(0))
        return compare(candidate, reference, progress=False).failed

    return fails


def test_planted_failure_in_1200_layers_reduces_to_its_layer(deep_ir: Path) -> None:
    model = graphir.read_model(deep_ir)
    assert len(layers_of(model)) == 1200
    bad, layer = plant(model, which=0.7)
    lines: list[str] = []
    result = reduce(bad, clean_check(model), log=lines.append, progress=False)
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
