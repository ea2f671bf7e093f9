"""diff: nodes added/removed, attributes, types/shapes, weights by digest; by name, then by structure."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import graphir
from graphir.tools import diff
from graphir.tools.fold import fold
from tests.tools.conftest import CORPUS, TORCHVISION, cli
from tests.tools.planted import plant, weight_consumers


def test_a_model_against_itself_is_the_same() -> None:
    result = diff(TORCHVISION / "squeezenet1_1.xml", TORCHVISION / "squeezenet1_1.xml")
    assert result.same and result.matched_by_name == result.nodes_before == 121


def test_a_changed_weight_is_found_by_digest() -> None:
    model = graphir.read_model(CORPUS / "residual_block.xml")
    bad, _ = plant(model)
    weight = weight_consumers(model)[len(weight_consumers(model)) // 2][0]
    result = diff(model, bad)
    assert [(c.node, c.kind) for c in result.changes] == [(weight.name, "weights")]
    assert not result.added and not result.removed


def test_renamed_nodes_match_by_structure() -> None:
    model = graphir.read_model(CORPUS / "cnn_bn_pool.xml")
    renamed = model.clone()
    for i, node in enumerate(renamed.get_ordered_ops()):
        if node.type_name != "Parameter":
            node.set_friendly_name(f"renamed_{i}")
    result = diff(model, renamed)
    assert result.matched_by_name == 1  # the input
    assert result.matched_by_structure == len(model.get_ordered_ops()) - 1
    assert not result.added and not result.removed
    assert {c.kind for c in result.changes} == {"name"}


def test_folded_model_removed_nodes_and_static_types() -> None:
    model = graphir.read_model(CORPUS / "gru.xml")
    folded, report = fold(model, shapes={"x": [2, 5, 8]}, progress=False)
    result = diff(model, folded)
    assert len(result.removed) >= report.nodes_before - report.nodes_after
    assert {t for _, t in result.removed} >= {"ShapeOf", "Gather"}
    shape_changes = [c for c in result.changes if c.kind == "attribute" and c.what == "shape"]
    assert [(c.node, c.before, c.after) for c in shape_changes] == [("x", "[?,?,?]", "[2,5,8]")]
    assert any(c.kind == "output" and c.before == "f32[?,3]" and c.after == "f32[2,3]" for c in result.changes)


def test_compressed_copy_shows_the_decompression_converts() -> None:
    result = diff(CORPUS / "mlp.xml", CORPUS / "mlp_fp16.xml")
    assert all(t == "Constant" for _, t in result.added) and len(result.added) == 6
    assert {(c.kind, c.before, c.after) for c in result.changes} == {("type", "Constant-opset1", "Convert-opset1")}


def test_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, _ = cli(capsys, "diff", str(CORPUS / "mlp.xml"), str(CORPUS / "mlp_fp16.xml"))
    assert status == 0 and out.startswith("nodes 17 -> 23; matched 17 by name, 0 by structure; 0 removed, 6 added")
    status, out, _ = cli(capsys, "diff", str(CORPUS / "mlp.xml"), str(CORPUS / "mlp.xml"), "--json")
    assert status == 0 and json.loads(out)["changes"] == []
