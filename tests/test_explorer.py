"""The Model Explorer adapter (graphir.explorer): its graphs for real IR and ONNX exports against
the model and ``graphir shapes``, nested bodies, module namespaces and the node-data overlays
(tests/test_explorer_browser.py opens them in a real browser).

Without the extra (``graphir[explorer]``) the tests skip with one reason, except under CI (``CI``
set), where they fail."""
from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir.cli import main
from graphir.commands.shapes import rows as shape_rows
from graphir.errors import GraphirError
from graphir.explorer import page_ids, positional_ids
from graphir.model import named_bodies

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
EXPORTS = [FIXTURES / "corpus" / "transformer_encoder.xml", FIXTURES / "corpus" / "lstm.xml",
           FIXTURES / "torchvision_shapes" / "swin_t.xml",
           FIXTURES / "torchvision" / "lraspp_mobilenet_v3_small.xml", FIXTURES / "llm" / "llama-fp32" / "openvino_model.xml",
           FIXTURES / "ir" / "control_flow" / "loop_counted.xml", FIXTURES / "ir" / "control_flow" / "if_shapes.xml",
           *sorted((FIXTURES / "onnx").glob("*.onnx"))]


def require(module: str, install: str = "pip install 'graphir[explorer]'") -> Any:
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        reason = f"needs {module} ({install})"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set, so {reason}")
        pytest.skip(reason)


def convert(path: Path) -> dict[str, dict[str, Any]]:
    """The adapter's graphs as Model Explorer serves them (dataclasses as dicts), by graph id."""
    require("model_explorer")
    from model_explorer.utils import convert_adapter_response

    from graphir.explorer.main import GraphirAdapter

    served = convert_adapter_response(GraphirAdapter().convert(str(path), {}))
    return {g["id"]: g for g in served["graphs"]}


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: p.stem if p.stem != "openvino_model" else p.parent.name)
def test_every_node_edge_and_shape_of_a_real_export(path: Path) -> None:
    if path.suffix == ".onnx":
        require("onnx", "pip install 'graphir[onnx]'")
    graphs = convert(path)
    model = graphir.read_model(path)
    positional = positional_ids(str(path))
    pending = [(model, path.stem)]
    seen = set()
    while pending:
        current, gid = pending.pop()
        seen.add(gid)
        graph = graphs[gid]
        nodes = {n["id"]: n for n in graph["nodes"]}
        ordered = current.get_ordered_ops()
        ids = page_ids(current, positional)  # IR: the layer ids; ONNX: positions (ids count per process)
        assert list(nodes) == [ids[n.id] for n in ordered]
        if positional:
            assert list(nodes) == [str(i) for i in range(len(ordered))]
        else:
            assert list(nodes) == [str(n.id) for n in ordered]
        shapes = {r["id"]: r for r in shape_rows(current)}  # what `graphir shapes --json` prints
        for node in ordered:
            shown = nodes[ids[node.id]]
            assert shown["label"] == node.type_name
            attrs = {a["key"]: a["value"] for a in shown["attrs"]}
            assert attrs["type"] == f"{node.type_name}-{node.version}"
            if positional and node.name == f"{node.type_name}_{node.id}":  # a default name counts per process too
                assert re.fullmatch(rf"{node.type_name}_\d+", attrs["name"])
            else:
                assert attrs["name"] == node.name
            assert [(e["sourceNodeId"], e["sourceNodeOutputId"], e["targetNodeInputId"]) for e in shown["incomingEdges"]] \
                == [(ids[s.node.id], str(s.index), str(i)) for i, s in enumerate(node.inputs) if s is not None]
            outputs = [{a["key"]: a["value"] for a in m["attrs"]} for m in shown["outputsMetadata"]]
            expected = shapes[node.id]["outputs"] if node.type_name != "Result" else \
                [{"type": str(o.tensor_type.element_type), "shape": str(o.tensor_type.shape)} for o in node.outputs()]
            assert [(o["type"], o["shape"]) for o in outputs] == [(e["type"], e["shape"]) for e in expected]
            inputs = [{a["key"]: a["value"] for a in m["attrs"]} for m in shown["inputsMetadata"]]
            assert [(i["type"], i["shape"]) for i in inputs] == [(e["type"], e["shape"]) for e in shapes[node.id]["inputs"]]
            bodies = [(f"{gid}/{node.name}/{name}", body) for name, body in named_bodies(node.op)]
            assert shown["subgraphIds"] == [bid for bid, _ in bodies]
            pending.extend((body, bid) for bid, body in bodies)
    assert seen == set(graphs)  # no graph without a place in the model


