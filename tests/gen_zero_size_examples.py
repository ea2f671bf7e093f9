"""Writes tests/fixtures/zero_size/examples.pkl: one small example per registered op class, taken
from the tests that already run it (run: python tests/gen_zero_size_examples.py; 10-20 minutes).

The per-op tests (tests/ops/, the oneDNN and DirectML tests, the numerics-profile grids) build
small models and run them, or call an op's ``evaluate``, or build nodes to check shape inference.
This script runs those test files with three hooks, and keeps for each op class the best example
found, in this order:

1. a run (``graphir.request.execute`` wrapped): the model is walked node by node (as
   tests/numerics_consistency.py ``walk`` does) and the node's inputs are kept, each marked as
   coming from a Constant or not, with its element type;
2. a direct ``op.evaluate(...)`` call (each op class's ``evaluate`` wrapped): its arrays, none
   marked constant;
3. shape inference (``Node.__init__`` and each op class's ``infer`` wrapped) on static input
   shapes: the input types, and the values of constant inputs (the sweep fills the others).

An example with an input of rank >= 1 that is not a constant is preferred to one without.
tests/test_zero_size_dims.py derives its zero-size variants from these.
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
SOURCES = ["tests/ops", "tests/test_onednn_ops.py", "tests/test_onednn_differential.py", "tests/test_onednn_convert.py",
           "tests/test_select_onednn.py", "tests/test_variables.py",
           "tests/test_onednn_conformance.py", "tests/test_directml.py", "tests/test_numerics_profiles.py",
           "tests/test_prepared_steps.py", "tests/test_select_evaluate.py", "tests/test_interpreter.py"]
#: inputs larger than this (bytes, all inputs of the node) are not kept
MAX_BYTES = 1 << 16

#: (dialect, type, version) -> {"op": the op, "inputs": [(array or None, from_constant, element type name)],
#: "source": test id, "tier": 1 (a run), 2 (an evaluate call) or 3 (a node built)}
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


def _has_data(inputs: list[tuple[Any, bool, str]]) -> bool:
    return any(not const and len(shape) > 0 for shape, const in ((_shape(a), c) for a, c, _ in inputs))


def _shape(a: Any) -> tuple[int, ...]:
    return tuple(a.shape)


def _better(key: tuple[str, str, str], inputs: list[tuple[Any, bool, str]], tier: int) -> bool:
    known = EXAMPLES.get(key)
    if known is None:
        return True
    if _has_data(known["inputs"]) != _has_data(inputs):
        return _has_data(inputs)
    return tier < known["tier"]


def _wants(node: Any) -> bool:
    known = EXAMPLES.get(_key(node))
    return known is None or known["tier"] > 1 or not _has_data(known["inputs"])


def _keep(op: Any, inputs: list[tuple[Any, bool, str]], tier: int) -> None:
    key = (op.dialect, op.type_name, op.version)
    if sum(int(getattr(a, "nbytes", 0)) for a, _, _ in inputs) > MAX_BYTES or not _better(key, inputs, tier):
        return
    try:
        pickle.dumps(op)
    except Exception:  # noqa: BLE001
        return
    EXAMPLES[key] = {"op": op, "inputs": inputs, "source": CURRENT_TEST[0], "tier": tier}


def _record(node: Any, args: list[Any]) -> None:
    if any(s is None for s in node.inputs):
        return
    inputs = []
    for s, a in zip(node.inputs, args):
        if type(a) is not np.ndarray:
            return  # a variable store, a string list: not an example the sweep can replay
        inputs.append((a.copy(), s.node.type_name == "Constant", s.tensor_type.element_type.name))
    _keep(node.op, inputs, 1)


def _record_evaluate(op: Any, arrays: tuple[Any, ...]) -> None:
    from graphir.types import ElementType

    if not arrays or any(type(a) is not np.ndarray for a in arrays):
        return
    try:
        inputs = [(a.copy(), False, ElementType.from_numpy(a.dtype).name) for a in arrays]
    except Exception:  # noqa: BLE001 - a dtype graphir has no element type for
        return
    _keep(op, inputs, 2)


def _record_node(node: Any) -> None:
    if node.type_name in ("Parameter", "Result") or any(s is None for s in node.inputs):
        return
    _record_types(node.op, [s.tensor_type for s in node.inputs],
                  [s.node.type_name == "Constant" for s in node.inputs])


def _record_types(op: Any, types: list[Any], constant: "list[bool] | None" = None) -> None:
    inputs: list[tuple[Any, bool, str]] = []
    for i, t in enumerate(types):
        if not t.shape.is_static or t.element_type.is_dynamic or t.element_type.name == "string":
            return
        const = constant[i] if constant is not None else t.value is not None
        value = t.value if const and type(t.value) is np.ndarray else None
        inputs.append((value if value is not None else _Spec(tuple(t.shape.to_shape())), value is not None,
                       t.element_type.name))
    _keep(op, inputs, 3)


class _Spec:
    """The shape of an input whose values the sweep fills in (tier 3)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape
        self.nbytes = 8 * int(np.prod(shape))


