"""The real-network corpus: IR files written by OpenVINO's own PyTorch converter (see gen_corpus.py).

Each network loads, lists no op graphir cannot run, infers the shapes OpenVINO reports for every
layer, runs within tolerance of OpenVINO CPU (INFERENCE_PRECISION_HINT f32), and round-trips:
graphir writes it, OpenVINO reads that and gives the same outputs.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphir

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "corpus"
XMLS = sorted(CORPUS.glob("*.xml"))
#: chains of f32 ops accumulate rounding differently from OpenVINO's fused CPU kernels
RTOL, ATOL = 1e-3, 1e-4


def _inputs(xml: Path) -> list[np.ndarray]:
    base = xml.stem.removesuffix("_fp16")
    with np.load(CORPUS / f"{base}.npz") as data:
        return [data[f"arr_{i}"] for i in range(len(data.files))]


def _ov_outputs(ov, model, inputs: list[np.ndarray]) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled(inputs)
    return [np.asarray(result[out]) for out in compiled.outputs]


def _unrunnable(model: graphir.Model) -> list[str]:
    return [n.describe() for n in model.nodes()
            if not getattr(n.op, "runnable", True) or type(n.op).__module__.endswith("opaque")]


def test_corpus_is_large_enough() -> None:
    assert len(XMLS) >= 15
    assert sum(1 for x in XMLS if x.stem.endswith("_fp16")) >= 10


@pytest.mark.parametrize("xml", XMLS, ids=[x.stem for x in XMLS])
def test_network_loads_and_every_op_runs(xml: Path) -> None:
    model = graphir.read_model(xml)
    assert _unrunnable(model) == []


@pytest.mark.parametrize("xml", XMLS, ids=[x.stem for x in XMLS])
def test_network_shapes_match_openvino(xml: Path, ov) -> None:
    model = graphir.read_model(xml)
    model.infer_shapes()
    reference = ov.Core().read_model(xml)
    by_name = {n.name: n for n in model.nodes()}
    compared = 0
    for op in reference.get_ordered_ops():
        node = by_name.get(op.get_friendly_name())
        if node is None or op.get_type_name() == "Result":
            continue
        for i in range(op.get_output_size()):
            assert str(node.output_types[i].shape) == str(op.get_output_partial_shape(i)), (
                f"{node.describe()} output {i}")
            assert str(node.output_types[i].element_type) == op.get_output_element_type(i).get_type_name()
            compared += 1
    assert compared >= len(reference.get_ordered_ops()) // 2


@pytest.mark.parametrize("xml", XMLS, ids=[x.stem for x in XMLS])
def test_network_runs_like_openvino(xml: Path, ov) -> None:
    inputs = _inputs(xml)
    model = graphir.read_model(xml)
    ours = list(model.run(inputs).values())
    theirs = _ov_outputs(ov, ov.Core().read_model(xml), inputs)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("xml", XMLS, ids=[x.stem for x in XMLS])
def test_network_round_trips_through_openvino(xml: Path, ov, tmp_path: Path) -> None:
    inputs = _inputs(xml)
    model = graphir.read_model(xml)
    graphir.save_model(model, tmp_path / "copy.xml")
    expected = _ov_outputs(ov, ov.Core().read_model(xml), inputs)
    got = _ov_outputs(ov, ov.Core().read_model(tmp_path / "copy.xml"), inputs)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
