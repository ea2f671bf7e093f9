"""OpenVINO ``ReadValue-3/6`` and ``Assign-3/6``: reading and writing a model variable.

A variable lives in the state store of an inference request (:mod:`graphir.request`), never in the
op or the model: the interpreter passes the store as the first argument of ``evaluate_state``.

Inference as OpenVINO 2026.4 does it (measured with its Python API, tests/test_variables.py):

* ReadValue-6 declares the variable (``variable_type``, ``variable_shape``) and outputs it. With an
  init input the declaration must *relax* the init's type and shape ("The type specified in the
  Variable has to extend (relax) the type inferred from the initializing subgraph"); a variable of
  dynamic type and rank takes the init's type and shape.
* ReadValue-3 (init input required) outputs its init's type and shape.
* Assign-3/6 output their input (the IR writes that port); the variable's declaration is checked
  against the Assign's input at model level (:func:`graphir.variables.model_variables`).
* The first read of a variable gives the init input's value, or, without one, zeros of the declared
  shape with every dynamic dim 0 (what the CPU plugin gives).
"""
from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pydantic import Field

from graphir.ops.base import Op, Port, TensorType
from graphir.shapes import PartialShape
from graphir.types import ElementType


class ReadValue3(Op):
    type_name: ClassVar[str] = "ReadValue"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("init"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    #: ops that read or write a request's variables: ``evaluate_state(store, *arrays)``
    stateful: ClassVar[bool] = True

    variable_id: str

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[0].shape)]

    def evaluate_state(self, store: Any, *init: np.ndarray) -> list[np.ndarray]:
        return [store.read(self.variable_id, init[0] if init else None)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        raise NotImplementedError("ReadValue reads a request's variable: run it through a model")


class ReadValue6(ReadValue3):
    version: ClassVar[str] = "opset6"
    inputs: ClassVar[tuple[Port, ...]] = (Port("init", optional=True),)

    variable_type: ElementType = ElementType.dynamic
    variable_shape: PartialShape = Field(default_factory=PartialShape.dynamic)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et, shape = self.variable_type, self.variable_shape
        if not inputs:
            return [TensorType(et, shape)]
        init = inputs[0]
        if et.is_dynamic and shape.rank_is_dynamic:
            return [TensorType(init.element_type, init.shape)]
        if not (et.is_dynamic or et == init.element_type):
            raise self.fail(f"variable '{self.variable_id}': the type specified in the Variable has to extend "
                            f"(relax) the type inferred from the initializing subgraph. Variable type: {et} "
                            f"Initialization type: {init.element_type}")
        if not shape.relaxes(init.shape):
            raise self.fail(f"variable '{self.variable_id}': the shape specified in the Variable has to extend "
                            f"(relax) the shape inferred from the initializing subgraph. Variable shape: {shape} "
                            f"Initialization shape: {init.shape}")
        return [TensorType(et, shape)]


class Assign3(Op):
    type_name: ClassVar[str] = "Assign"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (Port("new_value"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    stateful: ClassVar[bool] = True
    #: kept by the model though no Result reads it (OpenVINO's sinks)
    sink: ClassVar[bool] = True

    variable_id: str

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[0].shape)]

    def evaluate_state(self, store: Any, value: np.ndarray) -> list[np.ndarray]:
        store.write(self.variable_id, value)
        return [value]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        raise NotImplementedError("Assign writes a request's variable: run it through a model")


class Assign6(Assign3):
    version: ClassVar[str] = "opset6"
