"""graphir: a pure-Python graph IR in the OpenVINO / oneDNN Graph style."""
from __future__ import annotations

from typing import Any

from graphir import errors, opset
from graphir.errors import GraphirError
from graphir.interpreter import run
from graphir.model import Model
from graphir.node import Node, Output
from graphir.ops.base import Op, Port, TensorType
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

__version__ = "0.1.0"


def read_model(path: Any, weights: Any = None) -> Model:
    """Read an OpenVINO IR (.xml + .bin) or a oneDNN Graph JSON file."""
    from graphir.serializers import read_model as _read

    return _read(path, weights)


def save_model(model: Model, path: Any, **options: Any) -> None:
    """Write OpenVINO IR (.xml + .bin) or oneDNN Graph JSON, chosen by the file suffix."""
    from graphir.serializers import save_model as _save

    _save(model, path, **options)


__all__ = [
    "Model", "Node", "Output", "Op", "Port", "TensorType", "ElementType", "Dimension", "PartialShape",
    "GraphirError", "errors", "opset", "run", "read_model", "save_model", "__version__",
]
