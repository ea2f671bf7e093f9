"""The drawing as one self-contained HTML page: the SVG inline, the nodes' details as JSON, and a
small viewer script of our own (``page.js``: pan, zoom, search, attributes on click). Nothing is
fetched when the page is viewed."""
from __future__ import annotations

import json
from html import escape
from importlib import resources

from graphir.drawing.scene import Scene

STYLE = """
html, body { margin: 0; height: 100%; font: 13px Helvetica, Arial, sans-serif; color: #1f2933; }
body { display: flex; flex-direction: column; }
header { display: flex; gap: 12px; align-items: center; padding: 6px 10px; background: #f0f3f7;
         border-bottom: 1px solid #cfd6df; }
header h1 { font-size: 14px; margin: 0; }
#count, #hits { color: #52606d; }
#search { width: 220px; padding: 3px 6px; }
main { flex: 1; display: flex; min-height: 0; }
#view { flex: 1; overflow: hidden; cursor: grab; background: white; }
#view svg { width: 100%; height: 100%; user-select: none; }
#panel { width: 340px; overflow: auto; padding: 8px 12px; border-left: 1px solid #cfd6df; background: #fafbfc; }
#panel h2 { font-size: 14px; margin: 4px 0; word-break: break-all; }
#panel .type { color: #52606d; margin-bottom: 6px; }
#panel .note { background: #fdecea; padding: 4px 6px; margin-bottom: 6px; }
#panel table { border-collapse: collapse; width: 100%; }
#panel th { text-align: left; vertical-align: top; padding: 2px 6px 2px 0; color: #52606d; font-weight: normal; }
#panel td { font-family: monospace; word-break: break-all; padding: 2px 0; }
g.node { cursor: pointer; }
g.node.hit a > :first-child { stroke: #d9480f; stroke-width: 3px; }
g.node.selected a > :first-child { stroke: #1c7ed6; stroke-width: 4px; }
"""


def node_details(scene: Scene) -> dict[str, dict[str, object]]:
    return {key: {"name": b.name, "type": b.type, "attributes": b.attributes, "inputs": b.inputs,
                  "outputs": b.outputs, "badges": b.badges, "note": b.note}
            for key, b in scene.boxes.items()}


def inline_svg(svg: str) -> str:
    """The SVG element alone (no XML prolog, doctype or comments before it)."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def script_json(value: object) -> str:
    """JSON safe inside a <script> element: no ``<`` at all (``</script>`` and ``<!--`` would end or
    change the element), as its JSON escape."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def html_page(scene: Scene, svg: str, subtitle: str = "") -> str:
    script = resources.files("graphir.drawing").joinpath("page.js").read_text(encoding="utf-8")
    count = f"{len(scene.boxes)} nodes, {len(scene.edges)} edges"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(scene.name)} - graphir</title><style>{STYLE}</style></head><body>"
        f"<header><h1>{escape(scene.name)}</h1><span id=\"count\" data-nodes=\"{len(scene.boxes)}\">{count}</span>"
        f"<span>{escape(subtitle)}</span>"
        "<input id=\"search\" type=\"search\" placeholder=\"search nodes by name or type\">"
        "<span id=\"hits\"></span><button id=\"zoom-in\" title=\"zoom in\">+</button>"
        "<button id=\"zoom-out\" title=\"zoom out\">&minus;</button><button id=\"fit\">fit</button></header>"
        f"<main><div id=\"view\">{inline_svg(svg)}</div><aside id=\"panel\" hidden></aside></main>"
        f"<script type=\"application/json\" id=\"graphir-data\">{script_json({'nodes': node_details(scene)})}</script>"
        f"<script>{script}</script></body></html>\n"
    )
