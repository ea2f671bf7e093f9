"""GenerateProposals-9, MulticlassNms-8/9, MatrixNms-8, ROIPooling-2 and PSROIPooling-1 against
OpenVINO 2026.4: inferred types and shapes over static, dynamic and interval inputs, and CPU values
where they agree run for run (GenerateProposals, ROIPooling, PSROIPooling). MulticlassNms/MatrixNms
values: OpenVINO's own op_reference cases (test_detection_op_reference.py) and random CPU cases with
tied scores below."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from tests.ops.detection_oracle import Param, compare


@pytest.mark.parametrize("shapes", [("[2,3]", "[4,5,3,4]", "[2,12,4,5]", "[2,3,4,5]"), ("[?,3]", "[4,5,3,4]", "[?,12,4,5]", "[?,3,4,5]"),
                                    ("[...]", "[...]", "[...]", "[...]"), ("[1..3,4]", "[4,5,3,4]", "[1..3,12,4,5]", "[1..3,3,4,5]"),
                                    ("[2,3]", "[?,?,?,4]", "[2,?,?,?]", "[2,?,?,?]")])
@pytest.mark.parametrize("roi_num_type", ["i64", "i32"])
def test_generate_proposals_shapes(ov, shapes: tuple[str, ...], roi_num_type: str) -> None:
    from openvino import opset9

    attrs = dict(min_size=0.0, nms_threshold=0.7, pre_nms_count=20, post_nms_count=6, roi_num_type=roi_num_type)
    compare(ov, lambda *a: opset.make("GenerateProposals", *a, **attrs),
            lambda *a: opset9.generate_proposals(*a, 0.0, 0.7, 20, 6, roi_num_type=roi_num_type), [Param(s) for s in shapes], None)


@pytest.mark.parametrize("seed", range(3))
def test_generate_proposals_values_match_openvino_cpu(ov, seed: int) -> None:
    from openvino import opset9

    rng = np.random.default_rng(seed)
    for _ in range(15):
        n, a, h, w = (int(v) for v in rng.integers(1, [3, 4, 5, 5]))
        info = np.array([[40, 50, 1.0]] * n, np.float32)
        anchors = (rng.random((h, w, a, 4)) * 30).astype(np.float32)
        anchors[..., 2:] += anchors[..., :2]
        deltas = (rng.standard_normal((n, a * 4, h, w)) * 0.3).astype(np.float32)
        scores = rng.random((n, a, h, w)).astype(np.float32)
        attrs = dict(min_size=float(rng.choice([0, 2, 5])), nms_threshold=float(rng.choice([0.3, 0.7])),
                     pre_nms_count=int(rng.integers(1, 20)), post_nms_count=int(rng.integers(1, 10)),
                     normalized=bool(rng.integers(0, 2)))
        compare(ov, lambda *x: opset.make("GenerateProposals", *x, **attrs),
                lambda *x: opset9.generate_proposals(*x, attrs["min_size"], attrs["nms_threshold"], attrs["pre_nms_count"],
                                                     attrs["post_nms_count"], normalized=attrs["normalized"]),
                [Param(f"[{n},3]"), Param(f"[{h},{w},{a},4]"), Param(f"[{n},{a * 4},{h},{w}]"), Param(f"[{n},{a},{h},{w}]")],
                [info, anchors, deltas, scores], rtol=1e-4, atol=1e-3)


NMS_SHAPES = [("[2,10,4]", "[2,3,10]"), ("[?,10,4]", "[?,3,10]"), ("[2,?,4]", "[2,3,?]"), ("[2,1..10,4]", "[2,3,1..10]"),
              ("[...]", "[...]"), ("[2,10,4]", "[2,?,10]")]
NMS_ATTRS = [{}, {"nms_top_k": 5}, {"keep_top_k": 4}, {"background_class": 1}, {"nms_top_k": 5, "keep_top_k": 40, "background_class": 0}]


@pytest.mark.parametrize("name,builder", [("MulticlassNms", "multiclass_nms"), ("MatrixNms", "matrix_nms")])
@pytest.mark.parametrize("boxes,scores", NMS_SHAPES)
@pytest.mark.parametrize("attrs", NMS_ATTRS)
def test_multiclass_and_matrix_nms_shapes(ov, name: str, builder: str, boxes: str, scores: str, attrs: dict) -> None:
    from openvino import opset8

    compare(ov, lambda *a: opset.make(name, *a, version="opset8", **attrs), lambda *a: getattr(opset8, builder)(*a, **attrs),
            [Param(boxes), Param(scores)], None)


@pytest.mark.parametrize("boxes,scores,rois", [("[3,10,4]", "[3,10]", "[2]"), ("[?,?,4]", "[?,?]", "[?]"), ("[3,1..10,4]", "[3,1..10]", "[2]")])
@pytest.mark.parametrize("attrs", NMS_ATTRS[:4])
def test_multiclass_nms9_three_input_shapes(ov, boxes: str, scores: str, rois: str, attrs: dict) -> None:
    from openvino import opset9

    compare(ov, lambda *a: opset.make("MulticlassNms", *a, version="opset9", **attrs), lambda *a: opset9.multiclass_nms(*a, **attrs),
            [Param(boxes), Param(scores), Param(rois, "i32")], None)


@pytest.mark.parametrize("method", ["max", "bilinear"])
def test_roi_pooling_values_match_openvino_cpu(ov, method: str) -> None:
    from openvino import opset2

    rng = np.random.default_rng(5)
    for _ in range(8):
        n, c, h, w, r = (int(v) for v in rng.integers(2, [3, 4, 9, 9, 5]))
        data = rng.standard_normal((n, c, h, w)).astype(np.float32)
        scale = 1.0 if method == "max" else 1.0
        if method == "max":
            coords = rng.random((r, 4)) * np.array([w, h, w, h]) * 1.2
        else:
            coords = rng.random((r, 4)) * 0.9  # normalised; strictly inside, away from the last row/column
        coords[:, 2:] = np.maximum(coords[:, 2:], coords[:, :2])
        rois = np.concatenate([rng.integers(0, n, size=(r, 1)), coords], axis=1).astype(np.float32)
        ph, pw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        compare(ov, lambda d, b: opset.make("ROIPooling", d, b, pooled_h=ph, pooled_w=pw, spatial_scale=scale, method=method),
                lambda d, b: opset2.roi_pooling(d, b, [ph, pw], scale, method),
                [Param(f"[{n},{c},{h},{w}]"), Param(f"[{r},5]")], [data, rois], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode,bins", [("average", 1), ("bilinear", 2)])
def test_psroi_pooling_values_match_openvino_cpu(ov, mode: str, bins: int) -> None:
    from openvino import opset1

    rng = np.random.default_rng(9)
    group, dim = 3, 2
    channels = dim * group * group if mode == "average" else dim * bins * bins
    data = rng.standard_normal((1, channels, 8, 8)).astype(np.float32)
    coords = rng.random((4, 4)) * 12
    coords[:, 2:] = np.maximum(coords[:, 2:], coords[:, :2]) + 1
    rois = np.concatenate([np.zeros((4, 1)), coords], axis=1).astype(np.float32)
    attrs = dict(output_dim=dim, group_size=group, spatial_scale=0.5, spatial_bins_x=bins, spatial_bins_y=bins, mode=mode)
    compare(ov, lambda d, b: opset.make("PSROIPooling", d, b, **attrs),
            lambda d, b: opset1.psroi_pooling(d, b, dim, group, 0.5, bins, bins, mode),
            [Param(f"[1,{channels},8,8]"), Param("[4,5]")], [data, rois], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("version", ["opset1", "opset4"])
@pytest.mark.parametrize("shapes", [("[2,6,5,5]", "[2,12,5,5]", "[3]"), ("[?,6,5,5]", "[?,12,5,5]", "[3]"),
                                    ("[1..3,6,?,?]", "[...]", "[4]"), ("[...]", "[...]", "[?]")])
def test_proposal_shapes(ov, version: str, shapes: tuple[str, ...]) -> None:
    import importlib

    attrs = dict(base_size=16, pre_nms_topn=50, post_nms_topn=7, nms_thresh=0.7, feat_stride=16, min_size=16,
                 ratio=[0.5, 1.0, 2.0], scale=[8.0], clip_before_nms=True, clip_after_nms=False, normalize=False,
                 box_size_scale=1.0, box_coordinate_scale=1.0, framework="")
    ov_attrs = {**attrs, "base_size": np.uint32(16), "pre_nms_topn": np.uint32(50), "post_nms_topn": np.uint32(7),
                "feat_stride": np.uint32(16), "min_size": np.uint32(16), "ratio": np.array(attrs["ratio"], np.float32),
                "scale": np.array(attrs["scale"], np.float32), "nms_thresh": np.float32(0.7),
                "box_size_scale": np.float32(1), "box_coordinate_scale": np.float32(1)}
    mod = importlib.import_module(f"openvino.{version}")
    compare(ov, lambda *a: opset.make("Proposal", *a, version=version, **attrs), lambda *a: mod.proposal(*a, ov_attrs),
            [Param(s) for s in shapes], None)


def test_stl_partial_sort_matches_libstdcxx() -> None:
    """The order GCC's std::partial_sort leaves equal keys in (compiled and run with g++ 12 on these values)."""
    from graphir.numerics.openvino_cpu.stl_sort import stl_partial_sort

    scores = [1.0, 0.625, 0.75, 0.5, 0.25, 0.375, 1.0, 0.25, 1.0, 0.75, 0.375]
    assert stl_partial_sort([0, 1, 2, 3, 5, 6, 8, 9, 10], 3, lambda a, b: scores[a] > scores[b]) == [8, 0, 6, 3, 5, 1, 2, 9, 10]


