"""The Model Explorer adapter: ``model-explorer model.xml --extensions=graphir.explorer``
(Model Explorer imports ``<extension>.main`` and registers the Adapter subclasses it defines).

It claims ``.xml`` and ``.onnx``. When another loaded extension claims ``.onnx`` too (Model
Explorer's own ``model_explorer_onnx``), the page opens a file with the adapter listed first in
``--extensions`` and lets the user pick the other in its model list."""
from __future__ import annotations

import os
from typing import Any

try:
    from model_explorer import Adapter, AdapterMetadata, ModelExplorerGraphs
except ImportError as exc:  # pragma: no cover - exercised by the test of the message
    from graphir.explorer import EXPLORER_MISSING

    raise ImportError(EXPLORER_MISSING) from exc

from graphir.explorer import positional_ids
from graphir.explorer.graphs import model_graphs


class GraphirAdapter(Adapter):  # type: ignore[misc]
    """OpenVINO IR (.xml + .bin) and ONNX (.onnx, with the extra ``graphir[onnx]``), read,
    shape-inferred and laid out by graphir."""

    metadata = AdapterMetadata(
        id="graphir",
        name="graphir (OpenVINO IR, ONNX)",
        description="OpenVINO IR and ONNX through graphir: types and partial shapes inferred, "
                    "layers nested by module path, If/Loop/TensorIterator bodies as subgraphs.",
        fileExts=["xml", "onnx"],
    )

    def __init__(self) -> None:
        super().__init__()

    def convert(self, model_path: str, settings: dict[str, Any]) -> ModelExplorerGraphs:
        import graphir

        model = graphir.read_model(model_path)
        graph_id = os.path.splitext(os.path.basename(model_path))[0]
        return {"graphs": model_graphs(model, graph_id, positional=positional_ids(model_path))}
