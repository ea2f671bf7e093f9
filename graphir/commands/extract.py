"""``graphir extract MODEL --outputs T... [--inputs T...] -o OUT.xml``: a subgraph as a model of its own."""
from __future__ import annotations

import argparse

from graphir.cli import EXIT_OK, UsageError, command
from graphir.commands._common import load_model, port_record, table
from graphir.commands._tools import add_json_option, print_json


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin) or oneDNN Graph .json")
    p.add_argument("--outputs", nargs="+", required=True, metavar="TENSOR",
                   help="the subgraph's outputs: tensor names, LAYER:PORT or layer names (port 0)")
    p.add_argument("--inputs", nargs="+", default=[], metavar="TENSOR",
                   help="where to cut: these tensors become Parameters (default: the model's own inputs)")
    p.add_argument("--output", "-o", required=True, metavar="OUT.xml", help="where to write the subgraph")
    add_json_option(p)


@command("extract", configure, examples=(
    "graphir extract model.xml --inputs conv1 --outputs relu5 -o part.xml",
    "graphir extract model.xml --outputs 'layer4/Add:0' -o head.xml --json"))
def extract_command(args: argparse.Namespace) -> int:
    """Write the subgraph between given tensors as a model: cut inputs become Parameters, weights come along."""
    import graphir
    from graphir.errors import InputError
    from graphir.interpreter import result_key
    from graphir.tools.extract import extract

    model = load_model(args.model)
    try:
        sub = extract(model, args.outputs, args.inputs)
    except InputError as exc:
        raise UsageError(str(exc)) from None
    graphir.save_model(sub, args.output)
    data = {"output": args.output, "nodes": len(sub.get_ordered_ops()),
            "inputs": [{"name": p.name, **port_record(p.output_types[0])} for p in sub.get_parameters()],
            "outputs": [{"name": result_key(r), **port_record(r.output_types[0])} for r in sub.get_results()]}
    if args.json:
        print_json(data)
        return EXIT_OK
    print(f"wrote {args.output}: {data['nodes']} nodes")
    for title in ("inputs", "outputs"):
        print(f"\n{title.capitalize()}:")
        print(table(["name", "type", "shape"], [[p["name"], p["type"], p["shape"]] for p in data[title]], indent="  "))
    return EXIT_OK
