"""The ``graphir`` command: info | shapes | run | convert | validate | schema | draw | view.

Exit status: 0 on success, 1 when the model is inconsistent (shape inference or validation
failed), 2 on unusable arguments or an unreadable file.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence

import graphir
from graphir.errors import GraphirError

EXIT_OK, EXIT_INCONSISTENT, EXIT_USAGE = 0, 1, 2

#: subcommand name -> (configure parser, handler); modules in graphir.commands may add more
COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {}
#: subcommand name -> example command lines shown by its --help
EXAMPLES: dict[str, tuple[str, ...]] = {}

EXIT_CODES = """exit status:
  0  success
  1  the model is inconsistent or cannot be handled (shape inference fails, a node cannot run,
     a dialect cannot express a node); one line on stderr names the layer
  2  unusable arguments or an unreadable file (one line on stderr)"""


def command(name: str, configure: Callable[[argparse.ArgumentParser], None], examples: Sequence[str] = ()) -> Callable:
    """Register a subcommand: its parser set-up, its handler (the decorated function, whose
    docstring is the help text) and example command lines for its --help."""
    def wrap(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS[name] = (configure, handler)
        EXAMPLES[name] = tuple(examples)
        return handler
    return wrap


def _configure_schema(p: argparse.ArgumentParser) -> None:
    p.add_argument("op", help="op type name, e.g. Select")
    p.add_argument("--dialect", default="openvino", choices=["openvino", "onednn", "directml"])
    p.add_argument("--version", dest="op_version", default=None, help="op version (default: newest)")


@command("schema", _configure_schema, examples=(
    "graphir schema Select",
    "graphir schema Select --dialect onednn",
    "graphir schema MaxPool --version opset8"))
def _schema(args: argparse.Namespace) -> int:
    """Print an op's JSON schema: its attributes (pydantic) and, under x-graphir, its ports."""
    from graphir.commands.op_hints import check_version, equivalents
    from graphir.errors import OpDefinitionError
    from graphir.ops.registry import find, lookup

    check_version(args.dialect, args.op, args.op_version)
    if find(args.dialect, args.op, args.op_version) is None:
        hints = equivalents(args.dialect, args.op)
        if hints:
            raise OpDefinitionError(f"unknown {args.dialect} op '{args.op}'; {args.dialect} has "
                                    f"{' or '.join(hints)} (graphir schema {hints[0]} --dialect {args.dialect})")
    cls = lookup(args.dialect, args.op, args.op_version)
    schema = cls.model_json_schema()
    schema["x-graphir"] = {
        "dialect": cls.dialect,
        "type": cls.type_name,
        "version": cls.version,
        "serialized_type_names": dict(cls.serialized_type_names),
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
    examples = [EXAMPLES[name][0] for name in sorted(COMMANDS) if EXAMPLES.get(name)]
    parser = argparse.ArgumentParser(
        prog="graphir",
        description="Open, check, shape-infer, run and convert inference graphs "
                    "(OpenVINO IR, oneDNN Graph JSON) in pure Python. Also: python -m graphir.",
        epilog=_epilog(examples) + "\n\n'graphir COMMAND --help' shows a command's options and examples.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"graphir {graphir.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (configure, handler) in sorted(COMMANDS.items()):
        doc = (handler.__doc__ or "").strip().splitlines()
        p = sub.add_parser(name, help=doc[0] if doc else None, description=handler.__doc__,
                           epilog=_epilog(EXAMPLES.get(name, ())), formatter_class=argparse.RawDescriptionHelpFormatter)
        configure(p)
        p.set_defaults(handler=handler)
    return parser


def _epilog(examples: Sequence[str]) -> str:
    shown = "examples:\n" + "\n".join(f"  {e}" for e in examples) + "\n\n" if examples else ""
    return shown + EXIT_CODES


def _flag_spellings(parser: argparse.ArgumentParser, command_name: str | None) -> dict[str, str]:
    """Python keyword spellings in library messages -> the command's flag (``constants_as_inputs=True``
    -> ``--constants-as-inputs``), from the command's own options."""
    spellings: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command_name in action.choices:
            for option in action.choices[command_name]._actions:
                long = [o for o in option.option_strings if o.startswith("--")]
                if long and "_" in option.dest:
                    if isinstance(option, argparse._StoreTrueAction):
                        spellings[f"{option.dest}=True"] = long[0]
                    spellings[option.dest] = long[0]
    return spellings


def with_flags(message: str, spellings: dict[str, str]) -> str:
    """``message`` with each Python keyword of the command spelled as its flag."""
    for keyword in sorted(spellings, key=len, reverse=True):
        message = re.sub(rf"(?<![\w-]){re.escape(keyword)}(?![\w=])" if "=" not in keyword
                         else rf"(?<![\w-]){re.escape(keyword)}", spellings[keyword], message)
    return message


class UsageError(GraphirError, ValueError):
    """Arguments the command cannot use (exit status 2); raised by subcommands."""


#: errors that mean the model itself is inconsistent (exit status 1); the rest are exit status 2
def _inconsistent() -> tuple[type, ...]:
    from graphir.errors import ConversionError, EvaluationError, GraphError, InferenceError, UnsupportedOpError

    return (InferenceError, GraphError, EvaluationError, UnsupportedOpError, ConversionError)


def one_line(text: object) -> str:
    """Collapse a message to one line (CLI errors are one line, for logs and pipelines)."""
    return " ".join(str(text).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 inconsistent model, 2 unusable arguments/file)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version (0) or bad arguments (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.handler(args)
    except GraphirError as exc:
        message = with_flags(one_line(exc), _flag_spellings(parser, args.command))
        print(f"graphir {args.command}: error: {message}", file=sys.stderr)
        return EXIT_INCONSISTENT if isinstance(exc, _inconsistent()) else EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - e.g. `graphir shapes m.xml | head`
        return EXIT_OK
    except KeyboardInterrupt:  # pragma: no cover - Ctrl-C: no traceback, the shell's usual status
        print(f"graphir {args.command}: interrupted", file=sys.stderr)
        return 130
    except (OSError, ValueError) as exc:
        print(f"graphir {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover - `python -m graphir.cli` (also `python -m graphir`)
    from graphir.cli import main as _main  # the imported module: the one subcommands register with

    sys.exit(_main())
