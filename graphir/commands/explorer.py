"""``graphir explorer-data MODEL (--bytes | --validate DIALECT) -o DATA.json``: per-node overlays
for Google's Model Explorer (which opens the model through ``--extensions=graphir.explorer``)."""
from __future__ import annotations

import argparse

from graphir.cli import EXIT_OK, UsageError, command
from graphir.commands._common import load_model


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin) or oneDNN Graph .json")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--bytes", action="store_true", help="bytes of each node's outputs (a gradient)")
    what.add_argument("--validate", metavar="DIALECT", choices=["directml", "onednn", "openvino"],
                      help="how many reasons the dialect cannot express each node (0: green, more: red)")
    p.add_argument("--output", "-o", required=True, metavar="DATA.json", help="the node-data file to write")


@command("explorer-data", configure, examples=(
    "graphir explorer-data model.xml --bytes -o bytes.json",
    "graphir explorer-data model.xml --validate onednn -o onednn.json"))
def explorer_data(args: argparse.Namespace) -> int:
    """Write a Model Explorer node-data file (per-node overlay) for a model; open it with
    model-explorer MODEL --extensions=graphir.explorer --node_data_paths DATA.json."""
    from graphir.explorer import node_data
    from graphir.serializers.atomic import atomic_write

    model = load_model(args.model)
    graph = node_data.graph_id(args.model)
    if args.bytes:
        text = node_data.node_data_json(graph, "output bytes", node_data.output_bytes(model))
    else:
        text = node_data.node_data_json(graph, f"{args.validate} problems", node_data.dialect_problems(model, args.validate),
                                        thresholds=node_data.PROBLEM_THRESHOLDS)
    try:
        atomic_write(args.output, text.encode())
    except Exception as exc:  # noqa: BLE001 - an unwritable place: one line, exit 2
        raise UsageError(f"--output {args.output}: {exc}") from None
    print(f"wrote {args.output}: node data for graph '{graph}'")
    return EXIT_OK
