"""The ``graphir`` command: info | shapes | run | convert | validate | schema.

Exit status: 0 on success, 1 when the model is inconsistent (shape inference or validation
failed), 2 on unusable arguments or an unreadable file.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

import graphir
from graphir.errors import GraphirError

EXIT_OK, EXIT_INCONSISTENT, EXIT_USAGE = 0, 1, 2

#: subcommand name -> (configure parser, handler); modules in graphir.commands may add more
COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {}


def command(name: str, configure: Callable[[argparse.ArgumentParser], None]) -> Callable:
    def wrap(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS[name] = (configure, handler)
        return handler
    return wrap


def _configure_schema(p: argparse.ArgumentParser) -> None:
    p.add_argument("op", help="op type name, e.g. Select")
    p.add_argument("--dialect", default="openvino", choices=["openvino", "onednn", "directml"])
    p.add_argument("--version", dest="op_version", default=None, help="op version (default: newest)")


@command("schema", _configure_schema)
def _schema(args: argparse.Namespace) -> int:
    from graphir.ops.registry import lookup

    cls = lookup(args.dialect, args.op, args.op_version)
    schema = cls.model_json_schema()
    schema["x-graphir"] = {
        "dialect": cls.dialect,
        "type": cls.type_name,
        "version": cls.version,
        "inputs": [{"index": i, "name": p.name, "optional": p.optional, "variadic": p.variadic,
                    "types": None if p.types is None else [str(t) for t in p.types]}
                   for i, p in enumerate(cls.inputs)],
        "outputs": [{"index": i, "name": p.name, "variadic": p.variadic,
                     "types": None if p.types is None else [str(t) for t in p.types]}
                    for i, p in enumerate(cls.outputs)],
    }
    print(json.dumps(schema, indent=2))
    return EXIT_OK


def _load_command_modules() -> None:
    import importlib
    import pkgutil

    try:
        import graphir.commands as pkg
    except ImportError:
        return
    for info in pkgutil.iter_modules(pkg.__path__, prefix="graphir.commands."):
        importlib.import_module(info.name)


def build_parser() -> argparse.ArgumentParser:
    _load_command_modules()
    parser = argparse.ArgumentParser(
        prog="graphir",
        description="Open, check, shape-infer, run and convert inference graphs "
                    "(OpenVINO IR, oneDNN Graph JSON) in pure Python.",
    )
    parser.add_argument("--version", action="version", version=f"graphir {graphir.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (configure, handler) in sorted(COMMANDS.items()):
        doc = (handler.__doc__ or "").strip().splitlines()
        p = sub.add_parser(name, help=doc[0] if doc else None, description=handler.__doc__)
        configure(p)
        p.set_defaults(handler=handler)
    return parser


class _Parser(argparse.ArgumentParser):
    pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.handler(args)
    except GraphirError as exc:
        from graphir.errors import InferenceError, GraphError, EvaluationError, UnsupportedOpError

        print(f"graphir {args.command}: error: {exc}".splitlines()[0] if False else f"graphir {args.command}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        inconsistent = (InferenceError, GraphError, EvaluationError, UnsupportedOpError)
        return EXIT_INCONSISTENT if isinstance(exc, inconsistent) else EXIT_USAGE
    except (OSError, ValueError) as exc:
        print(f"graphir {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
