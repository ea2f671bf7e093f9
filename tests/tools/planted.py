"""Planted faults for the tools' tests and benchmark: one layer's weight changed."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphir.model import Model
from graphir.node import Node
from graphir.ops.openvino.core import Constant, Parameter, Result


def weight_consumers(model: Model, smallest: int = 4) -> list[tuple[Node, Node]]:
    """(floating-point weight Constant, the first computed layer its value reaches through
    constant-only nodes), in execution order of the layer."""
    order = model.get_ordered_ops()
    constant_only: set[int] = set()
    for node in order:
        if isinstance(node.op, Constant) or (
                not isinstance(node.op, (Parameter, Result)) and node.inputs
                and all(s is not None and s.node.id in constant_only for s in node.inputs)):
            constant_only.add(node.id)
    origin: dict[int, Node] = {}  # constant-only node id -> the float weight it comes from
    pairs: list[tuple[Node, Node]] = []
    seen: set[int] = set()
    for node in order:
        if isinstance(node.op, Constant):
            if node.op.element_type.is_real and node.op.size >= smallest:
                origin[node.id] = node
            continue
        sources = [origin.get(s.node.id) for s in node.inputs if s is not None]
        if node.id in constant_only:
            found = [w for w in sources if w is not None]
            if found:
                origin[node.id] = found[0]
            continue
        if isinstance(node.op, Result):
            continue
        for weight in sources:
            if weight is not None and weight.id not in seen:
                seen.add(weight.id)
                pairs.append((weight, node))
    return pairs


def plant(model: Model, which: float = 0.5) -> tuple[Model, str]:
    """A copy of ``model`` with one weight changed (the one reaching the layer at fraction ``which``
    of the weighted layers, by execution order); returns it and the layer's name."""
    model = model.clone()
    pairs = weight_consumers(model) or weight_consumers(model, 1)
    weight, layer = pairs[min(int(len(pairs) * which), len(pairs) - 1)]
    value = np.asarray(weight.op.value)
    scale = float(np.max(np.abs(value.astype(np.float32)))) or 1.0
    changed = (value.astype(np.float32) * 1.25 + 0.05 * scale).astype(value.dtype)
    assert isinstance(weight.op, Constant)
    new = Node(Constant.from_array(changed, weight.op.element_type), name=weight.name)
    model.replace_all_uses_with(weight.output(0), new.output(0))
    model.remove_node(weight)
    return model, layer.name


def differs_from_clean(clean: Model) -> Callable[[Model], bool]:
    """A reduce check, "compare fails": the candidate against a copy of itself whose weights are
    ``clean``'s (matched by name), so it fails while the candidate holds the planted change."""
    from graphir.tools import compare

    weights = {n.name: n.op for n in clean.get_ordered_ops() if isinstance(n.op, Constant)}

    def fails(candidate: Model) -> bool:
        reference = candidate.clone()
        for node in reference.get_ordered_ops():
            op = weights.get(node.name)
            if isinstance(node.op, Constant) and op is not None and not np.array_equal(node.op.value, op.value):
                restored = Node(Constant.from_array(op.value, op.element_type), name=node.name)
                reference.replace_all_uses_with(node.output(0), restored.output(0))
        return compare(candidate, reference, progress=False).failed

    return fails
