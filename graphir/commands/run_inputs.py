"""What ``graphir run`` says and keeps about its inputs: the shapes ``--random`` chose (on stderr),
``--save-inputs`` (every input of the run in an .npz), and the steps of a multi-step .npz
(``step<k>:<name>`` keys: step k's value of input <name>), run in order with the state carried."""
from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.cli import UsageError

if TYPE_CHECKING:
    from graphir.model import Model

_STEP_KEY = re.compile(r"step(\d+):(.+)")


def report_random(model: "Model", values: Mapping[int, Any], chosen: Mapping[int, tuple[int, ...]], seed: int,
                  step: int | None = None) -> None:
    """One line per random input on stderr: its name, type and the shape chosen, and where a dim
    was dynamic (the defaults: graphir.input_sizes.default_size)."""
    params = model.get_parameters()
    where = "" if step is None else f" (step {step})"
    for i in sorted(chosen):
        param = params[i]
        declared = param.op.shape  # type: ignore[attr-defined]
        shape = "[" + ",".join(str(d) for d in np.shape(values[i])) + "]"
        note = "" if declared.is_static else f", chosen for {declared}"
        print(f"random input '{param.name}'{where}: {param.op.element_type}{shape}{note} (seed {seed})",  # type: ignore[attr-defined]
              file=sys.stderr)


def input_arrays(model: "Model", values: Mapping[int, Any], prefix: str = "") -> dict[str, Any]:
    """The run's inputs keyed by input name (as ``--inputs`` reads them back)."""
    params = model.get_parameters()
    return {f"{prefix}{params[i].name}": values[i] for i in sorted(values)}


def split_steps(members: Mapping[str, Any], archive: str) -> dict[int, dict[str, Any]] | None:
    """``step<k>:<name>`` members by step (steps 0..K-1, each given); None when no key is a
    step key; a UsageError when some are and some are not, or a step is missing."""
    matched = {key: _STEP_KEY.fullmatch(key) for key in members}
    if not any(matched.values()):
        return None
    plain = [key for key, m in matched.items() if m is None]
    if plain:
        raise UsageError(f"--inputs {archive}: keys {', '.join(repr(k) for k in plain[:3])} have no step<k>: "
                         "prefix while others do; a multi-step archive keys every value step<k>:<input name>")
    steps: dict[int, dict[str, Any]] = {}
    for key, m in matched.items():
        assert m is not None
        steps.setdefault(int(m.group(1)), {})[m.group(2)] = members[key]
    missing = sorted(set(range(max(steps) + 1)) - set(steps))
    if missing:
        raise UsageError(f"--inputs {archive}: step{missing[0]} has no values (steps run 0, 1, ... in order)")
    return dict(sorted(steps.items()))