def test_bodies_are_subgraphs_and_torch_modules_are_layers() -> None:
    loop = convert(FIXTURES / "ir" / "control_flow" / "loop_counted.xml")
    assert list(loop) == ["loop_counted", "loop_counted/Loop_94/body"]
    (holder,) = [n for n in loop["loop_counted"]["nodes"] if n["subgraphIds"]]
    assert (holder["label"], holder["subgraphIds"]) == ("Loop", ["loop_counted/Loop_94/body"])
    encoder = convert(FIXTURES / "corpus" / "transformer_encoder.xml")["transformer_encoder"]
    spaces = Counter(n["namespace"] for n in encoder["nodes"])
    assert spaces["layer/self_attn"] > 10 and "" in spaces
    assert all("::" not in space and not space.startswith("__module") for space in spaces)
    assert {n["label"] for n in encoder["nodes"] if n["namespace"] == ""} == {"Parameter", "Result"}
    # a Swin's 1,107 layers open as a tree of its modules; weights and shape helpers sit in the layer
    # that consumes them (their names carry no module path)
    swin = graphir.read_model(FIXTURES / "torchvision_shapes" / "swin_t.xml")
    placed = convert(FIXTURES / "torchvision_shapes" / "swin_t.xml")["swin_t"]["nodes"]
    tops = Counter(n["namespace"].split("/")[0] for n in placed)
    assert len(placed) == len(swin.get_ordered_ops()) == 1107
    assert tops["features"] > 800 and tops[""] < 40
    by_name = {next(a["value"] for a in n["attrs"] if a["key"] == "name"): n for n in placed}
    assert by_name["self.features.0.0.weight_compressed"]["namespace"] == "features/0/0"


def test_namespaces_from_layer_names() -> None:
    require("model_explorer")
    from graphir.explorer.graphs import namespace_of

    assert namespace_of("__module.m.rpn.head/aten::_convolution/Convolution") == "m/rpn/head"
    assert namespace_of("__module.layer.self_attn/aten::transpose/Constant") == "layer/self_attn"
    assert namespace_of("aten::relu/Relu") == ""
    assert namespace_of("self.features.0.0.weight_compressed") == "features/0/0"
    assert namespace_of("prim::ListUnpack/Squeeze") == ""
    assert namespace_of("encoder/block1/conv") == "encoder/block1"
    assert namespace_of("Constant_78") == ""


def test_constants_show_their_values() -> None:
    loop = convert(FIXTURES / "ir" / "control_flow" / "loop_counted.xml")["loop_counted"]
    constants = {a["name"]: a for a in ({kv["key"]: kv["value"] for kv in n["attrs"]}
                                        for n in loop["nodes"] if n["label"] == "Constant")}
    assert {k: constants["Constant_78"][k] for k in ("element_type", "shape", "value")} == \
        {"element_type": "boolean", "shape": "[]", "value": "[True]"}
    big = convert(FIXTURES / "corpus" / "residual_block.xml")["residual_block"]
    weights = [{a["key"]: a["value"] for a in n["attrs"]} for n in big["nodes"] if n["label"] == "Constant"][0]
    assert weights["value"].endswith("...] (576 values)") and weights["shape"] == "[8, 8, 3, 3]"


