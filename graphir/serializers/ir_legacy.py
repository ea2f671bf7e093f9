"""What OpenVINO's ``Core().read_model`` does to an IR v10 model after its IR frontend built it: the
legacy input/output precisions of the old Inference Engine API.

Measured on OpenVINO 2026.4.1 (a Parameter -> Convert -> Result model of each type, saved as IR v10,
read back):

- an f16 input becomes an f32 Parameter followed by a Convert to f16 (other inputs stay);
- an output of i32 or f32 stays; i64, u32 and u64 get a Convert to i32; every other type (f16,
  bf16, f64, boolean, i4/i8/i16, u1/u4/u8/u16, ...) a Convert to f32. Dynamic and string outputs stay.

IR v11 models are read as they are. The Converts are ordinary nodes (written back when saved).
"""
from __future__ import annotations

from graphir.model import Model
from graphir.node import Node
from graphir.ops.openvino.core import Parameter
from graphir.types import ElementType

_KEPT = frozenset({ElementType.f32, ElementType.i32, ElementType.dynamic, ElementType.string})
_TO_I32 = frozenset({ElementType.i64, ElementType.u32, ElementType.u64})


def legacy_output_type(et: ElementType) -> ElementType:
    """The element type read_model gives an IR v10 output of type ``et``."""
    if et in _KEPT:
        return et
    return ElementType.i32 if et in _TO_I32 else ElementType.f32


def apply_v10_legacy_io(model: Model) -> Model:
    """``model`` (read from an IR v10 file) with read_model's legacy input/output conversions."""
    from graphir.ops.openvino.conversion import Convert  # only when a conversion is needed: imports stay light

    changed = False
    for param in list(model.parameters):
        op = param.op
        if not isinstance(op, Parameter) or op.element_type is not ElementType.f16:
            continue
        users = model.consumers(param.output(0))
        param.op = op.model_copy(update={"element_type": ElementType.f32})
        param.infer()
        convert = Node(Convert(destination_type=ElementType.f16), [param.output(0)], name=f"{param.name}/convert_f16")
        for user, index in users:
            user.set_input(index, convert.output(0))
        model.add_node(convert)
        changed = True
    for result in list(model.results):
        source = result.inputs[0]
        if source is None:
            continue
        et = source.element_type
        target = legacy_output_type(et)
        if target is et:
            continue
        convert = Node(Convert(destination_type=target), [source], name=f"{result.name}/convert_{target}")
        result.set_input(0, convert.output(0))
        model.add_node(convert)
        result.infer()
        changed = True
    return model
