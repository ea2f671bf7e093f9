"""Model Explorer in a real browser: one local Model Explorer server started with graphir's
extension (``--extensions=graphir.explorer,tests.explorer_rival``: a stand-in rival that claims
``.onnx`` too, loaded after graphir's) and one headless Chromium tab driven over the DevTools
protocol open zoo-like files through graphir, each with ``graphir explorer-data`` overlays:
torchvision's Swin-T, a Faster R-CNN (If bodies), a stateful Llama and an ONNX MobileNetV3.

For each, the page must show the graph with graphir's node count and Model Explorer's layer count
for graphir's module paths, each overlay's name, the top layer's share of the run time; the page's
own search must find a named node under its layer path; Alt+clicking the hit must show the node's
name, type, namespace, overlay values and the input and output shapes ``graphir shapes`` gives.

Screenshots stay in pytest's tmp dir (``basetemp``/explorer0/); with ``GRAPHIR_EXPLORER_SHOTS=DIR``
they are also written to DIR (docs/images/explorer was made so). Without the extra
(``graphir[explorer]``), tornado (the DevTools client) or chromium the tests skip with one reason,
except under CI (``CI`` set), where they fail."""
from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import graphir
from graphir.cli import main
from graphir.commands.shapes import rows as shape_rows
from graphir.explorer import page_ids, positional_ids
from graphir.model import Model, named_bodies
from tests.test_draw_browser import find_chromium
from tests.test_explorer import require

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
#: how long one page may take to lay a model out (a loaded 2-core machine: swin_t takes ~8 s)
PAGE_SECONDS = 90


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


class Tab:
    """One headless chromium tab over the DevTools protocol (tornado's websocket client, run on a
    private event loop so each call is synchronous)."""

    def __init__(self, chromium: str) -> None:
        from tornado.websocket import websocket_connect

        self.port = free_port()
        self.profile = tempfile.mkdtemp()
        self.browser = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--remote-debugging-port={self.port}", f"--user-data-dir={self.profile}", "--window-size=1400,900",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.loop = asyncio.new_event_loop()
        self.counter = 0
        self.connection: Any = None
        try:
            wait_for(f"http://127.0.0.1:{self.port}/json/version", 30)
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json"))
            url = [t for t in targets if t["type"] == "page"][0]["webSocketDebuggerUrl"]

            async def connect() -> Any:
                return await websocket_connect(url, max_message_size=1 << 28)

            self.connection = self.loop.run_until_complete(connect())
            self.call("Page.enable")
        except BaseException:
            self.close()  # no browser left behind
            raise

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.counter += 1
        wanted = self.counter

        async def exchange() -> dict[str, Any]:
            self.connection.write_message(json.dumps({"id": wanted, "method": method, "params": params}))
            while True:
                message = json.loads(await self.connection.read_message())
                if message.get("id") == wanted:
                    assert "error" not in message, message
                    return dict(message.get("result", {}))

        return self.loop.run_until_complete(exchange())

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def text(self, selector: str = "body") -> str:
        """The element's visible text, white space collapsed ('' while it is not there)."""
        found = self.evaluate(f"(document.querySelector({json.dumps(selector)}) || {{}}).innerText || ''")
        return " ".join(str(found).split())

    def wait_text(self, markers: list[str], selector: str = "body", seconds: float = PAGE_SECONDS) -> str:
        deadline = time.monotonic() + seconds
        text = ""
        while time.monotonic() < deadline:
            text = self.text(selector)
            if all(m in text for m in markers):
                return text
            time.sleep(0.5)  # reading a large page's text takes its main thread a while
        missing = [m for m in markers if m not in text]
        raise AssertionError(f"{missing} not in the page after {seconds} s: {text[:3000]}")

    def wait_gone(self, marker: str, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while marker in self.text() and time.monotonic() < deadline:
            time.sleep(0.5)

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
        self.loop.close()
        self.browser.kill()
        self.browser.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


@dataclass
class Explorer:
    port: int
    tab: Tab
    log: Path
    shots: Path

    def open(self, data: dict[str, Any], markers: list[str]) -> str:
        url = f"http://127.0.0.1:{self.port}/?data={urllib.parse.quote(json.dumps(data))}"
        self.tab.call("Page.navigate", url=url)
        return self.tab.wait_text(markers)

    def keep(self, png: bytes, name: str) -> None:
        """Check a screenshot is a picture, not a blank page; keep it (and in $GRAPHIR_EXPLORER_SHOTS)."""
        assert png.startswith(b"\x89PNG") and len(png) > 20_000
        (self.shots / name).write_bytes(png)
        extra = os.environ.get("GRAPHIR_EXPLORER_SHOTS")
        if extra:
            Path(extra).mkdir(parents=True, exist_ok=True)
            (Path(extra) / name).write_bytes(png)


@pytest.fixture(scope="module")
def explorer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Explorer]:
    require("model_explorer")
    require("tornado", "the DevTools client; the test extra brings it with distributed")
    chromium = find_chromium()
    shots = tmp_path_factory.mktemp("explorer")
    log = shots / "server.log"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "model_explorer", "--extensions=graphir.explorer,tests.explorer_rival",
                                   "--no_open_in_browser", f"--port={port}", "--skip_health_check"],
                                  env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
    tab = None
    try:
        wait_for(f"http://127.0.0.1:{port}/check_health", 120)
        tab = Tab(chromium)
        yield Explorer(port, tab, log, shots)
    finally:
        if tab is not None:
            tab.close()
        server.terminate()
        server.wait(timeout=30)


