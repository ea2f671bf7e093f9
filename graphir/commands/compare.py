"""``graphir compare MODEL [REFERENCE]``: every layer against OpenVINO CPU or another model."""
from __future__ import annotations

import argparse

from pathlib import Path

from graphir.cli import EXIT_INCONSISTENT, EXIT_OK, UsageError, command
from graphir.commands._common import load_model
from graphir.commands._tools import add_json_option, add_shape_option, print_json, static_shapes


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin): run by graphir")
    p.add_argument("reference", nargs="?", help="a second model to compare against (default: MODEL in OpenVINO CPU)")
    p.add_argument("--engine", choices=["openvino", "graphir"],
                   help="what runs REFERENCE (default: graphir; MODEL alone is always compared with openvino)")
    p.add_argument("--inputs", metavar="FILE.npz", help="input values, keyed by input name (default: random)")
    add_shape_option(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--rtol", type=float, default=1e-3, help="relative tolerance (default 1e-3)")
    p.add_argument("--atol", type=float, default=1e-4, help="absolute tolerance (default 1e-4)")
    p.add_argument("--all", action="store_true", help="list every layer, not only those past the tolerance")
    p.add_argument("--limit", type=int, default=20, help="layers listed at most (default 20; 0: no limit)")
    add_json_option(p)


@command("compare", configure, examples=(
    "graphir compare model.xml",
    "graphir compare model_int8.xml model.xml --inputs inputs.npz",
    "graphir compare model.xml --shape x=[1,3,224,224] --json"))
def compare_command(args: argparse.Namespace) -> int:
    """Compare every layer's output with OpenVINO CPU or another model; find the first one past tolerance.

    Exit status 1 when some layer output is past the tolerance (|a-b| > atol + rtol*|ref|)."""
    from graphir.tools.compare import compare

    model = load_model(args.model)
    if args.reference is not None and not Path(args.reference).is_file():
        raise UsageError(f"{args.reference}: no such file")
    result = compare(model, args.reference, engine=args.engine, openvino_path=args.model, inputs=args.inputs,
                     shapes=static_shapes(args.shape), rtol=args.rtol, atol=args.atol, seed=args.seed)
    if args.json:
        print_json(result.to_dict())
    else:
        print(result.summary())
        rows = result.layers if args.all else [e for e in result.layers if not e.passed]
        if rows:
            print()
            print(result.table(only_failed=not args.all, limit=args.limit or None))
            if args.limit and len(rows) > args.limit:
                print(f"... {len(rows) - args.limit} more (--limit 0 lists all)")
    return EXIT_INCONSISTENT if result.failed else EXIT_OK
