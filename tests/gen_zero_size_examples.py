"""Writes tests/fixtures/zero_size/examples.pkl: one small example per registered op class, taken
from the tests that already run it (run: python tests/gen_zero_size_examples.py).

The per-op tests (tests/ops/, the oneDNN and DirectML tests, the numerics-profile grids) build
small models and run them through ``graphir.request.execute``. This script runs those test files
with that call wrapped: the first time a run holds a node of an op class not yet recorded, the
model is walked node by node (as tests/numerics_consistency.py ``walk`` does) and the node's op
and input arrays are kept, each input marked as coming from a Constant or not. An instance is
replaced by a later one only when the later has a non-constant input the first lacked, or when its
inputs are much smaller. tests/test_zero_size_dims.py derives its zero-size variants from these.

The fixture holds each op pickled with its (dialect, type, version) and its attributes; the test
rebuilds the op from the registry and the attributes, so the pickle ties to graphir's op classes
only as much as the attribute dicts do.
"""
from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "zero_size" / "examples.pkl"
#: the test files whose runs are harvested
SOURCES = ["tests/ops", "tests/test_onednn_ops.py", "tests/test_onednn_differential.py",
           "tests/test_onednn_conformance.py", "tests/test_directml.py", "tests/test_numerics_profiles.py",
           "tests/test_prepared_steps.py", "tests/test_select_evaluate.py", "tests/test_interpreter.py"]
#: inputs larger than this (bytes, all inputs of the node) are not kept
MAX_BYTES = 1 << 16

#: (dialect, type, version) -> {"attributes": ..., "inputs": [(array, from_constant)], "source": test id}
EXAMPLES: dict[tuple[str, str, str], dict[str, Any]] = {}
CURRENT_TEST = [""]


def _walk_and_record(model: Any, inputs: Any) -> None:
    import graphir.numerics
    from graphir.interpreter import prepare_inputs

    nodes = model.get_ordered_ops()
    wanted = [n for n in nodes if n.type_name not in ("Parameter", "Result") and _wants(n)]
    if not wanted:
        return
    try:
        given = prepare_inputs(model, inputs)
    except Exception:  # noqa: BLE001 - the run itself reports it
        return
    values: dict[tuple[int, int], Any] = {}
    for p, value in zip(model.get_parameters(), given):
        values[(p.id, 0)] = np.asarray(value)
    ids = {n.id for n in wanted}
    with graphir.numerics.using("reference"):
        for node in nodes:
            if node.type_name in ("Parameter", "Result"):
                continue
            try:
                args = [values[(s.node.id, s.index)] for s in node.inputs if s is not None]
            except KeyError:
                return
            if node.id in ids:
                _record(node, args)
            try:
                outs = graphir.numerics.evaluator(node.op, "reference", node.input_types())(args)
            except Exception:  # noqa: BLE001 - a failing case of a test: nothing more to learn
                return
            for i, v in enumerate(outs):
                values[(node.id, i)] = v


def _key(node: Any) -> tuple[str, str, str]:
    op = node.op
    return (op.dialect, op.type_name, op.version)


def _has_data(inputs: list[tuple[np.ndarray, bool]]) -> bool:
    return any(not const and np.ndim(a) > 0 for a, const in inputs)


def _wants(node: Any) -> bool:
    known = EXAMPLES.get(_key(node))
    return known is None or not _has_data(known["inputs"])


def _record(node: Any, args: list[Any]) -> None:
    if any(s is None for s in node.inputs):
        return
    inputs = []
    for s, a in zip(node.inputs, args):
        if type(a) is not np.ndarray:
            return  # a variable store, a string list: not an example the sweep can replay
        inputs.append((a.copy(), s.node.type_name == "Constant"))
    if sum(a.nbytes for a, _ in inputs) > MAX_BYTES:
        return
    known = EXAMPLES.get(_key(node))
    if known is not None and (_has_data(known["inputs"]) or not _has_data(inputs)):
        return
    try:
        pickle.dumps(node.op)
    except Exception:  # noqa: BLE001
        return
    EXAMPLES[_key(node)] = {"op": node.op, "inputs": inputs, "source": CURRENT_TEST[0]}


class Harvest:
    """A pytest plugin: wraps the one run path while the tests run."""

    def pytest_configure(self, config: Any) -> None:
        import graphir.request as request

        real = request.execute

        def execute(model: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
            out = real(model, inputs, *args, **kwargs)
            try:
                _walk_and_record(model, inputs)
            except Exception:  # noqa: BLE001 - harvesting never fails a test
                pass
            return out

        request.execute = execute

    def pytest_runtest_setup(self, item: Any) -> None:
        CURRENT_TEST[0] = item.nodeid


def main() -> None:
    import pytest

    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    pytest.main(["-q", "-p", "no:cacheprovider", "-x", "--co"] if "--collect" in sys.argv else
                ["-q", "-p", "no:cacheprovider", *(sys.argv[1:] or SOURCES)], plugins=[Harvest()])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("wb") as f:
        pickle.dump(dict(sorted(EXAMPLES.items())), f, protocol=4)
    print(f"{len(EXAMPLES)} op classes recorded in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
