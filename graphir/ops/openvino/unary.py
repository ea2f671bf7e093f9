"""OpenVINO unary elementwise math: Abs, Negative, Floor, Ceiling, Round-5, Sign, Exp, Log, Sqrt,
Erf, Tanh, Sigmoid and the trigonometric family.

They share :class:`UnaryElementwise`: the output has the input's element type and shape; boolean
(and string) inputs are rejected with OpenVINO's message. Real inputs below f32 are computed in f32
and rounded back. Integer inputs are computed in f64 and converted back as OpenVINO's reference
evaluators do: truncated (``static_cast``), or rounded where the reference rounds (Tanh, Erf,
Sqrt); tests/ops/test_unary.py pins each against OpenVINO's reference evaluator.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, ClassVar, Literal

import numpy as np

from graphir.ops.base import NodeSignature, Op, Port, TensorType, writes_into
from graphir.ops.openvino.binary import fold
from graphir.types import ElementType

_NO_BOOLEAN = (ElementType.boolean, ElementType.string)
#: the input types compute_real computes in their own precision
_REAL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def compute_real(x: np.ndarray, fn, integer: str = "trunc") -> np.ndarray:
    """``fn`` over ``x`` in a precision that suits its dtype; the result keeps ``x``'s dtype.

    ``integer``: how an integer input's real result goes back ("trunc" or "round").
    """
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if np.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_:
            y = np.asarray(fn(x.astype(np.float64)))
            if integer == "round":
                y = np.round(y)
            return _to_integer(y, x.dtype)
        if x.dtype in (np.float32, np.float64):
            return np.asarray(fn(x), dtype=x.dtype)
        return np.asarray(fn(x.astype(np.float32))).astype(x.dtype)


def _to_integer(y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Truncate a real result into an integer type; NaN/inf/out-of-range map to the type's
    minimum, as x86's conversion gives (OpenVINO: Log/Sqrt of negative integers)."""
    if dtype == np.bool_:
        return y != 0
    info = np.iinfo(dtype)
    bad = ~np.isfinite(y) | (y < info.min) | (y > info.max)
    safe = np.where(bad, 0, np.trunc(y))
    out = safe.astype(dtype)
    if np.any(bad):
        out = np.where(bad, np.asarray(info.min if info.min < 0 else 0, dtype), out)
        if info.min == 0:  # a negative result wraps into an unsigned type (Cos/Tan of u32: -1 -> 2^32-1)
            wraps = np.isfinite(y) & (y < 0) & (y >= -2.0 ** 63)
            if np.any(wraps):
                out = np.where(wraps, np.where(wraps, np.trunc(y), 0).astype(np.int64).astype(dtype), out)
    return out


@functools.cache
def _scipy_erf() -> Callable[[np.ndarray], np.ndarray] | None:
    """scipy's erf ufunc, imported on first use (not with graphir), or None without scipy."""
    try:
        from scipy.special import erf as scipy_erf
    except ImportError:  # pragma: no cover - scipy is present where the tests run
        return None
    return scipy_erf  # type: ignore[no-any-return]


def erf(x: np.ndarray) -> np.ndarray:
    """The error function in float64 (scipy when installed, else ``math.erf`` per element)."""
    scipy_erf = _scipy_erf()
    if scipy_erf is None:  # pragma: no cover - scipy is present where the tests run
        x64 = np.asarray(x, dtype=np.float64)
        return np.vectorize(math.erf, otypes=[np.float64])(x64) if x64.size else x64
    return scipy_erf(np.asarray(x, dtype=np.float64))


