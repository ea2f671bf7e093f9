"""DeformableConvolution's kernel: bilinear samples gathered per kernel tap, then one BLAS product.

Each kernel tap of each deformable group reads every channel of its group at the same fractional
point per output pixel, so the four corner weights are computed once per pixel (not per channel)
and the corners are gathered as whole channel rows from a pixel-major copy of the image, with one
extra all-zero row standing for a corner outside it. The samples of a block of output pixels are
laid out as im2col columns (pixel, group, tap, channel) and multiplied with the filters in f64
through numpy's BLAS; blocks keep every temporary to about ``BLOCK_ELEMENTS`` values.

Every sample is the reference's expression, in the same order and in f64 (a corner value times its
weight, summed corner by corner), so its bits do not depend on the blocking; only the final sum
over channels and taps follows the BLAS's order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: values per block of im2col columns (f64: 32 MiB)
BLOCK_ELEMENTS = 1 << 22
#: samples of one tap and deformable group computed at once (f64: 128 KiB, in a core's L2 cache with
#: their corners)
CACHED_ELEMENTS = 1 << 14


@dataclass(frozen=True)
class DeformableGeometry:
    """Where kernel tap ``t`` of output pixel ``(i, j)`` reads before its offset:
    ``(i * strides[0] - pads[0] + ty[t], j * strides[1] - pads[1] + tx[t])``."""

    strides: tuple[int, int]
    dilations: tuple[int, int]
    pads: tuple[int, int]
    group: int
    deformable_group: int
    #: OpenVINO-8's ``bilinear_interpolation_pad``: corners outside the image read as 0
    interpolation_pad: bool


def _corners(y: np.ndarray, x: np.ndarray, h: int, w: int, pad: bool) -> tuple[np.ndarray, list[np.ndarray],
                                                                                    list[np.ndarray]]:
    """For sampling points ``(y, x)`` (f64, the data type's values): whether each contributes, and for
    the corners (y1, x1), (y2, x1), (y1, x2), (y2, x2) the flat index into an ``h * w`` image (``h * w``
    when the corner lies outside) and the bilinear weight, as the reference computes them."""
    if pad:
        valid = (np.trunc(y) > -1) & (np.trunc(y) < h) & (np.trunc(x) > -1) & (np.trunc(x) < w)
    else:
        valid = (y >= 0) & (y < h) & (x >= 0) & (x < w)
    # points that do not contribute read the image's first cell (their samples become 0 anyway)
    y = np.where(valid, y, 0.0)
    x = np.where(valid, x, 0.0)
    y1, x1 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    if pad:
        y2, x2 = y1 + 1, x1 + 1
    else:
        y2 = np.minimum(np.ceil(y), h - 1).astype(np.int64)
        x2 = np.minimum(np.ceil(x), w - 1).astype(np.int64)
    dy, dx = y - y1, x - x1
    ry, rx = 1 - dy, 1 - dx
    weights = [rx * ry, rx * dy, dx * ry, dx * dy]
    indices = []
    for yi, xi in ((y1, x1), (y2, x1), (y1, x2), (y2, x2)):
        inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        indices.append(np.where(inside, yi * w + xi, h * w))
    return valid, indices, weights


def _pixel_major(image: np.ndarray, deformable_group: int) -> np.ndarray:
    """``[C, H, W]`` to ``[dg, H*W + 1, C/dg]``: each group's channels per pixel, then a row of zeros."""
    c, h, w = image.shape
    if image.dtype.kind not in "fiu" or image.dtype.itemsize > 8:  # bf16, f8, ...: their f64 values
        image = image.astype(np.float64)
    rows = np.zeros((deformable_group, h * w + 1, c // deformable_group), image.dtype)
    rows[:, :h * w] = image.reshape(deformable_group, c // deformable_group, h * w).transpose(0, 2, 1)
    return rows


class _Sampler:
    """The samples of one call, block of output pixels by block (the im2col columns)."""

    def __init__(self, x: np.ndarray, offsets: np.ndarray, mask: np.ndarray | None, kernel: tuple[int, int],
                 geometry: DeformableGeometry) -> None:
        n, self.c, self.h, self.w = x.shape
        self.x, self.geometry = x, geometry
        kh, kw = kernel
        oh, ow = offsets.shape[2:]
        self.taps, dg = kh * kw, geometry.deformable_group
        self.off = offsets.reshape(n, dg, self.taps, 2, oh * ow)
        self.scale = None if mask is None else mask.reshape(n, dg, self.taps, oh * ow)
        self.ty = (np.arange(kh) * geometry.dilations[0]).repeat(kw)
        self.tx = np.tile(np.arange(kw) * geometry.dilations[1], kh)
        self.row = np.arange(oh * ow) // ow * geometry.strides[0] - geometry.pads[0]
        self.col = np.arange(oh * ow) % ow * geometry.strides[1] - geometry.pads[1]
        self.integer = x.dtype.kind in "iu"
        self.point_type = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
        self._rows: tuple[int, np.ndarray] | None = None

    def _tap(self, b: int, t: int, start: int, stop: int) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray],
                                                                   np.ndarray | None]:
        """Tap ``t`` of every deformable group for output pixels ``[start, stop)``: which points do not
        contribute ``[dg, pixels]``, the corners' row indices ``[dg, pixels]``, their weights and the
        mask's values ``[dg, pixels, 1]`` (f64)."""
        o = self.off[b, :, t, :, start:stop].astype(np.float64)
        # the sampling point in the data type, as OpenVINO computes it (T rel = i + offset)
        y = ((self.row[start:stop] + self.ty[t]) + o[:, 0]).astype(self.point_type).astype(np.float64)
        x = ((self.col[start:stop] + self.tx[t]) + o[:, 1]).astype(self.point_type).astype(np.float64)
        valid, indices, weights = _corners(y, x, self.h, self.w, self.geometry.interpolation_pad)
        scale = None if self.scale is None else self.scale[b, :, t, start:stop].astype(np.float64)[..., None]
        return ~valid, indices, [v[..., None] for v in weights], scale

    def columns(self, b: int, start: int, stop: int, out: np.ndarray) -> None:
        """Image ``b``'s samples for output pixels ``[start, stop)`` into ``out [pixels, group, taps,
        C/group]``, a few pixels at a time (their products and sums stay in the core's cache)."""
        if self._rows is None or self._rows[0] != b:
            self._rows = (b, _pixel_major(self.x[b], self.geometry.deformable_group))
        rows = self._rows[1]
        size, g, dg = stop - start, self.geometry.group, self.geometry.deformable_group
        per_dg = self.c // dg
        step = min(size, max(1, CACHED_ELEMENTS // per_dg))
        staging = np.empty((step, self.c))
        for t in range(self.taps):
            invalid, indices, weights, scale = self._tap(b, t, start, stop)
            for lo in range(0, size, step):
                hi = min(lo + step, size)
                samples = staging[:hi - lo]
                for d in range(dg):
                    part, image = samples[:, d * per_dg:(d + 1) * per_dg], rows[d]
                    np.multiply(weights[0][d, lo:hi], image.take(indices[0][d, lo:hi], axis=0), out=part)
                    for k in range(1, 4):
                        part += weights[k][d, lo:hi] * image.take(indices[k][d, lo:hi], axis=0)
                    if self.integer:  # the sample is truncated into the type, then T arithmetic
                        np.trunc(part, out=part)
                    if scale is not None:
                        part *= scale[d, lo:hi]
                    part[invalid[d, lo:hi]] = 0.0
                out[lo:hi, :, t, :] = samples.reshape(hi - lo, g, self.c // g)


def deformable_columns(x: np.ndarray, offsets: np.ndarray, mask: np.ndarray | None, kernel: tuple[int, int],
                       geometry: DeformableGeometry) -> np.ndarray:
    """Every sample at once, ``[N, OH*OW, group, taps, C/group]`` in f64 (what the product reads)."""
    n, c = x.shape[:2]
    g, pixels = geometry.group, offsets.shape[2] * offsets.shape[3]
    out = np.zeros((n, pixels, g, kernel[0] * kernel[1], c // g))
    if out.size:
        sampler = _Sampler(x, offsets, mask, kernel, geometry)
        for b in range(n):
            sampler.columns(b, 0, pixels, out[b])
    return out


def deformable_conv2d(x: np.ndarray, offsets: np.ndarray, filters: np.ndarray, mask: np.ndarray | None,
                      geometry: DeformableGeometry) -> np.ndarray:
    """``[N, Co, OH, OW]`` in f64 (a transposed view of ``[N, OH, OW, Co]``): the reference's samples
    (f64) times the filters (f64), summed by BLAS."""
    n, c = x.shape[:2]
    co, cig, kh, kw = filters.shape
    oh, ow = offsets.shape[2:]
    g, taps, pixels = geometry.group, kh * kw, oh * ow
    if n * co * pixels == 0 or cig * taps == 0:
        return np.zeros((n, co, oh, ow))
    out = np.empty((n, pixels, co))
    sampler = _Sampler(x, offsets, mask, (kh, kw), geometry)
    cog = co // g
    # filters as [group, taps * channels, outputs], the columns' order
    wt = filters.astype(np.float64).reshape(g, cog, cig, taps).transpose(0, 3, 2, 1).reshape(g, taps * cig, cog)
    block = max(1, min(pixels, BLOCK_ELEMENTS // (c * taps)))
    columns = np.empty((block, g, taps, cig))
    for b in range(n):
        for start in range(0, pixels, block):
            stop = min(start + block, pixels)
            cols = columns[:stop - start]
            sampler.columns(b, start, stop, cols)
            for gi in range(g):
                np.matmul(cols[:, gi].reshape(stop - start, taps * cig), wt[gi],
                          out=out[b, start:stop, gi * cog:(gi + 1) * cog])
    return out.reshape(n, oh, ow, co).transpose(0, 3, 1, 2)
