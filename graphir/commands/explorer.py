"""``graphir explorer-data MODEL (--bytes | --validate DIALECT | --time | --error [REF]) -o DATA.json``: per-node overlays
for Google's Model Explorer (which opens the model through ``--extensions=graphir.explorer``)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from graphir.cli import EXIT_OK, UsageError, command
from graphir.commands._common import load_model


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin), ONNX .onnx or oneDNN Graph .json")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--bytes", action="store_true", help="bytes of each node's outputs (a gradient)")
    what.add_argument("--validate", metavar="DIALECT", choices=["directml", "onednn", "openvino"],
                      help="how many reasons the dialect cannot express each node (0: green, more: red)")
    what.add_argument("--time", action="store_true", help="microseconds each node takes in one profiled graphir run")
    what.add_argument("--error", nargs="?", const="", metavar="REFERENCE",
                      help="each layer's max abs error against OpenVINO CPU, or against REFERENCE run by graphir "
                           "(as graphir compare)")
    what.add_argument("--mismatches", nargs="?", const="", metavar="REFERENCE",
                      help="like --error, each layer's count of elements past tolerance")
    p.add_argument("--engine", choices=["openvino", "graphir"], help="what runs REFERENCE (default: graphir)")
    p.add_argument("--inputs", metavar="FILE.npz", help="input values for --time/--error, keyed by input name "
                   "(default: random, of sizes the model accepts)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--output", "-o", required=True, metavar="DATA.json", help="the node-data file to write")


@command("explorer-data", configure, examples=(
    "graphir explorer-data model.xml --bytes -o bytes.json",
    "graphir explorer-data model.xml --validate onednn -o onednn.json",
    "graphir explorer-data model.xml --time --inputs inputs.npz -o time.json",
    "graphir explorer-data model.xml --error -o error.json",
    "graphir explorer-data model_int8.xml --error model.xml -o error.json"))
def explorer_data(args: argparse.Namespace) -> int:
    """Write a Model Explorer node-data file (per-node overlay) for a model; open it with
    model-explorer MODEL --extensions=graphir.explorer --node_data_paths DATA.json."""
    from graphir.explorer import node_data
    from graphir.serializers.atomic import atomic_write

    model = load_model(args.model)
    graph = node_data.graph_id(args.model)
    thresholds: list[dict[str, Any]] | None = None
    if args.bytes:
        name, values = "output bytes", node_data.output_bytes(model)
    elif args.time:
        name, values = "time (us)", node_data.run_times(model, args.inputs, seed=args.seed)
    elif args.error is not None or args.mismatches is not None:
        what = "max_abs" if args.error is not None else "mismatches"
        reference = (args.error if args.error is not None else args.mismatches) or None
        if reference is not None and not Path(reference).is_file():
            raise UsageError(f"{reference}: no such file")
        values = node_data.layer_errors(model, reference, what=what, engine=args.engine, inputs=args.inputs,
                                        seed=args.seed, openvino_path=args.model)
        name = "max abs error" if what == "max_abs" else "mismatches"
    else:
        name, values = f"{args.validate} problems", node_data.dialect_problems(model, args.validate)
        thresholds = node_data.PROBLEM_THRESHOLDS
    text = node_data.node_data_json(graph, name, node_data.for_page(values, model, args.model), thresholds=thresholds)
    try:
        atomic_write(args.output, text.encode())
    except Exception as exc:  # noqa: BLE001 - an unwritable place: one line, exit 2
        raise UsageError(f"--output {args.output}: {exc}") from None
    print(f"wrote {args.output}: node data for graph '{graph}'")
    return EXIT_OK
