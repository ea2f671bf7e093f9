"""OpenVINO FakeConvert-13: rounds values to what an 8-bit float (f8e4m3 or f8e5m2) can hold, in
the input's own type: ``((x * scale - shift) -> f16 -> f8 -> back + shift) / scale``.

As OpenVINO 2026's CPU plugin computes it (measured in tests/ops/test_fake_convert.py): round to
nearest even, subnormals included, and saturation at the format's largest finite value (448,
57344; infinities too). OpenVINO's reference source emulates it differently (it flushes f8e4m3
magnitudes below 2^-9 to zero and lets f8e5m2 overflow to infinity); graphir follows the runtime.
"""
from __future__ import annotations

from typing import ClassVar, Literal

import ml_dtypes
import numpy as np

from graphir.broadcast import broadcast_merge
from graphir.ops.base import Op, Port, TensorType, types
from graphir.ops.openvino.binary import fold

_FLOATS = types("f32", "f16", "bf16")
_FORMATS = {"f8e4m3": (ml_dtypes.float8_e4m3fn, 448.0), "f8e5m2": (ml_dtypes.float8_e5m2, 57344.0)}


def to_f8_grid(half: np.ndarray, destination: str) -> np.ndarray:
    """f16 values rounded (nearest even) and saturated onto the f8 format's values, as f32."""
    fmt, largest = _FORMATS[destination]
    clipped = np.clip(half.astype(np.float32), -largest, largest)
    return clipped.astype(np.float16).astype(fmt).astype(np.float32)


class FakeConvert(Op):
    type_name: ClassVar[str] = "FakeConvert"
    version: ClassVar[str] = "opset13"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", _FLOATS), Port("scale", _FLOATS),
                                          Port("shift", _FLOATS, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    destination_type: Literal["f8e4m3", "f8e5m2"] = "f8e4m3"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        for t in inputs[1:]:
            if inputs[0].element_type.merge(t.element_type) is None:
                raise self.fail(f"Mixed input types are not supported "
                                f"({', '.join(str(i.element_type) for i in inputs)}).")
        if len(inputs) > 2 and inputs[1].shape.rank_is_static and inputs[2].shape.rank_is_static \
                and inputs[1].shape.merge(inputs[2].shape) is None:
            raise self.fail(f"FakeConvert scale shape is not compatible with shift shape "
                            f"({inputs[1].shape} vs {inputs[2].shape}).")
        data = inputs[0]
        et = data.element_type
        for t in inputs[1:]:
            et = et.merge(t.element_type) or et
        for t in inputs[1:]:
            if broadcast_merge(data.shape, t.shape, "numpy") is None:
                raise self.fail(f"FakeConvert scale/shift shape {t.shape} does not broadcast to data {data.shape}.")
        return [TensorType(et, data.shape, fold(self, inputs, data.shape, et))]

    def evaluate(self, x: np.ndarray, scale: np.ndarray, shift: np.ndarray | None = None) -> list[np.ndarray]:
        x = np.asarray(x)
        dtype = x.dtype
        scale = np.asarray(scale, dtype)
        shift = np.zeros_like(scale) if shift is None else np.asarray(shift, dtype)
        with np.errstate(all="ignore"):
            scaled = (x * scale).astype(dtype)
            scaled = (scaled - shift).astype(dtype)
            back = to_f8_grid(scaled.astype(np.float16), self.destination_type).astype(dtype)
            out = ((back + shift).astype(dtype) / scale).astype(dtype)
        return [np.broadcast_to(out, np.broadcast(x, scale).shape).astype(dtype)]