def test_stl_sort_matches_libstdcxx() -> None:
    """GCC's std::sort (introsort: 35 items take the partition path) on keys with many equal values,
    compared by key only: the item order g++ 12's libstdc++ gave (compiled and run on these keys;
    200 such arrays of 0-69 items matched when this was written)."""
    from graphir.numerics.openvino_cpu.stl_sort import stl_sort

    keys = [0, 0, 1, 3, 1, 2, 0, 2, 3, 1, 3, 0, 1, 2, 0, 3, 1, 2, 3, 0, 2, 0, 0, 0, 2, 2, 3, 3, 2, 3, 1, 2, 3, 3, 3]
    got = stl_sort(list(range(len(keys))), lambda a, b: keys[a] > keys[b])
    assert got == [8, 18, 15, 26, 10, 27, 29, 32, 3, 33, 34, 28, 17, 31, 25, 24, 20, 5, 13, 7, 16, 2, 4, 30, 12, 9,
                   1, 0, 6, 11, 23, 22, 21, 14, 19]


def test_roi_pooling_bilinear_samples_on_the_last_row_and_column(ov) -> None:
    """Boxes reaching 1.0: the last sample lands on row/column H-1 (a fused multiply-add keeps it there)."""
    from openvino import opset2

    data = np.random.default_rng(2).standard_normal((1, 2, 50, 50)).astype(np.float32)
    rois = np.array([[0, 0, 0, 1, 1], [0, 0.2, 0.1, 1, 1], [0, 0.3, 0.3, 0.7, 1]], np.float32)
    compare(ov, lambda d, b: opset.make("ROIPooling", d, b, pooled_h=4, pooled_w=4, spatial_scale=1.0, method="bilinear"),
            lambda d, b: opset2.roi_pooling(d, b, [4, 4], 1.0, "bilinear"),
            [Param("[1,2,50,50]"), Param("[3,5]")], [data, rois], rtol=1e-5, atol=1e-5)


