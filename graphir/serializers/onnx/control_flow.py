"""If, Loop and Scan -> OpenVINO If, Loop and TensorIterator.

A branch or body graph is translated by a child translator; the outer values it reads become body
Parameters fed by extra inputs of the op (Constants are copied into the body instead, so shapes that
depend on them still fold there).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from graphir import opset
from graphir.node import Output
from graphir.serializers.onnx.context import NodeContext
from graphir.serializers.onnx.helpers import i64
from graphir.serializers.onnx.registry import translator
from graphir.shapes import Dimension, PartialShape


class _Body:
    """A translated subgraph: its Parameters (graph inputs first, then captured outer values) and outputs."""

    def __init__(self, ctx: NodeContext, graph: Any, bindings: list[tuple[str, Output]], inline: bool = False) -> None:
        from graphir.serializers.onnx_reader import GraphTranslator

        outer = ctx.graph
        self.ctx = ctx
        self.translator = GraphTranslator(outer.opsets, outer.base_dir, outer.functions, outer.where, parent=outer,
                                          inline=inline)
        for name, value in bindings:
            self.translator.define(name, value)
        self.translator.graph_initializers(graph)
        self.translator.translate_nodes(graph.node)
        self.outputs = [self.translator.lookup(o.name, f"subgraph output '{o.name}'") for o in graph.output]

    @property
    def captured(self) -> list[tuple[Output, Output]]:
        """(outer output, body Parameter) per outer value the body reads."""
        return list(self.translator.captured.values())

    def model(self, params: list[Output], results: list[Output]) -> Any:
        """The body Model: ``params`` then the captured values' Parameters in, ``results`` out."""
        from graphir.model import Model
        body_results = [opset.result(r, name=self.ctx.fresh_name("Result")) for r in results]
        every = [p.node for p in params] + [p.node for _, p in self.captured]
        return Model(body_results, every, name="body"), body_results


def _param(like: Output, name: str | None = None) -> Output:
    return opset.parameter(like.partial_shape, like.element_type, name=name)


@translator("If")
def if_(ctx: NodeContext) -> list[Output]:
    cond = ctx.input(0)
    if cond.partial_shape.rank.is_static and cond.partial_shape.rank.get_length() == 1:
        cond = ctx.op("Squeeze", cond, i64(ctx, [0]))
    known = ctx.folded(0)
    if known is not None:  # a condition known when reading: the taken branch's ops in place of the If
        taken = "then" if bool(np.asarray(known).reshape(-1)[0]) else "else"
        return _Body(ctx, ctx.attr(f"{taken}_branch"), [], inline=True).outputs
    branches = {which: _Body(ctx, ctx.attr(f"{which}_branch"), []) for which in ("then", "else")}
    outer: list[Output] = []
    attrs: dict[str, Any] = {}
    count = len(branches["then"].outputs)
    if len(branches["else"].outputs) != count:
        raise ctx.error(f"then_branch gives {count} outputs, else_branch {len(branches['else'].outputs)}")
    for which, body in branches.items():
        model, results = body.model([], body.outputs)
        ins = []
        for src, param in body.captured:
            outer.append(src)
            ins.append({"external_port_id": len(outer), "internal_layer_id": param.node.id})
        attrs[f"{which}_body"] = model
        attrs[f"{which}_input_descriptions"] = ins
        attrs[f"{which}_output_descriptions"] = [{"external_port_id": -1, "internal_layer_id": r.id} for r in results]
    n_in = 1 + len(outer)
    for which in ("then", "else"):
        for k, d in enumerate(attrs[f"{which}_output_descriptions"]):
            d["external_port_id"] = n_in + k
    return ctx.ops("If", cond, *outer, **attrs)


@translator("Loop")
def loop(ctx: NodeContext) -> list[Output]:
    graph = ctx.attr("body")
    trip = ctx.optional(0)
    cond = ctx.optional(1)
    trip = i64(ctx, -1) if trip is None else ctx.op("Convert", trip, destination_type="i64")
    cond = ctx.const(np.asarray(True)) if cond is None else cond
    for name in ("trip", "cond"):
        value = trip if name == "trip" else cond
        if value.partial_shape.rank.is_static and value.partial_shape.rank.get_length() == 1:
            value = ctx.op("Squeeze", value, i64(ctx, [0]))
        if name == "trip":
            trip = value
        else:
            cond = value
    carried = [x for x in ctx.inputs[2:]]
    if any(x is None for x in carried):
        ctx.unsupported("a Loop with an absent loop-carried input")
    declared = list(graph.input)
    if len(declared) != 2 + len(carried):
        raise ctx.error(f"the body has {len(declared)} inputs, {2 + len(carried)} expected")
    likes = [i64(ctx, 0), ctx.const(np.asarray(True))] + [x for x in carried if x is not None]
    params = [_param(like, info.name) for info, like in zip(declared, likes)]
    body = _Body(ctx, graph, [(info.name, p) for info, p in zip(declared, params)])
    n_carried = len(carried)
    cond_out, carried_out = body.outputs[0], body.outputs[1:1 + n_carried]
    scans = [ctx.op("Unsqueeze", s, i64(ctx, [0])) for s in body.outputs[1 + n_carried:]]
    model, results = body.model(params, [cond_out, *carried_out, *scans])
    captured = body.captured
    inputs: list[Output] = [*(x for x in carried if x is not None), *(src for src, _ in captured)]
    n_in = 2 + len(inputs)
    in_desc: list[dict[str, Any]] = [{"external_port_id": -1, "internal_layer_id": params[0].node.id,
                                      "purpose": "current_iteration"},
                                     {"external_port_id": 1, "internal_layer_id": params[1].node.id}]
    back = [{"from-layer": results[0].id, "to-layer": params[1].node.id}]
    for k in range(n_carried):
        in_desc.append({"external_port_id": 2 + k, "internal_layer_id": params[2 + k].node.id})
        back.append({"from-layer": results[1 + k].id, "to-layer": params[2 + k].node.id})
    for k, (_, param) in enumerate(captured):
        in_desc.append({"external_port_id": 2 + n_carried + k, "internal_layer_id": param.node.id})
    out_desc: list[dict[str, Any]] = [{"external_port_id": -1, "internal_layer_id": results[0].id,
                                       "purpose": "execution_condition"}]
    for k in range(n_carried):
        out_desc.append({"external_port_id": n_in + k, "internal_layer_id": results[1 + k].id})
    for k in range(len(scans)):
        out_desc.append({"external_port_id": n_in + n_carried + k, "internal_layer_id": results[1 + n_carried + k].id,
                         "axis": 0, "start": 0, "end": -1, "stride": 1, "part_size": 1})
    return ctx.ops("Loop", trip, cond, *inputs, body=model, input_descriptions=in_desc,
                   output_descriptions=out_desc, back_edges=back)


