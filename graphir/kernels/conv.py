"""Convolution kernels chosen once per input signature (``Convolution``/``GroupConvolution``).

A :class:`ConvKernel` is built from the static shapes and attributes; it picks a strategy and lays
out the filters for it (:meth:`ConvKernel.weights`), then each call does numpy work only:

* **pointwise** (1x1 kernel, no padding): the filters ``[Co, C]`` times the input seen as
  ``[N, C, H*W]`` (strided inputs sampled first) - a plain BLAS product, no copy of the input;
* **im2col**: the padded input's windows laid out ``[N, C*K, O]`` (one copy), then
  ``[Co, C*K] @ [N, C*K, O]``: the result is already ``[N, Co, O...]``, no transpose after;
* **depthwise** (one input and one output channel per group): each channel's windows laid out
  ``[K, O]`` (one copy), then a batched product ``[G, 1, K] @ [N, G, K, O]`` (BLAS dot products;
  a multiply-add per tap measured no faster and moved tie-breaking detections away from
  OpenVINO's: fasterrcnn_mobilenet 78 of 100 against 81);
  2-D f32 layers with 6 taps or more build those columns from the input's stride phases
  (:class:`PhasedDepthwise`: a few strided copies instead of one per tap and output row, a
  block of channels at a time so the columns stay in cache; the same bits, 1.1-2x faster);
* **taps** (``taps=True``: the reference profile; small 2-D depthwise layers, :data:`TAPS_MAX_WORK`):
  a tap-by-tap numpy sum over the whole batch (:class:`graphir.kernels.taps.TapDepthwise`: OpenVINO's
  reference order without fused multiply-adds, the same bits on every host); under openvino-cpu these
  stay depthwise BLAS products (graphir.numerics.openvino_cpu.depthwise);
* **grouped** (anything else): one ``einsum`` over a window view.

The op's generic ``evaluate`` builds the same kernel per call, so a specialized run and a generic
one compute the same bits. Integers are computed in 64 bits and wrap back; f16/bf16 in f32.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

from graphir.kernels import blas_host
from graphir.kernels.banded import BandedDepthwise
from graphir.kernels.blas_order import ChunkedProduct
from graphir.kernels.columns import TapColumns
from graphir.kernels.taps import TapDepthwise

#: bytes of depthwise columns built at a time (measured on 2-D MobileNet/EfficientNet layers:
#: 512 KiB-2 MiB alike, 1 MiB best; all channels at once was up to 1.7x slower)
DEPTHWISE_BLOCK_BYTES = 1 << 20
#: strided depthwise layers with larger outputs keep the plain layout (splitting a large input into
#: its stride phases cost more than it saved: 96x112x112 3x3 stride 2, 1.8 -> 2.3 ms)
PHASED_MAX_STRIDED_OUTPUT = 32 * 32
#: the longest column run (output rows x phase width) of the phased layout: past 16,384 OpenBLAS's
#: gemv changes its summation order with the length (tests/test_conv_kernel.py)
PHASED_MAX_COLUMNS = 16384
#: 2-D depthwise layers with at most this many taps and at least this many outputs per channel build
#: their columns tap by tap (:class:`TapColumns`) rather than from stride phases. Measured on corpus
#: layers (load ~3): 144x56x56 3x3 2.6 -> 0.93 ms, 72x80x80 1.18 -> 0.96, 240x40x40 3x3/2 0.59 -> 0.43,
#: 672x20x20 equal; 5x5 layers (25 copies per channel block) and small maps stay phased
TAP_COLUMNS_MAX_TAPS = 9
TAP_COLUMNS_MIN_OUTPUT = 400
#: im2col products from this many multiply-accumulates leave out the rows of taps that only read
#: padding (below, the one-off check of the replayed BLAS order costs more than it saves)
SKIP_MIN_MACS = 1 << 24
#: 2-D f32 depthwise layers whose outputs are 2 to this many columns wide (6-36 taps) run as banded
#: products (:class:`graphir.kernels.banded.BandedDepthwise`) where those give the columns' bits.
#: Measured per corpus layer on 1 thread: 576x7x7 5x5 270 -> 160 us, 240x14x14 5x5 290 -> 170,
#: 480x14x14 3x3 265 -> 205, 96x28x28 5x5/2 200 -> 125; 28-wide outputs were slower (240x28x28 3x3
#: 417 -> 580: the band's zeros outweigh the copies saved)
BANDED_MAX_WIDTH = 16
#: with ``taps=True`` (the reference profile), 2-D depthwise layers of at most this many taps times
#: outputs per channel are a tap-by-tap numpy sum (:class:`graphir.kernels.taps.TapDepthwise`) rather
#: than one BLAS product per channel and image. Measured per layer (1 thread, batch 1 and 2, 8-672
#: channels), tap sum / products: 7x7 3x3 (work 441) 0.59-0.86, 24x8x8 3x3 (576) 0.59, 4x4 5x5
#: (400) 0.4-0.6; 7x7 5x5 (1,225) 0.97-1.05, 14x14 3x3 (1,764) 1.2, 14x14 5x5 (4,900) 1.8
TAPS_MAX_WORK = 1000
#: the same for strided layers (their products' columns are strided copies): 28x28 3x3/2 (1,764)
#: 0.87-0.89, 32x32 3x3/2 (2,304) 0.89, 16x16 5x5/2 (1,600) 0.95, 72x4x4 5x5/2 (100) 0.16;
#: 64x64 3x3/2 (9,216) 1.05
TAPS_MAX_WORK_STRIDED = 2400


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """f64 in f64, integers in 64-bit integers (cast back with wrap-around), the rest in f32."""
    if dtype.kind in "iub":
        return np.dtype(np.uint64) if dtype.kind == "u" else np.dtype(np.int64)
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


class ConvKernel:
    """``x [N, G*Ci, D...]`` convolved with ``w [G, Co, Ci, K...]`` -> ``[N, G*Co, O...]``."""

    def __init__(self, x_shape: Sequence[int], x_dtype: np.dtype, w_shape: Sequence[int], strides: Sequence[int],
                 dilations: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int], banded: bool = True,
                 taps: bool = False) -> None:
        """``taps``: small depthwise layers as a tap-by-tap sum (the reference profile's order, the same
        bits on every host); without it they are BLAS products (OpenVINO CPU's bits on OpenBLAS SkylakeX)."""
        self.out_dtype = np.dtype(x_dtype)
        self.ct = compute_dtype(self.out_dtype)
        n, c = int(x_shape[0]), int(x_shape[1])
        spatial = [int(d) for d in x_shape[2:]]
        groups, co, ci = (int(d) for d in w_shape[:3])
        kernel = [int(k) for k in w_shape[3:]]
        self.groups, self.co, self.ci, self.kernel, self.spatial = groups, co, ci, kernel, spatial
        self.strides, self.dilations = [int(s) for s in strides], [int(d) for d in dilations]
        self.begin, self.end = [int(b) for b in pads_begin], [int(e) for e in pads_end]
        self.crop = any(b < 0 or e < 0 for b, e in zip(self.begin, self.end))
        self.padded_shape = (n, c) + tuple(d + max(b, 0) + max(e, 0) for d, b, e in zip(spatial, self.begin, self.end))
        self.inner = (slice(None), slice(None)) + tuple(slice(max(b, 0), max(b, 0) + d) for b, d in zip(self.begin, spatial))
        self.needs_pad = any(b or e for b, e in zip(self.begin, self.end))
        lengths = [d + b + e for d, b, e in zip(spatial, self.begin, self.end)]
        k_eff = [dl * (k - 1) + 1 for k, dl in zip(kernel, self.dilations)]
        self.out_spatial = tuple(max((length - k) // s + 1, 0) for length, k, s in zip(lengths, k_eff, self.strides))
        self.n = n
        self.out_shape = (n, groups * co) + self.out_spatial
        self.integer = self.ct.kind in "iu"
        if groups == 1 and all(k == 1 for k in kernel) and not self.needs_pad and not self.integer:
            self.strategy = "pointwise"
        elif groups == 1 and not self.integer:
            self.strategy = "im2col"
        elif ci == 1 and co == 1 and not self.integer:
            self.strategy = "depthwise"
        else:
            self.strategy = "grouped"
        #: a strided pointwise layer's input sampling
        self.pointwise_step = ((slice(None), slice(None)) + tuple(slice(None, None, s) for s in self.strides)
                               if self.strategy == "pointwise" and any(s != 1 for s in self.strides) else None)
        self.tap_sum: TapDepthwise | None = None
        work = int(np.prod(kernel)) * int(np.prod(self.out_spatial))
        if (taps and self.strategy == "depthwise" and self.ct == np.float32 and len(kernel) == 2
                and 0 < work <= (TAPS_MAX_WORK if self.strides == [1, 1] else TAPS_MAX_WORK_STRIDED)):
            self.tap_sum = TapDepthwise(x_shape, kernel, self.strides, self.dilations, self.begin, self.end,
                                        self.out_spatial)
            self.strategy = "taps"
        # OpenBLAS's gemv (0.3.31) sums in tap order with FMAs, as oneDNN's depthwise kernel does,
        # for 6 to 36 taps and 2 to 16,384 outputs per channel: there both layouts give the same
        # bits (outside, its order depends on the sizes: the plain layout is kept); on other BLAS
        # kernels it is not known to (graphir.kernels.blas_host): the plain layout
        verified = blas_host.layouts_verified()
        self.phased = None
        if (verified and self.strategy == "depthwise" and self.ct == np.float32 and len(kernel) == 2 and not self.crop
                and 6 <= kernel[0] * kernel[1] <= 36 and 2 <= self.out_spatial[0] * self.out_spatial[1]
                and (self.strides == [1, 1] or self.out_spatial[0] * self.out_spatial[1] <= PHASED_MAX_STRIDED_OUTPUT)):
            phased = PhasedDepthwise(self, spatial)
            self.phased = phased if phased is not None and phased.length <= PHASED_MAX_COLUMNS else None
            if kernel[0] * kernel[1] <= TAP_COLUMNS_MAX_TAPS and self.out_spatial[0] * self.out_spatial[1] >= TAP_COLUMNS_MIN_OUTPUT:
                self.phased = None  # the tap-by-tap columns below: the same columns, no phase copy
        self.columns: TapColumns | None = None
        self.skipping: ChunkedProduct | None = None
        # windows that tile the input (kernel == stride, no padding or dilation: a ViT's patch
        # embedding): the columns are one transposed copy of the input
        self.patches = (self.strategy == "im2col" and not self.needs_pad and self.strides == kernel
                        and all(d == 1 for d in self.dilations) and all(o > 0 for o in self.out_spatial))
        if self.strategy in ("im2col", "depthwise") and self.phased is None and not self.patches:
            self.columns = TapColumns(spatial, kernel, self.strides, self.dilations, self.begin, self.out_spatial)
            if (verified and self.strategy == "im2col" and self.ct == np.float32
                    and self.columns.empty_taps * 3 >= self.columns.all_taps):
                self._skip_empty_taps(spatial)
        self.banded: BandedDepthwise | None = None
        if (banded and verified and self.strategy == "depthwise" and self.ct == np.float32 and len(kernel) == 2 and not self.crop
                and 6 <= kernel[0] * kernel[1] <= 36 and 2 <= self.out_spatial[1] <= BANDED_MAX_WIDTH
                and self.out_spatial[0] >= 2):
            layout = BandedDepthwise(x_shape, groups, kernel, self.strides, self.dilations, self.begin, self.end,
                                     self.out_spatial, self._reference_with)
            self.banded = layout if layout.ok else None

    def _reference_with(self, channels: int) -> Any:
        """This depthwise layer with ``channels`` channels in the columns layout: ``(x, w) -> out``, in f32
        (what the band computes whatever the layer's element type: an f16 layer's check, rounded to f16,
        would fail where the f32 one passed, and the check is cached by shape)"""
        kernel = ConvKernel((1, channels, *self.spatial), self.ct, (channels, 1, 1, *self.kernel), self.strides,
                            self.dilations, self.begin, self.end, banded=False)
        return lambda x, w: kernel(x, kernel.weights(w))

    def _skip_empty_taps(self, spatial: Sequence[int]) -> None:
        """Leave out the im2col rows of taps that only read padding (DeepLabV3's ASPP: dilation 24
        and 36 on a 16x16 map, 8 of 9 taps), replaying BLAS's chunked sum so the bits stay."""
        skipping = TapColumns(spatial, self.kernel, self.strides, self.dilations, self.begin, self.out_spatial,
                              skip_empty=True)
        taps = skipping.all_taps
        rows = [c * taps + t for c in range(self.ci) for t in skipping.kept]
        length = int(np.prod(self.out_spatial))
        if self.co < 2 or length < 2 or self.co * length * len(rows) < SKIP_MIN_MACS:
            return
        product = ChunkedProduct(self.co, self.ci * taps, length, rows)
        if product.ok:
            self.columns, self.skipping = skipping, product

    # --- filters -------------------------------------------------------------------------------
    def weights(self, w: np.ndarray) -> Any:
        """The filters laid out for the strategy (done once when they are constant)."""
        w = w.astype(self.ct, copy=False)
        if self.skipping is not None:
            taps = self.columns.all_taps if self.columns is not None else 1
            kept = w.reshape(self.co, self.ci, taps)[:, :, self.columns.kept if self.columns is not None else slice(None)]
            return np.ascontiguousarray(kept.reshape(self.co, -1))
        if self.strategy in ("pointwise", "im2col"):
            return np.ascontiguousarray(w.reshape(self.co, -1))
        if self.tap_sum is not None:
            return self.tap_sum.weights(w)
        if self.strategy == "depthwise":
            laid_out = np.ascontiguousarray(w.reshape(self.groups, 1, -1))
            return laid_out if self.banded is None else BandedWeights(laid_out, self.banded.weights(w))
        return w

    # --- the call --------------------------------------------------------------------------------
    def __call__(self, x: np.ndarray, w: Any) -> np.ndarray:
        if x.dtype != self.ct:
            x = x.astype(self.ct)
        if self.strategy == "pointwise":
            return self._pointwise(x, w)
        if self.tap_sum is not None:
            out = self.tap_sum(x, w)
            return out if self.out_dtype == self.ct else out.astype(self.out_dtype)
        if isinstance(w, BandedWeights):
            assert self.banded is not None
            out = np.empty(self.out_shape, np.float32)
            if x.dtype == np.float32 and self.banded(x, w.band, out):
                return out if self.out_dtype == np.float32 else out.astype(self.out_dtype)  # f16/bf16 layers
            w = w.taps
        if self.phased is not None:
            return self._depthwise_phased(x, w)
        if self.patches:
            return self._finish(self._per_image(w, self._patch_columns(x)))
        if self.columns is not None and self.strategy == "depthwise":
            return self._depthwise_columns(x, w)
        if self.columns is not None:
            flat = self.columns.build(x, self.ct).reshape(self.n, w.shape[1], -1)
            if self.skipping is not None:
                return self._finish(np.stack([self.skipping(w, flat[i]) for i in range(self.n)]))
            return self._finish(self._per_image(w, flat))
        padded = self._pad(x)
        win = self._windows(padded)
        ns = len(self.kernel)
        if self.strategy == "depthwise":
            perm = (0, 1) + tuple(range(2 + ns, 2 + 2 * ns)) + tuple(range(2, 2 + ns))
            cols = np.ascontiguousarray(win.transpose(perm)).reshape(self.n, self.groups, w.shape[2], -1)
            return self._finish(np.matmul(w, cols))
        if self.strategy == "im2col":
            perm = (0, 1) + tuple(range(2 + ns, 2 + 2 * ns)) + tuple(range(2, 2 + ns))
            cols = np.ascontiguousarray(win.transpose(perm))
            return self._finish(self._per_image(w, cols.reshape(self.n, w.shape[1], -1)))
        win = win.reshape((self.n, self.groups, self.ci) + win.shape[2:])
        letters = "defhjklmpqrstuvwxyz"
        o, k = letters[:ns], letters[ns: 2 * ns]
        out = np.einsum(f"ngc{o}{k},gac{k}->nga{o}", win, w, optimize=True)
        return self._finish(out)

    def _pointwise(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``w [Co, C] @ x[i] [C, H*W]`` per image (a MobileNet runs 40 of these on small maps: the
        call's own Python work counts)."""
        if self.pointwise_step is not None:
            x = x[self.pointwise_step]
        n = x.shape[0]
        cols = x.reshape(n, x.shape[1], -1)
        if n == 1:
            out = np.matmul(w, cols[0])
        else:
            out = np.empty((n, w.shape[0], cols.shape[2]), np.result_type(w, cols))
            for i in range(n):
                np.matmul(w, cols[i], out=out[i])
        out = out.reshape(self.out_shape)
        return out if out.dtype == self.out_dtype else out.astype(self.out_dtype)

    def _patch_columns(self, x: np.ndarray) -> np.ndarray:
        """im2col ``[N, C*K, O]`` of windows that tile the input: the input (cut to whole windows)
        seen as ``[N, C, O1, K1, O2, K2, ...]``, its axes ordered ``[N, C, K..., O...]``, one copy.
        The same columns as the window view's, so the product keeps its bits."""
        ns = len(self.kernel)
        cut = x[(slice(None), slice(None)) + tuple(slice(0, o * k) for o, k in zip(self.out_spatial, self.kernel))]
        split: tuple[int, ...] = (x.shape[0], x.shape[1])
        for o, k in zip(self.out_spatial, self.kernel):
            split += (o, k)
        perm = (0, 1) + tuple(3 + 2 * i for i in range(ns)) + tuple(2 + 2 * i for i in range(ns))
        cols = np.ascontiguousarray(cut.reshape(split).transpose(perm))
        return cols.reshape(self.n, self.ci * int(np.prod(self.kernel)), -1)

    def _depthwise_columns(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The depthwise product over :class:`TapColumns`, a block of channels (1 MiB of columns)
        at a time: the same columns as the window view's, so the same bits."""
        columns = self.columns
        assert columns is not None
        groups, taps, length = self.groups, w.shape[2], int(np.prod(self.out_spatial))
        block = min(groups, max(1, DEPTHWISE_BLOCK_BYTES // (taps * length * self.ct.itemsize)))
        cols = np.empty((1, block, taps) + self.out_spatial, self.ct)
        flat = cols.reshape(block, taps, length)
        out = np.empty(self.out_shape, self.ct)
        for image in range(self.n):
            wide = out[image].reshape(groups, 1, length)
            for start in range(0, groups, block):
                stop = min(groups, start + block)
                # the zero regions are the same for every block: written with the first one
                columns.fill(cols[:, :stop - start], x[image:image + 1, start:stop], zeros=image == 0 and start == 0)
                np.matmul(w[start:stop], flat[:stop - start], out=wide[start:stop])
        return out.astype(self.out_dtype, copy=False)

    def _depthwise_phased(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The depthwise product over :class:`PhasedDepthwise`'s columns, a block of channels at a time."""
        plan = self.phased
        assert plan is not None
        groups, (oh, ow), length, taps = self.groups, self.out_spatial, plan.length, w.shape[2]
        phases = np.empty((len(plan.copies), groups, plan.rows, plan.width), self.ct)
        flat = phases.reshape(len(plan.copies), groups, plan.rows * plan.width)
        block = min(groups, max(1, DEPTHWISE_BLOCK_BYTES // (taps * length * self.ct.itemsize)))
        cols = np.empty((block, taps, length), self.ct)
        grid = cols.reshape((block, self.kernel[0], self.kernel[1], length))
        wide = np.empty((groups, 1, length), self.ct)
        out = np.empty(self.out_shape, self.ct)
        for image in range(self.n):
            phases.fill(0)  # the padding
            for index, (target, source) in plan.placements:
                phases[index][(slice(None),) + target] = x[image][(slice(None),) + source]
            for start in range(0, groups, block):
                stop = min(groups, start + block)
                for index, tap_slices, shape, steps, offset in plan.copies_by_phase:
                    part = flat[index, start:stop, offset:]
                    grid[(slice(0, stop - start),) + tap_slices] = as_strided(
                        part, (stop - start,) + shape + (length,),
                        (part.strides[0],) + tuple(st * part.strides[1] for st in steps) + (part.strides[1],),
                        writeable=False)
                np.matmul(w[start:stop], cols[:stop - start], out=wide[start:stop])
            out[image] = wide.reshape(groups, oh, plan.width)[:, :, :ow]
        return out.astype(self.out_dtype, copy=False)

    def _per_image(self, w: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``w @ cols[i]`` for each image: one 2-D BLAS product each (numpy's batched matmul with
        a shared 2-D operand rounds differently from the 2-D product)."""
        if self.n == 1:
            return w @ cols[0]
        out = np.empty((self.n, w.shape[0], cols.shape[2]), np.result_type(w, cols))
        for i in range(self.n):
            np.matmul(w, cols[i], out=out[i])
        return out

    def _finish(self, out: np.ndarray) -> np.ndarray:
        return out.reshape(self.out_shape).astype(self.out_dtype, copy=False)

    def _pad(self, x: np.ndarray) -> np.ndarray:
        if not self.needs_pad:
            return x
        padded = np.empty(self.padded_shape, x.dtype)  # np.zeros of a large size maps fresh pages: slower
        padded.fill(0)
        padded[self.inner] = x
        if self.crop:
            padded = padded[(slice(None), slice(None)) + tuple(
                slice(max(-b, 0), padded.shape[2 + i] - max(-e, 0)) for i, (b, e) in enumerate(zip(self.begin, self.end)))]
        return padded

    def _windows(self, padded: np.ndarray) -> np.ndarray:
        """A view ``[N, C, out..., k...]`` of the padded input's windows."""
        k_eff = [d * (k - 1) + 1 for k, d in zip(self.kernel, self.dilations)]
        view = sliding_window_view(padded, k_eff, axis=tuple(range(2, padded.ndim)))
        return view[(slice(None), slice(None))
                    + tuple(slice(None, None, s) for s in self.strides)
                    + tuple(slice(None, None, d) for d in self.dilations)]


class BandedWeights(NamedTuple):
    """A depthwise layer's filters in both layouts: the band, and the taps for inputs the band
    does not take (not all finite)."""

    taps: np.ndarray
    band: np.ndarray


class PhasedDepthwise:
    """The column layout of a 2-D depthwise convolution without a copy per tap and output pixel.

    The padded input is split into its stride phases (``padded[:, a::sy, b::sx]``, each
    ``[G, rows, width]``, zero where padding is), laid out once per image. Tap ``(i, j)`` then reads
    phase ``(i*dy % sy, j*dx % sx)`` from row ``i*dy // sy`` and column ``j*dx // sx`` on, and
    over a *full phase width* of output columns that run is one contiguous slice: the column
    matrix ``[G, K, oh * width]`` is a few strided copies (one per phase, not per tap and
    row), and the ``width - ow`` extra columns of each output row are dropped after the product.
    Each output is the same dot product over the same taps in the same order as the plain
    layout's, so the bits are the same (tests/test_conv_kernel.py)."""

    def __init__(self, kernel: ConvKernel, spatial: Sequence[int]) -> None:
        (h, w), (sy, sx), (dy, dx) = spatial, kernel.strides, kernel.dilations
        (pby, pbx), (kh, kw), (oh, _) = kernel.begin, kernel.kernel, kernel.out_spatial
        padded_width = w + kernel.begin[1] + kernel.end[1]
        self.width = -(-padded_width // sx)
        rows_of = {i: divmod(i * dy, sy) for i in range(kh)}  # tap row -> (phase row offset, phase)
        cols_of = {j: divmod(j * dx, sx) for j in range(kw)}
        self.rows = oh + max(r for r, _ in rows_of.values()) + 1  # + 1: the last run spills a row
        self.length = oh * self.width
        phases = sorted({(rows_of[i][1], cols_of[j][1]) for i in range(kh) for j in range(kw)})
        #: (phase index, (target slices, source slices)): where each phase takes the input
        self.placements: list[tuple[int, tuple[tuple[slice, slice], tuple[slice, slice]]]] = []
        #: (phase index, tap slices of [kh, kw], (taps down, taps across), (row step, column step), offset)
        self.copies_by_phase: list[tuple[int, tuple[slice, slice], tuple[int, int], tuple[int, int], int]] = []
        for index, (a, b) in enumerate(phases):
            place = _placement(a, sy, pby, h, self.rows), _placement(b, sx, pbx, w, self.width)
            if place[0] is not None and place[1] is not None:
                self.placements.append((index, ((place[0][0], place[1][0]), (place[0][1], place[1][1]))))
            tap_rows = [i for i in range(kh) if rows_of[i][1] == a]
            tap_cols = [j for j in range(kw) if cols_of[j][1] == b]
            row_step = tap_rows[1] - tap_rows[0] if len(tap_rows) > 1 else 1
            col_step = tap_cols[1] - tap_cols[0] if len(tap_cols) > 1 else 1
            self.copies_by_phase.append((
                index, (slice(tap_rows[0], tap_rows[-1] + 1, row_step), slice(tap_cols[0], tap_cols[-1] + 1, col_step)),
                (len(tap_rows), len(tap_cols)),
                (row_step * dy // sy * self.width, col_step * dx // sx),
                rows_of[tap_rows[0]][0] * self.width + cols_of[tap_cols[0]][0]))
        self.copies = phases


def _placement(phase: int, stride: int, pad: int, size: int, room: int) -> tuple[slice, slice] | None:
    """Along one axis: the phase's slots that hold input (target) and the input they hold (source)."""
    first = max(0, -(-(pad - phase) // stride))  # the first phase slot at or past the padding
    source_start = phase + first * stride - pad
    count = min(len(range(source_start, size, stride)), room - first)
    if count <= 0:
        return None
    return slice(first, first + count), slice(source_start, source_start + (count - 1) * stride + 1, stride)