def _multiclass_case(rng: np.random.Generator, name: str) -> tuple[dict, np.ndarray, np.ndarray]:
    b, c, n = (int(v) for v in rng.integers(1, [3, 4, 12]))
    boxes = (rng.random((b, n, 4)) * 10).astype(np.float32)
    boxes[..., 2:] += boxes[..., :2]
    scores = (np.round(rng.random((b, c, n)) * 4) / 4).astype(np.float32)  # many tied scores, some exactly 0
    attrs = dict(sort_result_type=str(rng.choice(["classid", "score", "none"])), sort_result_across_batch=bool(rng.integers(0, 2)),
                 nms_top_k=int(rng.choice([-1, 3, 5])), keep_top_k=int(rng.choice([-1, 4, 10])),
                 background_class=int(rng.choice([-1, 0])), normalized=bool(rng.integers(0, 2)),
                 score_threshold=float(rng.choice([0.0, 0.2])))
    if name == "MulticlassNms":
        attrs.update(iou_threshold=float(rng.choice([0.3, 0.5])), nms_eta=float(rng.choice([1.0, 0.7])))
    else:
        attrs.update(decay_function=str(rng.choice(["gaussian", "linear"])), post_threshold=float(rng.choice([0.0, 0.1])))
    return attrs, boxes, scores


