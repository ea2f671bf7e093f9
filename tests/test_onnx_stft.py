"""ONNX STFT (torch.stft exports it, opset 17) read as OpenVINO's frontend reads it: one Slice/window/DFT
per frame, the frames concatenated. Values checked against ONNX Runtime and OpenVINO on tiny graphs."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir.errors import SerializationError

if os.environ.get("CI"):
    import onnx
    import onnxruntime
else:
    onnx = pytest.importorskip("onnx", reason="reading .onnx needs the onnx package (graphir[onnx])")
    onnxruntime = pytest.importorskip("onnxruntime", reason="the reference outputs need onnxruntime")
ov = pytest.importorskip("openvino")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _stft(tmp_path: Path, signal: list[Any], step: int, window: np.ndarray | None, length: int | None,
          onesided: int | None) -> Path:
    consts = [numpy_helper.from_array(np.asarray(step, np.int64), "step")]
    inputs = ["x", "step", "", ""]
    if window is not None:
        consts.append(numpy_helper.from_array(window.astype(np.float32), "window"))
        inputs[2] = "window"
    if length is not None:
        consts.append(numpy_helper.from_array(np.asarray(length, np.int64), "length"))
        inputs[3] = "length"
    while inputs[-1] == "":
        inputs.pop()
    node = helper.make_node("STFT", inputs, ["y"], name="stft")
    if onesided is not None:
        node.attribute.append(helper.make_attribute("onesided", onesided))
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, signal)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], consts)
    path = tmp_path / "stft.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


CASES: dict[str, tuple[list[Any], int, Any, int | None, int | None]] = {
    # torch.stft's export: a [batch, length] signal, a Hann window, onesided
    "rank2_window": ([2, 40], 4, np.hanning(16), None, 1),
    "real_length_twosided": ([1, 23, 1], 5, None, 8, 0),
    "real_window_default_onesided": ([3, 17, 1], 3, np.arange(1.0, 7.0), 6, None),
    "complex_window": ([2, 19, 2], 6, np.linspace(0.5, 1.5, 9), 9, 0),
    "one_frame": ([1, 8, 1], 3, None, 8, 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_stft_matches_onnxruntime_and_openvino(case: str, tmp_path: Path) -> None:
    shape, step, window, length, onesided = CASES[case]
    path = _stft(tmp_path, shape, step, None if window is None else np.asarray(window), length, onesided)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    model = graphir.read_model(path)
    ours = model.run({"x": x})["y"]
    reference = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    assert ours.shape == reference.shape
    assert str(model.get_results()[0].inputs[0].partial_shape) == str(list(ours.shape)).replace(" ", "")
    np.testing.assert_allclose(ours, reference, rtol=1e-4, atol=1e-4)
    if len(shape) == 2:  # OpenVINO's frontend refuses a rank-2 signal written so (ORT runs it)
        return
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(path)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    theirs = compiled({"x": x})[compiled.outputs[0]]
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


def test_a_frame_longer_than_the_signal_is_an_error_naming_the_node(tmp_path: Path) -> None:
    path = _stft(tmp_path, [1, 6, 1], 2, None, 8, 1)
    with pytest.raises(SerializationError, match=r"ONNX node 'stft' \(STFT.*frame_length 8 .* length 6"):
        graphir.read_model(path)


def test_a_dynamic_signal_length_is_refused_naming_the_node(tmp_path: Path) -> None:
    path = _stft(tmp_path, [1, "n", 1], 2, None, 4, 1)
    with pytest.raises(SerializationError, match=r"ONNX node 'stft' \(STFT.*static length is not supported"):
        graphir.read_model(path)
