"""NonMaxSuppression-1/3/4/5/9 against OpenVINO 2026.4: inferred types and shapes over a grid of
static, dynamic and interval shapes and max_output_boxes values; error texts; CPU values over random
boxes with tied scores, both box encodings, both sort modes, score/IoU thresholds and soft-NMS.

Where OpenVINO's CPU plugin and the op's own shape disagree (v1/v3 return every selected box even
past the static row count they infer; max_output_boxes_per_class 0 leaves valid_outputs unwritten
in v5/v9), graphir keeps the inferred shape (v1/v3/v4: rows past the selections are -1, as the spec
says) and the test compares what both define.
"""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.errors import GraphirError
from tests.ops.detection_oracle import Const, Param, compare, shapes_of
from tests.ops.ov_diff import build_both

VERSIONS = ["opset1", "opset3", "opset4", "opset5", "opset9"]
SHAPES = [("[2,10,4]", "[2,3,10]"), ("[?,10,4]", "[?,3,10]"), ("[2,?,4]", "[2,3,?]"),
          ("[2,1..10,4]", "[2,3,1..10]"), ("[...]", "[...]"), ("[1..2,10,4]", "[1..2,3,10]"),
          ("[2,10,4]", "[2,?,10]"), ("[2,10,4]", "[2,1..4,10]"), ("[2,10,4]", "[2,3,?]"),
          ("[2,0,4]", "[2,3,0]"), ("[2,1..3,4]", "[2,3,1..3]")]


def _ov_nms(version: str):  # noqa: ANN202
    import importlib

    return importlib.import_module(f"openvino.{version}").non_max_suppression


def _gr_nms(version: str, **attrs):  # noqa: ANN202
    return lambda *a: opset.make("NonMaxSuppression", *a, version=version, **attrs)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("boxes,scores", SHAPES)
@pytest.mark.parametrize("max_out", [0, 2, 5, 50, -1, None])
def test_shapes_and_types_match_openvino(ov, version: str, boxes: str, scores: str, max_out: int | None) -> None:
    extra = [] if max_out is None else [Const(np.int64(max_out))]
    gr, _, o, _ = build_both(ov, _gr_nms(version), lambda *a: _ov_nms(version)(*a), [Param(boxes), Param(scores)] + extra)
    assert shapes_of(gr) == shapes_of(o)


@pytest.mark.parametrize("version", ["opset3", "opset4", "opset5", "opset9"])
@pytest.mark.parametrize("btype,stype", [("f16", "f32"), ("bf16", "bf16"), ("dynamic", "dynamic"), ("f32", "f32")])
def test_output_type_attribute_and_input_types(ov, version: str, btype: str, stype: str) -> None:
    inputs = [Param("[1,4,4]", btype), Param("[1,2,4]", stype), Const(np.int32(2))]
    gr, _, o, _ = build_both(ov, _gr_nms(version, output_type="i32"),
                             lambda *a: _ov_nms(version)(*a, output_type="i32"), inputs)
    assert shapes_of(gr) == shapes_of(o)
    assert str(gr[0].element_type) == "i32"


