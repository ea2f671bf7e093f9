"""OpenVINO convolutions: ``Convolution-1``, ``GroupConvolution-1``, ``ConvolutionBackpropData-1``,
``GroupConvolutionBackpropData-1``, plus the sliding-window arithmetic that pooling shares.

Evaluation is graphir.kernels.conv's (pointwise products, im2col, depthwise products, small
depthwise layers as tap sums, grouped einsum); a run plan prepares the kernel and the filters'
layout once per input signature. The openvino-cpu profile computes every depthwise layer as BLAS
products (:meth:`Convolution.blas_evaluate`). A transposed convolution is a convolution of the
stride-dilated input with the flipped filters.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from graphir.kernels.conv import ConvKernel
from graphir.ops.base import INDEX, NUMERIC, NodeSignature, Op, Port, TensorType, fresh_output
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

AutoPad = Literal["explicit", "notset", "same_upper", "same_lower", "valid"]


# --- window arithmetic (shared with pooling) ---------------------------------------------------
def window_out_length(length: int, k_eff: int, stride: int, pad_begin: int, pad_end: int,
                      auto_pad: str, ceil: bool = False) -> int:
    """Output length of a sliding window over ``length`` (may be < 1 when the window does not fit)."""
    if auto_pad in ("same_upper", "same_lower"):
        return -(-length // stride)
    if auto_pad == "valid":
        pad_begin = pad_end = 0
    span = length + pad_begin + pad_end - k_eff
    if span < 0:
        return 0
    return (-(-span // stride) if ceil else span // stride) + 1


def window_out_dim(dim: Dimension, k_eff: int, stride: int, pad_begin: int, pad_end: int,
                   auto_pad: str, ceil: bool = False) -> Dimension:
    """:func:`window_out_length` mapped over an interval dimension (it is monotonic)."""
    lo = window_out_length(dim.min, k_eff, stride, pad_begin, pad_end, auto_pad, ceil)
    hi = None if dim.max is None else window_out_length(dim.max, k_eff, stride, pad_begin, pad_end, auto_pad, ceil)
    if dim.is_dynamic and auto_pad not in ("same_upper", "same_lower"):
        lo = max(lo, 1)  # OpenVINO assumes a dynamic input fits at least one window
        hi = None if hi is None else max(hi, 1)
    return Dimension(lo, hi)


def resolve_pads(lengths: tuple[int, ...], kernel_eff: list[int], strides: list[int],
                 pads_begin: list[int], pads_end: list[int], auto_pad: str) -> tuple[list[int], list[int]]:
    """The explicit pads that ``auto_pad`` stands for, at concrete input lengths."""
    if auto_pad == "valid":
        return [0] * len(lengths), [0] * len(lengths)
    if auto_pad not in ("same_upper", "same_lower"):
        return list(pads_begin), list(pads_end)
    begin, end = [], []
    for length, k, s in zip(lengths, kernel_eff, strides):
        out = -(-length // s)
        total = max((out - 1) * s + k - length, 0)
        small, big = total // 2, total - total // 2
        begin.append(small if auto_pad == "same_upper" else big)
        end.append(big if auto_pad == "same_upper" else small)
    return begin, end


def pad_spatial(x: np.ndarray, begin: list[int], end: list[int], value: float = 0.0) -> np.ndarray:
    """Pad (or, for negative amounts, crop) every axis after the first two."""
    widths = [(0, 0), (0, 0)] + [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if any(w != (0, 0) for w in widths):
        x = np.pad(x, widths, constant_values=value)
    if any(b < 0 or e < 0 for b, e in zip(begin, end)):
        x = x[(slice(None), slice(None)) + tuple(
            slice(max(-b, 0), x.shape[2 + i] - max(-e, 0)) for i, (b, e) in enumerate(zip(begin, end)))]
    return x


def windows(x: np.ndarray, kernel: list[int], strides: list[int], dilations: list[int]) -> np.ndarray:
    """A view ``[N, C, out..., k...]`` of the (already padded) input's windows."""
    k_eff = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
    view = sliding_window_view(x, k_eff, axis=tuple(range(2, x.ndim)))
    return view[(slice(None), slice(None))
                + tuple(slice(None, None, s) for s in strides)
                + tuple(slice(None, None, d) for d in dilations)]


