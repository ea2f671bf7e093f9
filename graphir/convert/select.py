"""Select between dialects: OpenVINO Select-1 <-> oneDNN Graph Select, and either -> DirectML
ElementWiseIf for a feature level.

OpenVINO -> oneDNN refuses what oneDNN cannot express: pdpd broadcasting, types outside
f32/bf16/f16, and a cond that would enlarge the broadcast of then/else (OpenVINO broadcasts cond
bidirectionally; oneDNN only one way). oneDNN -> OpenVINO always works (numpy there is a superset).
-> DirectML: DirectML does not broadcast, so every input gets a desc of the output's Sizes whose
zero Strides re-read its elements (ONNX Runtime's DirectML EP does the same); ranks are padded with
leading 1s to exactly 4 where the level's table says 4 (2_x), and to at least 4 with ``nchw=True``
(ONNX Runtime's habit); a boolean cond is read as UINT8 bytes. Options: ``feature_level``
(default the newest), ``nchw``. Types the level does not support are refused naming the level that
would accept them.
"""
from __future__ import annotations

from typing import Any

from graphir.broadcast import numpy_merge, one_way_merge
from graphir.convert.base import op_as, register_converter
from graphir.errors import ConversionError, ElementTypeError, GraphirError
from graphir.node import Node, Output
from graphir.ops.directml.element_wise_if import SUPPORT, ElementWiseIf
from graphir.ops.directml.feature_levels import NEWEST, FeatureLevel
from graphir.ops.directml.tensor_desc import BufferTensorDesc, TensorDataType, packed_strides
from graphir.ops.onednn.select import FLOATS
from graphir.ops.onednn.select import Select as OnednnSelect
from graphir.ops.openvino.select import Select as OpenvinoSelect
from graphir.shapes import PartialShape
from graphir.types import ElementType

_NAMES = {"openvino": ("cond", "then", "else"), "onednn": ("cond", "src_0", "src_1")}


def _input_shapes(node: Node) -> list[PartialShape]:
    return [t.shape for t in node.input_types()]


def _build(op: Any, inputs: list[Output], node: Node) -> list[Output]:
    try:
        return Node(op, inputs, name=node.name).outputs()
    except GraphirError as exc:
        raise ConversionError(f"the converted {op.describe()} does not validate: {exc}") from None


@register_converter("openvino", "onednn", "Select")
def openvino_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    op = op_as(node, OpenvinoSelect)
    assert isinstance(op, OpenvinoSelect)
    if op.auto_broadcast == "pdpd":
        raise ConversionError("oneDNN Graph Select has no pdpd broadcast (auto_broadcast is none or numpy)")
    et = node.output_types[0].element_type
    if et not in FLOATS:
        raise ConversionError(f"oneDNN Graph Select takes f32, bf16 or f16 values; then/else are {et}")
    cond, then, other = _input_shapes(node)
    if op.auto_broadcast == "numpy":
        dst = numpy_merge(then, other)
        if dst is not None and one_way_merge(dst, cond) is None:
            higher = cond.rank_is_static and dst.rank_is_static and len(cond) > len(dst)
            why = f"its rank {len(cond)} exceeds {len(dst)}" if higher else "a cond dim would enlarge dst"
            raise ConversionError(
                f"cond {cond} does not one-way broadcast to then x else {dst} ({why}); oneDNN Graph's "
                f"cond never enlarges the output as OpenVINO's numpy rule lets it"
            )
    return _build(OnednnSelect(auto_broadcast=op.auto_broadcast), inputs, node)


@register_converter("onednn", "openvino", "Select")
def onednn_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return _build(OpenvinoSelect(auto_broadcast=op_as(node, OnednnSelect).auto_broadcast), inputs, node)


def _aligned(shape: tuple[int, ...], rank: int, mode: str, axis: int) -> list[int]:
    """``shape`` placed in ``rank`` dims as the broadcast rule places it (numpy: trailing)."""
    if mode == "pdpd" and len(shape) < rank:
        start = rank - len(shape) if axis == -1 else axis
        return [1] * start + list(shape) + [1] * (rank - start - len(shape))
    return [1] * (rank - len(shape)) + list(shape)