def _wrapped(evaluate: Any) -> Any:
    def wrapper(self: Any, *arrays: Any) -> Any:
        try:
            _record_evaluate(self, arrays)
        except Exception:  # noqa: BLE001
            pass
        return evaluate(self, *arrays)

    wrapper.__wrapped__ = evaluate  # type: ignore[attr-defined]
    return wrapper


def _wrapped_infer(infer: Any) -> Any:
    def wrapper(self: Any, inputs: Any, *rest: Any) -> Any:
        out = infer(self, inputs, *rest)
        try:
            if type(self).dialect != "openvino" or type(self).type_name not in ("Parameter", "Result"):
                _record_types(self, list(inputs))
        except Exception:  # noqa: BLE001
            pass
        return out

    wrapper.__wrapped__ = infer  # type: ignore[attr-defined]
    return wrapper


class Harvest:
    """A pytest plugin: wraps the one run path while the tests run."""

    def pytest_configure(self, config: Any) -> None:
        import graphir.request as request
        from graphir.node import Node
        from graphir.ops.base import Op
        from graphir.ops.registry import all_ops

        real = request.execute

        def execute(model: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
            out = real(model, inputs, *args, **kwargs)
            try:
                _walk_and_record(model, inputs)
            except Exception:  # noqa: BLE001 - harvesting never fails a test
                pass
            return out

        request.execute = execute
        node_init = Node.__init__

        def init(self: Any, *args: Any, **kwargs: Any) -> None:
            node_init(self, *args, **kwargs)
            try:
                _record_node(self)
            except Exception:  # noqa: BLE001
                pass

        Node.__init__ = init  # type: ignore[method-assign]
        for cls in all_ops():
            own = cls.__dict__.get("evaluate")
            if own is None or cls is Op or not callable(own):
                continue
            setattr(cls, "evaluate", _wrapped(own))
        for cls in all_ops():
            own = cls.__dict__.get("infer")
            if own is None or not callable(own):
                continue
            setattr(cls, "infer", _wrapped_infer(own))

    def pytest_runtest_setup(self, item: Any) -> None:
        CURRENT_TEST[0] = item.nodeid


def main() -> None:
    import pytest

    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    pytest.main(["-q", "-p", "no:cacheprovider", "-x", "--co"] if "--collect" in sys.argv else
                ["-q", "-p", "no:cacheprovider", *(sys.argv[1:] or SOURCES)], plugins=[Harvest()])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    saved = {key: {"op": e["op"], "source": e["source"], "tier": e["tier"],
                   "inputs": [{"value": a if type(a) is np.ndarray else None, "shape": tuple(a.shape),
                               "constant": const, "type": et} for a, const, et in e["inputs"]]}
             for key, e in sorted(EXAMPLES.items())}
    with OUT.open("wb") as f:
        pickle.dump(saved, f, protocol=4)
    print(f"{len(EXAMPLES)} op classes recorded in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
