"""OpenVINO ``Convert-1`` (attribute ``destination_type``) and ``ConvertLike-1``.

Conversions follow OpenVINO 2026's reference (which the CPU plugin agrees with, measured in
tests/ops/test_shape_ops.py): real to integer truncates toward zero through a 32-bit integer and
then wraps into narrower types (300.7 -> i8 is 44, -1.7 -> u8 is 255); NaN/inf into an integer
gives that 32/64-bit conversion's "indefinite" value (INT_MIN, so 0 after wrapping into 8/16 bits);
integer to narrower integer wraps; anything to boolean is ``x != 0`` (NaN is true).
``nf4`` data holds 4-bit codes; converting it decodes each code through :data:`NF4_TABLE` (checked
against OpenVINO's Convert of every code in tests/test_weight_decompression.py).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

import functools
import math
from collections.abc import Callable

from graphir.ops.base import NodeSignature, Op, Port, TensorType
from graphir.ops.openvino.binary import FOLD_LIMIT, fold
from graphir.ops.openvino import shape_values
from graphir.types import ElementType


#: the value of each nf4 code 0..15 (OpenVINO's ConvertNF4 table, the QLoRA NormalFloat4 levels)
NF4_TABLE = np.array([
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
    -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
    0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
    0.7229568362236023, 1.0], dtype=np.float32)


def decode_nf4(codes: np.ndarray) -> np.ndarray:
    """nf4 codes (0..15) as their f32 values."""
    return NF4_TABLE[np.asarray(codes, dtype=np.uint8) & 0xF]


def convert_array(x: np.ndarray, dst: ElementType, src: ElementType | None = None) -> np.ndarray:
    """``x`` converted to element type ``dst`` with OpenVINO's rules (see the module doc);
    ``src`` nf4 decodes the codes in ``x`` first."""
    x = np.asarray(x)
    if src is ElementType.nf4 and dst is not ElementType.nf4:
        x = decode_nf4(x)
    dtype = dst.numpy_dtype
    if dst is ElementType.boolean:
        return x != 0
    if dst.is_integral_number and x.dtype.kind == "f" or (x.dtype.kind == "V" and dst.is_integral_number):
        return _real_to_integer(x.astype(np.float64), dst)
    if not np.issubdtype(x.dtype, np.number) and x.dtype != np.bool_:
        x = x.astype(np.float32)  # ml_dtypes reals (bf16, f8): through f32
    with np.errstate(all="ignore"):
        return x.astype(dtype)


def _real_to_integer(x: np.ndarray, dst: ElementType) -> np.ndarray:
    wide = dst.bitwidth == 64
    via, lo, hi = (np.int64, -(2.0**63), 2.0**63) if wide or dst is ElementType.u32 else (np.int32, -(2.0**31), 2.0**31)
    t = np.trunc(x)
    bad = ~np.isfinite(t) | (t < lo) | (t >= hi)
    ints = np.where(bad, 0, t).astype(via)
    if np.any(bad):
        ints = np.where(bad, np.iinfo(via).min, ints)
    if dst.is_sub_byte:
        return (ints.astype(np.int64) & ((1 << dst.bitwidth) - 1)).astype(np.int64).astype(dst.numpy_dtype)
    return ints.astype(dst.numpy_dtype)


class Convert(Op):
    type_name: ClassVar[str] = "Convert"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("arg"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    destination_type: ElementType

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [_converted(self, inputs, self.destination_type)]

    def evaluate(self, x: np.ndarray, *, source: ElementType | None = None) -> list[np.ndarray]:
        return [convert_array(x, self.destination_type, source)]

    def specialize(self, inputs: list[TensorType]) -> Callable[..., list[np.ndarray]]:
        """The evaluate a run plan uses: nf4 input arrays hold codes, so the plan passes the type."""
        if inputs and inputs[0].element_type is ElementType.nf4:
            return functools.partial(self.evaluate, source=ElementType.nf4)
        return self.evaluate

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """Between plain numpy types (bool, integers, f16/f32/f64), except real to integer (its own
        rules) and to boolean: the one ``astype`` :func:`convert_array` ends in."""
        generic = self.specialize(node.inputs)
        try:
            source = np.dtype(node.inputs[0].element_type.numpy_dtype)
            target = np.dtype(self.destination_type.numpy_dtype)
        except (TypeError, ValueError, AttributeError):
            return generic
        if (node.inputs[0].element_type.is_dynamic or self.destination_type.is_dynamic
                or node.inputs[0].element_type is ElementType.nf4 or self.destination_type is ElementType.boolean
                or source.kind not in "biuf" or target.kind not in "iuf" or (target.kind in "iu" and source.kind == "f")
                or self.destination_type.is_sub_byte or node.inputs[0].element_type.is_sub_byte):
            return generic

        def convert(x: np.ndarray) -> list[np.ndarray]:
            return [x.astype(target)] if x.dtype == source else generic(x)

        return convert


class ConvertLike(Op):
    """Converts ``data`` to the element type of ``like`` (whose values are not read)."""

    type_name: ClassVar[str] = "ConvertLike"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("like"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [_converted(self, inputs[:1], inputs[1].element_type, inputs)]

    def evaluate(self, x: np.ndarray, like: np.ndarray) -> list[np.ndarray]:
        like = np.asarray(like)
        return [convert_array(x, ElementType.from_numpy(like.dtype))]


def _converted(op: Op, data: list[TensorType], et: ElementType, all_inputs: list[TensorType] | None = None) -> TensorType:
    x = data[0]
    if et.is_dynamic:
        return TensorType(et, x.shape)
    if x.value is not None:
        value = _widened(x, et)
        if value is None:
            value = fold(_Bound(op, et, x.element_type), data, x.shape, et)
        return TensorType(et, x.shape, value)
    items = shape_values.elements(x)
    if items is not None and et.is_integral_number and x.element_type.is_integral_number:
        # an unknown dim stays the same unknown: it fits any integer type shape subgraphs use
        return shape_values.make(et, x.shape, items)
    return TensorType(et, x.shape)


def _widened(x: TensorType, et: ElementType) -> np.ndarray | None:
    """The folded value of a conversion that is exact and raises nothing (f16 -> f32 weights, i32
    -> i64 shapes: a wider float, a wider integer of the same signedness, unsigned into a wider
    signed integer), what :func:`fold` gives through :func:`convert_array`, in one ``astype``
    (a read folds hundreds of decompression Converts); None for every other case."""
    value = x.value
    if (type(value) is not np.ndarray or et.is_sub_byte or x.element_type.is_sub_byte
            or x.element_type is ElementType.nf4 or not x.shape.is_static
            or math.prod(x.shape.to_shape()) > FOLD_LIMIT):
        return None
    source, target = value.dtype, np.dtype(et.numpy_dtype)
    if target.itemsize <= source.itemsize:
        return None
    if (source.kind == target.kind and source.kind in "fiu") or (source.kind == "u" and target.kind == "i"):
        return value.astype(target)
    return None


class _Bound:
    """Adapter so :func:`fold` evaluates a conversion to ``et`` on one input."""

    def __init__(self, op: Op, et: ElementType, src: ElementType | None = None) -> None:
        self.op, self.et, self.src = op, et, src

    def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
        return [convert_array(x, self.et, self.src)]
