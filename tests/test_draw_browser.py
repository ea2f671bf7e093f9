"""The HTML drawing in a real browser: Debian's chromium, headless, loads the page of a real network
offline; a small driver script appended to a copy of the page searches a node, clicks it and
writes what the page shows into the DOM, which chromium dumps. A screenshot stays in pytest's
tmp dir (``basetemp``/test_..._0/page.png) as the test's artifact.

Without chromium the test skips with one reason, except under CI (``CI`` set), where it fails:
``.ci/run`` installs chromium with apt when it is missing."""
from __future__ import annotations

import enum
import json
import os
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest

import graphir
from graphir.ops.openvino.core import Constant

NETWORK = Path(__file__).parent / "fixtures" / "corpus" / "transformer_encoder.xml"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,800"]

#: runs after the page's own script: search, click the first hit, report what the DOM shows
DRIVER = """
<script>
(function () {
  const report = {};
  const nodes = Array.from(document.querySelectorAll("#view svg g.node"));
  const view = document.getElementById("view").getBoundingClientRect();
  report.count_text = document.getElementById("count").textContent;
  report.nodes = nodes.length;
  report.rendered = nodes.filter((g) => { const r = g.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length;
  const svg = document.querySelector("#view svg");
  const viewBox = () => svg.getAttribute("viewBox").split(" ").map(Number);
  report.start = viewBox();
  document.getElementById("zoom-in").click();
  report.zoomed_in = viewBox();
  const target = document.getElementById("view");
  target.dispatchEvent(new PointerEvent("pointerdown", { clientX: 600, clientY: 400, bubbles: true }));
  window.dispatchEvent(new PointerEvent("pointermove", { clientX: 500, clientY: 300, bubbles: true }));
  window.dispatchEvent(new PointerEvent("pointerup", { clientX: 500, clientY: 300, bubbles: true }));
  report.panned = viewBox();
  target.dispatchEvent(new WheelEvent("wheel", { clientX: 600, clientY: 400, deltaY: 200, bubbles: true, cancelable: true }));
  report.wheeled = viewBox();
  const search = document.getElementById("search");
  search.value = %(query)s;
  search.dispatchEvent(new Event("input"));
  report.hits_text = document.getElementById("hits").textContent;
  const hits = nodes.filter((g) => g.classList.contains("hit"));
  report.hits = hits.map((g) => g.id);
  if (hits.length) {
    const r = hits[0].getBoundingClientRect();
    report.hit_in_view = r.left >= view.left && r.right <= view.right && r.top >= view.top && r.bottom <= view.bottom;
    hits[0].dispatchEvent(new MouseEvent("click", { bubbles: true }));
  }
  const panel = document.getElementById("panel");
  report.panel_hidden = panel.hidden;
  report.panel_title = (panel.querySelector("h2") || {}).textContent;
  report.attributes = Array.from(panel.querySelectorAll("#attributes tr")).map(
    (tr) => [tr.children[0].textContent, tr.children[1].textContent]);
  report.selected = Array.from(document.querySelectorAll("g.node.selected")).map((g) => g.id);
  const pre = document.createElement("pre");
  pre.id = "graphir-test";
  pre.textContent = JSON.stringify(report);
  document.body.append(pre);
})();
</script>
"""


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    reason = "chromium is not installed (apt-get install chromium; .ci/run installs it under CI)"
    if os.environ.get("CI"):
        pytest.fail(f"CI is set, so the browser test is required: {reason}")
    pytest.skip(reason)


