"""``graphir diff A B``: nodes added and removed, attributes, types/shapes and weights changed."""
from __future__ import annotations

import argparse

from graphir.cli import EXIT_OK, command
from graphir.commands._common import load_model
from graphir.commands._tools import add_json_option, print_json


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("first", help="a model (.xml or .json)")
    p.add_argument("second", help="the model to compare it with")
    add_json_option(p)


@command("diff", configure, examples=(
    "graphir diff model.xml model_int8.xml",
    "graphir diff before.xml after.xml --json"))
def diff_command(args: argparse.Namespace) -> int:
    """Show two models' differences: nodes added/removed, attributes, types/shapes, weights (by digest).

    Nodes are matched by name, then by structure (same type, inputs from matched nodes)."""
    from graphir.tools.diff import diff

    result = diff(load_model(args.first), load_model(args.second))
    if args.json:
        print_json(result.to_dict())
    else:
        print(result.table())
    return EXIT_OK