def grouped_conv(x: np.ndarray, w: np.ndarray, strides: list[int], dilations: list[int],
                 pads_begin: list[int], pads_end: list[int]) -> np.ndarray:
    """``x [N, G*Ci, D...]`` convolved with ``w [G, Co, Ci, K...]`` -> ``[N, G*Co, O...]``
    (graphir.kernels.conv picks the strategy)."""
    kernel = ConvKernel(x.shape, x.dtype, w.shape, strides, dilations, pads_begin, pads_end)
    return kernel(x, kernel.weights(w))


def grouped_conv_transpose(x: np.ndarray, w: np.ndarray, strides: list[int], dilations: list[int],
                           pads_begin: list[int], pads_end: list[int], output_padding: list[int]) -> np.ndarray:
    """``x [N, G*Ci, D...]`` with ``w [G, Ci, Co, K...]``: the gradient of a strided convolution."""
    direct = _tiled_transpose(x, w, strides, dilations, pads_begin, pads_end, output_padding)
    if direct is not None:
        return direct
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    dilated = np.zeros((n, c) + tuple((d - 1) * s + 1 for d, s in zip(spatial, strides)), dtype=x.dtype)
    dilated[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)] = x
    kernel = w.shape[3:]
    full = [dl * (k - 1) for k, dl in zip(kernel, dilations)]
    begin = [f - b for f, b in zip(full, pads_begin)]
    end = [f - e + op for f, e, op in zip(full, pads_end, output_padding)]
    flipped = np.flip(w, axis=tuple(range(3, w.ndim))).swapaxes(1, 2)
    return grouped_conv(dilated, np.ascontiguousarray(flipped), [1] * len(strides), dilations, begin, end)


#: multiply-accumulates per image from which a tiling transposed convolution is one product:
#: past OpenBLAS's small-matrix kernels its sums run in input-channel order with FMAs, as OpenVINO's
#: CPU deconvolution does (bit for bit, tests/test_conv_kernel.py)
TILED_TRANSPOSE_MIN_MACS = 1 << 21


def _tiled_transpose(x: np.ndarray, w: np.ndarray, strides: list[int], dilations: list[int], pads_begin: list[int],
                     pads_end: list[int], output_padding: list[int]) -> np.ndarray | None:
    """A 2-D transposed convolution whose windows tile the output (kernel == stride, no padding or
    dilation, one group, f32: Mask R-CNN's 2x2 stride-2 mask upsampling) as one product per image:
    ``[Co*K, Ci] @ [Ci, H*W]``, each input pixel spreading over its own output tile. The zero-
    dilated input's im2col (the general path) does Ci*K products per output for Ci that count and
    rounds differently; this one gives OpenVINO's bits. None when it does not apply."""
    kernel = list(w.shape[3:])
    if (w.shape[0] != 1 or x.ndim != 4 or x.dtype != np.float32 or w.dtype != np.float32 or kernel != list(strides)
            or any(d != 1 for d in dilations) or any(pads_begin) or any(pads_end) or any(output_padding)):
        return None
    n, ci, h, wd = x.shape
    co, (kh, kw) = w.shape[2], kernel
    if co * kh * kw * ci * h * wd < TILED_TRANSPOSE_MIN_MACS or co * kh * kw < 2 or h * wd < 2:
        return None
    weights = np.ascontiguousarray(w[0].transpose(1, 2, 3, 0).reshape(co * kh * kw, ci))
    out = np.empty((n, co, h * kh, wd * kw), np.float32)
    for image in range(n):
        tiles = np.matmul(weights, x[image].reshape(ci, h * wd)).reshape(co, kh, kw, h, wd)
        out[image].reshape(co, h, kh, wd, kw)[...] = tiles.transpose(0, 3, 1, 4, 2)
    return out


