"""OpenVINO color conversions: NV12toRGB/BGR-8, I420toRGB/BGR-8 (YUV 4:2:0 to interleaved RGB)
and RGBtoNV12/BGRtoNV12-17 (back), all NHWC.

YUV input comes as one plane (``[N, H*3/2, W, 1]``: Y rows, then the chroma rows) or as separate
planes (NV12: Y ``[N,H,W,1]`` + interleaved UV ``[N,H/2,W/2,2]``; I420: Y + U ``[N,H/2,W/2,1]`` + V).
Arithmetic is OpenVINO's BT.601 in float32; u8 results are rounded half away from zero and clipped
to [0, 255], floating results clipped only.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.batch_space import divide
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

F = np.float32


def _round_half_away(a: np.ndarray) -> np.ndarray:
    return np.copysign(np.floor(np.abs(a) + F(0.5)), a).astype(F)


def to_type(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float32 result into the output type: u8 rounds, clips and casts; floats clip."""
    if np.issubdtype(dtype, np.integer):
        return np.clip(_round_half_away(a), F(0), F(255)).astype(dtype)
    return np.clip(a, F(0), F(255)).astype(dtype)


def yuv_to_rgb(y: np.ndarray, u: np.ndarray, v: np.ndarray, dtype: np.dtype, bgr: bool) -> np.ndarray:
    """Per-pixel BT.601 limited range (``y``, ``u``, ``v`` of one shape, float32) to ``[..., 3]``."""
    c, d, e = y - F(16), u - F(128), v - F(128)
    r = F(1.164) * c + F(1.596) * e
    g = F(1.164) * c - F(0.391) * d - F(0.813) * e
    b = F(1.164) * c + F(2.018) * d
    channels = (b, g, r) if bgr else (r, g, b)
    return np.stack([to_type(ch, dtype) for ch in channels], axis=-1)


def _check_type(op: Op, inputs: list[TensorType]) -> ElementType:
    et = ElementType.dynamic
    for t in inputs:
        merged = et.merge(t.element_type)
        if merged is None:
            raise op.fail(f"Input types are not compatible (got {', '.join(str(t.element_type) for t in inputs)})")
        et = merged
    if not et.is_dynamic and et is not ElementType.u8 and not et.is_real:
        raise op.fail(f"Input type shall have u8 or floating-point precision, got {et}")
    return et


def _nhwc(op: Op, t: TensorType, what: str, channels: int) -> list[Dimension]:
    if t.shape.rank_is_dynamic:
        return [Dimension.dynamic()] * 4
    if len(t.shape) != 4:
        raise op.fail(f"{what} input shall have 4 dimensions (N, H, W, C), got {t.shape}")
    dims = list(t.shape.dims)
    if not dims[3].compatible(Dimension.static(channels)):
        raise op.fail(f"{what} input number of channels should be equal to {channels}, got {t.shape}")
    return dims


def _even(op: Op, d: Dimension, what: str) -> None:
    if d.is_static and d.min % 2:
        raise op.fail(f"Image {what} must be even, but is {d.min}")


