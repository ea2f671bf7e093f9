"""Small graph-building pieces several translator families share."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.registry import translator


def rank_of(ctx: NodeContext, x: Output) -> int:
    """The static rank of ``x`` (an error naming the node when it is dynamic)."""
    rank = x.partial_shape.rank
    if rank.is_dynamic:
        raise ctx.error("an input of dynamic rank is not supported here")
    return int(rank.get_length())


def normalize_axis(ctx: NodeContext, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise ctx.error(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def i64(ctx: NodeContext, values: Any) -> Output:
    return ctx.const(np.asarray(values, dtype=np.int64))


def scalar_like(ctx: NodeContext, value: float, like: Output) -> Output:
    """A scalar Constant of ``like``'s element type."""
    return ctx.const(np.asarray(value, dtype=like.element_type.numpy_dtype))


def to_channel(ctx: NodeContext, vector: Output, rank: int) -> Output:
    """A per-channel vector [C] reshaped to [1, C, 1, ...] for a rank-``rank`` NC... tensor."""
    return ctx.op("Reshape", vector, i64(ctx, [1, -1] + [1] * max(rank - 2, 0)), special_zero=False)


def reduce_axes_input(ctx: NodeContext, x: Output, axes: Output | None) -> Output:
    """Axes to reduce: ``axes`` as given, or every axis of ``x`` (a Range over its rank)."""
    if axes is not None:
        return axes
    rank = x.partial_shape.rank
    if rank.is_static:
        return i64(ctx, list(range(int(rank.get_length()))))
    shape = ctx.op("ShapeOf", x, output_type="i64")
    r = ctx.op("ShapeOf", shape, output_type="i64")
    r0 = ctx.op("Squeeze", r, i64(ctx, [0]))
    return ctx.op("Range", i64(ctx, 0), r0, i64(ctx, 1), output_type="i64")


def ints(values: Sequence[Any]) -> list[int]:
    return [int(v) for v in values]


def split_pads(ctx: NodeContext, pads: Sequence[int], spatial: int) -> tuple[list[int], list[int]]:
    """ONNX pads [b1.., e1..] -> (begin, end) of ``spatial`` axes."""
    if not pads:
        return [0] * spatial, [0] * spatial
    if len(pads) != 2 * spatial:
        raise ctx.error(f"pads {list(pads)} should hold {2 * spatial} values")
    return ints(pads[:spatial]), ints(pads[spatial:])


AUTO_PAD = {"NOTSET": "explicit", "": "explicit", "VALID": "valid", "SAME_UPPER": "same_upper",
            "SAME_LOWER": "same_lower"}


def auto_pad(ctx: NodeContext) -> str:
    mode = str(ctx.attr("auto_pad", "NOTSET"))
    if mode not in AUTO_PAD:
        raise ctx.error(f"auto_pad '{mode}' is not one of {', '.join(k for k in AUTO_PAD if k)}")
    return AUTO_PAD[mode]


def unary(onnx_name: str, ov_name: str, since: int = 1) -> None:
    """Register ``onnx_name`` as the one-input OpenVINO op ``ov_name``."""
    def translate(ctx: NodeContext) -> Output:
        return ctx.op(ov_name, ctx.input(0))

    translate.__name__ = f"translate_{onnx_name.lower()}"
    translator(onnx_name, since=since)(translate)


def flat_shape(ctx: NodeContext, x: Output, axis: int) -> Output:
    """The 2-D shape [prod(dims[:axis]), prod(dims[axis:])] of ``x`` (Flatten; opset<13 softmaxes)."""
    dims = list(x.partial_shape)
    head, tail = dims[:axis], dims[axis:]

    def product(part: list[Any]) -> int:
        return int(np.prod([int(d.get_length()) for d in part], dtype=np.int64))

    if all(d.is_static for d in head):
        return i64(ctx, [product(head), -1 if any(d.is_dynamic for d in tail) else product(tail)])
    if all(d.is_static for d in tail):
        return i64(ctx, [-1, product(tail)])
    shape = ctx.op("ShapeOf", x, output_type="i64")
    first = ctx.op("ReduceProd", ctx.op("Slice", shape, i64(ctx, [0]), i64(ctx, [axis]), i64(ctx, [1])),
                   i64(ctx, [0]), keep_dims=True)
    return ctx.op("Concat", first, i64(ctx, [-1]), axis=0)
