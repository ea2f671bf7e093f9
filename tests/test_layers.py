"""The package's layers (DESIGN.md, issue 33), checked by reading its imports with ``ast``.

Every import counts: module level, inside functions, under ``if TYPE_CHECKING`` excluded (a type
annotation is not a dependency at run time). A package ``__init__.py`` is a module of its own
(``graphir.ops``), and ``from graphir.ops import base`` is an import of ``graphir.ops.base``.

Layers, lowest first; a module may import its own layer and the ones below:

0. vocabulary: types, shapes, broadcast, errors, limits, trampoline
1. ops: graphir.ops.* (the Op base, registry, dialect op modules) and graphir.kernels.*
2. graph: node, model, toposort, opset, _build, _builders (the builders)
3. passes: inference, convert.*, decompression, input_sizes
4. runtime: interpreter, specialize, linear_chains, request, variables, numerics.*
5. io: serializers.*
6. faces: cli, commands.*, drawing.*, tools.*, batch, explorer.*, the package root, __main__

Where reality differs from the sketch, the assignment above says so (the builders, opset/_build/
_builders, sit with the graph: they only build nodes from registered ops, and the ONNX reader uses
them; ``variables`` sits with
the runtime that owns the state; ``linear_chains`` folds chains inside a run plan's
specialization, so it is runtime, not a pass over the model). ``ALLOWED_UPWARD`` lists the upward imports that remain, each
with its reason; ``test_no_import_cycles`` ignores them. Everything else upward, and any cycle, fails.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "graphir"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("vocabulary", ("graphir.types", "graphir.shapes", "graphir.broadcast", "graphir.errors", "graphir.limits",
                    "graphir.trampoline")),
    ("ops", ("graphir.ops", "graphir.kernels")),
    ("graph", ("graphir.node", "graphir.model", "graphir.toposort", "graphir.opset", "graphir._build",
               "graphir._builders")),
    ("passes", ("graphir.inference", "graphir.convert", "graphir.decompression", "graphir.input_sizes")),
    ("runtime", ("graphir.interpreter", "graphir.specialize", "graphir.linear_chains", "graphir.request",
                 "graphir.variables", "graphir.numerics", "graphir.run_guard", "graphir.step_code")),
    ("io", ("graphir.serializers",)),
    ("faces", ("graphir.cli", "graphir.commands", "graphir.drawing", "graphir.__main__", "graphir")),
]

#: (importer, imported) -> why this upward edge stays. Model is the user's handle: its facade
#: methods (run, profile, create_infer_request, infer_shapes, reshape, draw) hand the work to the
#: layer that does it, as OpenVINO's Model.reshape calls its passes.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    ("graphir.model", "graphir.request"): "Model.run/profile/create_infer_request: a request does the run",
    ("graphir.model", "graphir.inference"): "Model.infer_shapes/reshape, and re-inference of what edits touched",
    ("graphir.model", "graphir.drawing"): "Model.draw and Jupyter's _repr_svg_/_repr_html_",
    ("graphir.model", "graphir.variables"): "Model.variables: the pairing rules of ReadValue/Assign",
    ("graphir.node", "graphir.inference"): "Node.infer of an op with bodies infers them through the pass's context",
    ("graphir.model", "graphir.serializers.pickling"): "Model.__reduce__: a model pickles as its IR (no recursion)",
}


def _layer_of(module: str) -> int:
    best, found = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), index
    assert found >= 0, f"{module} is in no layer: add it to LAYERS"
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _known_modules() -> set[str]:
    return {_module_name(p) for p in PACKAGE.rglob("*.py")}


def _type_checking_block(node: ast.AST) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, (ast.Name, ast.Attribute))
            and (getattr(node.test, "id", None) == "TYPE_CHECKING" or getattr(node.test, "attr", None) == "TYPE_CHECKING"))


def _imports(path: Path, known: set[str]) -> set[str]:
    """The graphir modules ``path`` imports at run time (module or function level)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    found: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if _type_checking_block(node):
            stack.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "graphir":
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != "graphir":
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                found.add(sub if sub in known else source)
        stack.extend(ast.iter_child_nodes(node))
    found.discard(me)
    return {m for m in found if m in known}


def _graph() -> dict[str, set[str]]:
    known = _known_modules()
    return {_module_name(p): _imports(p, known) for p in PACKAGE.rglob("*.py")}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_every_module_has_a_layer() -> None:
    for module in _known_modules():
        _layer_of(module)


def test_no_upward_import() -> None:
    upward = []
    for module, imported in sorted(_graph().items()):
        for target in sorted(imported):
            if _layer_of(target) > _layer_of(module) and (module, target) not in ALLOWED_UPWARD:
                upward.append(f"{module} ({LAYERS[_layer_of(module)][0]}) imports {target} "
                              f"({LAYERS[_layer_of(target)][0]})")
    assert not upward, f"{len(upward)} upward imports:\n  " + "\n  ".join(upward)


def test_no_import_cycles() -> None:
    edges = {m: {t for t in targets if (m, t) not in ALLOWED_UPWARD} for m, targets in _graph().items()}
    cycles = _cycles(edges)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_allowed_upward_imports_still_exist() -> None:
    """An allowance nobody needs any more is removed, so the list stays the truth."""
    graph = _graph()
    stale = [f"{a} -> {b}" for a, b in ALLOWED_UPWARD if b not in graph.get(a, set())]
    assert not stale, stale


def test_the_scanner_sees_function_level_imports(tmp_path: Path) -> None:
    source = "def f():\n    from graphir.interpreter import run\n"
    tree = ast.parse(source)
    seen = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert seen == ["graphir.interpreter"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", ["graphir.ops.openvino.control_flow"])
def test_ops_with_bodies_do_not_import_the_engine(module: str) -> None:
    imported = _graph()[module]
    assert not {m for m in imported if _layer_of(m) > 1}, imported
