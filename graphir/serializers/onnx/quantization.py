"""QuantizeLinear / DequantizeLinear and the integer MatMul/Conv (plain arithmetic on converted values)."""
from __future__ import annotations

from typing import Any

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import i64, normalize_axis, rank_of
from graphir.serializers.onnx.registry import translator
from graphir.serializers.onnx.tensors import element_type


def _along_axis(ctx: NodeContext, param: Output, x: Output) -> Output:
    """A per-axis scale/zero point [C] reshaped to broadcast along ``axis`` of ``x``; a blocked one
    (``block_size`` B: x's shape but ceil(D / B) along the axis) repeated B times along it."""
    block = int(ctx.attr("block_size", 0))
    if block:
        rank = rank_of(ctx, x)
        axis = normalize_axis(ctx, int(ctx.attr("axis", 1)), rank)
        length = ctx.op("Gather", ctx.op("ShapeOf", x, output_type="i64"), i64(ctx, axis), i64(ctx, 0))
        positions = ctx.op("Range", i64(ctx, 0), length, i64(ctx, 1), output_type="i64")
        blocks = ctx.op("Divide", positions, i64(ctx, block), m_pythondiv=True)
        return ctx.op("Gather", param, blocks, i64(ctx, axis))
    ps = param.partial_shape
    if ps.rank.is_dynamic or ps.rank.get_length() != 1 or x.partial_shape.rank.is_dynamic:
        return param
    rank = rank_of(ctx, x)
    if rank <= 1:
        return param
    axis = normalize_axis(ctx, int(ctx.attr("axis", 1)), rank)
    shape = [1] * rank
    shape[axis] = -1
    return ctx.op("Reshape", param, i64(ctx, shape), special_zero=False)


@translator("DequantizeLinear")
def dequantize_linear(ctx: NodeContext) -> Output:
    x, scale = ctx.input(0), ctx.input(1)
    out_type = scale.element_type
    if ctx.has_attr("output_dtype") and int(ctx.attr("output_dtype")):
        out_type = element_type(int(ctx.attr("output_dtype")), ctx.describe())
    value = ctx.op("Convert", x, destination_type="f32")
    zero = ctx.optional(2)
    if zero is not None:
        value = ctx.op("Subtract", value, _along_axis(ctx, ctx.op("Convert", zero, destination_type="f32"), x))
    scale_f32 = ctx.op("Convert", scale, destination_type="f32") if scale.element_type.name != "f32" else scale
    out = ctx.op("Multiply", value, _along_axis(ctx, scale_f32, x))
    return out if out_type.name == "f32" else ctx.op("Convert", out, destination_type=out_type)


@translator("QuantizeLinear")
def quantize_linear(ctx: NodeContext) -> Output:
    x, scale = ctx.input(0), ctx.input(1)
    zero = ctx.optional(2)
    if zero is not None:
        target = zero.element_type
    elif ctx.has_attr("output_dtype") and int(ctx.attr("output_dtype")):
        target = element_type(int(ctx.attr("output_dtype")), ctx.describe())
    else:
        target = element_type(2, ctx.describe())  # uint8
    wide = ctx.op("Convert", x, destination_type="f32")
    scaled = ctx.op("Divide", wide, _along_axis(ctx, ctx.op("Convert", scale, destination_type="f32"), x))
    dtype = np.dtype(target.numpy_dtype)
    if dtype.kind in "iu":
        scaled = ctx.op("Round", scaled, mode="half_to_even")
        if zero is not None:
            scaled = ctx.op("Add", scaled, _along_axis(ctx, ctx.op("Convert", zero, destination_type="f32"), x))
        info = np.iinfo(dtype)
        low, high = (-8, 7) if target.name == "i4" else (0, 15) if target.name == "u4" else (info.min, info.max)
        scaled = ctx.op("Clamp", scaled, min=float(low), max=float(high))
    elif zero is not None:
        scaled = ctx.op("Add", scaled, ctx.op("Convert", _along_axis(ctx, zero, x), destination_type="f32"))
    return ctx.op("Convert", scaled, destination_type=target)


def _per_channel(ctx: NodeContext, param: Output | None, shape: list[int]) -> Any:
    """A 1-D per-channel scale or zero point reshaped to ``shape`` (scalars and absent ones as they are)."""
    if param is None or param.partial_shape.rank.is_dynamic or param.partial_shape.rank.get_length() != 1:
        return param
    return ctx.op("Reshape", param, i64(ctx, shape), special_zero=False)


