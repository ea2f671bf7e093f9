"""``graphir run --random`` picks input sizes each network accepts, and a run reports a shape
problem at the node where it arises.

Every network under tests/fixtures (the corpus, the IR fixtures, the stateful LLM exports, and
torchvision classifiers and a segmenter converted by OpenVINO with dynamic dims:
tests/gen_torchvision_fixtures.py) runs with
``--random``; the sizes chosen are asserted, and the outputs on those inputs are compared with
OpenVINO CPU on the same inputs (the model reshaped to the chosen sizes).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.cli import main
from graphir.commands.arrays import load_npz, read_member
from graphir.commands.run import gather_inputs, recorded_dims
from graphir.errors import InferenceError
from graphir.input_sizes import InputSizeError, choose_input_shapes
from tests.tolerances import assert_close

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: an extension op graphir does not implement (loaded as an opaque layer): it cannot run here
NOT_RUNNABLE = {"ir/unknown_op.xml"}
#: torchvision detectors with dynamic N/H/W (shapes: tests/test_torchvision_shapes.py): on random
#: weights many scores tie or sit ulps apart, so NMS/TopK order their detections differently from
#: OpenVINO CPU's (tests/detectors/test_torchvision_detectors.py matches detections instead)
NOT_COMPARED_ROW_FOR_ROW = "torchvision_detectors"
NETWORKS = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*.xml")
                  if str(p.relative_to(FIXTURES)) not in NOT_RUNNABLE
                  and p.parent.name != NOT_COMPARED_ROW_FOR_ROW)

#: the sizes --random chooses where a dim is dynamic (the rest of the fixtures are static)
EXPECTED_SIZES = {
    # the defaults first (graphir.input_sizes.default_size): an image's height and width 224, a
    # batch 1, any other dynamic dim 16; then the smallest size the model accepts
    "corpus/cnn_bn_pool.xml": [(1, 3, 224, 224)],
    "corpus/depthwise_separable.xml": [(1, 8, 16, 16)],  # [?,?,?,?]: the grouped conv wants 8 channels
    "corpus/dynamic_batch.xml": [(1, 12)],
    "corpus/embedding_layernorm.xml": [(1, 1)],
    "corpus/encoder_decoder.xml": [(1, 3, 224, 224)],
    "corpus/gru.xml": [(1, 16, 8)],  # X's input_size must match W's columns (a run-time check)
    "corpus/lstm.xml": [(1, 16, 8)],
    "corpus/masked_attention.xml": [(1, 16, 16), (1, 16, 16)],
    "corpus/mlp.xml": [(1, 16)],  # [?,?] into Linear(16, 32)
    "corpus/residual_block.xml": [(1, 8, 16, 16)],
    "corpus/shape_ops.xml": [(1, 8, 16)],  # split_with_sizes [2, 6] along dim 1
    "corpus/transformer_encoder.xml": [(1, 16, 32), (1, 16)],
    "ir/control_flow/ti_parts.xml": [(6, 16), (1, 16)],
    "ir/control_flow/torch_if.xml": [(1, 16)],
    "ir/control_flow/torch_loop.xml": [(1, 16), ()],
    "ir/dynamic.xml": [(1, 1, 16, 1, 3), (), (1, 1, 16, 1, 3)],  # inside the intervals; [...] becomes a scalar
    "ir/torch_cnn.xml": [(1, 3, 224, 224)],
    "ir/torch_mlp.xml": [(1, 6)],
    "torchvision/squeezenet1_1.xml": [(1, 3, 224, 224)],
    "torchvision/shufflenet_v2_x0_5.xml": [(1, 3, 224, 224)],  # [?,?,?,?]: channels found to be 3
    "torchvision/mobilenet_v3_small.xml": [(1, 3, 224, 224)],
    "torchvision/lraspp_mobilenet_v3_small.xml": [(1, 3, 224, 224)],
}


def test_every_network_is_covered() -> None:
    assert len(NETWORKS) >= 100 and any(n.startswith("torchvision/") for n in NETWORKS)
    assert sum(n.startswith("llm/") for n in NETWORKS) >= 50  # the stateful LLM exports
    for name in EXPECTED_SIZES:
        assert name in NETWORKS or name.replace(".xml", "_fp16.xml") in NETWORKS


@pytest.mark.parametrize("name", NETWORKS)
def test_random_run_on_every_network_matches_openvino(name: str, tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    path = FIXTURES / name
    out = tmp_path / "out.npz"
    # compared with OpenVINO CPU: its numerics (decompression in f32, TopK orders, oneDNN exp)
    assert main(["run", str(path), "--random", "--output", str(out), "--numerics", "openvino-cpu"]) == 0
    model = graphir.read_model(path)
    shapes = choose_input_shapes(model, recorded_dims(str(path), model))
    expected = EXPECTED_SIZES.get(name.replace("_fp16.xml", ".xml"))
    if expected is not None:
        assert shapes == expected
    for param, shape in zip(model.get_parameters(), shapes):  # every network: sizes its inputs allow
        assert param.op.shape.compatible_with_shape(shape)
        if param.op.shape.is_static:
            assert shape == tuple(param.op.shape.to_shape())
    values = gather_inputs(model, [], True, 0, recorded=recorded_dims(str(path), model))
    assert [values[i].shape for i in range(len(values))] == shapes
    targets = [None if str(r.output_types[0].element_type) == "string" else np.dtype(r.output_types[0].element_type.numpy_dtype)
               for r in model.get_results()]
    ours = {key: read_member(data, target, key) for (key, data), target in zip(load_npz(str(out)).items(), targets)}
    if name == "ir/consts.xml":  # Consts of every element type straight into Results: OpenVINO CPU
        # refuses to return its packed sub-byte outputs ("Output tensor byte size is not equal model
        # output byte size (2!=10)"), so the outputs are compared with the constants themselves
        for value, result in zip(ours.values(), model.get_results()):
            np.testing.assert_array_equal(value, np.asarray(result.inputs[0].node.op.value).astype(value.dtype))
        return
    reference = ov.Core().read_model(str(path))
    if reference.inputs:
        reference.reshape({port: ov.PartialShape(list(shape)) for port, shape in zip(reference.inputs, shapes)})
    config = {"INFERENCE_PRECISION_HINT": "f32",
              "KV_CACHE_PRECISION": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}  # exact f32 for the LLMs' steps
    if name == "ir/select_pdpd.xml":  # a pdpd Select compiles only with snippets off (which moves the
        config["SNIPPETS_MODE"] = "DISABLE"  # stateless Llama's logits by up to 5e-3: only where needed)
    compiled = ov.Core().compile_model(reference, "CPU", config)
    theirs = compiled([values[i] for i in range(len(values))])
    assert len(ours) == len(compiled.outputs)
    for ours_value, port in zip(ours.values(), compiled.outputs):
        assert_close(ours_value, theirs[port], ours_value.dtype)


def test_an_opaque_layer_is_reported_not_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(FIXTURES / "ir/unknown_op.xml"), "--random"]) == 1
    assert capsys.readouterr().err == (
        "random input 'x': f32[1,1,4,4] (seed 0)\n"  # what --random fed, before the error
        "graphir run: error: layer id=2 name='CustomImagePatches_111' type=CustomImagePatches version=extension: "
        "graphir does not implement this op, so it cannot run (it was loaded opaquely; its recorded outputs are "
        "f32[1,4,2,2])\n")


def _reshaping_model() -> graphir.Model:
    """x [?] reshaped to [5,7]: only 35 elements fit, a size neither recorded nor tried."""
    x = opset.parameter("[?]", "f32", name="x")
    y = opset.reshape(x, opset.constant(np.array([5, 7], np.int64)), special_zero=False)
    return graphir.Model([y], [x], name="r")


def test_a_dim_that_cannot_be_chosen_is_a_named_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _reshaping_model()
    reshape = model.get_results()[0].inputs[0].node
    with pytest.raises(InputSizeError) as info:
        choose_input_shapes(model)
    assert str(info.value) == (
        "input 'x' [?]: cannot choose a size for dim 0 that the model accepts (tried 15 sizes from 1 to 4096; "
        f"with 1: {reshape.describe()}, inputs (f32[1], i64[2]): openvino::Reshape-opset1: Requested output shape "
        "[5,7] is incompatible with input shape [1]); give the shape with --shape x=[N]")
    graphir.save_model(model, tmp_path / "r.xml")
    assert main(["run", str(tmp_path / "r.xml"), "--random"]) == 2
    assert "give the shape with --shape x=[N]" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "r.xml"), "--random", "--shape", "x=[35]", "--json"]) == 0
    assert '"shape": [\n      5,\n      7\n    ]' in capsys.readouterr().out


def test_the_sizes_a_file_records_come_first(tmp_path: Path) -> None:
    x = opset.parameter("[?,?]", "f32", name="x")
    model = graphir.Model([opset.relu(x)], [x])
    assert choose_input_shapes(model) == [(1, 16)]  # the defaults: a batch of 1, other dims 16
    assert choose_input_shapes(model, {x.node.id: [[-1, 6], [3, -1]]}) == [(3, 6)]
    bounded = opset.parameter("[2..5,?]", "f32", name="b")
    assert choose_input_shapes(graphir.Model([opset.relu(bounded)], [bounded]), {bounded.node.id: [[9, 4]]}) == [(2, 4)]


def test_a_run_reports_the_node_where_a_shape_goes_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "corpus/cnn_bn_pool.xml"
    assert main(["run", str(path), "--random", "--shape", "x=[1,3,1,1]"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "graphir run: error: node 6 '__module.f.3/aten::max_pool2d/MaxPool' (MaxPool-opset14), inputs (f32[1,8,1,1]): "
        "openvino::MaxPool-opset14: kernel [2, 2] (dilations [1, 1]) does not fit the padded data along spatial "
        "axis 0: data [1,8,1,1], pads_begin [0, 0], pads_end [0, 0]\n")  # from the reshape: --shape made x static


def test_run_checks_beyond_shape_inference_name_the_node(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = FIXTURES / "corpus/lstm.xml"
    assert main(["run", str(path), "--random", "--shape", "x=[1,2,5]"]) == 1
    err = capsys.readouterr().err
    assert "(LSTMSequence-opset5), inputs (f32[1,2,5], f32[1,1,16], f32[1,1,16], i32[1], f32[1,64,8]" in err
    assert "X's input_size 5 does not match W's columns 8" in err
    # the same with a file of that shape: x stays dynamic, the run infers its signature first
    assert main(["run", str(path), "--input", f"x={_save(tmp_path / 'x.npy', np.ones((1, 2, 5), np.float32))}"]) == 1
    err = capsys.readouterr().err
    assert "X's input_size 5 does not match W's columns 8" in err
    assert err.rstrip().endswith("(shape inference for the run's input shapes: x [1,2,5])")


def _save(path: Path, array: np.ndarray) -> Path:
    np.save(path, array)
    return path


def test_each_input_signature_is_inferred_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import graphir.inference as inference

    model = graphir.read_model(FIXTURES / "corpus/mlp.xml")
    calls: list[int] = []
    real = inference.infer_for_inputs

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(inference, "infer_for_inputs", counting)
    x = np.ones((2, 16), np.float32)
    first = model.run([x])
    for _ in range(3):
        np.testing.assert_array_equal(next(iter(model.run([x]).values())), next(iter(first.values())))
    assert len(calls) == 1
    model.run([np.ones((5, 16), np.float32)])
    assert len(calls) == 2
    with pytest.raises(InferenceError, match=r"K of A \(3\) != K of B \(16\)"):
        model.run([np.ones((5, 3), np.float32)])
    with pytest.raises(InferenceError, match=r"K of A \(3\) != K of B \(16\)"):  # remembered, not re-inferred
        model.run([np.ones((5, 3), np.float32)])
    assert len(calls) == 3


def test_recorded_port_dims_are_read_from_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = opset.parameter("[?,?]", "f32", name="x")
    relu = opset.relu(x, name="relu")
    relu.names = {"y"}
    graphir.save_model(graphir.Model([relu], [x], name="m"), tmp_path / "m.xml")
    text = (tmp_path / "m.xml").read_text()
    layer = text.index('name="relu"')
    port = text.index("<dim>-1</dim>", text.index("<input>", layer))
    edited = text[:port] + "<dim>5</dim>" + text[port + len("<dim>-1</dim>"):]  # the Relu's input records 5
    (tmp_path / "m.xml").write_text(edited)
    model = graphir.read_model(tmp_path / "m.xml")
    assert str(model.input(0).shape) == "[?,?]"
    assert recorded_dims(str(tmp_path / "m.xml"), model) == {model.get_parameters()[0].id: [[-1, -1], [5, -1]]}
    assert main(["run", str(tmp_path / "m.xml"), "--random", "--json"]) == 0
    assert '"shape": [\n      5,\n      16\n    ]' in capsys.readouterr().out
