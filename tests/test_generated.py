"""Generated files are current, op modules load on first use through the index, and an op
declared after the index was generated is still found (by importing every op module once)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from tests.script_modules import load_script

ROOT = Path(__file__).resolve().parent.parent


def _generator() -> ModuleType:
    return load_script(ROOT / "scripts" / "generate.py", "graphir_generate")


def test_generated_files_are_current() -> None:
    # a fresh interpreter: ops that other tests declare in this process are no part of the files
    done = subprocess.run([sys.executable, "scripts/generate.py", "--check"], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, (f"stale generated files: run `python scripts/generate.py` and commit "
                                  f"them\n{done.stdout}{done.stderr}")
    assert set(_generator().GENERATED) == {"graphir/ops/_index.py", "graphir/_builders.py"}


def _fresh(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter (this checkout first on the path); its printed JSON."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout)


_LOADED = ("json.dumps({'heavy': [m for m in ('networkx', 'lxml', 'numpy', 'pydantic') if m in sys.modules], "
           "'ops': sorted(m for m in sys.modules if m.startswith('graphir.ops.') and m.count('.') >= 3)})")


def test_import_graphir_loads_nothing_heavy_and_a_lookup_loads_one_op_module() -> None:
    bare = _fresh(f"import sys, json, graphir; print({_LOADED})")
    assert bare == {"heavy": [], "ops": []}
    built = _fresh("import sys, json, graphir; x = graphir.opset.parameter('[2]', 'f32'); "
                   f"graphir.opset.relu(x); print({_LOADED})")
    assert built["heavy"] == ["numpy", "pydantic"]
    ops = built["ops"]
    assert isinstance(ops, list) and "graphir.ops.openvino.activations" in ops  # Relu's module...
    assert len(ops) <= 5, ops  # ...and the few it imports itself, of 40-odd op modules
    read = _fresh("import sys, json, graphir; graphir.read_model('examples/select.xml'); "
                  f"print({_LOADED})")
    assert read["heavy"] == ["lxml", "numpy", "pydantic"]  # no networkx
    assert read["ops"] == ["graphir.ops.openvino.core", "graphir.ops.openvino.select"]


def test_an_op_missing_from_the_index_is_found_by_importing_every_module() -> None:
    """The index as it would be before regeneration: an op it lacks is still found, by type and by
    its serialized alias, and ``opset.<name>`` reaches it."""
    code = (
        "import sys, json\n"
        "import graphir.ops._index as index\n"
        "del index.OPS[('openvino', 'Elu', 'opset1')]\n"
        "index.ALIASES.clear()\n"
        "from graphir.ops.registry import find, canonical_type_name\n"
        "cls = find('openvino', 'Elu', 'opset1')\n"
        "from graphir import opset\n"
        "del opset.elu\n"  # as if the builders were generated before Elu existed
        "x = opset.parameter('[2]', 'f32')\n"
        "y = opset.elu(x, alpha=0.5)\n"
        "print(json.dumps({'found': cls.__module__, 'alias': canonical_type_name('openvino', 'Const'),\n"
        "                  'built': y.node.op.describe(), 'all': len([m for m in sys.modules\n"
        "                  if m.startswith('graphir.ops.openvino.')]) > 20}))\n"
    )
    assert _fresh(code) == {"found": "graphir.ops.openvino.activations", "alias": "Constant",
                            "built": "openvino::Elu-opset1", "all": True}


def test_a_builder_leaves_out_an_attribute_whose_default_it_cannot_spell() -> None:
    """A default the generated source cannot write (here a PartialShape) becomes ``DEFAULT``: the
    builder passes nothing and the op's own default applies; a given value is passed."""
    from typing import ClassVar

    from pydantic import Field

    from graphir import opset
    from graphir.ops.base import Op, Port, TensorType
    from graphir.ops.registry import unregister
    from graphir.shapes import PartialShape

    class DefaultProbe(Op):
        type_name: ClassVar[str] = "DefaultProbe"
        version: ClassVar[str] = "opset1"
        inputs: ClassVar[tuple[Port, ...]] = (Port("x"),)
        outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)
        shape: PartialShape = Field(default_factory=lambda: PartialShape.parse("[?]"))
        count: int = 3

        def infer(self, inputs: list[TensorType]) -> list[TensorType]:
            return inputs

    try:
        source = _generator()._builder(DefaultProbe)
        assert source.startswith("def default_probe(\n    x: TensorLike,\n    *,\n    shape: Any = DEFAULT,\n"
                                 "    count: int = 3,\n    name: str | None = None,\n) -> Output:\n")
        namespace: dict[str, object] = {}
        exec("from typing import Any\nfrom graphir._build import DEFAULT, TensorLike, build\n"
             "from graphir.node import Output\n" + source, namespace)
        build = namespace["default_probe"]
        x = opset.parameter("[3]")
        assert build(x).node.op == DefaultProbe()  # type: ignore[operator]
        assert build(x, shape=PartialShape.parse("[3]")).node.op.shape == PartialShape.parse("[3]")  # type: ignore[operator]
    finally:
        unregister(DefaultProbe)