@pytest.mark.parametrize("version,inputs,message", [
    ("opset1", [Param("[4,4]"), Param("[1,2,4]")], "Expected a 3D tensor for the 'boxes' input"),
    ("opset9", [Param("[1,4,4]"), Param("[1,2]")], "Expected a 3D tensor for the 'scores' input"),
    ("opset4", [Param("[3,10,4]"), Param("[2,3,10]")], "The first dimension of both 'boxes' and 'scores' must match"),
    ("opset5", [Param("[2,10,4]"), Param("[2,3,11]")], "'boxes' and 'scores' input shapes must match at the second and third dimension"),
    ("opset3", [Param("[2,10,5]"), Param("[2,3,10]")], "The last dimension of the 'boxes' input must be equal to 4"),
    ("opset1", [Param("[1,4,4]"), Param("[1,2,4]"), Const(np.array([2]))], "Expected a scalar for the 'max_output_boxes_per_class' input."),
    ("opset9", [Param("[1,4,4]"), Param("[1,2,4]"), Const(np.array([2, 3]))], "Expected 0D or 1D tensor for the 'max_output_boxes_per_class' input"),
    ("opset9", [Param("[1,4,4]", "i32"), Param("[1,2,4]")], "Expected bf16, fp16 or fp32 as element type for the 'boxes' input."),
    ("opset5", [Param("[1,4,4]"), Param("[1,2,4]"), Const(np.int64(2)), Const(np.int32(1))], "Expected bf16, fp16 or fp32 as element type for the 'iou_threshold' input."),
])
def test_invalid_inputs_fail_like_openvino(ov, version: str, inputs: list, message: str) -> None:
    with pytest.raises(GraphirError, match=message.replace("(", r"\(").replace(".", r"\.")):
        build_both(ov, _gr_nms(version), lambda *a: None, inputs)
    with pytest.raises(Exception, match=message.replace("(", r"\(").replace(".", r"\.")):
        build_both(ov, lambda *a: [], lambda *a: _ov_nms(version)(*a), inputs)


def _random_case(rng: np.random.Generator, trial: int) -> tuple[np.ndarray, np.ndarray]:
    b, c, n = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 30))
    boxes = rng.integers(0, 10, size=(b, n, 4)).astype(np.float32)  # integer corners: equal IoUs
    if trial % 3 == 0:
        boxes = (rng.random((b, n, 4)) * 10).astype(np.float32)
    scores = (np.round(rng.random((b, c, n)) * 4) / 4).astype(np.float32)  # many tied scores
    if trial % 4 == 0:
        scores = rng.random((b, c, n)).astype(np.float32)
    return boxes, scores


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("seed", range(4))
def test_values_match_openvino_cpu(ov, version: str, seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    for trial in range(12):
        boxes, scores = _random_case(rng, trial)
        attrs = {"box_encoding": str(rng.choice(["corner", "center"])), "sort_result_descending": bool(rng.integers(0, 2))}
        consts = [Const(np.int64(rng.integers(1, 8))), Const(np.float32(rng.choice([0.0, 0.3, 0.5, 1 / 3, 1.0]))),
                  Const(np.float32(rng.choice([0.0, 0.25, 0.5])))]
        if version in ("opset5", "opset9"):
            consts.append(Const(np.float32(rng.choice([0.0, 0.0, 0.5, 0.1]))))
        inputs = [Param(f"[{boxes.shape[0]},{boxes.shape[1]},4]"), Param(f"[{scores.shape[0]},{scores.shape[1]},{scores.shape[2]}]")] + consts
        if version in ("opset5", "opset9"):
            compare(ov, _gr_nms(version, **attrs), lambda *a: _ov_nms(version)(*a, **attrs), inputs, [boxes, scores])
            continue
        # v1/v3/v4: graphir pads to the inferred static rows with -1; the CPU returns the selections
        gr_out, gr_params, _, _ = build_both(ov, _gr_nms(version, **attrs), lambda *a: _ov_nms(version)(*a, **attrs), inputs)
        from graphir.model import Model

        got = list(Model(gr_out, [p.node for p in gr_params]).run([boxes, scores]).values())[0]
        ref = _cpu_selected(ov, version, attrs, inputs, boxes, scores)
        k = int((got[:, 0] >= 0).sum())
        assert (got[k:] == -1).all() and got.shape[0] == gr_out[0].shape[0].get_length()
        np.testing.assert_array_equal(got[:k], ref[:k])
        assert len(ref) == k or len(ref) > got.shape[0]


def _cpu_selected(ov, version, attrs, inputs, boxes, scores) -> np.ndarray:  # noqa: ANN001
    from openvino import opset13 as ops

    from tests.ops.ov_diff import core

    _, _, o, params = build_both(ov, lambda *a: [], lambda *a: _ov_nms(version)(*a, **attrs), inputs)
    compiled = core(ov).compile_model(ov.Model([ops.result(x) for x in o], params), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled({0: boxes, 1: scores})[0]


@pytest.mark.parametrize("version", ["opset5", "opset9"])
def test_edge_cases_match_openvino_cpu(ov, version: str) -> None:
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                       [0, 100, 1, 101], [4, 0, 4, 6], [1, 2, 9, 2]]], np.float32)  # two empty boxes
    scores = np.array([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.6, 0.5], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]]], np.float32)
    params = [Param("[1,8,4]"), Param("[1,2,8]")]
    for max_out, iou, thr, sigma in [(3, 0.5, 0.0, 0.0), (8, 0.0, 0.0, 0.0), (8, 1.0, 0.5, 0.0), (8, 0.5, 0.6, 0.0),
                                     (8, 0.5, 0.95, 0.0), (8, 0.5, 0.0, 0.5), (8, 1.0, 0.3, 0.5), (1, 0.5, 0.0, 0.0)]:
        consts = [Const(np.int64(max_out)), Const(np.float32(iou)), Const(np.float32(thr)), Const(np.float32(sigma))]
        got = compare(ov, _gr_nms(version), lambda *a: _ov_nms(version)(*a), params + consts, [boxes, scores])
        assert got[2][0] == len(got[0])
    # max_output_boxes_per_class 0: empty results; OpenVINO leaves valid_outputs unwritten there
    consts = [Const(np.int64(0)), Const(np.float32(0.5))]
    got = compare(ov, _gr_nms(version), lambda *a: _ov_nms(version)(*a), params + consts, [boxes, scores], skip_outputs=[2])
    assert got[0].shape == (0, 3) and got[2].tolist() == [0]


