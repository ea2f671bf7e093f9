"""OpenVINO image patches: ExtractImagePatches-3 (sliding windows to channels) and Col2Im-15 (its
adjoint: column blocks summed back into an image)."""
from __future__ import annotations

import math
from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import INDEX, Op, Port, TensorType
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape


def _window_count(d: Dimension, k_eff: int, stride: int, auto_pad: str) -> Dimension:
    """The output length of a dim: ``ceil(d/stride)`` for same padding, else the windows that fit."""
    def one(n: int) -> int:
        if auto_pad != "valid":
            return -(-n // stride)
        return 0 if n < k_eff else (n - k_eff) // stride + 1
    return Dimension(one(d.min), None if d.max is None else one(d.max))


class ExtractImagePatches(Op):
    """ExtractImagePatches-3: ``[N, C, H, W]`` to ``[N, C*kh*kw, OH, OW]``; channel ``(i*kw + j)*C + c``
    holds pixel ``(i, j)`` of channel ``c``'s window; padded pixels are 0. For same padding OpenVINO
    pads ``P = (ceil(in/stride) - 1) * stride + k_eff - in`` only when ``0 < P < k_eff``."""

    type_name: ClassVar[str] = "ExtractImagePatches"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    sizes: list[int]
    strides: list[int]
    rates: list[int]
    auto_pad: Literal["valid", "same_upper", "same_lower"]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        for name in ("sizes", "strides", "rates"):
            values = getattr(self, name)
            if len(values) != 2:
                raise self.fail(f"Attribute {name} should be in 2D format (got {values})")
            if any(v <= 0 for v in values):
                raise self.fail(f"Attribute {name} must have non-negative (and non-zero) values (got {values})")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, PartialShape.dynamic(4))]
        if len(data.shape) != 4:
            raise self.fail(f"input tensor must be 4D tensor (got {data.shape})")
        n, c, h, w = data.shape.dims
        kh, kw = self.sizes
        dims = [n, c * (kh * kw)]
        for d, k, s, r in ((h, kh, self.strides[0], self.rates[0]), (w, kw, self.strides[1], self.rates[1])):
            dims.append(_window_count(d, k + (k - 1) * (r - 1), s, self.auto_pad))
        shape = PartialShape(dims)
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def _pad_begin(self, n: int, k_eff: int, stride: int) -> int:
        if self.auto_pad == "valid":
            return 0
        total = (math.ceil(n / stride) - 1) * stride + k_eff - n
        if not 0 < total < k_eff:
            return 0
        if total % 2 == 0:
            return total // 2
        return (total + 1) // 2 if self.auto_pad == "same_lower" else (total - 1) // 2

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        n, c, h, w = x.shape
        (kh, kw), (sh, sw), (rh, rw) = self.sizes, self.strides, self.rates
        eh, ew = kh + (kh - 1) * (rh - 1), kw + (kw - 1) * (rw - 1)
        oh = _window_count(Dimension.static(h), eh, sh, self.auto_pad).min
        ow = _window_count(Dimension.static(w), ew, sw, self.auto_pad).min
        top, left = self._pad_begin(h, eh, sh), self._pad_begin(w, ew, sw)
        rows = np.arange(oh)[:, None] * sh - top + np.arange(kh)[None, :] * rh  # [oh, kh]
        cols = np.arange(ow)[:, None] * sw - left + np.arange(kw)[None, :] * rw  # [ow, kw]
        padded = np.zeros((n, c, h + 2, w + 2), dtype=x.dtype)  # index -1 and h/w read the zero border
        padded[:, :, 1:h + 1, 1:w + 1] = x
        r = np.where((rows >= 0) & (rows < h), rows + 1, 0)
        q = np.where((cols >= 0) & (cols < w), cols + 1, 0)
        # [n, c, oh, kh, ow, kw] -> [n, kh, kw, c, oh, ow]
        patches = padded[:, :, r[:, :, None, None], q[None, None, :, :]]
        patches = patches.transpose(0, 3, 5, 1, 2, 4).reshape(n, kh * kw * c, oh, ow)
        return [np.ascontiguousarray(patches)]


