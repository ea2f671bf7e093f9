"""DetectionOutput-1/8 against OpenVINO 2026.4: output shapes (keep_top_k / top_k / all priors,
dynamic and interval batches) and CPU values over random priors, box logits and scores (both code
types, shared and per-class locations, pixel and normalised priors, thresholds, clipping)."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from tests.ops.detection_oracle import Param, compare

BASE = dict(keep_top_k=[2], nms_threshold=0.5, background_label_id=-1, top_k=-1, share_location=True,
            code_type="caffe.PriorBoxParameter.CORNER", variance_encoded_in_target=False, normalized=True)


def _ov(version: str):  # noqa: ANN202
    import importlib

    return importlib.import_module(f"openvino.{version}").detection_output


@pytest.mark.parametrize("version", ["opset1", "opset8"])
@pytest.mark.parametrize("extra", [{}, {"keep_top_k": [-1]}, {"keep_top_k": [-1], "top_k": 3}, {"keep_top_k": [-1], "top_k": 10},
                                   {"share_location": False}])
@pytest.mark.parametrize("batch", ["2", "?", "1..2"])
def test_detection_output_shapes(ov, version: str, extra: dict, batch: str) -> None:
    attrs = {**BASE, **extra}
    if version == "opset1":
        attrs["num_classes"] = 3
    loc = 24 if attrs["share_location"] else 72
    compare(ov, lambda *a: opset.make("DetectionOutput", *a, version=version, **attrs), lambda *a: _ov(version)(*a, attrs),
            [Param(f"[{batch},{loc}]"), Param(f"[{batch},18]"), Param("[1,2,24]")], None)


@pytest.mark.parametrize("version", ["opset1", "opset8"])
@pytest.mark.parametrize("seed", range(2))
def test_detection_output_values_match_openvino_cpu(ov, version: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(15):
        n, p, c = int(rng.integers(1, 3)), int(rng.integers(1, 8)), int(rng.integers(2, 4))
        share = bool(rng.integers(0, 2))
        loc_classes = 1 if share else c
        normalized = bool(rng.integers(0, 2))
        size = 4 if normalized else 5
        corner = rng.random((p, 2)).astype(np.float32) * 0.6
        boxes = np.c_[corner, corner + rng.random((p, 2)).astype(np.float32) * 0.4 + 0.05]
        if not normalized:
            boxes = np.c_[np.zeros(p), boxes * 32]  # pixel priors with a leading batch slot
        variances = np.tile(np.array([0.1, 0.1, 0.2, 0.2], np.float32), p)
        proposals = np.stack([boxes.reshape(-1), np.r_[variances, np.zeros(p * size - p * 4)]])[None].astype(np.float32)
        loc = (rng.standard_normal((n, p * loc_classes * 4)) * 0.5).astype(np.float32)
        conf = rng.random((n, p * c)).astype(np.float32)
        attrs = dict(background_label_id=int(rng.choice([-1, 0])), top_k=int(rng.choice([-1, 3])), variance_encoded_in_target=False,
                     keep_top_k=[int(rng.choice([-1, 4]))], share_location=share, nms_threshold=float(rng.choice([0.3, 0.5])),
                     code_type=str(rng.choice(["caffe.PriorBoxParameter.CORNER", "caffe.PriorBoxParameter.CENTER_SIZE"])),
                     confidence_threshold=float(rng.choice([0.0, 0.3])), clip_after_nms=bool(rng.integers(0, 2)),
                     clip_before_nms=bool(rng.integers(0, 2)), normalized=normalized, input_height=32, input_width=32)
        if version == "opset1":
            attrs["num_classes"] = c
        compare(ov, lambda *a: opset.make("DetectionOutput", *a, version=version, **attrs), lambda *a: _ov(version)(*a, attrs),
                [Param(f"[{n},{p * loc_classes * 4}]"), Param(f"[{n},{p * c}]"), Param(f"[1,2,{p * size}]")],
                [loc, conf, proposals], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("version", ["opset1", "opset8"])
@pytest.mark.parametrize("seed", range(2))
def test_detection_output_tied_scores_match_openvino_cpu(ov, version: str, seed: int) -> None:
    """Confidences drawn from {0, .25, .5, .75, 1} over up to 24 priors: keep_top_k then cuts among
    equal scores. The CPU plugin collects the kept boxes class by class and std::sort's them by
    score, the lower prior first among equal scores; equal score and prior (two classes) stay in
    libstdc++'s introsort order (the openvino-cpu profile replays it: graphir.numerics.openvino_cpu.stl_sort)."""
    rng = np.random.default_rng(90 + seed)
    for _ in range(20):
        n, p, c = int(rng.integers(1, 3)), int(rng.integers(8, 25)), int(rng.integers(2, 4))
        share = bool(rng.integers(0, 2))
        loc_classes = 1 if share else c
        corner = rng.random((p, 2)).astype(np.float32) * 0.6
        boxes = np.c_[corner, corner + rng.random((p, 2)).astype(np.float32) * 0.4 + 0.05]
        variances = np.tile(np.array([0.1, 0.1, 0.2, 0.2], np.float32), p)
        proposals = np.stack([boxes.reshape(-1), variances])[None].astype(np.float32)
        loc = (rng.standard_normal((n, p * loc_classes * 4)) * 0.5).astype(np.float32)
        conf = (np.round(rng.random((n, p * c)) * 4) / 4).astype(np.float32)
        attrs = dict(background_label_id=int(rng.choice([-1, 0])), top_k=int(rng.choice([-1, 3])), variance_encoded_in_target=False,
                     keep_top_k=[int(rng.choice([3, 4, 7]))], share_location=share, nms_threshold=float(rng.choice([0.3, 0.5])),
                     code_type="caffe.PriorBoxParameter.CENTER_SIZE", confidence_threshold=float(rng.choice([0.0, 0.3])),
                     clip_after_nms=False, clip_before_nms=True, normalized=True, input_height=32, input_width=32)
        if version == "opset1":
            attrs["num_classes"] = c
        compare(ov, lambda *a: opset.make("DetectionOutput", *a, version=version, **attrs), lambda *a: _ov(version)(*a, attrs),
                [Param(f"[{n},{p * loc_classes * 4}]"), Param(f"[{n},{p * c}]"), Param(f"[1,2,{p * 4}]")],
                [loc, conf, proposals], rtol=1e-4, atol=1e-4)
