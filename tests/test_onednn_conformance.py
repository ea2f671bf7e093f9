"""Every oneDNN Graph conformance file: load, infer, compare to the recorded shapes, write back
equal, and run the forward-only graphs on random inputs."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphir import read_model, save_model
from graphir.model import Model
from graphir.ops.openvino.core import Parameter, Result
from graphir.serializers.onednn_json import UNKNOWN, dims_to_shape, dtype_to_element_type, read_json
from tests.shared_data import SHARED, or_absent, require_shared, shared_file, shared_files

SUBDIR = "conformance/onednn"
DATA = SHARED / SUBDIR
FILES = shared_files(SUBDIR, "*/*.json")


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_conformance_data_present() -> None:
    require_shared(SUBDIR)
    assert len(FILES) == 112, "the README lists 81 op files and 31 pattern/mha/mlp files"


def _recorded_tensors(data: dict) -> dict[int, dict]:
    return {t["id"]: t for op in data["graph"] for t in op["outputs"]}


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_load_infer_matches_recorded_shapes(path: Path | None) -> None:
    path = shared_file(path, SUBDIR)
    data = json.loads(path.read_text())
    model = read_model(path)
    model.validate()
    model.infer_shapes()
    recorded = _recorded_tensors(data)
    ops = [n for n in model.nodes() if not isinstance(n.op, (Parameter, Result))]
    assert len(ops) == len(data["graph"])
    checked = 0
    for node in ops:
        for j, out in enumerate(node.outputs()):
            (name,) = out.names
            record = recorded[int(name)]
            assert out.element_type == dtype_to_element_type(record["dtype"]), f"{node.describe()} output {j}"
            if record["shape"] == [UNKNOWN]:
                continue  # an unknown recorded shape accepts any inferred one
            expected = dims_to_shape(record["shape"])
            assert out.shape == expected, f"{node.describe()} output {j}: inferred {out.shape}, file {record['shape']}"
            checked += 1
    assert checked > 0 or any(t["shape"] == [UNKNOWN] for t in recorded.values())


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_write_back_equal(path: Path | None, tmp_path: Path) -> None:
    path = shared_file(path, SUBDIR)
    model = read_json(path)
    model.infer_shapes()
    out = tmp_path / "out.json"
    save_model(model, out)
    assert json.loads(out.read_text()) == json.loads(path.read_text())
    again = tmp_path / "again.json"
    save_model(read_model(out), again)
    assert json.loads(again.read_text()) == json.loads(path.read_text())


def _random_input(param: Parameter, rng: np.random.Generator) -> np.ndarray:
    et, shape = param.element_type, param.shape.to_shape()
    if et.value == "boolean":
        return rng.random(shape) < 0.5
    if et.is_integral_number:
        return rng.integers(0, 5, shape).astype(et.numpy_dtype)
    # positive (Log/Sqrt stay real) and below 1, so chains of matmuls stay finite even in bf16
    return rng.uniform(0.1, 1.0, shape).astype(np.float32).astype(et.numpy_dtype)


def _forward_only(model: Model) -> bool:
    return all(n.op.runnable for n in model.nodes())


@pytest.mark.parametrize("path", or_absent([p for p in FILES if isinstance(p, Path) and _forward_only(read_json(p))]), ids=_id)
def test_run_forward_graph_on_random_inputs(path: Path | None) -> None:
    path = shared_file(path, SUBDIR)
    model = read_json(path)
    params = model.get_parameters()
    rng = np.random.default_rng(7)
    outputs = model.run([_random_input(p.op, rng) for p in params])
    assert list(outputs) == [r.inputs[0].get_any_name() for r in model.get_results()]
    for result, (key, value) in zip(model.get_results(), outputs.items()):
        expected = result.output_types[0]
        assert tuple(value.shape) == expected.shape.to_shape(), key
        assert value.dtype == expected.element_type.numpy_dtype, key
        if value.dtype.kind == "f" or "float" in str(value.dtype):
            assert np.isfinite(value.astype(np.float32)).all(), f"output {key} of {path.name} is not finite"


def test_backward_graph_refuses_to_run() -> None:
    require_shared(SUBDIR)
    model = read_json(DATA / "op" / "relu_bwd.json")
    with pytest.raises(Exception, match=r"ReLUBackward.*backward"):
        model.run([np.ones((1, 32, 28, 28), np.float32)] * 2)


def test_biasadd_backprop_alias_is_read_and_written_as_spelled(tmp_path: Path) -> None:
    require_shared(SUBDIR)
    model = read_json(DATA / "op" / "biasadd_bwd.json")
    (node,) = [n for n in model.nodes() if n.type_name == "BiasAddBackward"]
    assert node.output_types[0].shape.to_shape() == (128,)
    save_model(model, tmp_path / "b.json")
    assert json.loads((tmp_path / "b.json").read_text())["graph"][0]["kind"] == "BiasAddBackprop"


def test_unknown_shapes_are_dynamic_and_inferred() -> None:
    require_shared(SUBDIR)
    model = read_json(DATA / "mha" / "codegemma-bf16-f32.json")
    softmax = [n for n in model.nodes() if n.type_name == "SoftMax"][0]
    assert softmax.output_types[0].shape.is_static  # the file records [INT64_MIN]; inference knows
