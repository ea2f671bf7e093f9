"""Two models side by side: nodes added and removed, attributes, types and shapes, weights changed.

Nodes are matched by friendly name first, then by structure: an unmatched node of the first model
matches an unmatched node of the second of the same type whose inputs come from matched nodes'
same ports (in execution order, so a renamed chain matches link by link); an unmatched Constant
matches the unmatched Constant the matched consumer reads at the same port. Weights are compared
by digest (BLAKE2b of their bytes), so nothing large is held twice.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.ops.openvino.core import Constant
from graphir.tools._common import ModelLike, as_model, table

if TYPE_CHECKING:
    from graphir.node import Node


@dataclass
class Change:
    """One difference between matched nodes: what (``type``, ``attribute``, ``output``, ``weights``,
    ``inputs``, ``name``), and the two sides."""

    node: str  # the name in the first model
    kind: str
    what: str
    before: str
    after: str


@dataclass
class ModelDiff:
    """What :func:`diff` found."""

    nodes_before: int
    nodes_after: int
    matched_by_name: int = 0
    matched_by_structure: int = 0
    removed: list[tuple[str, str]] = field(default_factory=list)  # (name, type) only in the first
    added: list[tuple[str, str]] = field(default_factory=list)  # only in the second
    changes: list[Change] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not (self.removed or self.added or self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {"nodes_before": self.nodes_before, "nodes_after": self.nodes_after,
                "matched_by_name": self.matched_by_name, "matched_by_structure": self.matched_by_structure,
                "removed": [{"name": n, "type": t} for n, t in self.removed],
                "added": [{"name": n, "type": t} for n, t in self.added],
                "changes": [vars(c) for c in self.changes]}

    def table(self) -> str:
        lines = [f"nodes {self.nodes_before} -> {self.nodes_after}; matched {self.matched_by_name} by name, "
                 f"{self.matched_by_structure} by structure; {len(self.removed)} removed, {len(self.added)} added, "
                 f"{len(self.changes)} changes"]
        rows = [["-", n, t, "", "", ""] for n, t in self.removed] + [["+", n, t, "", "", ""] for n, t in self.added]
        rows += [["~", c.node, c.kind, c.what, _short(c.before), _short(c.after)] for c in self.changes]
        if rows:
            lines.append(table(["", "node", "type/change", "what", "before", "after"], rows))
        return "\n".join(lines)


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def diff(first: ModelLike, second: ModelLike) -> ModelDiff:
    """Compare two models node by node (see the module docstring)."""
    a, b = as_model(first), as_model(second)
    a_nodes, b_nodes = a.get_ordered_ops(), b.get_ordered_ops()
    result = ModelDiff(len(a_nodes), len(b_nodes))
    pairs: dict[int, "Node"] = {}  # id in a -> node in b
    taken: set[int] = set()
    by_name: dict[str, list["Node"]] = {}
    for node in b_nodes:
        by_name.setdefault(node.name, []).append(node)
    for node in a_nodes:
        for other in by_name.get(node.name, ()):
            if other.id not in taken:
                pairs[node.id] = other
                taken.add(other.id)
                result.matched_by_name += 1
                break
    result.matched_by_structure = _match_structure(a_nodes, b_nodes, pairs, taken)
    digests: dict[int, str] = {}
    for node in a_nodes:
        mate = pairs.get(node.id)
        if mate is None:
            result.removed.append((node.name, node.type_name))
            continue
        result.changes.extend(_changes(node, mate, pairs, digests))
    result.added = [(n.name, n.type_name) for n in b_nodes if n.id not in taken]
    return result


def _match_structure(a_nodes: Sequence["Node"], b_nodes: Sequence["Node"], pairs: dict[int, "Node"],
                     taken: set[int]) -> int:
    found = 0
    consumers: dict[tuple[int, int], list[tuple["Node", int]]] = {}  # b producer port -> readers
    for node in b_nodes:
        for i, src in enumerate(node.inputs):
            if src is not None:
                consumers.setdefault((src.node.id, src.index), []).append((node, i))
    for node in a_nodes:  # execution order: a node's inputs are matched before it
        if node.id in pairs or not node.inputs:
            continue
        first = node.inputs[0]
        if first is None or first.node.id not in pairs:
            continue
        for other, port in consumers.get((pairs[first.node.id].id, first.index), ()):
            if (other.id not in taken and port == 0 and other.type_name == node.type_name
                    and len(other.inputs) == len(node.inputs)
                    and all(s is None or s.node.id not in pairs or (o is not None and pairs[s.node.id] is o.node
                                                                   and s.index == o.index)
                            for s, o in zip(node.inputs, other.inputs))):
                pairs[node.id] = other
                taken.add(other.id)
                found += 1
                break
    for node in reversed(a_nodes):  # constants (and other sources) through their matched readers
        mate = pairs.get(node.id)
        if mate is None:
            continue
        for s, o in zip(node.inputs, mate.inputs):
            if (s is not None and o is not None and s.node.id not in pairs and o.node.id not in taken
                    and s.node.type_name == o.node.type_name and not s.node.inputs):
                pairs[s.node.id] = o.node
                taken.add(o.node.id)
                found += 1
    return found


def _digest(node: "Node", cache: dict[int, str]) -> str:
    if node.id not in cache:
        op = node.op
        assert isinstance(op, Constant)
        value = np.ascontiguousarray(op.value)
        data = value.view(np.uint8).data if value.dtype != object else repr(value.tolist()).encode()
        cache[node.id] = hashlib.blake2b(data, digest_size=16).hexdigest()
    return cache[node.id]


def _changes(node: "Node", other: "Node", pairs: dict[int, "Node"], digests: dict[int, str]) -> list[Change]:
    out: list[Change] = []

    def add(kind: str, what: str, before: Any, after: Any) -> None:
        out.append(Change(node.name, kind, what, str(before), str(after)))

    if node.name != other.name:
        add("name", "friendly name", node.name, other.name)
    if (node.type_name, node.version) != (other.type_name, other.version):
        add("type", "op", f"{node.type_name}-{node.version}", f"{other.type_name}-{other.version}")
        return out
    mine, theirs = node.op.model_dump(), other.op.model_dump()
    for key in sorted(set(mine) | set(theirs)):
        if mine.get(key) != theirs.get(key):
            add("attribute", key, mine.get(key), theirs.get(key))
    for i, (t, u) in enumerate(zip(node.output_types, other.output_types)):
        if str(t) != str(u):
            add("output", f"port {i}", t, u)
    if isinstance(node.op, Constant) and isinstance(other.op, Constant) and not out:
        before, after = _digest(node, digests), _digest(other, {})
        if before != after:
            add("weights", "digest", before, after)
    wired = [(s.node.id, s.index) if s is not None else None for s in node.inputs]
    for i, (src, theirs_src) in enumerate(zip(node.inputs, other.inputs)):
        if src is None or theirs_src is None:
            continue
        mate = pairs.get(src.node.id)
        if mate is not None and (mate is not theirs_src.node or src.index != theirs_src.index):
            add("inputs", f"input {i}", f"{src.node.name}:{src.index}", f"{theirs_src.node.name}:{theirs_src.index}")
    if len(node.inputs) != len(other.inputs):
        add("inputs", "count", len(wired), len(other.inputs))
    return out