class UnaryElementwise(Op):
    """One input, same type and shape out; no boolean inputs (OpenVINO's arithmetic unary rule)."""

    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("arg"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)
    #: element types rejected with "This operation does not support input with element type"
    rejected: ClassVar[tuple[ElementType, ...]] = _NO_BOOLEAN

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        t = inputs[0]
        self.check_element_type(t)
        return [TensorType(t.element_type, t.shape, fold(self, inputs, t.shape, t.element_type))]

    def check_element_type(self, t: TensorType) -> None:
        if t.element_type in self.rejected:
            raise self.fail(
                f"This operation does not support input with element type: {t.element_type} "
                f"(input 0 ('arg') is {t})"
            )

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        return [self.compute(np.asarray(x))]

    def compute(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    #: what ``compute`` applies to f32 and f64 inputs through :func:`compute_real` (for ``prepare``)
    real_fn: ClassVar[Callable[[np.ndarray], Any] | None] = None

    def real_kernel(self, dtype: np.dtype) -> Callable[[np.ndarray], Any] | None:
        """The function ``compute`` applies to inputs of ``dtype`` through :func:`compute_real` (its
        result cast to ``dtype``), or None when ``compute`` does something else for that type."""
        fn = type(self).real_fn
        return fn if fn is not None and dtype in _REAL_DTYPES else None

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """A real input with a :meth:`real_kernel`: that function and the cast ``compute_real``
        makes, without ``evaluate``'s layers (a run plan ignores floating-point warnings already)."""
        et = node.inputs[0].element_type
        if et not in (ElementType.f32, ElementType.f64):
            return self.evaluate
        dtype = np.dtype(et.numpy_dtype)
        kernel, generic = self.real_kernel(dtype), self.evaluate
        if kernel is None:
            return generic

        def unary(x: np.ndarray) -> list[np.ndarray]:
            if x.dtype != dtype:
                return generic(x)
            return [np.asarray(kernel(x), dtype=dtype)]

        if not isinstance(kernel, np.ufunc):
            return unary
        ufunc = kernel

        def into_input(x: np.ndarray) -> list[np.ndarray]:  # x: a fresh array only this step reads
            if x.dtype != dtype:
                return generic(x)
            return [ufunc(x, out=x)]

        return writes_into(unary, into_input)


class Abs(UnaryElementwise):
    type_name: ClassVar[str] = "Abs"

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.abs(x) if not np.issubdtype(x.dtype, np.unsignedinteger) else x.copy()


class Negative(UnaryElementwise):
    type_name: ClassVar[str] = "Negative"

    def compute(self, x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            if np.issubdtype(x.dtype, np.unsignedinteger):
                return (np.zeros((), x.dtype) - x).astype(x.dtype)
            return np.negative(x)


class Floor(UnaryElementwise):
    type_name: ClassVar[str] = "Floor"

    def compute(self, x: np.ndarray) -> np.ndarray:
        return x.copy() if np.issubdtype(x.dtype, np.integer) else compute_real(x, np.floor)


class Ceiling(UnaryElementwise):
    type_name: ClassVar[str] = "Ceiling"

    def compute(self, x: np.ndarray) -> np.ndarray:
        return x.copy() if np.issubdtype(x.dtype, np.integer) else compute_real(x, np.ceil)


class Round(UnaryElementwise):
    """Round-5: ``half_to_even`` (banker's) or ``half_away_from_zero``; integers unchanged."""

    type_name: ClassVar[str] = "Round"
    version: ClassVar[str] = "opset5"
    rejected: ClassVar[tuple[ElementType, ...]] = (ElementType.string,)

    mode: Literal["half_to_even", "half_away_from_zero"] = "half_to_even"

    def compute(self, x: np.ndarray) -> np.ndarray:
        if np.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_:
            return x.copy()
        if self.mode == "half_to_even":
            return compute_real(x, np.round)
        return compute_real(x, lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5))


class Sign(UnaryElementwise):
    type_name: ClassVar[str] = "Sign"

    def compute(self, x: np.ndarray) -> np.ndarray:
        return np.sign(x).astype(x.dtype)


class Exp(UnaryElementwise):
    type_name: ClassVar[str] = "Exp"
    real_fn: ClassVar[Callable[[np.ndarray], Any] | None] = np.exp

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, np.exp)


class Log(UnaryElementwise):
    type_name: ClassVar[str] = "Log"
    real_fn: ClassVar[Callable[[np.ndarray], Any] | None] = np.log

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, np.log)


class Sqrt(UnaryElementwise):
    type_name: ClassVar[str] = "Sqrt"
    real_fn: ClassVar[Callable[[np.ndarray], Any] | None] = np.sqrt

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, np.sqrt, integer="round")


