"""Per-layer and total compute, parameters, weight bytes and activation memory (onnx-tool's profile for IR).

Counted for static input shapes (the model's own, ``shapes``, or sizes the model accepts):

* **MACs** (multiply-accumulates) of Convolution, GroupConvolution, ConvolutionBackpropData (and
  its group form), MatMul, ScaledDotProductAttention and the RNN/GRU/LSTM cells and sequences:
  output elements x the reduced length (a convolution's input channels per group x its kernel size,
  a MatMul's K); a recurrent layer's batch x steps x (W elements + R elements).
* **FLOPs**: 2 per MAC, plus 1 per output element of an elementwise op or activation, the kernel
  size per output element of MaxPool/AvgPool, the input elements of a reduction or adaptive pool,
  and a few per element of a normalization (BatchNormInference 2, Softmax/LogSoftmax 3, MVN and
  NormalizeL2 4). Data movement (Reshape, Transpose, Concat, Gather, Convert, ...) counts 0.
* **parameters**: the elements of the weight Constants (floating point, or integers narrower than
  16 bits, e.g. compressed u8/u4 weights) a layer reads, directly or through constant-only
  nodes (a decompression subgraph, a Reshape); each weight counted once, for the first layer that
  reads it. i32/i64 constants (shapes, axes, indices) are not parameters, nor are the scales and
  zero points of a decompression subgraph (the smaller constants beside the weight it decompresses;
  their bytes count under ``weights``' stored bytes).
* **weight bytes** by stored element type: at the stored width (u4: half a byte an element) and
  decompressed (the element type that reaches the layer, f32 after a decompression subgraph).
* **activation bytes**: each computed layer output; **peak live set**: the most bytes of inputs and
  layer outputs alive at once when layers run in order and each value is freed after its last use.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from graphir.ops.openvino.core import Constant, Parameter, Result
from graphir.tools._common import ModelLike, Shapes, as_model, constant_only, table, tensor_bytes

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node
    from graphir.ops.base import TensorType

ELEMENTWISE = frozenset("""Abs Acos Acosh Add Asin Asinh Atan Atanh BitwiseAnd BitwiseNot BitwiseOr BitwiseXor
Ceiling Clamp Cos Cosh Divide Elu Equal Erf Exp FloorMod Floor Gelu Greater GreaterEqual HSigmoid HSwish
HardSigmoid IsFinite IsInf IsNaN Less LessEqual Log LogicalAnd LogicalNot LogicalOr LogicalXor Maximum Minimum
Mish Mod Multiply Negative NotEqual PRelu Power Relu Round Selu Select Sigmoid Sign Sin Sinh SoftPlus SoftSign
Sqrt SquaredDifference Subtract Swish Tan Tanh""".split())
REDUCTIONS = frozenset("""ReduceL1 ReduceL2 ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin ReduceProd
ReduceSum AdaptiveAvgPool AdaptiveMaxPool""".split())
POOLS = frozenset(["MaxPool", "AvgPool"])
#: FLOPs per output element of normalizations
PER_ELEMENT = {"BatchNormInference": 2, "Softmax": 3, "LogSoftmax": 3, "MVN": 4, "NormalizeL2": 4}
#: recurrent op -> the input port of W (R follows it)
RECURRENT = {"RNNCell": 2, "GRUCell": 2, "LSTMCell": 3, "RNNSequence": 3, "GRUSequence": 3, "LSTMSequence": 4}


@dataclass
class LayerStats:
    name: str
    type: str
    shape: list[int]  # of output 0
    macs: int
    flops: int
    parameters: int
    output_bytes: int


@dataclass
class ModelStats:
    """What :func:`stats` counts; ``layers`` in execution order."""

    input_shapes: dict[str, list[int]]
    layers: list[LayerStats] = field(default_factory=list)
    #: stored element type -> {"weights", "elements", "stored_bytes", "decompressed_bytes"}
    weights: dict[str, dict[str, int]] = field(default_factory=dict)
    #: elements of the scales and zero points of weight decompression subgraphs (stored, not parameters)
    decompression_constants: int = 0
    peak_live_bytes: int = 0
    peak_after: str = ""  # the layer after which the live set peaks

    @property
    def macs(self) -> int:
        return sum(layer.macs for layer in self.layers)

    @property
    def flops(self) -> int:
        return sum(layer.flops for layer in self.layers)

    @property
    def parameters(self) -> int:
        return sum(layer.parameters for layer in self.layers)

    @property
    def activation_bytes(self) -> int:
        return sum(layer.output_bytes for layer in self.layers)

    def by_type(self) -> dict[str, dict[str, int]]:
        """Op type -> totals (layers, MACs, FLOPs, parameters, output bytes), largest FLOPs first."""
        out: dict[str, dict[str, int]] = {}
        for s in self.layers:
            row = out.setdefault(s.type, {"layers": 0, "macs": 0, "flops": 0, "parameters": 0, "output_bytes": 0})
            row["layers"] += 1
            row["macs"] += s.macs
            row["flops"] += s.flops
            row["parameters"] += s.parameters
            row["output_bytes"] += s.output_bytes
        return dict(sorted(out.items(), key=lambda kv: (-kv[1]["flops"], kv[0])))

    def to_dict(self) -> dict[str, Any]:
        return {"input_shapes": self.input_shapes, "macs": self.macs, "flops": self.flops,
                "parameters": self.parameters, "activation_bytes": self.activation_bytes,
                "peak_live_bytes": self.peak_live_bytes, "peak_after": self.peak_after,
                "weights": self.weights, "decompression_constants": self.decompression_constants, "by_type": self.by_type(), "layers": [asdict(s) for s in self.layers]}

    def summary(self) -> str:
        lines = ["inputs: " + ", ".join(f"{k} {v}" for k, v in self.input_shapes.items()),
                 f"MACs {human(self.macs)}  FLOPs {human(self.flops)}  parameters {human(self.parameters)}",
                 f"activations {human(self.activation_bytes)}B in all, peak live set {human(self.peak_live_bytes)}B "
                 f"(after {self.peak_after})"]
        if self.decompression_constants:
            lines[-1] += f"\nscales and zero points of weight decompression: {human(self.decompression_constants)} elements"
        lines.append(table(["weights", "count", "elements", "stored bytes", "decompressed bytes"],
                           [[t, w["weights"], w["elements"], w["stored_bytes"], w["decompressed_bytes"]]
                            for t, w in self.weights.items()]))
        lines.append(table(["op type", "layers", "MACs", "FLOPs", "parameters", "output bytes"],
                           [[t, r["layers"], human(r["macs"]), human(r["flops"]), human(r["parameters"]),
                             human(r["output_bytes"])] for t, r in self.by_type().items()]))
        return "\n\n".join(lines)

    def table(self, limit: int | None = None) -> str:
        rows = self.layers if limit is None else sorted(self.layers, key=lambda s: -s.flops)[:limit]
        return table(["layer", "type", "shape", "MACs", "FLOPs", "params", "out bytes"],
                     [[s.name, s.type, "x".join(map(str, s.shape)) or "scalar", s.macs, s.flops, s.parameters,
                       s.output_bytes] for s in rows])


def human(n: float) -> str:
    """1.82G, 11.7M, 3.1k."""
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.3g}{unit}"
    return str(int(n))


def stats(model: ModelLike, shapes: "Shapes | None" = None) -> ModelStats:
    """Count ``model``'s compute, parameters and memory for static input shapes (see the module docstring)."""
    from graphir.input_sizes import choose_input_shapes

    work = as_model(model).clone()
    if shapes:
        work.reshape({k: list(v) for k, v in shapes.items()})
    params = work.get_parameters()
    if any(not p.output_types[0].shape.is_static for p in params):
        chosen = choose_input_shapes(work)
        work.reshape({p.name: list(s) for p, s in zip(params, chosen)})
    work.infer_shapes()
    order = work.get_ordered_ops()
    folded = constant_only(order)
    result = ModelStats({p.name: list(p.output_types[0].shape.to_shape()) for p in params})
    owners = _weights(order, folded, result)
    for node in order:
        if isinstance(node.op, (Parameter, Constant, Result)) or node.id in folded:
            continue
        macs = layer_macs(node)
        result.layers.append(LayerStats(
            node.name, node.type_name, _dims(node.output_types[0]) if node.output_types else [], macs,
            2 * macs + _other_flops(node), owners.get(node.id, 0), sum(tensor_bytes(t) for t in node.output_types)))
    result.peak_live_bytes, result.peak_after = _peak(order, folded)
    return result


