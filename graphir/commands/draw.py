"""``graphir draw MODEL -o OUT.svg|OUT.html`` and ``graphir view MODEL``: pictures of a model."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

from graphir.cli import EXIT_OK, UsageError, command
from graphir.commands._common import load_reshaped

if TYPE_CHECKING:
    from graphir.model import Model


def _common_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin), oneDNN Graph .json or ONNX .onnx")
    p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=SHAPE",
                   help="reshape an input first, e.g. x=[8,64] (repeatable; a bare SHAPE for a one-input model)")
    p.add_argument("--dialect", choices=["directml", "onednn"],
                   help="fill the nodes this dialect cannot express (the reason on hover)")
    p.add_argument("--feature-level", default=None, metavar="LEVEL", help="DirectML feature level for --dialect directml")
    p.add_argument("--profile", action="store_true",
                   help="run once on random inputs and fill each node by its time")


def configure_draw(p: argparse.ArgumentParser) -> None:
    _common_arguments(p)
    p.add_argument("--output", "-o", required=True, metavar="OUT.svg|OUT.html",
                   help="where to write: .svg for the picture, .html for the interactive page")


def _prepared(args: argparse.Namespace) -> "Model":
    return load_reshaped(args.model, args.input)


def _drawing(args: argparse.Namespace, model: "Model", format: str) -> str:
    from graphir.drawing import draw

    return draw(model, format, dialect=args.dialect, feature_level=args.feature_level, profile=args.profile)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None


@command("draw", configure_draw, examples=(
    "graphir draw model.xml -o model.svg",
    "graphir draw model.xml -o model.html --dialect onednn"))
def draw_command(args: argparse.Namespace) -> int:
    """Draw the model (laid out by Graphviz's dot) to an SVG picture or a self-contained HTML page."""
    out = Path(args.output)
    format = out.suffix.lower().lstrip(".")
    if format not in ("svg", "html", "htm"):
        raise UsageError(f"--output {args.output}: expected a .svg or .html file")
    _write(out, _drawing(args, _prepared(args), "svg" if format == "svg" else "html"))
    print(f"wrote {out}")
    return EXIT_OK


def has_display() -> bool:
    """Whether a browser window can be opened (on Linux: an X11 or Wayland display is set)."""
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


@command("view", _common_arguments, examples=(
    "graphir view model.xml",))
def view_command(args: argparse.Namespace) -> int:
    """Write the interactive HTML drawing to a temporary file and open it in the browser."""
    page = _drawing(args, _prepared(args), "html")
    handle, name = tempfile.mkstemp(prefix=f"graphir-{Path(args.model).stem}-", suffix=".html")
    os.close(handle)
    path = Path(name)
    _write(path, page)
    if has_display() and webbrowser.open(path.as_uri()):
        print(f"opened {path}")
    else:
        print(path)
    return EXIT_OK