def test_soft_nms_with_two_empty_boxes_scores_inf_like_the_cpu_kernel(ov) -> None:
    boxes = np.array([[[4.0, 0.0, 4.0, 6.0], [4.0, 3.0, 5.0, 9.0], [1.0, 2.0, 9.0, 2.0], [6.0, 3.0, 8.0, 5.0]]], np.float32)
    scores = np.array([[[0.25, 0.25, 0.5, 0.75]]], np.float32)
    consts = [Const(np.int64(5)), Const(np.float32(0.3)), Const(np.float32(0)), Const(np.float32(0.5))]
    got = compare(ov, _gr_nms("opset9"), lambda *a: _ov_nms("opset9")(*a), [Param("[1,4,4]"), Param("[1,1,4]")] + consts, [boxes, scores])
    assert got[0][0].tolist() == [0, 0, 0] and np.isinf(got[1][0, 2])


@pytest.mark.parametrize("boxes,scores", [(b.replace(",4]", ",5]"), s) for b, s in SHAPES])
@pytest.mark.parametrize("max_out", [0, 5, None])
def test_nms_rotated_shapes(ov, boxes: str, scores: str, max_out: int | None) -> None:
    from openvino import opset13

    extra = [Const(np.int64(0 if max_out is None else max_out)), Const(np.float32(0.5)), Const(np.float32(0.0))]
    gr, _, o, _ = build_both(ov, lambda *a: opset.make("NMSRotated", *a), lambda *a: opset13.nms_rotated(*a),
                             [Param(boxes), Param(scores)] + extra)
    assert shapes_of(gr) == shapes_of(o)


@pytest.mark.parametrize("seed", range(3))
def test_nms_rotated_values_match_openvino_cpu(ov, seed: int) -> None:
    from openvino import opset13

    rng = np.random.default_rng(seed)
    for _ in range(25):
        b, c, n = int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(1, 10))
        boxes = np.c_[rng.random((b * n, 2)) * 8, rng.random((b * n, 2)) * 5 + 0.5,
                      (rng.random(b * n) - 0.5) * 3].astype(np.float32).reshape(b, n, 5)
        scores = rng.random((b, c, n)).astype(np.float32)
        attrs = dict(clockwise=bool(rng.integers(0, 2)), sort_result_descending=bool(rng.integers(0, 2)))
        consts = [Const(np.int64(rng.integers(1, 8))), Const(np.float32(rng.choice([0.1, 0.3, 0.5]))),
                  Const(np.float32(rng.choice([0.0, 0.3])))]
        compare(ov, lambda *a: opset.make("NMSRotated", *a, **attrs), lambda *a: opset13.nms_rotated(*a, **attrs),
                [Param(f"[{b},{n},5]"), Param(f"[{b},{c},{n}]")] + consts, [boxes, scores])