@translator("Scan", since=8)
def scan_8(ctx: NodeContext) -> list[Output]:
    """Scan-8 as OpenVINO's frontend reads it: sequence_lens (input 0) ignored, batch axis 0 kept in the
    body, the scan axis 1 by default and the input directions in ``directions``."""
    return _scan(ctx, default_axis=1, first=1, directions="directions")


@translator("Scan", since=9)
def scan(ctx: NodeContext) -> list[Output]:
    return _scan(ctx, default_axis=0, first=0, directions="scan_input_directions")


def _scan(ctx: NodeContext, default_axis: int, first: int, directions: str) -> list[Output]:
    graph = ctx.attr("body")
    given = [x for x in ctx.inputs[first:] if x is not None]
    n_scan = int(ctx.attr("num_scan_inputs"))
    n_state = len(given) - n_scan
    states, scanned = given[:n_state], given[n_state:]
    in_axes = [int(a) for a in ctx.attr("scan_input_axes", [default_axis] * n_scan)]
    in_dirs = [int(d) for d in ctx.attr(directions, [0] * n_scan)]
    n_out_scan = len(graph.output) - n_state
    out_axes = [int(a) for a in ctx.attr("scan_output_axes", [default_axis] * n_out_scan)]
    out_dirs = [int(d) for d in ctx.attr("scan_output_directions", [0] * n_out_scan)]
    declared = list(graph.input)
    slices: list[Output] = []  # a Parameter per scanned input: one part, its axis kept (length 1)
    squeezed: list[Output] = []
    for x, axis in zip(scanned, in_axes):
        ps = x.partial_shape
        if ps.rank.is_dynamic:
            ctx.unsupported("a scanned input of dynamic rank")
        dims = list(ps)
        axis = axis + len(dims) if axis < 0 else axis
        dims[axis] = Dimension(1, 1)
        part = opset.parameter(PartialShape(dims), x.element_type, name=ctx.fresh_name("Parameter"))
        slices.append(part)
        squeezed.append(ctx.op("Squeeze", part, i64(ctx, [axis])))
    state_params = [_param(x, info.name) for info, x in zip(declared, states)]
    body = _Body(ctx, graph, [(info.name, v) for info, v in zip(declared, [*state_params, *squeezed])])
    state_out = body.outputs[:n_state]
    scan_out = [ctx.op("Unsqueeze", s, i64(ctx, [a if a >= 0 else a + s.partial_shape.rank.get_length() + 1]))
                for s, a in zip(body.outputs[n_state:], out_axes)]
    model, results = body.model([*state_params, *slices], [*state_out, *scan_out])
    captured = body.captured
    inputs = [*states, *scanned, *(src for src, _ in captured)]
    n_in = len(inputs)
    in_desc: list[dict[str, Any]] = []
    back: list[dict[str, Any]] = []
    for k, p in enumerate(state_params):
        in_desc.append({"external_port_id": k, "internal_layer_id": p.node.id})
        back.append({"from-layer": results[k].id, "to-layer": p.node.id})
    for k, (part, axis, reverse) in enumerate(zip(slices, in_axes, in_dirs)):
        in_desc.append({"external_port_id": n_state + k, "internal_layer_id": part.node.id, "axis": axis,
                        "start": -1 if reverse else 0, "end": 0 if reverse else -1,
                        "stride": -1 if reverse else 1, "part_size": 1})
    for k, (_, p) in enumerate(captured):
        in_desc.append({"external_port_id": n_state + n_scan + k, "internal_layer_id": p.node.id})
    out_desc: list[dict[str, Any]] = []
    for k in range(n_state):
        out_desc.append({"external_port_id": n_in + k, "internal_layer_id": results[k].id})
    for k, (axis, reverse) in enumerate(zip(out_axes, out_dirs)):
        out_desc.append({"external_port_id": n_in + n_state + k, "internal_layer_id": results[n_state + k].id,
                         "axis": axis, "start": -1 if reverse else 0, "end": 0 if reverse else -1,
                         "stride": -1 if reverse else 1, "part_size": 1})
    return ctx.ops("TensorIterator", *inputs, body=model, input_descriptions=in_desc,
                   output_descriptions=out_desc, back_edges=back)

