"""The Model Explorer adapter: ``model-explorer model.xml --extensions=graphir.explorer``
(Model Explorer imports ``<extension>.main`` and registers the Adapter subclasses it defines)."""
from __future__ import annotations

import os
from typing import Any

try:
    from model_explorer import Adapter, AdapterMetadata, ModelExplorerGraphs
except ImportError as exc:  # pragma: no cover - exercised by the test of the message
    from graphir.explorer import EXPLORER_MISSING

    raise ImportError(EXPLORER_MISSING) from exc

from graphir.explorer.graphs import model_graphs


class GraphirAdapter(Adapter):  # type: ignore[misc]
    """OpenVINO IR (.xml + .bin) and oneDNN Graph JSON, read, shape-inferred and laid out by graphir."""

    metadata = AdapterMetadata(
        id="graphir",
        name="graphir (OpenVINO IR)",
        description="OpenVINO IR and oneDNN Graph JSON through graphir: types and partial shapes inferred, "
                    "layers nested by module path, If/Loop/TensorIterator bodies as subgraphs.",
        fileExts=["xml"],
    )

    def __init__(self) -> None:
        super().__init__()

    def convert(self, model_path: str, settings: dict[str, Any]) -> ModelExplorerGraphs:
        import graphir

        model = graphir.read_model(model_path)
        return {"graphs": model_graphs(model, os.path.splitext(os.path.basename(model_path))[0])}
