"""compare: per-layer errors against OpenVINO CPU and against another model; planted faults found."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir.errors import InputError
from graphir.ops.openvino.core import Parameter
from graphir.tools.compare import MissingPackageError, compare, layer_error
from tests.tools.conftest import CORPUS, CORPUS_FILES, TORCHVISION, TORCHVISION_FILES, cli, corpus_inputs
from tests.tools.planted import plant


@pytest.mark.parametrize("name", CORPUS_FILES)
@pytest.mark.parametrize("engine", ["graphir", "openvino"])
def test_planted_weight_change_is_located_in_every_corpus_file(name: str, engine: str, ov: object) -> None:
    path = CORPUS / name
    bad, layer = plant(graphir.read_model(path))
    result = compare(bad, path, engine=engine, inputs=corpus_inputs(path), progress=False)
    first = result.first_failure
    assert first is not None and first.name == layer
    assert first.mismatches > 0 and first.max_abs > 0
    # what fed it was computed alike: the fault is in this layer, not upstream
    fed = result.errors_of_inputs(first)
    assert all(e.passed for e in fed if not isinstance(e, str))


@pytest.mark.parametrize("name", TORCHVISION_FILES[:2] + TORCHVISION_FILES[3:])
def test_planted_weight_change_is_located_in_torchvision_exports(name: str, ov: object) -> None:
    path = TORCHVISION / name
    bad, layer = plant(graphir.read_model(path), which=0.3)
    result = compare(bad, path, engine="openvino", progress=False)
    assert result.first_failure is not None and result.first_failure.name == layer


@pytest.mark.parametrize("name", ["transformer_encoder.xml", "lstm_fp16.xml", "cnn_bn_pool.xml"])
def test_unchanged_model_agrees_with_openvino_layer_by_layer(name: str, ov: object) -> None:
    path = CORPUS / name
    result = compare(path, inputs=corpus_inputs(path), progress=False)
    assert result.reference.startswith("OpenVINO CPU")
    assert result.first_failure is None, result.summary()
    assert result.unmatched == []  # every computed layer output has OpenVINO's counterpart
    assert len(result.layers) >= 4
    assert all(e.cosine > 0.999999 for e in result.layers if e.size and e.max_abs > 0)


def test_against_itself_every_error_is_zero() -> None:
    path = TORCHVISION / "mobilenet_v3_small.xml"
    result = compare(path, path, progress=False)
    assert result.reference.startswith("graphir")
    assert len(result.layers) > 100
    assert all(e.max_abs == 0 and e.mismatches == 0 and e.cosine == pytest.approx(1.0) for e in result.layers)


def test_chunks_give_the_same_records_as_one_pass() -> None:
    path = TORCHVISION / "squeezenet1_1.xml"
    bad, _ = plant(graphir.read_model(path))
    whole = compare(bad, path, progress=False)
    chunked = compare(bad, path, progress=False, chunk_bytes=64 * 1024)  # ~ a dozen reference runs
    assert [(e.layer, e.max_abs, e.mismatches) for e in whole.layers] == \
           [(e.layer, e.max_abs, e.mismatches) for e in chunked.layers]


def test_streaming_holds_the_live_set_not_every_layer() -> None:
    """graphir's side compares each layer as it is computed and the reference comes in chunks: the
    peak traced memory stays below the sum of every layer's output, and well below one pass."""
    import tracemalloc

    from graphir.tools.stats import stats

    path = TORCHVISION / "mobilenet_v3_small.xml"
    shapes = {"x": [1, 3, 160, 160]}
    total = stats(path, shapes).activation_bytes
    model, other = graphir.read_model(path), graphir.read_model(path)
    peaks = []
    for chunk in (1 << 20, 1 << 30):
        compare(model, other, shapes=shapes, chunk_bytes=chunk, progress=False)  # plans built
        tracemalloc.start()
        try:
            compare(model, other, shapes=shapes, chunk_bytes=chunk, progress=False)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    streamed, one_pass = peaks
    assert one_pass > total, (one_pass, total)  # the reference's every layer held at once
    assert streamed < total and streamed < 0.6 * one_pass, (streamed, one_pass, total)


