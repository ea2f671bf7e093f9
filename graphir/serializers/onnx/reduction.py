"""Reductions (axes an attribute before opset 13/18, an input after) and ArgMax/ArgMin."""
from __future__ import annotations


from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import i64, normalize_axis, rank_of, reduce_axes_input
from graphir.serializers.onnx.registry import translator

#: ONNX reduction -> (OpenVINO reduction, opset where axes became an input)
_REDUCTIONS = {
    "ReduceSum": ("ReduceSum", 13), "ReduceMean": ("ReduceMean", 18), "ReduceMax": ("ReduceMax", 18),
    "ReduceMin": ("ReduceMin", 18), "ReduceProd": ("ReduceProd", 18), "ReduceL1": ("ReduceL1", 18),
    "ReduceL2": ("ReduceL2", 18), "ReduceLogSum": ("ReduceSum", 18), "ReduceLogSumExp": ("ReduceSum", 18),
    "ReduceSumSquare": ("ReduceSum", 18),
}


def _axes(ctx: NodeContext, x: Output, axes_input_since: int) -> Output | None:
    """The axes to reduce, or None when the node reduces nothing (noop_with_empty_axes)."""
    if ctx.version >= axes_input_since:
        given = ctx.optional(1)
        # OpenVINO's rule: axes of static shape [0] (or none) mean every axis, whatever their value
        empty = given is None or (given.partial_shape.is_static and given.partial_shape.rank.get_length() == 1
                                  and int(given.partial_shape[0].get_length()) == 0)
        if empty:
            return x if int(ctx.attr("noop_with_empty_axes", 0)) else reduce_axes_input(ctx, x, None)
        return given
    axes = ctx.attr("axes", None)
    return reduce_axes_input(ctx, x, None if not axes else i64(ctx, axes))


def _reduction(onnx_name: str, ov_name: str, since: int) -> None:
    def translate(ctx: NodeContext) -> Output:
        x = ctx.input(0)
        axes = _axes(ctx, x, since)
        if axes is x:  # noop_with_empty_axes: the input as is
            return x
        keep = bool(ctx.attr("keepdims", 1))
        data = x
        as_bool = x.element_type.name == "boolean" and onnx_name in ("ReduceMax", "ReduceMin")
        if as_bool:  # booleans reduce as u8 (OpenVINO's ReduceMax/Min take no boolean)
            data = ctx.op("Convert", x, destination_type="u8")
        if onnx_name == "ReduceSumSquare":
            data = ctx.op("Multiply", x, x)
        elif onnx_name == "ReduceLogSumExp":
            data = ctx.op("Exp", x)
        out = ctx.op(ov_name, data, axes, keep_dims=keep)
        if onnx_name in ("ReduceLogSum", "ReduceLogSumExp"):
            out = ctx.op("Log", out)
        return ctx.op("Convert", out, destination_type="boolean") if as_bool else out

    translate.__name__ = f"translate_{onnx_name.lower()}"
    translator(onnx_name)(translate)


for _onnx, (_ov, _since) in _REDUCTIONS.items():
    _reduction(_onnx, _ov, _since)


def _arg(ctx: NodeContext, mode: str) -> Output:
    x = ctx.input(0)
    rank = rank_of(ctx, x)
    axis = normalize_axis(ctx, int(ctx.attr("axis", 0)), rank)
    keep = bool(ctx.attr("keepdims", 1))
    data = x
    last = bool(ctx.attr("select_last_index", 0))
    if last:
        data = ctx.op("Reverse", x, i64(ctx, [axis]), mode="index")
    # k=1 sorted by value and stable: the first extreme index (OpenVINO allows stable only when sorting)
    _, indices = ctx.ops("TopK", data, i64(ctx, 1), axis=axis, mode=mode, sort="value",
                         index_element_type="i64", stable=True)
    if last:
        dim = ctx.op("Gather", ctx.op("ShapeOf", x, output_type="i64"), i64(ctx, [axis]), i64(ctx, 0))
        indices = ctx.op("Subtract", ctx.op("Subtract", dim, indices), i64(ctx, 1))
    if not keep:
        indices = ctx.op("Squeeze", indices, i64(ctx, [axis]))
    return indices


@translator("ArgMax")
def arg_max(ctx: NodeContext) -> Output:
    return _arg(ctx, "max")


@translator("ArgMin")
def arg_min(ctx: NodeContext) -> Output:
    return _arg(ctx, "min")