class Erf(UnaryElementwise):
    type_name: ClassVar[str] = "Erf"
    real_fn: ClassVar[Callable[[np.ndarray], Any] | None] = staticmethod(erf)

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, erf, integer="round")


class Tanh(UnaryElementwise):
    type_name: ClassVar[str] = "Tanh"
    real_fn: ClassVar[Callable[[np.ndarray], Any] | None] = np.tanh

    def compute(self, x: np.ndarray) -> np.ndarray:
        return compute_real(x, np.tanh, integer="round")


def logistic(v: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-v))`` in f64: within an ulp or two of f64 everywhere (``exp(-v)`` overflows to
    inf below -709, giving 0; the ``tanh`` form loses the small values' relative precision)."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-np.asarray(v, np.float64)))


class Sigmoid(UnaryElementwise):
    """``1 / (1 + exp(-x))``; integers as the reference computes them, in integer arithmetic
    (``exp(-x)`` truncated, then an integer division): 1 for x > 0, else 0. Real types: the
    logistic computed in f64 and rounded once to the input type. OpenVINO
    CPU's f32 rounding (oneDNN's JIT exp) is the ``openvino-cpu`` numerics profile
    (graphir.numerics.openvino_cpu.sigmoid)."""

    type_name: ClassVar[str] = "Sigmoid"
    real_fn: ClassVar[Callable[[np.ndarray], Any] | None] = logistic

    def compute(self, x: np.ndarray) -> np.ndarray:
        if np.issubdtype(x.dtype, np.integer):
            return (x > 0).astype(x.dtype)
        return compute_real(x, logistic)


# --- trigonometric family: converters emit Sin/Cos for rotary embeddings, the rest for ONNX ---
def _trig(name: str, fn, version: str = "opset1", integer: str = "round") -> type[UnaryElementwise]:
    def compute(self: UnaryElementwise, x: np.ndarray) -> np.ndarray:
        return compute_real(x, fn, integer=integer)

    cls = type(name, (UnaryElementwise,), {
        "__module__": __name__,
        "__doc__": f"OpenVINO {name}-{version[5:]}: elementwise {fn.__name__}.",
        "__annotations__": {"type_name": ClassVar[str], "version": ClassVar[str], "real_fn": ClassVar[Any]},
        "type_name": name,
        "version": version,
        "compute": compute,
        "real_fn": fn,
    })
    return cls  # type: ignore[return-value]


Sin = _trig("Sin", np.sin, integer="trunc")  # the reference truncates Sin and Asin only
Cos = _trig("Cos", np.cos)
Tan = _trig("Tan", np.tan)
Asin = _trig("Asin", np.arcsin, integer="trunc")
Acos = _trig("Acos", np.arccos)
Atan = _trig("Atan", np.arctan)
Sinh = _trig("Sinh", np.sinh)
Cosh = _trig("Cosh", np.cosh)
Asinh = _trig("Asinh", np.arcsinh, "opset4")
Acosh = _trig("Acosh", np.arccosh, "opset4")


class Atanh(UnaryElementwise):
    """OpenVINO Atanh-4. Integers saturate by sign, as OpenVINO's reference does: 0 stays 0, any
    positive value gives the type's maximum and any negative one its minimum (atanh(1) = inf;
    beyond 1 it is NaN)."""

    type_name: ClassVar[str] = "Atanh"
    version: ClassVar[str] = "opset4"

    def compute(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        if np.issubdtype(x.dtype, np.integer):
            info = np.iinfo(x.dtype)
            return np.where(x > 0, info.max, np.where(x < 0, info.min, 0)).astype(x.dtype)
        return compute_real(x, np.arctanh, integer="round")


class Identity(Op):
    """Identity-16: a copy of its input (any type)."""

    type_name: ClassVar[str] = "Identity"
    version: ClassVar[str] = "opset16"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        t = inputs[0]
        return [TensorType(t.element_type, t.shape, t.value, t.bounds)]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        return [np.array(x, copy=True)]