def _dims(t: "TensorType") -> list[int]:
    return [int(d) for d in t.shape.to_shape()] if t.shape.is_static else []


def _elements(t: "TensorType") -> int:
    return math.prod(_dims(t)) if t.shape.is_static else 0


def _input(node: "Node", i: int) -> "TensorType":
    src = node.inputs[i]
    assert src is not None
    return src.node.output_types[src.index]


def layer_macs(node: "Node") -> int:
    """Multiply-accumulates of one layer (0 for ops without any)."""
    kind = node.type_name
    if not node.output_types or not node.output_types[0].shape.is_static:
        return 0
    out = _elements(node.output_types[0])
    if kind in ("Convolution", "GroupConvolution"):
        w = _dims(_input(node, 1))  # [C_out, C_in, k...] or [groups, C_out/g, C_in/g, k...]
        return out * math.prod(w[1:] if kind == "Convolution" else w[2:])
    if kind in ("ConvolutionBackpropData", "GroupConvolutionBackpropData"):
        w = _dims(_input(node, 1))
        return _elements(_input(node, 0)) * math.prod(w[1:] if kind == "ConvolutionBackpropData" else w[2:])
    if kind == "MatMul":
        a = _dims(_input(node, 0))
        if not a:
            return 0
        k = a[-2] if getattr(node.op, "transpose_a", False) and len(a) > 1 else a[-1]
        return out * k
    if kind == "ScaledDotProductAttention":
        q, key, v = _dims(_input(node, 0)), _dims(_input(node, 1)), _dims(_input(node, 2))
        if not (q and key and v):
            return 0
        batch = math.prod(q[:-2])
        return batch * q[-2] * key[-2] * (q[-1] + v[-1])
    if kind in RECURRENT:
        w_at = RECURRENT[kind]  # W, then R
        xs = _dims(_input(node, 0))  # [batch, steps, input] or [batch, input]
        steps = xs[0] * xs[1] if kind.endswith("Sequence") else xs[0]
        return steps * (_elements(_input(node, w_at)) + _elements(_input(node, w_at + 1)))
    return 0


