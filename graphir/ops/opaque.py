"""Ops graphir does not implement, loaded from a file so that it can still be listed and written.

An opaque op keeps its type, version and attributes as strings and the port element types and
shapes the file recorded. Re-inferring or running it raises UnsupportedOpError naming the layer.
The class is never registered: :func:`opaque_op` makes one subclass per (type, version) so that
``op.type_name`` and ``op.version`` read as the file spelled them.
"""
from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pydantic import Field

from graphir.errors import UnsupportedOpError
from graphir.ops.base import Op, Port, TensorType


class OpaqueOp(Op):
    """A layer of an unknown (type, version); attributes are the file's strings."""

    inputs: ClassVar[tuple[Port, ...]] = (Port("input", optional=True, variadic=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output", variadic=True),)
    runnable: ClassVar[bool] = False
    pure_infer: ClassVar[bool] = False  # re-inferred on every reshape (it raises, or keeps what the file recorded)

    attrs: dict[str, str] = Field(default_factory=dict)
    layer_id: str = ""
    layer_name: str = ""
    recorded_inputs: list[TensorType] = Field(default_factory=list)
    recorded_outputs: list[TensorType] = Field(default_factory=list)
    #: XML children other than data/input/output/rt_info (subgraph bodies, port maps), by tag
    children: dict[str, Any] = Field(default_factory=dict)

    def num_outputs(self) -> int:
        return len(self.recorded_outputs)

    def _unsupported(self, what: str) -> UnsupportedOpError:
        return UnsupportedOpError(
            f"layer id={self.layer_id} name='{self.layer_name}' type={self.type_name} "
            f"version={self.version}: graphir does not implement this op, so it cannot {what} "
            f"(it was loaded opaquely; its recorded outputs are "
            f"{', '.join(str(t) for t in self.recorded_outputs) or 'none'})"
        )

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        raise self._unsupported("infer shapes")

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        raise self._unsupported("run")


_CLASSES: dict[tuple[str, str, str], type[OpaqueOp]] = {}


def opaque_op(type_name: str, version: str, dialect: str = "openvino", **fields: Any) -> OpaqueOp:
    """An opaque op instance whose ``type_name``/``version`` are the given strings."""
    key = (dialect, type_name, version)
    cls = _CLASSES.get(key)
    if cls is None:
        cls = type(f"Opaque_{type_name}", (OpaqueOp,), {"__module__": __name__})
        cls.type_name = type_name  # set after creation so that the registry never sees it
        cls.version = version
        cls.dialect = dialect
        _CLASSES[key] = cls
    return cls(**fields)
