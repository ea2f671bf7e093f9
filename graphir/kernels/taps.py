"""Depthwise convolutions on small maps as a tap-by-tap sum in plain numpy (the reference profile's).

A depthwise layer (one input and one output channel per group) computed through BLAS is one small
product per channel and image: on maps of a few outputs (MobileNetV3's 2x2 to 16x16 layers) the
per-call cost of those products is most of the layer. Here the whole batch is three numpy passes
over channels-last data (``C`` innermost, so every inner loop runs over the channels):

* the input, padded with zeros, laid out ``[N, Hp, Wp, C]`` (one copy);
* ``Q[t, n, oh, ow, c] = window(t)[n, oh, ow, c] * w[t, c]``: every tap's window (``t`` in kernel
  order ``(i, j)``, row by row) gathered from a strided view into ``Q`` (one copy), then one
  multiply by the filters repeated along an output row (the multiply's inner loop runs over a whole
  row of a tap's window, not over the channels only: 1.3-1.5x faster);
* ``out = ((0 + Q[0]) + Q[1]) + ... + Q[T-1]``: ``np.add.reduce`` over ``t`` from an initial ``+0``.

So every output is OpenVINO's reference convolution's sum: the products in tap order, each
product and each sum rounded to f32 (no fused multiply-adds), from ``+0``. Padding taps add
``+-0`` to a sum that started at ``+0`` and so is never ``-0`` (round to nearest): they change
nothing while the filters are finite. Elementwise IEEE arithmetic in a fixed order: the same bits
on every host, whatever its SIMD width or BLAS (numpy's reduction over the leading axis of a
C-contiguous ``[T, M]`` array with ``M >= 2`` adds row after row: tests/test_conv_taps.py checks it
against an explicit loop). Blocks of images keep ``Q`` within :data:`TAPS_BLOCK_BYTES`; they do not
change any sum.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: bytes of products (``Q``) computed at a time: a block of images, or of output rows of one image
TAPS_BLOCK_BYTES = 1 << 19
#: bytes of filters repeated along an output row a layer may keep; past them the multiply reads
#: the windows and the per-channel filters directly (the same products)
TAPS_TILE_BYTES = 1 << 20


class TapDepthwise:
    """The tap-by-tap sum of one 2-D f32 depthwise convolution's static shapes (``x [N, C, H, W]``,
    filters ``[C, 1, 1, kh, kw]``, output ``[N, C, oh, ow]``).

    Channels go innermost (``[N, H, W, C]``, two transposing copies) when there are at least as many
    as output columns, else the data stays ``[N, C, H, W]`` (output columns innermost): the same
    products and sums either way. Taps that read only padding are left out (their products are
    ``+-0``: the same bits, and on 2x2 maps with 5x5 filters 16 of 25 taps)."""

    def __init__(self, x_shape: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
                 dilations: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
                 out_spatial: Sequence[int]) -> None:
        self.n, self.c, self.h, self.w = (int(d) for d in x_shape)
        (self.kh, self.kw), (self.sy, self.sx) = (int(k) for k in kernel), (int(s) for s in strides)
        (self.dy, self.dx), (self.by, self.bx) = (int(d) for d in dilations), (int(b) for b in pads_begin)
        self.oh, self.ow = (int(o) for o in out_spatial)
        #: the taps (rows, columns of the filter) that read some input: a box
        self.tap_rows = _reading(self.kh, self.dy, self.sy, self.by, self.h, self.oh)
        self.tap_cols = _reading(self.kw, self.dx, self.sx, self.bx, self.w, self.ow)
        # the padded rows and columns the windows read (negative pads crop: the input's slice)
        self.hp = (self.oh - 1) * self.sy + (self.kh - 1) * self.dy + 1
        self.wp = (self.ow - 1) * self.sx + (self.kw - 1) * self.dx + 1
        self.place = [_placement(self.by, self.h, self.hp), _placement(self.bx, self.w, self.wp)]
        self.channels_last = self.c >= self.ow
        #: the blocked axis after the images: output rows (channels last) or channels
        self.inner = self.oh if self.channels_last else self.c
        taps = (self.tap_rows.stop - self.tap_rows.start) * (self.tap_cols.stop - self.tap_cols.start)
        image = taps * self.oh * self.ow * self.c * 4
        #: images per block, or (one image at a time) rows/channels per block
        self.images = max(1, min(self.n, TAPS_BLOCK_BYTES // max(image, 1)))
        self.part = self.inner if image <= TAPS_BLOCK_BYTES else max(1, self.inner * TAPS_BLOCK_BYTES // image)
        box = (self.tap_rows.stop - self.tap_rows.start, self.tap_cols.stop - self.tap_cols.start)
        #: the filters repeated along a row of products: ``[kh', kw', 1, 1, ow, C]`` or ``[kh', kw', 1, C, 1, ow]``
        self.tile_shape = box + ((1, 1, self.ow, self.c) if self.channels_last else (1, self.c, 1, self.ow))
        self.tiled = int(np.prod(self.tile_shape)) * 4 <= TAPS_TILE_BYTES
        self._plan()

    def weights(self, w: np.ndarray) -> np.ndarray:
        """Filters ``[C, 1, 1, kh, kw]`` laid out for the products over the taps that read input (f32):
        :attr:`tile_shape` (repeated along an output row), or per channel, ``[kh', kw', 1, 1, 1, C]``
        (channels last) or ``[kh', kw', 1, C, 1, 1]``, when that would take more than
        :data:`TAPS_TILE_BYTES`."""
        taps = np.asarray(w, np.float32).reshape(self.c, self.kh, self.kw)[:, self.tap_rows, :][:, :, self.tap_cols]
        box = (self.tap_rows.stop - self.tap_rows.start, self.tap_cols.stop - self.tap_cols.start)
        laid_out = np.ascontiguousarray(taps.transpose(1, 2, 0))
        compact = laid_out.reshape(box + ((1, 1, 1, self.c) if self.channels_last else (1, self.c, 1, 1)))
        return np.ascontiguousarray(np.broadcast_to(compact, self.tile_shape)) if self.tiled else compact

    def _plan(self) -> None:
        """The buffers' shapes and each block's window view (offset, shape, strides), worked out once."""
        n, c, oh, ow, last, item = self.n, self.c, self.oh, self.ow, self.channels_last, 4
        (row_to, _), (col_to, _) = self.place
        self.padded_shape = (n, self.hp, self.wp, c) if last else (n, c, self.hp, self.wp)
        self.target = (slice(None), row_to, col_to, slice(None)) if last else (slice(None), slice(None), row_to, col_to)
        self.pad_zeros = (row_to.stop - row_to.start, col_to.stop - col_to.start) != (self.hp, self.wp)
        self.out_shape = (n, oh, ow, c) if last else (n, c, oh, ow)
        image = int(np.prod(self.padded_shape[1:])) * item
        if last:
            across, down = c * item, self.wp * c * item
            steps = (self.sy * down, self.sx * c * item, item)  # output row, column, channel
        else:
            across, down = item, self.wp * item
            steps = (self.hp * self.wp * item, self.sy * down, self.sx * item)  # channel, output row, column
        rows, cols = self.tap_rows, self.tap_cols
        first_tap = rows.start * self.dy * down + cols.start * self.dx * across
        box = (rows.stop - rows.start, cols.stop - cols.start)
        full = (oh, ow, c) if last else (c, oh, ow)
        self.products_shape = box + (self.images, self.part) + full[1:]
        #: (offset, window shape, strides, partial block, images, inner slice) per block
        self.blocks: list[tuple[int, tuple[int, ...], tuple[int, ...], bool, slice, slice]] = []
        for first in range(0, n, self.images):
            count = min(self.images, n - first)
            for start in range(0, self.inner, self.part):
                size = min(self.part, self.inner - start)
                self.blocks.append((first_tap + first * image + start * steps[0], box + (count, size) + full[1:],
                                    (self.dy * down, self.dx * across, image) + steps,
                                    count != self.images or size != self.part,
                                    slice(first, first + count), slice(start, start + size)))

    def __call__(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        (_, row_from), (_, col_from) = self.place
        padded = np.empty(self.padded_shape, np.float32)
        if self.pad_zeros:
            padded.fill(0)
        inside = x[:, :, row_from, col_from]
        padded[self.target] = inside.transpose(0, 2, 3, 1) if self.channels_last else inside
        out = np.empty(self.out_shape, np.float32)
        products = np.empty(self.products_shape, np.float32)
        taps, zero, f32 = self.products_shape[0] * self.products_shape[1], np.float32(0), padded.dtype
        for offset, shape, strides, partial, images, inner in self.blocks:
            windows = np.ndarray(shape, f32, padded, offset, strides)
            q = np.empty(shape, np.float32) if partial else products
            size = inner.stop - inner.start
            filters = w if self.channels_last or size == self.c else w[:, :, :, inner]
            if self.tiled:
                np.copyto(q, windows)
                np.multiply(q, filters, out=q)
            else:
                np.multiply(windows, filters, out=q)
            np.add.reduce(q.reshape(taps, -1), axis=0, initial=zero, out=out[images, inner].reshape(-1))
        return np.ascontiguousarray(out.transpose(0, 3, 1, 2)) if self.channels_last else out


def _reading(k: int, dilation: int, stride: int, pad: int, size: int, out: int) -> slice:
    """Along one axis: the filter taps that read input at some output position (a range)."""
    reads = [t for t in range(k) if any(0 <= o * stride + t * dilation - pad < size for o in range(out))]
    return slice(reads[0], reads[-1] + 1) if reads else slice(0, 1)


def _placement(pad: int, size: int, room: int) -> tuple[slice, slice]:
    """Along one axis: the padded slots ``[0, room)`` that hold input (target) and the input they
    hold (source); a negative pad crops the input."""
    first = max(pad, 0)
    source = max(-pad, 0)
    count = max(0, min(room - first, size - source))
    return slice(first, first + count), slice(source, source + count)
