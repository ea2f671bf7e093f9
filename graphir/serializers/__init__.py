"""File formats: OpenVINO IR XML (+ .bin), oneDNN Graph JSON, and ONNX (read only). Serializers never compute."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from graphir.errors import SerializationError


def read_model(path: Any, weights: Any = None) -> Any:
    p = Path(path)
    if p.suffix.lower() == ".json":
        from graphir.serializers.onednn_json import read_json

        return read_json(p)
    if p.suffix.lower() == ".xml":
        from graphir.serializers.openvino_xml import read_ir

        return read_ir(p, weights)
    if p.suffix.lower() == ".onnx":
        from graphir.serializers.onnx_reader import read_onnx

        return read_onnx(p)
    raise SerializationError(f"{path}: unknown model format (expected .xml, .json or .onnx)")


def save_model(model: Any, path: Any, **options: Any) -> None:
    from graphir.model import Model

    if not isinstance(model, Model):
        raise TypeError(f"save_model: argument 'model' must be a graphir Model, got {type(model).__name__} "
                        f"{str(model)[:40]!r}")
    p = Path(path)
    if p.suffix.lower() == ".json":
        from graphir.serializers.onednn_json import write_json

        write_json(model, p, **options)
        return
    if p.suffix.lower() == ".xml":
        from graphir.serializers.openvino_xml import write_ir

        write_ir(model, p, **options)
        return
    raise SerializationError(f"{path}: unknown model format (expected .xml or .json)")
