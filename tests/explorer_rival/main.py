"""The rival adapter Model Explorer loads with ``--extensions=graphir.explorer,tests.explorer_rival``."""
from __future__ import annotations

from typing import Any

from model_explorer import Adapter, AdapterMetadata, ModelExplorerGraphs, graph_builder


class RivalOnnxAdapter(Adapter):  # type: ignore[misc]
    """Claims .onnx and answers with one node, so a page that used it is easy to tell."""

    metadata = AdapterMetadata(id="rival_onnx", name="rival ONNX adapter", description="test stand-in",
                               fileExts=["onnx"])

    def __init__(self) -> None:
        super().__init__()

    def convert(self, model_path: str, settings: dict[str, Any]) -> ModelExplorerGraphs:
        graph = graph_builder.Graph(id="rival_graph")
        graph.nodes.append(graph_builder.GraphNode(id="0", label="RivalNode"))
        return {"graphs": [graph]}
