"""DFT -> DFT / IDFT / RDFT (complex values as a trailing dimension of 2, as in both ONNX and OpenVINO)."""
from __future__ import annotations

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import i64, rank_of
from graphir.serializers.onnx.registry import translator


def _dft(ctx: NodeContext, axis: int | Output, length: Output | None) -> Output:
    x = ctx.input(0)
    rank = rank_of(ctx, x)
    if isinstance(axis, int):
        axis = axis + rank if axis < 0 else axis
        if not 0 <= axis < rank - 1:
            raise ctx.error(f"axis {axis} is not a signal axis of a rank-{rank} input (its last dim holds re/im)")
        axes = i64(ctx, [axis])
    else:  # given at run time: ONNX counts a negative axis with the re/im dim, OpenVINO without it
        given = ctx.op("Reshape", ctx.op("Convert", axis, destination_type="i64"), i64(ctx, [1]), special_zero=False)
        axes = ctx.op("Select", ctx.op("Less", given, i64(ctx, 0)), ctx.op("Add", given, i64(ctx, 1)), given)
    inverse, onesided = bool(ctx.attr("inverse", 0)), bool(ctx.attr("onesided", 0))
    last = x.partial_shape[rank - 1]
    if last.is_dynamic:
        ctx.unsupported("an input whose last dim (1: real, 2: complex) is not known")
    real = int(last.get_length()) == 1
    size = None if length is None else ctx.op("Reshape", ctx.op("Convert", length, destination_type="i64"),
                                             i64(ctx, [1]), special_zero=False)
    extra = [] if size is None else [size]
    if real and onesided and not inverse:
        return ctx.op("RDFT", ctx.op("Squeeze", x, i64(ctx, [rank - 1])), axes, *extra)
    if onesided:
        ctx.unsupported("onesided=1 with inverse=1 or a complex input")
    if real:  # a zero imaginary part
        x = ctx.op("Concat", x, ctx.op("Multiply", x, ctx.const(np.zeros((), x.element_type.numpy_dtype))),
                   axis=rank - 1)
    return ctx.op("IDFT" if inverse else "DFT", x, axes, *extra)


@translator("DFT", since=17)
def dft_v17(ctx: NodeContext) -> Output:
    return _dft(ctx, int(ctx.attr("axis", 1)), ctx.optional(1))


@translator("DFT", since=20)
def dft(ctx: NodeContext) -> Output:
    given = ctx.optional(2)
    known = ctx.folded(2)
    axis: int | Output = -2 if given is None else given if known is None else int(known.reshape(-1)[0])
    return _dft(ctx, axis, ctx.optional(1))


def _window_length(ctx: NodeContext, window: Output | None) -> int:
    given = ctx.folded(3)
    if given is not None:
        return int(given.reshape(-1)[0])
    if ctx.optional(3) is not None:
        ctx.unsupported("a frame_length that is not a constant")
    if window is None or window.partial_shape.rank.is_dynamic or window.partial_shape[0].is_dynamic:
        ctx.unsupported("no frame_length and no window of a known length")
    return int(window.partial_shape[0].get_length())


@translator("STFT", since=17)
def stft(ctx: NodeContext) -> Output:
    """One frame at a time, as OpenVINO's frontend does it: Slice [step*i, step*i+length) of the signal's
    axis 1, times the window, a DFT over axis 1 (RDFT when onesided and real), the frames concatenated
    on a new axis 1: [batch, frames, bins, 2]. Needs a constant frame_step and a static signal length."""
    x, window = ctx.input(0), ctx.optional(2)
    step_value = ctx.folded(1)
    if step_value is None:
        ctx.unsupported("a frame_step that is not a constant")
    step = int(step_value.reshape(-1)[0])
    if rank_of(ctx, x) == 2:  # [batch, length]: a real signal (torch exports it so)
        x = ctx.op("Unsqueeze", x, i64(ctx, [2]))
    if rank_of(ctx, x) != 3 or x.partial_shape[1].is_dynamic or x.partial_shape[2].is_dynamic:
        ctx.unsupported("a signal that is not [batch, length(, 1 or 2)] with a static length")
    signal_length, last = int(x.partial_shape[1].get_length()), int(x.partial_shape[2].get_length())
    length = _window_length(ctx, window)
    if step <= 0 or not 0 < length <= signal_length:
        raise ctx.error(f"frame_step {step} and frame_length {length} do not frame a signal of length "
                        f"{signal_length}")
    real, onesided = last == 1, bool(ctx.attr("onesided", 1))
    if onesided and not real:
        raise ctx.error("onesided=1 needs a real signal (its last dim 1), not a complex one")
    if window is not None:
        window = ctx.op("Reshape", window, i64(ctx, [1, -1, 1]), special_zero=False)
    axis = i64(ctx, [1])
    frames = []
    for start in range(0, signal_length - length + 1, step):
        frame = ctx.op("Slice", x, i64(ctx, [start]), i64(ctx, [start + length]), i64(ctx, [1]), axis)
        if window is not None:
            frame = ctx.op("Multiply", frame, window)
        if real and onesided:
            spectrum = ctx.op("RDFT", ctx.op("Squeeze", frame, i64(ctx, [2])), axis)
        else:
            if real:
                zero = ctx.const(np.zeros((), x.element_type.numpy_dtype))
                frame = ctx.op("Concat", frame, ctx.op("Multiply", frame, zero), axis=2)
            spectrum = ctx.op("DFT", frame, axis)
        frames.append(ctx.op("Unsqueeze", spectrum, axis))
    return frames[0] if len(frames) == 1 else ctx.op("Concat", *frames, axis=1)
