"""Op registry and the Op schema base: lookup, version resolution, aliases, a new op by one class."""
from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, Literal

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import InferenceError, OpDefinitionError
from graphir.ops.base import REAL, Op, Port, TensorType, types
from graphir.ops.openvino.core import Constant, Parameter, Result
from graphir.ops.openvino.select import Select
from graphir.ops.registry import (
    all_ops,
    canonical_type_name,
    find,
    lookup,
    register,
    unregister,
    version_number,
)


def test_lookup_by_exact_key() -> None:
    assert lookup("openvino", "Select", "opset1") is Select
    assert lookup("openvino", "Parameter", "opset1") is Parameter
    assert lookup("openvino", "Result") is Result
    assert lookup("onednn", "Select", "1").dialect == "onednn"
    assert lookup("onednn", "Select", "1") is not Select


@pytest.mark.parametrize(
    "type_name,asked,resolved",
    [("Select", "opset8", "opset1"), ("Select", "opset13", "opset1"), ("MaxPool", "opset13", "opset8"),
     ("MaxPool", "opset14", "opset14"), ("MaxPool", None, "opset14"), ("MaxPool", "opset7", "opset1"),
     ("Acosh", "opset5", "opset4")],
)
def test_newest_version_not_above_the_asked_one(type_name: str, asked: str | None, resolved: str) -> None:
    cls = lookup("openvino", type_name, asked)
    assert cls.type_name == type_name and cls.version == resolved


def test_unknown_keys_are_clear_errors() -> None:
    with pytest.raises(OpDefinitionError, match=r"unknown openvino op 'Bogus' \(version opset1\)"):
        lookup("openvino", "Bogus", "opset1")
    with pytest.raises(OpDefinitionError, match="openvino op 'Acosh' has no version 'opset3'; known: opset4"):
        lookup("openvino", "Acosh", "opset3")
    with pytest.raises(OpDefinitionError, match="op 'Select' has no version 'extension'; known: opset1"):
        lookup("openvino", "Select", "extension")
    with pytest.raises(OpDefinitionError, match="unknown dialect 'tflite'.*known: .*onednn, openvino"):
        lookup("tflite", "Select")
    assert find("openvino", "Bogus") is None and find("openvino", "Acosh", "opset1") is None


def test_ir_alias_names() -> None:
    assert lookup("openvino", "Const", "opset1") is Constant
    assert canonical_type_name("openvino", "Const") == "Constant"
    assert canonical_type_name("openvino", "Select") == "Select"
    assert lookup("directml", "DML_OPERATOR_ELEMENT_WISE_IF").type_name == "ElementWiseIf"
    assert lookup("onednn", "BiasAddBackprop").type_name == "BiasAddBackward"
    assert Constant.serialized_type_names == {"ir": "Const"}


def test_all_ops_and_version_numbers() -> None:
    ov_ops = all_ops("openvino")
    assert Select in ov_ops and Parameter in ov_ops and all(c.dialect == "openvino" for c in ov_ops)
    assert {c.dialect for c in all_ops()} >= {"openvino", "onednn", "directml"}
    maxpools = [c.version for c in ov_ops if c.type_name == "MaxPool"]
    assert maxpools == sorted(maxpools, key=version_number)
    assert version_number("opset13") == 13 and version_number("1") == 1 and version_number("x") == 0


def test_a_second_class_with_the_same_key_is_refused() -> None:
    class Select(Op):  # noqa: F811 - same key as the real one, different class
        type_name: ClassVar[str] = "SelectDuplicateProbe"
        version: ClassVar[str] = "opset1"

    try:
        other = type("Impostor", (Op,), {"__module__": __name__, "__qualname__": "Impostor"})
        other.type_name, other.version = "SelectDuplicateProbe", "opset1"  # type: ignore[attr-defined]
        with pytest.raises(OpDefinitionError, match="op openvino::SelectDuplicateProbe-opset1 is defined twice"):
            register(other)
    finally:
        unregister(Select)
    assert find("openvino", "SelectDuplicateProbe") is None


# --- a new op is one class ----------------------------------------------------------------------


class ScaleShift(Op):
    """y = x * scale + shift, a throw-away op declared by this test module only."""

    type_name: ClassVar[str] = "TestScaleShift"
    version: ClassVar[str] = "opset3"
    serialized_type_names: ClassVar[dict[str, str]] = {"ir": "TestScaleShiftIR"}
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL), Port("bias", REAL, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    scale: float = 2.0
    mode: Literal["plain", "negated"] = "plain"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, tuple(range(len(inputs))))
        return [TensorType(et, inputs[0].shape)]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        y = arrays[0] * np.asarray(self.scale, arrays[0].dtype)
        if len(arrays) > 1:
            y = y + arrays[1]
        return [-y if self.mode == "negated" else y]


@pytest.fixture(scope="module", autouse=True)
def _forget_test_ops() -> Iterator[None]:
    yield
    unregister(ScaleShift)


