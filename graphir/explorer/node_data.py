"""Per-node overlays for Model Explorer ("Add per-node data", or ``--node_data_paths``) from what
graphir knows: the bytes each node's outputs take, and how many reasons a target dialect has to
refuse each node (``graphir validate``). The JSON is Model Explorer's node-data format:
``{graph id: {"name", "results": {node id: {"value"}}, "thresholds" | "gradient"}}``; the graph id
is the model file's stem, as the adapter names it. Needs nothing beyond graphir to write.
"""
from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from graphir.model import Model

#: low to high: white to red
_GRADIENT = [{"stop": 0, "bgColor": "#ffffff"}, {"stop": 1, "bgColor": "#e53935"}]


def graph_id(model_path: str) -> str:
    """The id the adapter gives the file's main graph."""
    return os.path.splitext(os.path.basename(model_path))[0]


def output_bytes(model: "Model") -> dict[str, float]:
    """Node id -> bytes of its outputs (a dynamic dim counts its lower bound, at least 1)."""
    values: dict[str, float] = {}
    for node in model.get_ordered_ops():
        total = 0
        for output in node.outputs():
            t = output.tensor_type
            if t.shape.rank_is_dynamic or t.element_type.is_dynamic or str(t.element_type) == "string":
                continue
            total += t.element_type.packed_size(int(np.prod([max(d.min, 1) for d in t.shape], dtype=np.int64)))
        values[str(node.id)] = float(total)
    return values


def dialect_problems(model: "Model", dialect: str) -> dict[str, float]:
    """Node id -> how many reasons ``dialect`` cannot express the node (0: it can)."""
    from graphir.commands.validate import problems_by_node

    found = problems_by_node(model, dialect)
    return {str(node.id): float(len(found.get(node.id, []))) for node in model.get_ordered_ops()}


def for_page(values: dict[str, float], model: "Model", model_path: str) -> dict[str, float]:
    """``values`` (by graphir node id) keyed by the ids the adapter gives the nodes of the file at
    ``model_path`` (:func:`graphir.explorer.positional_ids`)."""
    from graphir.explorer import page_ids, positional_ids

    ids = page_ids(model, positional_ids(model_path))
    return {ids[int(key)]: value for key, value in values.items()}


def node_data_json(graph: str, name: str, values: dict[str, float], *, thresholds: list[dict[str, Any]] | None = None) -> str:
    """Model Explorer's node-data JSON for one graph: a gradient over the values, or ``thresholds``."""
    data: dict[str, Any] = {"name": name, "results": {key: {"value": value} for key, value in values.items()}}
    if thresholds is not None:
        data["thresholds"] = thresholds
    else:
        data["gradient"] = _GRADIENT
    return json.dumps({graph: data}, indent=1)


#: 0 reasons: green; any: red
PROBLEM_THRESHOLDS = [{"value": 0, "bgColor": "#c8e6c9"}, {"value": 1_000_000, "bgColor": "#ef9a9a"}]


def run_times(model: "Model", inputs: "dict[str, Any] | str | None" = None, *, seed: int = 0) -> dict[str, float]:
    """Node id -> microseconds it took in one profiled run on ``inputs`` (a dict by input name or
    an .npz file; missing inputs random, of sizes the model accepts). Only the nodes that run are
    there: Parameters, Constants, Results and constant subgraphs folded before the run are not."""
    from graphir.tools._common import model_inputs

    feeds, _ = model_inputs(model, inputs, None, seed)
    values: dict[str, float] = {}
    for record in model.profile(feeds).profile:
        key = str(record.id)
        values[key] = values.get(key, 0.0) + record.seconds * 1e6
    return values


def layer_errors(model: "Model", reference: Any = None, *, what: str = "max_abs", **options: Any) -> dict[str, float]:
    """Node id -> its outputs' largest ``max_abs`` error (or total ``mismatches`` with
    ``what="mismatches"``) from :func:`graphir.tools.compare.compare` of ``model`` against
    ``reference`` (None: OpenVINO CPU; ``options`` go to ``compare``). Layers whose shapes differ
    from the reference's (no number to give) are left out; ``graphir compare`` names them."""
    from graphir.tools.compare import compare

    result = compare(model, reference, progress=False, **options)
    ids: dict[str, list[int]] = {}
    for node in model.get_ordered_ops():
        ids.setdefault(node.name, []).append(node.id)
    values: dict[str, float] = {}
    for layer in result.layers:
        value = float(layer.mismatches) if what == "mismatches" else layer.max_abs
        if value != value:  # NaN: the shapes differ
            continue
        for node_id in ids.get(layer.name, []):
            key = str(node_id)
            values[key] = values[key] + value if what == "mismatches" and key in values else max(values.get(key, 0.0), value)
    return values