# ---------------------------------------------------------------- what graphir expects the page to show

def overlay(model_path: Path, flag: str, out: Path) -> dict[str, Any]:
    """``graphir explorer-data MODEL <flag> -o out``: the overlay's entry for the main graph."""
    assert main(["explorer-data", str(model_path), flag, "-o", str(out)]) == 0
    return dict(json.loads(out.read_text())[model_path.stem])


def spaces(graph: dict[str, Any]) -> dict[str, str]:
    """Node id -> namespace, as the adapter gives them to the page."""
    return {n["id"]: n["namespace"] for n in graph["nodes"]}


def adapter_graphs(path: Path) -> dict[str, dict[str, Any]]:
    from model_explorer.utils import convert_adapter_response

    from graphir.explorer.main import GraphirAdapter

    served = convert_adapter_response(GraphirAdapter().convert(str(path), {}))
    return {g["id"]: g for g in served["graphs"]}


def layer_count(namespaces: dict[str, str]) -> int:
    """Model Explorer's layers for these namespaces: every module path (and each of its parents)
    that holds more than one node; a path with one node puts it in its parent instead."""
    held: Counter[str] = Counter()
    for space in namespaces.values():
        parts = space.split("/") if space else []
        for i in range(1, len(parts) + 1):
            held["/".join(parts[:i])] += 1
    return sum(1 for count in held.values() if count > 1)


def js_number(tab: Tab, value: float) -> str:
    """How the page prints ``value`` (JavaScript's shortest form: 0, 1.5e-7, 0.000002)."""
    return str(tab.evaluate(f"String({json.dumps(value)})"))


@dataclass
class Opened:
    model: Model
    ids: dict[int, str]  # graphir node id -> id in the page

    def node(self, name: str) -> tuple[Any, str]:
        found = next(n for n in self.model.get_ordered_ops() if n.name == name)
        return found, self.ids[found.id]


def open_with_overlays(explorer: Explorer, path: Path, overlays: list[dict[str, Any]], files: list[Path],
                       top_layer: str) -> Opened:
    """Open ``path`` with its overlay files; check the graph's counts, the overlays' names and the
    top layer's share of the first overlay's sum in the root-level table."""
    model = graphir.read_model(path)
    count = len(model.get_ordered_ops())
    graph = adapter_graphs(path)[path.stem]
    namespaces = spaces(graph)
    data = {"models": [{"url": str(path)}], "nodeData": [str(f) for f in files], "nodeDataTargets": [""] * len(files)}
    text = explorer.open(data, [f"{path.stem} {count} nodes", "layer count", "Root-level nodes stats",
                                *(o["name"] for o in overlays)])
    assert f"GRAPH INFO op node count {count} layer count {layer_count(namespaces)}" in text
    # the layer sums what its nodes took: the top layer's share of the whole, in percent
    values = {k: v["value"] for k, v in overlays[0]["results"].items()}
    inside = sum(v for k, v in values.items() if namespaces[k].split("/")[0] == top_layer)
    share = 100 * inside / sum(values.values())
    roots = text[text.index("Root-level nodes stats"):text.index("Node data")]
    shown = re.search(rf"\d+ {re.escape(top_layer)} (\d+\.\d) ", roots)
    assert shown and abs(float(shown.group(1)) - share) < 0.06, (top_layer, share, roots)
    return Opened(model, page_ids(model, positional_ids(str(path))))


