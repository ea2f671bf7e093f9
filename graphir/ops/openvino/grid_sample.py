"""OpenVINO GridSample-9: samples ``data [N, C, H, W]`` at the normalized (x, y) points of
``grid [N, H_out, W_out, 2]`` (bilinear, bicubic with A = -0.75, or nearest with round-half-even),
reading outside pixels as zeros, the border pixel, or a reflection of the integer index."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.binary import fold
from graphir.ops.openvino.ctc import merged, ranked
from graphir.shapes import Dimension, PartialShape


def cubic_weights(r: np.ndarray, a: float = -0.75) -> list[np.ndarray]:
    """The four Keys cubic weights for a fractional offset ``r`` (taps at -1, 0, 1, 2)."""
    return [((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
            ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
            ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a]


class GridSample(Op):
    type_name: ClassVar[str] = "GridSample"
    version: ClassVar[str] = "opset9"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("grid"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    align_corners: bool = False
    mode: Literal["bilinear", "bicubic", "nearest"] = "bilinear"
    padding_mode: Literal["zeros", "border", "reflection"] = "zeros"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, grid = inputs
        if not grid.element_type.is_dynamic and not grid.element_type.is_real:
            raise self.fail(f"The element type of the grid input tensor must be a floating point type "
                            f"(got {grid.element_type}).")
        if not data.element_type.is_dynamic and not (data.element_type.is_real or data.element_type.is_integral_number):
            raise self.fail(f"The element type of the data input must be numeric (got {data.element_type}).")
        d = ranked(self, data, 4, "data input")
        g = ranked(self, grid, 4, "grid input")
        if not g[3].compatible(Dimension.static(2)):
            raise self.fail(f"The last dimension of grid tensor's shape has to be equal to 2 (got {grid.shape}).")
        n = merged(self, "batch", d[0], g[0])
        shape = PartialShape([n, d[1], g[1], g[2]])
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def _padded(self, data: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """``data[n, :, y, x]`` per point for integer index arrays ``ys``/``xs`` of shape [N, Ho, Wo]:
        returns [N, C, Ho, Wo] with this op's padding."""
        n_count, _, h, w = data.shape
        inside = np.ones(ys.shape, dtype=bool)
        if self.padding_mode == "zeros":
            inside = (ys >= 0) & (xs >= 0) & (ys < h) & (xs < w)
            ys, xs = np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)
        elif self.padding_mode == "border":
            ys, xs = np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)
        elif self.align_corners:
            ys, xs = self._reflect_aligned(ys, h), self._reflect_aligned(xs, w)
        else:
            ys, xs = self._reflect(ys, h), self._reflect(xs, w)
        batch = np.arange(n_count).reshape(-1, 1, 1)
        picked = data[batch, :, ys, xs]  # [N, Ho, Wo, C]
        picked = np.where(inside[..., None], picked, 0)
        return np.moveaxis(picked, -1, 1)

    @staticmethod
    def _reflect(i: np.ndarray, size: int) -> np.ndarray:
        twice = 2 * size
        i = (i % twice + twice) % twice
        return np.where(i >= size, twice - 1 - i, i)

    @staticmethod
    def _reflect_aligned(i: np.ndarray, size: int) -> np.ndarray:
        period = 1 if size == 1 else 2 * (size - 1)
        i = np.abs(i) % period
        return np.where(i >= size, period - i, i)

    def evaluate(self, data: np.ndarray, grid: np.ndarray) -> list[np.ndarray]:
        data, grid = np.asarray(data), np.asarray(grid)
        work = grid.dtype if grid.dtype in (np.float32, np.float64) else np.dtype(np.float32)
        g = grid.astype(work)
        h, w = data.shape[2], data.shape[3]

        def denormalize(v: np.ndarray, size: int) -> np.ndarray:
            if self.align_corners:
                return (v + 1) * (size - 1) / 2
            return ((v + 1) * size - 1) / 2

        x = denormalize(g[..., 0], w)
        y = denormalize(g[..., 1], h)
        calc = np.float64 if data.dtype == np.float64 else np.float32
        values = data.astype(calc) if data.dtype.kind == "f" else data.astype(np.float64)
        if self.mode == "nearest":
            out = self._padded(values, np.rint(y).astype(np.int64), np.rint(x).astype(np.int64))
        else:
            y0, x0 = np.floor(y), np.floor(x)
            dy, dx = (y - y0)[:, None], (x - x0)[:, None]
            yi, xi = y0.astype(np.int64), x0.astype(np.int64)
            if self.mode == "bilinear":
                v00, v01 = self._padded(values, yi, xi), self._padded(values, yi, xi + 1)
                v10, v11 = self._padded(values, yi + 1, xi), self._padded(values, yi + 1, xi + 1)
                q0 = (1 - dx) * v00 + dx * v01
                q1 = (1 - dx) * v10 + dx * v11
                out = dy * q1 + (1 - dy) * q0
            else:
                cy, cx = cubic_weights(dy), cubic_weights(dx)
                terms = [cy[j] * sum(cx[i] * self._padded(values, yi - 1 + j, xi - 1 + i) for i in range(4))
                         for j in range(4)]
                out = terms[0] + terms[1] + terms[2] + terms[3]  # summed in the same order as before
        out = np.asarray(out)
        if data.dtype.kind in "iu":  # the CPU plugin truncates an interpolated integer toward zero
            out = np.trunc(out)
        return [out.astype(data.dtype)]
