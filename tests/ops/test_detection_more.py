"""GenerateProposals-9, MulticlassNms-8/9, MatrixNms-8, ROIPooling-2 and PSROIPooling-1 against
OpenVINO 2026.4: inferred types and shapes over static, dynamic and interval inputs, and CPU values
where they agree run for run (GenerateProposals, ROIPooling, PSROIPooling). MulticlassNms/MatrixNms
values are checked by OpenVINO's own op_reference cases (test_detection_op_reference.py)."""
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
    from graphir.ops.openvino.detection_nms import stl_partial_sort

    scores = [1.0, 0.625, 0.75, 0.5, 0.25, 0.375, 1.0, 0.25, 1.0, 0.75, 0.375]
    assert stl_partial_sort([0, 1, 2, 3, 5, 6, 8, 9, 10], 3, lambda a, b: scores[a] > scores[b]) == [8, 0, 6, 3, 5, 1, 2, 9, 10]


def test_roi_pooling_bilinear_samples_on_the_last_row_and_column(ov) -> None:
    """Boxes reaching 1.0: the last sample lands on row/column H-1 (a fused multiply-add keeps it there)."""
    from openvino import opset2

    data = np.random.default_rng(2).standard_normal((1, 2, 50, 50)).astype(np.float32)
    rois = np.array([[0, 0, 0, 1, 1], [0, 0.2, 0.1, 1, 1], [0, 0.3, 0.3, 0.7, 1]], np.float32)
    compare(ov, lambda d, b: opset.make("ROIPooling", d, b, pooled_h=4, pooled_w=4, spatial_scale=1.0, method="bilinear"),
            lambda d, b: opset2.roi_pooling(d, b, [4, 4], 1.0, "bilinear"),
            [Param("[1,2,50,50]"), Param("[3,5]")], [data, rois], rtol=1e-5, atol=1e-5)


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