def test_declaring_a_class_registers_it() -> None:
    assert lookup("openvino", "TestScaleShift", "opset3") is ScaleShift
    assert lookup("openvino", "TestScaleShift", "opset9") is ScaleShift
    assert lookup("openvino", "TestScaleShiftIR") is ScaleShift
    assert ScaleShift in all_ops("openvino")
    assert ScaleShift.describe() == "openvino::TestScaleShift-opset3"


def test_new_op_builds_with_make_and_snake_case_builder_and_runs_in_a_model() -> None:
    x = opset.parameter("[?,3]", "f32", name="x")
    y = opset.make("TestScaleShift", x, scale=3.0, name="scaled")
    assert y.node.name == "scaled" and str(y.partial_shape) == "[?,3]" and y.element_type == "f32"
    z = opset.test_scale_shift(y, opset.constant(np.ones(3, np.float32)), mode="negated")
    assert isinstance(z.node.op, ScaleShift) and z.node.op.mode == "negated"
    m = graphir.Model([z], [x], name="scale_shift")
    out = m.run({"x": np.array([[1, 2, 3]], np.float32)})
    np.testing.assert_array_equal(next(iter(out.values())), np.array([[-7, -13, -19]], np.float32))  # -(2 * 3x + 1)


def test_new_op_errors_name_the_op_port_and_types() -> None:
    x = opset.parameter("[2]", "i32", name="xi")
    with pytest.raises(InferenceError) as info:
        opset.make("TestScaleShift", x)
    text = str(info.value)
    assert "TestScaleShift-opset3" in text and "input 0 ('data') has element type i32" in text
    assert "allowed: f32, f16, bf16" in text and "i32[2]" in text
    a, b = opset.parameter("[2]", "f32"), opset.parameter("[2]", "f16")
    with pytest.raises(InferenceError, match=r"same element type; got 0 \('data'\): f32, 1 \('bias'\): f16"):
        opset.make("TestScaleShift", a, b)
    with pytest.raises(InferenceError, match="expects 1 to 2 inputs, got 3"):
        opset.make("TestScaleShift", a, a, a)


def test_attributes_are_validated_on_construction_and_assignment() -> None:
    with pytest.raises(OpDefinitionError, match=r"TestScaleShift-opset3: attribute 'mode': Input should be 'plain' or 'negated'"):
        ScaleShift(mode="double")
    with pytest.raises(OpDefinitionError, match="attribute 'offset': Extra inputs are not permitted"):
        ScaleShift(offset=1)
    op = ScaleShift(scale=1)
    with pytest.raises(OpDefinitionError, match="attribute 'scale': Input should be a valid number"):
        op.with_attributes(scale="big")
    with pytest.raises(OpDefinitionError, match=r"TestScaleShift-opset3: ops are immutable values; to change 'scale' use "
                       r"node.set_attribute\('scale', value\)"):
        op.scale = 2.0  # type: ignore[misc]
    assert op.scale == 1.0 and op.attributes() == {"scale": 1.0, "mode": "plain"}
    assert op.with_attributes(scale="2").attributes() == {"scale": 2.0, "mode": "plain"} and op.scale == 1.0


def test_json_schema_of_an_op() -> None:
    schema = ScaleShift.model_json_schema()
    assert schema["properties"]["mode"]["enum"] == ["plain", "negated"]
    assert schema["properties"]["scale"]["default"] == 2.0
    sel = Select.model_json_schema()
    assert sel["properties"]["auto_broadcast"]["enum"] == ["none", "numpy", "pdpd"]
    assert sel["additionalProperties"] is False


def test_port_metadata() -> None:
    assert [p.name for p in Select.inputs] == ["cond", "then", "else"]
    assert Select.inputs[0].types == types("boolean")
    assert Select.inputs[0].allows(graphir.ElementType.dynamic)
    assert not Select.inputs[0].allows(graphir.ElementType.u8)
    assert Select.input_count_range() == (3, 3) and ScaleShift.input_count_range() == (1, 2)
    with pytest.raises(OpDefinitionError, match="Select-opset1 has no input port 3"):
        Select.input_port(3)
    with pytest.raises(OpDefinitionError, match="Select-opset1 has no output port 1"):
        Select().output_port(1)

    class Gather(Op):  # variadic inputs: abstract, never registered (no type_name)
        inputs: ClassVar[tuple[Port, ...]] = (Port("axis"), Port("values", variadic=True))

    assert Gather.input_count_range() == (2, None) and Gather.input_port(7).name == "values"
    assert find("openvino", "Gather") is None or find("openvino", "Gather") is not Gather


