"""Convolutions, pooling and normalizations."""
from __future__ import annotations

import math

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import auto_pad, i64, ints, rank_of, scalar_like, split_pads, to_channel
from graphir.serializers.onnx.registry import translator


def _grouped_filters(ctx: NodeContext, w: Output, group: int) -> Output:
    """Filters [O, I/g, k...] -> [g, O/g, I/g, k...] (ConvTranspose: [I, O/g, k...] -> [g, I/g, O/g, k...])."""
    ps = w.partial_shape
    if ps.is_static:
        dims = [int(d.get_length()) for d in ps]
        if dims[0] % group:
            raise ctx.error(f"the filters' first dimension {dims[0]} is not divisible by group {group}")
        return ctx.op("Reshape", w, i64(ctx, [group, dims[0] // group, *dims[1:]]), special_zero=False)
    rank = rank_of(ctx, w)
    tail = ctx.op("Slice", ctx.op("ShapeOf", w, output_type="i64"), i64(ctx, [1]), i64(ctx, [rank]), i64(ctx, [1]))
    return ctx.op("Reshape", w, ctx.op("Concat", i64(ctx, [group, -1]), tail, axis=0), special_zero=False)


def _window(ctx: NodeContext, spatial: int) -> dict[str, list[int]]:
    pads_begin, pads_end = split_pads(ctx, ctx.attr("pads", []), spatial)
    return {
        "strides": ints(ctx.attr("strides", [1] * spatial)),
        "dilations": ints(ctx.attr("dilations", [1] * spatial)),
        "pads_begin": pads_begin,
        "pads_end": pads_end,
    }


def _add_bias(ctx: NodeContext, out: Output, bias: Output | None, rank: int) -> Output:
    if bias is None:
        return out
    return ctx.op("Add", out, to_channel(ctx, bias, rank))


@translator("Conv")
def conv(ctx: NodeContext) -> Output:
    return conv_attributes(ctx, ctx.input(0), ctx.input(1), ctx.optional(2))


def conv_attributes(ctx: NodeContext, x: Output, w: Output, bias: Output | None) -> Output:
    """Convolution or GroupConvolution of ``x`` by ``w`` with the node's window attributes, + bias."""
    rank = rank_of(ctx, w)
    window = _window(ctx, rank - 2)
    pad_mode = auto_pad(ctx)
    if pad_mode != "explicit":
        window["pads_begin"] = window["pads_end"] = [0] * (rank - 2)
    group = int(ctx.attr("group", 1))
    if group == 1:
        out = ctx.op("Convolution", x, w, auto_pad=pad_mode, **window)
    else:
        out = ctx.op("GroupConvolution", x, _grouped_filters(ctx, w, group), auto_pad=pad_mode, **window)
    return _add_bias(ctx, out, bias, rank)


@translator("ConvTranspose")
def conv_transpose(ctx: NodeContext) -> Output:
    """ConvolutionBackpropData (GroupConvolutionBackpropData when grouped); pads from output_shape and
    SAME auto_pad are worked out here as ONNX defines them (the input's spatial dims must be static)."""
    x, w = ctx.input(0), ctx.input(1)
    rank = rank_of(ctx, w)
    spatial = rank - 2
    window = _window(ctx, spatial)
    kernel = ints(ctx.attr("kernel_shape", [])) or [int(d.get_length()) for d in list(w.partial_shape)[2:]]
    out_pad = ints(ctx.attr("output_padding", [0] * spatial))
    output_shape = ints(ctx.attr("output_shape", []))
    pad_mode = auto_pad(ctx)
    if output_shape or pad_mode in ("same_upper", "same_lower"):
        dims = list(x.partial_shape)[2:]
        if any(d.is_dynamic for d in dims):
            raise ctx.error("output_shape or SAME auto_pad needs static spatial input dims")
        size = [int(d.get_length()) for d in dims]
        strides, dil = window["strides"], window["dilations"]
        target = output_shape[-spatial:] if output_shape else [s * st for s, st in zip(size, strides)]
        begin, end = [], []
        for i in range(spatial):  # ONNX's ConvTranspose rule for the pads that give ``target``
            total = strides[i] * (size[i] - 1) + out_pad[i] + ((kernel[i] - 1) * dil[i] + 1) - target[i]
            half = total // 2
            begin.append(half if pad_mode == "same_upper" else total - half)
            end.append(total - half if pad_mode == "same_upper" else half)
        if min(begin + end) < 0:  # a target larger than the full output: the excess as output padding
            out_pad = [p - min(0, b) - min(0, e) for p, b, e in zip(out_pad, begin, end)]
            begin, end = [max(0, b) for b in begin], [max(0, e) for e in end]
        window["pads_begin"], window["pads_end"] = begin, end
        pad_mode = "explicit"
    elif pad_mode == "valid":
        window["pads_begin"] = window["pads_end"] = [0] * spatial
    group = int(ctx.attr("group", 1))
    if group == 1:
        out = ctx.op("ConvolutionBackpropData", x, w, auto_pad=pad_mode, output_padding=out_pad, **window)
    else:
        out = ctx.op("GroupConvolutionBackpropData", x, _grouped_filters(ctx, w, group), auto_pad=pad_mode,
                     output_padding=out_pad, **window)
    return _add_bias(ctx, out, ctx.optional(2), rank)


def _pool_attrs(ctx: NodeContext, x: Output) -> dict[str, object]:
    spatial = rank_of(ctx, x) - 2
    kernel = ints(ctx.attr("kernel_shape"))
    window = _window(ctx, spatial)
    pad_mode = auto_pad(ctx)
    if pad_mode != "explicit":
        window["pads_begin"] = window["pads_end"] = [0] * spatial
    return {"kernel": kernel, "auto_pad": pad_mode,
            "rounding_type": "ceil_torch" if int(ctx.attr("ceil_mode", 0)) else "floor", **window}


@translator("MaxPool")
def max_pool(ctx: NodeContext) -> list[Output | None]:
    x = ctx.input(0)
    values, indices = ctx.ops("MaxPool", x, index_element_type="i64", axis=0, **_pool_attrs(ctx, x))
    if int(ctx.attr("storage_order", 0)) and ctx.output_used(1):
        indices = _column_major(ctx, x, indices)
    return [values, indices]


def _column_major(ctx: NodeContext, x: Output, indices: Output) -> Output:
    """Row-major flat indices into an [N, C, H, W] input made column-major within each H x W plane
    (MaxPool's storage_order=1: w * H + h in place of h * W + w)."""
    dims = list(x.partial_shape)
    if len(dims) != 4 or any(d.is_dynamic for d in dims[2:]):
        ctx.unsupported("storage_order=1 (column-major indices) but for 2-D pooling of static H, W")
    height, width = int(dims[2].get_length()), int(dims[3].get_length())
    plane = i64(ctx, height * width)
    within = ctx.op("FloorMod", indices, plane)
    base = ctx.op("Subtract", indices, within)
    h = ctx.op("Divide", within, i64(ctx, width), m_pythondiv=True)
    w = ctx.op("FloorMod", within, i64(ctx, width))
    return ctx.op("Add", base, ctx.op("Add", ctx.op("Multiply", w, i64(ctx, height)), h))


@translator("AveragePool")
def average_pool(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    attrs = _pool_attrs(ctx, x)
    return ctx.op("AvgPool", x, exclude_pad=not int(ctx.attr("count_include_pad", 0)), **attrs)


def _global(ctx: NodeContext, reduction: str) -> Output:
    x = ctx.input(0)
    rank = rank_of(ctx, x)
    return ctx.op(reduction, x, i64(ctx, list(range(2, rank))), keep_dims=True)


@translator("GlobalAveragePool")
def global_average_pool(ctx: NodeContext) -> Output:
    return _global(ctx, "ReduceMean")


@translator("GlobalMaxPool")
def global_max_pool(ctx: NodeContext) -> Output:
    return _global(ctx, "ReduceMax")


@translator("BatchNormalization")
def batch_norm(ctx: NodeContext) -> list[Output | None]:
    if int(ctx.attr("training_mode", 0)):
        return _batch_norm_training(ctx)
    out = ctx.op("BatchNormInference", ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4),
                 epsilon=float(ctx.attr("epsilon", 1e-5)))
    return [out]


def _batch_norm_training(ctx: NodeContext) -> list[Output | None]:
    """training_mode=1: normalized by the batch's own statistics; the running ones updated with momentum."""
    x, scale, bias, mean_in, var_in = (ctx.input(i) for i in range(5))
    rank = rank_of(ctx, x)
    axes = i64(ctx, [0, *range(2, rank)])
    mean = ctx.op("ReduceMean", x, axes, keep_dims=True)
    centred = ctx.op("Subtract", x, mean)
    var = ctx.op("ReduceMean", ctx.op("Multiply", centred, centred), axes, keep_dims=True)
    eps = scalar_like(ctx, float(ctx.attr("epsilon", 1e-5)), x)
    normed = ctx.op("Divide", centred, ctx.op("Sqrt", ctx.op("Add", var, eps)))
    y = ctx.op("Add", ctx.op("Multiply", normed, to_channel(ctx, scale, rank)), to_channel(ctx, bias, rank))
    momentum = float(ctx.attr("momentum", 0.9))
    flat = i64(ctx, [-1])

    def running(old: Output, batch: Output) -> Output:
        kept = ctx.op("Multiply", old, scalar_like(ctx, momentum, old))
        new = ctx.op("Reshape", batch, flat, special_zero=False)
        return ctx.op("Add", kept, ctx.op("Multiply", new, scalar_like(ctx, 1.0 - momentum, old)))

    return [y, running(mean_in, mean), running(var_in, var)]


@translator("InstanceNormalization")
def instance_norm(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    rank = rank_of(ctx, x)
    normed = ctx.op("MVN", x, i64(ctx, list(range(2, rank))), normalize_variance=True,
                    eps=float(ctx.attr("epsilon", 1e-5)), eps_mode="inside_sqrt")
    scaled = ctx.op("Multiply", normed, to_channel(ctx, ctx.input(1), rank))
    return ctx.op("Add", scaled, to_channel(ctx, ctx.input(2), rank))


@translator("LayerNormalization", since=17)
def layer_norm(ctx: NodeContext) -> list[Output | None]:
    x = ctx.input(0)
    rank = rank_of(ctx, x)
    axis = int(ctx.attr("axis", -1))
    axis = axis + rank if axis < 0 else axis
    axes = i64(ctx, list(range(axis, rank)))
    eps = float(ctx.attr("epsilon", 1e-5))
    out = ctx.op("MVN", x, axes, normalize_variance=True, eps=eps, eps_mode="inside_sqrt")
    out = ctx.op("Multiply", out, ctx.input(1))
    if ctx.has_input(2):
        out = ctx.op("Add", out, ctx.input(2))
    result: list[Output | None] = [out]
    if ctx.output_used(1) or ctx.output_used(2):
        stash = "f32" if int(ctx.attr("stash_type", 1)) == 1 else x.element_type
        wide = ctx.op("Convert", x, destination_type=stash)
        mean = ctx.op("ReduceMean", wide, axes, keep_dims=True)
        centred = ctx.op("Subtract", wide, mean)
        var = ctx.op("ReduceMean", ctx.op("Multiply", centred, centred), axes, keep_dims=True)
        inv = ctx.op("Divide", scalar_like(ctx, 1.0, var),
                     ctx.op("Sqrt", ctx.op("Add", var, scalar_like(ctx, eps, var))))
        result += [mean, inv]
    return result


@translator("LRN")
def lrn(ctx: NodeContext) -> Output:
    return ctx.op("LRN", ctx.input(0), i64(ctx, [1]), alpha=float(ctx.attr("alpha", 1e-4)),
                  beta=float(ctx.attr("beta", 0.75)), bias=float(ctx.attr("bias", 1.0)), size=int(ctx.attr("size")))


@translator("Dropout")
def dropout(ctx: NodeContext) -> list[Output | None]:
    x = ctx.input(0)
    training = ctx.folded(2)
    if training is not None and bool(np.asarray(training).reshape(-1)[0]):
        ratio = ctx.folded(1)
        if ratio is None or float(np.asarray(ratio).reshape(-1)[0]) != 0.0:
            ctx.unsupported("Dropout in training mode")
    elif ctx.has_input(2) and training is None:
        ctx.unsupported("Dropout with a training_mode computed at run time")
    outs: list[Output | None] = [x]
    if ctx.output_used(1):
        outs.append(ctx.op("Broadcast", ctx.const(np.asarray(True)), ctx.op("ShapeOf", x, output_type="i64")))
    return outs


def _lp(ctx: NodeContext, x: Output) -> tuple[int, Output]:
    p = int(ctx.attr("p", 2))
    return p, ctx.op("Power", ctx.op("Abs", x), scalar_like(ctx, p, x))


@translator("LpPool")
def lp_pool(ctx: NodeContext) -> Output:
    """(sum over the window of |x|^p)^(1/p): an AvgPool counting the pads, times the window size."""
    x = ctx.input(0)
    p, powered = _lp(ctx, x)
    attrs = _pool_attrs(ctx, x)
    pooled = ctx.op("AvgPool", powered, exclude_pad=False, **attrs)
    window = math.prod(ints(ctx.attr("kernel_shape")))
    summed = ctx.op("Multiply", pooled, scalar_like(ctx, float(window), x))
    return ctx.op("Power", summed, scalar_like(ctx, 1.0 / p, x))


@translator("GlobalLpPool")
def global_lp_pool(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    p, powered = _lp(ctx, x)
    summed = ctx.op("ReduceSum", powered, i64(ctx, list(range(2, rank_of(ctx, x)))), keep_dims=True)
    return ctx.op("Power", summed, scalar_like(ctx, 1.0 / p, x))
