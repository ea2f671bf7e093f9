"""``InferRequest``: runs a model step after step, carrying its variables (OpenVINO's API shape).

    req = model.create_infer_request()
    out = req.infer(inputs)          # what model.run(inputs) returns; Assigns update the state
    for s in req.query_state():      # one VariableState per variable
        print(s.name, s.state.shape) # the variable_id and its current value
    req.reset_state()                # every variable back to its initial value

Each request owns its store; several requests on one model keep separate state.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.interpreter import get_plan, run
from graphir.numerics import check as check_numerics
from graphir.variables import Variable, VariableStore

if TYPE_CHECKING:
    from graphir.model import Model


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
    """A model plus the values of its variables. ``infer`` runs one step."""

    def __init__(self, model: "Model", numerics: str = "reference") -> None:
        self.model = model
        #: the numerics profile every infer of this request computes under (graphir.numerics)
        self.numerics = check_numerics(numerics)
        self._store = VariableStore(get_plan(model).variables)

    def _current_store(self) -> VariableStore:
        """The store, re-pointed at the model's variables when the model's plan was rebuilt (an edit)."""
        variables = get_plan(self.model).variables
        if variables is not self._store.variables:
            self._store.variables = variables
            for vid in [v for v in self._store.values if v not in variables]:
                del self._store.values[vid]
        return self._store

    def infer(self, inputs: Any = None, **options: Any) -> Any:
        """Run one step from the current state; returns what ``model.run`` returns."""
        return run(self.model, inputs, state=self._current_store(), numerics=self.numerics, **options)

    def query_state(self) -> list[VariableState]:
        store = self._current_store()
        return [VariableState(store, v) for v in store.variables.values()]

    def reset_state(self) -> None:
        self._current_store().values.clear()

    def __repr__(self) -> str:
        return f"<InferRequest on '{self.model.name}', {len(self._store.variables)} variables>"