def test_layer_error_values() -> None:
    node = graphir.read_model(CORPUS / "mlp.xml").get_ordered_ops()[2]
    a = np.array([1.0, 2.0, 3.0, 0.0], dtype=np.float32)
    b = np.array([1.0, 2.5, 3.0, 0.0], dtype=np.float32)
    e = layer_error(node.name, node, a, b, rtol=1e-3, atol=1e-4)
    assert (e.max_abs, e.max_rel, e.mismatches, e.size) == (0.5, pytest.approx(0.2), 1, 4)
    assert e.cosine == pytest.approx(float(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    assert not e.passed
    same = layer_error(node.name, node, np.array([np.nan, np.inf]), np.array([np.nan, np.inf]), 1e-3, 1e-4)
    assert same.passed and same.max_abs == 0
    ints = layer_error(node.name, node, np.array([1, 2, 3]), np.array([1, 2, 4]), 1.0, 1.0)
    assert ints.mismatches == 1  # integers compare exactly, whatever the tolerance
    shape = layer_error(node.name, node, np.zeros((2, 3)), np.zeros((3, 2)), 1e-3, 1e-4)
    assert not shape.passed and shape.note == "shape [2, 3] vs reference [3, 2]" and math.isnan(shape.max_abs)


def test_random_inputs_take_the_given_shapes_and_are_reported() -> None:
    path = TORCHVISION / "squeezenet1_1.xml"
    result = compare(path, path, shapes={"x": [2, 3, 48, 40]}, seed=3, progress=False)
    assert result.inputs == [{"name": "x", "shape": [2, 3, 48, 40], "type": "float32", "source": "random"}]
    npz = CORPUS / "transformer_encoder.npz"
    from_file = compare(CORPUS / "transformer_encoder.xml", CORPUS / "transformer_encoder.xml", inputs=npz,
                        progress=False)
    assert [(i["name"], i["shape"], i["source"]) for i in from_file.inputs] == [
        ("x", [2, 6, 32], str(npz)), ("pad_mask", [2, 6], str(npz))]


def test_unreadable_inputs_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"inputs .*missing\.npz: cannot read an \.npz archive"):
        compare(CORPUS / "mlp.xml", CORPUS / "mlp.xml", inputs=tmp_path / "missing.npz")


def test_without_openvino_the_error_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openvino", None)
    with pytest.raises(MissingPackageError, match=r"needs the 'openvino' package \(pip install openvino\)"):
        compare(CORPUS / "mlp.xml", inputs=CORPUS / "mlp.npz")
    assert compare(CORPUS / "mlp.xml", CORPUS / "mlp.xml", progress=False).failed is False  # graphir alone works


def test_cli_exit_status_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], ov: object) -> None:
    path = CORPUS / "residual_block.xml"
    bad, layer = plant(graphir.read_model(path))
    graphir.save_model(bad, tmp_path / "bad.xml")
    status, out, _ = cli(capsys, "compare", str(tmp_path / "bad.xml"), str(path), "--inputs", str(CORPUS / "residual_block.npz"), "--json")
    data = json.loads(out)
    assert status == 1
    assert data["first_failure"]["name"] == layer and data["failed"] >= 1
    assert data["inputs"][0]["shape"] == [1, 8, 10, 10]
    status, out, _ = cli(capsys, "compare", str(tmp_path / "bad.xml"), str(path), "--engine", "openvino",
                         "--inputs", str(CORPUS / "residual_block.npz"))
    assert status == 1 and f"first past tolerance: {layer}" in out and "FAIL" in out
    status, out, _ = cli(capsys, "compare", str(path), "--shape", "x=[1,8,6,6]")
    assert status == 0 and "input x: float32[1, 8, 6, 6] (random)" in out and "no layer past tolerance" in out


def test_parameters_are_not_compared() -> None:
    result = compare(CORPUS / "mlp.xml", CORPUS / "mlp.xml", progress=False)
    names = {n.name for n in graphir.read_model(CORPUS / "mlp.xml").get_ordered_ops() if isinstance(n.op, Parameter)}
    assert not names & {e.name for e in result.layers}


