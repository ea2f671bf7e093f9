"""The run-time and per-layer-error overlays of ``graphir explorer-data`` on real corpus exports."""
from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir.cli import main

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"


def overlay(args: list[str], out: Path, graph: str) -> dict[str, float]:
    assert main(["explorer-data", *args, "-o", str(out)]) == 0
    return {k: v["value"] for k, v in json.loads(out.read_text())[graph]["results"].items()}


@pytest.mark.parametrize("stem", ["residual_block", "transformer_encoder", "lstm"])
def test_time_has_every_node_that_runs(stem: str, tmp_path: Path) -> None:
    path = CORPUS / f"{stem}.xml"
    model = graphir.read_model(path)
    inputs = dict(np.load(CORPUS / f"{stem}.npz"))
    ran = {str(r.id) for r in model.profile(list(inputs.values())).profile}
    times = overlay([str(path), "--time", "--inputs", str(CORPUS / f"{stem}.npz")], tmp_path / "t.json", stem)
    assert set(times) == ran and len(ran) >= 4
    assert all(v > 0 for v in times.values())
    by_id = {str(n.id): n.type_name for n in model.get_ordered_ops()}
    assert not {by_id[k] for k in times} & {"Parameter", "Constant", "Result"}
    random = overlay([str(path), "--time"], tmp_path / "r.json", stem)  # random inputs: the same nodes run
    assert set(random) == ran


def test_error_against_openvino_has_every_layer(tmp_path: Path) -> None:
    path = CORPUS / "residual_block.xml"
    model = graphir.read_model(path)
    errors = overlay([str(path), "--error"], tmp_path / "e.json", "residual_block")
    layers = {str(n.id) for n in model.get_ordered_ops() if n.type_name not in ("Parameter", "Constant", "Result")}
    assert set(errors) == layers
    assert all(0 <= v < 1e-4 for v in errors.values())


def perturbed_copy(tmp_path: Path, constant: str, delta: float) -> Path:
    """residual_block with one f32 weight of Constant ``constant`` changed by ``delta``."""
    xml = tmp_path / "perturbed.xml"
    shutil.copy(CORPUS / "residual_block.xml", xml)
    layer = next(el for el in ET.parse(xml).getroot().iter("layer") if el.get("name") == constant)
    offset = int(layer.find("data").get("offset"))  # type: ignore[union-attr]
    data = bytearray((CORPUS / "residual_block.bin").read_bytes())
    value = np.frombuffer(data, np.float32, 1, offset)[0]
    data[offset:offset + 4] = np.float32(value + delta).tobytes()
    (tmp_path / "perturbed.bin").write_bytes(bytes(data))
    return xml


def test_a_planted_weight_error_shows_at_its_layer(tmp_path: Path) -> None:
    model = graphir.read_model(CORPUS / "residual_block.xml")
    ids = {n.name: str(n.id) for n in model.get_ordered_ops()}
    # the second convolution's weights: conv1, its batch-norm Add and Relu run upstream of it
    bad = perturbed_copy(tmp_path, "Multiply_11280", 0.5)
    given = ["--inputs", str(CORPUS / "residual_block.npz")]  # 10x10 (random inputs take the smallest size, 1x1)
    errors = overlay([str(bad), "--error", str(CORPUS / "residual_block.xml"), *given], tmp_path / "e.json", "perturbed")
    conv2 = errors[ids["Multiply_11267"]]
    assert conv2 > 0.01
    for upstream in ("Multiply_11257", "__module.b1/aten::batch_norm/BatchNormInference", "aten::relu/Relu"):
        assert errors[ids[upstream]] == 0.0
    assert max(errors.values()) == pytest.approx(conv2, rel=1e-5)
    assert errors[ids["__module.b2/aten::batch_norm/BatchNormInference"]] == pytest.approx(conv2, rel=1e-5)
    counts = overlay([str(bad), "--mismatches", str(CORPUS / "residual_block.xml"), *given], tmp_path / "m.json", "perturbed")
    assert counts[ids["Multiply_11257"]] == 0 and counts[ids["Multiply_11267"]] > 0
    # one weight of one output channel reaches at most one channel's 10x10 positions
    assert counts[ids["Multiply_11267"]] <= 100


def test_a_missing_reference_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explorer-data", str(CORPUS / "residual_block.xml"), "--error", str(tmp_path / "no.xml"),
                 "-o", str(tmp_path / "e.json")]) == 2
    assert f"{tmp_path / 'no.xml'}: no such file" in capsys.readouterr().err