def test_a_new_version_is_a_subclass_that_names_its_version() -> None:
    class ScaleShift7(ScaleShift):
        version: ClassVar[str] = "opset7"

    class Tweaked(ScaleShift):  # same key as its parent: not a new registry entry
        def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
            return [arrays[0]]

    try:
        assert lookup("openvino", "TestScaleShift", "opset6") is ScaleShift
        assert lookup("openvino", "TestScaleShift", "opset7") is ScaleShift7
        assert lookup("openvino", "TestScaleShift") is ScaleShift7
        assert lookup("openvino", "TestScaleShift", "opset3") is ScaleShift
        assert Tweaked not in all_ops("openvino")
    finally:
        unregister(ScaleShift7)
    assert lookup("openvino", "TestScaleShift") is ScaleShift


# --- a second class for a key: refused unless declared an override -------------------------------

_MY_RELU = '''
from typing import ClassVar
import numpy as np
from graphir.ops.base import Op, Port, TensorType

class Relu(Op{keyword}):
    """A user's Relu: doubles its input, so which class runs is visible."""
    type_name: ClassVar[str] = "Relu"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("arg"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[0].shape)]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        return [x * 2]
'''


def _fresh_python(code: str) -> "subprocess.CompletedProcess[str]":
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("builtin_first", [True, False], ids=["builtin-imported-first", "user-class-first"])
def test_a_class_replacing_a_builtin_without_override_is_an_error_naming_both(builtin_first: bool) -> None:
    """Whatever the import order (the registry imports op modules lazily), a user's ``class Relu``
    for openvino's Relu-opset1 is refused, naming both classes, not silently swapped in or out."""
    first = "from graphir.ops.registry import lookup; lookup('openvino', 'Relu')\n" if builtin_first else ""
    done = _fresh_python(first + "exec(compile(" + repr(_MY_RELU.format(keyword="")) + ", 'user_ops', 'exec'))")
    assert done.returncode != 0
    message = done.stderr.strip().splitlines()[-1]
    assert message.startswith("graphir.errors.OpDefinitionError: op openvino::Relu-opset1 is defined twice: "
                              "graphir.ops.openvino.activations.Relu and __main__.Relu"), message
    assert "override=True" in message


@pytest.mark.parametrize("builtin_first", [True, False], ids=["builtin-imported-first", "user-class-first"])
def test_an_override_replaces_the_builtin_whatever_the_import_order(builtin_first: bool) -> None:
    first = "from graphir.ops.registry import lookup; lookup('openvino', 'Relu')\n" if builtin_first else ""
    code = (first + "exec(compile(" + repr(_MY_RELU.format(keyword=", override=True")) + ", 'user_ops', 'exec'))\n"
            "import numpy as np, graphir\n"
            "from graphir import opset\n"
            "from graphir.ops.registry import load_all, lookup\n"
            "load_all()\n"
            "x = opset.parameter([2], 'f32', name='x')\n"
            "m = graphir.Model([opset.relu(x)], [x])\n"
            "print(lookup('openvino', 'Relu').__module__)\n"
            "print(list(m.run({'x': np.array([-1, 3], np.float32)}).values())[0].tolist())\n")
    done = _fresh_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["__main__", "[-2.0, 6.0]"]


def test_an_override_of_nothing_is_an_error_and_withdrawing_one_restores_the_builtin() -> None:
    from graphir.ops.openvino.activations import Relu as BuiltinRelu

    class Relu(Op, override=True):  # noqa: F811
        type_name: ClassVar[str] = "Relu"
        version: ClassVar[str] = "opset1"

    try:
        assert lookup("openvino", "Relu", "opset1") is Relu
    finally:
        unregister(Relu)
    assert lookup("openvino", "Relu", "opset1") is BuiltinRelu
    with pytest.raises(OpDefinitionError, match="declared override=True but no op openvino::NoSuchRelu-opset1"):
        class NoSuchRelu(Op, override=True):
            type_name: ClassVar[str] = "NoSuchRelu"
            version: ClassVar[str] = "opset1"
    assert find("openvino", "NoSuchRelu") is None


def test_a_named_version_is_never_the_nearest_of_a_numbered_one() -> None:
    """A class registered only under a named version (an extension's ``my_ext``) is found by that
    exact version or as the newest, never as the nearest of ``opset1`` (the registry numbered a
    named version 0, so every opset found it)."""
    from typing import ClassVar

    from graphir.ops.base import Op, Port
    from graphir.ops.registry import find, registered_exactly, unregister

    class NamedOnly(Op):
        type_name: ClassVar[str] = "GraphirTestNamedOnly"
        version: ClassVar[str] = "named_ext"
        inputs: ClassVar[tuple[Port, ...]] = (Port("x"),)
        outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)

    try:
        assert find("openvino", "GraphirTestNamedOnly", "opset1") is None
        assert find("openvino", "GraphirTestNamedOnly", "opset17") is None
        assert find("openvino", "GraphirTestNamedOnly", "named_ext") is NamedOnly
        assert find("openvino", "GraphirTestNamedOnly") is NamedOnly
        assert registered_exactly("openvino", "GraphirTestNamedOnly", "named_ext") is NamedOnly
        assert registered_exactly("openvino", "GraphirTestNamedOnly", "opset1") is None
    finally:
        unregister(NamedOnly)
