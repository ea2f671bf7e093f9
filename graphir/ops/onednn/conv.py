"""Convolution, ConvTranspose and pooling (forward and backward) with oneDNN's layout attributes.

``data_format``: ``NXC`` (channels last, default) or ``NCX``. Convolution weights: ``XIO``
(default, [spatial..., I/groups, O]) or ``OIX``; ConvTranspose weights: ``XOI`` (default) or ``IOX``.
Output spatial size (explicit pads): floor((in + pb + pe - ((k-1)*d+1)) / s) + 1; ``SAME_UPPER`` /
``SAME_LOWER``: ceil(in / s); ``VALID``: no padding. ConvTranspose: s*(in-1) + (k-1)*d+1 - pb - pe
+ output_padding.
"""
from __future__ import annotations

from typing import ClassVar, Literal

import ml_dtypes
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from graphir.ops.onednn.base import (
    FLOAT, S32, BackwardOp, OneDNNOp, Port, TensorType, as_f32, cast_to, static_dims, to_shape,
)
from graphir.shapes import PartialShape
from graphir.types import ElementType

DataFormat = Literal["NXC", "NCX"]
AutoPad = Literal["None", "none", "SAME_UPPER", "SAME_LOWER", "VALID"]
RoundingType = Literal["floor", "ceil"]


# --- layout helpers ----------------------------------------------------------------------------
def to_ncx(x: np.ndarray, data_format: str) -> np.ndarray:
    return x if data_format == "NCX" else np.moveaxis(x, -1, 1)


def from_ncx(x: np.ndarray, data_format: str) -> np.ndarray:
    return x if data_format == "NCX" else np.moveaxis(x, 1, -1)


def split_layout(dims: list, data_format: str) -> tuple:
    """(N, C, spatial) of a data shape."""
    if data_format == "NCX":
        return dims[0], dims[1], dims[2:]
    return dims[0], dims[-1], dims[1:-1]


def join_layout(n: object, c: object, spatial: list, data_format: str) -> list:
    return [n, c, *spatial] if data_format == "NCX" else [n, *spatial, c]


def weights_oix(w: np.ndarray, weights_format: str) -> np.ndarray:
    """Weights as [O, I, spatial...] (convolution) from XIO/OIX."""
    if weights_format == "OIX":
        return w
    return np.moveaxis(np.moveaxis(w, -1, 0), -1, 1)  # [X.., I, O] -> [O, X.., I] -> [O, I, X..]


def split_weights(dims: list, weights_format: str) -> tuple:
    """(first, second, spatial) where first/second are the letters' order: O,I for XIO/OIX; I,O for IOX/XOI."""
    if weights_format in ("OIX", "IOX"):
        return dims[0], dims[1], dims[2:]
    return dims[-1], dims[-2], dims[:-2]  # XIO: (O, I); XOI: (I, O)


