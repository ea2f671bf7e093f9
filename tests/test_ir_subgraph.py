"""Subgraph layers (TensorIterator, Loop, If): bodies read as nested Models, port maps and back edges
as lists of attribute dicts, both for an op class that declares the contract fields and for an
opaque node; either way the file is written back canonical-equal."""
from __future__ import annotations

from typing import Any, ClassVar

import pytest

import graphir
from graphir.ops.base import Op, Port, TensorType
from graphir.ops.opaque import OpaqueOp
from graphir.serializers import ir_reader
from graphir.serializers.openvino_xml import read_ir, write_ir_string

from tests.ir_helpers import IR, canonical, first_difference

TI = b"""<?xml version="1.0"?>
<net name="ti" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2,3" element_type="f32"/>
 <output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>3</dim></port></output></layer>
<layer id="1" name="ti" type="TensorIterator" version="opset1">
 <port_map><input external_port_id="0" internal_layer_id="0" axis="0"/>
  <output external_port_id="1" internal_layer_id="1" axis="0"/></port_map>
 <back_edges><edge from-layer="1" to-layer="0"/></back_edges>
 <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
 <output><port id="1" precision="FP32"><dim>2</dim><dim>3</dim></port></output>
 <body><layers>
  <layer id="0" name="bx" type="Parameter" version="opset1"><data shape="1,3" element_type="f32"/>
   <output><port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port></output></layer>
  <layer id="1" name="br" type="Result" version="opset1">
   <input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port></input></layer>
 </layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges><rt_info/></body>
</layer>
<layer id="2" name="out" type="Result" version="opset1">
 <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
</edges><rt_info/></net>"""


class _BodyOp(Op):
    """Stands for another developer's TensorIterator: declares the contract fields."""

    inputs: ClassVar[tuple[Port, ...]] = (Port("x", variadic=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)

    body: Any = None
    input_descriptions: list[dict[str, Any]] = []
    output_descriptions: list[dict[str, Any]] = []
    back_edges: list[dict[str, Any]] = []

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(inputs[0].element_type, inputs[0].shape)]


_BodyOp.type_name = "TensorIterator"  # set after creation: never enters the global registry
_BodyOp.version = "opset1"


def _only(cls: type[Op] | None, real=ir_reader.find):
    def find(dialect: str, type_name: str, version: str | None = None):
        return cls if type_name == "TensorIterator" else real(dialect, type_name, version)

    return find


def test_op_class_receives_body_and_port_maps(monkeypatch) -> None:
    monkeypatch.setattr(ir_reader, "find", _only(_BodyOp))
    model = read_ir(TI)
    op = model.node("ti").op
    assert isinstance(op, _BodyOp)
    assert isinstance(op.body, graphir.Model)
    assert [n.name for n in op.body.get_ordered_ops()] == ["bx", "br"]
    assert str(op.body.get_parameters()[0].op.shape) == "[1,3]"
    assert op.input_descriptions == [{"external_port_id": 0, "internal_layer_id": 0, "axis": 0}]
    assert op.output_descriptions == [{"external_port_id": 1, "internal_layer_id": 1, "axis": 0}]
    assert op.back_edges == [{"from-layer": 1, "to-layer": 0}]
    xml, _ = write_ir_string(model)
    assert first_difference(canonical(TI), canonical(xml)) is None


def test_unknown_subgraph_op_stays_opaque_and_round_trips(monkeypatch) -> None:
    monkeypatch.setattr(ir_reader, "find", _only(None))
    model = read_ir(TI)
    op = model.node("ti").op
    assert isinstance(op, OpaqueOp)
    assert isinstance(op.children["body"], graphir.Model)
    assert op.children["back_edges"] == [{"tag": "edge", "from-layer": 1, "to-layer": 0}]
    xml, _ = write_ir_string(model)
    assert first_difference(canonical(TI), canonical(xml)) is None


def test_body_errors_name_the_body(monkeypatch) -> None:
    monkeypatch.setattr(ir_reader, "find", _only(None))
    bad = TI.replace(b'<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges><rt_info/></body>',
                     b'<edge from-layer="0" from-port="0" to-layer="9" to-port="0"/></edges><rt_info/></body>')
    with pytest.raises(graphir.errors.SerializationError, match=r"name='ti' type=TensorIterator <body>.*no layer 9"):
        read_ir(bad)


def test_if_from_openvino_round_trips_and_runs_in_openvino(ov, tmp_path) -> None:
    import numpy as np

    model = graphir.read_model(IR / "if.xml")
    graphir.save_model(model, tmp_path / "if.xml")
    compiled = ov.Core().compile_model(str(tmp_path / "if.xml"), "CPU")
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    for cond, expected in ((True, x + 1), (False, x * 3)):
        out = compiled([x, np.array(cond)])[compiled.outputs[0]]
        np.testing.assert_allclose(out, expected)