def chromium(binary: str, profile: Path, *args: str) -> str:
    done = subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_html_drawing_works_in_headless_chromium(tmp_path: Path) -> None:
    binary = find_chromium()
    model = graphir.read_model(NETWORK)
    drawn = [n for n in model.get_ordered_ops() if not isinstance(n.op, Constant)]
    target = next(n for n in drawn if n.type_name == "MVN")
    query = target.name
    expected_hits = sorted(f"n{n.id}" for n in drawn
                           if query.lower() in n.name.lower() or query.lower() in f"{n.type_name}-{n.version}".lower())
    page = model.draw("html")
    (tmp_path / "model.html").write_text(page, encoding="utf-8")
    driven = tmp_path / "driven.html"
    driven.write_text(page.replace("</body>", DRIVER % {"query": json.dumps(query)} + "</body>"), encoding="utf-8")

    dom = chromium(binary, tmp_path / "profile", "--dump-dom", driven.as_uri())
    match = re.search(r'<pre id="graphir-test">(.*?)</pre>', dom, re.S)
    assert match, dom[-2000:]
    report = json.loads(unescape(match.group(1)))
    assert report["count_text"] == f"{len(drawn)} nodes, {report['count_text'].split(', ')[1]}"
    assert report["nodes"] == report["rendered"] == len(drawn)
    x0, y0, w0, h0 = report["start"]
    x1, y1, w1, h1 = report["zoomed_in"]
    assert w1 == pytest.approx(w0 / 1.4) and h1 == pytest.approx(h0 / 1.4)  # the + button
    x2, y2, w2, h2 = report["panned"]
    assert (w2, h2) == (w1, h1) and x2 > x1 and y2 > y1  # dragging up-left moves the view down-right
    assert report["wheeled"][2] > w2  # wheel down zooms out
    assert sorted(report["hits"]) == expected_hits and f"n{target.id}" in report["hits"]
    assert report["hits_text"] in ("1 match", f"1 of {len(expected_hits)} matches")
    assert report["hit_in_view"] is True
    assert report["panel_hidden"] is False
    clicked = next(n for n in drawn if f"n{n.id}" == report["hits"][0])
    assert report["selected"] == [report["hits"][0]]
    assert report["panel_title"] == clicked.name
    shown = dict(report["attributes"])
    for field, value in clicked.op.attributes().items():
        assert shown[field] == (str(value.value) if isinstance(value, enum.Enum) else str(value))
    assert shown["output 0"] == f"{clicked.output_types[0].element_type}{clicked.output_types[0].shape}"

    screenshot = tmp_path / "page.png"
    chromium(binary, tmp_path / "profile2", f"--screenshot={screenshot}", driven.as_uri())
    assert screenshot.stat().st_size > 10_000


def test_without_chromium_the_test_skips_with_one_reason_or_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"^chromium is not installed \(apt-get install chromium; "):
        find_chromium()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="^CI is set, so the browser test is required: chromium is not"):
        find_chromium()


#: what the opening view of a small graph shows: every node, the text size, labels against edges
OPENING = """
<script>
(function () {
  const view = document.getElementById("view").getBoundingClientRect();
  const inside = (r) => r.left >= view.left - 1 && r.right <= view.right + 1 && r.top >= view.top - 1 && r.bottom <= view.bottom + 1;
  const nodes = Array.from(document.querySelectorAll("#view svg g.node"));
  const report = {};
  report.nodes_in_view = nodes.filter((g) => inside(g.getBoundingClientRect())).length;
  report.nodes = nodes.length;
  report.type_text_px = Math.min(...nodes.map((g) => g.querySelector("text").getBoundingClientRect().height));
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  report.labels = 0;
  report.labels_on_arrows = [];
  document.querySelectorAll("#view svg g.edge").forEach((g) => {
    const text = g.querySelector("text");
    if (!text) return;
    report.labels += 1;
    const t = text.getBoundingClientRect();
    g.querySelectorAll("path, polygon").forEach((shape) => {
      if (overlaps(t, shape.getBoundingClientRect())) report.labels_on_arrows.push(text.textContent);
    });
  });
  const pre = document.createElement("pre");
  pre.id = "graphir-test";
  pre.textContent = JSON.stringify(report);
  document.body.append(pre);
})();
</script>
"""


def test_a_small_graph_opens_whole_readable_and_labels_clear_the_arrows(tmp_path: Path) -> None:
    """Five ops: the page opens on the whole graph with its type names at least 14 pixels high
    (it opened at 1:1, 10-pixel text in a corner of the window), and no edge label touches its
    edge's line or arrowhead (labels were placed after the layout, over the lines)."""
    import numpy as np

    from graphir import opset

    binary = find_chromium()
    x = opset.parameter([1, 8], np.float32, name="x")
    scaled = opset.add(opset.multiply(x, np.float32(2)), np.float32(1), name="bias")
    y = opset.softmax(opset.relu(scaled, name="act"), 1, name="probs")
    page = graphir.Model([y], [x], name="small").draw("html")
    driven = tmp_path / "small.html"
    driven.write_text(page.replace("</body>", OPENING + "</body>"), encoding="utf-8")
    dom = chromium(binary, tmp_path / "profile", "--dump-dom", driven.as_uri())
    match = re.search(r'<pre id="graphir-test">(.*?)</pre>', dom, re.S)
    assert match, dom[-2000:]
    report = json.loads(unescape(match.group(1)))
    assert report["nodes"] == report["nodes_in_view"] == 6
    assert report["type_text_px"] >= 14, report
    assert report["labels"] == 5 and report["labels_on_arrows"] == [], report
