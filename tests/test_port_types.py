"""Every op's declared input element types (``Port.types``) are checked in one place before its
``infer`` (graphir.ops.port_types), for every dialect: an op whose ``infer`` does not check them
itself still refuses what its ports do not allow, as OpenVINO does."""
from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError
from graphir.node import Node
from graphir.ops.base import Op, Port, TensorType, types
from graphir.ops.registry import lookup, unregister


def test_slice_scatter_refuses_f32_start_stop_step_as_openvino_does() -> None:
    x = opset.parameter([4, 5], np.float32)
    updates = opset.parameter([2, 5], np.float32)
    f32 = [np.array([v], np.float32) for v in (0, 2, 1)]
    with pytest.raises(InferenceError, match=r"SliceScatter-opset15: input 2 \('start'\) has element type f32; "
                                             r"allowed: i4, i8, i16, i32, i64"):
        opset.slice_scatter(x, updates, *f32)
    ints = [np.array([v], np.int64) for v in (0, 2, 1)]
    assert str(opset.slice_scatter(x, updates, *ints).tensor_type) == "f32[4,5]"


def test_slice_scatter_f32_start_is_refused_by_openvino_too() -> None:
    ops = pytest.importorskip("openvino.opset15")
    x = ops.parameter([4, 5], np.float32)
    with pytest.raises(RuntimeError, match="is_integral_number"):
        ops.slice_scatter(x, ops.parameter([2, 5], np.float32),
                          *[np.array([v], np.float32) for v in (0, 2, 1)])


class LaxProbe(Op):
    """An op whose ``infer`` never looks at its input types: the central check still applies."""

    type_name: ClassVar[str] = "PortTypesLaxProbe"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("index", types("i32", "i64")),
                                          Port("rest", types("f32"), optional=True, variadic=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [inputs[0]]


@pytest.fixture(autouse=True, scope="module")
def _forget_probe():  # noqa: ANN202
    yield
    unregister(LaxProbe)


@pytest.mark.parametrize("dialect_op", [("openvino", "PortTypesLaxProbe", None), ("onednn", "Abs", None),
                                        ("onednn", "Exp", None)])
def test_every_dialect_refuses_a_type_its_port_does_not_allow(dialect_op: tuple[str, str, None]) -> None:
    dialect, type_name, version = dialect_op
    cls = lookup(dialect, type_name, version)
    bad = next(i for i, p in enumerate(cls.inputs) if p.types is not None)
    wrong = "boolean" if "boolean" not in {str(t) for t in cls.inputs[bad].types or ()} else "string"
    params = []
    for i, port in enumerate(cls.inputs):
        if port.optional:
            break
        et = wrong if i == bad else str((port.types or types("f32"))[0])
        params.append(opset.parameter([2, 2], et))
    with pytest.raises(InferenceError, match=rf"input {bad} \('{cls.inputs[bad].name}'\) has element type "
                                             rf"{wrong}; allowed: "):
        Node(cls(**_required_attributes(cls)), params)


def _required_attributes(cls: type[Op]) -> dict[str, object]:
    return {name: 0.0 for name, field in cls.model_fields.items() if field.is_required()}


def test_directml_ops_declare_no_port_types_so_the_check_passes_them() -> None:
    """DirectML's ops leave element types to their own ``infer`` (no port lists one)."""
    from graphir.ops.registry import all_ops

    assert all(p.types is None for cls in all_ops("directml") for p in cls.inputs)


def test_an_ops_own_refusal_keeps_its_words() -> None:
    """Select's infer refuses a u8 condition in OpenVINO's words; the central check keeps them."""
    c = opset.parameter([2], "u8")
    a = opset.parameter([2], "f32")
    with pytest.raises(InferenceError, match="Argument 0 must have boolean element type"):
        opset.select(c, a, a)


def test_the_variadic_port_checks_every_input_it_takes() -> None:
    x, i = opset.parameter([2], "f32"), opset.parameter([1], "i64")
    assert str(Node(LaxProbe(), [x, i, x, x]).output(0).tensor_type) == "f32[2]"
    with pytest.raises(InferenceError, match=r"input 3 \('rest'\) has element type f16; allowed: f32"):
        Node(LaxProbe(), [x, i, x, opset.parameter([2], "f16")])
    with pytest.raises(InferenceError, match=r"input 1 \('index'\) has element type f32; allowed: i32, i64"):
        Node(LaxProbe(), [x, x])
    assert str(Node(LaxProbe(), [x, opset.parameter([1], "dynamic")]).output(0).tensor_type) == "f32[2]"
