"""``graphir fold MODEL -o OUT.xml``: fold constants, share equal ones, drop dead nodes."""
from __future__ import annotations

import argparse

from graphir.cli import EXIT_OK, command
from graphir.commands._common import load_model
from graphir.commands._tools import add_json_option, add_shape_option, print_json, static_shapes


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin) or oneDNN Graph .json")
    p.add_argument("--output", "-o", required=True, metavar="OUT.xml", help="where to write the folded model")
    add_shape_option(p)
    add_json_option(p)


@command("fold", configure, examples=(
    "graphir fold model.xml -o folded.xml",
    "graphir fold model.xml --shape x=[1,3,224,224] -o static.xml"))
def fold_command(args: argparse.Namespace) -> int:
    """Fold constant subgraphs (static ShapeOf chains too), share identical constants, remove dead nodes.

    --shape makes the inputs static first, so shape subgraphs fold; the outputs stay bit-identical."""
    import graphir
    from graphir.tools.fold import fold

    folded, report = fold(load_model(args.model), shapes=static_shapes(args.shape))
    graphir.save_model(folded, args.output)
    if args.json:
        print_json({"output": args.output, **report.to_dict()})
    else:
        print(f"wrote {args.output}")
        print(report.table())
    return EXIT_OK
