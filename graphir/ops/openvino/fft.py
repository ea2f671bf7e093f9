"""OpenVINO discrete Fourier transforms: DFT-7, IDFT-7 (complex, as a trailing dim of 2), RDFT-9
(real to complex) and IRDFT-9 (complex to real), over the ``axes`` given, with an optional
``signal_size`` per axis (-1: the input's length) to which the input is cut or zero-padded first.

Values are the transforms computed by numpy in f64 (pocketfft) and rounded once to the input type;
the inverse transforms divide by the signal's element count, as OpenVINO does. A large tensor is
transformed in blocks cut along the axes not transformed (every line is transformed alone, so the
bits do not depend on the blocks): the f64 temporaries stay near ``_BLOCK_ELEMENTS`` complex numbers
beside the output (a 2.9 GB DFT of OpenVINO's reader tests peaked at 3x its output when whole). OpenVINO CPU's own
arithmetic (its twiddle tables, radix-2 butterflies and JIT summation order, in f32 between axes) is
the ``openvino-cpu`` numerics profile (graphir.numerics.openvino_cpu.dft).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import ClassVar

import numpy as np

from graphir.ops.base import INDEX, Op, Port, TensorType, types
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape

_FLOATS = types("f32", "f16", "bf16")
#: complex elements per block transformed at once (64 MiB of complex128)
_BLOCK_ELEMENTS = 1 << 22


def blocks(shape: tuple[int, ...], transformed: Sequence[int], limit: int | None = None) -> Iterator[tuple[slice, ...]]:
    """Slices of ``shape`` (the signal's dims) covering it, cut only along dims not in
    ``transformed``, each of about ``limit`` elements or fewer where the dims allow (outer dims are
    cut first; one slice when the whole fits or every dim is transformed)."""
    limit = _BLOCK_ELEMENTS if limit is None else limit
    per = math.prod(shape)
    chosen: list[int] = []
    for d in range(len(shape)):
        if per <= limit:
            break
        if d not in transformed and shape[d] > 1:
            chosen.append(d)
            per //= shape[d]
    whole = [slice(None)] * len(shape)
    if not chosen or per == 0:
        yield tuple(whole)
        return
    last = chosen[-1]
    width = max(1, limit // max(per, 1))
    for index in itertools.product(*(range(shape[d]) for d in chosen[:-1])):
        cut = list(whole)
        for d, i in zip(chosen[:-1], index):
            cut[d] = slice(i, i + 1)
        for start in range(0, shape[last], width):
            cut[last] = slice(start, start + width)
            yield tuple(cut)


class _FFT(Op):
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", _FLOATS), Port("axes", INDEX),
                                          Port("signal_size", INDEX, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    #: the input holds complex numbers as a trailing dim of 2
    complex_input: ClassVar[bool] = True

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, axes_t = inputs[:2]
        et = data.element_type
        if not et.is_dynamic and et not in _FLOATS:
            raise self.fail(f"FFT op input element type must be f32, f16, or bf16 (got {et})")
        for i, t in enumerate(inputs[1:], start=1):
            if not t.element_type.is_dynamic and t.element_type not in INDEX:
                raise self.fail(f"{self.inputs[i].name} element type must be i32 or i64 (got {t.element_type})")
            if t.shape.rank_is_static and len(t.shape) != 1:
                raise self.fail(f"FFT op {self.inputs[i].name} input must be 1D (got {t.shape})")
        if len(inputs) > 2 and axes_t.shape.rank_is_static and inputs[2].shape.rank_is_static \
                and axes_t.shape.merge(inputs[2].shape) is None:
            raise self.fail(f"Sizes of inputs 'axes' and 'signal_size' must be equal (got {axes_t.shape} and "
                            f"{inputs[2].shape})")
        if data.shape.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        rank = len(data.shape)
        if self.complex_input:
            if rank < 2:
                raise self.fail(f"The input rank must be greater or equal to 2 (got {data.shape})")
            if not data.shape[-1].compatible(Dimension.static(2)):
                raise self.fail(f"The last dimension of input data must be 2 (got {data.shape})")
        elif rank < 1:
            raise self.fail(f"The input rank must be greater or equal to 1 (got {data.shape})")
        signal_rank = rank - 1 if self.complex_input else rank
        raw_axes = sv.elements(axes_t)
        axes = None
        if raw_axes is not None and sv.is_known(raw_axes):
            if axes_t.shape.rank_is_static and axes_t.shape[0].is_static and axes_t.shape[0].min > signal_rank:
                raise self.fail(f"The number of axes ({axes_t.shape[0].min}) must not exceed the signal rank "
                                f"({signal_rank}; input {data.shape})")
            axes = []
            for a in raw_axes:
                a = int(a)  # type: ignore[arg-type]
                if not -signal_rank <= a < signal_rank:
                    raise self.fail(f"Axis {a} out of the tensor rank range [{-signal_rank}, {signal_rank - 1}].")
                axes.append(a + signal_rank if a < 0 else a)
            if len(set(axes)) != len(axes):
                raise self.fail(f"Each axis must be unique (axes {list(raw_axes)}).")
        sizes = None
        if len(inputs) > 2:
            raw = sv.elements(inputs[2])
            sizes = [int(s) for s in raw] if raw is not None and sv.is_known(raw) else None  # type: ignore[arg-type]
        shape = self._shape(data.shape, axes, sizes, len(inputs) > 2)
        return [TensorType(et, shape, fold(self, inputs, shape, et))]

    def _shape(self, shape: PartialShape, axes: list[int] | None, sizes: list[int] | None,
               has_sizes: bool) -> PartialShape:
        dims = list(shape.dims)
        if axes is None:  # without signal sizes the shape does not change, whatever the axes
            return shape if not has_sizes else PartialShape([Dimension.dynamic()] * (len(dims) - 1) + [dims[-1]])
        for i, a in enumerate(axes):
            if has_sizes and sizes is None:
                dims[a] = Dimension.dynamic()
            elif sizes is not None and sizes[i] != -1:
                dims[a] = Dimension.static(sizes[i])
        return PartialShape(dims)

    # --- values ---------------------------------------------------------------------------
    @staticmethod
    def _complex(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return x[..., 0] + 1j * x[..., 1]

    @staticmethod
    def signal_plan(x_shape: tuple[int, ...], rank: int, axes: np.ndarray,
              sizes: np.ndarray | None) -> tuple[list[int], list[int]]:
        ax = [int(a) + rank if int(a) < 0 else int(a) for a in np.asarray(axes).reshape(-1)]
        if sizes is None:
            return ax, [x_shape[a] for a in ax]
        s = [int(v) for v in np.asarray(sizes).reshape(-1)]
        return ax, [x_shape[a] if v == -1 else v for a, v in zip(ax, s)]


class DFT(_FFT):
    """DFT-7: the forward transform of complex data ``[..., 2]``."""

    type_name: ClassVar[str] = "DFT"
    version: ClassVar[str] = "opset7"
    inverse: ClassVar[bool] = False

    def evaluate(self, x: np.ndarray, axes: np.ndarray, sizes: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        ax, s = self.signal_plan(x.shape[:-1], x.ndim - 1, axes, sizes)
        shape = list(x.shape[:-1])
        for a, n in zip(ax, s):
            shape[a] = n
        out = np.empty((*shape, 2), x.dtype)
        transform = np.fft.ifft if self.inverse else np.fft.fft
        for cut in blocks(tuple(shape), ax):
            z = resized(x[cut], ax, s)
            for a in sorted(set(ax)):  # in place, one axis after another
                transform(z, axis=a, out=z)
            part = out[cut]
            part[..., 0], part[..., 1] = z.real, z.imag
        return [out]


def resized(x: np.ndarray, axes: list[int], sizes: list[int], dtype: type = np.complex128) -> np.ndarray:
    """The complex signal of ``x`` (``[..., 2]``) cut or zero-padded at the end of each axis to its
    signal size: a new C-contiguous array of ``dtype`` (transformed in place afterwards)."""
    shape = list(x.shape[:-1])
    for a, n in zip(axes, sizes):
        shape[a] = n
    out: np.ndarray = np.zeros(shape, dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(x.shape[:-1], shape))
    out.real[common] = x[common + (0,)]
    out.imag[common] = x[common + (1,)]
    return out


class IDFT(DFT):
    """IDFT-7: the inverse transform (divided by the signal's element count)."""

    type_name: ClassVar[str] = "IDFT"
    inverse: ClassVar[bool] = True


class RDFT(_FFT):
    """RDFT-9: real data to the non-negative frequencies of the last axis (``n // 2 + 1``)."""

    type_name: ClassVar[str] = "RDFT"
    version: ClassVar[str] = "opset9"
    complex_input: ClassVar[bool] = False

    def _shape(self, shape: PartialShape, axes: list[int] | None, sizes: list[int] | None,
               has_sizes: bool) -> PartialShape:
        dims = list(shape.dims)
        if axes is None:
            return PartialShape([Dimension.dynamic()] * len(dims) + [2])
        for i, a in enumerate(axes):
            if sizes is not None and sizes[i] != -1:
                dims[a] = Dimension.static(sizes[i])
        last = axes[-1]
        if has_sizes and sizes is None:
            dims[last] = Dimension.dynamic()
        else:
            d = dims[last]
            dims[last] = Dimension(d.min // 2 + 1, None if d.max is None else d.max // 2 + 1)
        return PartialShape(dims + [Dimension.static(2)])

    def evaluate(self, x: np.ndarray, axes: np.ndarray, sizes: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        ax, s = self.signal_plan(x.shape, x.ndim, axes, sizes)
        shape = list(x.shape)
        for a, n in zip(ax, s):
            shape[a] = n
        shape[ax[-1]] = s[-1] // 2 + 1
        out = np.empty((*shape, 2), x.dtype)
        for cut in blocks(tuple(shape), ax):
            z = np.fft.rfftn(x[cut].astype(np.float64), s=s, axes=ax)
            part = out[cut]
            part[..., 0], part[..., 1] = z.real, z.imag
        return [out]


class IRDFT(_FFT):
    """IRDFT-9: the inverse of RDFT: the last axis grows to ``2 * (n - 1)`` (or its signal size)."""

    type_name: ClassVar[str] = "IRDFT"
    version: ClassVar[str] = "opset9"

    def _shape(self, shape: PartialShape, axes: list[int] | None, sizes: list[int] | None,
               has_sizes: bool) -> PartialShape:
        dims = list(shape.dims)[:-1]
        if axes is None:
            return PartialShape([Dimension.dynamic()] * len(dims))
        for i, a in enumerate(axes):
            if sizes is not None and sizes[i] != -1:
                dims[a] = Dimension.static(sizes[i])
        last = axes[-1]
        if has_sizes and sizes is None:
            dims[last] = Dimension.dynamic()
        elif sizes is None or sizes[-1] == -1:
            d = dims[last]
            dims[last] = Dimension(max(2 * (d.min - 1), 0), None if d.max is None else max(2 * (d.max - 1), 0))
        return PartialShape(dims)

    def evaluate(self, x: np.ndarray, axes: np.ndarray, sizes: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        ax, s = self.signal_plan(x.shape[:-1], x.ndim - 1, axes, sizes)
        if sizes is None or int(np.asarray(sizes).reshape(-1)[-1]) == -1:
            s[-1] = 2 * (x.shape[ax[-1]] - 1)
        shape = list(x.shape[:-1])
        for a, n in zip(ax, s):
            shape[a] = n
        out = np.empty(shape, x.dtype)
        for cut in blocks(tuple(shape), ax):
            out[cut] = np.fft.irfftn(self._complex(x[cut + (slice(None),)]), s=s, axes=ax)
        return [out]
