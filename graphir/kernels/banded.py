"""Depthwise convolutions on small maps as one banded matrix product per channel.

A depthwise layer's column layout (``[G, K, L]``: every tap's copy of the input, K times the
input) costs more to write than the per-channel BLAS products over it take. On maps a few
outputs wide (``graphir.kernels.conv.BANDED_MAX_WIDTH``) there is a layout that reads each input
row once per kernel row: for channel ``g``

    out[g, r, c] = sum over (i, c') of A[g, r, (i, c')] * B[g, (i, c'), c]

with ``A[g, r, (i, c')]`` the padded input at row ``r * sy + i * dy``, column ``c'`` (``kh`` rows of
the input per output row: ``kh / (kh * kw)`` of the columns' copies) and ``B`` the filters laid out
once as a band: ``B[g, (i, c * sx + j * dx), c] = w[g, i, j]``, zero elsewhere (on 7-wide maps a
product row holds two output rows: see :class:`BandedDepthwise`). Its nonzero terms come in tap
order ``(i, j)``; the zero ones add ``+-0`` to a running sum that starts at ``+0`` and so is never
``-0``, which leaves it as it is while the input is finite. OpenBLAS's small products sum their
inner dimension in order with FMAs from zero, as its gemv does for the columns layout, so both
give the same bits - where they do: whether a product shape sums that way depends on the BLAS and
the shape (OpenBLAS 0.3.31 on SkylakeX: 7, 8 or 56 columns with 55+ inner items do not), so each
shape is checked once per process against the columns layout on random values with zeros
(:func:`_same_bits`), and other shapes (two rows per product row, a wider band whose extra columns
are dropped) are tried when the plain one does not match. Bands whose zeros cost too many
multiply-adds (:data:`BANDED_MAX_WASTE`) are not used. Inputs that are not all finite
(``0 * inf``) take the columns layout.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from graphir.kernels.once import once_per_key

#: bytes of banded filters a layer may lay out (a band holds ``N * kh * width`` values per channel)
BANDED_MAX_WEIGHT_BYTES = 16 << 20
#: bytes of ``A`` rows built at a time (a block of channels stays in cache for its products)
BANDED_BLOCK_BYTES = 1 << 19
#: the band is used only below this many multiply-adds per output per tap (:meth:`BandedDepthwise.waste`):
#: measured per layer inside whole runs (the band then comes from memory, not cache), 1 thread:
#: 240x14x14 5x5 (3.6) 320 -> 285 us, 144x14x14 5x5 (3.6) 198 -> 178, 512x5x5 3x3 (2.3) 60 -> 46;
#: 480x14x14 3x3 (5.3) 308 -> 372, 288x14x14 5x5/2 (6.8) 230 -> 248, DeepLabV3's 16-wide 3x3
#: (6.0) and 5x5 dilation 2 (4.8) slower by 5-25%, 1152x7x7 5x5 with one row per product (4.4)
#: 600 -> 700 (two rows per product: 2.6)
BANDED_MAX_WASTE = 4.0
#: channels of the once-per-shape check against the columns layout
_CHECK_CHANNELS = 6

_checked: dict[tuple[Any, ...], bool] = {}


class BandedDepthwise:
    """The banded layout of one 2-D f32 depthwise convolution's static shapes, or ``ok=False``.

    A product row covers ``R`` output rows (``R = 2`` on maps so narrow that one row's outputs
    would leave the band's columns mostly padding: 7-wide maps take ``N = 14`` either way, and two
    rows make all 14 outputs): it reads ``(R - 1) * sy + kh`` padded input rows (``band_rows``)."""

    def __init__(self, x_shape: Sequence[int], groups: int, kernel: Sequence[int], strides: Sequence[int],
                 dilations: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
                 out_spatial: Sequence[int], reference: Callable[[int], Callable[[np.ndarray, np.ndarray], np.ndarray]]
                 ) -> None:
        """``reference(channels)``: the columns-layout kernel of this layer with that many channels
        (``kernel(x, w [G, 1, 1, kh, kw])`` -> output), to check the product's order against."""
        self.height, self.width = int(x_shape[2]), int(x_shape[3])
        self.groups = groups
        (self.kh, self.kw), (self.sy, self.sx) = (int(k) for k in kernel), (int(s) for s in strides)
        (self.dy, self.dx), (self.pby, self.pbx) = (int(d) for d in dilations), (int(b) for b in pads_begin)
        self.oh, self.ow = (int(o) for o in out_spatial)
        #: the padded columns the windows read
        self.span = (self.ow - 1) * self.sx + (self.kw - 1) * self.dx + 1
        self.columns = 0  # the band's width N (>= R * ow); 0: not usable
        key = (tuple(int(d) for d in x_shape[2:]), self.kh, self.kw, self.sy, self.sx, self.dy, self.dx, self.pby,
               self.pbx, tuple(int(e) for e in pads_end))
        shapes = [(1, self.ow)] + ([(2, 2 * self.ow)] if self.dy == 1 and self.oh >= 2 else []) + [(1, 2 * self.ow), (1, 16)]
        chosen = None
        for rows_per, columns in dict.fromkeys(shapes):
            self._shape(rows_per, columns)
            if (columns < rows_per * self.ow or groups * self.inner * columns * 4 > BANDED_MAX_WEIGHT_BYTES
                    or self.waste() >= BANDED_MAX_WASTE):
                continue
            if _same_bits(self, key + (rows_per, columns), reference):
                chosen = (rows_per, columns)
                break
        self._shape(*(chosen or (1, self.ow)))
        self.ok = chosen is not None
        if not self.ok:
            self.columns = 0

    def _shape(self, rows_per: int, columns: int) -> None:
        self.rows_per, self.columns = rows_per, columns
        #: padded input rows per product row, the step between them, product rows
        self.band_rows = self.kh if rows_per == 1 else (rows_per - 1) * self.sy + self.kh
        self.row_step = self.dy if rows_per == 1 else 1
        self.products = -(-self.oh // rows_per)
        self.inner = self.band_rows * self.span
        #: the padded input's rows the product rows read, and where the input goes in it (rows, columns)
        self.padded_rows = (self.products - 1) * rows_per * self.sy + (self.band_rows - 1) * self.row_step + 1
        self.place = [_placement(self.pby, self.height, self.padded_rows), _placement(self.pbx, self.width, self.span)]

    def waste(self) -> float:
        """Multiply-adds per output over taps per output (the band's zeros, its unused columns)."""
        return self.inner * self.columns / (self.rows_per * self.ow * self.kh * self.kw)

    def weights(self, w: np.ndarray) -> np.ndarray:
        """The band ``[G, band_rows * span, N]`` of filters ``w [G, 1, 1, kh, kw]`` (f32)."""
        taps = np.asarray(w, np.float32).reshape(self.groups, self.kh, self.kw)
        band = np.zeros((self.groups, self.band_rows, self.span, self.columns), np.float32)
        for q in range(self.rows_per):  # output row q of a product row reads band rows q*sy + i*dy
            first = q * self.sy if self.rows_per > 1 else 0
            step = self.dy if self.rows_per > 1 else 1
            for c in range(self.ow):
                band[:, first:first + (self.kh - 1) * step + 1:step,
                     c * self.sx:c * self.sx + (self.kw - 1) * self.dx + 1:self.dx, q * self.ow + c] = taps
        return band.reshape(self.groups, self.inner, self.columns)

    def __call__(self, x: np.ndarray, band: np.ndarray, out: np.ndarray) -> bool:
        """Write the convolution of ``x [N, G, H, W]`` (f32) into ``out [N, G, oh, ow]``; False (nothing
        written) when ``x`` is not all finite or its sum overflows: the caller takes the columns layout."""
        if not np.isfinite(np.add.reduce(x, axis=None)):
            return False
        groups, oh, ow, columns, span = self.groups, self.oh, self.ow, self.columns, self.span
        products, rows_per = self.products, self.rows_per
        padded = np.empty((groups, self.padded_rows, span), np.float32)
        (row_to, row_from), (col_to, col_from) = self.place
        padded.fill(0)  # (one pass: cheaper than the border's four strided regions)
        block = min(groups, max(1, BANDED_BLOCK_BYTES // (products * self.inner * 4)))
        rows = np.empty((block, products, self.band_rows, span), np.float32)
        flat = rows.reshape(block, products, self.inner)
        direct = columns == ow and rows_per == 1  # the product is the output itself
        product = None if direct else np.empty((block, products, columns), np.float32)
        item = padded.itemsize
        strides = (rows_per * self.sy * span * item, self.row_step * span * item, item)
        for image in range(x.shape[0]):
            padded[:, row_to, col_to] = x[image, :, row_from, col_from]
            for start in range(0, groups, block):
                stop = min(groups, start + block)
                count = stop - start
                part = padded[start:stop]
                rows[:count] = as_strided(part, (count, products, self.band_rows, span), (part.strides[0],) + strides,
                                          writeable=False)
                if product is None:
                    np.matmul(flat[:count], band[start:stop], out=out[image, start:stop])
                    continue
                np.matmul(flat[:count], band[start:stop], out=product[:count])
                used = product[:count, :, :rows_per * ow].reshape(count, products * rows_per, ow)
                out[image, start:stop] = used[:, :oh]
        return True


def _placement(pad: int, size: int, room: int) -> tuple[slice, slice]:
    """Along one axis: the padded slots ``[0, room)`` that hold input (target) and the input they hold."""
    first = min(pad, room)
    stop = max(first, min(room, pad + size))
    return slice(first, stop), slice(first - pad, stop - pad)


def _same_bits(banded: BandedDepthwise, key: tuple[Any, ...],
               reference: Callable[[int], Callable[[np.ndarray, np.ndarray], np.ndarray]]) -> bool:
    """Does the banded product give the columns layout's bits for this shape (random values with
    zeros and negative zeros; once per shape and band width per process)?"""
    return once_per_key(_checked, key, lambda: _compare_with_columns(banded, reference))


def _compare_with_columns(banded: BandedDepthwise,
                          reference: Callable[[int], Callable[[np.ndarray, np.ndarray], np.ndarray]]) -> bool:
    channels = _CHECK_CHANNELS
    rng = np.random.default_rng(2026)
    x = rng.standard_normal((1, channels, banded.height, banded.width), dtype=np.float32)
    x[0, 0] = 0.0
    x[0, 1] = -0.0
    x[0, 2, ::2] = 0.0
    w = rng.standard_normal((channels, 1, 1, banded.kh, banded.kw), dtype=np.float32)
    w[1] = np.abs(w[1])
    expected = reference(channels)(x, w)
    probe = BandedDepthwise.__new__(BandedDepthwise)
    probe.__dict__.update(banded.__dict__)
    probe.groups = channels
    got = np.empty(expected.shape, np.float32)
    return probe(x, probe.weights(w), got) and got.tobytes() == expected.tobytes()
