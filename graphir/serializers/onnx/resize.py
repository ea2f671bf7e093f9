"""Resize and Upsample -> Interpolate (opset 11)."""
from __future__ import annotations

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import i64, normalize_axis, rank_of
from graphir.serializers.onnx.registry import translator

_MODES = {"nearest": "nearest", "linear": "linear_onnx", "cubic": "cubic"}
_TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn")
_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _attrs(ctx: NodeContext) -> dict[str, object]:
    mode = str(ctx.attr("mode", "nearest"))
    transform = str(ctx.attr("coordinate_transformation_mode", "half_pixel"))
    nearest = str(ctx.attr("nearest_mode", "round_prefer_floor"))
    if mode not in _MODES:
        ctx.unsupported(f"mode '{mode}'")
    if transform not in _TRANSFORMS:
        ctx.unsupported(f"coordinate_transformation_mode '{transform}'")
    if nearest not in _NEAREST:
        ctx.unsupported(f"nearest_mode '{nearest}'")
    if int(ctx.attr("exclude_outside", 0)):
        ctx.unsupported("exclude_outside=1")
    if str(ctx.attr("keep_aspect_ratio_policy", "stretch")) != "stretch":
        ctx.unsupported(f"keep_aspect_ratio_policy '{ctx.attr('keep_aspect_ratio_policy')}'")
    return {"mode": _MODES[mode], "coordinate_transformation_mode": transform, "nearest_mode": nearest,
            "antialias": bool(ctx.attr("antialias", 0)), "cube_coeff": float(ctx.attr("cubic_coeff_a", -0.75)),
            "pads_begin": [0], "pads_end": [0]}


@translator("Resize", since=11)
def resize(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    attrs = _attrs(ctx)
    sizes = ctx.optional(3)
    if sizes is not None:
        target, attrs["shape_calculation_mode"] = sizes, "sizes"
    else:
        target, attrs["shape_calculation_mode"] = ctx.input(2), "scales"
    axes = ctx.attr("axes", None)
    if not axes:
        return ctx.op("Interpolate", x, target, **attrs)
    rank = rank_of(ctx, x)
    return ctx.op("Interpolate", x, target, i64(ctx, [normalize_axis(ctx, int(a), rank) for a in axes]), **attrs)


def _legacy(ctx: NodeContext, scales: Output) -> Output:
    attrs = _attrs(ctx)
    attrs["shape_calculation_mode"] = "scales"
    attrs["coordinate_transformation_mode"] = "asymmetric"
    if attrs["mode"] == "nearest":
        attrs["nearest_mode"] = "simple"
    return ctx.op("Interpolate", ctx.input(0), scales, **attrs)


@translator("Resize", since=10, until=11)
def resize_v10(ctx: NodeContext) -> Output:
    return _legacy(ctx, ctx.input(1))


@translator("Upsample", since=7)
def upsample(ctx: NodeContext) -> Output:
    if ctx.version >= 9:
        return _legacy(ctx, ctx.input(1))
    scales = ctx.attr("scales")
    return _legacy(ctx, ctx.const([float(s) for s in scales], "f32"))
