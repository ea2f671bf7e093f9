"""Google's Model Explorer (PyPI ``ai-edge-model-explorer``) opens OpenVINO IR and ONNX files
through graphir: ``model-explorer model.xml --extensions=graphir.explorer``.

:mod:`graphir.explorer.graphs` turns a read Model into Model Explorer's graphs (every node with
its type, version, attributes and inferred output types and shapes; namespaces from the layer
names' module paths; If/Loop/TensorIterator bodies as subgraphs); :mod:`graphir.explorer.main`
is the adapter Model Explorer loads; :mod:`graphir.explorer.node_data` writes per-node overlays.
Needs the optional extra ``graphir[explorer]``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphir.model import Model

#: the line a user without the extra gets
EXPLORER_MISSING = ("Model Explorer support needs the optional extra 'explorer': "
                    "pip install 'graphir[explorer]'")


def positional_ids(model_path: str) -> bool:
    """Whether the page numbers the file's nodes by position rather than by graphir's ids. An IR's
    ids are its layer ids, the same in every process; a node read from ONNX takes its id from a
    counter shared by every model the process reads, so the Model Explorer server (which has read
    other files) and ``graphir explorer-data`` would number the same node differently: both use its
    position in ``get_ordered_ops()`` instead."""
    return model_path.lower().endswith(".onnx")


def page_ids(model: "Model", positional: bool) -> dict[int, str]:
    """graphir node id -> the node's id in the page (see :func:`positional_ids`)."""
    ordered = model.get_ordered_ops()
    return {n.id: str(i) for i, n in enumerate(ordered)} if positional else {n.id: str(n.id) for n in ordered}
