"""Image and detection ops: GridSample, RoiAlign, NonMaxSuppression, Col2Im; and Hardmax,
LpNormalization, Unique."""
from __future__ import annotations

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import flat_shape, i64, ints, normalize_axis, rank_of, scalar_like, split_pads
from graphir.serializers.onnx.registry import translator

_GRID_MODES = {"bilinear": "bilinear", "linear": "bilinear", "bicubic": "bicubic", "cubic": "bicubic",
               "nearest": "nearest"}


@translator("GridSample", since=16)
def grid_sample(ctx: NodeContext) -> Output:
    mode = str(ctx.attr("mode", "linear" if ctx.version >= 20 else "bilinear"))
    padding = str(ctx.attr("padding_mode", "zeros"))
    if mode not in _GRID_MODES:
        ctx.unsupported(f"mode '{mode}'")
    if padding not in ("zeros", "border", "reflection"):
        ctx.unsupported(f"padding_mode '{padding}'")
    if rank_of(ctx, ctx.input(0)) != 4:
        ctx.unsupported("a GridSample that is not 2-D (rank-4 input)")
    return ctx.op("GridSample", ctx.input(0), ctx.input(1), align_corners=bool(ctx.attr("align_corners", 0)),
                  mode=_GRID_MODES[mode], padding_mode=padding)


@translator("RoiAlign", since=10)
def roi_align(ctx: NodeContext) -> Output:
    transform = str(ctx.attr("coordinate_transformation_mode", "half_pixel" if ctx.version >= 16 else "output_half_pixel"))
    aligned = {"half_pixel": "half_pixel_for_nn", "output_half_pixel": "asymmetric"}.get(transform)
    if aligned is None:
        ctx.unsupported(f"coordinate_transformation_mode '{transform}'")
    return ctx.op("ROIAlign", ctx.input(0), ctx.input(1), ctx.input(2),
                  pooled_h=int(ctx.attr("output_height", 1)), pooled_w=int(ctx.attr("output_width", 1)),
                  sampling_ratio=int(ctx.attr("sampling_ratio", 0)),
                  spatial_scale=float(ctx.attr("spatial_scale", 1.0)), mode=str(ctx.attr("mode", "avg")),
                  aligned_mode=aligned)


def _scalar(ctx: NodeContext, x: Output | None, default: float, dtype: str) -> Output:
    if x is None:
        return ctx.const(np.asarray(default, dtype=dtype))
    if x.partial_shape.rank.is_static and x.partial_shape.rank.get_length() == 1:
        return ctx.op("Squeeze", x, i64(ctx, [0]))
    return x


@translator("NonMaxSuppression", since=10)
def non_max_suppression(ctx: NodeContext) -> Output:
    boxes, scores = ctx.input(0), ctx.input(1)
    max_boxes = _scalar(ctx, ctx.optional(2), 0, "int64")
    iou = _scalar(ctx, ctx.optional(3), 0.0, "float32")
    score = _scalar(ctx, ctx.optional(4), 0.0, "float32")
    selected = ctx.ops("NonMaxSuppression", boxes, scores, max_boxes, iou, score,
                       box_encoding="center" if int(ctx.attr("center_point_box", 0)) else "corner",
                       sort_result_descending=False, output_type="i64")
    return selected[0]


@translator("Col2Im", since=18)
def col2im(ctx: NodeContext) -> Output:
    spatial = 2
    image = ctx.input(1).partial_shape
    if image.rank.is_static and image.rank.get_length() == 1 and image[0].is_static and image[0].get_length() != 2:
        ctx.unsupported(f"a Col2Im of {image[0].get_length()} spatial dims (OpenVINO's Col2Im is 2-D)")
    begin, end = split_pads(ctx, ctx.attr("pads", []), spatial)
    return ctx.op("Col2Im", ctx.input(0), ctx.input(1), ctx.input(2),
                  strides=ints(ctx.attr("strides", [1] * spatial)), dilations=ints(ctx.attr("dilations", [1] * spatial)),
                  pads_begin=begin, pads_end=end)


def _hardmax_2d(ctx: NodeContext, x: Output, axis: int) -> Output:
    _, index = ctx.ops("TopK", x, i64(ctx, 1), axis=axis, mode="max", sort="value", index_element_type="i64",
                       stable=True)
    index = ctx.op("Squeeze", index, i64(ctx, [axis]))
    depth = ctx.op("Gather", ctx.op("ShapeOf", x, output_type="i64"), i64(ctx, axis), i64(ctx, 0))
    return ctx.op("OneHot", index, depth, scalar_like(ctx, 1, x), scalar_like(ctx, 0, x), axis=axis)


@translator("Hardmax")
def hardmax_v1(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    rank = rank_of(ctx, x)
    axis = normalize_axis(ctx, int(ctx.attr("axis", 1)), rank)
    flat = ctx.op("Reshape", x, flat_shape(ctx, x, axis), special_zero=False)
    out = _hardmax_2d(ctx, flat, 1)
    return ctx.op("Reshape", out, ctx.op("ShapeOf", x, output_type="i64"), special_zero=False)


@translator("Hardmax", since=13)
def hardmax(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    return _hardmax_2d(ctx, x, normalize_axis(ctx, int(ctx.attr("axis", -1)), rank_of(ctx, x)))


@translator("LpNormalization")
def lp_normalization(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    p = int(ctx.attr("p", 2))
    if p not in (1, 2):
        ctx.unsupported(f"p={p}")
    axes = i64(ctx, [int(ctx.attr("axis", -1))])
    norm = ctx.op("ReduceL1" if p == 1 else "ReduceL2", x, axes, keep_dims=True)
    zero = scalar_like(ctx, 0, x)
    is_zero = ctx.op("Equal", norm, zero)
    safe = ctx.op("Select", is_zero, scalar_like(ctx, 1, x), norm)
    return ctx.op("Select", is_zero, zero, ctx.op("Divide", x, safe))


@translator("Unique", since=11)
def unique(ctx: NodeContext) -> list[Output | None]:
    x = ctx.input(0)
    axis = ctx.attr("axis", None)
    sorted_ = bool(ctx.attr("sorted", 1))
    if axis is None:
        outs = ctx.ops("Unique", x, sorted=sorted_, index_element_type="i64", count_element_type="i64")
    else:
        outs = ctx.ops("Unique", x, i64(ctx, [int(axis)]), sorted=sorted_, index_element_type="i64",
                       count_element_type="i64")
    return list(outs)