def broadcast_desc(data_type: TensorDataType, shape: tuple[int, ...], sizes: list[int], mode: str = "numpy",
                   axis: int = 0, output_rank: int | None = None) -> BufferTensorDesc:
    """A desc reading a packed ``shape`` buffer as ``sizes``: zero strides on its size-1 dims.

    ``output_rank``: the rank the broadcast rule aligns against, before ``sizes`` was padded.
    """
    output_rank = len(sizes) if output_rank is None else output_rank
    aligned = _aligned(shape, output_rank, mode, axis)
    aligned = [1] * (len(sizes) - len(aligned)) + aligned
    if aligned == sizes:
        return BufferTensorDesc(DataType=data_type, Sizes=sizes)
    strides = [0 if n == 1 else s for n, s in zip(aligned, packed_strides(aligned))]
    return BufferTensorDesc(DataType=data_type, Sizes=sizes, Strides=strides)


def _directml_rank(rank: int, level: FeatureLevel, nchw: bool) -> int:
    row = SUPPORT.row(level)
    if row is None:
        raise ConversionError(
            f"DML_OPERATOR_ELEMENT_WISE_IF was introduced in {SUPPORT.introduced.dml_name}; "
            f"{level.dml_name} does not have it"
        )
    counts = row.dimension_counts
    if len(counts) == 1:  # an exact rank (4 at 2_x): pad up to it
        if rank > counts[0]:
            lowest = SUPPORT.lowest(lambda r: rank in r.dimension_counts)
            where = f"the lowest feature level that accepts it is {lowest.dml_name}" if lowest else "no level accepts it"
            raise ConversionError(
                f"rank {rank} cannot be expressed at {level.dml_name} (ElementWiseIf takes exactly "
                f"{counts[0]} dims there); {where}"
            )
        return counts[0]
    return max(rank, counts[0], 4 if nchw else 0)


def _to_directml(node: Node, inputs: list[Output], mode: str, axis: int, feature_level: Any = NEWEST,
                 nchw: bool = False) -> list[Output]:
    level = FeatureLevel.parse(feature_level)
    names = _NAMES[node.dialect]
    shapes = _input_shapes(node) + [node.output_types[0].shape]
    for name, shape in zip(names + ("output",), shapes):
        if not shape.is_static:
            raise ConversionError(f"DirectML sizes are concrete but {name} has shape {shape}")
    out_shape = shapes[3].to_shape()
    if 0 in out_shape:
        raise ConversionError(f"output shape {shapes[3]} is empty; a DirectML size of zero is invalid")
    et = node.output_types[0].element_type
    try:
        if et is ElementType.boolean:
            raise ElementTypeError("DirectML has no boolean data type for ATensor/BTensor")
        data_type = TensorDataType.from_element_type(et)
    except ElementTypeError as exc:
        raise ConversionError(f"{names[1]}/{names[2]} element type {et}: {exc}") from None
    rank = _directml_rank(len(out_shape), level, nchw)
    sizes = [1] * (rank - len(out_shape)) + list(out_shape)
    placed = len(out_shape)
    descs = {
        "ConditionTensor": broadcast_desc(TensorDataType.UINT8, shapes[0].to_shape(), sizes, mode, axis, placed),
        "ATensor": broadcast_desc(data_type, shapes[1].to_shape(), sizes, mode, axis, placed),
        "BTensor": broadcast_desc(data_type, shapes[2].to_shape(), sizes, mode, axis, placed),
        "OutputTensor": BufferTensorDesc(DataType=data_type, Sizes=sizes),
    }
    op = ElementWiseIf(feature_level=level, **descs)
    try:
        op.validate_descs()
    except GraphirError as exc:
        raise ConversionError(str(exc).split(": ", 1)[-1]) from None
    return _build(op, inputs, node)


@register_converter("openvino", "directml", "Select")
def openvino_to_directml(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    op = op_as(node, OpenvinoSelect)
    return _to_directml(node, inputs, op.auto_broadcast, op.axis, **options)


@register_converter("onednn", "directml", "Select")
def onednn_to_directml(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return _to_directml(node, inputs, op_as(node, OnednnSelect).auto_broadcast, 0, **options)
