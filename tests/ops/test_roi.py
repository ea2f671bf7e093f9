"""ROI ops against OpenVINO 2026.4 (roi.py): inferred types and shapes over static, dynamic and
interval shapes, error texts, and CPU values over random boxes (inside, across and outside the
feature map, empty boxes, every aligned mode, sampling ratios 0..2, avg and max)."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.errors import GraphirError
from tests.ops.detection_oracle import Const, Param, compare, shapes_of
from tests.ops.ov_diff import build_both


def _ov(version: str, name: str):  # noqa: ANN202
    import importlib

    return getattr(importlib.import_module(f"openvino.{version}"), name)


def _roi_align(version: str, ph: int, pw: int, sr: int, scale: float, mode: str, **kw):  # noqa: ANN202
    gr = lambda *a: opset.make("ROIAlign", *a, version=version, pooled_h=ph, pooled_w=pw, sampling_ratio=sr,  # noqa: E731
                               spatial_scale=scale, mode=mode, **kw)
    o = lambda *a: _ov(version, "roi_align")(*a, ph, pw, sr, scale, mode, **kw)  # noqa: E731
    return gr, o


@pytest.mark.parametrize("version", ["opset3", "opset9"])
@pytest.mark.parametrize("data,rois,indices", [
    (("[2,3,8,8]", "f32"), ("[5,4]", "f32"), ("[5]", "i32")),
    (("[...]", "f32"), ("[?,4]", "f32"), ("[3]", "i32")),
    (("[...]", "f16"), ("[...]", "f16"), ("[...]", "i64")),
    (("[1..2,3..4,8,8]", "f32"), ("[1..5,4]", "f32"), ("[2..7]", "i64")),
    (("[2,3,8,8]", "dynamic"), ("[5,4]", "f32"), ("[5]", "u8")),
    (("[2,3,8,8]", "f64"), ("[5,4]", "f64"), ("[5]", "i32")),
])
def test_roi_align_shapes_and_types(ov, version: str, data, rois, indices) -> None:  # noqa: ANN001
    gr, o = _roi_align(version, 2, 3, 2, 0.5, "avg")
    g, _, x, _ = build_both(ov, gr, o, [Param(*data), Param(*rois), Param(*indices)])
    assert shapes_of(g) == shapes_of(x)


@pytest.mark.parametrize("inputs,message", [
    ([Param("[2,3,8,8]", "f16"), Param("[5,4]"), Param("[5]", "i32")], "The data type for input and ROIs is expected to be a same floating point type"),
    ([Param("[2,3,8,8]", "i32"), Param("[5,4]", "i32"), Param("[5]", "i32")], "The data type for input and ROIs is expected to be a same floating point type"),
    ([Param("[2,3,8,8]"), Param("[5,4]"), Param("[5]")], "The data type for batch indices is expected to be an integer"),
    ([Param("[2,3,8,8]"), Param("[5,4]"), Param("[4]", "i32")], "The first dimension of ROIs input must be equal to the first dimension of the batch indices input"),
    ([Param("[2,3,8,8]"), Param("[5,5]"), Param("[5]", "i32")], "The second dimension of ROIs input should contain box coordinates"),
    ([Param("[3,8,8]"), Param("[5,4]"), Param("[5]", "i32")], "Expected a 4D tensor for the input data"),
    ([Param("[2,3,8,8]"), Param("[5,4,1]"), Param("[5]", "i32")], "Expected a 2D tensor for the ROIs input"),
    ([Param("[2,3,8,8]"), Param("[5,4]"), Param("[5,1]", "i32")], "Expected a 1D tensor for the batch indices input"),
])
def test_roi_align_errors_like_openvino(ov, inputs, message: str) -> None:  # noqa: ANN001
    gr, o = _roi_align("opset9", 2, 3, 2, 0.5, "avg")
    with pytest.raises(GraphirError, match=message):
        build_both(ov, gr, lambda *a: None, inputs)
    with pytest.raises(Exception, match=message):
        build_both(ov, lambda *a: [], o, inputs)


@pytest.mark.parametrize("version,aligned", [("opset3", None), ("opset9", "asymmetric"),
                                             ("opset9", "half_pixel_for_nn"), ("opset9", "half_pixel")])
@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_values_match_openvino_cpu(ov, version: str, aligned: str | None, mode: str) -> None:
    rng = np.random.default_rng(7)
    kw = {} if aligned is None else {"aligned_mode": aligned}
    for trial in range(10):
        n, c, h, w, r = (int(v) for v in rng.integers(1, [3, 4, 9, 9, 5]))
        data = rng.standard_normal((n, c, h, w)).astype(np.float32)
        rois = (rng.random((r, 4)) * np.array([w, h, w, h]) * 1.4 - 1).astype(np.float32)
        rois[:, 2:] = np.maximum(rois[:, 2:], rois[:, :2])
        if trial % 3 == 0:
            rois = np.round(rois)  # empty boxes and boxes on cell edges
        indices = rng.integers(0, n, size=r).astype(np.int32)
        ph, pw, sr = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(0, 3))
        scale = float(rng.choice([1.0, 0.5, 2.0]))
        gr, o = _roi_align(version, ph, pw, sr, scale, mode, **kw)
        compare(ov, gr, o, [Param(f"[{n},{c},{h},{w}]"), Param(f"[{r},4]"), Param(f"[{r}]", "i32")],
                [data, rois, indices], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("clockwise", [False, True])
@pytest.mark.parametrize("seed", range(2))
def test_roi_align_rotated_values_match_openvino_cpu(ov, clockwise: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for trial in range(15):
        n, c, h, w, r = (int(v) for v in rng.integers(1, [3, 4, 9, 9, 5]))
        data = rng.standard_normal((n, c, h, w)).astype(np.float32)
        rois = np.c_[rng.random(r) * w, rng.random(r) * h, rng.random(r) * w * 0.8 + 0.1, rng.random(r) * h * 0.8 + 0.1,
                     (rng.random(r) - 0.5) * 4].astype(np.float32)
        if trial % 4 == 0:
            rois[:, 4] = 0  # axis-aligned
        indices = rng.integers(0, n, size=r).astype(np.int32)
        ph, pw, sr = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(0, 3))
        scale = float(rng.choice([1.0, 0.5]))
        compare(ov, lambda d, b, i: opset.make("ROIAlignRotated", d, b, i, pooled_h=ph, pooled_w=pw, sampling_ratio=sr,
                                               spatial_scale=scale, clockwise_mode=clockwise),
                lambda d, b, i: _ov("opset15", "roi_align_rotated")(d, b, i, ph, pw, sr, scale, clockwise),
                [Param(f"[{n},{c},{h},{w}]"), Param(f"[{r},5]"), Param(f"[{r}]", "i32")], [data, rois, indices],
                rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("data,rois,indices", [("[2,3,8,8]", "[5,5]", "[5]"), ("[...]", "[?,5]", "[3]"), ("[1..2,3,?,8]", "[1..5,5]", "[2..7]")])
def test_roi_align_rotated_shapes(ov, data: str, rois: str, indices: str) -> None:
    g, _, x, _ = build_both(ov, lambda *a: opset.make("ROIAlignRotated", *a, pooled_h=2, pooled_w=3, sampling_ratio=2, spatial_scale=0.5),
                            lambda *a: _ov("opset15", "roi_align_rotated")(*a, 2, 3, 2, 0.5, False),
                            [Param(data), Param(rois), Param(indices, "i32")])
    assert shapes_of(g) == shapes_of(x)


def _roi_align_per_box_copy(data, rois, indices, ph, pw, ratio, scale, mode):  # noqa: ANN001, ANN202
    """The former formulation: each box copied its feature map, then gathered rows, then columns."""
    from graphir.ops.openvino.roi import _samples, bilinear_axis

    f = np.float32
    out = np.zeros((len(rois), data.shape[1], ph, pw), np.float32)
    for r in range(len(rois)):
        x1, y1, x2, y2 = (f(v) * f(scale) for v in rois[r])
        w, h = max(f(x2 - x1), f(1)), max(f(y2 - y1), f(1))
        ys, ry = _samples(y1, h, ph, ratio)
        xs, rx = _samples(x1, w, pw, ratio)
        yl, yh, wyl, wyh, vy = bilinear_axis(ys, data.shape[2])
        xl, xh, wxl, wxh, vx = bilinear_axis(xs, data.shape[3])
        valid = (vy[:, None] & vx[None, :]).astype(np.float32)
        fmap = data[int(indices[r])].astype(np.float32)
        weights = [(wy[:, None] * wx[None, :] * valid).astype(np.float32) for wy in (wyl, wyh) for wx in (wxl, wxh)]
        corners = [fmap[:, yy][:, :, xx] for yy in (yl, yh) for xx in (xl, xh)]
        samples = corners[0] * weights[0] + corners[1] * weights[1] + corners[2] * weights[2] + corners[3] * weights[3]
        grid = samples.reshape(data.shape[1], ph, ry, pw, rx)
        if mode == "avg":
            out[r] = (grid * f(f(1) / f(ry * rx))).sum(axis=(2, 4), dtype=np.float32)
        else:
            out[r] = np.maximum(grid.max(axis=(2, 4)), f(0))
    return out


@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_gathers_give_the_bits_of_per_box_copies(mode: str) -> None:
    """The gathers and the batched boxes (fixed sampling ratio) against the former per-box loop."""
    from graphir.ops.openvino.roi import roi_align

    rng = np.random.default_rng(4)
    data = rng.standard_normal((2, 5, 23, 31), dtype=np.float32)
    corners = rng.uniform(-8, 40, (40, 2, 2)).astype(np.float32)
    rois = np.concatenate([corners.min(1), corners.max(1)], 1)  # x1, y1, x2, y2, some outside the map
    indices = rng.integers(0, 2, 40)
    data[0, 1] = -0.0  # a channel of negative zeros: an all -0 bin averages to +0 as numpy sums it
    for ph, pw, ratio, scale in [(7, 7, 2, 0.5), (4, 3, 0, 1.0), (2, 5, 3, 0.25), (3, 3, 1, 0.5), (2, 2, 8, 1.0)]:
        got = roi_align(data, rois, indices, ph, pw, ratio, scale, mode, 0.0, 0.0, True)
        want = _roi_align_per_box_copy(data, rois, indices, ph, pw, ratio, scale, mode)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        one = roi_align(data[:, :1], rois, indices, ph, pw, ratio, scale, mode, 0.0, 0.0, True)
        np.testing.assert_array_equal(one.view(np.uint32), _roi_align_per_box_copy(
            data[:, :1], rois, indices, ph, pw, ratio, scale, mode).view(np.uint32))


@pytest.mark.parametrize("offsets", [(0.5, -0.5, False), (0.0, -0.5, False), (0.0, 0.0, True)])
def test_batched_roi_align_gives_the_per_box_loops_bits_in_every_aligned_mode(offsets, monkeypatch) -> None:  # noqa: ANN001
    from graphir.ops.openvino import roi

    rng = np.random.default_rng(12)
    src, dst, widen = offsets
    for _ in range(25):
        data = rng.standard_normal((2, int(rng.integers(2, 6)), 17, 19)).astype(np.float32)
        corners = rng.uniform(-10, 30, (40, 2, 2)).astype(np.float32)
        rois = np.concatenate([corners.min(1), corners.max(1)], 1)
        indices = rng.integers(0, 2, 40)
        ph, pw, ratio = int(rng.integers(1, 6)), int(rng.integers(1, 6)), int(rng.integers(1, 5))
        for mode in ("avg", "max"):
            batched = roi.roi_align(data, rois, indices, ph, pw, ratio, 0.5, mode, src, dst, widen)
            with monkeypatch.context() as patch:
                patch.setattr(roi, "_MAX_BATCHED_RATIO", 0)  # the per-box loop
                loop = roi.roi_align(data, rois, indices, ph, pw, ratio, 0.5, mode, src, dst, widen)
            np.testing.assert_array_equal(batched.view(np.uint32), loop.view(np.uint32))