def out_dim(size: int | None, k: int, s: int, d: int, pb: int, pe: int, auto_pad: str, ceil: bool = False) -> int | None:
    if size is None:
        return None
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return -(-size // s)
    eff = (k - 1) * d + 1
    if auto_pad == "VALID":
        pb = pe = 0
    span = size + pb + pe - eff
    if ceil:  # oneDNN keeps a last window that starts in the padding (no OpenVINO-style trim)
        return -(-span // s) + 1
    return span // s + 1


def same_pads(size: int, k: int, s: int, d: int, auto_pad: str) -> tuple[int, int]:
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    small, large = total // 2, total - total // 2
    return (small, large) if auto_pad == "SAME_UPPER" else (large, small)


def resolve_pads(sizes: list[int], kernel: list[int], strides: list[int], dilations: list[int],
                 pads_begin: list[int], pads_end: list[int], auto_pad: str) -> tuple[list[int], list[int]]:
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pairs = [same_pads(n, k, s, d, auto_pad) for n, k, s, d in zip(sizes, kernel, strides, dilations)]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    if auto_pad == "VALID":
        return [0] * len(sizes), [0] * len(sizes)
    return list(pads_begin), list(pads_end)


def pad_or_crop(x: np.ndarray, begin: list[int], end: list[int], value: float = 0.0) -> np.ndarray:
    """Pad the spatial axes (from 2) by begin/end; a negative amount crops."""
    nd = len(begin)
    pads = [(0, 0), (0, 0)] + [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    x = np.pad(x, pads, constant_values=value)
    index = (slice(None), slice(None)) + tuple(
        slice(-b if b < 0 else 0, x.shape[2 + i] + e if e < 0 else None) for i, (b, e) in enumerate(zip(begin, end))
    )
    return x[index] if nd else x


def windows(x: np.ndarray, kernel: list[int], strides: list[int], dilations: list[int]) -> np.ndarray:
    """[N, C, *out, *kernel] windows of a padded NCX array."""
    nd = len(kernel)
    eff = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    view = sliding_window_view(x, eff, axis=tuple(range(2, 2 + nd)))
    index = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides) + tuple(slice(None, None, d) for d in dilations)
    return view[index]


def conv_ncx(x: np.ndarray, w: np.ndarray, strides: list[int], dilations: list[int],
             pads_begin: list[int], pads_end: list[int], groups: int) -> np.ndarray:
    """Grouped N-d convolution: x [N, C, *S] (f32), w [O, C/groups, *K] -> [N, O, *out]."""
    nd = x.ndim - 2
    xp = pad_or_crop(x, pads_begin, pads_end)
    win = windows(xp, list(w.shape[2:]), strides, dilations)  # [N, C, *out, *K]
    n, c = win.shape[:2]
    o = w.shape[0]
    win = win.reshape(n, groups, c // groups, *win.shape[2:])
    wg = w.reshape(groups, o // groups, c // groups, *w.shape[2:])
    sp, kk = "pqrstu"[:nd], "vwxyzb"[:nd]  # letters other than n, g, c, o
    out = np.einsum(f"ngc{sp}{kk},goc{kk}->ngo{sp}", win, wg, optimize=True)
    return out.reshape(n, o, *out.shape[3:])


class _ConvBase(OneDNNOp):
    strides: list[int]
    pads_begin: list[int]
    pads_end: list[int]
    dilations: list[int]
    auto_pad: AutoPad = "None"
    groups: int = 1
    data_format: DataFormat = "NXC"

    def _check_lengths(self, nd: int) -> None:
        for name in ("strides", "pads_begin", "pads_end", "dilations"):
            value = getattr(self, name)
            if len(value) != nd:
                raise self.fail(f"attribute '{name}' = {value} must have {nd} values (one per spatial axis)")

    def _conv_out(self, src: PartialShape, kernel_spatial: list, out_channels: object) -> PartialShape:
        dims = static_dims(src)
        n, _, spatial = split_layout(dims, self.data_format)
        self._check_lengths(len(spatial))
        out = [out_dim(size, k, s, d, pb, pe, self.auto_pad) if k is not None else None
               for size, k, s, d, pb, pe in zip(spatial, kernel_spatial, self.strides, self.dilations, self.pads_begin, self.pads_end)]
        return to_shape(join_layout(n, out_channels, out, self.data_format))


class Convolution(_ConvBase):
    """src [N, C, X] (NCX) or [N, X, C] (NXC), weights OIX/XIO, optional 1-D bias [O] -> dst."""

    type_name: ClassVar[str] = "Convolution"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("weights", FLOAT), Port("bias", FLOAT, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    weights_format: Literal["XIO", "OIX"] = "XIO"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, tuple(range(len(inputs))))
        src, wts = inputs[0].shape, inputs[1].shape
        if src.rank_is_dynamic or wts.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        if len(src) < 3 or len(src) != len(wts):
            raise self.fail(f"input 0 ('src') {src} and input 1 ('weights') {wts} must have the same rank >= 3")
        o, i, k = split_weights(static_dims(wts), self.weights_format)
        c = split_layout(static_dims(src), self.data_format)[1]
        if c is not None and i is not None and c != i * self.groups:
            raise self.fail(
                f"input channels {c} of input 0 ('src') {src} ({self.data_format}) != {i} x groups {self.groups} "
                f"from input 1 ('weights') {wts} ({self.weights_format})")
        if len(inputs) > 2 and inputs[2].shape.rank_is_static and o is not None:
            b = inputs[2].shape
            if len(b) != 1 or not b[0].compatible(PartialShape([o])[0]):
                raise self.fail(f"input 2 ('bias') {b} must be [{o}] (output channels)")
        return [TensorType(et, self._conv_out(src, k, o))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x, w = to_ncx(as_f32(arrays[0]), self.data_format), weights_oix(as_f32(arrays[1]), self.weights_format)
        pb, pe = resolve_pads(list(x.shape[2:]), list(w.shape[2:]), self.strides, self.dilations, self.pads_begin, self.pads_end, self.auto_pad)
        out = conv_ncx(x, w, self.strides, self.dilations, pb, pe, self.groups)
        if len(arrays) > 2:
            out = out + as_f32(arrays[2]).reshape([1, -1] + [1] * (out.ndim - 2))
        return [cast_to(from_ncx(out, self.data_format), ElementType.from_numpy(arrays[0].dtype))]


class ConvTranspose(_ConvBase):
    """Transposed convolution; weights XOI (default, [X.., O/groups, I]) or IOX ([I, O/groups, X..])."""

    type_name: ClassVar[str] = "ConvTranspose"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("weights", FLOAT), Port("bias", FLOAT, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    weights_format: Literal["XOI", "IOX"] = "XOI"
    output_padding: list[int] = [0] * 12

    def _weights_io(self, dims: list) -> tuple:
        """(I, O per group, spatial) of ConvTranspose weights."""
        if self.weights_format == "IOX":
            return dims[0], dims[1], dims[2:]
        return dims[-1], dims[-2], dims[:-2]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, tuple(range(len(inputs))))
        src, wts = inputs[0].shape, inputs[1].shape
        if src.rank_is_dynamic or wts.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        if len(src) < 3 or len(src) != len(wts):
            raise self.fail(f"input 0 ('src') {src} and input 1 ('weights') {wts} must have the same rank >= 3")
        i, og, k = self._weights_io(static_dims(wts))
        n, c, spatial = split_layout(static_dims(src), self.data_format)
        self._check_lengths(len(spatial))
        if c is not None and i is not None and c != i:
            raise self.fail(f"input channels {c} of input 0 ('src') {src} != I = {i} of input 1 ('weights') {wts} ({self.weights_format})")
        pad = list(self.output_padding) + [0] * len(spatial)
        out: list[int | None] = []
        for j, (size, kk) in enumerate(zip(spatial, k)):
            if size is None or kk is None:
                out.append(None)
            elif self.auto_pad in ("SAME_UPPER", "SAME_LOWER"):  # total padding (k-1)*d+1 - stride, at least 0
                eff = (kk - 1) * self.dilations[j] + 1
                out.append(self.strides[j] * (size - 1) + eff - max(eff - self.strides[j], 0) + pad[j])
            else:
                pb, pe = (0, 0) if self.auto_pad == "VALID" else (self.pads_begin[j], self.pads_end[j])
                out.append(self.strides[j] * (size - 1) + (kk - 1) * self.dilations[j] + 1 - pb - pe + pad[j])
        o = None if og is None else og * self.groups
        return [TensorType(et, to_shape(join_layout(n, o, out, self.data_format)))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = to_ncx(as_f32(arrays[0]), self.data_format)
        w = as_f32(arrays[1])
        w = w if self.weights_format == "IOX" else np.moveaxis(np.moveaxis(w, -1, 0), -1, 1)  # -> [I, O/g, X..]
        g, nd = self.groups, x.ndim - 2
        i, og = w.shape[0], w.shape[1]
        # as a convolution over the stride-dilated input with flipped, I/O-swapped weights
        wc = w.reshape(g, i // g, og, *w.shape[2:]).swapaxes(1, 2).reshape(g * og, i // g, *w.shape[2:])
        wc = np.flip(wc, axis=tuple(range(2, 2 + nd)))
        dil_shape = list(x.shape[:2]) + [(s - 1) * st + 1 for s, st in zip(x.shape[2:], self.strides)]
        xd = np.zeros(dil_shape, np.float32)
        xd[(slice(None), slice(None)) + tuple(slice(None, None, st) for st in self.strides)] = x
        eff = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], self.dilations)]
        if self.auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            totals = [max(e - st, 0) for e, st in zip(eff, self.strides)]
            pb = [t // 2 if self.auto_pad == "SAME_UPPER" else t - t // 2 for t in totals]
            pe = [t - b for t, b in zip(totals, pb)]
        elif self.auto_pad == "VALID":
            pb, pe = [0] * nd, [0] * nd
        else:
            pb, pe = list(self.pads_begin), list(self.pads_end)
        pad = list(self.output_padding) + [0] * nd
        begin = [e - 1 - b for e, b in zip(eff, pb)]
        end = [e - 1 - p + op for e, p, op in zip(eff, pe, pad)]
        out = conv_ncx(xd, wc, [1] * nd, list(self.dilations), begin, end, g)
        if len(arrays) > 2:
            out = out + as_f32(arrays[2]).reshape([1, -1] + [1] * nd)
        return [cast_to(from_ncx(out, self.data_format), ElementType.from_numpy(arrays[0].dtype))]


def _shape_from_attr_or_input(op: OneDNNOp, inputs: list[TensorType], attr: str, index: int) -> PartialShape:
    if len(inputs) > index:
        value = inputs[index].value
        if value is not None:
            return to_shape([int(v) for v in np.asarray(value).reshape(-1)])
        length = inputs[index].shape[0] if inputs[index].shape.rank_is_static and len(inputs[index].shape) == 1 else None
        return PartialShape.dynamic(length.get_length() if length is not None and length.is_static else None)
    shape = getattr(op, attr)
    if not shape or all(v == 0 for v in shape):
        raise op.fail(f"attribute '{attr}' is not set and input {index} ('{attr}') is not connected")
    return to_shape(list(shape))


class ConvolutionBackwardData(_ConvBase, BackwardOp):
    type_name: ClassVar[str] = "ConvolutionBackwardData"
    inputs: ClassVar[tuple[Port, ...]] = (Port("diff_dst", FLOAT), Port("weights", FLOAT), Port("dst_shape", S32, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT),)
    weights_format: Literal["XIO", "OIX"] = "XIO"
    output_padding: list[int] = [0] * 12
    dst_shape: list[int] = [0] * 12

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        return [TensorType(et, _shape_from_attr_or_input(self, inputs, "dst_shape", 2))]


class ConvolutionBackwardWeights(_ConvBase, BackwardOp):
    type_name: ClassVar[str] = "ConvolutionBackwardWeights"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("diff_dst", FLOAT), Port("weights_shape", S32, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_weights", FLOAT),)
    weights_format: Literal["XIO", "OIX"] = "XIO"
    weights_shape: list[int] = [0] * 12

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        return [TensorType(et, _shape_from_attr_or_input(self, inputs, "weights_shape", 2))]


class ConvTransposeBackwardData(_ConvBase, BackwardOp):
    """diff_src of a ConvTranspose: a forward convolution of diff_dst by the same weights."""

    type_name: ClassVar[str] = "ConvTransposeBackwardData"
    inputs: ClassVar[tuple[Port, ...]] = (Port("diff_dst", FLOAT), Port("weights", FLOAT))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT),)
    weights_format: Literal["XOI", "IOX"] = "XOI"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        src, wts = inputs[0].shape, inputs[1].shape
        if src.rank_is_dynamic or wts.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        dims = static_dims(wts)
        i, k = (dims[0], dims[2:]) if self.weights_format == "IOX" else (dims[-1], dims[:-2])
        return [TensorType(et, self._conv_out(src, k, i))]


class ConvTransposeBackwardWeights(_ConvBase, BackwardOp):
    type_name: ClassVar[str] = "ConvTransposeBackwardWeights"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("diff_dst", FLOAT), Port("weights_shape", S32, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_weights", FLOAT),)
    weights_format: Literal["XOI", "IOX"] = "XOI"
    weights_shape: list[int] = [0] * 12

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        return [TensorType(et, _shape_from_attr_or_input(self, inputs, "weights_shape", 2))]


# --- pooling -----------------------------------------------------------------------------------
class _PoolBase(OneDNNOp):
    strides: list[int]
    pads_begin: list[int]
    pads_end: list[int]
    kernel: list[int]
    auto_pad: AutoPad = "None"
    data_format: DataFormat = "NXC"

    def _dilations(self) -> list[int]:
        return list(getattr(self, "dilations", None) or [1] * len(self.kernel))[: len(self.kernel)]

    def _pool_out(self, src: PartialShape, ceil: bool) -> PartialShape:
        if src.rank_is_dynamic:
            return PartialShape.dynamic()
        n, c, spatial = split_layout(static_dims(src), self.data_format)
        for name in ("strides", "pads_begin", "pads_end", "kernel"):
            if len(getattr(self, name)) != len(spatial):
                raise self.fail(f"attribute '{name}' = {getattr(self, name)} must have {len(spatial)} values for input {src}")
        out = [out_dim(size, k, s, d, pb, pe, self.auto_pad, ceil)
               for size, k, s, d, pb, pe in zip(spatial, self.kernel, self.strides, self._dilations(), self.pads_begin, self.pads_end)]
        return to_shape(join_layout(n, c, out, self.data_format))

    def _padded_windows(self, x: np.ndarray, ceil: bool, fill: float) -> tuple[np.ndarray, list[int], list[int]]:
        sizes = list(x.shape[2:])
        dil = self._dilations()
        pb, pe = resolve_pads(sizes, self.kernel, self.strides, dil, self.pads_begin, self.pads_end, self.auto_pad)
        outs = [out_dim(n, k, s, d, b, e, "None", ceil) for n, k, s, d, b, e in zip(sizes, self.kernel, self.strides, dil, pb, pe)]
        need = [(o - 1) * s + (k - 1) * d + 1 - n - b for o, s, k, d, n, b in zip(outs, self.strides, self.kernel, dil, sizes, pb)]
        extra = [max(nd_, e) for nd_, e in zip(need, pe)]
        xp = pad_or_crop(x, pb, extra, fill)
        win = windows(xp, self.kernel, self.strides, dil)
        index = (slice(None), slice(None)) + tuple(slice(0, o) for o in outs)
        return win[index], pb, pe


class MaxPool(_PoolBase):
    type_name: ClassVar[str] = "MaxPool"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    dilations: list[int] = [1] * 12
    rounding_type: RoundingType = "floor"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        return [TensorType(inputs[0].element_type, self._pool_out(inputs[0].shape, self.rounding_type == "ceil"))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = to_ncx(as_f32(arrays[0]), self.data_format)
        lowest = float(ml_dtypes.finfo(arrays[0].dtype).min)  # a window all in padding gives lowest(), as oneDNN
        win, _, _ = self._padded_windows(x, self.rounding_type == "ceil", lowest)
        nd = len(self.kernel)
        out = win.max(axis=tuple(range(-nd, 0)))
        return [cast_to(from_ncx(out, self.data_format), ElementType.from_numpy(arrays[0].dtype))]


class AvgPool(_PoolBase):
    """Average pooling; ``exclude_pad`` divides by the in-bounds count, else by the kernel size."""

    type_name: ClassVar[str] = "AvgPool"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("dst", FLOAT),)
    exclude_pad: bool
    rounding_type: RoundingType = "floor"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        return [TensorType(inputs[0].element_type, self._pool_out(inputs[0].shape, self.rounding_type == "ceil"))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        x = to_ncx(as_f32(arrays[0]), self.data_format)
        ceil = self.rounding_type == "ceil"
        nd = len(self.kernel)
        axes = tuple(range(-nd, 0))
        win, _, _ = self._padded_windows(x, ceil, 0.0)
        total = win.sum(axis=axes)
        if self.exclude_pad:
            ones = np.ones((1, 1) + x.shape[2:], np.float32)
            count = self._padded_windows(ones, ceil, 0.0)[0].sum(axis=axes)
        else:
            count = float(np.prod(self.kernel))
        return [cast_to(from_ncx(total / count, self.data_format), ElementType.from_numpy(arrays[0].dtype))]


class AvgPoolBackward(_PoolBase, BackwardOp):
    type_name: ClassVar[str] = "AvgPoolBackward"
    inputs: ClassVar[tuple[Port, ...]] = (Port("diff_dst", FLOAT), Port("src_shape", S32, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT),)
    exclude_pad: bool
    src_shape: list[int] = [0] * 12

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        return [TensorType(inputs[0].element_type, _shape_from_attr_or_input(self, inputs, "src_shape", 1))]


class MaxPoolBackward(_PoolBase, BackwardOp):
    type_name: ClassVar[str] = "MaxPoolBackward"
    inputs: ClassVar[tuple[Port, ...]] = (Port("src", FLOAT), Port("diff_dst", FLOAT))
    outputs: ClassVar[tuple[Port, ...]] = (Port("diff_src", FLOAT),)
    dilations: list[int] = [1] * 12

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        return [TensorType(et, inputs[0].shape)]