def _other_flops(node: "Node") -> int:
    kind = node.type_name
    if not node.output_types or not node.output_types[0].shape.is_static:
        return 0
    out = _elements(node.output_types[0])
    if kind in ELEMENTWISE:
        return out
    if kind in POOLS:
        return out * math.prod(getattr(node.op, "kernel", [1]))
    if kind in REDUCTIONS:
        return _elements(_input(node, 0))
    return PER_ELEMENT.get(kind, 0) * out


def _weights(order: Sequence["Node"], folded: set[int], result: ModelStats) -> dict[int, int]:
    """Fill ``result.weights``; layer id -> the parameters first read there."""
    origin: dict[int, list["Node"]] = {}  # constant-only node -> the weight Constants it comes from
    owners: dict[int, int] = {}
    counted: set[int] = set()
    for node in order:
        if isinstance(node.op, Constant):
            et = node.op.element_type
            if et.is_real or (et.is_integral_number and et.bitwidth < 16):
                origin[node.id] = [node]
            continue
        sources = [w for s in node.inputs if s is not None for w in origin.get(s.node.id, ())]
        if node.id in folded:
            origin[node.id] = list({w.id: w for w in sources}.values())
            continue
        for src in node.inputs:
            if src is None:
                continue
            arriving = src.node.output_types[src.index].element_type
            group = [w for w in origin.get(src.node.id, ()) if w.id not in counted]
            largest = max(group, key=lambda w: w.op.size if isinstance(w.op, Constant) else 0, default=None)
            for w in group:
                counted.add(w.id)
                op = w.op
                assert isinstance(op, Constant)
                row = result.weights.setdefault(str(op.element_type), {"weights": 0, "elements": 0, "stored_bytes": 0,
                                                                      "decompressed_bytes": 0})
                row["stored_bytes"] += int(op.element_type.packed_size(op.size))
                if w is not largest:  # a decompression's scale or zero point: bytes, not a parameter
                    result.decompression_constants += op.size
                    continue
                row["weights"] += 1
                row["elements"] += op.size
                wide = arriving if not arriving.is_dynamic else op.element_type
                row["decompressed_bytes"] += int(wide.packed_size(op.size))
                owners[node.id] = owners.get(node.id, 0) + op.size
    return owners


def _peak(order: Sequence["Node"], folded: set[int]) -> tuple[int, str]:
    """The largest live set (bytes) of Parameters and layer outputs in execution order, and the layer it follows."""
    last_use: dict[tuple[int, int], int] = {}
    for step, node in enumerate(order):
        for src in node.inputs:
            if src is not None:
                last_use[(src.node.id, src.index)] = step
    live: dict[tuple[int, int], int] = {}
    held = peak = 0
    where = ""
    for step, node in enumerate(order):
        if not isinstance(node.op, (Constant, Result)) and node.id not in folded:
            for i, t in enumerate(node.output_types):
                live[(node.id, i)] = tensor_bytes(t)
                held += tensor_bytes(t)
            if held > peak:
                peak, where = held, node.name
        for src in node.inputs:
            key = (src.node.id, src.index) if src is not None else None
            if key in live and last_use.get(key) == step:
                held -= live.pop(key)
        for i in range(len(node.output_types)):
            if (node.id, i) in live and (node.id, i) not in last_use:
                held -= live.pop((node.id, i))
    return peak, where
