"""Pictures of models: ``draw(model)`` lays a model out with Graphviz's dot (the ``graphviz-pure``
wheel) and returns an SVG document or a self-contained HTML page (see ``graphir draw``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from graphir.drawing.dot import titled, to_dot
from graphir.drawing.layout import LayoutError, render_svg
from graphir.drawing.overlays import color_dialect, color_profile
from graphir.drawing.page import html_page
from graphir.drawing.scene import Scene, build_scene

if TYPE_CHECKING:
    from graphir.model import Model

__all__ = ["draw", "build_scene", "Scene", "LayoutError", "to_dot", "html_page"]


def draw(model: "Model", format: str = "svg", *, dialect: str | None = None, feature_level: str | None = None,
         profile: bool = False) -> str:
    """The drawing of ``model`` as an SVG document (``format="svg"``) or an HTML page (``"html"``).

    ``dialect`` ("directml" or "onednn") fills the nodes that dialect cannot express, the reason on
    hover; ``profile`` runs the model once on random inputs and fills nodes by their time."""
    if format not in ("svg", "html"):
        raise ValueError(f"format must be 'svg' or 'html', not {format!r}")
    scene = build_scene(model)
    notes = []
    if dialect is not None:
        count = color_dialect(scene, model, dialect, feature_level)
        notes.append(f"{count} node(s) not expressible in {dialect}")
    if profile:
        total = color_profile(scene, model)
        notes.append(f"profiled run: {total * 1e3:.1f} ms")
    svg = titled(render_svg(to_dot(scene)), scene)
    return svg if format == "svg" else html_page(scene, svg, "; ".join(notes))
