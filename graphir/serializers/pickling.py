"""Models pickle as their files: the IR (.xml text and .bin bytes) for OpenVINO-dialect models,
oneDNN Graph JSON for oneDNN ones. Both writers and readers walk the graph without recursion, so
a chain of any length pickles (pickle's own walk of the node objects recursed once per node and
failed at a few hundred), and a model read from a file pickles with the weights it was read with
(a copy of its .bin's bytes, never a memory map). A model neither format can hold (a DirectML
one) is refused with a :class:`~graphir.errors.SerializationError` naming it and why.

``Model.__reduce__`` calls :func:`reduce_model` (an import of this layer at pickling time only).
``copy.copy(model)`` goes the same way; ``copy.deepcopy`` is ``model.clone()``."""
from __future__ import annotations

from typing import Any

from graphir.errors import GraphirError, SerializationError


def _model_from_ir(xml: bytes, weights: bytes) -> Any:
    from graphir.serializers.openvino_xml import read_ir_string

    return read_ir_string(xml, weights)


def _model_from_json(text: str) -> Any:
    from graphir.serializers.onednn_json import loads

    return loads(text)


def reduce_model(model: Any) -> tuple[Any, tuple[Any, ...]]:
    """How pickle rebuilds ``model`` (see the module docstring)."""
    errors = []
    try:
        from graphir.serializers.openvino_xml import write_ir_string

        xml, weights = write_ir_string(model)
        return _model_from_ir, (xml, weights)
    except GraphirError as exc:
        errors.append(f"as IR: {exc}")
    try:
        from graphir.serializers.onednn_json import dumps

        return _model_from_json, (dumps(model, indent=None),)
    except GraphirError as exc:
        errors.append(f"as oneDNN JSON: {exc}")
    raise SerializationError(f"model '{model.name}' cannot be pickled: graphir pickles a model as its IR or "
                             f"oneDNN JSON file, and neither holds it ({'; '.join(errors)})")
