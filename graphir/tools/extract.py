"""The subgraph between given tensors, as a model of its own (``onnx.utils.extract_model`` for IR).

Tensors are named by tensor name, by ``layer:port`` or by a layer's friendly name (its port 0).
Each cut input becomes a Parameter of the tensor's inferred element type and shape, taking over its
tensor names; the weights and shape constants the subgraph reads come along (shared with the
source model, not copied); the source model's own Parameters the outputs still depend on stay
inputs, after the cut ones. The source model is not changed.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphir.errors import GraphError
from graphir.node import Node
from graphir.ops.openvino.core import Parameter
from graphir.tools._common import detached_model, ModelLike, as_model, find_output, layer_key

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Output


def extract(model: ModelLike, outputs: "Sequence[str | Output]", inputs: "Sequence[str | Output]" = (), *,
            name: str | None = None) -> "Model":
    """The model computing ``outputs`` from ``inputs``: tensor specs (see the module docstring) or
    outputs of ``model``'s own nodes."""
    from graphir.model import Model

    source = as_model(model)
    if not outputs:
        raise GraphError("extract needs at least one output tensor")
    work = source.clone()
    outs = [_resolve(work, spec) for spec in outputs]
    cuts = [_resolve(work, spec) for spec in dict.fromkeys(inputs)]
    params: list[Node] = []
    for spec, cut in zip(dict.fromkeys(inputs), cuts):
        params.append(_cut(work, cut, str(spec)))
    replaced = {(c.node.id, c.index): p.output(0) for c, p in zip(cuts, params)}
    outs = [replaced.get((o.node.id, o.index), o) for o in outs]
    reached = _reachable([o.node for o in outs])
    kept = [p for p in params if p.id in reached]
    unused = [str(spec) for spec, p in zip(dict.fromkeys(inputs), params) if p.id not in reached]
    if unused:
        raise GraphError(f"extract: the outputs do not depend on input tensor(s) {', '.join(map(repr, unused))}")
    originals = [p for p in work.get_parameters() if p.id in reached]
    sub = detached_model(outs, kept + originals, name=name or f"{source.name}_extract")
    sub.rt_info = dict(source.rt_info)
    sub.infer_shapes()
    return sub


def _resolve(work: "Model", spec: "str | Output") -> "Output":
    """The output of ``work`` (a clone: same node ids) that ``spec`` names."""
    if isinstance(spec, str):
        return find_output(work, spec)
    return work.node(spec.node.id).output(spec.index)


def _cut(work: "Model", cut: "Output", spec: str) -> Node:
    """A Parameter standing for ``cut``: its type, its tensor names; every reader re-pointed to it."""
    t = cut.tensor_type
    if t.element_type.is_dynamic:
        raise GraphError(f"extract: input tensor '{spec}' has a dynamic element type; shape-infer the model first")
    names = set(cut.names)
    label = sorted(names)[0] if names else layer_key(cut.node, cut.index)
    param = Node(Parameter(element_type=t.element_type, shape=t.shape), name=label)
    work.replace_all_uses_with(cut, param.output(0))
    cut.names = set()
    param.output(0).names = names or {label}
    return param


def _reachable(roots: Sequence[Node]) -> set[int]:
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node.id in seen:
            continue
        seen.add(node.id)
        stack.extend(s.node for s in node.inputs if s is not None)
    return seen
