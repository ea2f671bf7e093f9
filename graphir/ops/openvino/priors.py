"""OpenVINO anchor generators of SSD-style detectors: PriorBox-1/8 and PriorBoxClustered-1.

Both take the feature map size ``[H, W]`` and the image size ``[IH, IW]`` as (usually constant)
integer tensors and give ``[2, 4 * H * W * num_priors]`` f32: the normalised boxes
(xmin, ymin, xmax, ymax) on row 0, their variances on row 1. The output length is known when the
feature size is; the values are computed whenever both sizes are known (constant folding).
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from graphir.limits import check_tensor
from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def _size_value(op: Op, t: TensorType, what: str) -> tuple[int, int] | None:
    if not (t.element_type.is_integral_number or t.element_type.is_dynamic):
        raise op.fail(f"{what} input must be an integer tensor. Got: {t.element_type}")
    if t.shape.rank_is_static and (len(t.shape) != 1 or not t.shape[0].compatible(Dimension.static(2))):
        raise op.fail(f"{what} must be a 1D tensor with 2 elements. Got: {t.shape}")
    if t.value is None:
        return None
    h, w = (int(v) for v in np.asarray(t.value).reshape(-1)[:2])
    return h, w


class _Priors(Op):
    inputs: ClassVar[tuple[Port, ...]] = (Port("output_size"), Port("image_size"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def num_priors(self) -> int:
        raise NotImplementedError

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        size = _size_value(self, inputs[0], "output_size")
        _size_value(self, inputs[1], "image_size")
        length = Dimension.dynamic() if size is None else Dimension.static(4 * size[0] * size[1] * self.num_priors())
        shape = PartialShape([2, length])
        return [TensorType(ElementType.f32, shape, fold(self, inputs, shape, ElementType.f32))]

    def _variances(self, out: np.ndarray, variance: list[float]) -> None:
        if len(variance) == 1:
            out[1] = variance[0]
        elif len(variance) == 4:
            out[1] = np.tile(np.asarray(variance, np.float32), out.shape[1] // 4)
        elif not variance:
            out[1] = np.float32(0.1)
        else:
            raise self.fail(f"variance must have 0, 1 or 4 values, got {variance}")


def unique_ratios(aspect_ratio: list[float], flip: bool) -> list[float]:
    """1 and the aspect ratios (with their inverses when flipped), rounded to 1e-6, sorted, unique."""
    ratios = {1.0}
    for r in aspect_ratio:
        ratios.add(round(r * 1e6) / 1e6)
        if flip:
            ratios.add(round(1 / r * 1e6) / 1e6)
    return sorted(ratios)


class PriorBox1(_Priors):
    """PriorBox-1: SSD priors per feature cell: one per min size, per max size (their geometric
    mean), per aspect ratio, plus the fixed-size/density grids."""

    type_name: ClassVar[str] = "PriorBox"
    version: ClassVar[str] = "opset1"

    min_size: list[float] = []
    max_size: list[float] = []
    aspect_ratio: list[float] = []
    density: list[float] = []
    fixed_ratio: list[float] = []
    fixed_size: list[float] = []
    clip: bool = False
    flip: bool = False
    step: float = 0.0
    offset: float
    variance: list[float] = []
    scale_all_sizes: bool = True

    def _order(self) -> bool:
        return True

    def num_priors(self) -> int:
        ratios = len(unique_ratios(self.aspect_ratio, self.flip))
        if self.scale_all_sizes:
            n = ratios * len(self.min_size) + len(self.max_size)
        else:
            n = ratios + len(self.min_size) - 1
        if self.fixed_size:
            n = ratios * len(self.fixed_size)
        for d in self.density:
            extra = int(d) * int(d) - 1
            n += (len(self.fixed_ratio) if self.fixed_ratio else ratios) * extra
        return n

    def evaluate(self, output_size: np.ndarray, image_size: np.ndarray) -> list[np.ndarray]:
        h, w = (int(v) for v in np.asarray(output_size).reshape(-1)[:2])
        ih, iw = (int(v) for v in np.asarray(image_size).reshape(-1)[:2])
        check_tensor([2, 4 * max(h, 0) * max(w, 0) * self.num_priors()], np.float32)
        f = np.float32
        ratios = [f(1.0)]
        for r in self.aspect_ratio:  # first-seen order, as the kernel walks them
            if all(abs(f(r) - e) >= 1e-6 for e in ratios):
                ratios.append(f(r))
                if self.flip:
                    ratios.append(f(1.0) / f(r))
        step = f(self.step)
        min_size = [f(s) for s in self.min_size]
        if not self.scale_all_sizes:
            step = f(ih) / f(h) if self.step == -1 else f(step * ih)
            min_size = [f(s * ih) for s in min_size]
        iwi, ihi = f(1) / f(iw), f(1) / f(ih)
        step_x, step_y = (f(iw) / f(w), f(ih) / f(h)) if step == 0 else (step, step)
        boxes: list[float] = []

        def add(cx: float, cy: float, bw: float, bh: float, clip: bool) -> None:
            vals = [f((cx - bw) * iwi), f((cy - bh) * ihi), f((cx + bw) * iwi), f((cy + bh) * ihi)]
            if clip:
                vals = [max(vals[0], f(0)), max(vals[1], f(0)), min(vals[2], f(1)), min(vals[3], f(1))]
            boxes.extend(vals)

        def grid(cx: float, cy: float, s: int, bw: float, bh: float) -> None:
            density = int(self.density[s])
            fixed = int(self.fixed_size[s])
            shift = int(self.fixed_size[s] / density)
            for r in range(density):
                for c in range(density):
                    add(f(cx - fixed // 2 + shift / f(2) + c * shift), f(cy - fixed // 2 + shift / f(2) + r * shift),
                        bw, bh, True)

        for y in range(h):
            for x in range(w):
                if step == 0:
                    cx, cy = f((x + f(0.5)) * step_x), f((y + f(0.5)) * step_y)
                else:
                    cx, cy = f((f(self.offset) + x) * step), f((f(self.offset) + y) * step)
                for s, size in enumerate(self.fixed_size):
                    half = f(int(size) * f(0.5))
                    if self.fixed_ratio:
                        for ar in self.fixed_ratio:
                            a = f(math.sqrt(ar))
                            grid(cx, cy, s, f(f(size) * f(0.5) * a), f(f(size) * f(0.5) / a))
                        continue
                    if self.density:
                        grid(cx, cy, s, half, half)
                    for ar in ratios:
                        if abs(ar - 1) < 1e-6:
                            continue
                        a = f(math.sqrt(ar))
                        grid(cx, cy, s, f(f(size) * f(0.5) * a), f(f(size) * f(0.5) / a))
                for i, size in enumerate(min_size):
                    add(cx, cy, f(size * f(0.5)), f(size * f(0.5)), False)
                    with_ratios = self.scale_all_sizes or i == len(min_size) - 1
                    base = min_size[i if self.scale_all_sizes else 0]

                    def max_box() -> None:
                        if len(self.max_size) > i:
                            half = f(f(math.sqrt(f(size * f(self.max_size[i])))) * f(0.5))
                            add(cx, cy, half, half, False)

                    def ratio_boxes() -> None:
                        if with_ratios:
                            for ar in ratios:
                                if abs(ar - 1) < 1e-6:
                                    continue
                                a = f(math.sqrt(ar))
                                add(cx, cy, f(base * f(0.5) * a), f(base * f(0.5) / a), False)

                    if self._order():
                        max_box()
                        ratio_boxes()
                    else:
                        ratio_boxes()
                        max_box()
        length = 4 * h * w * self.num_priors()
        out = np.zeros((2, length), np.float32)
        data = np.asarray(boxes, np.float32)[:length]
        if self.clip:
            data = np.clip(data, 0, 1)
        out[0, :len(data)] = data
        self._variances(out, self.variance)
        return [out]


class PriorBox8(PriorBox1):
    """PriorBox-8: adds ``min_max_aspect_ratios_order`` (false: the aspect-ratio boxes before the
    max-size box, as Caffe's SSD orders them)."""

    version: ClassVar[str] = "opset8"

    min_max_aspect_ratios_order: bool = True

    def _order(self) -> bool:
        return self.min_max_aspect_ratios_order


class PriorBoxClustered(_Priors):
    """PriorBoxClustered-1: one prior per (width, height) pair, centred on each cell."""

    type_name: ClassVar[str] = "PriorBoxClustered"
    version: ClassVar[str] = "opset1"

    width: list[float] = []
    height: list[float] = []
    clip: bool = True
    step: float = 0.0
    step_w: float = 0.0
    step_h: float = 0.0
    offset: float = 0.5
    variance: list[float] = []

    def num_priors(self) -> int:
        return len(self.width)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        if len(self.width) != len(self.height):
            raise self.fail(f"Size of heights vector: {len(self.height)} doesn't match size of widths vector: {len(self.width)}")
        return super().infer(inputs)

    def evaluate(self, output_size: np.ndarray, image_size: np.ndarray) -> list[np.ndarray]:
        h, w = (int(v) for v in np.asarray(output_size).reshape(-1)[:2])
        ih, iw = (int(v) for v in np.asarray(image_size).reshape(-1)[:2])
        check_tensor([2, 4 * max(h, 0) * max(w, 0) * self.num_priors()], np.float32)
        f = np.float32
        step_w, step_h = f(self.step_w), f(self.step_h)
        if step_w == 0 and step_h == 0:
            if self.step != 0:
                step_w = step_h = f(self.step)
            else:
                step_w, step_h = f(iw) / f(w), f(ih) / f(h)
        ys, xs = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32), indexing="ij")
        cx = ((xs + f(self.offset)) * step_w)[..., None]
        cy = ((ys + f(self.offset)) * step_h)[..., None]
        bw = np.asarray(self.width, np.float32)
        bh = np.asarray(self.height, np.float32)
        boxes = np.stack([(cx - bw / f(2)) / f(iw), (cy - bh / f(2)) / f(ih),
                          (cx + bw / f(2)) / f(iw), (cy + bh / f(2)) / f(ih)], axis=-1).astype(np.float32)
        if self.clip:
            boxes = np.clip(boxes, 0, 1)
        out = np.zeros((2, boxes.size), np.float32)
        out[0] = boxes.reshape(-1)
        self._variances(out, self.variance)
        return [out]
