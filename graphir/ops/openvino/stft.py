"""OpenVINO short-time Fourier transforms: STFT-15 and ISTFT-16.

STFT: frames of ``frame_size`` every ``frame_step`` samples of ``signal [T]`` or ``[B, T]``, each
times the window (zero-padded to ``frame_size``, centred), to the non-negative frequencies
``[B?, frames, frame_size // 2 + 1, 2]`` (``transpose_frames``: ``[B?, freq, frames, 2]``).
ISTFT: the inverse of the transposed layout ``[B?, freq, frames, 2]``: each frame's inverse real
FFT times the (padded) window is overlap-added and divided by the overlap-added squared window (0
where that sum is 0), as OpenVINO 2026's CPU plugin computes it (and torch.istft);
``normalized`` multiplies by ``sqrt(frame_size)``, ``center`` drops ``frame_size // 2`` samples at
the start, and ``signal_length`` cuts or zero-pads the result.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import INDEX, Op, Port, TensorType, types
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape

_FLOATS = types("f32", "f16", "bf16", "f64")


def _scalar(t: TensorType) -> int | None:
    items = sv.elements(t)
    if items is None or len(items) != 1 or not sv.is_known(items):
        return None
    return int(items[0])  # type: ignore[arg-type]


def padded_window(window: np.ndarray, frame_size: int) -> np.ndarray:
    """The window zero-padded to ``frame_size``, centred (the left pad is the smaller half)."""
    w = np.asarray(window, dtype=np.float64).reshape(-1)
    out = np.zeros(frame_size)
    start = (frame_size - min(w.size, frame_size)) // 2
    out[start:start + w.size] = w
    return out


class _SignalOp(Op):
    def _check_common(self, inputs: list[TensorType]) -> None:
        data, window = inputs[:2]
        if not data.element_type.is_dynamic and data.element_type not in _FLOATS:
            raise self.fail(f"Expected floating point type of the data input (got {data.element_type}).")
        if data.element_type.merge(window.element_type) is None:
            raise self.fail(f"Expected floating point type of the 'window' input, matching the type of the data "
                            f"input (got {window.element_type} and {data.element_type}).")
        for i, t in enumerate(inputs[2:], start=2):
            if not t.element_type.is_dynamic and t.element_type not in INDEX:
                raise self.fail(f"The {self.inputs[i].name} input must be i32 or i64 (got {t.element_type}).")
            if t.shape.rank_is_static and len(t.shape) != 0:
                raise self.fail(f"The shape of {self.inputs[i].name} must be a scalar (got {t.shape}).")
        if window.shape.rank_is_static and len(window.shape) != 1:
            raise self.fail(f"The shape of window must be 1D [window_size] (got {window.shape}).")

    def _check_sizes(self, frame_size: int | None, frame_step: int | None, window: TensorType) -> None:
        if frame_size is not None and frame_size <= 0:
            raise self.fail(f"Provided frame size must be greater than 0, got: {frame_size}.")
        if frame_step is not None and frame_step <= 0:
            raise self.fail(f"Provided frame step must be greater than 0, got: {frame_step}.")
        if frame_size is not None and window.shape.rank_is_static and window.shape[0].is_static \
                and not 1 <= window.shape[0].min <= frame_size:
            raise self.fail(f"Window input dimension must be in range [1, {frame_size}] (got {window.shape}).")


class STFT(_SignalOp):
    type_name: ClassVar[str] = "STFT"
    version: ClassVar[str] = "opset15"
    inputs: ClassVar[tuple[Port, ...]] = (Port("signal"), Port("window"), Port("frame_size", INDEX),
                                          Port("frame_step", INDEX))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    transpose_frames: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self._check_common(inputs)
        signal, window = inputs[:2]
        if signal.shape.rank_is_static and len(signal.shape) not in (1, 2):
            raise self.fail(f"The shape of signal must be 1D [signal_size] or 2D [batch, signal_size] "
                            f"(got {signal.shape}).")
        fs, step = _scalar(inputs[2]), _scalar(inputs[3])
        self._check_sizes(fs, step, window)
        et = signal.element_type.merge(window.element_type)
        assert et is not None  # _check_common refused types that do not merge
        if signal.shape.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        batch = list(signal.shape.dims[:-1])
        length = signal.shape[-1]
        if fs is None or step is None:
            frames, freq = Dimension.dynamic(), Dimension.dynamic()
        else:
            if length.max is not None and length.max < fs:
                raise self.fail(f"Provided frame size is {fs} but must be in range [1, {length.max}].")
            lo = max((length.min - fs) // step + 1, 1) if length.min >= fs else 1
            hi = None if length.max is None else (length.max - fs) // step + 1
            frames, freq = Dimension(lo, hi), Dimension.static(fs // 2 + 1)
        middle = [freq, frames] if self.transpose_frames else [frames, freq]
        shape = PartialShape(batch + middle + [2])
        return [TensorType(et, shape, fold(self, inputs, shape, et))]  # type: ignore[arg-type]

    def evaluate(self, signal: np.ndarray, window: np.ndarray, frame_size: np.ndarray,
                 frame_step: np.ndarray) -> list[np.ndarray]:
        signal = np.asarray(signal)
        fs, step = int(np.asarray(frame_size).reshape(-1)[0]), int(np.asarray(frame_step).reshape(-1)[0])
        x = signal.astype(np.float64).reshape(-1, signal.shape[-1])
        count = (x.shape[1] - fs) // step + 1
        starts = np.arange(count) * step
        frames = x[:, starts[:, None] + np.arange(fs)[None, :]] * padded_window(window, fs)  # [B, frames, fs]
        spectrum = np.fft.rfft(frames, axis=-1)
        out = np.stack([spectrum.real, spectrum.imag], axis=-1)  # [B, frames, freq, 2]
        if self.transpose_frames:
            out = out.transpose(0, 2, 1, 3)
        if signal.ndim == 1:
            out = out[0]
        return [np.ascontiguousarray(out).astype(signal.dtype)]


class ISTFT(_SignalOp):
    type_name: ClassVar[str] = "ISTFT"
    version: ClassVar[str] = "opset16"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("window"), Port("frame_size", INDEX),
                                          Port("frame_step", INDEX), Port("signal_length", INDEX, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    center: bool = False
    normalized: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self._check_common(inputs)
        data, window = inputs[:2]
        if data.shape.rank_is_static and len(data.shape) not in (3, 4):
            raise self.fail(f"The shape of data must be 3D or 4D (got {data.shape}).")
        fs, step = _scalar(inputs[2]), _scalar(inputs[3])
        self._check_sizes(fs, step, window)
        et = data.element_type.merge(window.element_type)
        if fs is not None and data.shape.rank_is_static and data.shape[-3].is_static \
                and data.shape[-3].min != fs // 2 + 1:
            raise self.fail(f"The dimension at data_shape[-3] must be equal to: (frame_size // 2 + 1) "
                            f"(got {data.shape}, frame_size {fs}).")
        if data.shape.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]  # type: ignore[arg-type]
        batch = list(data.shape.dims[:-3])
        if len(inputs) > 4:
            given = _scalar(inputs[4])
            length = Dimension.dynamic() if given is None else Dimension.static(given)
        elif fs is None or step is None:
            length = Dimension.dynamic()
        else:
            frames = data.shape[-2]

            def samples(n: int) -> int:
                total = (n - 1) * step + fs
                return total - fs if self.center else total

            lo = samples(max(frames.min, 1))
            hi = None if frames.max is None else samples(frames.max)
            length = Dimension.dynamic() if hi is None and lo == 0 else Dimension(lo, hi)
        shape = PartialShape(batch + [length])
        return [TensorType(et, shape, fold(self, inputs, shape, et))]  # type: ignore[arg-type]

    def evaluate(self, data: np.ndarray, window: np.ndarray, frame_size: np.ndarray, frame_step: np.ndarray,
                 signal_length: np.ndarray | None = None) -> list[np.ndarray]:
        data = np.asarray(data)
        fs, step = int(np.asarray(frame_size).reshape(-1)[0]), int(np.asarray(frame_step).reshape(-1)[0])
        z = data.astype(np.float64).reshape((-1,) + data.shape[-3:])
        spectrum = (z[..., 0] + 1j * z[..., 1]).transpose(0, 2, 1)  # [B, frames, freq]
        count = spectrum.shape[1]
        frames = np.fft.irfft(spectrum, n=fs, axis=-1)  # [B, frames, fs]
        total = (count - 1) * step + fs
        acc = np.zeros((len(z), total))
        window_sum = np.zeros(total)
        w = padded_window(window, fs)
        for k in range(count):
            acc[:, k * step:k * step + fs] += frames[:, k] * w
            window_sum[k * step:k * step + fs] += w * w
        with np.errstate(all="ignore"):
            result = np.where(window_sum != 0, acc / np.where(window_sum != 0, window_sum, 1), 0.0)
        if self.normalized:
            result = result * np.sqrt(fs)
        margin = fs // 2 if self.center else 0
        if signal_length is not None and int(np.asarray(signal_length).reshape(-1)[0]) > 0:
            final = int(np.asarray(signal_length).reshape(-1)[0])
        else:
            final = total - fs if self.center else total
        out = np.zeros((len(z), final))
        usable = result[:, margin:margin + min(final, total - margin)]
        out[:, :usable.shape[1]] = usable
        if data.ndim == 3:
            out = out[0]
        return [out.astype(data.dtype)]