def _minus_zero(ctx: NodeContext, x: Output, zero: Output | None) -> Output:
    wide = ctx.op("Convert", x, destination_type="i32")
    if zero is None:
        return wide
    return ctx.op("Subtract", wide, ctx.op("Convert", zero, destination_type="i32"))


@translator("MatMulInteger")
def matmul_integer(ctx: NodeContext) -> Output:
    a = _minus_zero(ctx, ctx.input(0), ctx.optional(2))
    b_zero = _per_channel(ctx, ctx.optional(3), [1, -1])  # per output column: [N] -> [1, N]
    return ctx.op("MatMul", a, _minus_zero(ctx, ctx.input(1), b_zero))


@translator("ConvInteger")
def conv_integer(ctx: NodeContext) -> Output:
    from graphir.serializers.onnx.nn import conv_attributes

    x = _minus_zero(ctx, ctx.input(0), ctx.optional(2))
    w = ctx.input(1)
    w = _minus_zero(ctx, w, _per_channel(ctx, ctx.optional(3), [-1] + [1] * (rank_of(ctx, w) - 1)))
    return conv_attributes(ctx, x, w, None)


def _dequantized(ctx: NodeContext, x: Output, scale: Output, zero: Output | None) -> Output:
    value = ctx.op("Convert", x, destination_type="f32")
    if zero is not None:
        value = ctx.op("Subtract", value, ctx.op("Convert", zero, destination_type="f32"))
    return ctx.op("Multiply", value, ctx.op("Convert", scale, destination_type="f32"))


def _requantized(ctx: NodeContext, value: Output, scale: Output, zero: Output | None) -> Output:
    """round(value / scale) + zero, saturated to the zero point's type (u8 without one)."""
    target = zero.element_type if zero is not None else element_type(2, ctx.describe())
    out = ctx.op("Round", ctx.op("Divide", value, ctx.op("Convert", scale, destination_type="f32")),
                 mode="half_to_even")
    if zero is not None:
        out = ctx.op("Add", out, ctx.op("Convert", zero, destination_type="f32"))
    info = np.iinfo(np.dtype(target.numpy_dtype))
    return ctx.op("Convert", ctx.op("Clamp", out, min=float(info.min), max=float(info.max)), destination_type=target)


@translator("QLinearConv")
def qlinear_conv(ctx: NodeContext) -> Output:
    """Dequantized input and filters (per output channel scales), Convolution in f32, the int32 bias
    dequantized by x_scale * w_scale, requantized to y's zero point type."""
    from graphir.serializers.onnx.nn import conv_attributes

    x = _dequantized(ctx, ctx.input(0), ctx.input(1), ctx.input(2))
    w_input = ctx.input(3)
    rank = rank_of(ctx, w_input)
    w_scale, w_zero = ctx.input(4), ctx.optional(5)
    per_channel = [-1] + [1] * (rank - 1)
    w_scale = _per_channel(ctx, w_scale, per_channel)
    w_zero = _per_channel(ctx, w_zero, per_channel)
    w = _dequantized(ctx, w_input, w_scale, w_zero)
    bias = ctx.optional(8)
    if bias is not None:
        scale = ctx.op("Multiply", ctx.op("Convert", ctx.input(1), destination_type="f32"),
                       ctx.op("Convert", ctx.input(4), destination_type="f32"))
        bias = ctx.op("Multiply", ctx.op("Convert", bias, destination_type="f32"), scale)
    return _requantized(ctx, conv_attributes(ctx, x, w, bias), ctx.input(6), ctx.optional(7))


@translator("QLinearMatMul")
def qlinear_matmul(ctx: NodeContext) -> Output:
    """Dequantize both operands, MatMul in f32, quantize to y's zero point type (round half to even)."""
    def dequantized(x: Output, scale: Output, zero: Output) -> Output:
        return _dequantized(ctx, x, scale, zero)

    a = dequantized(ctx.input(0), ctx.input(1), ctx.input(2))
    b_scale, b_zero = _per_channel(ctx, ctx.input(4), [1, -1]), _per_channel(ctx, ctx.input(5), [1, -1])
    b = dequantized(ctx.input(3), b_scale, b_zero)
    return _requantized(ctx, ctx.op("MatMul", a, b), ctx.input(6), ctx.input(7))
