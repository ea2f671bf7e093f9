"""Every named layer of an .onnx as graphir reads it against OpenVINO's ONNX frontend: output element
types and shapes compared by friendly name (shared by tests/test_onnx_exports.py and tests/onnx_sweep.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Any


def dims(shape: Any) -> list[int]:
    """A PartialShape's dims, -1 where dynamic."""
    return [-1 if d.is_dynamic else int(d.get_length()) for d in shape]


def layer_differences(path: Path, model: Any, ov: Any, onnx: Any) -> tuple[int, list[tuple[str, Any, Any]], int]:
    """(layers compared, [(name, graphir's types, OpenVINO's)] where they differ, the ONNX nodes that are
    not Constant or Identity). A layer is compared when both name it after an ONNX node or tensor."""
    theirs = {op.get_friendly_name(): op for op in ov.Core().read_model(str(path)).get_ordered_ops()}
    proto = onnx.load(str(path), load_external_data=False)
    names = {n.name for n in proto.graph.node} | {o for n in proto.graph.node for o in n.output}
    compared, differ = 0, []
    for node in model.get_ordered_ops():
        other = theirs.get(node.name)
        if other is None or node.name not in names or node.type_name == "Constant":
            continue
        compared += 1
        ours = [(str(t.element_type), dims(t.shape)) for t in node.output_types]
        got = [(other.get_output_element_type(i).get_type_name(), dims(other.get_output_partial_shape(i)))
               for i in range(other.get_output_size())]
        if ours != got:
            differ.append((node.name, ours, got))
    layers = sum(n.op_type not in ("Constant", "Identity") for n in proto.graph.node)
    return compared, differ, layers
