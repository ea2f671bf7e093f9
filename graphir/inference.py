"""Shape/type propagation over a whole model, and OpenVINO-style ``reshape``.

Each node re-infers from its inputs in topological order. Constants up to a size carry their
values (``TensorType.value``) so that value-dependent shapes (ShapeOf -> Reshape) can fold.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphir.errors import InputError
from graphir.ops.openvino.core import Parameter
from graphir.shapes import PartialShape

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node


def infer_shapes(model: "Model") -> None:
    """Re-infer every node; the first inconsistency raises an InferenceError naming the node."""
    for node in model.get_ordered_ops():
        node.infer()


def find_parameter(model: "Model", key: str) -> "Node":
    """A Parameter by friendly name or by tensor name."""
    for p in model.get_parameters():
        if p.name == key:
            return p
    for p in model.get_parameters():
        if key in p.output_names[0]:
            return p
    known = ", ".join(p.name for p in model.get_parameters())
    raise InputError(f"model '{model.name}' has no input '{key}' (inputs: {known})")


def reshape(model: "Model", shapes: Any) -> None:
    """Set Parameter shapes and re-infer.

    ``shapes``: a mapping from input name (friendly or tensor) or index to a shape (string such as
    ``"[8,64]"`` or ``"?,3"``, list, or PartialShape); or one shape, when the model has one input;
    or a list of shapes in Parameter order.
    """
    params = model.get_parameters()
    if isinstance(shapes, Mapping):
        items = []
        for key, shape in shapes.items():
            node = params[key] if isinstance(key, int) else find_parameter(model, key)
            items.append((node, shape))
    elif isinstance(shapes, (str, PartialShape)) or (
        isinstance(shapes, Sequence) and all(isinstance(d, int) for d in shapes)
    ):
        if len(params) != 1:
            raise InputError(
                f"model '{model.name}' has {len(params)} inputs; give reshape a mapping of name -> shape"
            )
        items = [(params[0], shapes)]
    else:
        shapes = list(shapes)
        if len(shapes) != len(params):
            raise InputError(f"model '{model.name}' has {len(params)} inputs; reshape got {len(shapes)} shapes")
        items = list(zip(params, shapes))
    for node, shape in items:
        assert isinstance(node.op, Parameter)
        node.op.shape = PartialShape.parse(shape)
    infer_shapes(model)
