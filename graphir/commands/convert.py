"""``graphir convert IN OUT [--to ir-v11|ir-v10|onednn-json]``: rewrite a model in another format."""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from graphir.cli import EXIT_INCONSISTENT, EXIT_OK, UsageError, command
from graphir.commands._common import load_model
from graphir.errors import ConversionError
from graphir.serializers.onednn_constants import sidecar

#: target -> (file suffix, dialect the ops must be in, save options)
TARGETS: dict[str, tuple[str, str, dict[str, int]]] = {
    "ir-v11": (".xml", "openvino", {"version": 11}),
    "ir-v10": (".xml", "openvino", {"version": 10}),
    "onednn-json": (".json", "onednn", {}),
}


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="IN", help="OpenVINO IR .xml, oneDNN Graph .json or ONNX .onnx")
    p.add_argument("target", metavar="OUT", help="the file to write (.xml: IR, .json: oneDNN Graph)")
    p.add_argument("--to", choices=sorted(TARGETS), default=None,
                   help="output format (default: from OUT's suffix; .xml is ir-v11)")
    p.add_argument("--constants-as-inputs", action="store_true",
                   help="onednn-json: write Constants as plain graph inputs to feed, their data not kept "
                        "(by default they are constant-property inputs with their data in "
                        "OUT-stem.constants.npz beside the JSON, read back as Constants)")


def target_of(path: str, to: str | None) -> str:
    suffix = Path(path).suffix.lower()
    if to is None:
        if suffix == ".xml":
            return "ir-v11"
        if suffix == ".json":
            return "onednn-json"
        raise UsageError(f"{path}: cannot tell the output format from the suffix; use .xml or .json, or --to")
    if suffix != TARGETS[to][0]:
        raise UsageError(f"--to {to} writes a {TARGETS[to][0]} file, but OUT is {path}")
    return to


@command("convert", configure, examples=(
    "graphir convert model.xml model_v10.xml --to ir-v10",
    "graphir convert model.xml graph.json",
    "graphir convert graph.json model.xml"))
def convert(args: argparse.Namespace) -> int:
    """Convert between OpenVINO IR v10/v11 and oneDNN Graph JSON (ops are converted between dialects)."""
    import graphir
    from graphir.convert.base import convert_model, model_dialect

    target = target_of(args.target, args.to)
    _, dialect, options = TARGETS[target]
    model = load_model(args.source)
    if model_dialect(model) != dialect:
        try:
            model = convert_model(model, dialect)
        except ConversionError as exc:
            problems = getattr(exc, "problems", None)
            if not problems:
                raise
            print(f"graphir convert: error: {conversion_report(exc.summary, problems)}", file=sys.stderr)  # type: ignore[attr-defined]
            return EXIT_INCONSISTENT
    if target == "onednn-json" and args.constants_as_inputs:
        options = {**options, "constants_as_inputs": True}
    graphir.save_model(model, args.target, **options)
    kept = f"; constants in {sidecar(Path(args.target))}" if target == "onednn-json" and sidecar(Path(args.target)).is_file() else ""
    print(f"wrote {args.target} ({target}, {len(model)} nodes{kept})")
    return EXIT_OK


#: how many of the nodes that cannot convert ``convert`` lists
SHOWN = 10


def conversion_report(summary: str, problems: list[str]) -> str:
    """What cannot convert: the count by op type, then the first ``SHOWN`` nodes one per line."""
    kinds: dict[str, int] = {}
    for line in problems:
        match = re.search(r"\(([A-Za-z0-9_]+)-[^)]*\)", line)
        kind = match.group(1) if match else "other"
        kinds[kind] = kinds.get(kind, 0) + 1
    counts = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    lines = [f"{summary}: {len(problems)} node(s) cannot convert ({counts})"]
    lines += [f"  {line}" for line in problems[:SHOWN]]
    if len(problems) > SHOWN:
        lines.append(f"  ... and {len(problems) - SHOWN} more")
    return "\n".join(lines)
