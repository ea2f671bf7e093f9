"""``graphir reduce MODEL --check CMD -o OUT.xml``: the smallest subgraph on which a check still fails."""
from __future__ import annotations

import argparse
import sys

from graphir.cli import EXIT_OK, command
from graphir.commands._common import load_model
from graphir.commands._tools import add_json_option, add_shape_option, print_json, static_shapes


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin) or oneDNN Graph .json")
    p.add_argument("--check", required=True, metavar="CMD",
                   help="a shell command run on each candidate: {model} is replaced by the candidate's .xml path "
                        "(appended when absent); a non-zero exit status means the failure still happens")
    p.add_argument("--output", "-o", required=True, metavar="OUT.xml", help="where to write the reduced model")
    add_shape_option(p)
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="a check running longer counts as passing")
    add_json_option(p)


@command("reduce", configure, examples=(
    "graphir reduce model.xml --check 'python check.py {model}' -o small.xml",
    "graphir reduce model.xml -s x=[1,3,224,224] --check 'graphir compare {model} --atol 1e-6 --rtol 0' -o small.xml",
    "graphir reduce model.xml --check 'benchmark_app -m {model} -d GPU -niter 1' -o small.xml"))
def reduce_command(args: argparse.Namespace) -> int:
    """Shrink a model, by bisection with extract, to a small subgraph on which --check still fails.

    Prints each step (to stderr with --json)."""
    import graphir
    from graphir.tools.reduce import reduce

    log = (lambda text: print(text, file=sys.stderr)) if args.json else print
    result = reduce(load_model(args.model), args.check, shapes=static_shapes(args.shape), log=log, timeout=args.timeout)
    graphir.save_model(result.model, args.output)
    if args.json:
        print_json({"output": args.output, **result.to_dict()})
    else:
        print(f"wrote {args.output}")
    return EXIT_OK
