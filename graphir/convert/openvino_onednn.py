"""OpenVINO <-> oneDNN Graph converters for the ops both dialects express (Select lives in
graphir/convert/select.py).

OpenVINO keeps data NCX and convolution filters OIX; oneDNN ops name their layout with
``data_format``/``weights_format``, so OpenVINO -> oneDNN writes NCX/OIX and oneDNN -> OpenVINO
inserts Transposes for NXC data or XIO weights. Shapes that OpenVINO takes as inputs (Reshape's
shape, Transpose's order, the reduction axes, MVN's axes) must be constants to become oneDNN
attributes. Refused, with the reason: pdpd broadcasting, element types oneDNN does not accept,
non-constant shape inputs, MVN that is not a LayerNorm (axes not trailing, eps outside the sqrt),
Round half away from zero, oneDNN outputs OpenVINO has no counterpart for (SoftMax stats,
LayerNorm statistics, MatMul/binary outputs whose type differs from the inputs').
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from graphir.convert.base import op_of, register_converter
from graphir.errors import ConversionError, GraphirError
from graphir.node import Node, Output
from graphir.ops.base import Op
from graphir.ops.openvino.core import Constant
from graphir.ops.registry import find, lookup
from graphir.types import ElementType


# --- helpers -----------------------------------------------------------------------------------
def ov_op(name: str, version: str | None = None, **attrs: Any) -> Op:
    cls = find("openvino", name, version)
    if cls is None:
        raise ConversionError(f"graphir has no OpenVINO {name}{'-' + version if version else ''} op to convert to")
    return cls(**attrs)


def dnn_op(kind: str, **attrs: Any) -> Op:
    return lookup("onednn", kind, "1")(**attrs)


def build(op: Op, inputs: Sequence[Output | None], node: Node, name: str | None = None,
          declare: Sequence[ElementType] | None = None) -> list[Output]:
    if declare is not None and hasattr(op, "declare_output_types"):
        op.declare_output_types(list(declare))
    try:
        return Node(op, list(inputs), name=name or node.name).outputs()
    except GraphirError as exc:
        raise ConversionError(f"the converted {op.describe()} does not validate: {exc}") from None


def constant(values: Any, element_type: str, name: str) -> Output:
    return Node(Constant.from_array(np.asarray(values), element_type), name=name).output(0)


def constant_input(node: Node, index: int, what: str) -> np.ndarray:
    value = node.input_types()[index].value
    if value is None:
        raise ConversionError(f"input {index} ('{what}') is not a constant; oneDNN Graph takes it as an attribute")
    return np.asarray(value)


def output_types(node: Node) -> list[ElementType]:
    return [t.element_type for t in node.output_types]


def check_broadcast(node: Node) -> str:
    mode = getattr(node.op, "auto_broadcast", "numpy")
    if mode not in ("none", "numpy"):
        raise ConversionError(f"oneDNN Graph has no {mode} broadcast (auto_broadcast is none or numpy)")
    return mode


def rank_of(node: Node, index: int = 0) -> int:
    shape = node.input_types()[index].shape
    if shape.rank_is_dynamic:
        raise ConversionError(f"input {index} has a dynamic rank; the layout attributes need a static rank")
    return len(shape)


AUTO_PAD_TO_DNN = {"explicit": "None", "notset": "None", "same_upper": "SAME_UPPER", "same_lower": "SAME_LOWER", "valid": "VALID"}
AUTO_PAD_TO_OV = {"None": "explicit", "none": "explicit", "SAME_UPPER": "same_upper", "SAME_LOWER": "same_lower", "VALID": "valid"}


# --- OpenVINO -> oneDNN ------------------------------------------------------------------------
BINARY = {"Add": "Add", "Subtract": "Subtract", "Multiply": "Multiply", "Divide": "Divide", "Maximum": "Maximum",
          "Minimum": "Minimum", "SquaredDifference": "SquaredDifference", "GreaterEqual": "GreaterEqual"}
UNARY = {"Relu": "ReLU", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Abs": "Abs", "Exp": "Exp", "Log": "Log",
         "Sqrt": "Sqrt", "Mish": "Mish", "HSwish": "HardSwish", "SoftPlus": "SoftPlus"}


@register_converter("openvino", "onednn", *BINARY)
def binary_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    mode = check_broadcast(node)
    kind = BINARY[node.type_name]
    declare = None if kind == "GreaterEqual" else output_types(node)
    return build(dnn_op(kind, auto_broadcast=mode), inputs, node, declare=declare)


@register_converter("openvino", "onednn", *UNARY)
def unary_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(dnn_op(UNARY[node.type_name]), inputs, node)


@register_converter("openvino", "onednn", "Gelu")
def gelu_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    mode = getattr(node.op, "approximation_mode", "ERF")
    return build(dnn_op("GELU", mode="gelu_tanh" if mode.upper() == "TANH" else "gelu_erf"), inputs, node)


@register_converter("openvino", "onednn", "Elu")
def elu_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(dnn_op("Elu", alpha=op_of(node).alpha), inputs, node)


@register_converter("openvino", "onednn", "Clamp")
def clamp_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(dnn_op("Clamp", min=op_of(node).min, max=op_of(node).max), inputs, node)


@register_converter("openvino", "onednn", "HSigmoid")
def hsigmoid_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(dnn_op("HardSigmoid", alpha=1.0 / 6.0, beta=0.5), inputs, node)


@register_converter("openvino", "onednn", "Round")
def round_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    if op_of(node).mode != "half_to_even":
        raise ConversionError(f"oneDNN Graph Round rounds half to even; mode '{op_of(node).mode}' cannot be expressed")
    return build(dnn_op("Round"), inputs, node)


@register_converter("openvino", "onednn", "Softmax", "LogSoftmax")
def softmax_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    if node.type_name == "LogSoftmax":
        return build(dnn_op("LogSoftmax", axis=op_of(node).axis), inputs, node)
    return build(dnn_op("SoftMax", axis=op_of(node).axis), inputs, node, declare=output_types(node))


@register_converter("openvino", "onednn", "MatMul")
def matmul_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    op = dnn_op("MatMul", transpose_a=op_of(node).transpose_a, transpose_b=op_of(node).transpose_b)
    return build(op, inputs, node, declare=output_types(node))


@register_converter("openvino", "onednn", "Concat")
def concat_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(dnn_op("Concat", axis=op_of(node).axis), inputs, node)


@register_converter("openvino", "onednn", "Reshape")
def reshape_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    shape = [int(v) for v in constant_input(node, 1, "shape").reshape(-1)]
    return build(dnn_op("StaticReshape", shape=shape, special_zero=bool(op_of(node).special_zero)), inputs[:1], node)


@register_converter("openvino", "onednn", "Transpose")
def transpose_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    order = [int(v) for v in constant_input(node, 1, "order").reshape(-1)]
    return build(dnn_op("StaticTranspose", order=order), inputs[:1], node)


@register_converter("openvino", "onednn", "Convert")
def convert_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(dnn_op("TypeCast"), inputs, node, declare=output_types(node))


@register_converter("openvino", "onednn", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2")
def reduce_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    axes = [int(v) for v in constant_input(node, 1, "axes").reshape(-1)]
    if not axes:
        raise ConversionError("an empty axes list reduces nothing in OpenVINO; oneDNN Graph reductions need axes")
    return build(dnn_op(node.type_name, axes=axes, keep_dims=op_of(node).keep_dims), inputs[:1], node)


def _conv_attrs(op: Any) -> dict[str, Any]:
    return {"strides": list(op.strides), "pads_begin": list(op.pads_begin), "pads_end": list(op.pads_end),
            "dilations": list(op.dilations), "auto_pad": AUTO_PAD_TO_DNN[op.auto_pad], "data_format": "NCX"}


@register_converter("openvino", "onednn", "Convolution", "GroupConvolution")
def convolution_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    attrs = _conv_attrs(node.op)
    weights = inputs[1]
    if node.type_name == "GroupConvolution":
        shape = node.input_types()[1].shape
        if not shape.is_static:
            raise ConversionError(f"GroupConvolution filters {shape} must be static to fold the group axis")
        g, o, i, *k = shape.to_shape()
        weights = build(dnn_op("StaticReshape", shape=[g * o, i, *k], special_zero=False), [weights], node, name=f"{node.name}/weights")[0]
        attrs["groups"] = g
    return build(dnn_op("Convolution", weights_format="OIX", **attrs), [inputs[0], weights], node)


def _pool_attrs(op: Any) -> dict[str, Any]:
    if op.rounding_type not in ("floor", "ceil"):
        raise ConversionError(f"oneDNN Graph pooling has no rounding_type '{op.rounding_type}'")
    return {"strides": list(op.strides), "pads_begin": list(op.pads_begin), "pads_end": list(op.pads_end),
            "kernel": list(op.kernel), "rounding_type": op.rounding_type, "auto_pad": AUTO_PAD_TO_DNN[op.auto_pad],
            "data_format": "NCX"}


@register_converter("openvino", "onednn", "MaxPool")
def maxpool_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    attrs = _pool_attrs(node.op)
    dilations = list(getattr(node.op, "dilations", []) or [])
    if dilations:
        attrs["dilations"] = dilations
    # MaxPool-8's indices output has no oneDNN counterpart; only dst is mapped
    return build(dnn_op("MaxPool", **attrs), inputs, node)


@register_converter("openvino", "onednn", "AvgPool")
def avgpool_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(dnn_op("AvgPool", exclude_pad=op_of(node).exclude_pad, **_pool_attrs(node.op)), inputs, node)


@register_converter("openvino", "onednn", "MVN")
def mvn_to_layernorm(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    op = op_of(node)
    if node.version != "opset6":
        raise ConversionError("only MVN-6 (axes as an input) converts to LayerNorm")
    if not op.normalize_variance:
        raise ConversionError("MVN without normalize_variance only subtracts the mean; LayerNorm always divides")
    if op.eps_mode.lower() != "inside_sqrt":
        raise ConversionError("LayerNorm adds epsilon inside the square root; MVN eps_mode is outside_sqrt")
    rank = rank_of(node)
    axes = sorted({int(a) % rank for a in constant_input(node, 1, "axes").reshape(-1)})
    if not axes or axes != list(range(axes[0], rank)):
        raise ConversionError(f"LayerNorm normalizes the trailing axes from begin_norm_axis; MVN axes {axes} of rank {rank} are not trailing")
    ln = dnn_op("LayerNorm", begin_norm_axis=axes[0], use_affine=False, keep_stats=False, epsilon=float(op.eps))
    return build(ln, inputs[:1], node)


@register_converter("openvino", "onednn", "BatchNormInference")
def batchnorm_to_onednn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    ordered = inputs if node.version == "opset5" else [inputs[2], inputs[0], inputs[1], inputs[3], inputs[4]]
    return build(dnn_op("BatchNormInference", epsilon=op_of(node).epsilon, data_format="NCX"), ordered, node)


# --- oneDNN -> OpenVINO ------------------------------------------------------------------------
def _same_types(node: Node) -> None:
    types_ = {t.element_type for t in node.input_types()}
    outs = {t.element_type for t in node.output_types}
    if len(types_) > 1:
        raise ConversionError(f"OpenVINO {node.type_name} needs equal input types; got {', '.join(sorted(map(str, types_)))}")
    if node.type_name != "GreaterEqual" and outs != types_:
        raise ConversionError(f"the output type {', '.join(map(str, outs))} differs from the input type; OpenVINO has no such {node.type_name}")


@register_converter("onednn", "openvino", *BINARY.values())
def binary_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    _same_types(node)
    name = {v: k for k, v in BINARY.items()}[node.type_name]
    return build(ov_op(name, auto_broadcast=op_of(node).auto_broadcast), inputs, node)


@register_converter("onednn", "openvino", *UNARY.values())
def unary_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    name = {v: k for k, v in UNARY.items()}[node.type_name]
    if name == "SoftPlus" and op_of(node).beta != 1.0:
        raise ConversionError(f"OpenVINO SoftPlus has no beta; SoftPlus beta={op_of(node).beta}")
    return build(ov_op(name), inputs, node)


@register_converter("onednn", "openvino", "GELU")
def gelu_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(ov_op("Gelu", "opset7", approximation_mode="TANH" if op_of(node).mode == "gelu_tanh" else "ERF"), inputs, node)


@register_converter("onednn", "openvino", "Elu")
def elu_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(ov_op("Elu", alpha=op_of(node).alpha), inputs, node)


@register_converter("onednn", "openvino", "Clamp")
def clamp_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(ov_op("Clamp", min=op_of(node).min, max=op_of(node).max), inputs, node)


@register_converter("onednn", "openvino", "Round")
def round_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(ov_op("Round", "opset5", mode="half_to_even"), inputs, node)


@register_converter("onednn", "openvino", "SoftMax", "LogSoftmax")
def softmax_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    if node.type_name == "LogSoftmax":
        return build(ov_op("LogSoftmax", "opset5", axis=op_of(node).axis), inputs, node)
    if len(node.output_types) > 1:
        raise ConversionError("OpenVINO Softmax has no stats output")
    if op_of(node).mode != "none":
        raise ConversionError("OpenVINO Softmax has no inf_as_zero mode (an all -inf row gives NaN there)")
    _same_types(node)
    return build(ov_op("Softmax", "opset8", axis=op_of(node).axis), inputs, node)


@register_converter("onednn", "openvino", "MatMul")
def matmul_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    _same_types(node)
    out = build(ov_op("MatMul", transpose_a=op_of(node).transpose_a, transpose_b=op_of(node).transpose_b), inputs[:2], node)
    if len(inputs) > 2:
        out = build(ov_op("Add"), [out[0], inputs[2]], node, name=f"{node.name}/bias")
    return out


@register_converter("onednn", "openvino", "Concat")
def concat_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(ov_op("Concat", axis=op_of(node).axis), inputs, node)


@register_converter("onednn", "openvino", "StaticReshape")
def reshape_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    shape = constant(np.asarray(op_of(node).shape, np.int64), "i64", f"{node.name}/shape")
    return build(ov_op("Reshape", special_zero=op_of(node).special_zero), [inputs[0], shape], node)


def _transpose(source: Output, order: list[int], node: Node, suffix: str) -> Output:
    perm = constant(np.asarray(order, np.int64), "i64", f"{node.name}/{suffix}/order")
    return build(ov_op("Transpose"), [source, perm], node, name=f"{node.name}/{suffix}")[0]


@register_converter("onednn", "openvino", "StaticTranspose")
def transpose_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    rank = rank_of(node)
    order = [o + rank if o < 0 else o for o in op_of(node).order] or list(range(rank))[::-1]
    perm = constant(np.asarray(order, np.int64), "i64", f"{node.name}/order")
    return build(ov_op("Transpose"), [inputs[0], perm], node)


@register_converter("onednn", "openvino", "TypeCast")
def typecast_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    return build(ov_op("Convert", destination_type=str(node.output_types[0].element_type)), inputs, node)


@register_converter("onednn", "openvino", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2")
def reduce_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    if len(inputs) > 1:
        axes_out = inputs[1]
    else:
        axes_out = constant(np.asarray(op_of(node).axes, np.int64), "i64", f"{node.name}/axes")
    return build(ov_op(node.type_name, keep_dims=op_of(node).keep_dims), [inputs[0], axes_out], node)


def _to_ncx(source: Output, node: Node, data_format: str, rank: int) -> Output:
    if data_format == "NCX":
        return source
    return _transpose(source, [0, rank - 1, *range(1, rank - 1)], node, "to_ncx")


def _from_ncx(source: Output, node: Node, data_format: str, rank: int) -> list[Output]:
    if data_format == "NCX":
        return [source]
    return [_transpose(source, [0, *range(2, rank), 1], node, "to_nxc")]


@register_converter("onednn", "openvino", "Convolution")
def convolution_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    op = op_of(node)
    rank = rank_of(node)
    x = _to_ncx(inputs[0], node, op.data_format, rank)
    w = inputs[1] if op.weights_format == "OIX" else _transpose(inputs[1], [rank - 1, rank - 2, *range(rank - 2)], node, "to_oix")
    attrs: dict[str, Any] = {"strides": list(op.strides), "pads_begin": list(op.pads_begin), "pads_end": list(op.pads_end),
             "dilations": list(op.dilations), "auto_pad": AUTO_PAD_TO_OV[op.auto_pad]}
    if op.groups > 1:
        wshape = node.input_types()[1].shape
        if not wshape.is_static:
            raise ConversionError(f"grouped Convolution weights {wshape} must be static to split the group axis")
        dims = list(wshape.to_shape())
        o, i, k = (dims[0], dims[1], dims[2:]) if op.weights_format == "OIX" else (dims[-1], dims[-2], dims[:-2])
        shape = constant(np.asarray([op.groups, o // op.groups, i, *k], np.int64), "i64", f"{node.name}/group_shape")
        w = build(ov_op("Reshape", special_zero=False), [w, shape], node, name=f"{node.name}/group_weights")[0]
        out = build(ov_op("GroupConvolution", **attrs), [x, w], node, name=f"{node.name}/conv" if len(inputs) > 2 or op.data_format != "NCX" else None)[0]
    else:
        out = build(ov_op("Convolution", **attrs), [x, w], node, name=f"{node.name}/conv" if len(inputs) > 2 or op.data_format != "NCX" else None)[0]
    if len(inputs) > 2:
        bshape = constant(np.asarray([1, -1] + [1] * (rank - 2), np.int64), "i64", f"{node.name}/bias_shape")
        bias = build(ov_op("Reshape", special_zero=False), [inputs[2], bshape], node, name=f"{node.name}/bias_reshape")[0]
        out = build(ov_op("Add"), [out, bias], node, name=f"{node.name}/bias" if op.data_format != "NCX" else None)[0]
    return _from_ncx(out, node, op.data_format, rank)


@register_converter("onednn", "openvino", "MaxPool", "AvgPool")
def pool_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    op = op_of(node)
    rank = rank_of(node)
    attrs: dict[str, Any] = {"strides": list(op.strides), "pads_begin": list(op.pads_begin), "pads_end": list(op.pads_end),
                             "kernel": list(op.kernel), "rounding_type": op.rounding_type, "auto_pad": AUTO_PAD_TO_OV[op.auto_pad]}
    x = _to_ncx(inputs[0], node, op.data_format, rank)
    inner = f"{node.name}/pool" if op.data_format != "NCX" else None
    if node.type_name == "AvgPool":
        out = build(ov_op("AvgPool", "opset1", exclude_pad=op.exclude_pad, **attrs), [x], node, name=inner)[0]
    else:
        dilations = list(op.dilations)[: len(op.kernel)]
        if any(d != 1 for d in dilations):
            out = build(ov_op("MaxPool", "opset8", dilations=dilations, **attrs), [x], node, name=inner)[0]
        else:
            out = build(ov_op("MaxPool", "opset1", **attrs), [x], node, name=inner)[0]
    return _from_ncx(out, node, op.data_format, rank)


@register_converter("onednn", "openvino", "LayerNorm")
def layernorm_to_mvn(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    op = op_of(node)
    if len(node.output_types) > 1:
        raise ConversionError("OpenVINO MVN has no mean/variance outputs (LayerNorm keep_stats)")
    rank = rank_of(node)
    begin = op.begin_norm_axis + rank if op.begin_norm_axis < 0 else op.begin_norm_axis
    axes = constant(np.arange(begin, rank, dtype=np.int64), "i64", f"{node.name}/axes")
    affine = len(inputs) > 1
    out = build(ov_op("MVN", "opset6", normalize_variance=True, eps=op.epsilon, eps_mode="inside_sqrt"), [inputs[0], axes], node,
                name=f"{node.name}/mvn" if affine else None)
    if len(inputs) > 1:
        out = build(ov_op("Multiply"), [out[0], inputs[1]], node, name=f"{node.name}/gamma" if len(inputs) > 2 else None)
    if len(inputs) > 2:
        out = build(ov_op("Add"), [out[0], inputs[2]], node)
    return out


@register_converter("onednn", "openvino", "BatchNormInference")
def batchnorm_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    rank = rank_of(node)
    x = _to_ncx(inputs[0], node, op_of(node).data_format, rank)
    inner = f"{node.name}/bn" if op_of(node).data_format != "NCX" else None
    out = build(ov_op("BatchNormInference", "opset5", epsilon=op_of(node).epsilon), [x, *inputs[1:]], node, name=inner)[0]
    return _from_ncx(out, node, op_of(node).data_format, rank)


@register_converter("onednn", "openvino", "HardSigmoid")
def hardsigmoid_to_openvino(node: Node, inputs: list[Output], **options: Any) -> list[Output]:
    if not (np.isclose(op_of(node).alpha, 1.0 / 6.0) and np.isclose(op_of(node).beta, 0.5)):
        raise ConversionError(f"OpenVINO HSigmoid is alpha=1/6, beta=0.5; HardSigmoid has alpha={op_of(node).alpha}, beta={op_of(node).beta}")
    return build(ov_op("HSigmoid"), inputs, node)
