"""OpenVINO DeformableConvolution-1/8: a 2-D convolution whose every kernel tap reads the input
at a learned fractional offset (bilinear), per deformable group; -8 adds a ``mask`` input that
scales each tap and ``bilinear_interpolation_pad``.

Sampling follows OpenVINO's reference: a tap whose point lies outside ``[0, size)`` (without
``bilinear_interpolation_pad``: outside ``(-1, size)`` truncated) contributes nothing; without the
pad flag the four corners are clamped into the image, with it corners outside read as 0.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import NUMERIC, Port, TensorType
from graphir.ops.openvino.conv import _ConvBase, resolve_pads
from graphir.shapes import Dimension, PartialShape


class DeformableConvolution(_ConvBase):
    """DeformableConvolution-1: ``data [N, C, H, W]``, ``offsets [N, dg*2*kh*kw, OH, OW]``,
    ``filters [Co, C/group, kh, kw]`` to ``[N, Co, OH, OW]``."""

    type_name: ClassVar[str] = "DeformableConvolution"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", NUMERIC), Port("offsets", NUMERIC), Port("filters", NUMERIC))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    group: int = 1
    deformable_group: int = 1

    def _pad_flag(self) -> bool:
        return False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, tuple(range(len(inputs))))
        if self.group < 1 or self.deformable_group < 1:
            raise self.fail(f"Attributes 'group' ({self.group}) and 'deformable_group' ({self.deformable_group}) "
                            f"must be positive")
        shapes = [t.shape for t in inputs]
        if all(s.rank_is_dynamic for s in shapes):
            return [TensorType(et, PartialShape.dynamic())]
        for name, s in zip(("data batch", "offsets", "filters", "mask"), shapes):
            if s.rank_is_static and len(s) != 4:
                raise self.fail(f"Input {name} must be of rank 4 (got {s}); only 2-D deformable convolution exists")
        data, offsets, filters = (list(s.dims) if s.rank_is_static else [Dimension.dynamic()] * 4 for s in shapes[:3])
        self._check_attrs(2)
        if filters[1].is_static and data[1].is_static and data[1].min != filters[1].min * self.group:
            raise self.fail(f"Data batch channel count ({data[1]}) must be filters' input channels ({filters[1]}) x "
                            f"group ({self.group}) (data {shapes[0]}, filters {shapes[2]})")
        if data[1].is_static and data[1].min % self.group:
            raise self.fail(f"Input channels of data batch input must be evenly divisible by 'group' attribute "
                            f"(got {data[1]} and {self.group})")
        if filters[0].is_static and filters[0].min % self.group:
            raise self.fail(f"The first dimension of filters input must be evenly divisible by 'group' attribute "
                            f"(got {filters[0]} and {self.group})")
        taps = filters[2] * filters[3]
        if offsets[1].is_static and taps.is_static and offsets[1].min != 2 * self.deformable_group * taps.min:
            raise self.fail(f"The channels dimension of offsets input ({offsets[1]}) must be "
                            f"2 x deformable_group x kernel taps ({2 * self.deformable_group * taps.min})")
        if len(inputs) > 3:
            mask = list(shapes[3].dims) if shapes[3].rank_is_static else [Dimension.dynamic()] * 4
            if mask[1].is_static and taps.is_static and mask[1].min != self.deformable_group * taps.min:
                raise self.fail(f"The channels dimension of mask input ({mask[1]}) must be deformable_group x "
                                f"kernel taps ({self.deformable_group * taps.min})")
        else:
            mask = [Dimension.dynamic()] * 4
        batch = data[0]
        for d in (offsets[0], mask[0]):
            m = batch.merge(d)
            if m is None:
                raise self.fail(f"Data batch and offsets/mask batch dimension must be same value "
                                f"({', '.join(str(s) for s in shapes)})")
            batch = m
        spatial = self._spatial_out(PartialShape(data), filters[2:])
        for i in range(2):
            for d in (offsets[2 + i], mask[2 + i]):
                m = spatial[i].merge(d)
                if m is None:
                    raise self.fail(f"Spatial dimensions of offsets and mask must be equal to the output's "
                                    f"({', '.join(str(s) for s in shapes)})")
                spatial[i] = m
        return [TensorType(et, PartialShape([batch, filters[0]] + spatial))]

    def evaluate(self, x: np.ndarray, offsets: np.ndarray, w: np.ndarray,
                 mask: np.ndarray | None = None) -> list[np.ndarray]:
        x, offsets, w = np.asarray(x), np.asarray(offsets), np.asarray(w)
        out_dtype = x.dtype
        n, c, h, wd = x.shape
        co, cig, kh, kw = w.shape
        dg = self.deformable_group
        oh, ow = offsets.shape[2:]
        (ph, pw), _ = resolve_pads((h, wd), [self.dilations[0] * (kh - 1) + 1, self.dilations[1] * (kw - 1) + 1],
                                   self.strides, self.pads_begin, self.pads_end, self.auto_pad)
        taps = kh * kw
        off = offsets.astype(np.float64).reshape(n, dg, taps, 2, oh, ow)
        m = np.ones((n, dg, taps, oh, ow)) if mask is None else np.asarray(mask, np.float64).reshape(n, dg, taps, oh, ow)
        ty = (np.arange(kh) * self.dilations[0]).repeat(kw)  # [taps]
        tx = np.tile(np.arange(kw) * self.dilations[1], kh)
        base_y = np.arange(oh) * self.strides[0] - ph
        base_x = np.arange(ow) * self.strides[1] - pw
        y = base_y[None, None, None, :, None] + ty[None, None, :, None, None] + off[:, :, :, 0]
        xx = base_x[None, None, None, None, :] + tx[None, None, :, None, None] + off[:, :, :, 1]
        # the sampling point computed in the data type, as OpenVINO does (T rel = i + offset)
        y = y.astype(x.dtype if x.dtype.kind == "f" else np.float32).astype(np.float64)
        xx = xx.astype(x.dtype if x.dtype.kind == "f" else np.float32).astype(np.float64)
        if self._pad_flag():
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
        if x.dtype.kind in "iu":  # integers: the sample is truncated into the type, then T arithmetic
            sampled = np.trunc(sampled)
        sampled = np.where(valid[:, g], sampled * m[:, g], 0.0)  # [N, C, taps, OH, OW]
        groups = self.group
        cols = sampled.reshape(n, groups, cig * taps, oh * ow)
        wg = w.astype(np.float64).reshape(groups, co // groups, cig * taps)
        out = np.einsum("gok,ngkp->ngop", wg, cols).reshape(n, co, oh, ow)
        if x.dtype.kind in "iu":
            return [out.astype(np.int64).astype(out_dtype)]
        return [out.astype(out_dtype)]


class DeformableConvolution8(DeformableConvolution):
    """DeformableConvolution-8: an optional ``mask [N, dg*kh*kw, OH, OW]`` scales each tap."""
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "bilinear_interpolation_pad", "strides", "dilations", "pads_begin", "pads_end", "auto_pad", "group",
        "deformable_group"
    )

    type_name: ClassVar[str] = "DeformableConvolution"
    version: ClassVar[str] = "opset8"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", NUMERIC), Port("offsets", NUMERIC), Port("filters", NUMERIC),
                                          Port("mask", NUMERIC, optional=True))

    bilinear_interpolation_pad: bool = False

    def _pad_flag(self) -> bool:
        return self.bilinear_interpolation_pad