@pytest.mark.parametrize("name", ["MulticlassNms", "MatrixNms"])
@pytest.mark.parametrize("seed", range(4))
def test_multiclass_and_matrix_nms_values_with_ties_match_openvino_cpu(ov, name: str, seed: int) -> None:
    """Random boxes with tied (and zero) scores over every sort mode: rows, indices and counts
    equal to OpenVINO CPU's, order included. Found this way: MulticlassNms keeps scores equal to
    the threshold (the CPU plugin's ``>=``), and with ``nms_eta`` < 1 a box whose score equals the
    threshold is checked against the latest kept box only (its eta loop stops there); MatrixNms's IoU is its own (boxes apart give 0 even
    when the unnormalized +1 would overlap them). OpenVINO's CPU MatrixNms refuses a run that
    selects nothing ("Total number of boxes is less or equal than 0"): those draws are skipped
    over (graphir returns the empty result)."""
    from openvino import opset8, opset9

    rng = np.random.default_rng(40 + seed)
    ran = 0
    for _ in range(25):
        attrs, boxes, scores = _multiclass_case(rng, name)
        b, c, n = scores.shape
        if name == "MulticlassNms":
            builders = (lambda *a: opset.make(name, *a, version="opset9", **attrs), lambda *a: opset9.multiclass_nms(*a, **attrs))
        else:
            builders = (lambda *a: opset.make(name, *a, version="opset8", **attrs), lambda *a: opset8.matrix_nms(*a, **attrs))
        try:
            compare(ov, *builders, [Param(f"[{b},{n},4]"), Param(f"[{b},{c},{n}]")], [boxes, scores])
        except RuntimeError as exc:
            assert name == "MatrixNms" and "Total number of boxes is less or equal than 0" in str(exc)
            continue
        ran += 1
    assert ran >= 15


def _proposal_case(rng: np.random.Generator) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    ratios = [[1.0], [0.5, 1.0, 2.0], [0.5, 2.0]][int(rng.integers(0, 3))]
    scales = [[1.0], [2.0, 4.0], [8.0]][int(rng.integers(0, 3))]
    a = len(ratios) * len(scales)
    n, h, w = (int(v) for v in rng.integers(1, [3, 6, 6]))
    stride = int(rng.choice([4, 8, 16]))
    size = np.round([h * stride * rng.uniform(0.8, 1.2), w * stride * rng.uniform(0.8, 1.2)])
    info = np.concatenate([size, [rng.choice([1.0, 0.5, 2.0])] * int(rng.choice([1, 2]))]).astype(np.float32)
    probs = (np.round(rng.random((n, 2 * a, h, w)) * 4) / 4).astype(np.float32)  # tied scores
    deltas = (rng.standard_normal((n, 4 * a, h, w)) * 0.3).astype(np.float32)
    attrs = dict(base_size=int(rng.choice([8, 16])), pre_nms_topn=int(rng.integers(1, 60)), post_nms_topn=int(rng.integers(1, 20)),
                 nms_thresh=float(rng.choice([0.3, 0.7])), feat_stride=stride, min_size=int(rng.choice([1, 4, 16])),
                 ratio=ratios, scale=scales, clip_before_nms=bool(rng.integers(0, 2)), clip_after_nms=bool(rng.integers(0, 2)),
                 normalize=bool(rng.integers(0, 2)), box_size_scale=float(rng.choice([1.0, 2.0])),
                 box_coordinate_scale=float(rng.choice([1.0, 2.0])), framework=str(rng.choice(["", "tensorflow"])))
    return attrs, probs, deltas, info


