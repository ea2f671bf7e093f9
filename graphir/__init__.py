"""graphir: a pure-Python graph IR in the OpenVINO / oneDNN Graph style.

The names below are imported on first use (PEP 562): ``import graphir`` itself costs almost
nothing, and numpy, pydantic and the op schemas load when the first of them is touched
(``benchmarks/startup.py`` measures it). Type checkers see ordinary imports.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphir import errors, opset
    from graphir.errors import GraphirError
    from graphir.model import Model
    from graphir.node import Node, Output
    from graphir.ops.base import Op, Port, TensorType
    from graphir.shapes import Dimension, PartialShape
    from graphir.types import ElementType

__version__ = "0.1.0"

#: public name -> (module, attribute; None for the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "errors": ("graphir.errors", None),
    "opset": ("graphir.opset", None),
    "GraphirError": ("graphir.errors", "GraphirError"),
    "Model": ("graphir.model", "Model"),
    "Node": ("graphir.node", "Node"),
    "Output": ("graphir.node", "Output"),
    "Op": ("graphir.ops.base", "Op"),
    "Port": ("graphir.ops.base", "Port"),
    "TensorType": ("graphir.ops.base", "TensorType"),
    "Dimension": ("graphir.shapes", "Dimension"),
    "PartialShape": ("graphir.shapes", "PartialShape"),
    "ElementType": ("graphir.types", "ElementType"),
}


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'graphir' has no attribute '{name}'")
    module = importlib.import_module(target[0])
    value = module if target[1] is None else getattr(module, target[1])
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def read_model(path: Any, weights: Any = None) -> "Model":
    """Read an OpenVINO IR (.xml + .bin) or a oneDNN Graph JSON file."""
    from graphir.serializers import read_model as _read

    return _read(path, weights)


def save_model(model: "Model", path: Any, **options: Any) -> None:
    """Write OpenVINO IR (.xml + .bin) or oneDNN Graph JSON, chosen by the file suffix."""
    from graphir.serializers import save_model as _save

    _save(model, path, **options)


__all__ = [
    "Model", "Node", "Output", "Op", "Port", "TensorType", "ElementType", "Dimension", "PartialShape",
    "GraphirError", "errors", "opset", "read_model", "save_model", "__version__",
]
