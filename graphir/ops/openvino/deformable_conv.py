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

from graphir.kernels.deformable import DeformableGeometry, deformable_conv2d
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

    def check_run(self, inputs: list[TensorType]) -> None:
        channels = inputs[0].shape[1] if inputs[0].shape.rank_is_static else Dimension.dynamic()
        if channels.is_static and channels.min % self.deformable_group:
            raise self.fail(f"Data batch channels ({channels}) must be divisible by 'deformable_group' "
                            f"({self.deformable_group}) to run")

    def evaluate(self, x: np.ndarray, offsets: np.ndarray, w: np.ndarray,
                 mask: np.ndarray | None = None) -> list[np.ndarray]:
        x, offsets, w = np.asarray(x), np.asarray(offsets), np.asarray(w)
        h, wd = x.shape[2:]
        kh, kw = w.shape[2:]
        (ph, pw), _ = resolve_pads((h, wd), [self.dilations[0] * (kh - 1) + 1, self.dilations[1] * (kw - 1) + 1],
                                   self.strides, self.pads_begin, self.pads_end, self.auto_pad)
        geometry = DeformableGeometry((self.strides[0], self.strides[1]),
                                      (self.dilations[0], self.dilations[1]), (ph, pw), self.group,
                                      self.deformable_group, self._pad_flag())
        out = deformable_conv2d(x, offsets, w, None if mask is None else np.asarray(mask), geometry)
        if x.dtype.kind in "iu":
            return [out.astype(np.int64, order="C").astype(x.dtype)]
        return [out.astype(x.dtype, order="C")]


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
