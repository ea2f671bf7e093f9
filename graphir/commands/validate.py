"""``graphir validate MODEL --dialect directml --feature-level 3_0``: can the target express every node?"""
from __future__ import annotations

import argparse
import json
from typing import Any

from graphir.cli import EXIT_INCONSISTENT, EXIT_OK, UsageError, command
from graphir.commands._common import load_model


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml, oneDNN Graph .json or ONNX .onnx")
    p.add_argument("--dialect", required=True, choices=["directml", "onednn", "openvino"],
                   help="the target dialect")
    p.add_argument("--feature-level", default=None, metavar="LEVEL",
                   help="DirectML feature level, e.g. 3_0, 5.1 or DML_FEATURE_LEVEL_6_4 (default: newest)")
    p.add_argument("--json", action="store_true", help="print a JSON object (format in the README)")


def check(model: Any, dialect: str, feature_level: str | None) -> list[str]:
    """One line per node the target cannot express (empty: every node converts)."""
    options = conversion_options(dialect, feature_level)
    failure = convert_failure(model, dialect, options)
    if failure is None:
        return []
    problems = [line for node in model.get_ordered_ops() for line in check_node(node, dialect, options)]
    return problems or [failure]


def problems_by_node(model: Any, dialect: str, feature_level: str | None = None) -> dict[int, list[str]]:
    """Node id -> the reasons the target cannot express that node (only nodes with a problem)."""
    options = conversion_options(dialect, feature_level)
    if convert_failure(model, dialect, options) is None:
        return {}
    found = {node.id: check_node(node, dialect, options) for node in model.get_ordered_ops()}
    return {node_id: lines for node_id, lines in found.items() if lines}


def conversion_options(dialect: str, feature_level: str | None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if feature_level is not None:
        if dialect != "directml":
            raise UsageError("--feature-level applies to --dialect directml only")
        from graphir.ops.directml.feature_levels import FeatureLevel

        try:
            options["feature_level"] = FeatureLevel.parse(feature_level)
        except (ValueError, KeyError) as exc:
            raise UsageError(f"--feature-level {feature_level!r}: {exc}") from None
    return options


def convert_failure(model: Any, dialect: str, options: dict[str, Any]) -> str | None:
    """Why converting the whole model fails (one line), or None when it converts."""
    from graphir.convert.base import convert_model
    from graphir.errors import ConversionError

    try:
        convert_model(model, dialect, **options)
    except ConversionError as exc:
        return " ".join(str(exc).split())
    return None


def check_node(node: Any, dialect: str, options: dict[str, Any]) -> list[str]:
    """Problems converting ``node`` on its own (inputs as Parameters of the same types, Constants
    kept), so that a node after a failed one is still judged rather than skipped."""
    from graphir.convert.base import BOUNDARY_OPS, convert_model
    from graphir.errors import ConversionError, GraphirError
    from graphir.model import Model
    from graphir.node import Node
    from graphir.ops.openvino.core import Constant, Parameter

    if isinstance(node.op, BOUNDARY_OPS):
        return []
    inputs: list[Any] = []
    params: list[Any] = []
    for src in node.inputs:
        if src is None:
            inputs.append(None)
        elif isinstance(src.node.op, Constant):  # a node belongs to one model: a new node, the same op
            inputs.append(Node(src.node.op, name=src.node.name, output_types=src.node.output_types,
                               infer=False).output(src.index))
        else:
            t = src.node.output_types[src.index]
            p = Node(Parameter(element_type=t.element_type, shape=t.shape), name=f"{node.name}/in{len(params)}")
            params.append(p)
            inputs.append(p.output(0))
    copy = Node(node.op, inputs, name=node.name, id=node.id, output_types=node.output_types, infer=False)
    try:
        alone = Model(copy.outputs(), params, name=node.name)
        convert_model(alone, dialect, **options)
    except ConversionError as exc:
        return [line.strip() for line in str(exc).splitlines()[1:] if line.strip()] or [str(exc)]
    except GraphirError as exc:
        return [f"{node.describe()}: {' '.join(str(exc).split())}"]
    return []


@command("validate", configure, examples=(
    "graphir validate model.xml --dialect onednn",
    "graphir validate model.xml --dialect directml --feature-level 3_0 --json"))
def validate(args: argparse.Namespace) -> int:
    """Report every node the target dialect (and DirectML feature level) cannot express, with the reason."""
    model = load_model(args.model)
    problems = check(model, args.dialect, args.feature_level)
    target = args.dialect + (f" (feature level {args.feature_level})" if args.feature_level else "")
    if args.json:
        print(json.dumps({"model": model.name, "dialect": args.dialect, "feature_level": args.feature_level,
                          "ok": not problems, "problems": problems}, indent=2))
    elif problems:
        print(f"{model.name}: {len(problems)} node(s) cannot be expressed in {target}:")
        for line in problems:
            print(f"  {line}")
    else:
        print(f"{model.name}: every node can be expressed in {target}")
    return EXIT_INCONSISTENT if problems else EXIT_OK
