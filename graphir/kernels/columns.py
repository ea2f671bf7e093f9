"""Convolution columns built straight from the input, tap by tap (no padded copy, no window view).

The im2col layout ``[N, C, k..., o...]`` holds, for tap ``t`` and output position ``o``, the input
at ``o * stride + t * dilation - pad_begin`` (zero where that falls outside the input). Per tap that
is one strided slice of the input copied into a box of the output positions, and zeros around the
box: :class:`TapColumns` works the boxes out once per signature, then each call copies each tap's
box from the input (the padded input the window view read is never made: DeepLabV3's ASPP layers
pad a 16x16 map to 88x88). The values are the window view's, element for element, so every
product over them keeps its bits (tests/test_conv_columns.py).

Taps whose box is empty (dilated taps that only ever read padding) can be left out
(``skip_empty``): their rows of the columns are all zero.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TapBox:
    """One tap: its kernel index, the output box it reads input in, the input slices it reads,
    and the regions of its output positions outside the box (zeros)."""

    index: tuple[int, ...]
    box: tuple[slice, ...]
    source: tuple[slice, ...]
    zeros: tuple[tuple[slice, ...], ...]
    empty: bool


class TapColumns:
    """Columns ``[N, C, T, o...]`` for a convolution's static shapes (``T`` = the kept taps)."""

    def __init__(self, spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
                 dilations: Sequence[int], pads_begin: Sequence[int], out_spatial: Sequence[int],
                 skip_empty: bool = False) -> None:
        self.out_spatial = tuple(int(o) for o in out_spatial)
        taps = [_tap_box(index, spatial, dilations, strides, pads_begin, self.out_spatial)
                for index in itertools.product(*(range(int(k)) for k in kernel))]
        #: the position (in kernel order) of each kept tap
        self.kept = [i for i, tap in enumerate(taps) if not (skip_empty and tap.empty)]
        self.taps = [taps[i] for i in self.kept]
        self.all_taps = len(taps)
        #: how many taps only read padding (kept or not)
        self.empty_taps = sum(tap.empty for tap in taps)

    def fill(self, columns: np.ndarray, x: np.ndarray, zeros: bool = True) -> None:
        """Write ``x [B, C, D...]``'s columns into ``columns [B, C, T, o...]``. ``zeros=False``
        leaves the zero regions as they are (a buffer filled before for the same shapes)."""
        lead = (slice(None), slice(None))
        for t, tap in enumerate(self.taps):
            slab = columns[:, :, t]
            if tap.empty:
                if zeros:
                    slab.fill(0)
                continue
            if zeros:
                for region in tap.zeros:
                    slab[lead + region] = 0
            slab[lead + tap.box] = x[lead + tap.source]

    def build(self, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """A new ``[N, C, T, o...]`` array of ``x``'s columns."""
        columns = np.empty(x.shape[:2] + (len(self.taps),) + self.out_spatial, dtype)
        self.fill(columns, x)
        return columns


def _tap_box(index: tuple[int, ...], spatial: Sequence[int], dilations: Sequence[int], strides: Sequence[int],
             pads_begin: Sequence[int], out_spatial: Sequence[int]) -> TapBox:
    bounds: list[tuple[int, int]] = []
    source: list[slice] = []
    for t, size, d, s, pad, out in zip(index, spatial, dilations, strides, pads_begin, out_spatial):
        offset = int(t) * int(d) - int(pad)  # input position of output 0
        lo = min((-offset + int(s) - 1) // int(s) if offset < 0 else 0, out)  # the first o with o*s + offset >= 0
        last = size - 1 - offset
        hi = min(out, last // int(s) + 1) if last >= 0 else 0
        hi = max(hi, lo)
        bounds.append((lo, hi))
        start = lo * int(s) + offset
        source.append(slice(start, start + (hi - lo - 1) * int(s) + 1, int(s)) if hi > lo else slice(0, 0))
    zeros: list[tuple[slice, ...]] = []
    for axis, (lo, hi) in enumerate(bounds):
        inside = tuple(slice(a, b) for a, b in bounds[:axis])
        rest = tuple(slice(None) for _ in bounds[axis + 1:])
        if lo > 0:
            zeros.append(inside + (slice(0, lo),) + rest)
        if hi < out_spatial[axis]:
            zeros.append(inside + (slice(hi, None),) + rest)
    return TapBox(tuple(index), tuple(slice(a, b) for a, b in bounds), tuple(source), tuple(zeros),
                  any(a == b for a, b in bounds))
