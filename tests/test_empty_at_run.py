"""A dim that only the data settles (NonZero, NMS) can be 0 at run time: the ops after it give empty
outputs, as they do when the plan knows the dim is 0 (graphir.specialize), not a kernel's crash.
Found by tests/onnx_sweep.py: keypointrcnn with random weights keeps no box, and its keypoint head's
Convolution met a [0, 256, 14, 14] input. Checked against ONNX Runtime on a tiny ONNX graph."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import EmptyInputError
from graphir.model import Model

if os.environ.get("CI"):
    import onnx
    import onnxruntime
else:
    onnx = pytest.importorskip("onnx", reason="reading .onnx needs the onnx package (graphir[onnx])")
    onnxruntime = pytest.importorskip("onnxruntime", reason="the reference outputs need onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _selected_then_convolved(tmp_path: Path) -> Path:
    """x[n,3,5,5] -> the images whose max > 0.5 (NonZero, at most 100: a dim of [0, 100]) -> two Convs
    and a Relu; the second Conv runs after the first's failure was answered (the loop, not the
    compiled steps)."""
    rng = np.random.default_rng(1)
    consts = [numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w1"),
              numpy_helper.from_array(rng.standard_normal((2, 4, 3, 3)).astype(np.float32), "w2"),
              numpy_helper.from_array(np.asarray(0.5, np.float32), "t"),
              numpy_helper.from_array(np.asarray([0], np.int64), "zero"),
              numpy_helper.from_array(np.asarray([100], np.int64), "most")]
    nodes = [helper.make_node("ReduceMax", ["x"], ["m"], axes=[1, 2, 3], keepdims=0),
             helper.make_node("Greater", ["m", "t"], ["keep"]),
             helper.make_node("NonZero", ["keep"], ["where"]),
             helper.make_node("Squeeze", ["where", "zero"], ["flat"]),
             helper.make_node("Slice", ["flat", "zero", "most"], ["picked"]),
             helper.make_node("Gather", ["x", "picked"], ["images"], axis=0),
             helper.make_node("Conv", ["images", "w1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
             helper.make_node("Relu", ["c1"], ["r"]),
             helper.make_node("Conv", ["r", "w2"], ["y"], strides=[2, 2], name="conv2")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 5, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], consts)
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


@pytest.mark.parametrize("kept", [0, 2])
def test_convolutions_after_a_nonzero_that_keeps_nothing_give_empty_outputs(tmp_path: Path, kept: int) -> None:
    path = _selected_then_convolved(tmp_path)
    x = np.random.default_rng(2).uniform(-1.0, 0.4, (3, 3, 5, 5)).astype(np.float32)
    x[:kept, 0, 0, 0] = 2.0
    model = graphir.read_model(path)
    assert str(model.get_results()[0].inputs[0].partial_shape) == "[..100,2,2,2]"
    reference = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    assert reference.shape == (kept, 2, 2, 2)
    request = model.create_infer_request()
    for got in (model.run({"x": x})["y"], request.infer({"x": x})["y"], request.infer({"x": x})["y"]):
        assert got.shape == reference.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, reference, rtol=1e-5, atol=1e-5)


def test_an_output_with_elements_from_an_empty_input_is_still_refused_naming_the_node() -> None:
    """Only outputs that are empty themselves are answered: GatherElements' [2, 4] output cannot come
    from a [0, 4] input whose 0 the plan did not know."""
    x = opset.parameter([-1, 4], "f32", name="x")
    gather = opset.make("GatherElements", x, opset.constant(np.zeros((2, 4), np.int32)), axis=0, name="pick")
    model = Model([gather], [x.node])
    with pytest.raises(EmptyInputError, match=r"'pick' \(GatherElements-opset6\).*holds no elements"):
        model.run([np.zeros((0, 4), np.float32)])
