"""The package type-checks (``mypy graphir``), the examples pass ``mypy --strict`` as user code
does against an installed typed package, and the generated builders carry real types: a wrong
attribute value or type is a type error, a right call is not.

mypy's cache (``.mypy_cache`` in the checkout) keeps reruns to a few seconds."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def test_the_package_type_checks() -> None:
    done = _mypy("graphir")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found")


def test_the_examples_pass_strict_mode() -> None:
    # --follow-imports=silent: graphir is checked as a dependency, as in a user's project (its
    # own check is the test above); only the examples' code is held to --strict
    done = _mypy("--strict", "--follow-imports=silent", "examples")
    assert done.returncode == 0, done.stdout + done.stderr


USES = '''\
import numpy as np
from graphir import Model, Output, opset

x = opset.parameter("[?,4]", "f32", name="x")
y: Output = opset.add(x, np.ones(4, np.float32), auto_broadcast="numpy")
s: Output = opset.select(opset.greater(x, y), x, y)
top = opset.topk(x, opset.constant(np.int64(2)), axis=1, mode="max", sort="value")
values: Output = top.output(0)
pooled = opset.max_pool(x, [1], [1], [0], [0], [1]).outputs()
m = Model([s], [x])
profiled = m.profile({"x": np.ones((1, 4), np.float32)})
print(profiled.table())
bad_mode = opset.select(x, x, x, auto_broadcast="everywhere")
bad_axis = opset.concat([x, y], axis="0")
bad_output: Output = opset.max_pool(x, [1], [1], [0], [0], [1])
'''


def test_builders_are_typed(tmp_path: Path) -> None:
    (tmp_path / "uses.py").write_text(USES)
    done = _mypy("--strict", "--follow-imports=silent", str(tmp_path / "uses.py"))
    errors = [line.split(": error: ", 1)[1] for line in done.stdout.splitlines() if ": error: " in line]
    assert errors == [
        'Argument "auto_broadcast" to "select" has incompatible type "Literal[\'everywhere\']"; '
        'expected "Literal[\'none\', \'numpy\', \'pdpd\']"  [arg-type]',
        'Argument "axis" to "concat" has incompatible type "str"; expected "int"  [arg-type]',
        'Incompatible types in assignment (expression has type "Node", variable has type '
        '"Output")  [assignment]',
    ], done.stdout


def test_builders_are_visible_with_signatures_and_docstrings() -> None:
    import inspect

    from graphir import opset

    names = dir(opset)
    assert {"add", "select", "max_pool", "topk", "if_op", "parameter", "constant", "make"} <= set(names)
    signature = inspect.signature(opset.select)
    assert list(signature.parameters) == ["cond", "then_node", "else_node", "auto_broadcast", "name", "axis"]
    assert signature.parameters["auto_broadcast"].default == "numpy"
    assert signature.parameters["auto_broadcast"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert signature.parameters["axis"].kind is inspect.Parameter.KEYWORD_ONLY  # graphir's own
    doc = inspect.getdoc(opset.select)
    assert doc is not None and doc.startswith("Select-opset1 (``openvino::Select-opset1``).")
    assert "auto_broadcast: Literal['none', 'numpy', 'pdpd'], default 'numpy'" in doc
    assert (ROOT / "graphir" / "py.typed").is_file()