def _overlapping_boxes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Corner boxes on a coarse grid: many ties, touching and empty boxes, heavy overlap."""
    xy = rng.integers(0, 20, (n, 2)).astype(np.float32) * np.float32(rng.choice([1.0, 0.5, 0.37]))
    wh = rng.integers(0, 8, (n, 2)).astype(np.float32)
    return np.concatenate([xy, xy + wh], 1)


@pytest.mark.parametrize("seed", range(3))
def test_sparse_hard_nms_keeps_what_the_box_by_box_loop_keeps(seed: int) -> None:
    from graphir.ops.openvino.detection_nms import box_corners, hard_nms_loop, hard_nms_sparse

    rng = np.random.default_rng(seed)
    used = 0
    for trial in range(150):
        n = int(rng.integers(1, 300))
        corners = box_corners(_overlapping_boxes(rng, n), False)
        scores = rng.integers(0, 10, n).astype(np.float32)
        order = np.lexsort((np.arange(n), -scores))
        for threshold in (0.3, 0.5, 0.7, 1.0, 0.0, -0.1):
            max_out = int(rng.integers(1, n + 2))
            fast = hard_nms_sparse(corners, order, max_out, np.float32(threshold))
            if threshold <= 0:
                assert fast is None  # non-overlapping boxes suppress each other there: the loop decides
                continue
            used += 1
            assert fast == hard_nms_loop(corners, order, max_out, np.float32(threshold)), (trial, threshold)
    assert used == 150 * 4
    corners = box_corners(np.array([[0, 0, 1, np.inf], [0, 0, 1, 1]], np.float32), False)
    assert hard_nms_sparse(corners, np.array([0, 1]), 2, np.float32(0.5)) is None  # non-finite: the loop


def test_sparse_hard_nms_matches_openvino_cpu_on_thousands_of_boxes(ov) -> None:
    rng = np.random.default_rng(7)
    boxes = _overlapping_boxes(rng, 3000)[None] * np.float32(10)
    scores = rng.random((1, 2, 3000), dtype=np.float32)
    params = [Param("[1,3000,4]"), Param("[1,2,3000]")]
    consts = [Const(np.int64(3000)), Const(np.float32(0.5)), Const(np.float32(0.05))]
    got = compare(ov, _gr_nms("opset9"), lambda *a: _ov_nms("opset9")(*a), params + consts, [boxes, scores])
    assert 1000 < len(got[0]) < 5000  # many suppressed, many kept


@pytest.mark.parametrize("seed", range(3))
def test_sparse_hard_nms_pair_window_on_boxes_of_positive_size(seed: int) -> None:
    """Boxes of positive height and width take the narrower pair window (a partner must start
    before ``ymax - 0.99 * t * height``); grid boxes put many IoUs exactly on the thresholds
    (1/2, 1/3, 1/4 ...) and class offsets (torchvision's batched NMS) make large coordinates."""
    from graphir.ops.openvino.detection_nms import box_corners, hard_nms_loop, hard_nms_sparse

    rng = np.random.default_rng(100 + seed)
    for trial in range(120):
        n = int(rng.integers(2, 400))
        xy = rng.integers(0, 12, (n, 2)).astype(np.float32)
        wh = rng.integers(1, 6, (n, 2)).astype(np.float32)
        boxes = np.concatenate([xy, xy + wh], 1)
        if trial % 2:
            boxes += (rng.integers(0, 90, (n, 1)) * 321).astype(np.float32)  # class offsets
        corners = box_corners(boxes, False)
        scores = rng.integers(0, 10, n).astype(np.float32)
        order = np.lexsort((np.arange(n), -scores))
        for threshold in (0.5, 1 / 3, 0.25, 0.2, 0.55, 2 / 3, 1.0):
            t = np.float32(threshold)
            assert hard_nms_sparse(corners, order, n, t) == hard_nms_loop(corners, order, n, t), (trial, threshold)
