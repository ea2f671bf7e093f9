"""OpenVINO ConvertPromoteTypes-14: both inputs converted to one common element type.

The rules (OpenVINO's, after PyTorch and TensorFlow's numpy mode): boolean gives way to anything;
real beats integer (safely only when the real type is at least twice the integer's width); mixed
signedness goes to a signed integer twice the unsigned width (u64: ``u64_integer_promotion_target``,
unsafe only); same kind and sign: the wider; ``pytorch_scalar_promotion`` lets a tensor's type win
over a scalar's of the same kind; f8e4m3+f8e5m2 (f16) and f16+bf16 (f32) only when unsafe.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType
from graphir.ops.openvino.conversion import convert_array
from graphir.types import ElementType

_SUPPORTED = {ElementType.parse(n) for n in ("dynamic", "boolean", "f16", "f32", "f64", "i4", "i8", "i16", "i32",
                                             "i64", "u1", "u4", "u8", "u16", "u32", "u64", "f8e4m3", "f8e5m2",
                                             "bf16")}
_SIGNED_BY_WIDTH = {4: "i4", 8: "i8", 16: "i16", 32: "i32", 64: "i64"}


def _is_scalar(t: TensorType) -> bool:
    return t.shape.rank_is_static and t.shape.is_static and len(t.shape) == 0


class ConvertPromoteTypes(Op):
    """ConvertPromoteTypes-14: two outputs, each input converted to the common type (shapes kept)."""

    type_name: ClassVar[str] = "ConvertPromoteTypes"
    version: ClassVar[str] = "opset14"
    inputs: ClassVar[tuple[Port, ...]] = (Port("input_0"), Port("input_1"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output_0"), Port("output_1"))

    promote_unsafe: bool = False
    pytorch_scalar_promotion: bool = False
    u64_integer_promotion_target: ElementType = ElementType.f32

    def common_type(self, a: TensorType, b: TensorType) -> ElementType:
        t0, t1 = a.element_type, b.element_type
        if t0 not in _SUPPORTED or t1 not in _SUPPORTED:
            raise self.fail(f"unsupported input element types {t0} and {t1}")
        if t0.is_dynamic or t1.is_dynamic:
            return ElementType.dynamic
        if t0 == t1:
            return t0
        if t0 is ElementType.boolean:
            return t1
        if t1 is ElementType.boolean:
            return t0
        unsafe = self.promote_unsafe
        if t0.is_real != t1.is_real:
            real, integer = (t0, t1) if t0.is_real else (t1, t0)
            if not unsafe and real.bitwidth < 2 * integer.bitwidth:
                raise self.fail(f"Integer input cannot be safely promoted to floating-point ({t0}, {t1}).")
            return real
        s0, s1 = _is_scalar(a), _is_scalar(b)
        if self.pytorch_scalar_promotion and s0 != s1:
            target, scalar = (t1, t0) if s0 else (t0, t1)
            if unsafe:
                return target
            ok = (target.is_signed == scalar.is_signed and target.bitwidth >= scalar.bitwidth) or \
                 (target.is_signed and not scalar.is_signed and target.bitwidth * 2 >= scalar.bitwidth)
            if not ok:
                raise self.fail(f"Scalar input cannot be PyTorch-like aligned using safe promotion rules ({t0}, {t1}).")
            return target
        if t0.is_signed != t1.is_signed:
            unsigned, signed = (t1, t0) if t0.is_signed else (t0, t1)
            if unsigned.bitwidth <= 32 and (unsafe or unsigned.bitwidth * 2 <= signed.bitwidth):
                return ElementType.parse(_SIGNED_BY_WIDTH[max(unsigned.bitwidth * 2, signed.bitwidth)])
            if not unsafe:
                raise self.fail(f"Unsigned integer input cannot be safely promoted into any supported signed "
                                f"integer ({t0}, {t1}).")
            return self.u64_integer_promotion_target
        if t0.bitwidth != t1.bitwidth:
            return t0 if t0.bitwidth >= t1.bitwidth else t1
        if unsafe:
            pair = {str(t0), str(t1)}
            if pair == {"f8e4m3", "f8e5m2"}:
                return ElementType.f16
            if pair == {"f16", "bf16"}:
                return ElementType.f32
        raise self.fail(f"Unsupported input element types for ConvertPromoteTypes with given attributes ({t0}, {t1}).")

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = self.common_type(*inputs)
        out = []
        for t in inputs:
            value = None if t.value is None or et.is_dynamic else convert_array(np.asarray(t.value), et)
            out.append(TensorType(et, t.shape, value))
        return out

    def evaluate(self, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
        a, b = np.asarray(a), np.asarray(b)
        ta = TensorType(ElementType.from_numpy(a.dtype), _shape_of(a))
        tb = TensorType(ElementType.from_numpy(b.dtype), _shape_of(b))
        et = self.common_type(ta, tb)
        return [convert_array(a, et), convert_array(b, et)]


def _shape_of(a: np.ndarray):  # type: ignore[no-untyped-def]
    from graphir.shapes import PartialShape

    return PartialShape(list(a.shape))
