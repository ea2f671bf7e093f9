"""Convolution kernels chosen once per input signature (``Convolution``/``GroupConvolution``).

A :class:`ConvKernel` is built from the static shapes and attributes; it picks a strategy and lays
out the filters for it (:meth:`ConvKernel.weights`), then each call does numpy work only:

* **pointwise** (1x1 kernel, no padding): the filters ``[Co, C]`` times the input seen as
  ``[N, C, H*W]`` (strided inputs sampled first) - a plain BLAS product, no copy of the input;
* **im2col**: the padded input's windows laid out ``[N, C*K, O]`` (one copy), then
  ``[Co, C*K] @ [N, C*K, O]``: the result is already ``[N, Co, O...]``, no transpose after;
* **depthwise** (one input and one output channel per group): a multiply-add per kernel tap over
  strided views of the padded input (no window copies);
* **grouped** (anything else): one ``einsum`` over a window view.

The op's generic ``evaluate`` builds the same kernel per call, so a specialized run and a generic
one compute the same bits. Integers are computed in 64 bits and wrap back; f16/bf16 in f32.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """f64 in f64, integers in 64-bit integers (cast back with wrap-around), the rest in f32."""
    if dtype.kind in "iub":
        return np.dtype(np.uint64) if dtype.kind == "u" else np.dtype(np.int64)
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


class ConvKernel:
    """``x [N, G*Ci, D...]`` convolved with ``w [G, Co, Ci, K...]`` -> ``[N, G*Co, O...]``."""

    def __init__(self, x_shape: Sequence[int], x_dtype: np.dtype, w_shape: Sequence[int], strides: Sequence[int],
                 dilations: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int]) -> None:
        self.out_dtype = np.dtype(x_dtype)
        self.ct = compute_dtype(self.out_dtype)
        n, c = int(x_shape[0]), int(x_shape[1])
        spatial = [int(d) for d in x_shape[2:]]
        groups, co, ci = (int(d) for d in w_shape[:3])
        kernel = [int(k) for k in w_shape[3:]]
        self.groups, self.co, self.ci, self.kernel = groups, co, ci, kernel
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
            if len(kernel) == 2 and self.strides[0] == self.strides[1] and not self.crop and min(self.out_spatial) > 0:
                self._plan_rows(spatial, k_eff)
        else:
            self.strategy = "grouped"

    # --- filters -------------------------------------------------------------------------------
    def weights(self, w: np.ndarray) -> Any:
        """The filters laid out for the strategy (done once when they are constant)."""
        w = w.astype(self.ct, copy=False)
        if self.strategy in ("pointwise", "im2col"):
            return np.ascontiguousarray(w.reshape(self.co, -1))
        if self.strategy in ("depthwise", "depthwise_rows"):
            taps = w.reshape(self.groups, -1)
            bshape = (1, self.groups, 1) if self.strategy == "depthwise_rows" else (1, self.groups) + (1,) * len(self.kernel)
            return [np.ascontiguousarray(taps[:, t]).reshape(bshape) for t in range(taps.shape[1])]
        return w

    # --- the call --------------------------------------------------------------------------------
    def __call__(self, x: np.ndarray, w: Any) -> np.ndarray:
        x = x.astype(self.ct, copy=False)
        if self.strategy == "pointwise":
            if any(s != 1 for s in self.strides):
                x = x[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in self.strides)]
            if self.n == 1:
                out = w @ x.reshape(x.shape[1], -1)
            else:
                out = np.matmul(w, x.reshape(x.shape[0], x.shape[1], -1))
            return self._finish(out)
        if self.strategy == "depthwise_rows":
            return self._finish(self._depthwise_rows(x, w))
        padded = self._pad(x)
        if self.strategy == "depthwise":
            return self._finish(self._depthwise(padded, w))
        win = self._windows(padded)
        ns = len(self.kernel)
        if self.strategy == "im2col":
            perm = (0, 1) + tuple(range(2 + ns, 2 + 2 * ns)) + tuple(range(2, 2 + ns))
            cols = np.ascontiguousarray(win.transpose(perm))
            if self.n == 1:
                out = w @ cols.reshape(w.shape[1], -1)
            else:
                out = np.matmul(w, cols.reshape(self.n, w.shape[1], -1))
            return self._finish(out)
        win = win.reshape((self.n, self.groups, self.ci) + win.shape[2:])
        letters = "defhjklmpqrstuvwxyz"
        o, k = letters[:ns], letters[ns: 2 * ns]
        out = np.einsum(f"ngc{o}{k},gac{k}->nga{o}", win, w, optimize=True)
        return self._finish(out)

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

    def _plan_rows(self, spatial: list[int], k_eff: list[int]) -> None:
        """2-D depthwise with equal strides, on flat rows: output (i, j) of tap (a, b) reads the
        padded input at ``(a*dh + s*i) * Wp + b*dw + s*j = start(a, b) + s*(i*Wp + j)``, so each tap
        is one long strided 1-D view per channel (columns j >= out width are computed and cut)."""
        s = self.strides[0]
        hp = spatial[0] + self.begin[0] + self.end[0]
        wp = spatial[1] + self.begin[1] + self.end[1]
        oh, ow = self.out_spatial
        self.starts = [a * self.dilations[0] * wp + b * self.dilations[1]
                       for a in range(self.kernel[0]) for b in range(self.kernel[1])]
        last = max(self.starts) + s * (oh * wp - 1)
        rows = max(hp, -(-(last + 1) // wp))
        self.row_shape = (self.n, self.padded_shape[1], rows, wp)
        self.row_inner = (slice(None), slice(None), slice(self.begin[0], self.begin[0] + spatial[0]),
                          slice(self.begin[1], self.begin[1] + spatial[1]))
        self.row_span = (s, oh * wp, (self.n, self.padded_shape[1], oh, wp), ow)
        self.strategy = "depthwise_rows"

    def _depthwise_rows(self, x: np.ndarray, taps: list[np.ndarray]) -> np.ndarray:
        n, c, rows, wp = self.row_shape
        buffer = np.empty(self.row_shape, x.dtype)
        buffer.fill(0)
        buffer[self.row_inner] = x
        flat = buffer.reshape(n, c, rows * wp)
        step, length, full, ow = self.row_span
        out: np.ndarray | None = None
        scratch = np.empty((n, c, length), x.dtype)
        for start, tap in zip(self.starts, taps):
            view = flat[:, :, start: start + step * (length - 1) + 1: step]
            if out is None:
                out = np.multiply(view, tap)
            else:
                np.multiply(view, tap, out=scratch)
                out += scratch
        assert out is not None
        return np.ascontiguousarray(out.reshape(full)[..., :ow])

    def _depthwise(self, padded: np.ndarray, taps: list[np.ndarray]) -> np.ndarray:
        out: np.ndarray | None = None
        scratch: np.ndarray | None = None
        outs = self.out_spatial
        for t, kpos in enumerate(itertools.product(*[range(k) for k in self.kernel])):
            view = padded[(slice(None), slice(None)) + tuple(
                slice(kp * d, kp * d + (o - 1) * s + 1, s) for kp, d, o, s in zip(kpos, self.dilations, outs, self.strides))]
            if out is None:
                out = view * taps[t]
                scratch = np.empty_like(out)
            else:
                np.multiply(view, taps[t], out=scratch)
                out += scratch
        assert out is not None
        return out