# --- shared validation -------------------------------------------------------------------------
class _ConvBase(Op):
    strides: list[int]
    pads_begin: list[int]
    pads_end: list[int]
    dilations: list[int]
    auto_pad: AutoPad = "explicit"

    def _check_attrs(self, spatial: int) -> None:
        strides, dilations = self.strides, self.dilations
        if (len(strides) == len(dilations) == len(self.pads_begin) == len(self.pads_end) == spatial
                and (not spatial or (min(strides) >= 1 and min(dilations) >= 1))):
            return  # the common case, checked at once
        for name in ("strides", "dilations", "pads_begin", "pads_end"):
            values = getattr(self, name)
            if len(values) != spatial:
                raise self.fail(
                    f"attribute '{name}' has {len(values)} values {values}; the data has {spatial} spatial dims"
                )
        if any(s < 1 for s in self.strides) or any(d < 1 for d in self.dilations):
            raise self.fail(f"strides {self.strides} and dilations {self.dilations} must be positive")

    def _spatial_out(self, data: PartialShape, kernel: list[Dimension]) -> list[Dimension]:
        out = []
        for i, (d, k) in enumerate(zip(data.dims[2:], kernel)):
            if k.is_dynamic:
                out.append(Dimension.dynamic())
                continue
            k_eff = self.dilations[i] * (k.min - 1) + 1
            dim = window_out_dim(d, k_eff, self.strides[i], self.pads_begin[i], self.pads_end[i], self.auto_pad)
            if d.is_static and dim.min < 1:
                raise self.fail(
                    f"window of size {k_eff} (kernel {k}, dilation {self.dilations[i]}) is larger than the padded "
                    f"data along spatial axis {i}: data {data}, pads_begin {self.pads_begin}, pads_end {self.pads_end}"
                )
            out.append(dim)
        return out

    def _pads(self, x: "np.ndarray | tuple[int, ...]", kernel: tuple[int, ...]) -> tuple[list[int], list[int]]:
        """The explicit pads for an input (or its shape) and a kernel size."""
        shape = x if isinstance(x, tuple) else x.shape
        k_eff = [d * (k - 1) + 1 for k, d in zip(kernel, self.dilations)]
        return resolve_pads(shape[2:], k_eff, self.strides, self.pads_begin, self.pads_end, self.auto_pad)


def _rank_of(*shapes: PartialShape) -> int | None:
    for s in shapes:
        if s.rank_is_static:
            return len(s)
    return None