def search_and_select(explorer: Explorer, opened: Opened, name: str, namespace: str) -> str:
    """Type ``name`` in the page's search box: the hits hold the node, under its layer path; Alt+click
    it: the side panel's text."""
    tab = explorer.tab
    model = opened.model
    node, page_id = opened.node(name)
    tab.evaluate("document.querySelector('input[placeholder*=\"Search\"]').focus()")
    tab.call("Input.insertText", text=re.escape(name) + "$")  # the node alone (not its parts named name.Type_k)
    results = ".search-results-container"
    found = tab.wait_text(["result", "Alt+Click"], results, 30)
    # the hits as a tree of layers: "<root> / a / b" on one row, each deeper layer a row below
    tree = re.sub(r"\s*keyboard_arrow_down\s*", " / ", found).split("<root> / ", 1)[-1]
    assert f"{namespace.replace('/', ' / ')} {node.type_name}" in tree, (namespace, found)
    ids = tab.evaluate(f"Array.from(document.querySelectorAll('{results} mat-tree-node[data-id]')).map(e => e.dataset.id)")
    assert page_id in ids, (ids, found)
    tab.evaluate(f"document.querySelector('{results} mat-tree-node[data-id=\"{page_id}\"] .label')"
                 ".dispatchEvent(new MouseEvent('click', {bubbles: true, altKey: true}))")
    text = tab.wait_text([f"NODE INFO op name {node.type_name} id {page_id} namespace {namespace} "])
    panel = text[text.index("NODE INFO"):]
    assert f"ATTRIBUTES name {node.name} " in panel
    assert f" type {node.type_name}-{node.version} " in panel and " dialect openvino " in panel
    rows = {r["id"]: r for r in shape_rows(model)}[node.id]  # what `graphir shapes --json` prints
    inputs = panel[panel.index(f"INPUTS ({len(rows['inputs'])})"):panel.index("OUTPUTS")]
    outputs = panel[panel.index(f"OUTPUTS ({len(rows['outputs'])})"):]
    for part, expected in ((inputs, rows["inputs"]), (outputs, rows["outputs"])):
        shown = re.findall(r"\bshape (\S+) .*?\btype (\S+)", part)
        assert shown == [(e["shape"], e["type"]) for e in expected], (shown, part)
    return panel


def check_values(explorer: Explorer, panel: str, page_id: str, overlays: list[dict[str, Any]]) -> None:
    """The side panel shows each overlay's value of the node, as the page prints numbers."""
    shown = panel[panel.index("NODE DATA PROVIDERS"):panel.index("INPUTS")]
    for data in overlays:
        value = data["results"][page_id]["value"]
        assert f"{data['name']} {js_number(explorer.tab, value)}" in shown, (data["name"], value, shown)


def snapshot(explorer: Explorer, name: str) -> None:
    explorer.tab.wait_gone("Please wait")
    time.sleep(1)  # the canvas' move to the selected node
    explorer.keep(explorer.tab.screenshot(), name)


# ---------------------------------------------------------------- the zoo-like files

def test_swin_with_run_times(explorer: Explorer, tmp_path: Path) -> None:
    path = FIXTURES / "torchvision_shapes" / "swin_t.xml"
    times = overlay(path, "--time", tmp_path / "time.json")
    opened = open_with_overlays(explorer, path, [times], [tmp_path / "time.json"], "features")
    name = "__module.features.1.1.attn/aten::permute/Transpose_1"
    panel = search_and_select(explorer, opened, name, "features/1/1/attn")
    check_values(explorer, panel, opened.node(name)[1], [times])
    snapshot(explorer, "swin_t_time.png")


