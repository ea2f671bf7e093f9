"""Tensors made by the node: Constant, ConstantOfShape, Range, EyeLike; and type changes: Cast, CastLike."""
from __future__ import annotations

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import i64
from graphir.serializers.onnx.registry import translator
from graphir.serializers.onnx.tensors import element_type, raw_array


@translator("Constant")
def constant(ctx: NodeContext) -> Output:
    given = ctx.node.attribute
    if len(given) == 1 and given[0].name == "value" and given[0].type == 4:  # a tensor: most Constants
        data = raw_array(given[0].t)
        if data is not None:  # named as the reader names a node made for one output (OpenVINO's name)
            return ctx.own_const(data, ctx.name)
    attrs = ctx.attributes
    if "value" in attrs or "sparse_value" in attrs:
        value = attrs.get("value", attrs.get("sparse_value"))
        return ctx.const(value)
    for name, dtype in (("value_float", np.float32), ("value_floats", np.float32), ("value_int", np.int64),
                        ("value_ints", np.int64)):
        if name in attrs:
            return ctx.const(np.asarray(attrs[name], dtype=dtype))
    if "value_string" in attrs or "value_strings" in attrs:
        ctx.unsupported("a string Constant")
    raise ctx.error("no value attribute")


@translator("ConstantOfShape")
def constant_of_shape(ctx: NodeContext) -> Output:
    value = ctx.attr("value", np.zeros((1,), dtype=np.float32))
    scalar = ctx.const(np.asarray(value).reshape(()))
    return ctx.op("Broadcast", scalar, ctx.input(0), mode="numpy")


@translator("Range")
def range_(ctx: NodeContext) -> Output:
    start, limit, delta = (_scalar(ctx, ctx.input(i)) for i in range(3))
    return ctx.op("Range", start, limit, delta, output_type=start.element_type)


def _scalar(ctx: NodeContext, x: Output) -> Output:
    """A [1] tensor as a scalar (ONNX's function bodies pass them; OpenVINO's Range takes scalars only)."""
    ps = x.partial_shape
    if ps.rank.is_static and ps.rank.get_length() == 1:
        return ctx.op("Squeeze", x, i64(ctx, [0]))
    return x


@translator("EyeLike")
def eye_like(ctx: NodeContext) -> Output:
    x = ctx.input(0)
    dtype = ctx.attr("dtype", None)
    out_type = x.element_type if dtype is None else element_type(int(dtype), ctx.describe())
    shape = ctx.op("ShapeOf", x, output_type="i64")
    rows = ctx.op("Gather", shape, i64(ctx, [0]), i64(ctx, 0))
    cols = ctx.op("Gather", shape, i64(ctx, [1]), i64(ctx, 0))
    return ctx.op("Eye", rows, cols, i64(ctx, [int(ctx.attr("k", 0))]), output_type=out_type)


@translator("Cast")
def cast(ctx: NodeContext) -> Output:
    to = ctx.attr("to")
    if isinstance(to, str):  # opset 1 spelled the type as a string
        names = {"FLOAT": 1, "UINT8": 2, "INT8": 3, "UINT16": 4, "INT16": 5, "INT32": 6, "INT64": 7, "BOOL": 9,
                 "FLOAT16": 10, "DOUBLE": 11, "UINT32": 12, "UINT64": 13}
        if to.upper() not in names:
            ctx.unsupported(f"Cast to '{to}'")
        to = names[to.upper()]
    target = element_type(int(to), ctx.describe())
    if target.name == "string" or ctx.input(0).element_type.name == "string":
        ctx.unsupported("Cast from or to strings")
    x = ctx.input(0)
    if target.name in _FLOAT8_LIMITS and int(ctx.attr("saturate", 1)) and not x.element_type.is_integral:
        x = _saturated(ctx, x, target.name)
    return ctx.op("Convert", x, destination_type=target)


#: the largest finite float8 values (ONNX's saturate=1 clamps to them)
_FLOAT8_LIMITS = {"f8e4m3": 448.0, "f8e5m2": 57344.0}


def _saturated(ctx: NodeContext, x: Output, target: str) -> Output:
    """Values beyond the float8 type's range, infinities too, clamped to its largest finite value (NaN
    stays NaN), as ONNX's reference saturates."""
    limit = _FLOAT8_LIMITS[target]
    return ctx.op("Clamp", x, min=-limit, max=limit)


@translator("CastLike")
def cast_like(ctx: NodeContext) -> Output:
    x, like = ctx.input(0), ctx.input(1)
    if like.element_type.name in _FLOAT8_LIMITS and int(ctx.attr("saturate", 1)) and not x.element_type.is_integral:
        x = _saturated(ctx, x, like.element_type.name)
    return ctx.op("ConvertLike", x, like)
