"""``InferRequest``: runs a model step after step, carrying its variables (OpenVINO's API shape).

    req = model.create_infer_request()
    out = req.infer(inputs)          # what model.run(inputs) returns; Assigns update the state
    prof = req.profile(inputs)       # the same run, timed per node (a RunResult)
    for s in req.query_state():      # one VariableState per variable
        print(s.name, s.state.shape) # the variable_id and its current value
    req.reset_state()                # every variable back to its initial value

A request owns everything a run writes (the value table, the variable state): separate requests
on one model run in parallel threads; one request used from two threads at once is refused
("request busy"), as OpenVINO refuses ("Infer Request is busy"). ``model.run`` is a fresh
request's ``infer``.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.errors import GraphirError, InputError
from graphir.interpreter import RunResult, execute, get_plan
from graphir.limits import tensor_limit
from graphir.numerics import check as check_numerics
from graphir.variables import Variable, VariableStore

if TYPE_CHECKING:
    from graphir.model import Model


def run_fresh(model: "Model", inputs: Any, numerics: str, progress: bool | None,
              max_tensor_bytes: "int | None") -> dict[str, np.ndarray]:
    """What a fresh request's :meth:`InferRequest.infer` returns (``Model.run``), without making
    the request: a fresh request is used by no other thread and its variables start from their
    initial values, which is what :func:`graphir.interpreter.execute` does without a store."""
    check_numerics(numerics)
    return _execute(model, inputs, None, numerics, max_tensor_bytes, progress=progress)  # type: ignore[no-any-return]


def _execute(model: "Model", inputs: Any, store: Any, numerics: str, max_tensor_bytes: "int | None",
             **options: Any) -> Any:
    """:func:`graphir.interpreter.execute` under ``max_tensor_bytes`` when given."""
    if max_tensor_bytes is None:
        return execute(model, inputs, store, numerics=numerics, **options)
    with tensor_limit(max_tensor_bytes):
        return execute(model, inputs, store, numerics=numerics, **options)


class RequestBusyError(GraphirError):
    """A request was used from a second thread while it was running."""


class VariableState:
    """One variable of a request: ``name`` (its variable_id), ``state`` (its value; assignable)
    and ``reset()``. Before a first read or after a reset, ``state`` is the value the next read
    gives without an init input (zeros, dynamic dims 0); with an init input, the next step reads
    the init's value."""

    def __init__(self, store: VariableStore, variable: Variable) -> None:
        self._store = store
        self.variable = variable

    @property
    def name(self) -> str:
        return self.variable.variable_id

    def get_name(self) -> str:
        return self.name

    @property
    def state(self) -> np.ndarray:
        value = self._store.values.get(self.name)
        return value if value is not None else self.variable.initial_value()

    @state.setter
    def state(self, value: Any) -> None:
        self._store.values[self.name] = self.variable.check_value(value)

    def get_state(self) -> np.ndarray:
        return self.state

    def set_state(self, value: Any) -> None:
        self.state = value

    def reset(self) -> None:
        """The next read gives the initial value again (the init input's, or zeros)."""
        self._store.values.pop(self.name, None)

    def __repr__(self) -> str:
        return f"<VariableState '{self.name}' {self.variable.element_type}{self.variable.shape}>"


class InferRequest:
    """A model, a numerics profile and the values of the model's variables. ``infer`` runs one step."""

    def __init__(self, model: "Model", numerics: str = "reference") -> None:
        self.model = model
        #: the numerics profile every infer of this request computes under (graphir.numerics)
        self.numerics = check_numerics(numerics)
        self._store: VariableStore | None = None  # made on first use (a model.run needs none of its own)
        self._busy = threading.Lock()

    def _current_store(self) -> VariableStore:
        """The store, re-pointed at the model's variables when the model's plan was rebuilt (an edit)."""
        variables = get_plan(self.model).variables
        store = self._store
        if store is None:
            store = self._store = VariableStore(variables)
        elif variables is not store.variables:
            store.variables = variables
            for vid in [v for v in store.values if v not in variables]:
                del store.values[vid]
        return store

    def _run(self, inputs: Any, profile: bool, progress: bool | None, max_tensor_bytes: "int | None",
             prepared: bool = True) -> Any:
        if not self._busy.acquire(blocking=False):
            raise RequestBusyError(f"request busy: this InferRequest on model '{self.model.name}' is running "
                                   "in another thread; use one request per thread (model.create_infer_request())")
        try:
            store = self._current_store() if self._store is not None or get_plan(self.model).state_slot >= 0 else None
            return _execute(self.model, inputs, store, self.numerics, max_tensor_bytes, profile=profile,
                            progress=progress, prepared=prepared)
        finally:
            self._busy.release()

    def infer(self, inputs: Any = None, *, progress: bool | None = None,
              max_tensor_bytes: "int | None" = None) -> dict[str, np.ndarray]:
        """Run one step from the current state: {result tensor name: array} in Result order.
        ``progress``: None shows a tqdm bar on a terminal once a run passes one second; True/False
        force it. ``max_tensor_bytes``: the largest tensor the run may build (default:
        ``GRAPHIR_MAX_TENSOR_BYTES`` or 4 GiB, see :mod:`graphir.limits`)."""
        return self._run(inputs, False, progress, max_tensor_bytes)  # type: ignore[no-any-return]

    def profile(self, inputs: Any = None, *, max_tensor_bytes: "int | None" = None) -> RunResult:
        """Run one step like :meth:`infer`, timing each node: a RunResult (outputs, per-node profile)."""
        return self._run(inputs, True, False, max_tensor_bytes)  # type: ignore[no-any-return]

    def _infer_unspecialized(self, inputs: Any = None) -> dict[str, np.ndarray]:
        """For tests of the specialized plans: :meth:`infer` with every op's generic evaluate."""
        return self._run(inputs, False, False, None, prepared=False)  # type: ignore[no-any-return]

    def query_state(self) -> list[VariableState]:
        store = self._current_store()
        return [VariableState(store, v) for v in store.variables.values()]

    def reset_state(self) -> None:
        self._current_store().values.clear()

    def __repr__(self) -> str:
        count = len(get_plan(self.model).variables)
        return f"<InferRequest on '{self.model.name}', {count} variables, numerics={self.numerics!r}>"
