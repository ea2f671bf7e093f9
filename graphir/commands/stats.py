"""``graphir stats MODEL``: MACs/FLOPs, parameters, weight bytes and memory, per layer and in total."""
from __future__ import annotations

import argparse

from graphir.cli import EXIT_OK, command
from graphir.commands._common import load_model
from graphir.commands._tools import add_json_option, add_shape_option, print_json, static_shapes


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin) or oneDNN Graph .json")
    add_shape_option(p)
    p.add_argument("--layers", type=int, default=0, metavar="N",
                   help="also list the N layers with the most FLOPs (-1: every layer, in order)")
    add_json_option(p)


@command("stats", configure, examples=(
    "graphir stats resnet18.xml",
    "graphir stats model.xml --shape x=[1,3,224,224] --layers 10",
    "graphir stats model.xml --json"))
def stats_command(args: argparse.Namespace) -> int:
    """Count MACs, FLOPs, parameters, weight bytes (stored and decompressed), activations and the peak live set.

    Dynamic inputs take the --shape given, else sizes the model accepts (shown)."""
    from graphir.tools.stats import stats

    result = stats(load_model(args.model), static_shapes(args.shape))
    if args.json:
        print_json(result.to_dict())
        return EXIT_OK
    print(result.summary())
    if args.layers:
        print()
        print(result.table(None if args.layers < 0 else args.layers))
    return EXIT_OK
