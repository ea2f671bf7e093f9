"""OpenVINO binary elementwise ops (all opset1) and LogicalNot-1.

Integer semantics follow OpenVINO's reference evaluators (the ones constant folding uses):
arithmetic wraps around; Divide with ``m_pythondiv`` floors, without it truncates; Mod truncates
(C ``fmod``), FloorMod floors (Python ``%``); an integer division or modulo by zero is an error;
an integer Power with a negative exponent is ``pow`` in floating point truncated back (so 0 unless
the base is 1 or -1). The CPU plugin differs in places (it saturates i8/u8 and divides i32 through
floats): tests compare those cases against these exact values instead.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.errors import EvaluationError
from graphir.shapes import Dimension
from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.binary import (
    BinaryArithmetic,
    BinaryComparison,
    BinaryLogical,
    fold,
)


def _dim_rule(fn, static_only_rhs: bool = True, both_dims: bool = False):
    """A bounds rule: ints combine exactly; a Dimension combines with a non-negative int by
    ``fn`` on intervals (with ``both_dims``, two Dimensions too: a sum or product of lengths is a
    length); anything else is unknown (None)."""
    def rule(x: object, y: object) -> object:
        if isinstance(x, int) and isinstance(y, int):
            return fn(x, y)
        if both_dims and isinstance(x, Dimension) and isinstance(y, Dimension):
            return fn(x, y)
        if isinstance(x, Dimension) and isinstance(y, int) and y >= 0:
            return fn(x, y)
        if isinstance(y, Dimension) and isinstance(x, int) and x >= 0 and not static_only_rhs:
            return fn(y, x)
        return None

    return rule


def _dim_div(x, y):
    if isinstance(x, int):
        return x // y if y else None
    return x // y if y > 0 else None


def _interval_rule(fn):
    """A bounds rule for Minimum/Maximum: ints, intervals and non-negative ints in any mix."""
    base = _dim_rule(fn, static_only_rhs=False)

    def rule(x: object, y: object) -> object:
        if isinstance(x, Dimension) and isinstance(y, Dimension):
            return fn(x, y)
        return base(x, y)

    return rule


def _dim_max(x, y):
    if isinstance(x, int):
        return max(x, y)
    if isinstance(y, Dimension):  # two intervals (max(ShapeOf(a), ShapeOf(b)) in Swin v2)
        return Dimension(max(x.min, y.min), None if x.max is None or y.max is None else max(x.max, y.max))
    return Dimension(max(x.min, y), None if x.max is None else max(x.max, y))


def _dim_min(x, y):
    if isinstance(x, int):
        return min(x, y)
    if isinstance(y, Dimension):
        highs = [h for h in (x.max, y.max) if h is not None]
        return Dimension(min(x.min, y.min), min(highs) if highs else None)
    return Dimension(min(x.min, y), y if x.max is None else min(x.max, y))


def _subtract_bounds(x: object, y: object) -> object:
    """``x - y`` over shape values: exact on ints; an interval minus an int, or an int minus a bounded
    interval, when the result stays a length (>= 0); anything else unknown."""
    if isinstance(x, int) and isinstance(y, int):
        return x - y
    if isinstance(x, Dimension) and isinstance(y, int) and x.min - y >= 0:
        return Dimension(x.min - y, None if x.max is None else x.max - y)
    if isinstance(x, int) and isinstance(y, Dimension) and y.max is not None and x - y.max >= 0:
        return Dimension(x - y.max, x - y.min)
    return None


def _floor_mod_bounds(x: object, y: object) -> object:
    """``x mod y`` of a length by a positive int: the length itself below ``y``, else [0, y-1]
    (window padding in Swin: ``(7 - H % 7) % 7`` lies in [0, 6], as OpenVINO bounds it)."""
    if isinstance(x, int) and isinstance(y, int):
        return x % y if y else None
    if isinstance(x, Dimension) and isinstance(y, int) and y > 0:
        if x.max is not None and x.max < y:
            return x
        return Dimension(0, y - 1)
    return None


def _is_integer(a: np.ndarray) -> bool:
    return np.issubdtype(a.dtype, np.integer)


def _check_divisor(op: Op, b: np.ndarray) -> None:
    if np.any(b == 0):
        raise EvaluationError(f"{op.describe()}: integer division by zero (input 1 ('B') has a zero)")


# --- arithmetic ------------------------------------------------------------------------------
class Add(BinaryArithmetic):
    type_name: ClassVar[str] = "Add"
    bounds_rule: ClassVar[object] = staticmethod(_dim_rule(lambda x, y: x + y, static_only_rhs=False, both_dims=True))

    ufunc: ClassVar[np.ufunc | None] = np.add

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.add(a, b)


class Subtract(BinaryArithmetic):
    type_name: ClassVar[str] = "Subtract"
    bounds_rule: ClassVar[object] = staticmethod(_subtract_bounds)

    ufunc: ClassVar[np.ufunc | None] = np.subtract

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.subtract(a, b)


class Multiply(BinaryArithmetic):
    type_name: ClassVar[str] = "Multiply"
    bounds_rule: ClassVar[object] = staticmethod(_dim_rule(lambda x, y: x * y, static_only_rhs=False, both_dims=True))

    ufunc: ClassVar[np.ufunc | None] = np.multiply

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.multiply(a, b)


class Divide(BinaryArithmetic):
    """``m_pythondiv`` (default true): integer division floors (Python ``//``); false truncates."""

    type_name: ClassVar[str] = "Divide"
    bounds_rule: ClassVar[object] = staticmethod(_dim_rule(_dim_div))

    m_pythondiv: bool = True

    ufunc: ClassVar[np.ufunc | None] = np.divide
    ufunc_kinds: ClassVar[str] = "f"  # integer division has its own rounding rules

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if not _is_integer(a):
            return np.divide(a, b)
        _check_divisor(self, b)
        quotient = np.floor_divide(a, b)
        if not self.m_pythondiv:
            inexact = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
            quotient = quotient + inexact.astype(quotient.dtype)
        return quotient


class Power(BinaryArithmetic):
    type_name: ClassVar[str] = "Power"

    ufunc: ClassVar[np.ufunc | None] = np.power
    ufunc_kinds: ClassVar[str] = "f"  # integer powers have their own rule for negative exponents

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if not _is_integer(a):
            return np.power(a, b)
        negative = b < 0
        if not np.any(negative):
            return np.power(a, b)
        a, b = np.broadcast_arrays(a, b)
        out = np.power(a, np.where(negative, 0, b))
        # pow(x, -n) truncated: 1 for x == 1, +-1 for x == -1, 0 otherwise
        odd = (b % 2) != 0
        special = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(out.dtype)
        return np.where(negative, special, out)


class Maximum(BinaryArithmetic):
    type_name: ClassVar[str] = "Maximum"
    bounds_rule: ClassVar[object] = staticmethod(_interval_rule(_dim_max))

    ufunc: ClassVar[np.ufunc | None] = np.maximum

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.maximum(a, b)


class Minimum(BinaryArithmetic):
    type_name: ClassVar[str] = "Minimum"
    bounds_rule: ClassVar[object] = staticmethod(_interval_rule(_dim_min))

    ufunc: ClassVar[np.ufunc | None] = np.minimum

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.minimum(a, b)


class SquaredDifference(BinaryArithmetic):
    type_name: ClassVar[str] = "SquaredDifference"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        d = np.subtract(a, b)
        return np.multiply(d, d)


class FloorMod(BinaryArithmetic):
    """Remainder with the sign of the divisor (Python ``%``)."""

    type_name: ClassVar[str] = "FloorMod"
    bounds_rule: ClassVar[object] = staticmethod(_floor_mod_bounds)
    unbounded_is_unknown: ClassVar[bool] = False  # (7 - H % 7) % 7 in Swin: [0, 6] for any H, as in OpenVINO

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if _is_integer(a):
            _check_divisor(self, b)
        return np.mod(a, b)


class Mod(BinaryArithmetic):
    """Remainder with the sign of the dividend (C ``fmod``)."""

    type_name: ClassVar[str] = "Mod"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if _is_integer(a):
            _check_divisor(self, b)
        return np.fmod(a, b)


# --- comparison ------------------------------------------------------------------------------
def _equal_bounds(x: object, y: object) -> int | None:
    """1 or 0 when the elements' intervals decide equality (two equal known values; disjoint
    intervals: a length against -1, torch's ``expand`` pattern ``Where(Equal(shape, -1), 1, shape)``),
    else None (OpenVINO's bounds give the same answer there)."""
    from graphir.ops.openvino import shape_values as sv

    (a_lo, a_hi), (b_lo, b_hi) = sv.as_interval(x), sv.as_interval(y)  # type: ignore[arg-type]
    if a_lo == a_hi == b_lo == b_hi:
        return 1
    if (a_hi is not None and a_hi < b_lo) or (b_hi is not None and b_hi < a_lo):
        return 0
    return None


def _not_equal_bounds(x: object, y: object) -> int | None:
    equal = _equal_bounds(x, y)
    return None if equal is None else 1 - equal


class Equal(BinaryComparison):
    type_name: ClassVar[str] = "Equal"
    ufunc: ClassVar[np.ufunc | None] = np.equal
    bounds_rule: ClassVar[object] = staticmethod(_equal_bounds)
    unbounded_is_unknown: ClassVar[bool] = False

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.equal(a, b)


class NotEqual(BinaryComparison):
    type_name: ClassVar[str] = "NotEqual"
    ufunc: ClassVar[np.ufunc | None] = np.not_equal
    bounds_rule: ClassVar[object] = staticmethod(_not_equal_bounds)
    unbounded_is_unknown: ClassVar[bool] = False

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.not_equal(a, b)


class Less(BinaryComparison):
    type_name: ClassVar[str] = "Less"
    ufunc: ClassVar[np.ufunc | None] = np.less

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.less(a, b)


class LessEqual(BinaryComparison):
    type_name: ClassVar[str] = "LessEqual"
    ufunc: ClassVar[np.ufunc | None] = np.less_equal

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.less_equal(a, b)


class Greater(BinaryComparison):
    type_name: ClassVar[str] = "Greater"
    ufunc: ClassVar[np.ufunc | None] = np.greater

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.greater(a, b)


class GreaterEqual(BinaryComparison):
    type_name: ClassVar[str] = "GreaterEqual"
    ufunc: ClassVar[np.ufunc | None] = np.greater_equal

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.greater_equal(a, b)


# --- logical ---------------------------------------------------------------------------------
class LogicalAnd(BinaryLogical):
    type_name: ClassVar[str] = "LogicalAnd"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.logical_and(a, b)


class LogicalOr(BinaryLogical):
    type_name: ClassVar[str] = "LogicalOr"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.logical_or(a, b)


class LogicalXor(BinaryLogical):
    type_name: ClassVar[str] = "LogicalXor"

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.logical_xor(a, b)


class LogicalNot(Op):
    """Negation; OpenVINO 2026 accepts any element type and keeps it (``!x`` as 0/1 of that type)."""

    type_name: ClassVar[str] = "LogicalNot"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("arg"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        t = inputs[0]
        return [TensorType(t.element_type, t.shape, fold(self, inputs, t.shape, t.element_type))]

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.asarray(x)
        return [np.logical_not(x).astype(x.dtype, copy=False)]
