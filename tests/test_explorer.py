"""The Model Explorer adapter (graphir.explorer): its graphs for real exports against the model and
``graphir shapes``, nested bodies, module namespaces, the node-data overlays, and a real headless
Chromium session against a local Model Explorer server that opens an IR and an overlay (the
screenshot stays in pytest's tmp dir, ``basetemp``/test_browser_..._0/page.png).

Without the extra (``graphir[explorer]``) or chromium the tests skip with one reason, except under
CI (``CI`` set), where they fail."""
from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import graphir
from graphir.cli import main
from graphir.commands.shapes import rows as shape_rows
from graphir.model import named_bodies
from tests.test_draw_browser import find_chromium  # one way to find (or require) the browser

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
EXPORTS = [FIXTURES / "corpus" / "transformer_encoder.xml", FIXTURES / "corpus" / "lstm.xml",
           FIXTURES / "torchvision_shapes" / "swin_t.xml",
           FIXTURES / "torchvision" / "lraspp_mobilenet_v3_small.xml", FIXTURES / "llm" / "llama-fp32" / "openvino_model.xml",
           FIXTURES / "ir" / "control_flow" / "loop_counted.xml", FIXTURES / "ir" / "control_flow" / "if_shapes.xml"]


def require(module: str) -> Any:
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        reason = f"needs {module} (pip install 'graphir[explorer]')"
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
    graphs = convert(path)
    model = graphir.read_model(path)
    pending = [(model, path.stem)]
    seen = set()
    while pending:
        current, gid = pending.pop()
        seen.add(gid)
        graph = graphs[gid]
        nodes = {n["id"]: n for n in graph["nodes"]}
        ordered = current.get_ordered_ops()
        assert list(nodes) == [str(n.id) for n in ordered]
        shapes = {r["id"]: r for r in shape_rows(current)}  # what `graphir shapes --json` prints
        for node in ordered:
            shown = nodes[str(node.id)]
            assert shown["label"] == node.type_name
            attrs = {a["key"]: a["value"] for a in shown["attrs"]}
            assert (attrs["name"], attrs["type"]) == (node.name, f"{node.type_name}-{node.version}")
            assert [(e["sourceNodeId"], e["sourceNodeOutputId"], e["targetNodeInputId"]) for e in shown["incomingEdges"]] \
                == [(str(s.node.id), str(s.index), str(i)) for i, s in enumerate(node.inputs) if s is not None]
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


# ---------------------------------------------------------------- a real browser

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer in {seconds} s")


async def page_text_and_screenshot(chromium: str, url: str, done: str, seconds: float) -> tuple[str, bytes]:
    """Open ``url`` in headless chromium over the DevTools protocol; once the page's text holds
    ``done``: the text and a PNG screenshot."""
    from tornado.websocket import websocket_connect

    port = free_port()
    profile = tempfile.mkdtemp()
    browser = subprocess.Popen([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
                                "--window-size=1400,900", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(f"http://127.0.0.1:{port}/json/version", 30)
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
        socket_url = [t for t in targets if t["type"] == "page"][0]["webSocketDebuggerUrl"]
        connection = await websocket_connect(socket_url, max_message_size=1 << 28)
        counter = 0

        async def call(method: str, **params: Any) -> dict[str, Any]:
            nonlocal counter
            counter += 1
            connection.write_message(json.dumps({"id": counter, "method": method, "params": params}))
            while True:
                message = json.loads(await connection.read_message())
                if message.get("id") == counter:
                    return message.get("result", {})

        await call("Page.enable")
        await call("Page.navigate", url=url)
        deadline = time.monotonic() + seconds
        text = ""
        while time.monotonic() < deadline and done not in text:
            await asyncio.sleep(0.5)
            result = await call("Runtime.evaluate", expression="document.body ? document.body.innerText : ''",
                                returnByValue=True)
            text = result["result"].get("value", "")
        await asyncio.sleep(2)  # the graph's first frame
        shot = await call("Page.captureScreenshot", format="png")
        connection.close()
        return text, base64.b64decode(shot["data"])
    finally:
        browser.kill()
        browser.wait()
        shutil.rmtree(profile, ignore_errors=True)


def test_browser_opens_an_ir_and_its_overlay(tmp_path: Path) -> None:
    require("model_explorer")
    require("tornado")
    chromium = find_chromium()
    model_path = FIXTURES / "corpus" / "residual_block.xml"
    overlay = tmp_path / "bytes.json"
    assert main(["explorer-data", str(model_path), "--bytes", "-o", str(overlay)]) == 0
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen([sys.executable, "-m", "model_explorer", "--extensions=graphir.explorer",
                               "--no_open_in_browser", f"--port={port}", "--skip_health_check"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(f"http://127.0.0.1:{port}/check_health", 120)
        data = {"models": [{"url": str(model_path)}], "nodeData": [str(overlay)], "nodeDataTargets": [""]}
        url = f"http://127.0.0.1:{port}/?data={urllib.parse.quote(json.dumps(data))}"
        text, png = asyncio.run(page_text_and_screenshot(chromium, url, "output bytes", 90))
    finally:
        server.terminate()
        log = server.communicate(timeout=30)[0]
    (tmp_path / "page.png").write_bytes(png)
    assert png.startswith(b"\x89PNG") and len(png) > 20_000
    model = graphir.read_model(model_path)
    count = len(model.get_ordered_ops())
    assert "graphir (OpenVINO IR)" in log  # the adapter was loaded
    assert f"residual_block {count} nodes" in " ".join(text.split()), text
    assert "output bytes" in text
    # the overlay's table lists the nodes by label, with their values
    table = " ".join(text.split())
    for node in model.get_ordered_ops():
        assert node.type_name in table
    assert "Min 32 Max 2304" in table  # the aggregated stats of the overlay
