"""Gathering, scattering, slicing and selecting: Gather*, Scatter*, Slice, Where, NonZero, Compress,
TopK, OneHot, Trilu, CumSum, ReverseSequence, Einsum."""
from __future__ import annotations

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import i64
from graphir.serializers.onnx.registry import translator


@translator("Gather")
def gather(ctx: NodeContext) -> Output:
    return ctx.op("Gather", ctx.input(0), ctx.input(1), i64(ctx, int(ctx.attr("axis", 0))))


@translator("GatherElements")
def gather_elements(ctx: NodeContext) -> Output:
    return ctx.op("GatherElements", ctx.input(0), ctx.input(1), axis=int(ctx.attr("axis", 0)))


@translator("GatherND")
def gather_nd(ctx: NodeContext) -> Output:
    return ctx.op("GatherND", ctx.input(0), ctx.input(1), batch_dims=int(ctx.attr("batch_dims", 0)))


_SCATTER_REDUCTIONS = {"none": "none", "add": "sum", "mul": "prod", "max": "max", "min": "min"}


def _reduction(ctx: NodeContext) -> str:
    reduction = str(ctx.attr("reduction", "none"))
    if reduction not in _SCATTER_REDUCTIONS:
        ctx.unsupported(f"reduction '{reduction}'")
    return _SCATTER_REDUCTIONS[reduction]


@translator(["ScatterElements", "Scatter"])
def scatter_elements(ctx: NodeContext) -> Output:
    return ctx.op("ScatterElementsUpdate", ctx.input(0), ctx.input(1), ctx.input(2),
                  i64(ctx, int(ctx.attr("axis", 0))), reduction=_reduction(ctx), use_init_val=True)


@translator("ScatterND")
def scatter_nd(ctx: NodeContext) -> Output:
    return ctx.op("ScatterNDUpdate", ctx.input(0), ctx.input(1), ctx.input(2), reduction=_reduction(ctx))


def _as_i64(ctx: NodeContext, x: Output) -> Output:
    return x if x.element_type.name == "i64" else ctx.op("Convert", x, destination_type="i64")


@translator("Slice")
def slice_v1(ctx: NodeContext) -> Output:
    starts = ctx.attr("starts")
    ends = ctx.attr("ends")
    axes = ctx.attr("axes", list(range(len(starts))))
    return ctx.op("Slice", ctx.input(0), i64(ctx, starts), i64(ctx, ends), i64(ctx, [1] * len(starts)),
                  i64(ctx, axes))


@translator("Slice", since=10)
def slice_(ctx: NodeContext) -> Output:
    starts, ends = _as_i64(ctx, ctx.input(1)), _as_i64(ctx, ctx.input(2))
    steps = ctx.optional(4)
    if steps is None:
        steps = ctx.op("Broadcast", i64(ctx, 1), ctx.op("ShapeOf", starts, output_type="i64"))
    axes = ctx.optional(3)
    if axes is None:
        return ctx.op("Slice", ctx.input(0), starts, ends, _as_i64(ctx, steps))
    return ctx.op("Slice", ctx.input(0), starts, ends, _as_i64(ctx, steps), _as_i64(ctx, axes))


@translator("Where")
def where(ctx: NodeContext) -> Output:
    return ctx.op("Select", ctx.input(0), ctx.input(1), ctx.input(2), auto_broadcast="numpy")


@translator("NonZero")
def non_zero(ctx: NodeContext) -> Output:
    return ctx.op("NonZero", ctx.input(0), output_type="i64")


