"""The ExperimentalDetectron*-6 ops against OpenVINO 2026.4's CPU plugin (built with
openvino.utils.node_factory: the Python API has no builders for them) over random inputs:
boxes of every size including empty ones, tied scores, thresholds, level assignment."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from tests.ops.detection_oracle import Param, compare


def _factory(name: str, attrs: dict):  # noqa: ANN202
    from openvino.utils.node_factory import NodeFactory

    factory = NodeFactory("opset6")
    return lambda *a: factory.create(name, [x.output(0) if hasattr(x, "output") else x for x in a], attrs)


def _gr(name: str, attrs: dict):  # noqa: ANN202
    return lambda *a: opset.make(name, *a, **attrs)


@pytest.mark.parametrize("seed", range(2))
def test_detection_output_values(ov, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for trial in range(15):
        n, c = int(rng.integers(1, 20)), int(rng.integers(2, 5))
        rois = (rng.random((n, 4)) * 50).astype(np.float32)
        rois[:, 2:] += rois[:, :2] * 0.5
        if trial % 3 == 0:
            rois[::3, 2] = rois[::3, 0]  # empty boxes: skipped
        deltas = rng.standard_normal((n, c * 4)).astype(np.float32)
        scores = (np.round(rng.random((n, c)) * 8) / 8).astype(np.float32)  # ties
        attrs = dict(score_threshold=float(rng.choice([0.05, 0.3])), nms_threshold=float(rng.choice([0.3, 0.5])),
                     max_delta_log_wh=2.0, num_classes=c, post_nms_count=int(rng.integers(1, 10)),
                     max_detections_per_image=int(rng.integers(1, 12)), class_agnostic_box_regression=bool(rng.integers(0, 2)),
                     deltas_weights=[10.0, 10.0, 5.0, 5.0])
        compare(ov, _gr("ExperimentalDetectronDetectionOutput", attrs), _factory("ExperimentalDetectronDetectionOutput", attrs),
                [Param(f"[{n},4]"), Param(f"[{n},{c * 4}]"), Param(f"[{n},{c}]"), Param("[1,3]")],
                [rois, deltas, scores, np.array([[60, 70, 1]], np.float32)], rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("seed", range(2))
def test_generate_proposals_single_image_values(ov, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(15):
        a, h, w = (int(v) for v in rng.integers(1, [4, 6, 6]))
        anchors = (rng.random((h * w * a, 4)) * 30).astype(np.float32)
        anchors[:, 2:] += anchors[:, :2]
        deltas = (rng.standard_normal((a * 4, h, w)) * 0.3).astype(np.float32)
        scores = rng.random((a, h, w)).astype(np.float32)
        attrs = dict(min_size=float(rng.choice([0.0, 3.0])), nms_threshold=float(rng.choice([0.3, 0.7])),
                     post_nms_count=int(rng.integers(1, 12)), pre_nms_count=int(rng.integers(1, 40)))
        compare(ov, _gr("ExperimentalDetectronGenerateProposalsSingleImage", attrs),
                _factory("ExperimentalDetectronGenerateProposalsSingleImage", attrs),
                [Param("[3]"), Param(f"[{h * w * a},4]"), Param(f"[{a * 4},{h},{w}]"), Param(f"[{a},{h},{w}]")],
                [np.array([40, 50, 1.0], np.float32), anchors, deltas, scores], rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("im_info", [[0.5, 0.8, 1.0], [-0.4, 30.0, 1.0]])
def test_generate_proposals_single_image_under_one_pixel_clips_to_zero(ov, im_info: list[float]) -> None:
    """An image side under one pixel clips the boxes' coordinates on it to 0, as the CPU plugin's
    max(0, min(v, size - 1)) does (not to size - 1)."""
    rng = np.random.default_rng(7)
    a, h, w = 2, 3, 3
    anchors = (rng.random((h * w * a, 4)) * 10).astype(np.float32)
    anchors[:, 2:] += anchors[:, :2]
    deltas = (rng.standard_normal((a * 4, h, w)) * 0.3).astype(np.float32)
    scores = rng.random((a, h, w)).astype(np.float32)
    attrs = dict(min_size=0.0, nms_threshold=0.7, post_nms_count=5, pre_nms_count=10)
    compare(ov, _gr("ExperimentalDetectronGenerateProposalsSingleImage", attrs),
            _factory("ExperimentalDetectronGenerateProposalsSingleImage", attrs),
            [Param("[3]"), Param(f"[{h * w * a},4]"), Param(f"[{a * 4},{h},{w}]"), Param(f"[{a},{h},{w}]")],
            [np.array(im_info, np.float32), anchors, deltas, scores], rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("aligned", [False, True])
def test_roi_feature_extractor_values(ov, aligned: bool) -> None:
    rng = np.random.default_rng(3)
    maps = [rng.standard_normal((1, 3, 64 // s, 64 // s)).astype(np.float32) for s in (4, 8, 16, 32)]
    rois = (rng.random((12, 4)) * 200).astype(np.float32)
    rois[:, 2:] = rois[:, :2] + rng.random((12, 2)).astype(np.float32) * np.array([[20], [400]] * 6, np.float32)
    attrs = dict(output_size=3, sampling_ratio=2, pyramid_scales=[4, 8, 16, 32], aligned=aligned)
    compare(ov, _gr("ExperimentalDetectronROIFeatureExtractor", attrs), _factory("ExperimentalDetectronROIFeatureExtractor", attrs),
            [Param("[12,4]")] + [Param(str(list(m.shape)).replace(" ", "")) for m in maps], [rois] + maps, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("aligned", [False, True])
def test_roi_feature_extractor_degenerate_boxes_as_openvino_cpu(ov, aligned: bool) -> None:
    """Boxes of no positive area (x2 <= x1 or y2 <= y1) are pooled from no level: their features are 0.
    Sub-pixel boxes pick their level by their plain area (no +1) and are widened to one cell, aligned
    or not (OpenVINO 2026.4's CPU plugin)."""
    rng = np.random.default_rng(5)
    maps = [rng.standard_normal((1, 2, 16 // s, 16 // s)).astype(np.float32) for s in (1, 2, 4)]
    rois = rng.uniform(-1, 1, (24, 4)).astype(np.float32)
    rois[:4, 2:] = rois[:4, :2]  # zero area
    rois[4:8, 2:] = rois[4:8, :2] + np.float32(300)  # large boxes: the last level
    attrs = dict(output_size=2, sampling_ratio=2, pyramid_scales=[1, 2, 4], aligned=aligned)
    compare(ov, _gr("ExperimentalDetectronROIFeatureExtractor", attrs), _factory("ExperimentalDetectronROIFeatureExtractor", attrs),
            [Param("[24,4]")] + [Param(str(list(m.shape)).replace(" ", "")) for m in maps], [rois] + maps, rtol=1e-4, atol=1e-4)


def test_topk_rois_and_prior_grid_values(ov) -> None:
    rng = np.random.default_rng(4)
    rois = rng.random((10, 4)).astype(np.float32)
    probs = (np.round(rng.random(10) * 4) / 4).astype(np.float32)
    compare(ov, _gr("ExperimentalDetectronTopKROIs", {"max_rois": 6}), _factory("ExperimentalDetectronTopKROIs", {"max_rois": 6}),
            [Param("[10,4]"), Param("[10]")], [rois, probs])
    priors = rng.random((3, 4)).astype(np.float32) * 8
    for attrs in (dict(flatten=True, h=0, w=0, stride_x=0.0, stride_y=0.0), dict(flatten=False, h=0, w=0, stride_x=4.0, stride_y=8.0)):
        compare(ov, _gr("ExperimentalDetectronPriorGridGenerator", attrs), _factory("ExperimentalDetectronPriorGridGenerator", attrs),
                [Param("[3,4]"), Param("[1,8,4,5]"), Param("[1,3,32,40]")],
                [priors, np.zeros((1, 8, 4, 5), np.float32), np.zeros((1, 3, 32, 40), np.float32)])