def test_the_run_observer_sees_each_executed_layer_once_with_its_outputs() -> None:
    """interpreter.execute(observe=...): called after each executed node, with the values the run returns."""
    from graphir.interpreter import execute

    path = CORPUS / "residual_block.xml"
    model = graphir.read_model(path)
    feeds = corpus_inputs(path)
    seen: list[tuple[str, list[tuple[int, ...]]]] = []
    kept: dict[str, np.ndarray] = {}

    def observe(node: graphir.node.Node, outs: list[np.ndarray]) -> None:
        seen.append((node.name, [o.shape for o in outs]))
        kept[node.name] = np.array(outs[0], copy=True)

    observed = execute(model, feeds, None, observe=observe)
    plain = model.run(feeds)
    assert list(observed) == list(plain) and all(np.array_equal(observed[k], plain[k]) for k in plain)
    names = [name for name, _ in seen]
    assert len(names) == len(set(names)) >= 7
    last = model.get_results()[0].input_value(0).node
    assert names[-1] == last.name and np.array_equal(kept[last.name], next(iter(plain.values())))
    assert seen[0][1] == [(1, 8, 10, 10)]


def _tie_model(bias: list[float], scale: float = 2.0) -> "graphir.Model":
    """x + bias -> TopK(k=2) -> indices converted to f32 -> Multiply by ``scale``, by fixed names."""
    from graphir import opset

    x = opset.parameter([1, 4], "f32", name="x")
    shifted = opset.add(x, opset.constant(np.array([bias], np.float32)), name="shift")
    top = opset.topk(shifted, np.int64(2), 1, "max", "value", name="top")
    as_f32 = opset.convert(top.output(1), "f32", name="as_f32")
    scaled = opset.multiply(as_f32, opset.constant(np.float32(scale)), name="scaled")
    return graphir.Model([top.output(0), scaled], [x.node])


def test_indices_of_near_equal_values_are_marked_as_a_tie_not_as_the_fault() -> None:
    """Two models whose values agree within tolerance but whose near-tied maximum falls on another
    element: TopK's indices differ, its values do not; the comparison calls it a tie, the root of
    every difference downstream."""
    x = {"x": np.array([[1.0, 3.0, 3.0, 0.0]], np.float32)}
    result = compare(_tie_model([0.0, 0.0, 1e-6, 0.0]), _tie_model([0.0, 1e-6, 0.0, 0.0]), inputs=x, progress=False)
    by_layer = {e.layer: e for e in result.layers}
    assert by_layer["top:0"].passed
    indices = by_layer["top:1"]
    assert not indices.passed and indices.cause == "tie order" and indices.max_abs == 1
    assert not by_layer["scaled"].passed and by_layer["scaled"].cause == ""
    assert [e.layer for e in result.roots] == ["top:1"]
    summary = result.summary()
    assert "its values (port 0) are within tolerance" in summary
    assert "every difference is downstream of an order among tied values" in summary
    assert "FAIL (tie order)" in result.table()
    assert result.to_dict()["roots"] == ["top:1"]


def test_a_wrong_value_after_a_tie_is_a_second_root_and_no_tie_claim_is_made() -> None:
    x = {"x": np.array([[1.0, 3.0, 3.0, 0.0]], np.float32)}
    result = compare(_tie_model([0.0, 0.0, 1e-6, 0.0], scale=2.0), _tie_model([0.0, 0.0, 1e-6, 0.0], scale=3.0),
                     inputs=x, progress=False)
    assert [e.layer for e in result.roots] == ["scaled"] and result.roots[0].cause == ""
    assert "tied values" not in result.summary()
    # a wrong value directly on TopK's values is not a tie either
    shifted = compare(_tie_model([0.0, 0.0, 1e-6, 0.0]), _tie_model([0.0, 0.5, 0.0, 0.0]), inputs=x, progress=False)
    by_layer = {e.layer: e for e in shifted.layers}
    assert not by_layer["top:0"].passed and by_layer["top:1"].cause == ""
