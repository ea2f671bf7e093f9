"""``graphir info MODEL [--json]``: name, format version, inputs/outputs, op counts, ops graphir cannot run."""
from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from graphir.cli import EXIT_OK, command
from graphir.commands._common import load_model, not_runnable_reason, port_record, table


if TYPE_CHECKING:
    from graphir.model import Model


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin), oneDNN Graph .json or ONNX .onnx")
    p.add_argument("--json", action="store_true", help="print a JSON object (format in the README)")


def summary(model: "Model", path: str) -> dict[str, Any]:
    """The --json object of ``graphir info``."""
    from graphir.interpreter import result_key

    counts = Counter((n.dialect, n.type_name, n.version) for n in model.nodes())
    blocked = []
    for node in model.get_ordered_ops():
        reason = not_runnable_reason(node)
        if reason:
            blocked.append({"id": node.id, "name": node.name, "type": node.type_name,
                            "version": node.version, "reason": reason})
    fmt = "onednn-json" if path.lower().endswith(".json") else "onnx" if path.lower().endswith(".onnx") else "ir"
    return {
        "name": model.name,
        "format": fmt,
        "ir_version": model.meta.get("ir_version"),
        "inputs": [{"name": p.name, "tensor_names": sorted(p.output_names[0]), **port_record(p.output_types[0])}
                   for p in model.get_parameters()],
        "outputs": [{"name": result_key(r), "tensor_names": sorted(r.input_value(0).names),
                     **port_record(r.output_types[0])} for r in model.get_results()],
        "nodes": len(model),
        "ops": [{"dialect": d, "type": t, "version": v, "count": c}
                for (d, t, v), c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
                if not (t in ("Parameter", "Result") and v == "opset1")],
        "not_runnable": blocked,
        "variables": [{"id": v.variable_id, "type": str(v.element_type), "shape": str(v.shape),
                       "writers": sum(1 for s in model.sinks if getattr(s.op, "variable_id", None) == v.variable_id)}
                      for v in model.variables],
    }


@command("info", configure, examples=(
    "graphir info examples/select.xml",
    "graphir info model.xml --json"))
def info(args: argparse.Namespace) -> int:
    """Show a model's name, version, inputs and outputs, op counts, and ops graphir cannot run."""
    model = load_model(args.model)
    data = summary(model, args.model)
    if args.json:
        print(json.dumps(data, indent=2))
        return EXIT_OK
    version = f"IR v{data['ir_version']}" if data["ir_version"] else data["format"]
    print(f"Model:   {data['name']}")
    print(f"File:    {args.model} ({version}), {data['nodes']} nodes")
    for title, ports in (("Inputs", data["inputs"]), ("Outputs", data["outputs"])):
        print(f"\n{title} ({len(ports)}):")
        print(table(["name", "tensor names", "type", "shape"],
                    [[p["name"], ", ".join(p["tensor_names"]) or "-", p["type"], p["shape"]] for p in ports],
                    indent="  "))
    if data["variables"]:
        print(f"\nVariables ({len(data['variables'])}; state carried between steps by an infer request):")
        print(table(["id", "type", "shape", "assigns"],
                    [[v["id"], v["type"], v["shape"], v["writers"]] for v in data["variables"]], indent="  "))
    print(f"\nOps ({sum(o['count'] for o in data['ops'])} besides Parameter/Result):")
    print(table(["type", "opset", "dialect", "count"],
                [[o["type"], o["version"], o["dialect"], o["count"]] for o in data["ops"]], indent="  "))
    if data["not_runnable"]:
        print(f"\nCannot run ({len(data['not_runnable'])} nodes):")
        print(table(["id", "name", "type", "reason"],
                    [[b["id"], b["name"], f"{b['type']}-{b['version']}", b["reason"]]
                     for b in data["not_runnable"]], indent="  "))
    else:
        print("\nCannot run: none (graphir can run every node)")
    return EXIT_OK



