"""A scene as Graphviz DOT text: boxes with HTML-like labels, labelled edges, nested clusters."""
from __future__ import annotations

import re
from html import escape

from graphir.drawing.scene import Box, Scene
from graphir.trampoline import Task, drive

#: fills by op type (overlays take precedence)
TYPE_FILLS = {"Parameter": "#dff3e4", "Result": "#e8e8e8"}
DEFAULT_FILL = "#eef3fb"
#: at most this many badges per box; more are summarised as "+N constants"
MAX_BADGES = 4
#: edges of a scene up to which edge labels are laid out with the graph (see to_dot)
LABELLED_EDGES = 400
#: names longer than this are shortened in the box (the full name is in the tooltip and the HTML panel)
MAX_NAME = 40


def dot_string(text: str) -> str:
    """A DOT double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit // 2 - 1] + "..." + text[-(limit - limit // 2 - 2):]


def box_label(box: Box) -> str:
    """An HTML-like label: type-version in bold, the name, then one small line per Constant badge."""
    rows = [f'<TR><TD><B>{escape(box.type)}</B></TD></TR>',
            f'<TR><TD><FONT POINT-SIZE="8">{escape(short(box.name, MAX_NAME))}</FONT></TD></TR>']
    if box.extra_line:
        rows.append(f'<TR><TD><FONT POINT-SIZE="8">{escape(box.extra_line)}</FONT></TD></TR>')
    badges = box.badges if len(box.badges) <= MAX_BADGES else box.badges[: MAX_BADGES - 1] + [
        f"+{len(box.badges) - MAX_BADGES + 1} constants"]
    for badge in badges:
        rows.append(f'<TR><TD BGCOLOR="#fff1cc" CELLPADDING="1"><FONT POINT-SIZE="7" COLOR="#7a5200">'
                    f'{escape(short(badge, MAX_NAME))}</FONT></TD></TR>')
    return '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="1" CELLPADDING="0">' + "".join(rows) + "</TABLE>>"


def box_tooltip(box: Box) -> str:
    text = f"{box.type} {box.name}"
    return text + ("\n" + box.note if box.note else "")


def _node_line(box: Box, indent: str) -> str:
    fill = box.fill or TYPE_FILLS.get(box.type.split("-", 1)[0], DEFAULT_FILL)
    return (f'{indent}{box.key} [id={dot_string(box.key)}, label={box_label(box)}, '
            f'tooltip={dot_string(box_tooltip(box))}, fillcolor="{fill}"];')


def to_dot(scene: Scene) -> str:
    """The DOT text of a scene (top to bottom; each cluster a dashed rounded frame)."""
    lines = [
        "digraph graphir {",
        '  graph [rankdir=TB, nodesep=0.2, ranksep=0.3, fontname="Helvetica", fontsize=10, '
        f'tooltip={dot_string(scene.name)}];',
        '  node [shape=box, style="rounded,filled", color="#5b6b82", fontname="Helvetica", fontsize=10, '
        'margin="0.06,0.03", height=0.3];',
        '  edge [fontname="Helvetica", fontsize=7, color="#7a869a", fontcolor="#3e4c59", arrowsize=0.5];',
    ]
    children: dict[str | None, list[str]] = {}
    for key, cluster in scene.clusters.items():
        children.setdefault(cluster.parent, []).append(key)
    members: dict[str | None, list[Box]] = {}
    for box in scene.boxes.values():
        members.setdefault(box.cluster, []).append(box)

    def emit(cluster: str | None, indent: str) -> Task[None]:  # a task: clusters nest as deep as bodies
        for box in members.get(cluster, []):
            lines.append(_node_line(box, indent))
        for child in children.get(cluster, []):
            c = scene.clusters[child]
            lines.append(f"{indent}subgraph {child} {{")
            lines.append(f'{indent}  graph [id={dot_string(child)}, label={dot_string(c.label)}, '
                         'style="rounded,dashed", color="#8896ab", fontsize=9, labeljust=l];')
            yield emit(child, indent + "  ")
            lines.append(f"{indent}}}")

    drive(emit(None, "  "))
    # a real label gets room in the layout, beside its edge; an xlabel is placed after the layout
    # and may sit on an arrow, but a real label adds a rank of virtual nodes per edge (dot 5x
    # slower on a 2,000-layer model): labels up to LABELLED_EDGES edges, xlabels beyond
    kind = "label" if len(scene.edges) <= LABELLED_EDGES else "xlabel"
    for edge in scene.edges:
        # an en space first: dot sets a label's left edge on its edge's line
        text = edge.label if kind == "xlabel" else "\u2002" + edge.label
        attrs = 'style=dashed, arrowhead=none, color="#aab4c3"' if edge.dashed else f"{kind}={dot_string(text)}"
        lines.append(f"  {edge.source} -> {edge.target} [{attrs}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


_NODE_TITLE = re.compile(r'(<g id="([^"]+)" class="node[^"]*">\s*<title>)[^<]*(</title>)')


def titled(svg: str, scene: Scene) -> str:
    """Put each box's hover text (type, name, and an overlay's note) in its SVG ``<title>``, which
    browsers show on hover; Graphviz writes the DOT node id there."""
    def replace(match: re.Match[str]) -> str:
        box = scene.boxes.get(match.group(2))
        return match.group(0) if box is None else match.group(1) + escape(box_tooltip(box), quote=False) + match.group(3)

    return _NODE_TITLE.sub(replace, svg)