class _YUV420toRGB(Op):
    """What NV12 and I420 share: shape inference and the plane split."""

    version: ClassVar[str] = "opset8"
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    bgr: ClassVar[bool] = False
    planes: ClassVar[int] = 2
    chroma_channels: ClassVar[int] = 2

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        if len(inputs) not in (1, self.planes):
            raise self.fail(f"takes 1 or {self.planes} inputs, got {len(inputs)}")
        et = _check_type(self, inputs)
        if len(inputs) == 1:
            n, h, w, _ = _nhwc(self, inputs[0], "YUV", 1)
            if h.is_static and h.min % 3:
                raise self.fail(f"Image height shall be divisible by 3, got {h.min} (input {inputs[0].shape})")
            h = divide(h * 2, 3)
        else:
            n, h, w, _ = _nhwc(self, inputs[0], "Y", 1)
            for t in inputs[1:]:
                cn, ch, cw, _ = _nhwc(self, t, "UV" if self.planes == 2 else "U/V", self.chroma_channels)
                merged = [n.merge(cn), h.merge(ch * 2), w.merge(cw * 2)]
                if any(m is None for m in merged):
                    raise self.fail(f"Y shape {inputs[0].shape} is inconsistent with chroma shape {t.shape}")
                n, h, w = merged  # type: ignore[assignment]
        _even(self, h, "height")
        _even(self, w, "width")
        shape = PartialShape([n, h, w, 3])
        return [TensorType(et, shape, fold(self, inputs, shape, et))]

    def evaluate(self, *planes: np.ndarray) -> list[np.ndarray]:
        first = np.asarray(planes[0])
        if len(planes) == 1:
            n, hh, w, _ = first.shape
            h = hh * 2 // 3
            flat = first.reshape(n, -1)
            y = flat[:, :h * w].reshape(n, h, w)
            u, v = self._chroma_of_plane(flat[:, h * w:], n, h, w)
        else:
            n, h, w, _ = first.shape
            y = first[..., 0]
            u, v = self._chroma_of_planes(*planes[1:])
        u = np.repeat(np.repeat(u, 2, axis=1), 2, axis=2)
        v = np.repeat(np.repeat(v, 2, axis=1), 2, axis=2)
        return [yuv_to_rgb(y.astype(F), u.astype(F), v.astype(F), first.dtype, self.bgr)]

    def _chroma_of_plane(self, rest: np.ndarray, n: int, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _chroma_of_planes(self, *planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


class NV12toRGB(_YUV420toRGB):
    """NV12toRGB-8: Y plane + interleaved UV (one plane or two inputs) to RGB."""

    type_name: ClassVar[str] = "NV12toRGB"
    inputs: ClassVar[tuple[Port, ...]] = (Port("y"), Port("uv", optional=True))

    def _chroma_of_plane(self, rest: np.ndarray, n: int, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        uv = rest.reshape(n, h // 2, w // 2, 2)
        return uv[..., 0], uv[..., 1]

    def _chroma_of_planes(self, *planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        uv = np.asarray(planes[0])
        return uv[..., 0], uv[..., 1]


class NV12toBGR(NV12toRGB):
    type_name: ClassVar[str] = "NV12toBGR"
    bgr: ClassVar[bool] = True


class I420toRGB(_YUV420toRGB):
    """I420toRGB-8: Y, U and V planes (one plane or three inputs) to RGB."""

    type_name: ClassVar[str] = "I420toRGB"
    inputs: ClassVar[tuple[Port, ...]] = (Port("y"), Port("u", optional=True), Port("v", optional=True))
    planes: ClassVar[int] = 3
    chroma_channels: ClassVar[int] = 1

    def _chroma_of_plane(self, rest: np.ndarray, n: int, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        quarter = h * w // 4
        return (rest[:, :quarter].reshape(n, h // 2, w // 2), rest[:, quarter:2 * quarter].reshape(n, h // 2, w // 2))

    def _chroma_of_planes(self, *planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(planes[0])[..., 0], np.asarray(planes[1])[..., 0]


class I420toBGR(I420toRGB):
    type_name: ClassVar[str] = "I420toBGR"
    bgr: ClassVar[bool] = True


class RGBtoNV12(Op):
    """RGBtoNV12-17: ``[N, H, W, 3]`` to NV12, one plane ``[N, H*3/2, W, 1]`` (``single_plane``) or
    Y ``[N,H,W,1]`` + UV ``[N,H/2,W/2,2]``; chroma is the mean of each 2x2 block's (rounded) U and V."""

    type_name: ClassVar[str] = "RGBtoNV12"
    version: ClassVar[str] = "opset17"
    inputs: ClassVar[tuple[Port, ...]] = (Port("rgb"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("y_or_yuv"), Port("uv", optional=True))
    bgr: ClassVar[bool] = False

    single_plane: bool = True

    def num_outputs(self) -> int:
        return 1 if self.single_plane else 2

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = _check_type(self, inputs)
        n, h, w, _ = _nhwc(self, inputs[0], "RGB" if not self.bgr else "BGR", 3)
        _even(self, h, "height")
        _even(self, w, "width")
        values = self.evaluate(np.asarray(inputs[0].value)) if inputs[0].value is not None and not et.is_dynamic \
            else [None, None]
        if self.single_plane:
            return [TensorType(et, PartialShape([n, divide(h * 3, 2), w, 1]), values[0])]
        return [TensorType(et, PartialShape([n, h, w, 1]), values[0]),
                TensorType(et, PartialShape([n, divide(h, 2), divide(w, 2), 2]), values[1])]

    def evaluate(self, rgb: np.ndarray) -> list[np.ndarray]:
        rgb = np.asarray(rgb)
        dtype = rgb.dtype
        x = rgb.astype(F)
        r, g, b = (x[..., 2], x[..., 1], x[..., 0]) if self.bgr else (x[..., 0], x[..., 1], x[..., 2])
        y = to_type(F(0.257) * r + F(0.504) * g + F(0.098) * b + F(16), dtype)
        u = to_type(F(-0.148) * r - F(0.291) * g + F(0.439) * b + F(128), dtype).astype(F)
        v = to_type(F(0.439) * r - F(0.368) * g - F(0.071) * b + F(128), dtype).astype(F)
        n, h, w = y.shape

        def block_mean(c: np.ndarray) -> np.ndarray:
            total = c[:, 0::2, 0::2] + c[:, 0::2, 1::2] + c[:, 1::2, 0::2] + c[:, 1::2, 1::2]
            mean = total / F(4)
            return _round_half_away(mean).astype(dtype) if np.issubdtype(dtype, np.integer) else mean.astype(dtype)

        uv = np.stack([block_mean(u), block_mean(v)], axis=-1)
        if self.single_plane:
            plane = np.concatenate([y.reshape(n, -1), uv.reshape(n, -1)], axis=1).reshape(n, h * 3 // 2, w, 1)
            return [plane]
        return [y[..., None], uv]


class BGRtoNV12(RGBtoNV12):
    type_name: ClassVar[str] = "BGRtoNV12"
    bgr: ClassVar[bool] = True
