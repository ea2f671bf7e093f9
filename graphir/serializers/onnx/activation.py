"""Activations, Clip and the softmax family."""
from __future__ import annotations

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import flat_shape, normalize_axis, rank_of, scalar_like, unary
from graphir.serializers.onnx.registry import translator


for _onnx, _ov in {"Relu": "Relu", "Sigmoid": "Sigmoid", "Softplus": "SoftPlus", "Softsign": "SoftSign",
                   "Mish": "Mish", "HardSwish": "HSwish"}.items():
    unary(_onnx, _ov)


@translator("LeakyRelu")
def leaky_relu(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    return ctx.op("PRelu", x, scalar_like(ctx, float(ctx.attr("alpha", 0.01)), x))


@translator("PRelu")
def prelu(ctx: NodeContext) -> Output:
    return ctx.op("PRelu", ctx.input(0), ctx.input(1))


@translator("Elu")
def elu(ctx: NodeContext) -> Output:
    return ctx.op("Elu", ctx.input(0), alpha=float(ctx.attr("alpha", 1.0)))


@translator("Selu")
def selu(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    alpha = scalar_like(ctx, float(ctx.attr("alpha", 1.67326319217681884765625)), x)
    gamma = scalar_like(ctx, float(ctx.attr("gamma", 1.05070102214813232421875)), x)
    return ctx.op("Selu", x, alpha, gamma)


@translator("HardSigmoid")
def hard_sigmoid(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    alpha = scalar_like(ctx, float(ctx.attr("alpha", 0.2)), x)
    beta = scalar_like(ctx, float(ctx.attr("beta", 0.5)), x)
    return ctx.op("HardSigmoid", x, alpha, beta)


@translator("Gelu", since=20)
def gelu(ctx: NodeContext) -> Output:
    mode = str(ctx.attr("approximate", "none"))
    if mode not in ("none", "tanh"):
        raise ctx.error(f"approximate '{mode}' is neither 'none' nor 'tanh'")
    return ctx.op("Gelu", ctx.input(0), approximation_mode="TANH" if mode == "tanh" else "ERF")


@translator("ThresholdedRelu")
def thresholded_relu(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    mask = ctx.op("Greater", x, scalar_like(ctx, float(ctx.attr("alpha", 1.0)), x))
    return ctx.op("Multiply", x, ctx.op("Convert", mask, destination_type=x.element_type))


@translator("Celu")
def celu(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    alpha = float(ctx.attr("alpha", 1.0))
    scaled = ctx.op("Divide", x, scalar_like(ctx, alpha, x))
    return ctx.op("Multiply", ctx.op("Elu", scaled, alpha=1.0), scalar_like(ctx, alpha, x))


@translator("Shrink")
def shrink(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    lambd = float(ctx.attr("lambd", 0.5))
    bias = float(ctx.attr("bias", 0.0))
    lower = ctx.op("Less", x, scalar_like(ctx, -lambd, x))
    upper = ctx.op("Greater", x, scalar_like(ctx, lambd, x))
    zero = scalar_like(ctx, 0, x)
    low = ctx.op("Select", lower, ctx.op("Add", x, scalar_like(ctx, bias, x)), zero)
    return ctx.op("Select", upper, ctx.op("Subtract", x, scalar_like(ctx, bias, x)), low)


def _type_limit(x: Output, lowest: bool) -> np.ndarray:
    dtype = np.dtype(x.element_type.numpy_dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.asarray(info.min if lowest else info.max, dtype=dtype)
    if dtype.kind == "b":
        return np.asarray(not lowest, dtype=dtype)
    return np.asarray(-np.inf if lowest else np.inf, dtype=dtype)


@translator("Clip")
def clip_attributes(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    low = float(ctx.attr("min", float(np.finfo(np.float32).min)))
    high = float(ctx.attr("max", float(np.finfo(np.float32).max)))
    return ctx.op("Clamp", x, min=low, max=high)


@translator("Clip", since=11)
def clip(ctx: NodeContext) -> Output:
    out = ctx.input(0)
    low, high = ctx.optional(1), ctx.optional(2)
    if low is not None:
        out = ctx.op("Maximum", out, low)
    if high is not None:
        out = ctx.op("Minimum", out, high)
    return out


def _flattened_softmax(ctx: NodeContext, ov: str) -> Output:
    """Before opset 13 Softmax/LogSoftmax/Hardmax coerced the input to 2-D at ``axis``."""
    x = ctx.input(0)
    rank = rank_of(ctx, x)
    axis = normalize_axis(ctx, int(ctx.attr("axis", 1)), rank)
    shape = ctx.op("ShapeOf", x, output_type="i64")
    if axis == rank - 1:
        return ctx.op(ov, x, axis=-1)
    flat = ctx.op("Reshape", x, flat_shape(ctx, x, axis), special_zero=False)
    return ctx.op("Reshape", ctx.op(ov, flat, axis=1), shape, special_zero=False)


def _softmax_family(onnx_name: str) -> None:
    """``onnx_name`` (Softmax, LogSoftmax): flattened to 2-D before opset 13, one op on ``axis`` after."""
    def before_13(ctx: NodeContext) -> Output:
        return _flattened_softmax(ctx, onnx_name)

    def since_13(ctx: NodeContext) -> Output:
        return ctx.op(onnx_name, ctx.input(0), axis=int(ctx.attr("axis", -1)))

    before_13.__name__ = f"{onnx_name.lower()}_v1"
    since_13.__name__ = onnx_name.lower()
    translator(onnx_name)(before_13)
    translator(onnx_name, since=13)(since_13)


for _name in ("Softmax", "LogSoftmax"):
    _softmax_family(_name)
