"""OpenVINO activations: Relu (IR ``ReLU``), Gelu-2/7, Swish-4, HSwish-4, HSigmoid-5, SoftPlus-4,
Mish-4, Elu-1, PRelu-1 (IR ``PReLU``), Clamp-1, Softmax-1/8 (IR ``SoftMax``), LogSoftmax-5.

Element-type rules and messages are OpenVINO 2026.4's (each op has its own: Gelu wants f16/bf16/
f32/f64, SoftPlus and Mish any real type, Relu anything but boolean, Elu/Softmax anything).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import field_validator

from graphir.kernels.clip import clip
from graphir.kernels.gelu import gelu_erf_f32
from graphir.ops.base import NodeSignature, Op, Port, TensorType, fresh_output, writes_into
from graphir.ops.openvino.binary import fold
from graphir.ops.openvino.unary import UnaryElementwise, compute_real, erf
from graphir.shapes import PartialShape
from graphir.types import ElementType

_GELU_TYPES = (ElementType.f16, ElementType.bf16, ElementType.f32, ElementType.f64, ElementType.dynamic)


def _require_real(op: Op, t: TensorType, message: str) -> None:
    if not (t.element_type.is_real or t.element_type.is_dynamic):
        raise op.fail(f"{message} (input 0 is {t})")


#: elements per block of the f32 activations computed in several passes (a block's passes stay
#: in cache: HSwish/Swish on 96x112x112 1.27 -> 0.98 ms; blocks of 8 Ki were slower than none)
ACTIVATION_BLOCK = 1 << 17
_Into = Callable[[np.ndarray, np.ndarray], Any]  # writes into its second argument


def _blocked(fn: _Into, v: np.ndarray, out: np.ndarray) -> None:
    """``fn(v, out)`` a block of elements at a time (the same values: every pass is elementwise)."""
    if v.size <= ACTIVATION_BLOCK or not (v.flags.c_contiguous and out.flags.c_contiguous):
        fn(v, out)
        return
    flat_v, flat_out = v.reshape(-1), out.reshape(-1)
    for start in range(0, flat_v.size, ACTIVATION_BLOCK):
        fn(flat_v[start:start + ACTIVATION_BLOCK], flat_out[start:start + ACTIVATION_BLOCK])


def blocked_into(fn: _Into, v: np.ndarray) -> np.ndarray:
    """``fn(v, out)`` into a new array a block at a time (:func:`_blocked`)."""
    out = np.empty(v.shape, v.dtype)
    _blocked(fn, np.ascontiguousarray(v), out)
    return out


def prepared_f32_activation(node: NodeSignature, fn: _Into, generic: Callable[..., list[np.ndarray]]
                            ) -> Callable[..., list[np.ndarray]]:
    """An f32 activation's prepared evaluate: ``fn(v, out)`` in blocks into a new array, or into
    its input when a run plan finds that input fresh and read by nothing else (``writes_into``):
    no allocation, the same bits. Other element types: None (the caller decides)."""

    def blocked_f32(v: np.ndarray, *rest: Any) -> list[np.ndarray]:
        if v.dtype != np.float32:
            return generic(v, *rest)
        out = np.empty(v.shape, np.float32)
        _blocked(fn, v, out)
        return [out]

    def blocked_f32_into(v: np.ndarray, *rest: Any) -> list[np.ndarray]:
        if v.dtype != np.float32:
            return generic(v, *rest)
        _blocked(fn, v, v)
        return [v]

    if len(node.inputs) == 1:
        return writes_into(blocked_f32, blocked_f32_into)
    # a constant second input (Swish's beta) is never fresh: its variant is never chosen
    return writes_into(blocked_f32, blocked_f32_into, lambda v, *rest: blocked_f32(v, *rest))


class Relu(UnaryElementwise):
    type_name: ClassVar[str] = "Relu"
    serialized_type_names: ClassVar[dict[str, str]] = {"ir": "ReLU"}

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(x, np.zeros((), x.dtype)).astype(x.dtype, copy=False)

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """Numeric types: ``compute``'s one ``maximum``; into its input when that is a fresh array
        only this step reads (a Convolution's, an Add's)."""
        et = node.inputs[0].element_type
        if et.is_dynamic or et in self.rejected:
            return self.evaluate
        try:
            dtype = np.dtype(et.numpy_dtype)
        except (TypeError, ValueError):
            return self.evaluate
        if dtype.kind not in "fiu":
            return self.evaluate
        zero, generic = np.zeros((), dtype), self.evaluate

        def relu(x: np.ndarray) -> list[np.ndarray]:
            return [np.maximum(x, zero)] if x.dtype == dtype else generic(x)

        def relu_into(x: np.ndarray) -> list[np.ndarray]:
            return [np.maximum(x, zero, out=x)] if x.dtype == dtype else generic(x)

        return writes_into(relu, relu_into)


def gelu_erf(v: np.ndarray) -> np.ndarray:
    return 0.5 * v * (1.0 + erf(np.asarray(v, np.float64) / math.sqrt(2.0)))


def gelu_tanh(v: np.ndarray) -> np.ndarray:
    return 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v * v * v)))


def _gelu_erf_reference(v: np.ndarray) -> np.ndarray:
    return compute_real(v, gelu_erf)


class _GeluBase(UnaryElementwise):
    def check_element_type(self, t: TensorType) -> None:
        if t.element_type not in _GELU_TYPES:
            raise self.fail(
                f"Argument element type must be f16, bf16, f32, f64 or dynamic (got {t.element_type}); "
                f"input 0 is {t}"
            )

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """f32 ERF form: :func:`graphir.kernels.gelu.gelu_erf_f32` (a table instead of an f64
        ``erf`` per element; the same bits), into its input when that is a fresh array only this
        step reads. Other types and the TANH form: the unary prepare."""
        if node.inputs[0].element_type != ElementType.f32 or self.real_kernel(np.dtype(np.float32)) is not gelu_erf:
            return super().prepare(node)
        generic = self.evaluate

        def gelu(x: np.ndarray) -> list[np.ndarray]:
            if x.dtype != np.float32 or not x.flags.c_contiguous:
                return generic(x)
            return [gelu_erf_f32(x, np.empty(x.shape, np.float32), _gelu_erf_reference)]

        def gelu_into(x: np.ndarray) -> list[np.ndarray]:  # x: a fresh array only this step reads
            if x.dtype != np.float32 or not x.flags.c_contiguous:
                return generic(x)
            return [gelu_erf_f32(x, x, _gelu_erf_reference)]

        return writes_into(gelu, gelu_into)


class Gelu(_GeluBase):
    """Gelu-2: the exact form ``0.5 x (1 + erf(x / sqrt 2))``."""

    type_name: ClassVar[str] = "Gelu"
    version: ClassVar[str] = "opset2"

    real_fn: ClassVar[Any] = gelu_erf

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, gelu_erf)


class Gelu7(_GeluBase):
    """Gelu-7: ``approximation_mode`` ERF (exact) or TANH."""

    type_name: ClassVar[str] = "Gelu"
    version: ClassVar[str] = "opset7"

    approximation_mode: Literal["ERF", "TANH"] = "ERF"

    @field_validator("approximation_mode", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    def real_kernel(self, dtype: np.dtype) -> Any:
        if dtype not in (np.float32, np.float64):
            return None
        return gelu_tanh if self.approximation_mode == "TANH" else gelu_erf

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, gelu_tanh if self.approximation_mode == "TANH" else gelu_erf)


class Swish(Op):
    """Swish-4: ``x * sigmoid(beta * x)``; ``beta`` an optional scalar of x's type (default 1)."""

    type_name: ClassVar[str] = "Swish"
    version: ClassVar[str] = "opset4"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("beta", optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        x = inputs[0]
        _require_real(self, x, f"Swish input tensor must be floating point type({x.element_type}).")
        if len(inputs) > 1:
            beta = inputs[1]
            if x.element_type.merge(beta.element_type) is None:
                raise self.fail(
                    f"Swish inputs must have the same type but they are: {x.element_type} and "
                    f"{beta.element_type} (input 0 ('data') {x}, input 1 ('beta') {beta})"
                )
            if beta.shape.rank_is_static and len(beta.shape) != 0:
                raise self.fail(
                    f"Swish input with beta must be scalar but it has rank: {len(beta.shape)} "
                    f"(input 1 ('beta') is {beta})"
                )
        return [TensorType(x.element_type, x.shape, fold(self, inputs, x.shape, x.element_type))]

    def evaluate(self, x: np.ndarray, beta: np.ndarray | None = None) -> list[np.ndarray]:
        b = 1.0 if beta is None else float(np.asarray(beta, np.float64).reshape(-1)[0])
        return [compute_real(np.asarray(x), lambda v: _swish(v, b))]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """f32/f64 with no beta or a constant one: :func:`_swish` with beta decoded once."""
        et = node.inputs[0].element_type
        beta = node.constants[1] if len(node.constants) > 1 else None
        if et not in (ElementType.f32, ElementType.f64) or (len(node.inputs) > 1 and beta is None):
            return self.evaluate
        b = 1.0 if beta is None else float(np.asarray(beta, np.float64).reshape(-1)[0])
        dtype, generic = np.dtype(et.numpy_dtype), self.evaluate
        if et == ElementType.f32:  # in blocks, into a fresh input
            return prepared_f32_activation(node, lambda v, out: _swish_into(v, b, out), generic)

        def swish(x: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
            if x.dtype != dtype:
                return generic(x, *rest)
            return [np.asarray(_swish(x, b), dtype=dtype)]

        return swish


def _swish(v: np.ndarray, beta: float) -> np.ndarray:
    """``v / (1 + exp(-beta * v))`` in ``v``'s own precision (beta rounded to it), in one buffer."""
    if v.dtype.kind != "f":
        return v / (1.0 + np.exp(-beta * v))
    gate = np.empty_like(v)
    _swish_into(v, beta, gate)
    return gate


def _swish_into(v: np.ndarray, beta: float, out: np.ndarray) -> None:
    """:func:`_swish` into ``out`` (``v`` itself too: then the gate takes a scratch buffer)."""
    gate = np.empty_like(v) if np.may_share_memory(v, out) else out
    np.multiply(v, v.dtype.type(-beta), out=gate)
    np.exp(gate, out=gate)
    np.add(gate, v.dtype.type(1.0), out=gate)
    np.divide(v, gate, out=out)


class HSwish(UnaryElementwise):
    """HSwish-4: ``x * min(max(x + 3, 0), 6) / 6``, as OpenVINO's reference computes it: in f32 for
    f32/f16/bf16 (four roundings: add, clamp, multiply, divide), f64 exactly. OpenVINO CPU's
    rounding (oneDNN's hardswish) is the ``openvino-cpu`` numerics profile's
    (graphir.numerics.openvino_cpu.hard_activations)."""

    type_name: ClassVar[str] = "HSwish"
    version: ClassVar[str] = "opset4"

    def real_kernel(self, dtype: np.dtype) -> Any:
        return _hswish_f32 if dtype == np.float32 else None

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        if node.inputs[0].element_type == ElementType.f32:
            return prepared_f32_activation(node, _hswish_into, self.evaluate)
        return super().prepare(node)

    def compute(self, x: np.ndarray) -> np.ndarray:
        if x.dtype == np.float64 or np.issubdtype(x.dtype, np.integer):
            return compute_real(x, lambda v: v * np.clip(v + 3.0, 0.0, 6.0) / 6.0, integer="round")
        return compute_real(x, _hswish_f32)


def _hswish_f32(v: np.ndarray) -> np.ndarray:
    """``v * clip(v + 3, 0, 6) / 6`` in ``v``'s precision (``clip`` keeps a NaN, as std::max/min
    of OpenVINO's reference do when the NaN comes first)."""
    out = np.empty_like(v)
    _hswish_into(v, out)
    return out


def _hswish_into(v: np.ndarray, out: np.ndarray) -> None:
    """:func:`_hswish_f32` into ``out`` (``v`` itself too: then the gate takes a scratch buffer)."""
    f = v.dtype.type
    gate = np.empty_like(v) if np.may_share_memory(v, out) else out
    np.add(v, f(3), out=gate)
    clip(gate, f(0), f(6), out=gate)
    np.multiply(v, gate, out=out)
    np.divide(out, f(6), out=out)


class HSigmoid(UnaryElementwise):
    """HSigmoid-5: ``min(max(x + 3, 0), 6) / 6``, as OpenVINO's reference computes it: in f32 for
    f32/f16/bf16, f64 exactly. OpenVINO CPU's rounding (times 1/6 rounded down) is the
    ``openvino-cpu`` numerics profile's (graphir.numerics.openvino_cpu.hard_activations)."""

    type_name: ClassVar[str] = "HSigmoid"
    version: ClassVar[str] = "opset5"

    def real_kernel(self, dtype: np.dtype) -> Any:
        return _hsigmoid_f32 if dtype == np.float32 else None

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        if node.inputs[0].element_type == ElementType.f32:
            return prepared_f32_activation(node, _hsigmoid_into, self.evaluate)
        return super().prepare(node)

    def compute(self, x: np.ndarray) -> np.ndarray:
        if x.dtype == np.float64 or np.issubdtype(x.dtype, np.integer):
            return compute_real(x, lambda v: np.clip(v + 3.0, 0.0, 6.0) / 6.0, integer="round")
        return compute_real(x, _hsigmoid_f32)


def _hsigmoid_f32(v: np.ndarray) -> np.ndarray:
    """``clip(v + 3, 0, 6) / 6`` in ``v``'s precision, in one output buffer."""
    out = np.empty_like(v)
    _hsigmoid_into(v, out)
    return out


def _hsigmoid_into(v: np.ndarray, out: np.ndarray) -> None:
    """:func:`_hsigmoid_f32` into ``out`` (``v`` itself too: ``v`` is read by the first pass only)."""
    f = v.dtype.type
    np.add(v, f(3), out=out)
    clip(out, f(0), f(6), out=out)
    np.divide(out, f(6), out=out)


class SoftPlus(UnaryElementwise):
    """SoftPlus-4: ``ln(1 + exp(x))``, computed without overflow."""

    type_name: ClassVar[str] = "SoftPlus"
    version: ClassVar[str] = "opset4"

    def check_element_type(self, t: TensorType) -> None:
        _require_real(self, t, f"Input element type must be float. Got: {t.element_type}")

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, lambda v: np.logaddexp(0.0, v))


class Mish(UnaryElementwise):
    """Mish-4: ``x * tanh(softplus(x))``."""

    type_name: ClassVar[str] = "Mish"
    version: ClassVar[str] = "opset4"

    def check_element_type(self, t: TensorType) -> None:
        _require_real(self, t, f"Element must be of floating point type, Got: {t.element_type}")

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, lambda v: v * np.tanh(np.logaddexp(0.0, v)))


