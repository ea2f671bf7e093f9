"""``graphir convert IN OUT [--to ir-v11|ir-v10|onednn-json]``: rewrite a model in another format."""
from __future__ import annotations

import argparse
from pathlib import Path

from graphir.cli import EXIT_OK, UsageError, command
from graphir.commands._common import load_model

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
                   help="onednn-json: write Constants as constant-property graph inputs (their data is "
                        "not kept: oneDNN Graph JSON holds no tensor data)")


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
    "graphir convert model.xml graph.json --constants-as-inputs",
    "graphir convert graph.json model.xml"))
def convert(args: argparse.Namespace) -> int:
    """Convert between OpenVINO IR v10/v11 and oneDNN Graph JSON (ops are converted between dialects)."""
    import graphir
    from graphir.convert.base import convert_model, model_dialect

    target = target_of(args.target, args.to)
    _, dialect, options = TARGETS[target]
    model = load_model(args.source)
    if model_dialect(model) != dialect:
        model = convert_model(model, dialect)
    if target == "onednn-json" and args.constants_as_inputs:
        options = {**options, "constants_as_inputs": True}
    graphir.save_model(model, args.target, **options)
    print(f"wrote {args.target} ({target}, {len(model)} nodes)")
    return EXIT_OK
