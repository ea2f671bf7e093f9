"""Element-wise ONNX ops: arithmetic, comparison, logic, unary math (one OpenVINO op each, mostly)."""
from __future__ import annotations

from functools import reduce

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import rank_of, scalar_like, unary
from graphir.serializers.onnx.registry import translator


def _legacy_rhs(ctx: NodeContext, lhs: Output, rhs: Output) -> Output:
    """Before opset 7, ``broadcast=1`` aligned B with A from ``axis`` on (B's dims then 1s)."""
    if ctx.version >= 7 or not ctx.attr("broadcast", 0):
        return rhs
    a_rank, b_rank = rank_of(ctx, lhs), rank_of(ctx, rhs)
    axis = int(ctx.attr("axis", a_rank - b_rank))
    if axis < 0:
        axis += a_rank
    trailing = a_rank - axis - b_rank
    if trailing <= 0:
        return rhs
    axes = np.arange(b_rank, b_rank + trailing, dtype=np.int64)
    return ctx.op("Unsqueeze", rhs, ctx.const(axes))


def _binary(onnx_name: str, ov_name: str, since: int = 1) -> None:
    def translate(ctx: NodeContext) -> Output:
        a = ctx.input(0)
        return ctx.op(ov_name, a, _legacy_rhs(ctx, a, ctx.input(1)))

    translate.__name__ = f"translate_{onnx_name.lower()}"
    translator(onnx_name, since=since)(translate)


for _onnx, _ov in {
    "Add": "Add", "Sub": "Subtract", "Mul": "Multiply", "Equal": "Equal", "Greater": "Greater",
    "Less": "Less", "And": "LogicalAnd", "Or": "LogicalOr", "Xor": "LogicalXor",
    "GreaterOrEqual": "GreaterEqual", "LessOrEqual": "LessEqual", "BitwiseAnd": "BitwiseAnd",
    "BitwiseOr": "BitwiseOr", "BitwiseXor": "BitwiseXor",
}.items():
    _binary(_onnx, _ov)


@translator("Div")
def div(ctx: NodeContext) -> Output:
    a = ctx.input(0)
    b = _legacy_rhs(ctx, a, ctx.input(1))
    # ONNX's integer Div truncates toward zero (C division), not Python's floor division
    return ctx.op("Divide", a, b, m_pythondiv=False)


@translator("Pow")
def pow_(ctx: NodeContext) -> Output:
    base = ctx.input(0)
    exponent = _legacy_rhs(ctx, base, ctx.input(1))
    if exponent.element_type != base.element_type:
        if base.element_type.is_integral and not exponent.element_type.is_integral:
            widened = ctx.op("Convert", base, destination_type=exponent.element_type)
            powered = ctx.op("Power", widened, exponent)
            return ctx.op("Convert", powered, destination_type=base.element_type)
        exponent = ctx.op("Convert", exponent, destination_type=base.element_type)
    return ctx.op("Power", base, exponent)


@translator("Mod")
def mod(ctx: NodeContext) -> Output:
    a, b = ctx.input(0), ctx.input(1)
    return ctx.op("Mod" if int(ctx.attr("fmod", 0)) == 1 else "FloorMod", a, b)


@translator("BitShift")
def bit_shift(ctx: NodeContext) -> Output:
    direction = str(ctx.attr("direction"))
    if direction not in ("LEFT", "RIGHT"):
        raise ctx.error(f"direction '{direction}' is neither LEFT nor RIGHT")
    x, count = ctx.input(0), ctx.input(1)
    name = "BitwiseLeftShift" if direction == "LEFT" else "BitwiseRightShift"
    width = x.element_type.bitwidth
    known = ctx.folded(1)
    if known is not None and bool(np.all((known >= 0) & (known < width))):
        return ctx.op(name, x, count)
    # ONNX defines a count outside [0, width) (OpenVINO's shifts leave it undefined): the sign fill
    # alone, that is 0, or -1 for a right shift of a negative signed value (a shift by width - 1)
    in_range = ctx.op("LogicalAnd", ctx.op("GreaterEqual", count, scalar_like(ctx, 0, count)),
                      ctx.op("Less", count, scalar_like(ctx, width, count)))
    if direction == "RIGHT" and x.element_type.is_signed:
        return ctx.op(name, x, ctx.op("Select", in_range, count, scalar_like(ctx, width - 1, count)))
    return ctx.op("Select", in_range, ctx.op(name, x, count), scalar_like(ctx, 0, x))


def _variadic(onnx_name: str, ov_name: str) -> None:
    def translate(ctx: NodeContext) -> Output:
        given = [x for x in ctx.inputs if x is not None]
        if not given:
            raise ctx.error("needs at least one input")
        if len(given) == 1 and onnx_name != "Mean":
            return given[0]
        total = reduce(lambda x, y: ctx.op(ov_name, x, y), given[1:], given[0])
        if onnx_name == "Mean":
            return ctx.op("Divide", total, scalar_like(ctx, len(given), given[0]))
        return total

    translate.__name__ = f"translate_{onnx_name.lower()}"
    translator(onnx_name)(translate)


for _onnx, _ov in {"Max": "Maximum", "Min": "Minimum", "Sum": "Add", "Mean": "Add"}.items():
    _variadic(_onnx, _ov)


for _onnx, _ov in {
    "Abs": "Abs", "Acos": "Acos", "Acosh": "Acosh", "Asin": "Asin", "Asinh": "Asinh", "Atan": "Atan",
    "Atanh": "Atanh", "Ceil": "Ceiling", "Cos": "Cos", "Cosh": "Cosh", "Erf": "Erf", "Exp": "Exp",
    "Floor": "Floor", "Log": "Log", "Neg": "Negative", "Not": "LogicalNot", "Sign": "Sign", "Sin": "Sin",
    "Sinh": "Sinh", "Sqrt": "Sqrt", "Tan": "Tan", "Tanh": "Tanh", "IsNaN": "IsNaN", "BitwiseNot": "BitwiseNot",
}.items():
    unary(_onnx, _ov)


@translator("Round")
def round_(ctx: NodeContext) -> Output:
    return ctx.op("Round", ctx.input(0), mode="half_to_even")


@translator("Reciprocal")
def reciprocal(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    return ctx.op("Divide", scalar_like(ctx, 1, x), x)


@translator("IsInf")
def is_inf(ctx: NodeContext) -> Output:
    return ctx.op("IsInf", ctx.input(0), detect_negative=bool(ctx.attr("detect_negative", 1)),
                  detect_positive=bool(ctx.attr("detect_positive", 1)))