def test_overlays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from graphir.commands.validate import problems_by_node

    path = FIXTURES / "corpus" / "transformer_encoder.xml"
    model = graphir.read_model(path)
    out = tmp_path / "dml.json"
    assert main(["explorer-data", str(path), "--validate", "directml", "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}: node data for graph 'transformer_encoder'\n"
    data = json.loads(out.read_text())["transformer_encoder"]
    assert data["name"] == "directml problems" and data["thresholds"][0] == {"value": 0, "bgColor": "#c8e6c9"}
    problems = problems_by_node(model, "directml")
    assert problems  # the encoder has nodes DirectML cannot express
    assert data["results"] == {str(n.id): {"value": float(len(problems.get(n.id, [])))} for n in model.get_ordered_ops()}
    out = tmp_path / "bytes.json"
    assert main(["explorer-data", str(FIXTURES / "corpus" / "residual_block.xml"), "--bytes", "-o", str(out)]) == 0
    results = json.loads(out.read_text())["residual_block"]["results"]
    weights = graphir.read_model(FIXTURES / "corpus" / "residual_block.xml").get_ordered_ops()[1]
    assert weights.type_name == "Constant" and results[str(weights.id)] == {"value": 576 * 4.0}


def test_without_the_extra_the_import_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    monkeypatch.setitem(sys.modules, "model_explorer", None)  # as if not installed
    for name in ("graphir.explorer.main", "graphir.explorer.graphs"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(ImportError) as caught:
        importlib.import_module("graphir.explorer.main")
    assert str(caught.value) == ("Model Explorer support needs the optional extra 'explorer': "
                                 "pip install 'graphir[explorer]'")


def test_onnx_without_the_onnx_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    require("model_explorer")
    from graphir.explorer.main import GraphirAdapter

    monkeypatch.setitem(sys.modules, "onnx", None)  # as if not installed
    with pytest.raises(GraphirError) as caught:
        GraphirAdapter().convert(str(FIXTURES / "onnx" / "cnn.onnx"), {})
    # the page shows it as "GraphirError: <this>"
    assert str(caught.value) == "reading .onnx needs the onnx package: pip install 'graphir[onnx]'"


def test_onnx_ids_and_overlays_agree_across_reads(tmp_path: Path) -> None:
    """graphir numbers ONNX nodes from a counter every read advances: the page numbers them by
    position, and ``explorer-data`` keys its values the same way, whatever the process read before."""
    require("onnx", "pip install 'graphir[onnx]'")
    path = FIXTURES / "onnx" / "cnn.onnx"
    first = convert(path)["cnn"]
    graphir.read_model(path)  # the counter moves on, as in a server that opened other files
    again = convert(path)["cnn"]
    # the same graph; only the default names of nodes ONNX left unnamed (Convolution_<n>) moved on
    assert json.loads(re.sub(r"(?<=_)\d+", "N", json.dumps(first))) == json.loads(re.sub(r"(?<=_)\d+", "N", json.dumps(again)))
    assert [e for n in first["nodes"] for e in n["incomingEdges"]] == [e for n in again["nodes"] for e in n["incomingEdges"]]
    out = tmp_path / "bytes.json"
    assert main(["explorer-data", str(path), "--bytes", "-o", str(out)]) == 0
    results = json.loads(out.read_text())["cnn"]["results"]
    assert set(results) == {n["id"] for n in again["nodes"]}
    model = graphir.read_model(path)
    ordered = model.get_ordered_ops()
    weights = next(i for i, n in enumerate(ordered) if n.name == "head.weight")
    t = ordered[weights].outputs()[0].tensor_type
    assert results[str(weights)]["value"] == t.element_type.packed_size(int(np.prod([d.min for d in t.shape])))


def test_overlay_keys_are_not_tensor_names() -> None:
    """The page files a node-data value under the node with an output whose "tensor_name" is the
    value's key before it tries node ids; torch exports name tensors with numbers ("274"), so the
    adapter must not use that key, or values land on other nodes."""
    swin = convert(FIXTURES / "torchvision_shapes" / "swin_t.xml")["swin_t"]
    keys = {a["key"] for n in swin["nodes"] for m in n["outputsMetadata"] for a in m["attrs"]}
    assert keys == {"tensor_names", "type", "shape"}
    node = next(n for n in swin["nodes"] if n["id"] == "226")
    assert {a["key"]: a["value"] for a in node["outputsMetadata"][0]["attrs"]}["tensor_names"] == "276, qkv.7"
    ids = {n["id"] for n in swin["nodes"]}
    assert "276" in ids  # a node id that is also another node's tensor name
