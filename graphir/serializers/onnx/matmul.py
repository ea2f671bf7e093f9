"""MatMul and Gemm."""
from __future__ import annotations

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import scalar_like
from graphir.serializers.onnx.registry import translator


@translator("MatMul")
def matmul(ctx: NodeContext) -> Output:
    return ctx.op("MatMul", ctx.input(0), ctx.input(1))


@translator("Gemm")
def gemm(ctx: NodeContext) -> Output:
    """alpha * A' B' + beta * C as MatMul (transposes as its attributes), Multiply and Add."""
    a, b = ctx.input(0), ctx.input(1)
    out = ctx.op("MatMul", a, b, transpose_a=bool(ctx.attr("transA", 0)), transpose_b=bool(ctx.attr("transB", 0)))
    alpha = float(ctx.attr("alpha", 1.0))
    if alpha != 1.0:
        out = ctx.op("Multiply", out, scalar_like(ctx, alpha, out))
    c = ctx.optional(2)
    if c is not None:
        beta = float(ctx.attr("beta", 1.0))
        if beta != 1.0:
            c = ctx.op("Multiply", c, scalar_like(ctx, beta, c))
        out = ctx.op("Add", out, c)
    return out
