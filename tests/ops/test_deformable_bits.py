"""DeformableConvolution's and DeformablePSROIPooling's fast kernels against their earlier
implementations, written out here as the oracles, bit for bit.

Both were numpy code whose bits the reference profile promises (docs/numerics.md): every bilinear
sample of DeformableConvolution (f64, the reference's expression and order) and every average of
DeformablePSROIPooling (f32, sample by sample). The kernels now gather and multiply per pixel block,
per tap, per bin; these tests hold their samples (and pooled outputs) to the old code's bytes on
random layers: shapes, groups, deformable groups, strides, dilations, pads, auto_pad, both
``bilinear_interpolation_pad`` values, with and without mask, f32/f16/f64/bf16/integer data, offsets
reaching far outside the image, data with infinities, NaN and -0. DeformableConvolution's final
sum over channels and taps is a BLAS product (docs/numerics.md: convolutions agree to rounding), so
its output is held to within one unit in the last place of the old one.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from graphir.errors import GraphirError
from graphir.kernels.deformable import DeformableGeometry, deformable_columns
from graphir.ops.openvino.conv import resolve_pads
from graphir.ops.openvino.deformable_conv import DeformableConvolution, DeformableConvolution8
from graphir.ops.openvino.roi import DeformablePSROIPooling


# --- the oracles: the implementations before the fast kernels, unchanged but for returning the samples
def old_deformable_samples(op: DeformableConvolution, x: np.ndarray, offsets: np.ndarray, w: np.ndarray,
                           mask: np.ndarray | None) -> np.ndarray:
    """The samples ``[N, C, taps, OH, OW]`` (f64) the earlier DeformableConvolution evaluate summed."""
    n, c, h, wd = x.shape
    co, cig, kh, kw = w.shape
    dg = op.deformable_group
    oh, ow = offsets.shape[2:]
    (ph, pw), _ = resolve_pads((h, wd), [op.dilations[0] * (kh - 1) + 1, op.dilations[1] * (kw - 1) + 1],
                               op.strides, op.pads_begin, op.pads_end, op.auto_pad)
    taps = kh * kw
    off = offsets.astype(np.float64).reshape(n, dg, taps, 2, oh, ow)
    m = np.ones((n, dg, taps, oh, ow)) if mask is None else np.asarray(mask, np.float64).reshape(n, dg, taps, oh, ow)
    ty = (np.arange(kh) * op.dilations[0]).repeat(kw)
    tx = np.tile(np.arange(kw) * op.dilations[1], kh)
    base_y = np.arange(oh) * op.strides[0] - ph
    base_x = np.arange(ow) * op.strides[1] - pw
    y = base_y[None, None, None, :, None] + ty[None, None, :, None, None] + off[:, :, :, 0]
    xx = base_x[None, None, None, None, :] + tx[None, None, :, None, None] + off[:, :, :, 1]
    y = y.astype(x.dtype if x.dtype.kind == "f" else np.float32).astype(np.float64)
    xx = xx.astype(x.dtype if x.dtype.kind == "f" else np.float32).astype(np.float64)
    if op._pad_flag():
        valid = (np.trunc(y) > -1) & (np.trunc(y) < h) & (np.trunc(xx) > -1) & (np.trunc(xx) < wd)
        y1, x1 = np.floor(y).astype(np.int64), np.floor(xx).astype(np.int64)
        y2, x2 = y1 + 1, x1 + 1
    else:
        valid = (y >= 0) & (y < h) & (xx >= 0) & (xx < wd)
        y1 = np.maximum(np.floor(y), 0).astype(np.int64)
        x1 = np.maximum(np.floor(xx), 0).astype(np.int64)
        y2 = np.minimum(np.ceil(y), h - 1).astype(np.int64)
        x2 = np.minimum(np.ceil(xx), wd - 1).astype(np.int64)
    dy, dx = y - y1, xx - x1
    group_of_channel = np.arange(c) // (c // dg)
    xf = x.astype(np.float64)
    bidx = np.arange(n)[:, None, None, None, None]
    cidx = np.arange(c)[None, :, None, None, None]

    def corner(yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
        ok = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < wd)
        ys, xs = np.clip(yi, 0, h - 1)[:, group_of_channel], np.clip(xi, 0, wd - 1)[:, group_of_channel]
        return np.where(ok[:, group_of_channel], xf[bidx, cidx, ys, xs], 0.0)

    g = group_of_channel
    sampled = ((1 - dx[:, g]) * (1 - dy[:, g]) * corner(y1, x1) + (1 - dx[:, g]) * dy[:, g] * corner(y2, x1)
               + dx[:, g] * (1 - dy[:, g]) * corner(y1, x2) + dx[:, g] * dy[:, g] * corner(y2, x2))
    if x.dtype.kind in "iu":
        sampled = np.trunc(sampled)
    return np.where(valid[:, g], sampled * m[:, g], 0.0)


def old_deformable_output(op: DeformableConvolution, x: np.ndarray, offsets: np.ndarray, w: np.ndarray,
                          mask: np.ndarray | None) -> np.ndarray:
    sampled = old_deformable_samples(op, x, offsets, w, mask)
    n, c, taps, oh, ow = sampled.shape
    co, cig = w.shape[:2]
    cols = sampled.reshape(n, op.group, cig * taps, oh * ow)
    wg = w.astype(np.float64).reshape(op.group, co // op.group, cig * taps)
    out = np.einsum("gok,ngkp->ngop", wg, cols).reshape(n, co, oh, ow)
    if x.dtype.kind in "iu":
        return out.astype(np.int64).astype(x.dtype)
    return out.astype(x.dtype)


def old_psroi(op: DeformablePSROIPooling, data: np.ndarray, rois: np.ndarray,
              offsets: np.ndarray | None = None) -> np.ndarray:
    """The earlier DeformablePSROIPooling evaluate: bin by bin, sample by sample, in f32 scalars."""
    data = np.asarray(data)
    x = data.astype(np.float32)
    _, _, height, width = x.shape
    f = np.float32
    g, dim, part = op.group_size, op.output_dim, op.part_size
    bins_x, bins_y = op.spatial_bins_x, op.spatial_bins_y
    off = None if offsets is None else np.asarray(offsets, np.float32)
    classes = 1 if off is None else max(off.shape[1] // 2, 1)
    per_class = max(dim // classes, 1)
    out = np.zeros((len(rois), dim, g, g), np.float32)
    scale = f(op.spatial_scale)
    for n, box in enumerate(np.asarray(rois, np.float32)):
        fmap = x[int(box[0])]
        sw = f(np.round(box[1])) * scale - f(0.5)
        sh = f(np.round(box[2])) * scale - f(0.5)
        ew = f(np.round(box[3]) + 1) * scale - f(0.5)
        eh = f(np.round(box[4]) + 1) * scale - f(0.5)
        rw, rh = max(f(ew - sw), f(0.1)), max(f(eh - sh), f(0.1))
        bw, bh = f(rw / f(g)), f(rh / f(g))
        sbw, sbh = f(bw / f(bins_x)), f(bh / f(bins_y))
        for c in range(dim):
            cls = c // per_class
            for i in range(g):
                for j in range(g):
                    pi, pj = int(np.floor(f(i) / f(g) * f(part))), int(np.floor(f(j) / f(g) * f(part)))
                    tx = ty = f(0)
                    if off is not None:
                        tx = f(off[n, cls * 2, pi, pj] * f(op.trans_std))
                        ty = f(off[n, cls * 2 + 1, pi, pj] * f(op.trans_std))
                    ws = f(f(j) * bw + sw + tx * rw)
                    hs = f(f(i) * bh + sh + ty * rh)
                    plane = fmap[(c * g + i) * g + j]
                    total, count = f(0), 0
                    for iy in range(bins_y):
                        for ix in range(bins_x):
                            px, py = f(ws + f(ix) * sbw), f(hs + f(iy) * sbh)
                            if px < -0.5 or px > width - 0.5 or py < -0.5 or py > height - 0.5:
                                continue
                            px = min(max(px, f(0)), f(width - 1))
                            py = min(max(py, f(0)), f(height - 1))
                            x0, y0 = int(np.floor(px)), int(np.floor(py))
                            x1, y1 = min(x0 + 1, width - 1), min(y0 + 1, height - 1)
                            dx, dy = f(px - x0), f(py - y0)
                            top = plane[y0, x0] * (f(1) - dx) + plane[y0, x1] * dx
                            bottom = plane[y1, x0] * (f(1) - dx) + plane[y1, x1] * dx
                            total = f(total + top * (f(1) - dy) + bottom * dy)
                            count += 1
                    out[n, c, i, j] = total / f(count) if count else 0
    return out.astype(data.dtype)


# --- DeformableConvolution
DTYPES: list[Any] = [np.float32, np.float16, np.float64, ml_dtypes.bfloat16, np.int32, np.uint8, np.int64]


def _with_specials(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A few infinities, NaN and negative zeros (float types), so their propagation is compared too."""
    if a.dtype.kind in "iu" or a.size < 8:
        return a
    flat = a.reshape(-1).copy()
    picks = rng.choice(flat.size, size=min(4, flat.size // 2), replace=False)
    for k, value in zip(picks, (np.inf, -np.inf, np.nan, -0.0)):
        flat[k] = value
    return flat.reshape(a.shape)


def _random_layer(seed: int) -> tuple[DeformableConvolution, list[np.ndarray | None]]:
    rng = np.random.default_rng(seed)
    dtype = np.dtype(DTYPES[seed % len(DTYPES)])
    group, dg = int(rng.choice([1, 1, 2, 3])), int(rng.choice([1, 1, 2, 4]))
    c = int(np.lcm(group, dg)) * int(rng.integers(1, 3))
    co = group * int(rng.integers(1, 4))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    h, w = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    attrs: dict[str, Any] = {"strides": [int(v) for v in rng.integers(1, 3, 2)],
                             "dilations": [int(v) for v in rng.integers(1, 3, 2)],
                             "pads_begin": [int(v) for v in rng.integers(0, 3, 2)],
                             "pads_end": [int(v) for v in rng.integers(0, 3, 2)],
                             "auto_pad": str(rng.choice(["explicit", "explicit", "same_upper", "same_lower"])),
                             "group": group, "deformable_group": dg}
    version8 = seed % 3 != 0
    op: DeformableConvolution
    if version8:
        op = DeformableConvolution8(bilinear_interpolation_pad=bool(seed % 2), **attrs)
    else:
        op = DeformableConvolution(**attrs)
    (ph, pw), (eh, ew) = resolve_pads((h, w), [attrs["dilations"][0] * (kh - 1) + 1,
                                               attrs["dilations"][1] * (kw - 1) + 1],
                                      attrs["strides"], attrs["pads_begin"], attrs["pads_end"], attrs["auto_pad"])
    oh = (h + ph + eh - attrs["dilations"][0] * (kh - 1) - 1) // attrs["strides"][0] + 1
    ow = (w + pw + ew - attrs["dilations"][1] * (kw - 1) - 1) // attrs["strides"][1] + 1
    if oh < 1 or ow < 1:
        return _random_layer(seed + 1000)
    n, taps = int(rng.integers(1, 3)), kh * kw
    if dtype.kind in "iu":
        x = rng.integers(0 if dtype.kind == "u" else -50, 100, size=(n, c, h, w)).astype(dtype)
        filters = rng.integers(0 if dtype.kind == "u" else -3, 4, size=(co, c // group, kh, kw)).astype(dtype)
    else:
        x = _with_specials(rng.uniform(-4, 4, (n, c, h, w)).astype(dtype), rng)
        filters = rng.uniform(-1, 1, (co, c // group, kh, kw)).astype(dtype)
    # offsets mostly within a few cells, some far outside the image, some exactly integral
    offsets = rng.uniform(-3, 3, (n, 2 * dg * taps, oh, ow))
    far = rng.random(offsets.shape) < 0.1
    offsets[far] = rng.uniform(-40, 40, int(far.sum()))
    whole = rng.random(offsets.shape) < 0.1
    offsets[whole] = np.round(offsets[whole])
    offsets = offsets.astype(dtype if dtype.kind == "f" or dtype == ml_dtypes.bfloat16 else np.float32)
    if dtype.kind in "iu":
        offsets = np.round(offsets).astype(dtype)
    elif offsets.size > 8 and seed % 2:  # points at NaN and infinity contribute nothing
        offsets.reshape(-1)[rng.choice(offsets.size, 3, replace=False)] = [np.nan, np.inf, -np.inf]
    mask = None
    if version8 and seed % 4 != 1:
        mask = rng.uniform(0, 1, (n, dg * taps, oh, ow)).astype(offsets.dtype if dtype.kind not in "iu" else dtype)
        if dtype.kind in "iu":
            mask = rng.integers(0, 3, (n, dg * taps, oh, ow)).astype(dtype)
    return op, [x, offsets, filters, mask]


def _geometry(op: DeformableConvolution, x: np.ndarray, w: np.ndarray) -> DeformableGeometry:
    kh, kw = w.shape[2:]
    (ph, pw), _ = resolve_pads(x.shape[2:], [op.dilations[0] * (kh - 1) + 1, op.dilations[1] * (kw - 1) + 1],
                               op.strides, op.pads_begin, op.pads_end, op.auto_pad)
    return DeformableGeometry((op.strides[0], op.strides[1]), (op.dilations[0], op.dilations[1]), (ph, pw),
                              op.group, op.deformable_group, op._pad_flag())


def _assert_sums_agree(op: DeformableConvolution, new: np.ndarray, old: np.ndarray, samples: np.ndarray,
                       w: np.ndarray) -> None:
    """Equal NaN and infinities; finite values within one unit in the last place of the output type
    plus the f64 rounding two orders of summing may differ by (``K * eps * sum |w| |sample|``)."""
    a, b = new.astype(np.float64), old.astype(np.float64)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.array_equal(a[np.isinf(b)], b[np.isinf(b)])
    n, c, taps, oh, ow = samples.shape
    co, cig = w.shape[:2]
    magnitude = np.einsum("gok,ngkp->ngop", np.abs(w.astype(np.float64)).reshape(op.group, co // op.group, -1),
                          np.abs(samples).reshape(n, op.group, cig * taps, oh * ow)).reshape(a.shape)
    finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(magnitude)
    bound = (np.spacing(np.abs(old[finite])).astype(np.float64)
             + cig * taps * np.finfo(np.float64).eps * magnitude[finite])
    assert np.all(np.abs(a[finite] - b[finite]) <= bound)


@pytest.mark.parametrize("seed", range(120))
def test_deformable_samples_are_the_earlier_bits(seed: int) -> None:
    op, (x, offsets, filters, mask) = _random_layer(seed)
    assert x is not None and offsets is not None and filters is not None
    with np.errstate(all="ignore"):  # as a run computes (infinities and NaN in the data)
        old = old_deformable_samples(op, x, offsets, filters, mask)
        new = deformable_columns(x, offsets, mask, filters.shape[2:], _geometry(op, x, filters))
    n, c, taps, oh, ow = old.shape
    g = op.group
    expected = old.reshape(n, g, c // g, taps, oh * ow).transpose(0, 4, 1, 3, 2)
    assert new.shape == expected.shape
    assert new.tobytes() == np.ascontiguousarray(expected).tobytes()


@pytest.mark.parametrize("seed", range(120))
def test_deformable_output_within_an_ulp_of_the_earlier_one(seed: int) -> None:
    op, (x, offsets, filters, mask) = _random_layer(seed)
    assert x is not None and offsets is not None and filters is not None
    args = [x, offsets, filters] + ([] if mask is None else [mask])
    with np.errstate(all="ignore"):  # as a run computes (infinities and NaN in the data)
        old = old_deformable_output(op, x, offsets, filters, mask)
        (new,) = op.evaluate(*args)
        samples = old_deformable_samples(op, x, offsets, filters, mask)
    assert new.dtype == old.dtype and new.shape == old.shape
    if x.dtype.kind in "iu":
        # integer samples times integer filters sum exactly in f64
        assert np.array_equal(new, old)
    else:
        _assert_sums_agree(op, new, old, samples, filters)


@pytest.mark.parametrize("seed", [2, 7, 11, 13])
def test_deformable_output_in_many_pixel_blocks(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Blocks of one output pixel (the image's pixel-major copy reused across blocks, groups staged)."""
    import graphir.kernels.deformable as kernel
    op, (x, offsets, filters, mask) = _random_layer(seed)
    assert x is not None and offsets is not None and filters is not None
    monkeypatch.setattr(kernel, "BLOCK_ELEMENTS", 1)
    args = [x, offsets, filters] + ([] if mask is None else [mask])
    with np.errstate(all="ignore"):
        old = old_deformable_output(op, x, offsets, filters, mask)
        (new,) = op.evaluate(*args)
        samples = old_deformable_samples(op, x, offsets, filters, mask)
    _assert_sums_agree(op, new, old, samples, filters)


# --- DeformablePSROIPooling
def _random_psroi(seed: int) -> tuple[DeformablePSROIPooling, list[np.ndarray | None]]:
    rng = np.random.default_rng(10_000 + seed)
    dtype = np.dtype([np.float32, np.float16, np.float64, ml_dtypes.bfloat16][seed % 4])
    g, dim = int(rng.integers(1, 4)), int(rng.integers(1, 5))
    part = int(rng.integers(1, 4))
    bins_x, bins_y = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    n, h, w = int(rng.integers(1, 3)), int(rng.integers(1, 9)), int(rng.integers(1, 9))
    channels = dim * g * g + int(rng.integers(0, 3))
    op = DeformablePSROIPooling(output_dim=dim, spatial_scale=float(rng.choice([1.0, 0.5, 0.0625, 0.3])),
                                group_size=g, spatial_bins_x=bins_x, spatial_bins_y=bins_y,
                                trans_std=float(rng.choice([1.0, 0.1, 0.37])), part_size=part)
    x = _with_specials(rng.uniform(-4, 4, (n, channels, h, w)).astype(dtype), rng) if seed % 5 == 0 else \
        rng.uniform(-4, 4, (n, channels, h, w)).astype(dtype)
    count = int(rng.integers(1, 6))
    corners = rng.uniform(-6, 2 * max(h, w) / op.spatial_scale, (count, 4))
    if seed % 3 == 0:  # whole and half coordinates (round half to even), empty and inverted boxes
        corners = np.round(corners * 2) / 2
        corners[0, 2:] = corners[0, :2]
        corners[-1, 2:] = corners[-1, :2] - 3
    image = rng.integers(-n, n, count)  # -1: the last image, as the earlier code indexed
    rois = np.concatenate([image[:, None], corners], axis=1).astype(dtype)
    offsets = None
    if seed % 4 != 3:
        classes = int(rng.choice([d for d in range(1, dim + 1) if dim % d == 0]))
        offsets = rng.uniform(-1.5, 1.5, (count, 2 * classes, part, part)).astype(dtype)
        far = rng.random(offsets.shape) < 0.15
        offsets[far] = rng.uniform(-30, 30, int(far.sum())).astype(dtype)
    return op, [x, rois, offsets]


@pytest.mark.parametrize("seed", range(150))
def test_deformable_psroi_pooling_is_the_earlier_bits(seed: int) -> None:
    op, (x, rois, offsets) = _random_psroi(seed)
    assert x is not None and rois is not None
    with np.errstate(all="ignore"):
        old = old_psroi(op, x, rois, offsets)
        (new,) = op.evaluate(x, rois, *([] if offsets is None else [offsets]))
    assert new.dtype == old.dtype and new.shape == old.shape
    assert new.tobytes() == old.tobytes()


def test_deformable_psroi_pooling_blocks_of_one_roi(monkeypatch: pytest.MonkeyPatch) -> None:
    import graphir.ops.openvino.roi as roi
    op, (x, rois, offsets) = _random_psroi(5)
    assert x is not None and rois is not None and len(rois) > 1
    monkeypatch.setattr(roi, "_PSROI_BLOCK", 1)
    with np.errstate(all="ignore"):
        (new,) = op.evaluate(x, rois, offsets)
        old = old_psroi(op, x, rois, offsets)
    assert new.tobytes() == old.tobytes()


def test_deformable_psroi_pooling_nan_offsets_give_nan_bins() -> None:
    """The earlier code failed converting a NaN point to an index; a NaN offset now makes its bins NaN."""
    op = DeformablePSROIPooling(output_dim=1, spatial_scale=1.0, group_size=2, part_size=2)
    offsets = np.zeros((2, 2, 2, 2), np.float32)
    offsets[0, 1, 0, 1] = np.nan  # ROI 0, y of the bin (0, 1)
    rois = np.array([[0, 0, 0, 3, 3], [0, 1, 1, 2, 2]], np.float32)
    data = np.broadcast_to(np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1), (1, 4, 4, 4))
    (out,) = op.evaluate(data, rois, offsets)
    assert np.isnan(out[0, 0, 0, 1]) and np.isnan(out).sum() == 1
    assert out[0, 0, 1, 1] == 3 and out[1, 0, 1, 0] == 2  # bin (i, j) pools channel i * 2 + j


def test_deformable_psroi_pooling_refuses_an_image_outside_the_batch() -> None:
    op = DeformablePSROIPooling(output_dim=1, spatial_scale=1.0, group_size=1)
    x = np.ones((2, 1, 4, 4), np.float32)
    with pytest.raises(GraphirError, match=r"DeformablePSROIPooling.*ROI 1's image index 2.0 is outside "
                                           r"the input's batch of 2"):
        op.evaluate(x, np.array([[1, 0, 0, 2, 2], [2, 0, 0, 2, 2]], np.float32))
    with pytest.raises(GraphirError, match=r"Input channels \(1\) must be at least output_dim x group_size\^2 "
                                           r"\(1 x 2\^2\)"):
        DeformablePSROIPooling(output_dim=1, spatial_scale=1.0, group_size=2).evaluate(
            x, np.array([[0, 0, 0, 2, 2]], np.float32))


def test_deformable_convolution_refuses_to_run_channels_not_divisible_by_deformable_group() -> None:
    from graphir import opset
    from graphir.model import Model
    data, offsets = opset.parameter("[1,6,5,5]"), opset.parameter("[1,72,3,3]")
    out = opset.make("DeformableConvolution", data, offsets,
                     opset.constant(np.ones((2, 6, 3, 3), np.float32)), version="opset8", strides=[1, 1],
                     pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1], deformable_group=4)
    assert not isinstance(out, list) and str(out.shape) == "[1,2,3,3]"  # accepted, as OpenVINO's inference does
    model = Model([out], [data.node, offsets.node])
    with pytest.raises(GraphirError, match=r"Data batch channels \(6\) must be divisible by 'deformable_group' "
                                           r"\(4\) to run"):
        model.run([np.ones((1, 6, 5, 5), np.float32), np.zeros((1, 72, 3, 3), np.float32)])
