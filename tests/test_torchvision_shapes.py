"""Shape precision on real networks: torchvision classifiers, segmenters and detectors converted by
``openvino.convert_model`` with dynamic batch, height and width (tests/gen_torchvision_shape_fixtures.py),
read by graphir and by OpenVINO 2026.4: every layer's output types and partial shapes must equal
OpenVINO's (intervals included: Swin's Pad/Reshape/Slice/MVN/MatMul keep ``[?,1..,1..,16]``, the
segmentation head's Interpolate keeps ``1..``, the detectors' head Reshapes ``[1,-1,4,H,W]`` keep
``[1,1..,4,1..,1..]`` and the Transposes, Concats and Gathers after them their ``1..``), and the
classifier and segmenter outputs must agree in values on one input."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphir
from tests.tolerances import assert_close

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "torchvision_shapes"
DETECTORS = FIXTURES.parent / "torchvision_detectors"
PATHS = {p.stem: p for d in (FIXTURES, DETECTORS) for p in sorted(d.glob("*.xml"))}
NETS = sorted(PATHS)


def test_fixtures_are_present() -> None:
    assert {"swin_t", "swin_v2", "mobilenet_v3_small", "efficientnet", "squeezenet", "lraspp"} <= set(NETS)
    assert {p.stem for p in DETECTORS.glob("*.xml")} == {"fasterrcnn", "retinanet", "fcos", "maskrcnn", "ssdlite"}


@pytest.mark.parametrize("name", NETS)
def test_every_layer_matches_openvino(ov, name: str) -> None:
    xml = PATHS[name]
    ov_model = ov.Core().read_model(str(xml))
    model = graphir.read_model(xml)
    ours = {n.name: n for n in model.nodes()}
    compared, differ = 0, []
    for op in ov_model.get_ordered_ops():
        node = ours.get(op.get_friendly_name())
        assert node is not None, f"{name}: no node named '{op.get_friendly_name()}' ({op.get_type_name()})"
        want = [(op.get_output_element_type(i).get_type_name(), str(op.get_output_partial_shape(i)))
                for i in range(op.get_output_size())]
        got = [(str(t.element_type), str(t.shape)) for t in node.output_types]
        compared += 1
        if got != want:
            differ.append(f"{op.get_type_name()} '{op.get_friendly_name()}': graphir {got}, OpenVINO {want}")
    assert compared == len(ours), f"{name}: OpenVINO has {compared} layers, graphir {len(ours)}"
    assert not differ, f"{name}: {len(differ)} of {compared} layers differ, first: " + "; ".join(differ[:3])


@pytest.mark.parametrize("name", ["swin_t", "lraspp"])
def test_values_match_openvino_cpu(ov, name: str) -> None:
    xml = FIXTURES / f"{name}.xml"
    x = np.random.default_rng(0).standard_normal((1, 3, 60, 52)).astype(np.float32)
    want = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([x])
    got = list(graphir.read_model(xml).run([x]).values())
    for g, w in zip(got, want.values()):
        assert g.shape == w.shape
        assert_close(g, w, np.float32)
