"""torchvision detectors converted by ``openvino.convert_model`` (tests/detectors/convert.py: weights=None,
re-drawn BatchNorm statistics and heads, small inputs; IR cached in the temp directory) run end to end in
graphir (``openvino-cpu`` numerics) and in OpenVINO CPU (f32 hint).

Asserted, on any x86-64 CPU: graphir infers every output's type and partial shape as OpenVINO's read_model
does; the run gives OpenVINO's output shapes; RetinaNet's outputs equal OpenVINO's row for row. Around the
*decision ops* (TopK, NonZero of a threshold, the If around torchvision's batched NMS, Converts of floats to
integers: tests/detectors/decisions.py), where a choice is made from values that the CPU's ISA moves:

* each decision op fed OpenVINO's own input tensors gives OpenVINO's output exactly;
* given OpenVINO's choices upstream, the tensors reaching every decision op are within per-tensor tolerances
  of OpenVINO's (1e-5 of the tensor's largest magnitude; measured variation across ISAs 3.6e-6), and the
  detections (boxes, labels, scores, Mask R-CNN's masks) equal OpenVINO's row for row;
* with graphir making the last NMS choice itself, every OpenVINO detection whose fate in that NMS is settled
  (its score clear of every other candidate's by more than the measured cross-ISA variation, no unsettled
  higher candidate of its class overlapping it, no IoU at the threshold, within the detection cap whatever the
  unsettled ones do) is found among graphir's (same label, score within 1e-4, box within 1e-2 px), Mask
  R-CNN's masks of those too.

Why not a count of matched detections (the assertion this replaces, issue 33): these random networks give
many scores equal or a few ulps apart; which of two equal-score boxes NMS keeps, and what that then
suppresses, depends on the last bits of every convolution, which depend on the CPU (oneDNN's kernels per ISA,
OpenBLAS's per CPU model). Measured 2026-11-29: graphir with OpenBLAS's Zen kernels (what an AMD EPYC runs)
matched 271 of SSDlite's 300 detections and 54 of Faster R-CNN's 100 where its SkylakeX kernels matched
296 and 61, and OpenVINO itself limited to AVX2 matched 90 of its own 100 Faster R-CNN detections.
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import graphir

#: detector -> its detection cap (torchvision's detections_per_img)
CAPS = {"fcos": 100, "retinanet": 300, "maskrcnn": 100, "fasterrcnn": 100, "ssdlite": 300}
#: detectors whose outputs equal OpenVINO's row for row
IN_ORDER = {"retinanet"}
#: detectors some of whose detections have a settled fate in their last NMS (the others' are all among
#: equal scores or under unsettled ones: measured 35 of FCOS's 100, 16 of Faster R-CNN's 100, none of SSDlite's
#: or RetinaNet's 300)
SOME_SETTLED = {"fcos", "fasterrcnn"}


def _needs_torchvision() -> None:
    if importlib.util.find_spec("torchvision") is None:  # not imported here: it needs the CUDA stubs first
        pytest.skip("torchvision is not installed: pip install -e '.[test]' (torchvision==0.28.0) converts the detectors")


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CAPS))
def test_detector_runs_like_openvino(ov, name: str) -> None:
    _needs_torchvision()
    from tests.detectors import decisions
    from tests.detectors.convert import detector_ir, image, match_detections

    xml = detector_ir(name)
    x = image(name)
    model = graphir.read_model(str(xml))
    ov_model = ov.Core().read_model(str(xml))
    assert [f"{o.element_type}{o.shape}" for o in model.outputs] == [
        f"{o.get_element_type().get_type_name()}{o.get_partial_shape()}" for o in ov_model.outputs]
    got = list(model.run([x], numerics="openvino-cpu").values())
    nodes = decisions.decision_nodes(model)
    ref, around = decisions.openvino_run(ov, str(xml), x, nodes)
    assert [(g.dtype, g.shape) for g in got] == [(r.dtype, r.shape) for r in ref]
    assert len(ref[-1]) > 0, "the detector must detect something for the comparison to mean anything"
    if name in IN_ORDER:
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-3)

    # given OpenVINO's every choice: the tensors reaching each decision op, then the detections, row for row
    chosen = decisions.with_openvino_choices(model, nodes, around, keep=set())
    by_name = {n.name: n for n in chosen.get_ordered_ops()}
    chosen.add_results([s for n in nodes for s in by_name[n.name].inputs])  # what reaches them, as outputs too
    values = list(chosen.run([x], numerics="openvino-cpu").values())
    for g, r in zip(values, ref):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-3)
    reached = iter(values[len(ref):])
    for n in nodes:
        for i, want in enumerate(around[n.name][0]):
            have = next(reached)
            assert have.dtype == want.dtype and have.shape == want.shape, (n.name, i)
            if want.dtype.kind != "f" or want.size == 0:
                np.testing.assert_array_equal(have, want, err_msg=f"{n.name} input {i}")
                continue
            beyond = np.abs(have.astype(np.float64) - want) > decisions.INPUT_TOLERANCE * float(np.abs(want).max())
            assert int(beyond.sum()) <= decisions.OUTLIERS.get((name, n.name, i), 0), (n.name, i, int(beyond.sum()))

    # graphir's own last NMS: the detections whose fate there is settled are found among graphir's
    last, own_choices = decisions.last_nms(model, nodes)
    own = list(decisions.with_openvino_choices(model, nodes, around, keep=own_choices).run(
        [x], numerics="openvino-cpu").values())
    settled = decisions.settled_detections(ref[-1], ref[1], around[last.name][0], decisions.nms_iou_threshold(last),
                                           CAPS[name])
    _, pairs = match_detections(own, ref)
    matched = {j for j, _ in pairs}
    missing = [j for j in np.nonzero(settled)[0].tolist() if j not in matched]
    assert not missing, f"settled detections of OpenVINO's not found in graphir's: {missing}"
    assert settled.any() or name not in SOME_SETTLED, "the comparison must include settled detections"
    if name == "maskrcnn":  # masks (output 2) of the matched detections
        for j, k in pairs:
            np.testing.assert_allclose(own[2][k], ref[2][j], atol=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CAPS))
def test_every_decision_op_given_openvinos_input_gives_openvinos_output(ov, name: str) -> None:
    """Where the detections' order is decided: each decision op of the network (TopK, NonZero, the NMS
    If, a float-to-integer Convert), fed the very tensors OpenVINO computed for it, returns OpenVINO's
    output exactly (TopK's ties included: openvino-cpu numerics); so the rows that differ come from the
    values reaching them, not from them."""
    _needs_torchvision()
    import graphir.numerics
    from graphir.numerics.openvino_cpu import host, topk_order
    from tests.detectors import decisions
    from tests.detectors.convert import detector_ir, image

    xml = detector_ir(name)
    x = image(name)
    model = graphir.read_model(str(xml))
    nodes = decisions.decision_nodes(model)
    assert {n.type_name for n in nodes} >= {"TopK", "NonZero", "If"}
    _, around = decisions.openvino_run(ov, str(xml), x, nodes)
    ties = 0
    for n in nodes:
        ins, want = around[n.name]
        if type(n.op).has_bodies:  # the NMS If: run with the runtime's body runner, under the profile
            from graphir.interpreter import evaluate_with_bodies

            with graphir.numerics.using("openvino-cpu"):
                got = evaluate_with_bodies(n.op, *ins)
        else:
            got = graphir.numerics.evaluator(n.op, "openvino-cpu", n.input_types())(list(ins))
        horizontal = n.type_name == "TopK" and topk_order.algorithm(
            ins[0].shape[n.op.axis], want[0].shape[n.op.axis], innermost=n.op.axis % ins[0].ndim == ins[0].ndim - 1,
            dynamic=not n.input_types()[0].shape.is_static, stable=False) == "horizontal"
        for i, (g, w) in enumerate(zip(got, want)):
            if horizontal and i == 1 and not host.has_avx512_core():
                continue  # the 16-lane k=1 order is replayed on AVX-512 hosts only (values still compared)
            np.testing.assert_array_equal(g, w, err_msg=f"{n.name} output {i}")
        if n.type_name == "TopK":
            ties += int((np.diff(want[0], axis=n.op.axis) == 0).sum())
    if name in ("fcos", "fasterrcnn"):
        assert ties > 0, "the comparison must include equal values for it to say anything about their order"
