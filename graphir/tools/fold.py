"""Fold constant subgraphs, share identical constants, drop dead nodes (onnxsim / graphsurgeon
``fold_constants`` + ``cleanup`` for IR).

* a node whose outputs shape inference already knows (``ShapeOf -> Gather -> Concat`` once the
  input shapes are static) becomes a Constant of that value;
* a node whose inputs are all Constants is evaluated once, with the op's own ``evaluate`` (what a
  run computes), when the result is no larger than what it reads (a small result, up to
  ``small_bytes``, always folds): a Reshape or Transpose of a weight folds, a Convert of f16
  weights to f32 does not (it would double the weights; OpenVINO keeps those too), and weight
  decompression subgraphs (u8/u4/f16 weights with scales) are kept as they are;
* Constants of equal type, shape and bytes become one (it takes over the others' tensor names);
* nodes no Result or sink reaches are dropped (the Parameters stay: they are the interface).

The input model is not changed; :func:`fold` returns a new one and a :class:`FoldReport`.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.node import Node
from graphir.ops.openvino.core import Constant, Parameter, Result
from graphir.tools._common import detached_model, ModelLike, Shapes, as_model, progress_bar, table

if TYPE_CHECKING:
    from graphir.model import Model

#: a folded value up to this many bytes is kept even when larger than the constants it reads
SMALL_BYTES = 1024


@dataclass
class FoldReport:
    """Nodes and constant bytes before and after, and what each step did."""

    nodes_before: int
    nodes_after: int
    constant_bytes_before: int
    constant_bytes_after: int
    folded: int  # nodes replaced by a Constant
    shared: int  # Constants merged into an identical one
    removed: int  # nodes dropped in all (folded inputs, duplicates and dead nodes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def table(self) -> str:
        return table(["", "before", "after"], [
            ["nodes", self.nodes_before, self.nodes_after],
            ["constant bytes", self.constant_bytes_before, self.constant_bytes_after],
        ]) + (f"\nfolded {self.folded} nodes into constants, shared {self.shared} duplicate constants, "
              f"{self.removed} nodes removed")


def fold(model: ModelLike, *, shapes: "Shapes | None" = None, small_bytes: int = SMALL_BYTES,
         progress: bool | None = None) -> tuple["Model", FoldReport]:
    """The folded and cleaned copy of ``model`` and the report. ``shapes``: reshape the copy to these
    input shapes first (its shape subgraphs then fold)."""
    source = as_model(model)
    work = source.clone()
    if shapes:
        work.reshape({k: list(v) for k, v in shapes.items()})
    work.infer_shapes()
    order = work.get_ordered_ops()
    nodes_before, bytes_before = len(order), constant_bytes(order)
    keep = _decompression_nodes(work, order)
    folded = 0
    bar = progress_bar(len(order), "fold", progress)
    try:
        for node in order:
            bar.update(1)
            if node.id in keep or not _may_fold(node):
                continue
            values = _values(node, small_bytes)
            if values is None:
                continue
            for i, value in enumerate(values):
                name = node.name if i == 0 else f"{node.name}:{i}"
                const = Node(Constant.from_array(value, node.output_types[i].element_type), name=name)
                names = set(node.output(i).names)
                work.replace_all_uses_with(node.output(i), const.output(0))
                node.output(i).names = set()
                const.output(0).names = names
            folded += 1
    finally:
        bar.close()
    live = _live(work)  # the folded nodes dropped first: constants only they read are not counted shared
    shared = _share_constants(live)
    clean = _live(live)
    clean.meta = dict(source.meta)
    clean.infer_shapes()
    after = clean.get_ordered_ops()
    report = FoldReport(nodes_before, len(after), bytes_before, constant_bytes(after), folded, shared,
                        nodes_before + folded - len(after))
    return clean, report


def _decompression_nodes(work: "Model", order: Sequence[Node]) -> set[int]:
    """Ids of the nodes of weight decompression subgraphs (kept: the runtime computes them as a whole)."""
    import importlib

    for where in ("graphir.decompression", "graphir.numerics.openvino_cpu.decompression"):  # (it moved once)
        try:
            module: Any = importlib.import_module(where)
        except ImportError:
            continue
        found = module.decompressions(order)
        return set(found) | module.absorbed_nodes(order, found, work.get_results() + work.get_sinks())
    return set()


def _live(work: "Model") -> "Model":
    """The nodes of ``work`` its Results and sinks reach, as a model (its Parameters all kept)."""
    return detached_model(work.get_results(), work.get_parameters(), name=work.name, sinks=work.get_sinks(),
                          rt_info=work.rt_info)


def constant_bytes(nodes: Sequence[Node]) -> int:
    """Bytes the Constants among ``nodes`` store (at their element type's width)."""
    return sum(int(n.op.element_type.packed_size(n.op.size)) for n in nodes if isinstance(n.op, Constant))


def _may_fold(node: Node) -> bool:
    op = type(node.op)
    return (not isinstance(node.op, (Parameter, Constant, Result)) and op.foldable and op.runnable
            and not op.stateful and not op.has_bodies and bool(node.output_types))


def _values(node: Node, small_bytes: int) -> list[np.ndarray] | None:
    """The node's output values when it folds (see the module docstring), else None."""
    types = node.output_types
    sources = [s.node for s in node.inputs if s is not None]
    constants = [s.op for s in sources if isinstance(s.op, Constant)]
    known = [t.value for t in types]
    if all(v is not None for v in known):
        outs = [np.asarray(v, dtype=t.element_type.numpy_dtype).reshape(t.shape.to_shape()) for v, t in zip(known, types)]
    elif sources and len(constants) == len(sources):
        try:
            with np.errstate(all="ignore"):
                outs = [np.asarray(o) for o in node.op.evaluate(*[c.value for c in constants])[:len(types)]]
        except Exception:  # noqa: BLE001 - what does not evaluate here stays for the run to report
            return None
    else:
        return None
    if any(o.dtype != np.dtype(t.element_type.numpy_dtype) for o, t in zip(outs, types)):
        return None
    read = sum(int(c.element_type.packed_size(c.size)) for c in constants)
    made = sum(int(t.element_type.packed_size(o.size)) for o, t in zip(outs, types))
    # a small result folds unless it reads floating-point weights (a Convert of f16 weights stays)
    if made <= read or (made <= small_bytes and not any(c.element_type.is_real for c in constants)):
        return outs
    return None


def _share_constants(work: "Model") -> int:
    """Point every reader of a Constant to the first equal one (type, shape, bytes); how many merged."""
    first: dict[tuple[str, tuple[int, ...], str], Node] = {}
    merged = 0
    for node in work.get_ordered_ops():
        if not isinstance(node.op, Constant) or str(node.op.element_type) == "string":
            continue
        value = np.ascontiguousarray(node.op.value)
        key = (str(node.op.element_type), tuple(node.op.shape), hashlib.blake2b(value.view(np.uint8).data).hexdigest()
               if value.size else "")
        kept = first.setdefault(key, node)
        if kept is not node and work.replace_all_uses_with(node.output(0), kept.output(0)):
            kept.output(0).names = kept.output(0).names | node.output(0).names  # its tensor names live on
            node.output(0).names = set()
            merged += 1
    return merged