@translator("Compress")
def compress(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    axis = ctx.attr("axis", None)
    if axis is None:
        x = ctx.op("Reshape", x, i64(ctx, [-1]), special_zero=False)
        axis = 0
    found = ctx.op("NonZero", ctx.input(1), output_type="i64")
    indices = ctx.op("Squeeze", found, i64(ctx, [0]))
    return ctx.op("Gather", x, indices, i64(ctx, int(axis)))


def _top_k(ctx: NodeContext, k: Output) -> list[Output]:
    x = ctx.input(0)
    largest = int(ctx.attr("largest", 1))
    sort = "value" if int(ctx.attr("sorted", 1)) else "none"
    return ctx.ops("TopK", x, k, axis=int(ctx.attr("axis", -1)), mode="max" if largest else "min", sort=sort,
                   index_element_type="i64", stable=sort != "none")


@translator("TopK")
def top_k_v1(ctx: NodeContext) -> list[Output]:
    return _top_k(ctx, i64(ctx, int(ctx.attr("k"))))


@translator("TopK", since=10)
def top_k(ctx: NodeContext) -> list[Output]:
    k = ctx.input(1)
    if k.partial_shape.rank.is_static and k.partial_shape.rank.get_length() == 1:
        k = ctx.op("Squeeze", k, i64(ctx, [0]))
    return _top_k(ctx, k)


@translator("OneHot")
def one_hot(ctx: NodeContext) -> Output:
    indices, depth, values = ctx.input(0), ctx.input(1), ctx.input(2)
    if depth.partial_shape.rank.is_static and depth.partial_shape.rank.get_length() == 1:
        depth = ctx.op("Squeeze", depth, i64(ctx, [0]))
    if depth.element_type.name != "i64":
        depth = ctx.op("Convert", depth, destination_type="i64")
    indices = ctx.op("Convert", indices, destination_type="i64")
    off, on = ctx.ops("Split", values, i64(ctx, 0), num_splits=2)
    off = ctx.op("Squeeze", off, i64(ctx, [0]))
    on = ctx.op("Squeeze", on, i64(ctx, [0]))
    return ctx.op("OneHot", indices, depth, on, off, axis=int(ctx.attr("axis", -1)),
                  negative_indices_mode="normalize")


@translator("Trilu")
def trilu(ctx: NodeContext) -> Output:
    """Keep the elements on and above (upper) or below (lower) diagonal k: a mask from two Ranges."""
    x = ctx.input(0)
    k = ctx.optional(1)
    k = i64(ctx, 0) if k is None else ctx.op("Convert", k, destination_type="i64")
    shape = ctx.op("ShapeOf", x, output_type="i64")
    rows = ctx.op("Gather", shape, i64(ctx, -2), i64(ctx, 0))
    cols = ctx.op("Gather", shape, i64(ctx, -1), i64(ctx, 0))
    row = ctx.op("Unsqueeze", ctx.op("Range", i64(ctx, 0), rows, i64(ctx, 1), output_type="i64"), i64(ctx, [1]))
    col = ctx.op("Range", i64(ctx, 0), cols, i64(ctx, 1), output_type="i64")
    diag = ctx.op("Subtract", col, ctx.op("Add", row, k))
    upper = bool(ctx.attr("upper", 1))
    mask = ctx.op("GreaterEqual" if upper else "LessEqual", diag, i64(ctx, 0))
    zero = ctx.const(np.zeros((), dtype=x.element_type.numpy_dtype))
    return ctx.op("Select", mask, x, zero)


@translator("CumSum")
def cum_sum(ctx: NodeContext) -> Output:
    return ctx.op("CumSum", ctx.input(0), ctx.input(1), exclusive=bool(ctx.attr("exclusive", 0)),
                  reverse=bool(ctx.attr("reverse", 0)))


@translator("ReverseSequence")
def reverse_sequence(ctx: NodeContext) -> Output:
    return ctx.op("ReverseSequence", ctx.input(0), ctx.input(1), batch_axis=int(ctx.attr("batch_axis", 1)),
                  seq_axis=int(ctx.attr("time_axis", 0)))


@translator("Einsum")
def einsum(ctx: NodeContext) -> Output:
    given = [x for x in ctx.inputs if x is not None]
    return ctx.op("Einsum", *given, equation=str(ctx.attr("equation")).replace(" ", ""))


