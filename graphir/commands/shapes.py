"""``graphir shapes MODEL [--input NAME=SHAPE ...] [--json]``: shape inference, one row per layer."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from graphir.cli import EXIT_OK, UsageError, command
from graphir.commands._common import input_types, load_model, port_record, reshape_arguments, table
from graphir.ops.openvino.core import Result

if TYPE_CHECKING:
    from graphir.model import Model


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin), oneDNN Graph .json or ONNX .onnx")
    p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=SHAPE",
                   help="reshape an input first, e.g. x=[8,64] or x=?,3 or x=1..10,3 (repeatable; "
                        "a bare SHAPE for a one-input model)")
    p.add_argument("--json", action="store_true", help="print a JSON list (format in the README)")


def rows(model: "Model") -> list[dict[str, Any]]:
    """The --json records, in topological order (the README documents the format)."""
    records = []
    for node in model.get_ordered_ops():
        records.append({
            "id": node.id,
            "name": node.name,
            "type": node.type_name,
            "version": node.version,
            "inputs": [port_record(t) for t in input_types(node)],
            "outputs": [] if isinstance(node.op, Result) else [port_record(t) for t in node.output_types],
        })
    return records


@command("shapes", configure, examples=(
    "graphir shapes examples/select.xml",
    "graphir shapes model.xml --input x=[1,3,224,224] --json"))
def shapes(args: argparse.Namespace) -> int:
    """Infer element types and shapes (after reshaping the given inputs); one row per layer."""
    from graphir.errors import InputError

    from graphir.inference import infer_shapes, reshape

    model = load_model(args.model)
    mapping = reshape_arguments(model, args.input)
    if mapping is None:
        kept = infer_shapes(model, recorded_opaque=True)
    else:
        try:
            kept = reshape(model, mapping, recorded_opaque=True)
        except InputError as exc:
            raise UsageError(str(exc)) from None
    if kept:
        print(f"graphir shapes: note: {len(kept)} layer(s) graphir does not implement keep the shapes "
              f"their file recorded: " + ", ".join(n.describe() for n in kept), file=sys.stderr)
    records = rows(model)
    if args.json:
        print(json.dumps(records, indent=2))
        return EXIT_OK
    body = []
    for r in records:
        ports = r["inputs"] if r["type"] == "Result" else r["outputs"]
        shown = ", ".join(f"{p['type']}{p['shape']}" for p in ports) or "-"
        body.append([r["id"], r["name"], f"{r['type']}-{r['version']}", shown])
    print(f"{model.name}: {len(records)} layers")
    print(table(["id", "name", "type", "output types and shapes"], body))
    return EXIT_OK

