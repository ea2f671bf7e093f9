"""Colourings laid over a scene: the nodes a dialect cannot express (``graphir validate``'s judgement)
and the time each node took in a profiled run (``graphir run --profile``'s measurement)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphir.drawing.scene import Scene

if TYPE_CHECKING:
    from graphir.model import Model

PROBLEM_FILL = "#f7c6c6"
EXPRESSIBLE_FILL = "#e3f1e3"
#: white -> yellow -> orange -> red, by share of the slowest node's time
HEAT = ["#ffffff", "#fff3c4", "#ffd98a", "#ffb35c", "#ff8a3d", "#f0502e"]


def color_dialect(scene: Scene, model: "Model", dialect: str, feature_level: str | None = None) -> int:
    """Fill the top-level nodes ``dialect`` cannot express and put the reason in their hover text;
    returns how many there are. Uses the validate command's per-node check."""
    from graphir.commands.validate import problems_by_node

    problems = problems_by_node(model, dialect, feature_level)
    for node_id, key in scene.top_level.items():
        box = scene.boxes[key]
        reasons = problems.get(node_id)
        if reasons:
            box.fill = PROBLEM_FILL
            box.note = f"cannot be expressed in {dialect}: " + "; ".join(reasons)
            box.attributes[f"{dialect}"] = "; ".join(reasons)
    return sum(1 for node_id in scene.top_level if problems.get(node_id))


def color_profile(scene: Scene, model: "Model", seed: int = 0) -> float:
    """Run the model once on random inputs (as ``graphir run --random --profile``), then fill each
    top-level node by its share of the slowest node's time and show the time; returns the total seconds."""
    from graphir.commands.run import gather_inputs

    values = gather_inputs(model, [], True, seed)
    result: Any = model.profile(values)
    seconds = {record.id: record.seconds for record in result.profile}
    slowest = max(seconds.values(), default=0.0) or 1.0
    for node_id, key in scene.top_level.items():
        if node_id not in seconds:
            continue
        box = scene.boxes[key]
        t = seconds[node_id]
        box.fill = HEAT[min(len(HEAT) - 1, int(t / slowest * (len(HEAT) - 1) + 0.5))]
        box.extra_line = f"{t * 1e6:.1f} us"
        box.note = f"{t * 1e6:.1f} us ({t / slowest:.0%} of the slowest node)"
        box.attributes["time (us)"] = f"{t * 1e6:.1f}"
    return sum(seconds.values())
