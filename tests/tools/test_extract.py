"""extract: a subgraph between tensors as a model of its own, which graphir and OpenVINO run."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir.errors import GraphError, InputError
from graphir.interpreter import execute
from graphir.tools import extract
from graphir.tools.reduce import layers_of
from tests.tools.conftest import CORPUS, TORCHVISION, cli

SQUEEZENET = TORCHVISION / "squeezenet1_1.xml"


def values_of(model: graphir.model.Model, feeds: dict[str, np.ndarray], names: set[str]) -> dict[str, np.ndarray]:
    got: dict[str, np.ndarray] = {}

    def keep(node: graphir.node.Node, outs: list[np.ndarray]) -> None:
        if node.name in names:
            got[node.name] = np.array(outs[0])

    execute(model, feeds, None, observe=keep)
    return got


def test_middle_of_squeezenet_runs_alone_in_graphir_and_openvino(tmp_path: Path, ov: object) -> None:
    model = graphir.read_model(SQUEEZENET)
    layers = layers_of(model)
    first, last = layers[10], layers[30]
    sub = extract(model, [last.name], [first.name])
    params = sub.get_parameters()
    assert [(p.name, str(p.output_types[0])) for p in params] == [("85_1", "f32[?,16,1..,1..]")]
    assert 10 <= len(layers_of(sub)) <= 21 and len(sub.get_results()) == 1
    x = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
    seen = values_of(model, {"x": x}, {first.name, last.name})
    (out,) = sub.run({params[0].name: seen[first.name]}).values()
    np.testing.assert_array_equal(out, seen[last.name])
    graphir.save_model(sub, tmp_path / "part.xml")
    import openvino

    core = openvino.Core()
    compiled = core.compile_model(core.read_model(tmp_path / "part.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    np.testing.assert_allclose(compiled(seen[first.name])[0], seen[last.name], rtol=1e-4, atol=1e-4)
    assert len(model.get_ordered_ops()) == 121  # the source is untouched


def test_tensor_specs_name_port_and_tensor_name() -> None:
    model = graphir.read_model(CORPUS / "lstm.xml")
    lstm = next(n for n in model.get_ordered_ops() if n.type_name == "LSTMSequence")
    by_port = extract(model, [f"{lstm.name}:1"])
    assert [str(r.output_types[0]) for r in by_port.get_results()] == ["f32[?,1,16]"]
    assert [p.name for p in by_port.get_parameters()] == ["x"]  # the model's own input stays an input
    named = next(n for n in layers_of(model) if n.output_names[0])
    tensor = sorted(named.output_names[0])[0]
    by_tensor = extract(model, [tensor])
    assert by_tensor.get_results()[0].input_value(0).node.name == named.name


def test_bad_specs_name_what_is_wrong() -> None:
    model = graphir.read_model(CORPUS / "mlp.xml")
    with pytest.raises(InputError, match=r"model '.*' has no tensor 'nope' \(give a tensor name, a layer name"):
        extract(model, ["nope"])
    relu = next(n for n in model.get_ordered_ops() if n.type_name == "Relu")
    with pytest.raises(InputError, match=r"tensor '.*Relu:3': .* has 1 outputs"):
        extract(model, [f"{relu.name}:3"])
    later = layers_of(model)[-1]
    with pytest.raises(GraphError, match=r"the outputs do not depend on input tensor\(s\) '.*Softmax'"):
        extract(model, [relu.name], [later.name])


def test_shared_weights_come_along_once(tmp_path: Path) -> None:
    model = graphir.read_model(CORPUS / "transformer_encoder.xml")
    layers = layers_of(model)
    sub = extract(model, [layers[-1].name], [layers[len(layers) // 2].name])
    graphir.save_model(sub, tmp_path / "tail.xml")
    again = graphir.read_model(tmp_path / "tail.xml")
    assert len(again.get_ordered_ops()) == len(sub.get_ordered_ops())


def test_cli_writes_the_subgraph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = graphir.read_model(CORPUS / "cnn_bn_pool.xml")
    layers = layers_of(model)
    status, out, _ = cli(capsys, "extract", str(CORPUS / "cnn_bn_pool.xml"), "--inputs", layers[2].name,
                         "--outputs", layers[5].name, "-o", str(tmp_path / "p.xml"), "--json")
    data = json.loads(out)
    assert status == 0 and (tmp_path / "p.xml").exists()
    assert data["inputs"][0]["shape"] == "[?,8,1..,1..]" and len(data["outputs"]) == 1
    status, _, err = cli(capsys, "extract", str(CORPUS / "cnn_bn_pool.xml"), "--outputs", "missing", "-o",
                         str(tmp_path / "q.xml"))
    assert status == 2 and "has no tensor 'missing'" in err
