"""Model variables (what ReadValue/Assign pairs read and write) and the state store of a request.

``model_variables`` finds the variables of a model and applies OpenVINO's pairing rules:

* a variable is declared by its ReadValue(s); a ReadValue without an Assign is allowed (its state
  reads its initial value every step unless set from outside), as in OpenVINO;
* an Assign whose variable no ReadValue declares is refused (OpenVINO's read_model fails on it
  with ``map::at``);
* two ReadValues that declare one variable differently are refused;
* an Assign's input must be compatible with the declared type and shape (OpenVINO's Assign-6
  checks: "The type specified in the Variable is not compatible with the input type").
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphir.errors import EvaluationError, GraphError, InputError
from graphir.shapes import PartialShape
from graphir.types import ElementType

if TYPE_CHECKING:
    from graphir.node import Node


@dataclass(frozen=True)
class Variable:
    """One model variable: its id (``variable_id``), element type and partial shape."""

    variable_id: str
    element_type: ElementType
    shape: PartialShape

    def __str__(self) -> str:
        return f"{self.variable_id}: {self.element_type}{self.shape}"

    def __repr__(self) -> str:
        return f"Variable({self.variable_id!r}, {self.element_type}{self.shape})"

    def initial_value(self) -> np.ndarray:
        """The value a first read gives without an init input: zeros of the declared shape, each
        dynamic dim 0 (OpenVINO's CPU plugin; pinned in tests/test_variables.py)."""
        if self.shape.rank_is_dynamic or self.element_type.is_dynamic:
            raise EvaluationError(
                f"variable '{self.variable_id}' ({self.element_type}{self.shape}) has no init input and a dynamic "
                f"{'rank' if self.shape.rank_is_dynamic else 'element type'}: it has no initial value (OpenVINO's "
                f"CPU plugin refuses such a ReadValue too); give the ReadValue an init input or set the state")
        dims = [d.get_length() if d.is_static else 0 for d in self.shape]
        return np.zeros(dims, dtype=self.element_type.numpy_dtype)

    def check_value(self, value: object) -> np.ndarray:
        """``value`` as an array of this variable's type; an InputError when it cannot be one. As
        ``run`` checks inputs: an array must have the variable's dtype (an f64 array for an f32
        state is refused, not cast: 1e40 would become inf); lists and scalars are converted."""
        if isinstance(value, np.ndarray) and not self.element_type.is_dynamic:
            dtype = np.dtype(self.element_type.numpy_dtype)
            if value.dtype != dtype:
                raise InputError(f"state '{self.variable_id}': expected element type {self.element_type} ({dtype}), "
                                 f"got an array of {value.dtype} with shape {list(value.shape)}")
        array = np.asarray(value)
        if not self.element_type.is_dynamic:
            dtype = np.dtype(self.element_type.numpy_dtype)
            if array.dtype != dtype:
                if array.size and not np.can_cast(array.dtype, dtype, "same_kind") and array.dtype.kind not in "iub":
                    raise InputError(f"state '{self.variable_id}': expected element type {self.element_type}, "
                                     f"got an array of {array.dtype}")
                array = array.astype(dtype)
        if not self.shape.compatible_with_shape(array.shape):
            raise InputError(f"state '{self.variable_id}': expected shape {self.shape}, got {list(array.shape)}")
        return array


def is_read_value(node: "Node") -> bool:
    return node.type_name == "ReadValue" and getattr(node.op, "stateful", False)


def is_assign(node: "Node") -> bool:
    return node.type_name == "Assign" and getattr(node.op, "stateful", False)


def variable_id_of(node: "Node") -> str:
    """The variable a ReadValue or Assign node reads or writes."""
    return str(getattr(node.op, "variable_id"))


def model_variables(nodes: Iterable["Node"], where: str, sinks: Iterable["Node"] = ()) -> dict[str, Variable]:
    """The variables of ``nodes`` after the pairing checks; a GraphError naming the node and the
    rule otherwise. Ordered as OpenVINO lists them: those the ``sinks`` write first (in sink
    order), then the others in node order. ``where`` names the model in messages."""
    nodes = list(nodes)
    found: dict[str, Variable] = {}
    declared_by: dict[str, "Node"] = {}
    for node in nodes:
        if not is_read_value(node):
            continue
        out = node.output_types[0]
        var = Variable(variable_id_of(node), out.element_type, out.shape)
        known = found.get(var.variable_id)
        if known is None:
            found[var.variable_id], declared_by[var.variable_id] = var, node
        elif known != var:
            raise GraphError(f"{where}: {node.describe()} declares variable '{var.variable_id}' as "
                             f"{var.element_type}{var.shape}, but {declared_by[var.variable_id].describe()} "
                             f"declares it as {known.element_type}{known.shape}")
    for node in nodes:
        if not is_assign(node):
            continue
        vid = variable_id_of(node)
        declared = found.get(vid)
        if declared is None:
            raise GraphError(f"{where}: {node.describe()} writes variable '{vid}', which no ReadValue declares "
                             f"(OpenVINO's read_model refuses such an Assign)")
        got = node.input_types()[0]
        if not (declared.element_type.is_dynamic or got.element_type.is_dynamic or declared.element_type == got.element_type):
            raise GraphError(f"{where}: {node.describe()}: the type specified in the Variable is not compatible "
                             f"with the input type. Input type: {got.element_type} Variable type: {declared.element_type}")
        if not declared.shape.compatible(got.shape):
            raise GraphError(f"{where}: {node.describe()}: the shape specified in the Variable is not compatible "
                             f"with the shape of the input. Input shape: {got.shape} Variable shape: {declared.shape}")
    first = [variable_id_of(s) for s in sinks if is_assign(s) and variable_id_of(s) in found]
    return {vid: found[vid] for vid in dict.fromkeys(first + list(found))}


class VariableStore:
    """The variable values of one request. Reads during a step see the values from before it;
    Assigns take effect when the step has run to its end (:meth:`commit`)."""

    def __init__(self, variables: dict[str, Variable]) -> None:
        self.variables = variables
        self.values: dict[str, np.ndarray] = {}
        self._pending: dict[str, np.ndarray] = {}

    def __repr__(self) -> str:
        return f"<VariableStore {sorted(self.values)}>"

    def read(self, variable_id: str, init: np.ndarray | None) -> np.ndarray:
        value = self.values.get(variable_id)
        if value is not None:
            return value
        if init is not None:
            return init
        return self.variables[variable_id].initial_value()

    def write(self, variable_id: str, value: np.ndarray) -> None:
        self._pending[variable_id] = value

    def commit(self) -> None:
        self.values.update(self._pending)
        self._pending.clear()

    def abandon(self) -> None:
        self._pending.clear()