class Convolution(_ConvBase):
    """2-D/3-D/1-D convolution, ``data [N, C, D...]`` with ``filters [Co, C, K...]``."""
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "strides", "dilations", "pads_begin", "pads_end", "auto_pad", "output_padding"
    )

    type_name: ClassVar[str] = "Convolution"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", NUMERIC), Port("filters", NUMERIC))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    groups_in_filter: ClassVar[int] = 0

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        data, filters = inputs[0].shape, inputs[1].shape
        g = self.groups_in_filter
        if data.is_static and filters.is_static:
            static = self._static_out(data, filters)
            if static is not None:
                return [TensorType(et, static)]
        rank = _rank_of(data) or (len(filters) - g if filters.rank_is_static else None)
        if rank is None:
            return [TensorType(et, PartialShape.dynamic())]
        if rank < 3:
            raise self.fail(f"data must have rank >= 3 ([N, C, spatial...]); data {data}")
        if filters.rank_is_static and len(filters) != rank + g:
            raise self.fail(f"filters rank {len(filters)} must be data rank {rank} + {g}: data {data}, filters {filters}")
        self._check_attrs(rank - 2)
        dd = list(data.dims) if data.rank_is_static else [Dimension.dynamic()] * rank
        fd = list(filters.dims) if filters.rank_is_static else [Dimension.dynamic()] * (rank + g)
        if g:
            groups, out_c, in_c = fd[0], fd[0] * fd[1], fd[0] * fd[2]
        else:
            out_c, in_c = fd[0], fd[1]
        if dd[1].merge(in_c) is None:
            raise self.fail(
                f"data channels {dd[1]} do not match the filters' input channels {in_c}: data {data}, filters {filters}"
            )
        spatial = self._spatial_out(data if data.rank_is_static else PartialShape(dd), fd[2 + g:])
        return [TensorType(et, PartialShape.of((dd[0], out_c, *spatial)))]

    def _static_out(self, data: PartialShape, filters: PartialShape) -> PartialShape | None:
        """The output shape of static data and filters in plain integers (what most reshapes and
        reads meet); None to take the general path, which also words every error."""
        g = self.groups_in_filter
        dd, fd = data.dims, filters.dims
        rank = len(dd)  # type: ignore[arg-type]
        spatial = rank - 2
        strides, dilations, pads_begin, pads_end = self.strides, self.dilations, self.pads_begin, self.pads_end
        if (spatial < 1 or len(fd) != rank + g  # type: ignore[arg-type]
                or not len(strides) == len(dilations) == len(pads_begin) == len(pads_end) == spatial):
            return None
        assert dd is not None and fd is not None
        if g:
            out_c, in_c = fd[0].min * fd[1].min, fd[0].min * fd[2].min
        else:
            out_c, in_c = fd[0].min, fd[1].min
        if dd[1].min != in_c:
            return None
        auto_pad = self.auto_pad
        same = auto_pad == "same_upper" or auto_pad == "same_lower"
        dims = [dd[0], Dimension.static(out_c)]
        for i in range(spatial):
            stride, dilation = strides[i], dilations[i]
            if stride < 1 or dilation < 1:
                return None
            length = dd[2 + i].min
            if same:
                out = -(-length // stride)
                if out < 1:
                    return None
            else:
                span = length - dilation * (fd[2 + g + i].min - 1) - 1
                if auto_pad != "valid":
                    span += pads_begin[i] + pads_end[i]
                if span < 0:
                    return None
                out = span // stride + 1
            dims.append(Dimension.static(out))
        return PartialShape.of(tuple(dims))

    def evaluate(self, x: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
        kernel = self._kernel(x.shape, x.dtype, w.shape)
        return [kernel(x, kernel.weights(self._grouped(w)))]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        x, w = node.inputs[0], node.inputs[1]
        constants = node.constants
        if not (x.shape.is_static and w.shape.is_static) or x.element_type.is_dynamic or x.element_type != w.element_type:
            return self.evaluate
        kernel = self._kernel(tuple(x.shape.to_shape()), np.dtype(x.element_type.numpy_dtype), tuple(w.shape.to_shape()))
        grouped = self._grouped
        if constants[1] is None:
            return fresh_output(lambda x, w: [kernel(x, kernel.weights(grouped(w)))])
        laid_out = kernel.weights(grouped(constants[1]))
        return fresh_output(lambda x, w: [kernel(x, laid_out)])  # every strategy returns a new array

    def _grouped(self, w: np.ndarray) -> np.ndarray:
        return w[None] if not self.groups_in_filter else w

    def _kernel(self, x_shape: tuple[int, ...], x_dtype: np.dtype, w_shape: tuple[int, ...], taps: bool = True
                ) -> ConvKernel:
        """The kernel of one input signature; ``taps``: small depthwise layers as the reference's
        tap-by-tap sum (False: BLAS products, as the openvino-cpu profile computes them)."""
        g = self.groups_in_filter
        begin, end = self._pads(x_shape, w_shape[2 + g:])
        return ConvKernel(x_shape, x_dtype, ((1,) if not g else ()) + tuple(w_shape), self.strides, self.dilations, begin,
                          end, taps=taps)

    def blas_evaluate(self) -> Callable[[np.ndarray, np.ndarray], list[np.ndarray]]:
        """An evaluate whose depthwise layers are all BLAS products (OpenVINO CPU's bits on OpenBLAS
        SkylakeX: the openvino-cpu profile's), keeping the kernel and filters' layout of the last
        input signature (the filters are a run plan's same constant array run after run)."""
        grouped = self._grouped
        last: list[tuple[tuple[object, ...], ConvKernel, np.ndarray, object]] = []

        def evaluate(x: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
            key = (x.shape, x.dtype, w.shape, w.dtype)
            known = last[0] if last else None  # one read: another thread may replace it
            if known is not None and known[0] == key and known[2] is w:
                return [known[1](x, known[3])]
            kernel = self._kernel(x.shape, x.dtype, w.shape, taps=False)
            laid_out = kernel.weights(grouped(w))
            last[:] = [(key, kernel, w, laid_out)]
            return [kernel(x, laid_out)]

        return evaluate


class GroupConvolution(Convolution):
    """Grouped convolution: ``filters [G, Co/G, C/G, K...]`` (depthwise when C/G is 1)."""
    ir_attribute_order: ClassVar[tuple[str, ...]] = ()  # the fields' order, as OpenVINO writes it

    type_name: ClassVar[str] = "GroupConvolution"
    groups_in_filter: ClassVar[int] = 1


class ConvolutionBackpropData(_ConvBase):
    """Transposed convolution, ``data [N, C, D...]`` with ``filters [C, Co, K...]``; the optional
    ``output_shape`` input fixes the spatial output size (pads then follow from ``auto_pad``)."""
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "strides", "dilations", "pads_begin", "pads_end", "auto_pad", "output_padding"
    )

    type_name: ClassVar[str] = "ConvolutionBackpropData"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("data", NUMERIC), Port("filters", NUMERIC), Port("output_shape", INDEX, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    output_padding: list[int] = []
    groups_in_filter: ClassVar[int] = 0

    def _check_attrs(self, spatial: int) -> None:
        super()._check_attrs(spatial)
        if self.output_padding and len(self.output_padding) != spatial:
            raise self.fail(f"attribute 'output_padding' {self.output_padding} must have {spatial} values")

    def _out_padding(self, spatial: int) -> list[int]:
        return list(self.output_padding) or [0] * spatial

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, (0, 1))
        data, filters = inputs[0].shape, inputs[1].shape
        g = self.groups_in_filter
        rank = _rank_of(data) or (len(filters) - g if filters.rank_is_static else None)
        if rank is None and len(inputs) > 2 and inputs[2].shape.rank_is_static and inputs[2].shape.dims[0].is_static:
            rank = inputs[2].shape.dims[0].min + 2
        if rank is None:
            return [TensorType(et, PartialShape.dynamic())]
        if rank < 3:
            raise self.fail(f"data must have rank >= 3 ([N, C, spatial...]); data {data}")
        if filters.rank_is_static and len(filters) != rank + g:
            raise self.fail(f"filters rank {len(filters)} must be data rank {rank} + {g}: data {data}, filters {filters}")
        spatial_count = rank - 2
        self._check_attrs(spatial_count)
        dd = list(data.dims) if data.rank_is_static else [Dimension.dynamic()] * rank
        fd = list(filters.dims) if filters.rank_is_static else [Dimension.dynamic()] * (rank + g)
        if g:
            in_c, out_c = fd[0] * fd[1], fd[0] * fd[2]
        else:
            in_c, out_c = fd[0], fd[1]
        if dd[1].merge(in_c) is None:
            raise self.fail(
                f"data channels {dd[1]} do not match the filters' input channels {in_c}: data {data}, filters {filters}"
            )
        if len(inputs) > 2:
            value = inputs[2].value
            if value is not None:
                sizes = [int(v) for v in np.asarray(value).reshape(-1)]
                if len(sizes) != spatial_count:
                    raise self.fail(f"output_shape {sizes} must have {spatial_count} values (data {data})")
                spatial = [Dimension.static(v) for v in sizes]
            else:
                spatial = [Dimension.dynamic()] * spatial_count
        else:
            spatial = []
            op = self._out_padding(spatial_count)
            for i, (d, k) in enumerate(zip(dd[2:], fd[2 + g:])):
                if k.is_dynamic:
                    spatial.append(Dimension.dynamic())
                    continue
                # without output_shape, OpenVINO treats same_upper/same_lower as zero padding
                pb, pe = (0, 0) if self.auto_pad in ("valid", "same_upper", "same_lower") else (
                    self.pads_begin[i], self.pads_end[i])
                extra = self.dilations[i] * (k.min - 1) + 1 - pb - pe + op[i]

                def size(n: int) -> int:  # OpenVINO's (n - 1) is a Dimension's: it stops at 0 for n = 0
                    return self.strides[i] * max(n - 1, 0) + extra

                # a dynamic input length counts as at least 1; a negative length is unknown (OpenVINO)
                lo = size(max(d.min, 1)) if d.is_dynamic else size(d.min)
                hi = None if d.max is None else size(d.max)
                if (hi is not None and hi < 0) or (d.is_static and lo < 0):
                    spatial.append(Dimension.dynamic())
                else:
                    spatial.append(Dimension(max(lo, 0), hi))
        return [TensorType(et, PartialShape([dd[0], out_c] + spatial))]

    def evaluate(self, x: np.ndarray, w: np.ndarray, output_shape: np.ndarray | None = None) -> list[np.ndarray]:
        g = self.groups_in_filter
        if x.size == 0:  # nothing to scatter: zeros of the size shape inference gives
            return [self._zeros(x, w, output_shape)]
        kernel = w.shape[2 + g:]
        spatial_count = x.ndim - 2
        op = self._out_padding(spatial_count)
        wg = w if g else w[None]
        if output_shape is None and self.auto_pad != "explicit" and self.auto_pad != "notset":
            zeros = [0] * spatial_count
            return [grouped_conv_transpose(x, wg, self.strides, self.dilations, zeros, zeros, op)]
        if output_shape is not None:
            sizes = [int(v) for v in np.asarray(output_shape).reshape(-1)]
            begin, end = [], []
            for i, (n, k) in enumerate(zip(x.shape[2:], kernel)):
                total = self.strides[i] * (n - 1) + self.dilations[i] * (k - 1) + 1 - sizes[i] + op[i]
                small, big = total // 2, total - total // 2
                # measured on OpenVINO 2026.4: same_upper puts the larger half first (unlike Convolution)
                first = {"same_upper": big, "same_lower": small, "valid": 0}.get(self.auto_pad, self.pads_begin[i])
                begin.append(first)
                end.append(total - first)
            out = grouped_conv_transpose(x, wg, self.strides, self.dilations, begin, end, op)
            if output_shape is not None:
                out = out[(slice(None), slice(None)) + tuple(slice(0, s) for s in sizes)]
            return [out]
        return [grouped_conv_transpose(x, wg, self.strides, self.dilations, self.pads_begin, self.pads_end, op)]


    def _zeros(self, x: np.ndarray, w: np.ndarray, output_shape: np.ndarray | None) -> np.ndarray:
        et = ElementType.from_numpy(x.dtype)
        types = [TensorType(et, PartialShape(list(x.shape))), TensorType(et, PartialShape(list(w.shape)))]
        if output_shape is not None:
            sizes = np.asarray(output_shape)
            types.append(TensorType(ElementType.from_numpy(sizes.dtype), PartialShape(list(sizes.shape)), sizes))
        return np.zeros(self.infer(types)[0].shape.to_shape(), x.dtype)


class GroupConvolutionBackpropData(ConvolutionBackpropData):
    """Grouped transposed convolution: ``filters [G, C/G, Co/G, K...]``."""
    ir_attribute_order: ClassVar[tuple[str, ...]] = ()  # the fields' order, as OpenVINO writes it

    type_name: ClassVar[str] = "GroupConvolutionBackpropData"
    groups_in_filter: ClassVar[int] = 1