@pytest.mark.parametrize("seed", range(3))
def test_proposal_values_match_openvino_cpu(ov, seed: int) -> None:
    """Proposal-4 over random maps with tied scores, both frameworks, every clip/normalize flag,
    1-2 images, 3- and 4-element image info: rois equal to OpenVINO CPU's (the end-of-list -1
    marker included), and the scores of the valid rows (the CPU leaves the others unwritten).

    The input domain avoids where OpenVINO 2026.4's CPU plugin crashes (SIGSEGV, measured in a
    child process over a pre/post grid): fewer than 8 boxes reaching NMS (min(pre_nms_topn,
    anchors x H x W) < 8) with post_nms_topn >= 2 -- its 8-wide AVX2 loop bound underflows. graphir
    computes those cases as the algorithm reads (no crash to match)."""
    import openvino as ov_module
    from openvino import opset4, opset13 as ops

    from graphir.model import Model

    rng = np.random.default_rng(70 + seed)
    ran = 0
    for _ in range(30):
        attrs, probs, deltas, info = _proposal_case(rng)
        anchors = len(attrs["ratio"]) * len(attrs["scale"])
        if min(attrs["pre_nms_topn"], anchors * probs.shape[2] * probs.shape[3]) < 8 and attrs["post_nms_topn"] > 1:
            continue
        ov_attrs = {**attrs, "ratio": np.array(attrs["ratio"], np.float32), "scale": np.array(attrs["scale"], np.float32)}
        for key in ("base_size", "pre_nms_topn", "post_nms_topn", "feat_stride", "min_size"):
            ov_attrs[key] = np.uint32(attrs[key])
        for key in ("nms_thresh", "box_size_scale", "box_coordinate_scale"):
            ov_attrs[key] = np.float32(attrs[key])
        params = [ops.parameter(list(x.shape), ov_module.Type.f32) for x in (probs, deltas, info)]
        node = opset4.proposal(*params, ov_attrs)
        compiled = ov_module.Core().compile_model(ov_module.Model([node.output(0), node.output(1)], params), "CPU",
                                                   {"INFERENCE_PRECISION_HINT": "f32"})
        result = compiled([probs, deltas, info])
        want_rois, want_probs = result[0], result[1]
        gr_params = [opset.parameter(list(x.shape), "f32") for x in (probs, deltas, info)]
        outs = opset.make("Proposal", *gr_params, version="opset4", **attrs)
        got_rois, got_probs = Model(outs, [p.node for p in gr_params]).run([probs, deltas, info],
                                                                           numerics="openvino-cpu").values()
        np.testing.assert_allclose(got_rois, want_rois, rtol=1e-5, atol=1e-4, err_msg=str(attrs))
        post = attrs["post_nms_topn"]
        for image in range(probs.shape[0]):
            rows = want_rois[image * post:(image + 1) * post, 0]
            valid = int(np.argmax(rows == -1)) if (rows == -1).any() else post
            np.testing.assert_allclose(got_probs[image * post:image * post + valid], want_probs[image * post:image * post + valid],
                                       rtol=1e-5, atol=1e-5, err_msg=str(attrs))
        ran += 1
    assert ran >= 10


def test_psroi_pooling_average_degenerate_boxes_match_openvino_cpu(ov) -> None:
    """Boxes off the map's top-left, reversed (end before start) or with halves to round: corners round
    half away from zero, boxes are at least 0.1 wide and bins are clamped to the map, as the CPU plugin
    does (a negative bin start once read the map's last rows)."""
    from openvino import opset1

    rng = np.random.default_rng(11)
    group, dim = 3, 2
    data = rng.standard_normal((1, dim * group * group, 6, 7)).astype(np.float32)
    coords = rng.uniform(-3, 3, (8, 4)).astype(np.float32)
    coords[:2] = [[-2.5, -1.5, 0.5, 1.5], [2.5, 3.5, -0.5, 0.5]]
    rois = np.concatenate([np.zeros((8, 1)), coords], axis=1).astype(np.float32)
    attrs = dict(output_dim=dim, group_size=group, spatial_scale=1.0, spatial_bins_x=1, spatial_bins_y=1, mode="average")
    compare(ov, lambda d, b: opset.make("PSROIPooling", d, b, **attrs),
            lambda d, b: opset1.psroi_pooling(d, b, dim, group, 1.0, 1, 1, "average"),
            [Param(f"[1,{dim * group * group},6,7]"), Param("[8,5]")], [data, rois], rtol=1e-5, atol=1e-5)


def test_deformable_psroi_pooling_other_mode_reads_like_openvino_and_refuses_to_run(ov) -> None:
    """OpenVINO reads any ``mode`` string (its ngraph_reader tests read ``bilinear``) and infers the
    output; only running refuses it (its CPU plugin: "Doesn't support mode: bilinear")."""
    from openvino import opset1

    from graphir.errors import GraphirError
    from graphir.model import Model

    d, r = opset.parameter("[1,8,6,6]"), opset.parameter("[3,5]")
    out = opset.make("DeformablePSROIPooling", d, r, output_dim=2, spatial_scale=1.0, group_size=2, mode="bilinear")
    od, orr = opset1.parameter([1, 8, 6, 6], np.float32), opset1.parameter([3, 5], np.float32)
    ov_out = opset1.deformable_psroi_pooling(od, orr, 2, 1.0, 2, "bilinear")
    assert str(out.tensor_type) == f"f32{ov_out.get_output_partial_shape(0)}".replace(" ", "")
    with pytest.raises(RuntimeError, match="Doesn't support mode: bilinear"):
        ov.Core().compile_model(ov.Model([ov_out], [od, orr]), "CPU")
    with pytest.raises(GraphirError, match="Doesn't support mode: bilinear"):
        Model([out], [d, r]).run([np.zeros((1, 8, 6, 6), np.float32), np.zeros((3, 5), np.float32)])
