"""Shrink a model to a small subgraph on which a check still fails (Polygraphy's ``debug reduce`` for IR).

The check is a Python predicate (``check(model) -> True`` while the failure reproduces) or a shell
command, run on the candidate saved as IR: ``{model}`` in the command is replaced by the .xml path
(appended when absent), and a non-zero exit status means the failure reproduces.

Two bisections over the layers in execution order, each candidate cut with :func:`extract`:

1. **outputs**: the shortest prefix of layers that still fails, its outputs being every tensor the
   prefix computes that something after it reads (so the failing layer's effect is visible); then,
   when that still fails, the last layer's outputs alone;
2. **inputs**: the shortest suffix of that model that still fails, every tensor it reads from the
   layers before it made an input (a Parameter of the inferred type and shape).

Each step is printed (``log``): the layers tried and whether the check failed. Bisection assumes
a failing layer fails in any larger subgraph around it, as a wrong value or an op that breaks does.
"""
from __future__ import annotations

import shlex
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from graphir.errors import GraphirError
from graphir.tools._common import ModelLike, Shapes, as_model, constant_only, is_layer, progress_bar
from graphir.tools.extract import extract

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node, Output

Check = Union[Callable[["Model"], bool], str]


@dataclass
class Reduction:
    """The smallest failing model found and the steps that led to it."""

    model: "Model"
    layers_before: int
    layers: list[str]  # the names of the layers left
    steps: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"layers_before": self.layers_before, "layers_after": len(self.layers), "layers": self.layers,
                "inputs": [p.name for p in self.model.get_parameters()], "steps": self.steps}


def layers_of(model: "Model") -> list["Node"]:
    """The computed layers (constant-only nodes left out), in execution order."""
    order = model.get_ordered_ops()
    folded = constant_only(order)
    return [n for n in order if is_layer(n) and n.id not in folded]


def reduce(model: ModelLike, check: Check, *, shapes: "Shapes | None" = None,
           log: Callable[[str], None] | None = print, progress: bool | None = None,
           timeout: float | None = None) -> Reduction:
    """Bisect ``model`` down to a small subgraph on which ``check`` still fails (see the module
    docstring). ``shapes``: static input shapes to reshape a copy of the model to first (every cut
    input is then static too, so a check feeding random inputs feeds the sizes the failure had).
    ``timeout``: seconds a check command may take (past it, it counts as passing)."""
    source = as_model(model)
    if shapes:
        source = source.clone()
        source.reshape({k: list(v) for k, v in shapes.items()})
    say = log or (lambda text: None)
    with tempfile.TemporaryDirectory(prefix="graphir-reduce-") as tmp:
        failing = _checker(check, Path(tmp), timeout)
        start = layers_of(source)
        result = Reduction(source, len(start), [n.name for n in start])
        if not failing(source):
            raise GraphirError("reduce: the check passes on the whole model; nothing to reduce")
        say(f"whole model: {len(start)} layers, check fails")
        bar = progress_bar(2 * max(1, len(start)).bit_length() + 2, "reduce", progress)

        def attempt(phase: str, detail: str, build: Callable[[], "Model"]) -> "Model | None":
            try:
                candidate = build()
            except GraphirError as exc:  # a cut graphir cannot make into a model: count it as passing
                say(f"  {phase} {detail}: cannot extract ({exc})")
                return None
            fails = failing(candidate)
            count = len(layers_of(candidate))
            result.steps.append({"phase": phase, "detail": detail, "layers": count, "fails": fails})
            say(f"  {phase} {detail}: {count} layers, check {'fails' if fails else 'passes'}")
            bar.update(1)
            return candidate if fails else None

        try:
            current = _shrink_outputs(source, attempt)
            current = _shrink_inputs(current, attempt)
        finally:
            bar.close()
    left = layers_of(current)
    say(f"reduced {len(start)} -> {len(left)} layers: " + ", ".join(f"{n.name} ({n.type_name})" for n in left))
    result.model, result.layers = current, [n.name for n in left]
    return result


Attempt = Callable[[str, str, Callable[[], "Model"]], "Model | None"]


def _frontier(model: "Model", prefix: Sequence["Node"]) -> list["Output"]:
    """Outputs of ``prefix`` read by a node outside it (a Result included)."""
    inside = {n.id for n in prefix}
    out: list["Output"] = []
    for node in prefix:
        for port in node.outputs():
            if any(reader.id not in inside for reader, _ in model.consumers(port)):
                out.append(port)
    return out


def _shrink_outputs(model: "Model", attempt: Attempt) -> "Model":
    layers = layers_of(model)
    lo, hi = 0, len(layers) - 1  # the prefix ending at hi fails (the whole model does)
    best: "Model" = model
    while lo < hi:
        mid = (lo + hi) // 2
        found = attempt("outputs", f"layers 1..{mid + 1} of {len(layers)}",
                        partial(extract, model, _frontier(model, layers[:mid + 1])))
        if found is not None:
            hi, best = mid, found
        else:
            lo = mid + 1
    last = layers[hi]
    read = [p for p in last.outputs() if model.consumers(p)]
    if read and _frontier(model, layers[:hi + 1]) != read:
        found = attempt("outputs", f"only '{last.name}' ({last.type_name})", partial(extract, model, read))
        if found is not None:
            return found
    if best is model and hi < len(layers) - 1:
        best = extract(model, _frontier(model, layers[:hi + 1]))
    return best


def _shrink_inputs(model: "Model", attempt: Attempt) -> "Model":
    layers = layers_of(model)
    outputs = [r.input_value(0) for r in model.get_results()]
    lo, hi = 0, len(layers) - 1  # the suffix from lo fails (the whole model does)
    best = model
    while lo < hi:
        mid = (lo + hi + 1) // 2
        found = attempt("inputs", f"layers {mid + 1}..{len(layers)} of {len(layers)}",
                        partial(extract, model, outputs, _boundary(model, layers, mid)))
        if found is not None:
            lo, best = mid, found
        else:
            hi = mid - 1
    return best


def _boundary(model: "Model", layers: Sequence["Node"], start: int) -> list["Output"]:
    """The outputs of ``layers[:start]`` that ``layers[start:]`` read."""
    before = {n.id for n in layers[:start]}
    seen: dict[tuple[int, int], "Output"] = {}
    for node in layers[start:]:
        for src in node.inputs:
            if src is not None and src.node.id in before:
                seen.setdefault((src.node.id, src.index), src)
    return list(seen.values())


def _checker(check: Check, tmp: Path, timeout: float | None) -> Callable[["Model"], bool]:
    if callable(check):
        return lambda model: bool(check(model))
    command = str(check)

    def run_command(model: "Model") -> bool:
        import graphir

        path = tmp / "candidate.xml"
        graphir.save_model(model, path)
        line = command.replace("{model}", shlex.quote(str(path))) if "{model}" in command \
            else f"{command} {shlex.quote(str(path))}"
        try:
            done = subprocess.run(line, shell=True, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return False
        return done.returncode != 0

    return run_command
