"""Shape and layout ops: Reshape, Flatten, Transpose, Squeeze/Unsqueeze, Concat, Split, Shape, Size,
Expand, Tile, Pad, DepthToSpace/SpaceToDepth, Identity."""
from __future__ import annotations

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import flat_shape, i64, normalize_axis, rank_of
from graphir.serializers.onnx.registry import translator


@translator("Identity")
def identity(ctx: NodeContext) -> Output:
    return ctx.input(0)


@translator("Reshape")
def reshape_v1(ctx: NodeContext) -> Output:
    return ctx.op("Reshape", ctx.input(0), i64(ctx, ctx.attr("shape", [])), special_zero=True)


@translator("Reshape", since=5)
def reshape(ctx: NodeContext) -> Output:
    return ctx.op("Reshape", ctx.input(0), ctx.input(1), special_zero=not int(ctx.attr("allowzero", 0)))


@translator("Flatten")
def flatten(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    rank = rank_of(ctx, x)
    axis = int(ctx.attr("axis", 1))
    axis = axis + rank if axis < 0 else axis
    target = i64(ctx, [1, -1]) if axis == 0 else flat_shape(ctx, x, axis)
    return ctx.op("Reshape", x, target, special_zero=False)


@translator("Transpose")
def transpose(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    perm = ctx.attr("perm", None)
    if perm is None:
        perm = list(range(rank_of(ctx, x)))[::-1]
    return ctx.op("Transpose", x, i64(ctx, perm))


def _axes_of(ctx: NodeContext, since: int) -> Output | None:
    if ctx.version >= since:
        return ctx.optional(1)
    axes = ctx.attr("axes", None)
    return None if axes is None else i64(ctx, axes)


@translator("Squeeze")
def squeeze(ctx: NodeContext) -> Output:
    axes = _axes_of(ctx, 13)
    if axes is None:
        return ctx.op("Squeeze", ctx.input(0))
    return ctx.op("Squeeze", ctx.input(0), axes)


@translator("Unsqueeze")
def unsqueeze(ctx: NodeContext) -> Output:
    axes = _axes_of(ctx, 13)
    if axes is None:
        raise ctx.error("axes are required")
    return ctx.op("Unsqueeze", ctx.input(0), axes)


@translator("Concat")
def concat(ctx: NodeContext) -> Output:
    given = [x for x in ctx.inputs if x is not None]
    return ctx.op("Concat", *given, axis=int(ctx.attr("axis", 0)))


@translator("Split")
def split(ctx: NodeContext) -> list[Output]:
    x = ctx.input(0)
    axis = int(ctx.attr("axis", 0))
    count = ctx.num_outputs
    lengths: Output | None
    if ctx.version >= 13:
        lengths = ctx.optional(1)
    else:
        given = ctx.attr("split", None) if ctx.version >= 2 else ctx.attr("split", None)
        lengths = None if not given else i64(ctx, given)
        if lengths is None and ctx.version < 2 and ctx.has_input(1):
            lengths = ctx.input(1)
    if lengths is not None:
        return ctx.ops("VariadicSplit", x, i64(ctx, axis), lengths)
    if ctx.version >= 18:
        count = int(ctx.attr("num_outputs", count))
    dim = x.partial_shape[normalize_axis(ctx, axis, rank_of(ctx, x))] if x.partial_shape.rank.is_static else None
    if dim is not None and dim.is_static and int(dim.get_length()) % count:
        # opset 18: the last chunk is smaller when the dim does not divide evenly
        size = int(dim.get_length())
        chunk = -(-size // count)
        sizes = [chunk] * (size // chunk) + ([size % chunk] if size % chunk else [])
        return ctx.ops("VariadicSplit", x, i64(ctx, axis), i64(ctx, sizes))
    return ctx.ops("Split", x, i64(ctx, axis), num_splits=count)


@translator("Shape")
def shape(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    out = ctx.op("ShapeOf", x, output_type="i64")
    start, end = ctx.attr("start", None), ctx.attr("end", None)
    if ctx.version < 15 or (start in (None, 0) and end is None):
        return out
    big = np.iinfo(np.int64).max
    return ctx.op("Slice", out, i64(ctx, [int(start or 0)]), i64(ctx, [big if end is None else int(end)]),
                  i64(ctx, [1]))


@translator("Size")
def size(ctx: NodeContext) -> Output:
    return ctx.op("ReduceProd", ctx.op("ShapeOf", ctx.input(0), output_type="i64"), i64(ctx, 0), keep_dims=False)


@translator("Expand")
def expand(ctx: NodeContext) -> Output:
    return ctx.op("Broadcast", ctx.input(0), ctx.input(1), mode="bidirectional")


@translator("Tile")
def tile(ctx: NodeContext) -> Output:
    return ctx.op("Tile", ctx.input(0), ctx.input(1))


_PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect"}


def _pad(ctx: NodeContext, x: Output, pads: Output, value: Output | None, axes: Output | None) -> Output:
    mode = str(ctx.attr("mode", "constant"))
    if mode not in _PAD_MODES:
        ctx.unsupported(f"mode '{mode}'")
    known = ctx.value(1) if ctx.version >= 11 else None
    if axes is not None:
        rank = rank_of(ctx, x)
        axes_value = ctx.folded(3)
        if axes_value is not None and known is not None:
            listed = [normalize_axis(ctx, int(a), rank) for a in np.asarray(axes_value).reshape(-1)]
            flat = np.asarray(known, dtype=np.int64).reshape(-1)
            full = np.zeros(2 * rank, dtype=np.int64)
            for k, a in enumerate(listed):
                full[a], full[rank + a] = flat[k], flat[len(listed) + k]
            known = full
        else:  # pads or axes given at run time: each half scattered into zeros at the (normalized) axes
            where = ctx.op("Convert", axes, destination_type="i64")
            where = ctx.op("Select", ctx.op("Less", where, i64(ctx, 0)), ctx.op("Add", where, i64(ctx, rank)), where)
            halves = ctx.ops("Split", ctx.op("Convert", pads, destination_type="i64"), i64(ctx, 0), num_splits=2)
            zeros = i64(ctx, [0] * rank)
            begin, end = (ctx.op("ScatterUpdate", zeros, where, h, i64(ctx, 0)) for h in halves)
            return _padded(ctx, x, begin, end, value, mode)
    if known is not None:
        flat = np.asarray(known, dtype=np.int64).reshape(-1)
        half = len(flat) // 2
        begin, end = i64(ctx, flat[:half]), i64(ctx, flat[half:])
    else:
        pads = ctx.op("Convert", pads, destination_type="i64")
        begin, end = ctx.ops("Split", pads, i64(ctx, 0), num_splits=2)
    return _padded(ctx, x, begin, end, value, mode)


def _padded(ctx: NodeContext, x: Output, begin: Output, end: Output, value: Output | None, mode: str) -> Output:
    if value is None or mode != "constant":
        return ctx.op("Pad", x, begin, end, pad_mode=_PAD_MODES[mode])
    return ctx.op("Pad", x, begin, end, value, pad_mode="constant")


@translator("Pad")
def pad_v1(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    pads = i64(ctx, ctx.attr("pads" if ctx.version >= 2 else "paddings"))
    value = ctx.const(np.asarray(float(ctx.attr("value", 0.0)), dtype=x.element_type.numpy_dtype))
    return _pad(ctx, x, pads, value, None)


@translator("Pad", since=11)
def pad(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    value = ctx.optional(2)
    if value is not None and value.partial_shape.rank.is_static and value.partial_shape.rank.get_length() == 1:
        value = ctx.op("Squeeze", value, i64(ctx, [0]))
    return _pad(ctx, x, ctx.input(1), value, ctx.optional(3))


def _blocks(ctx: NodeContext, ov_name: str) -> Output:
    mode = str(ctx.attr("mode", "DCR"))
    if mode not in ("DCR", "CRD"):
        raise ctx.error(f"mode '{mode}' is neither DCR nor CRD")
    return ctx.op(ov_name, ctx.input(0), mode="blocks_first" if mode == "DCR" else "depth_first",
                  block_size=int(ctx.attr("blocksize")))


@translator("DepthToSpace")
def depth_to_space(ctx: NodeContext) -> Output:
    return _blocks(ctx, "DepthToSpace")


@translator("SpaceToDepth")
def space_to_depth(ctx: NodeContext) -> Output:
    return _blocks(ctx, "SpaceToDepth")
