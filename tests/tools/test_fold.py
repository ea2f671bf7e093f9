"""fold: constant subgraphs folded, equal constants shared, dead nodes dropped; outputs bit-identical."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir.ops.openvino.core import Constant
from graphir.tools.fold import constant_bytes, fold
from graphir.tools._common import model_inputs
from tests.tools.conftest import CORPUS, CORPUS_FILES, FIXTURES, TORCHVISION, TORCHVISION_FILES, cli, corpus_inputs

FILES = [CORPUS / n for n in CORPUS_FILES] + [TORCHVISION / n for n in TORCHVISION_FILES]


def assert_bit_identical(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert list(a) == list(b)
    for key in a:
        assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape, key
        assert np.ascontiguousarray(a[key]).tobytes() == np.ascontiguousarray(b[key]).tobytes(), key


def real_bytes(model: graphir.model.Model) -> int:
    return constant_bytes([n for n in model.get_ordered_ops()
                           if isinstance(n.op, Constant) and n.op.element_type.is_real])


@pytest.mark.parametrize("static", [False, True], ids=["as-exported", "static-shapes"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_outputs_bit_identical_and_openvino_reads_the_folded_file(path: Path, static: bool, tmp_path: Path,
                                                                  ov: object) -> None:
    model = graphir.read_model(path)
    feeds, _ = model_inputs(model, corpus_inputs(path))
    folded, report = fold(model, shapes={k: v.shape for k, v in feeds.items()} if static else None, progress=False)
    assert_bit_identical(model.run(feeds), folded.run(feeds))
    assert report.nodes_after == len(folded.get_ordered_ops()) <= report.nodes_before == len(model.get_ordered_ops())
    assert report.constant_bytes_after == constant_bytes(folded.get_ordered_ops())
    # weights never grow (f16 stays f16); what folds may add small constants (shapes, zero states)
    assert real_bytes(folded) <= real_bytes(model) + 1024
    assert report.constant_bytes_after <= report.constant_bytes_before + 1024
    graphir.save_model(folded, tmp_path / "folded.xml")
    import openvino

    core = openvino.Core()
    compiled = core.compile_model(core.read_model(tmp_path / "folded.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled([feeds[p.name] for p in model.get_parameters()])
    expected = model.run(feeds)
    for got, key in zip(results.values(), expected):
        np.testing.assert_allclose(got, expected[key], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["gpt2-int4asym", "gpt2-int8", "llama-fp16"])
def test_compressed_llm_exports_stay_bit_identical(name: str, ov: object) -> None:
    """Weight decompression subgraphs (u4/u8 weights, zero points, f16 scales) are kept as they are:
    the run computes them as a whole (in f32, as OpenVINO does), which op by op folding would not."""
    model = graphir.read_model(FIXTURES / "llm" / name / "openvino_model.xml")
    feeds, _ = model_inputs(model)
    folded, report = fold(model, progress=False)
    assert_bit_identical(model.run(feeds), folded.run(feeds))
    assert report.shared > 0 and report.constant_bytes_after < report.constant_bytes_before
    kept = {str(n.op.element_type) for n in folded.get_ordered_ops() if isinstance(n.op, Constant)}
    original = {str(n.op.element_type) for n in model.get_ordered_ops() if isinstance(n.op, Constant)}
    assert kept == original  # no weight decompressed into the file


def test_static_shapes_fold_the_shape_subgraphs_of_a_transformer() -> None:
    model = graphir.read_model(CORPUS / "transformer_encoder.xml")
    folded, report = fold(model, shapes={"x": [2, 6, 32], "pad_mask": [2, 6]}, progress=False)
    kinds = [n.type_name for n in folded.get_ordered_ops()]
    assert "ShapeOf" in [n.type_name for n in model.get_ordered_ops()] and "ShapeOf" not in kinds
    assert (report.nodes_before, report.nodes_after, report.folded, report.shared) == (107, 67, 21, 6)
    dynamic, kept = fold(model, progress=False)
    assert "ShapeOf" in [n.type_name for n in dynamic.get_ordered_ops()] and kept.folded == 0


def test_equal_constants_are_shared_and_compressed_weights_stay_compressed() -> None:
    model = graphir.read_model(TORCHVISION / "shufflenet_v2_x0_5.xml")
    folded, report = fold(model, progress=False)
    constants = [n for n in folded.get_ordered_ops() if isinstance(n.op, Constant)]
    digests = {(str(c.op.element_type), tuple(c.op.shape), c.op.value.tobytes()) for c in constants}  # type: ignore[attr-defined]
    assert len(digests) == len(constants) and report.shared > 0
    assert sum(1 for c in constants if str(c.op.element_type) == "f16") == \
           sum(1 for n in model.get_ordered_ops() if isinstance(n.op, Constant) and str(n.op.element_type) == "f16")


def test_input_model_unchanged() -> None:
    model = graphir.read_model(CORPUS / "gru.xml")
    before = [(n.name, n.type_name) for n in model.get_ordered_ops()]
    fold(model, shapes={"x": [2, 5, 8]}, progress=False)
    assert [(n.name, n.type_name) for n in model.get_ordered_ops()] == before


def test_cli_reports_before_and_after(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "fold", str(CORPUS / "transformer_encoder.xml"), "-s", "x=[2,6,32]",
                         "-s", "pad_mask=[2,6]", "-o", str(tmp_path / "f.xml"), "--json")
    data = json.loads(out)
    assert status == 0 and data["nodes_before"] == 107 and data["nodes_after"] == 67
    status, out, _ = cli(capsys, "fold", str(CORPUS / "gru.xml"), "-s", "[2,5,8]", "-o", str(tmp_path / "g.xml"))
    assert status == 0 and out.splitlines()[0] == f"wrote {tmp_path / 'g.xml'}"
    assert "nodes           35      20" in out
    status, _, err = cli(capsys, "fold", str(CORPUS / "gru.xml"), "-s", "x=[?,5,8]", "-o", str(tmp_path / "h.xml"))
    assert status == 2 and "give every dim a size" in err