class Elu(UnaryElementwise):
    """Elu-1: ``x`` for x > 0, else ``alpha * (exp(x) - 1)``."""

    type_name: ClassVar[str] = "Elu"
    rejected: ClassVar[tuple[ElementType, ...]] = (ElementType.string,)

    alpha: float

    def compute(self, x: np.ndarray) -> np.ndarray:
        a = self.alpha
        return compute_real(x, lambda v: np.where(v > 0, v, a * np.expm1(np.minimum(v, 0.0))))


class Clamp(UnaryElementwise):
    """Clamp-1: values into ``[min, max]``; integer inputs use ``ceil(min)`` and ``floor(max)``."""

    type_name: ClassVar[str] = "Clamp"

    min: float
    max: float

    def check_element_type(self, t: TensorType) -> None:
        if t.element_type in (ElementType.boolean, ElementType.string):
            raise self.fail(f"Input element type must be numeric. Got: {t.element_type} (input 0 is {t})")
        if self.min > self.max:
            raise self.fail(
                f"Attribute 'min' must be less or equal than 'max'. Got: {self.min:g} and {self.max:g}"
            )

    def compute(self, x: np.ndarray) -> np.ndarray:
        if np.issubdtype(x.dtype, np.integer):
            info = np.iinfo(x.dtype)
            lo = info.min if self.min == -math.inf else int(np.clip(math.ceil(self.min), info.min, info.max))
            hi = info.max if self.max == math.inf else int(np.clip(math.floor(self.max), info.min, info.max))
            return np.clip(x, np.asarray(lo, x.dtype), np.asarray(hi, x.dtype))
        return compute_real(x, lambda v: np.clip(v, self.min, self.max))

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        if node.inputs[0].element_type != ElementType.f32:
            return super().prepare(node)
        lo, hi = self.min, self.max  # rounded to f32 by numpy as in compute (python floats are weak)
        return prepared_f32_activation(node, lambda v, out: clip(v, lo, hi, out=out), self.evaluate)


