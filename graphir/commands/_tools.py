"""Arguments the tool subcommands (compare, extract, fold, stats, diff, reduce) share."""
from __future__ import annotations

import argparse
import json
from typing import Any

from graphir.cli import UsageError
from graphir.commands._common import split_assignment


def add_shape_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--shape", "-s", action="append", default=[], metavar="NAME=SHAPE",
                   help="a static shape for an input, e.g. x=[1,3,224,224] (repeatable; a bare SHAPE for a "
                        "one-input model)")


def add_json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print a JSON object instead of the tables")


def static_shapes(specs: list[str]) -> "dict[str | int, list[int]] | None":
    """--shape values as {input name: dims} (a bare shape: {0: dims}, the first input); a shape
    that is not static is a UsageError."""
    from graphir.shapes import PartialShape

    if not specs:
        return None
    out: dict[str | int, list[int]] = {}
    for text in specs:
        name, shape = split_assignment(text, "SHAPE")
        try:
            parsed = PartialShape.parse(shape if shape.startswith("[") else f"[{shape}]")
        except Exception as exc:  # noqa: BLE001 - any parse failure is a usage error naming the text
            raise UsageError(f"--shape {text!r}: {exc}") from None
        if not parsed.is_static:
            raise UsageError(f"--shape {text!r}: give every dim a size")
        out[0 if name is None else name] = [int(d) for d in parsed.to_shape()]
    return out


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=str))
