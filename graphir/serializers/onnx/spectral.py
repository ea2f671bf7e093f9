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
