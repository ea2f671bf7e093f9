"""What the tools share: loading a model given as a path or a Model, layer keys, run inputs, progress bars."""
from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from graphir.errors import InputError
from graphir.ops.openvino.core import Constant, Parameter, Result

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node, Output
    from graphir.ops.base import TensorType

#: a model as the tools take it: a Model, or the path of a file graphir reads
ModelLike = Union["Model", str, Path]
#: static input shapes by input name (or index)
Shapes = Mapping[Union[str, int], Sequence[int]]


def as_model(model: ModelLike) -> "Model":
    """``model`` itself, or the model read from its path."""
    if isinstance(model, (str, Path)):
        import graphir

        return graphir.read_model(model)
    return model


def is_layer(node: "Node") -> bool:
    """A node that computes something: not a Parameter, Constant or Result."""
    return not isinstance(node.op, (Parameter, Constant, Result))


def layer_key(node: "Node", port: int) -> str:
    """``name`` for a one-output layer, ``name:port`` otherwise (how the tools name a layer output)."""
    return node.name if port == 0 and len(node.output_types) == 1 else f"{node.name}:{port}"


def constant_only(nodes: Sequence["Node"]) -> set[int]:
    """The ids of the nodes (in topological order) whose value depends on Constants alone."""
    found: set[int] = set()
    for node in nodes:
        if isinstance(node.op, Constant) or (
                not isinstance(node.op, (Parameter, Result)) and node.inputs and not type(node.op).stateful
                and all(src is not None and src.node.id in found for src in node.inputs)):
            found.add(node.id)
    return found


def tensor_bytes(t: "TensorType") -> int:
    """Bytes of a tensor of type ``t`` at its element type's width (0 when its shape is not static)."""
    if not t.shape.is_static or t.element_type.is_dynamic:
        return 0
    return int(t.element_type.packed_size(math.prod(t.shape.to_shape())))


def model_inputs(model: "Model", inputs: "Mapping[str, Any] | str | Path | None" = None,
                 shapes: "Shapes | None" = None, seed: int = 0) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """The run inputs by Parameter name, and a record per input (name, shape, type, where it came
    from): those of ``inputs`` (a dict, or an .npz file keyed by input name or in input order), the
    rest random, with the shapes of ``shapes`` or sizes the model accepts."""
    from graphir.input_sizes import random_value
    from graphir.inference import find_parameter
    from graphir.input_sizes import choose_input_shapes

    params = model.get_parameters()
    given: dict[int, np.ndarray] = {}
    source = "given"
    if isinstance(inputs, (str, Path)):
        source = str(inputs)
        try:
            with np.load(inputs, allow_pickle=False) as archive:
                items: dict[Any, Any] = {k: archive[k] for k in archive.files}
        except (OSError, ValueError) as exc:
            raise InputError(f"inputs {inputs}: cannot read an .npz archive: {exc}") from None
        by_order = all(k.startswith("arr_") for k in items) and len(items) == len(params)
        inputs = {params[i].name: v for i, v in enumerate(items.values())} if by_order else items
    for key, value in (inputs or {}).items():
        given[params.index(find_parameter(model, key))] = np.asarray(value)
    missing = [i for i in range(len(params)) if i not in given]
    if missing:
        probe = model
        if shapes:
            probe = model.clone()
            probe.reshape({find_parameter(probe, k).name: list(v) for k, v in shapes.items()})
        chosen = choose_input_shapes(probe)
        rng = np.random.default_rng(seed)
        for i in missing:
            given[i] = random_value(params[i], tuple(chosen[i]), rng)
    records = [{"name": p.name, "shape": list(given[i].shape), "type": str(given[i].dtype),
                "source": "random" if i in missing else source} for i, p in enumerate(params)]
    return {p.name: given[i] for i, p in enumerate(params)}, records


def find_output(model: "Model", spec: str) -> "Any":
    """The output a tensor spec names: a tensor name, ``node:port`` or a node's friendly name (its
    port 0). An InputError lists what exists when nothing matches."""
    nodes = model.get_ordered_ops()
    for node in nodes:
        for i, names in enumerate(node.output_names):
            if spec in names:
                return node.output(i)
    name, _, port = spec.rpartition(":")
    if name and port.isdigit():
        for node in nodes:
            if node.name == name:
                if int(port) >= len(node.output_types):
                    raise InputError(f"tensor '{spec}': {node.describe()} has {len(node.output_types)} outputs")
                return node.output(int(port))
    for node in nodes:
        if node.name == spec and node.output_types:
            return node.output(0)
    raise InputError(f"model '{model.name}' has no tensor '{spec}' (give a tensor name, a layer name or "
                     f"LAYER:PORT)")


def progress_bar(total: int, description: str, enabled: bool | None) -> Any:
    """A tqdm bar on stderr (None: only on a terminal); an object whose update/close do nothing otherwise."""
    if enabled is False or (enabled is None and not sys.stderr.isatty()):
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=description, unit="layer", leave=False, file=sys.stderr)


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Rows as aligned columns (numbers right-aligned)."""
    from graphir.commands._common import table as _table

    return _table(headers, [list(r) for r in rows])


def detached_model(roots: "Sequence[Output | Node]", parameters: "Sequence[Node]", *, name: str,
                   sinks: "Sequence[Node]" = (), rt_info: "Mapping[str, Any] | None" = None) -> "Model":
    """A new model of fresh copies of the nodes ``roots`` and ``sinks`` reach (a node belongs to one
    model, so a tool that reshapes a working model builds its result from copies, not its nodes).
    ``roots``: Result nodes (copied) or outputs (a new Result each); ``parameters``: the
    Parameters in order (each must be reached or listed)."""
    from graphir.model import Model
    from graphir.node import Node, Output

    starts = [r.node if isinstance(r, Output) else r for r in roots] + list(sinks) + list(parameters)
    order: list[Node] = []
    seen: set[int] = set()
    stack: list[tuple[Node, bool]] = [(n, False) for n in reversed(starts)]
    while stack:  # an iterative post-order: each node after its inputs
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if node.id in seen:
            continue
        seen.add(node.id)
        stack.append((node, True))
        stack.extend((s.node, False) for s in reversed(node.inputs) if s is not None and s.node.id not in seen)
    copies: dict[int, Node] = {}
    for node in order:
        copy = node.copy([None if s is None else copies[s.node.id].output(s.index) for s in node.inputs])
        copy.id = node.id  # the same ids: the copies replace the originals (files keep their layer order)
        copies[node.id] = copy
    new_roots = [copies[r.node.id].output(r.index) if isinstance(r, Output) else copies[r.id] for r in roots]
    return Model(new_roots, [copies[p.id] for p in parameters], name=name,
                 sinks=[copies[s.id] for s in sinks], rt_info=rt_info)