class Col2Im(Op):
    """Col2Im-15: ``[N, C*kh*kw, L]`` (or unbatched) blocks summed into ``[N, C, H, W]``
    (``output_size`` H, W); L must be the block count the sizes, strides, dilations and pads give."""

    type_name: ClassVar[str] = "Col2Im"
    version: ClassVar[str] = "opset15"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("output_size", INDEX), Port("kernel_size", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    strides: list[int] = [1, 1]
    dilations: list[int] = [1, 1]
    pads_begin: list[int] = [0, 0]
    pads_end: list[int] = [0, 0]

    def _blocks(self, size: list[int], kernel: list[int]) -> int:
        count = 1
        for i in range(2):
            span = size[i] + self.pads_begin[i] + self.pads_end[i] - self.dilations[i] * (kernel[i] - 1) - 1
            count *= span // self.strides[i] + 1
        return count

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, size_t, kernel_t = inputs
        for name in ("strides", "dilations", "pads_begin", "pads_end"):
            if len(getattr(self, name)) != 2:
                raise self.fail(f"{name} must be a 2D vector (got {getattr(self, name)})")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, PartialShape.dynamic())]
        rank = len(data.shape)
        if rank not in (2, 3):
            raise self.fail(f"input data must be an unbatched 2D or a batched 3D input (got {data.shape})")
        size = sv.elements(size_t)
        kernel = sv.elements(kernel_t)
        size_known = size is not None and sv.is_known(size)
        kernel_known = kernel is not None and sv.is_known(kernel)
        channel = data.shape[rank - 2]
        if kernel is not None and kernel_known:
            prod = int(kernel[0]) * int(kernel[1])  # type: ignore[arg-type]
            if channel.is_static and channel.min % prod:
                raise self.fail(f"First non-batch dimension is not evenly divisible by Product(kernel_shape). "
                                f"Got: {channel.min}")
            c = Dimension.static(channel.min // prod) if channel.is_static else Dimension.dynamic()
        else:
            c = Dimension.dynamic()
        if size is not None and kernel is not None and size_known and kernel_known:
            blocks = self._blocks([int(v) for v in size], [int(v) for v in kernel])  # type: ignore[arg-type]
            last = data.shape[rank - 1]
            if last.is_static and last.min != blocks:
                raise self.fail(f"For given inputs and parameters the total number of data blocks must be equal "
                                f"to {blocks}. Got: {last.min}")
        hw = [Dimension.static(int(v)) for v in size] if size_known else [Dimension.dynamic()] * 2  # type: ignore
        dims = ([data.shape[0]] if rank == 3 else []) + [c] + hw
        shape = PartialShape(dims)
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def evaluate(self, x: np.ndarray, output_size: np.ndarray, kernel_size: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        batched = x.ndim == 3
        cols = x if batched else x[None]
        (h, w), (kh, kw) = (int(v) for v in np.asarray(output_size)), (int(v) for v in np.asarray(kernel_size))
        n, ck, _ = cols.shape
        c = ck // (kh * kw)
        (sh, sw), (dh, dw), (ph, pw) = self.strides, self.dilations, self.pads_begin
        bh = (h + ph + self.pads_end[0] - dh * (kh - 1) - 1) // sh + 1
        bw = (w + pw + self.pads_end[1] - dw * (kw - 1) - 1) // sw + 1
        acc = np.zeros((n, c, h + ph + self.pads_end[0], w + pw + self.pads_end[1]), dtype=np.float64
                       if x.dtype.kind == "f" else np.int64)
        blocks = cols.reshape(n, c, kh, kw, bh, bw)
        for i in range(kh):
            for j in range(kw):
                acc[:, :, i * dh:i * dh + sh * (bh - 1) + 1:sh, j * dw:j * dw + sw * (bw - 1) + 1:sw] += blocks[:, :, i, j]
        out = acc[:, :, ph:ph + h, pw:pw + w].astype(x.dtype)
        return [out if batched else out[0]]
