"""OpenVINO layout ops: Pad-1/12 (negative pads crop), DepthToSpace-1 and SpaceToDepth-1."""
from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np

from graphir.limits import check_tensor
from graphir.ops.base import INTEGRAL, NodeSignature, Op, Port, TensorType, fresh_output
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape


def _pad_dim(d: Dimension, before: int, after: int) -> Dimension:
    total = before + after
    if total >= 0:
        return d + Dimension.static(total)
    return d - Dimension.static(-total)


class Pad(Op):
    """Pad-1: ``pads_begin``/``pads_end`` per dim; ``pad_mode`` constant (``pad_value``, default
    0), edge, reflect or symmetric. Negative pads remove elements (OpenVINO 2026 accepts them in
    Pad-1 as in Pad-12)."""

    type_name: ClassVar[str] = "Pad"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("arg"), Port("pads_begin", INTEGRAL), Port("pads_end", INTEGRAL),
                                          Port("arg_pad_value", optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    pad_mode: Literal["constant", "edge", "reflect", "symmetric"] = "constant"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, begin_t, end_t = inputs[:3]
        if len(inputs) > 3 and self.pad_mode == "constant":  # other modes ignore it (OpenVINO 2026.4 too)
            if data.element_type.merge(inputs[3].element_type) is None:
                raise self.fail(f"Argument element types do not match (input arg element type: {data.element_type}, "
                                f"arg_pad element type: {inputs[3].element_type})")
            if inputs[3].shape.rank_is_static and len(inputs[3].shape) != 0:
                raise self.fail(f"Argument for padding value is not a scalar (shape: {inputs[3].shape}).")
        for port, t in (("pads_begin", begin_t), ("pads_end", end_t)):
            if t.shape.rank_is_static and len(t.shape) != 1:
                raise self.fail(f"Argument for {port} is not 1D (shape: {t.shape}).")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, data.shape)]
        rank = len(data.shape)
        begin, end = sv.elements(begin_t), sv.elements(end_t)
        if begin is None or end is None:
            return [TensorType(data.element_type, PartialShape.dynamic(rank))]
        if not (sv.is_known(begin) and sv.is_known(end)):
            return [TensorType(data.element_type, self._bounded_shape(data.shape, begin, end))]
        if len(begin) != rank or len(end) != rank:
            raise self.fail(f"Number of elements of pads_begin ({len(begin)}) and pads_end ({len(end)}) must "
                            f"match the rank of arg ({data.shape})")
        dims = []
        for i, (d, b, e) in enumerate(zip(data.shape.dims, begin, end)):
            self._check_mode(d, int(b), int(e), i)  # type: ignore[arg-type]
            dims.append(_pad_dim(d, int(b), int(e)))  # type: ignore[arg-type]
        shape = PartialShape(dims)
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def _bounded_shape(self, shape: PartialShape, begin: list, end: list) -> PartialShape:
        """Pads known as bounded intervals (Swin's ``(7 - H % 7) % 7``): each dim grows by their
        sum's interval, as OpenVINO infers ([1..] padded by [0..6] stays [1..]); a pad with no
        upper bound (or a count that does not match the rank) leaves the dim unknown."""
        if len(begin) != len(shape) or len(end) != len(shape):
            return PartialShape.dynamic(len(shape))
        dims = []
        for d, b, e in zip(shape.dims, begin, end):
            lo = hi = 0
            known = True
            for pad in (b, e):
                if isinstance(pad, int):
                    lo, hi = lo + pad, None if hi is None else hi + pad
                elif pad.max is None:
                    known = False
                else:
                    lo, hi = lo + pad.min, None if hi is None else hi + pad.max
            if not known or d.min + lo < 0:
                dims.append(Dimension.dynamic())
                continue
            dims.append(Dimension(d.min + lo, None if d.max is None or hi is None else d.max + hi))
        return PartialShape(dims)

    def _check_mode(self, d: Dimension, b: int, e: int, axis: int) -> None:
        if not d.is_static or self.pad_mode in ("constant", "edge"):
            if self.pad_mode == "edge" and d == 0 and (b > 0 or e > 0):
                raise self.fail(f"EDGE padding mode requires an input of dimension of at least 1 at axis {axis}.")
            return
        limit = d.min - 1 if self.pad_mode == "reflect" else d.min
        if b > limit or e > limit:
            name = self.pad_mode.upper()
            raise self.fail(
                f"{name} padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must be not greater than "
                f"'data_shape[D]{' - 1' if self.pad_mode == 'reflect' else ''}' (axis {axis}: dim {d}, pads {b}, {e})."
            )

    def evaluate(self, x: np.ndarray, begin: np.ndarray, end: np.ndarray,
                 value: np.ndarray | None = None) -> list[np.ndarray]:
        """Each output index ``o`` along an axis reads input index ``o - pads_begin``, mapped back
        into the data by the mode when it falls outside (constant: the pad value). A negative pad
        thus crops, also after the other side was padded (pads 4, -7 on 6 elements: 3 fill values)."""
        x = np.asarray(x)
        b = [int(v) for v in np.asarray(begin).reshape(-1)]
        e = [int(v) for v in np.asarray(end).reshape(-1)]
        check_tensor([max(d + bb + ee, 0) for d, bb, ee in zip(x.shape, b, e)], x.dtype)
        fill = np.asarray(value).reshape(-1)[0] if value is not None and self.pad_mode == "constant" else 0
        out = x
        inside = None
        for axis, (bb, ee) in enumerate(zip(b, e)):
            n = x.shape[axis]
            src = np.arange(max(n + bb + ee, 0)) - bb
            valid = (src >= 0) & (src < n)
            if self.pad_mode == "constant" or n == 0:
                idx = np.where(valid, src, 0)
                if not valid.all():
                    shape = [1] * x.ndim
                    shape[axis] = valid.size
                    mask = valid.reshape(shape)
                    inside = mask if inside is None else inside & mask
            else:
                idx = _mode_index(src, n, self.pad_mode)
            out = np.take(out, idx, axis=axis) if n else np.zeros(out.shape[:axis] + (idx.size,) + out.shape[axis + 1:], x.dtype)
        if inside is not None:
            out = np.where(inside, out, np.asarray(fill).astype(x.dtype))
        return [np.ascontiguousarray(out, dtype=x.dtype)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """Constant mode with constant pads (and pad value) on a static shape: the output filled
        once and the kept block of the input copied in (``evaluate``'s values; a post-processing
        head's Pad: 16 -> 2 us)."""
        shape = node.static_shape(node.inputs[0])
        begin, end = node.constants[1], node.constants[2]
        fill_given = node.constants[3] if len(node.constants) > 3 else np.zeros(())
        if self.pad_mode != "constant" or shape is None or begin is None or end is None or fill_given is None:
            return self.evaluate
        b = [int(v) for v in np.asarray(begin).reshape(-1)]
        e = [int(v) for v in np.asarray(end).reshape(-1)]
        if len(b) != len(shape) or len(e) != len(shape) or any(n + bb + ee < 0 for n, bb, ee in zip(shape, b, e)):
            return self.evaluate  # the run reports it
        out_shape = tuple(n + bb + ee for n, bb, ee in zip(shape, b, e))
        src, dst = [], []
        for n, bb, ee in zip(shape, b, e):
            start, stop = max(-bb, 0), n - max(-ee, 0)  # the input's kept range
            length = max(stop - start, 0)
            src.append(slice(start, start + length))
            dst.append(slice(max(bb, 0), max(bb, 0) + length))
        src_t, dst_t = tuple(src), tuple(dst)
        fill = np.asarray(fill_given).reshape(-1)[0] if np.asarray(fill_given).size else 0
        dtype = np.dtype(node.inputs[0].element_type.numpy_dtype)
        value = np.asarray(fill).astype(dtype)
        generic = self.evaluate

        @fresh_output
        def pad(x: np.ndarray, *args: np.ndarray) -> list[np.ndarray]:
            if x.dtype != dtype or x.shape != shape:
                return generic(x, *args)
            out = np.full(out_shape, value, dtype)
            out[dst_t] = x[src_t]
            return [out]

        return pad


def _mode_index(src: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Indices ``src`` (any integers) folded into ``[0, n)`` as edge, reflect or symmetric padding does."""
    if mode == "edge" or n == 1:
        return np.clip(src, 0, n - 1)
    if mode == "reflect":  # period 2n-2: 0 1 .. n-1 n-2 .. 1
        period = 2 * n - 2
        r = np.mod(src, period)
        return np.where(r < n, r, period - r)
    period = 2 * n  # symmetric: 0 1 .. n-1 n-1 .. 0
    r = np.mod(src, period)
    return np.where(r < n, r, period - 1 - r)


class Pad12(Pad):
    """Pad-12: Pad-1 with negative pads in the spec."""

    type_name: ClassVar[str] = "Pad"
    version: ClassVar[str] = "opset12"


# --- DepthToSpace / SpaceToDepth -------------------------------------------------------------
class _BlockRearrange(Op):
    """What DepthToSpace and SpaceToDepth share: ports, attributes and the block/rank checks;
    ``_infer_ranked`` gives the output shape for a data shape of static rank >= 3."""

    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    mode: Literal["blocks_first", "depth_first"]
    block_size: int = 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data = inputs[0]
        if self.block_size <= 0:
            raise self.fail(f"Block size must be greater than zero, got {self.block_size}")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, data.shape)]
        rank = len(data.shape)
        if rank < 3:
            raise self.fail(f"The input tensor with rank lower than 3 is not supported (input rank: {rank}), shape {data.shape}")
        shape = self._infer_ranked(data, rank)
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def _infer_ranked(self, data: TensorType, rank: int) -> PartialShape:
        raise NotImplementedError


class DepthToSpace(_BlockRearrange):
    """DepthToSpace-1: ``[N, C*bs^k, D1, ...]`` to ``[N, C, D1*bs, ...]``; ``mode`` says whether
    the block index is the outer (blocks_first) or inner (depth_first) part of the channel."""

    type_name: ClassVar[str] = "DepthToSpace"
    version: ClassVar[str] = "opset1"

    def _infer_ranked(self, data: TensorType, rank: int) -> PartialShape:
        k = rank - 2
        div = self.block_size ** k
        c = data.shape[1]
        if c.is_static and c.min % div:
            raise self.fail(f"Dimension value: [ {c.min}, {c.min}] must be a multiple of divisor: {div} "
                            f"(input {data.shape}, block_size {self.block_size})")
        dims = [data.shape[0], Dimension(-(-c.min // div), None if c.max is None else c.max // div)]
        dims += [d * self.block_size for d in data.shape.dims[2:]]
        return PartialShape(dims)

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
        k, bs = len(spatial), self.block_size
        c_out = c // bs ** k
        if self.mode == "blocks_first":
            y = x.reshape((n,) + (bs,) * k + (c_out,) + spatial)
            perm = [0, k + 1] + [p for i in range(k) for p in (k + 2 + i, 1 + i)]
        else:
            y = x.reshape((n, c_out) + (bs,) * k + spatial)
            perm = [0, 1] + [p for i in range(k) for p in (k + 2 + i, 2 + i)]
        return [np.transpose(y, perm).reshape((n, c_out) + tuple(d * bs for d in spatial))]


class SpaceToDepth(_BlockRearrange):
    """SpaceToDepth-1: the inverse of DepthToSpace: ``[N, C, D1*bs, ...]`` to ``[N, C*bs^k, D1, ...]``."""

    type_name: ClassVar[str] = "SpaceToDepth"
    version: ClassVar[str] = "opset1"

    def _infer_ranked(self, data: TensorType, rank: int) -> PartialShape:
        bs = self.block_size
        dims = [data.shape[0], data.shape[1] * bs ** (rank - 2)]
        for d in data.shape.dims[2:]:
            if d.is_static and d.min % bs:
                raise self.fail(f"Dimension value: [ {d.min}, {d.min}] must be a multiple of divisor: {bs} "
                                f"(input {data.shape})")
            dims.append(Dimension(-(-d.min // bs), None if d.max is None else d.max // bs))
        return PartialShape(dims)

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
        k, bs = len(spatial), self.block_size
        small = tuple(d // bs for d in spatial)
        y = x.reshape((n, c) + tuple(v for d in small for v in (d, bs)))
        blocks = [3 + 2 * i for i in range(k)]
        coarse = [2 + 2 * i for i in range(k)]
        perm = [0] + blocks + [1] + coarse if self.mode == "blocks_first" else [0, 1] + blocks + coarse
        return [np.transpose(y, perm).reshape((n, c * bs ** k) + small)]
