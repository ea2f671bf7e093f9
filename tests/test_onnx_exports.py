"""Real ONNX exports (tests/gen_onnx_fixtures.py: torch.onnx.export, opset 17) read by graphir: every
layer's type and shape as OpenVINO's ONNX frontend infers it, outputs within tolerance of ONNX Runtime and
OpenVINO, and ``graphir convert m.onnx m.xml`` giving IR that OpenVINO runs to the .onnx's outputs."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir.cli import main
from tests.onnx_layers import layer_differences

if os.environ.get("CI"):
    import onnx
    import onnxruntime
else:
    onnx = pytest.importorskip("onnx", reason="reading .onnx needs the onnx package (graphir[onnx])")
    onnxruntime = pytest.importorskip("onnxruntime", reason="the reference outputs need onnxruntime")
ov = pytest.importorskip("openvino")

FIXTURES = Path(__file__).parent / "fixtures" / "onnx"
FILES = sorted(p.name for p in FIXTURES.glob("*.onnx"))
#: the inputs each export is run on (a batch of 2 where the batch dim is dynamic)
SHAPES = {"cnn.onnx": (2, 3, 16, 16), "cnn_external.onnx": (2, 3, 16, 16), "encoder.onnx": (2, 7),
          "misc.onnx": (2, 8), "mobilenet_v3_small.onnx": (2, 3, 64, 64)}
#: Hugging Face models from tiny random configs (batch and sequence dynamic): (batch, sequence)
HUGGING_FACE = {"hf_bert.onnx": (2, 7), "hf_gpt2.onnx": (2, 7), "hf_llama.onnx": (2, 7)}


def _inputs(name: str, sizes: tuple[int, int] | None = None) -> dict[str, np.ndarray]:
    """The feed by input name: token ids and a mask padding the second sequence's last two tokens
    for the Hugging Face exports, one seeded tensor named ``input`` for the others."""
    rng = np.random.default_rng(7)
    if name in HUGGING_FACE:
        batch, length = sizes or HUGGING_FACE[name]
        mask = np.ones((batch, length), np.int64)
        mask[1:, length - 2:] = 0
        return {"input_ids": rng.integers(0, 100, (batch, length)).astype(np.int64), "attention_mask": mask}
    return {"input": _input(name)}


def _input(name: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    if name == "encoder.onnx":
        return rng.integers(0, 50, SHAPES[name]).astype(np.int64)
    return rng.standard_normal(SHAPES[name]).astype(np.float32)


def _openvino_outputs(path: Path, feed: "np.ndarray | dict[str, np.ndarray]") -> list[np.ndarray]:
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(path)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled(feed)
    return [np.asarray(result[o]) for o in compiled.outputs]


def test_the_fixtures_are_there_and_small() -> None:
    assert FILES == sorted([*SHAPES, *HUGGING_FACE])
    assert all(p.stat().st_size < 600_000 for p in FIXTURES.iterdir())
    assert sum(p.stat().st_size for p in FIXTURES.iterdir()) < 1_500_000


@pytest.mark.parametrize("name", FILES)
def test_every_layer_has_openvinos_type_and_shape(name: str) -> None:
    path = FIXTURES / name
    compared, differ, layers = layer_differences(path, graphir.read_model(path), ov, onnx)
    assert differ == []
    assert compared >= 0.9 * layers, f"only {compared} of {layers} ONNX nodes were found by name in both"


@pytest.mark.parametrize("name", FILES)
def test_outputs_match_onnxruntime_and_openvino(name: str) -> None:
    _assert_outputs_match(FIXTURES / name, _inputs(name))


@pytest.mark.parametrize("name", sorted(HUGGING_FACE))
def test_hugging_face_exports_run_other_batch_and_sequence_sizes(name: str) -> None:
    """Batch and sequence are dynamic in these exports: 3 sequences of 11 tokens (two padded)."""
    _assert_outputs_match(FIXTURES / name, _inputs(name, (3, 11)))


def _assert_outputs_match(path: Path, feed: dict[str, np.ndarray]) -> None:
    model = graphir.read_model(path)
    ours = list(model.run(feed).values())
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    reference = session.run(None, feed)
    theirs = _openvino_outputs(path, feed)
    assert len(ours) == len(reference) == len(theirs)
    for a, b, c in zip(ours, reference, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.abs(b).max() > 1e-6  # the outputs compare something
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5)


def test_external_data_is_memory_mapped_not_copied() -> None:
    model = graphir.read_model(FIXTURES / "cnn_external.onnx")
    constants = [n.op for n in model.get_ordered_ops() if n.type_name == "Constant" and n.op.size > 1]
    mapped = [c.value for c in constants if isinstance(c.value, np.memmap)]
    assert mapped and all(Path(str(m.filename)).name == "cnn_external.onnx.data" for m in mapped)
    x = _input("cnn.onnx")
    inline = graphir.read_model(FIXTURES / "cnn.onnx")
    np.testing.assert_array_equal(list(model.run({"input": x}).values())[0],
                                  list(inline.run({"input": x}).values())[0])


@pytest.mark.parametrize("name", ["cnn.onnx", "encoder.onnx", "hf_llama.onnx"])
def test_convert_writes_ir_that_openvino_runs_as_the_onnx(name: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    xml = tmp_path / "m.xml"
    assert main(["convert", str(FIXTURES / name), str(xml)]) == 0
    assert "wrote" in capsys.readouterr().out
    x = _inputs(name)
    from_ir = _openvino_outputs(xml, x)
    from_onnx = _openvino_outputs(FIXTURES / name, x)
    for a, b in zip(from_ir, from_onnx):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_shapes_command_prints_the_onnx_layers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shapes", str(FIXTURES / "misc.onnx")]) == 0
    out = capsys.readouterr().out
    # the TopK is named after the model output it gives (15), as OpenVINO names it
    assert "/CumSum" in out and "CumSum-opset3" in out and "TopK-opset11          f32[?,3], i64[?,3]" in out