def test_detector_with_bodies_and_run_times(explorer: Explorer, tmp_path: Path) -> None:
    path = FIXTURES / "torchvision_detectors" / "fasterrcnn.xml"
    files = [tmp_path / "time.json"]
    overlays = [overlay(path, "--time", files[0])]
    opened = open_with_overlays(explorer, path, overlays, files, "inner")
    # the If of the region proposals, with a then and an else body
    panel = search_and_select(explorer, opened, "prim::If/If", "inner/rpn")
    check_values(explorer, panel, opened.node("prim::If/If")[1], overlays)
    assert "then_output_descriptions [{external_port_id: 4, internal_layer_id: 1}]" in panel
    snapshot(explorer, "fasterrcnn_time.png")
    # every body is a graph of its own in the page's graph list, with its node count
    tab = explorer.tab
    tab.evaluate("document.querySelector('.mat-mdc-select-trigger').click()")
    model = opened.model
    bodies = [(f"fasterrcnn/{n.name}/{name}", len(body.get_ordered_ops()))
              for n in model.get_ordered_ops() for name, body in named_bodies(n.op)]
    assert len(bodies) == 4
    listed = tab.wait_text([f"{bid} {count} nodes" for bid, count in bodies], ".cdk-overlay-container", 30)
    assert f"fasterrcnn {len(model.get_ordered_ops())} nodes" in listed
    # opening one shows its nodes
    bid, count = next((b, c) for b, c in bodies if b.endswith("/prim::If/If/else_body"))
    tab.evaluate("Array.from(document.querySelectorAll('mat-option')).find(o => o.innerText.includes("
                 f"{json.dumps(bid)})).click()")
    tab.wait_text([f"{bid} {count} nodes", f"GRAPH INFO op node count {count} "])


def test_stateful_llm_with_run_times_and_errors(explorer: Explorer, tmp_path: Path) -> None:
    path = FIXTURES / "llm" / "llama-fp32" / "openvino_model.xml"
    files = [tmp_path / "time.json", tmp_path / "error.json"]
    overlays = [overlay(path, "--time", files[0]), overlay(path, "--error", files[1])]
    opened = open_with_overlays(explorer, path, overlays, files, "model")
    # the state of layer 1's attention: the KV cache's value half
    read, page_id = opened.node("ReadValue_15226")
    panel = search_and_select(explorer, opened, read.name, "model/layers/1/self_attn")
    assert f"variable_id {read.op.variable_id} " in panel
    check_values(explorer, panel, page_id, overlays)
    snapshot(explorer, "llama_stateful_time_error.png")


def test_onnx_opens_through_graphir_before_a_rival_adapter(explorer: Explorer, tmp_path: Path) -> None:
    require("onnx", "pip install 'graphir[onnx]'")
    path = FIXTURES / "onnx" / "mobilenet_v3_small.onnx"
    times = overlay(path, "--time", tmp_path / "time.json")
    opened = open_with_overlays(explorer, path, [times], [tmp_path / "time.json"], "features")
    log = explorer.log.read_text()
    assert log.index("graphir (OpenVINO IR, ONNX)") < log.index("rival ONNX adapter")  # both claim .onnx
    assert "rival_graph" not in explorer.tab.text()
    name = "/features/features.4/block/block.2/scale_activation/HardSigmoid"  # torch's scopes, as in its IR
    panel = search_and_select(explorer, opened, name, "features/4/block/2/scale_activation")
    check_values(explorer, panel, opened.node(name)[1], [times])
    snapshot(explorer, "mobilenet_v3_small_onnx.png")
    # the rival does claim .onnx: asked for by id, the page opens the file with it
    explorer.open({"models": [{"url": str(path), "adapterId": "rival_onnx"}]}, ["rival_graph 1 nodes"])


def test_an_ir_and_its_bytes_overlay(explorer: Explorer, tmp_path: Path) -> None:
    path = FIXTURES / "corpus" / "residual_block.xml"
    assert main(["explorer-data", str(path), "--bytes", "-o", str(tmp_path / "bytes.json")]) == 0
    data = {"models": [{"url": str(path)}], "nodeData": [str(tmp_path / "bytes.json")], "nodeDataTargets": [""]}
    model = graphir.read_model(path)
    text = explorer.open(data, [f"residual_block {len(model.get_ordered_ops())} nodes", "output bytes", "Min 32 Max 2304"])
    table = text[text.index("Node data"):]  # the overlay's table lists the nodes by label, with their values
    for node in model.get_ordered_ops():
        assert node.type_name in table
    time.sleep(1)
    explorer.keep(explorer.tab.screenshot(), "residual_block_bytes.png")
