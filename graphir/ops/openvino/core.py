"""The graph's boundary ops: Parameter, Constant (IR ``Const``) and Result."""
from __future__ import annotations

import math

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import Field, PrivateAttr

from graphir.ops.base import Op, Port, TensorType
from graphir.shapes import PartialShape
from graphir.types import ElementType

if TYPE_CHECKING:
    from graphir.node import Node

#: constants up to this many elements carry their value through shape inference (constant folding)
FOLDABLE_CONSTANT_SIZE = 4096


class Parameter(Op):
    """A model input with a declared element type and partial shape."""

    type_name: ClassVar[str] = "Parameter"
    version: ClassVar[str] = "opset1"
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    shape: PartialShape = Field(default_factory=lambda: PartialShape.dynamic())
    element_type: ElementType = ElementType.dynamic

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(self.element_type, self.shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        raise NotImplementedError("a Parameter's value comes from the model inputs")


class Constant(Op):
    """A tensor known at build time. Its data may be an array or a loader called on first use
    (the IR reader passes a loader over a memory-mapped .bin, so nothing is read up front)."""

    type_name: ClassVar[str] = "Constant"
    version: ClassVar[str] = "opset1"
    serialized_type_names: ClassVar[dict[str, str]] = {"ir": "Const"}
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    element_type: ElementType
    shape: list[int]

    _data: np.ndarray | None = PrivateAttr(default=None)
    _loader: Callable[[], np.ndarray] | None = PrivateAttr(default=None)

    @classmethod
    def from_array(cls, value: Any, element_type: "ElementType | str | None" = None) -> "Constant":
        """A Constant holding a read-only copy of ``value`` (changing ``value`` afterwards does not
        change the model). A TypeError for values that have no element type: None, dicts, Python
        objects, integers beyond 64 bits (numpy would keep them as Python objects)."""
        et = ElementType.parse(element_type) if element_type is not None else None
        if value is None:
            raise TypeError("None is not a tensor value")
        if et is None:
            arr = np.asarray(value)
            _check_objects(arr)
            et = ElementType.from_numpy(arr.dtype)
        if et is ElementType.string:
            arr = np.array(value, dtype=object)
            _check_objects(arr)
        else:
            if isinstance(value, np.ndarray) and value.dtype.kind == "O":
                _check_objects(value)
            arr = np.array(value, dtype=et.numpy_dtype)  # a copy, always
        arr.flags.writeable = False
        op = cls(element_type=et, shape=list(arr.shape))
        op._data = arr
        return op

    @classmethod
    def lazy(cls, element_type: ElementType, shape: list[int], loader: Callable[[], np.ndarray]) -> "Constant":
        op = cls(element_type=element_type, shape=shape)
        op._loader = loader
        return op

    @property
    def is_loaded(self) -> bool:
        return self._data is not None

    @property
    def value(self) -> np.ndarray:
        """The data, unpacked (one element per numpy item); loaded on first access."""
        if self._data is None:
            if self._loader is None:
                raise ValueError("Constant has no data")
            data = self._loader()
            if isinstance(data, np.ndarray) and data.flags.writeable:
                data.flags.writeable = False  # shared by every run and clone: nobody writes into it
            self._data = data
        return self._data

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [self.output_type()]

    def output_type(self, shape: PartialShape | None = None) -> TensorType:
        """The output's type (with the value when small enough to fold); ``shape``: this op's shape
        as a PartialShape, when the caller has one (a reader shares one per shape it meets)."""
        et = self.element_type
        value = None
        if et is not ElementType.string and math.prod(self.shape) <= FOLDABLE_CONSTANT_SIZE:
            private = self.__pydantic_private__  # (what self._data reads, without pydantic's __getattr__)
            value = private["_data"] if private is not None and private["_data"] is not None else self.value
        return TensorType(et, PartialShape(self.shape) if shape is None else shape, value)

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        return [self.value]

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> "Constant":
        clone = type(self)(element_type=self.element_type, shape=list(self.shape))
        clone._data, clone._loader = self._data, self._loader  # data is immutable: share it
        return clone


def _check_objects(arr: np.ndarray) -> None:
    """Refuse an object array unless it holds text (a string tensor): numpy keeps None, dicts,
    integers beyond 64 bits and other objects as Python objects, which no element type holds."""
    if arr.dtype.kind != "O":
        return
    for item in arr.reshape(-1):
        if not isinstance(item, (str, bytes)):
            raise TypeError(f"a value of type '{type(item).__name__}' ({str(item)[:40]}) has no element type "
                            f"(numbers up to 64 bits, booleans and text have)")


class Result(Op):
    """A model output. Its one output mirrors its input (as in OpenVINO); files write no output port."""

    type_name: ClassVar[str] = "Result"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("input"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[0].shape, inputs[0].value)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        return [arrays[0]]


def parameter_of(node: "Node") -> Parameter:
    """A Parameter node's op, typed (an OpDefinitionError naming the node when it is another op)."""
    op = node.op
    if not isinstance(op, Parameter):
        from graphir.errors import OpDefinitionError

        raise OpDefinitionError(f"{node.describe()} is not a Parameter")
    return op