class PRelu(Op):
    """PRelu-1: ``x`` where x >= 0, else ``slope * x``. A 1-D slope as long as the channel dim
    (dim 1) applies per channel; otherwise it broadcasts numpy-style. OpenVINO checks no shapes:
    the output is the data's type and shape."""

    type_name: ClassVar[str] = "PRelu"
    version: ClassVar[str] = "opset1"
    serialized_type_names: ClassVar[dict[str, str]] = {"ir": "PReLU"}
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("slope"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        x = inputs[0]
        return [TensorType(x.element_type, x.shape, fold(self, inputs, x.shape, x.element_type))]

    def evaluate(self, x: np.ndarray, slope: np.ndarray) -> list[np.ndarray]:
        x, slope = np.asarray(x), np.asarray(slope)
        if slope.ndim == 1 and x.ndim >= 2 and slope.shape[0] == x.shape[1] and slope.shape[0] != 1:
            slope = slope.reshape((1, -1) + (1,) * (x.ndim - 2))
        try:
            shaped = np.broadcast_to(slope, x.shape)
        except ValueError:
            raise self.fail(
                f"slope of shape {list(slope.shape)} does not broadcast to data of shape {list(x.shape)}"
            ) from None
        with np.errstate(all="ignore"):
            out = np.where(x < 0, x * shaped.astype(x.dtype), x)
        return [out.astype(x.dtype, copy=False)]


# --- softmax family --------------------------------------------------------------------------
def _softmax(x: np.ndarray, axis: int, log: bool) -> np.ndarray:
    def fn(v: np.ndarray) -> np.ndarray:
        if v.size == 0:
            return v
        shifted = v - np.max(v, axis=axis, keepdims=True)
        total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
        return shifted - np.log(total) if log else np.exp(shifted) / total

    if x.dtype == np.float16 and not log:  # each step rounded to f16, as ONNX's reference computes it
        with np.errstate(all="ignore"):
            return np.asarray(fn(x), dtype=np.float16)
    return compute_real(x, fn)


def prepared_softmax(node: NodeSignature, axis: int, generic: Callable[..., list[np.ndarray]]
                     ) -> Callable[..., list[np.ndarray]]:
    """Softmax of f32/f64 inputs of rank >= 1 along a known axis: :func:`_softmax`'s operations
    with its exponentials computed once (it computes them twice, for the sum and the quotient)
    and the quotient written into them: the same bits, one exp pass less (SSDlite's
    ``[1, 3234, 91]`` scores: ~0.85 -> ~0.55 ms)."""
    et, shape = node.inputs[0].element_type, node.inputs[0].shape
    if et not in (ElementType.f32, ElementType.f64) or not shape.rank_is_static or len(shape) == 0:
        return generic
    dtype = np.dtype(et.numpy_dtype)
    axis %= len(shape)
    top, add = np.maximum.reduce, np.add.reduce

    def softmax(x: np.ndarray) -> list[np.ndarray]:
        if x.dtype != dtype or x.size == 0:
            return [np.array(generic(x)[0], copy=True)]  # (the generic form hands back an empty x itself)
        exps = np.subtract(x, top(x, axis=axis, keepdims=True))  # np.max and np.sum without their Python layers
        np.exp(exps, out=exps)
        total = add(exps, axis=axis, keepdims=True)
        return [np.divide(exps, total, out=exps)]

    return fresh_output(softmax)


class _AxisSoftmax(Op):
    """Softmax-8 / LogSoftmax-5: ``axis`` in ``[-rank, rank - 1]``."""

    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    log: ClassVar[bool] = False

    axis: int = 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        x = inputs[0]
        self.normalized_axis(x.shape)
        return [TensorType(x.element_type, x.shape, fold(self, inputs, x.shape, x.element_type))]

    def normalized_axis(self, shape: PartialShape) -> int | None:
        if shape.rank_is_dynamic:
            return None
        rank = len(shape)
        if not -rank <= self.axis < max(rank, 1) or (rank == 0 and self.axis not in (0, -1)):
            raise self.fail(
                f"Axis {self.axis} out of the tensor rank range [{-rank}, {rank - 1}] "
                f"(input 0 ('data') shape {shape})"
            )
        return self.axis % rank if rank else 0

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        if x.ndim == 0:
            return [_softmax(x.reshape(1), 0, self.log).reshape(())]
        return [_softmax(x, self.axis % x.ndim, self.log)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        return self.evaluate if self.log else prepared_softmax(node, self.axis, self.evaluate)


class Softmax(Op):
    """Softmax-1: ``axis`` in ``[0, rank - 1]`` (no negative axes)."""

    type_name: ClassVar[str] = "Softmax"
    version: ClassVar[str] = "opset1"
    serialized_type_names: ClassVar[dict[str, str]] = {"ir": "SoftMax"}
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    axis: int = 1

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        x = inputs[0]
        if self.axis < 0:
            raise self.fail(f"Softmax-1 takes no negative axis (axis {self.axis}); use Softmax-8")
        if x.shape.rank_is_static and self.axis >= max(len(x.shape), 1):
            raise self.fail(
                f"Reduction axis ({self.axis}) is out of bounds (argument shape: {x.shape})."
            )
        return [TensorType(x.element_type, x.shape, fold(self, inputs, x.shape, x.element_type))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        if x.ndim == 0:
            return [_softmax(x.reshape(1), 0, False).reshape(())]
        return [_softmax(x, self.axis, False)]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        return prepared_softmax(node, self.axis, self.evaluate)


class Softmax8(_AxisSoftmax):
    type_name: ClassVar[str] = "Softmax"
    version: ClassVar[str] = "opset8"
    serialized_type_names: ClassVar[dict[str, str]] = {"ir": "SoftMax"}


class LogSoftmax(_AxisSoftmax):
    type_name: ClassVar[str] = "LogSoftmax"
    version: ClassVar[str] = "opset5"
    log: ClassVar[bool] = True
