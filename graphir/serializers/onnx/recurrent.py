"""RNN, GRU and LSTM -> RNNSequence / GRUSequence / LSTMSequence (batch-major, gates reordered)."""
from __future__ import annotations

import numpy as np

from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import i64
from graphir.serializers.onnx.registry import translator

#: op -> (gate count, OpenVINO op, default activations)
_KINDS = {"RNN": (1, "RNNSequence", ["tanh"]), "GRU": (3, "GRUSequence", ["sigmoid", "tanh"]),
          "LSTM": (4, "LSTMSequence", ["sigmoid", "tanh", "tanh"])}


def _gates(ctx: NodeContext, x: Output, order: list[int], axis: int) -> Output:
    """Gate blocks of ``x`` along ``axis`` reordered (ONNX LSTM's i,o,f,c -> OpenVINO's f,i,c,o)."""
    parts = ctx.ops("Split", x, i64(ctx, axis), num_splits=len(order))
    return ctx.op("Concat", *[parts[i] for i in order], axis=axis)


def _recurrent(ctx: NodeContext) -> list[Output | None]:
    gates, ov_name, default_acts = _KINDS[ctx.op_type]
    x, w, r = ctx.input(0), ctx.input(1), ctx.input(2)
    hidden = int(ctx.attr("hidden_size"))
    direction = str(ctx.attr("direction", "forward"))
    dirs = 2 if direction == "bidirectional" else 1
    batch_major = int(ctx.attr("layout", 0)) == 1
    if ctx.op_type == "LSTM" and int(ctx.attr("input_forget", 0)):
        ctx.unsupported("input_forget=1")
    acts = [a.lower() for a in ctx.attr("activations", default_acts * dirs)]
    per_dir = len(default_acts)
    if dirs == 2 and acts[:per_dir] != acts[per_dir:2 * per_dir]:
        ctx.unsupported("different activations per direction")
    if acts[:per_dir] and any(a not in ("sigmoid", "tanh", "relu") for a in acts[:per_dir]):
        ctx.unsupported(f"activations {acts[:per_dir]}")
    alpha = [float(v) for v in ctx.attr("activation_alpha", [])][:per_dir]
    beta = [float(v) for v in ctx.attr("activation_beta", [])][:per_dir]
    if not batch_major:
        x = ctx.op("Transpose", x, i64(ctx, [1, 0, 2]))
    shape = ctx.op("ShapeOf", x, output_type="i64")
    batch = ctx.op("Gather", shape, i64(ctx, [0]), i64(ctx, 0))
    dtype = x.element_type.numpy_dtype
    order = [2, 0, 3, 1] if ctx.op_type == "LSTM" else list(range(gates))
    if ctx.op_type == "LSTM":
        w, r = _gates(ctx, w, order, 1), _gates(ctx, r, order, 1)
    bias = ctx.optional(3)
    linear_before_reset = bool(ctx.attr("linear_before_reset", 0))
    bias_gates = gates + (1 if linear_before_reset else 0)
    if bias is None:
        b = ctx.const(np.zeros((dirs, bias_gates * hidden), dtype=dtype))
    else:
        wb, rb = ctx.ops("Split", bias, i64(ctx, 1), num_splits=2)
        if linear_before_reset:  # GRU: [Wbz+Rbz, Wbr+Rbr, Wbh, Rbh]
            wz, wr, wh = ctx.ops("Split", wb, i64(ctx, 1), num_splits=3)
            rz, rr, rh = ctx.ops("Split", rb, i64(ctx, 1), num_splits=3)
            b = ctx.op("Concat", ctx.op("Add", wz, rz), ctx.op("Add", wr, rr), wh, rh, axis=1)
        else:
            b = ctx.op("Add", wb, rb)
            if ctx.op_type == "LSTM":
                b = _gates(ctx, b, order, 1)
    lengths = ctx.optional(4)
    if lengths is None:
        seq = ctx.op("Gather", shape, i64(ctx, [1]), i64(ctx, 0))
        lengths = ctx.op("Broadcast", seq, batch)
    state_shape = ctx.op("Concat", batch, i64(ctx, [dirs, hidden]), axis=0)

    def initial(index: int) -> Output:
        given = ctx.optional(index)
        if given is None:
            return ctx.op("Broadcast", ctx.const(np.zeros((), dtype=dtype)), state_shape)
        return given if batch_major else ctx.op("Transpose", given, i64(ctx, [1, 0, 2]))

    attrs: dict[str, object] = {"hidden_size": hidden, "direction": direction, "activations": acts[:per_dir],
                                "activations_alpha": alpha, "activations_beta": beta,
                                "clip": float(ctx.attr("clip", 0.0))}
    if ctx.op_type == "LSTM":
        peepholes = ctx.folded(7)
        if ctx.has_input(7) and (peepholes is None or np.any(peepholes)):
            ctx.unsupported("peepholes (input P)")
        outs = ctx.ops(ov_name, x, initial(5), initial(6), lengths, w, r, b, **attrs)
    else:
        if ctx.op_type == "GRU":
            attrs["linear_before_reset"] = linear_before_reset
        outs = ctx.ops(ov_name, x, initial(5), lengths, w, r, b, **attrs)
    y = ctx.op("Transpose", outs[0], i64(ctx, [0, 2, 1, 3] if batch_major else [2, 1, 0, 3]))
    states = [s if batch_major else ctx.op("Transpose", s, i64(ctx, [1, 0, 2])) for s in outs[1:]]
    return [y, *states]


for _name in _KINDS:
    translator(_name)(_recurrent)
