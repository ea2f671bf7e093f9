"""OpenVINO YOLO helpers: RegionYolo-1 (sigmoid/softmax over a YOLO head's channels) and
ReorgYolo-2 (the darknet "reorg" space-to-depth permutation)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.shapes import Dimension, PartialShape


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return (np.float32(1) / (np.float32(1) + np.exp(-x.astype(np.float32)))).astype(np.float32)


class RegionYolo(Op):
    """RegionYolo-1: per anchor, sigmoid on x, y and the objectness, softmax (``do_softmax``,
    output flattened over ``axis..end_axis``) or sigmoid (only the ``mask`` anchors kept) over the
    class scores; the other coordinates pass through."""

    type_name: ClassVar[str] = "RegionYolo"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    coords: int = 4
    classes: int = 20
    num: int = 5
    do_softmax: bool = True
    mask: list[int] = []
    axis: int = 1
    end_axis: int = 3
    anchors: list[float] = []

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        et = data.element_type
        if not (et.is_real or et.is_dynamic):
            raise self.fail(f"Type of input is expected to be a floating point type. Got: {et}")
        if data.shape.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        if len(data.shape) != 4:
            raise self.fail(f"Input must be a tensor of rank 4, but got {len(data.shape)}")
        dims = list(data.shape.dims)
        if self.do_softmax:
            end = self.end_axis % 4
            flat = Dimension.static(1)
            for d in dims[self.axis:end + 1]:
                flat = flat * d
            return [TensorType(et, PartialShape(dims[:self.axis] + [flat] + dims[end + 1:]))]
        channels = (self.classes + self.coords + 1) * len(self.mask)
        return [TensorType(et, PartialShape([dims[0], channels, dims[2], dims[3]]))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        n, c, h, w = x.shape
        regions = self.num if self.do_softmax else len(self.mask)
        per = self.coords + self.classes + 1
        out = x.astype(np.float32).copy()[:, :regions * per]
        out = out.reshape(n, regions, per, h, w)
        out[:, :, 0:2] = _sigmoid(out[:, :, 0:2])
        out[:, :, self.coords] = _sigmoid(out[:, :, self.coords])
        classes = out[:, :, self.coords + 1:]
        if self.do_softmax:
            e = np.exp(classes - classes.max(axis=2, keepdims=True))
            out[:, :, self.coords + 1:] = e / e.sum(axis=2, keepdims=True)
        else:
            out[:, :, self.coords + 1:] = _sigmoid(classes)
        out = out.reshape(n, regions * per, h, w)
        if self.do_softmax:
            full = x.astype(np.float32).copy()
            full[:, :regions * per] = out
            out = full
        shape = self.infer([TensorType.of(str(_et(x)), list(x.shape))])[0].shape.to_shape()
        return [out.reshape(shape).astype(x.dtype)]


def _et(x: np.ndarray):  # noqa: ANN202
    from graphir.types import ElementType

    return ElementType.from_numpy(x.dtype)


class ReorgYolo(Op):
    """ReorgYolo-2: ``[N, C, H, W]`` to ``[N, C*s*s, H/s, W/s]`` in darknet's reorg order."""

    type_name: ClassVar[str] = "ReorgYolo"
    version: ClassVar[str] = "opset2"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    stride: list[int]

    def _s(self) -> int:
        if not self.stride or self.stride[0] < 1:
            raise self.fail(f"stride {self.stride} must be a positive number")
        return self.stride[0]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        s = self._s()
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, PartialShape.dynamic())]
        if len(data.shape) != 4:
            raise self.fail(f"[N, C, H, W] input shape is required. Got: {data.shape}")
        n, c, h, w = data.shape.dims
        for d in (h, w):
            if d.is_static and d.get_length() % s:
                raise self.fail(f"For [N, C, H, W] input shape, H and W should be divisible by stride. Got: {data.shape}")

        def down(d: Dimension) -> Dimension:
            return Dimension(-(-d.min // s), None if d.max is None else d.max // s)

        return [TensorType(data.element_type, PartialShape([n, c * (s * s), down(h), down(w)]))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        s = self._s()
        n, c, h, w = x.shape
        oc = c // (s * s)
        b, k, j, i = np.meshgrid(np.arange(n), np.arange(c), np.arange(h), np.arange(w), indexing="ij")
        offset = k // oc if oc else k
        src = (((b * oc + k % max(oc, 1)) * (h * s) + j * s + offset // s) * (w * s) + i * s + offset % s)
        out = x.reshape(-1)[src.reshape(-1)] if x.size else x.reshape(-1)
        return [out.reshape(n, c * s * s, h // s, w // s)]
