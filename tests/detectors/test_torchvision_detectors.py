"""torchvision detectors converted by ``openvino.convert_model`` (tests/detectors/convert.py: weights=None,
re-drawn BatchNorm statistics and heads, small inputs; IR cached in the temp directory) run end to end in
graphir and in OpenVINO CPU (f32 hint).

Asserted: graphir infers every output's type and partial shape as OpenVINO's read_model does; the run gives
OpenVINO's output shapes; RetinaNet's outputs equal OpenVINO's row for row (boxes, scores, labels, in order);
for the others OpenVINO's detections are found among graphir's (same label, score within 1e-4, box within
1e-2 px), at least MIN_MATCHED of them, and Mask R-CNN's masks of those equal OpenVINO's.

Why not all row for row (measured 2026-11-24, README "Detection ops"): the ops that order detections
(TopK's heap among equal values, NMS, Sigmoid's, HSwish's and HSigmoid's rounding) are OpenVINO's bit for bit -- given OpenVINO's own
input, every TopK of these networks returns OpenVINO's indices (test below) -- but the convolutions are
not: summed in another order, 73% of SSDlite's first convolution outputs differ from oneDNN's by 1 ulp or
more, and FCOS's level-0 scores feeding TopK differ in 13,781 of 23,932 places (1-38 ulps). These random
networks give many scores equal or a few ulps apart (flat features, saturated sigmoids); the heap's order
among the equal ones depends on every other value it compares, so equal-score boxes come out in another
order (FCOS: 16 of 100 rows, all matched) or, where NMS then keeps the other of two equal-score boxes, as
other boxes (Faster R-CNN: 9 of its 150 RPN proposals; SSDlite, Mask R-CNN).
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import graphir

#: detector -> fraction of OpenVINO's detections graphir must reproduce (measured 2026-11-24:
#: FCOS 100/100, RetinaNet 300/300, Mask R-CNN 99/100, Faster R-CNN 76/100, SSDlite 294/300). The partial
#: figures move either way when an op upstream gets closer to OpenVINO's rounding: Faster R-CNN went
#: 81 -> 87 with HSwish bit-exact, then 87 -> 76 with HSigmoid bit-exact too (chaotic near-ties).
MIN_MATCHED = {"fcos": 1.0, "retinanet": 1.0, "maskrcnn": 0.99, "fasterrcnn": 0.76, "ssdlite": 0.98}
#: detectors whose outputs equal OpenVINO's row for row
IN_ORDER = {"retinanet"}


def _needs_torchvision() -> None:
    if importlib.util.find_spec("torchvision") is None:  # not imported here: it needs the CUDA stubs first
        pytest.skip("torchvision is not installed: pip install -e '.[test]' (torchvision==0.28.0) converts the detectors")


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MIN_MATCHED))
def test_detector_runs_like_openvino(ov, name: str) -> None:
    _needs_torchvision()
    from tests.detectors.convert import detector_ir, image, match_detections

    xml = detector_ir(name)
    x = image(name)
    model = graphir.read_model(str(xml))
    ov_model = ov.Core().read_model(str(xml))
    assert [f"{o.element_type}{o.shape}" for o in model.outputs] == [
        f"{o.get_element_type().get_type_name()}{o.get_partial_shape()}" for o in ov_model.outputs]
    got = list(model.run([x]).values())
    compiled = ov.Core().compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled([x])
    ref = [result[i] for i in range(len(compiled.outputs))]
    assert [(g.dtype, g.shape) for g in got] == [(r.dtype, r.shape) for r in ref]
    assert len(ref[-1]) > 0, "the detector must detect something for the comparison to mean anything"
    if name in IN_ORDER:
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-3)
    matched, pairs = match_detections(got, ref)
    assert matched >= MIN_MATCHED[name] * len(ref[-1]), f"{matched} of {len(ref[-1])} detections reproduced"
    if name == "maskrcnn":  # masks (output 2) of the matched detections
        for j, k in pairs:
            np.testing.assert_allclose(got[2][k], ref[2][j], atol=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fcos", "fasterrcnn"])
def test_every_topk_given_openvinos_input_gives_openvinos_order(ov, name: str) -> None:
    """Where the detections' order is decided: each TopK of the network, fed the very tensor
    OpenVINO computed for it, returns OpenVINO's indices exactly (ties included); so the rows that
    differ come from the values reaching TopK, not from TopK."""
    _needs_torchvision()
    from tests.detectors.convert import detector_ir, image

    xml = detector_ir(name)
    x = image(name)
    model = graphir.read_model(str(xml))
    topks = [n for n in model.get_ordered_ops() if n.op.type_name == "TopK"]
    assert topks
    core = ov.Core()
    ov_model = core.read_model(str(xml))
    ops = {o.get_friendly_name(): o for o in ov_model.get_ops()}
    extra = []
    for n in topks:
        src = n.inputs[0]
        extra += [ops[src.node.name].output(src.index), ops[n.name].output(1)]
    ov_model.add_outputs(extra)
    compiled = core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled([x])
    outs = [result[i] for i in range(len(compiled.outputs))][-len(extra):]
    ties = 0
    for i, n in enumerate(topks):
        data, want = outs[2 * i], outs[2 * i + 1]
        k = np.int64(want.shape[n.op.axis])
        got = n.op.specialize_cpu(n.input_types())(data, k)[1]  # what a run uses (numerics="openvino-cpu")
        np.testing.assert_array_equal(got, want, err_msg=n.name)
        top = np.take_along_axis(data, want.astype(np.int64), axis=n.op.axis)
        ties += int((np.diff(top, axis=n.op.axis) == 0).sum())
    assert ties > 0, "the comparison must include equal values for it to say anything about their order"
