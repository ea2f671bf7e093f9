"""Google's Model Explorer (PyPI ``ai-edge-model-explorer``) opens OpenVINO IR and oneDNN Graph
JSON files through graphir: ``model-explorer model.xml --extensions=graphir.explorer``.

:mod:`graphir.explorer.graphs` turns a read Model into Model Explorer's graphs (every node with
its type, version, attributes and inferred output types and shapes; namespaces from the layer
names' module paths; If/Loop/TensorIterator bodies as subgraphs); :mod:`graphir.explorer.main`
is the adapter Model Explorer loads; :mod:`graphir.explorer.node_data` writes per-node overlays.
Needs the optional extra ``graphir[explorer]``.
"""
from __future__ import annotations

#: the line a user without the extra gets
EXPLORER_MISSING = ("Model Explorer support needs the optional extra 'explorer': "
                    "pip install 'graphir[explorer]'")
