"""What a translator sees of one ONNX node: its inputs as graphir outputs, its attributes, its opset."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from graphir.errors import SerializationError
from graphir import opset
from graphir._build import as_input
from graphir.node import Node, Output
from graphir.ops.registry import lookup
from graphir.types import ElementType

if TYPE_CHECKING:
    from graphir.serializers.onnx_reader import GraphTranslator

_MISSING: Any = object()


class NodeContext:
    """One ONNX node under translation.

    ``input(i)`` is a required input, ``optional(i)`` an input that may be absent (``None``);
    ``attr(name, default)`` an attribute as a Python value (ints, floats, strings, lists, numpy
    arrays for tensors, GraphProto for graphs); ``value(i)`` an input's value when it is known
    without running (a Constant, or a shape subgraph graphir's inference folded).
    """

    def __init__(self, node: Any, version: int, inputs: "list[Output | None]", graph: "GraphTranslator") -> None:
        self.node = node
        self.op_type: str = node.op_type
        self.domain: str = node.domain
        self.version = version
        self.inputs = inputs
        self.graph = graph
        self._attrs: dict[str, Any] | None = None

    # --- identity --------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return str(self.node.name or (self.node.output[0] if self.node.output else self.op_type))

    def describe(self) -> str:
        domain = self.domain or "ai.onnx"
        return f"ONNX node '{self.name}' ({self.op_type}, {domain} opset {self.version})"

    def error(self, message: str) -> SerializationError:
        return SerializationError(f"{self.describe()}: {message}")

    def unsupported(self, what: str) -> NoReturn:
        raise SerializationError(f"{self.describe()}: {what} is not supported")

    @property
    def num_outputs(self) -> int:
        """How many outputs the node declares (trailing optional ones left out are not counted)."""
        return len(self.node.output)

    def output_used(self, index: int) -> bool:
        return index < len(self.node.output) and bool(self.node.output[index])

    # --- inputs ----------------------------------------------------------------------------
    def has_input(self, index: int) -> bool:
        return index < len(self.inputs) and self.inputs[index] is not None

    def input(self, index: int) -> Output:
        if not self.has_input(index):
            raise self.error(f"input {index} is required but not given")
        value = self.inputs[index]
        assert value is not None
        return value

    def optional(self, index: int) -> Output | None:
        return self.inputs[index] if index < len(self.inputs) else None

    def value(self, index: int) -> np.ndarray | None:
        """The input's value when it is a Constant (OpenVINO's translators test the same), else None."""
        from graphir.ops.openvino.core import Constant

        out = self.optional(index)
        if out is None or not isinstance(out.node.op, Constant):
            return None
        return np.asarray(out.node.op.value)

    def folded(self, index: int) -> np.ndarray | None:
        """The input's value when graphir's inference folded it (a shape subgraph, a Constant), else None."""
        out = self.optional(index)
        if out is None:
            return None
        value = out.tensor_type.value
        return None if value is None else np.asarray(value)

    def const_input(self, index: int, what: str) -> np.ndarray:
        """An input whose value must be known statically (``what`` names it in the error)."""
        value = self.folded(index)
        if value is None:
            raise self.error(f"{what} (input {index}) must be known when reading (a constant)")
        return value

    # --- attributes ------------------------------------------------------------------------
    @property
    def attributes(self) -> dict[str, Any]:
        if self._attrs is None:
            self._attrs = {a.name: self.graph.attribute_value(a, self) for a in self.node.attribute}
        return self._attrs

    def has_attr(self, name: str) -> bool:
        return name in self.attributes

    def attr(self, name: str, default: Any = _MISSING) -> Any:
        attrs = self.attributes
        if name in attrs:
            return attrs[name]
        if default is _MISSING:
            raise self.error(f"attribute '{name}' is required")
        return default

    # --- building --------------------------------------------------------------------------
    def _node(self, type_name: str, inputs: tuple[Any, ...], attributes: dict[str, Any]) -> Node:
        """A node of the newest OpenVINO op ``type_name`` (its class looked up once per read)."""
        classes = self.graph.op_classes
        cls = classes.get(type_name)
        if cls is None:
            cls = classes[type_name] = lookup("openvino", type_name)
        return Node(cls(**attributes), [as_input(x) for x in inputs])

    def op(self, type_name: str, *inputs: Any, **attributes: Any) -> Output:
        """The first output of an OpenVINO op of the newest version (inputs: outputs, or values made Constants)."""
        return self._node(type_name, inputs, attributes).output(0)

    def ops(self, type_name: str, *inputs: Any, **attributes: Any) -> list[Output]:
        """All outputs of an OpenVINO op of the newest version."""
        return self._node(type_name, inputs, attributes).outputs()

    def const(self, value: Any, dtype: "ElementType | str | None" = None) -> Output:
        return opset.constant(np.asarray(value) if dtype is None else value, dtype)

    @property
    def base_dir(self) -> Path | None:
        return self.graph.base_dir
