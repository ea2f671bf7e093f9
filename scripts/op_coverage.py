"""Counts how many OpenVINO op types and versions graphir defines and runs.

The reference list is the opset tables the openvino wheel ships (include/openvino/opsets/
opsetN_tbl.hpp: one line per op class per opset). An op version is named by the first opset that
contains its class, as IR files name it (Select is opset1, Gelu-7 is opset7). Run:
    python scripts/op_coverage.py [--missing]
"""
from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path

from graphir.ops.base import Op
from graphir.ops.registry import all_ops

#: a table entry is a line that starts with the macro; the ``#define _OPENVINO_OP_REG(x, y)`` line
#: at the top of each table is not one (counting it added two phantom ops, ``a`` and ``x``)
_ENTRY = re.compile(r"^\s*_OPENVINO_OP_REG\((\w+),\s*([\w:]+)\)", re.MULTILINE)


def openvino_op_versions() -> dict[tuple[str, str], str]:
    """(type name, namespace) -> first opset containing it, from the installed openvino wheel."""
    spec = importlib.util.find_spec("openvino")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("openvino is not installed: pip install openvino")
    tables = Path(next(iter(spec.submodule_search_locations))) / "include" / "openvino" / "opsets"
    first: dict[tuple[str, str], str] = {}
    files = sorted(tables.glob("opset*_tbl.hpp"), key=lambda p: int(re.findall(r"\d+", p.name)[0]))
    for table in files:
        opset = table.name.removesuffix("_tbl.hpp")
        for name, namespace in _ENTRY.findall(table.read_text()):
            first.setdefault((name, namespace), opset)
    return first


def runs(cls: type[Op]) -> bool:
    return getattr(cls, "runnable", True) and cls.evaluate is not Op.evaluate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", action="store_true",
                        help="list the op versions graphir lacks, and those it defines but cannot run")
    parser.add_argument("--per-opset", action="store_true",
                        help="defined and runnable counts of the op versions each opset introduces")
    parser.add_argument("--list", action="store_true",
                        help="every op version with its status: runs, defined (not runnable) or missing")
    args = parser.parse_args()
    reference = {(name, opset) for (name, _), opset in openvino_op_versions().items()}
    ours = {(cls.type_name, cls.version): cls for cls in all_ops("openvino")}
    defined = {key for key in reference if key in ours}
    running = {key for key in defined if runs(ours[key])}
    types_all = {name for name, _ in reference}
    types_defined = {name for name, _ in defined}
    types_running = {name for name, _ in running}
    print(f"op versions: {len(defined)} defined, {len(running)} run, of {len(reference)} in OpenVINO's opsets")
    print(f"op types:    {len(types_defined)} defined, {len(types_running)} run, of {len(types_all)}")
    if args.per_opset:
        for opset in sorted({o for _, o in reference}, key=lambda o: int(o.removeprefix("opset"))):
            introduced = {key for key in reference if key[1] == opset}
            print(f"  {opset:8s} {len(introduced & defined):3d} defined, {len(introduced & running):3d} run, "
                  f"of {len(introduced)}")
    if args.list:
        for name, opset in sorted(reference, key=lambda k: (int(k[1].removeprefix("opset")), k[0])):
            status = "runs" if (name, opset) in running else "defined" if (name, opset) in defined else "missing"
            print(f"  {name}-{opset}: {status}")
    if args.missing:
        for name, opset in sorted(reference - defined):
            print(f"  missing {name}-{opset}")
        for name, opset in sorted(defined - running):
            print(f"  defined, not runnable {name}-{opset}")


if __name__ == "__main__":
    main()
