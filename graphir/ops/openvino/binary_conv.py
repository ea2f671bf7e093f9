"""OpenVINO BinaryConvolution-1: a convolution of 0/1 data with 1-bit (u1) filters in
``xnor-popcount`` mode: each output is ``2 * (taps where data == filter bit) - taps``."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import NUMERIC, Port, TensorType, types
from graphir.ops.openvino.binary import fold
from graphir.ops.openvino.conv import Convolution, grouped_conv, pad_spatial
from graphir.errors import InferenceError
from graphir.shapes import PartialShape
from graphir.types import ElementType


class BinaryConvolution(Convolution):
    """BinaryConvolution-1: ``data [N, C, D...]`` (real), ``filters [Co, C, K...]`` (u1). Data is
    meant to hold 0/1 (the spec); any value counts as bit 1 when it is above 0, else as bit 0 (NaN
    too), as OpenVINO 2026.4's CPU plugin binarizes it (measured; its reference kernel compares
    ``data == bit`` instead, which agrees on 0/1 data); padded taps read ``pad_value``."""

    type_name: ClassVar[str] = "BinaryConvolution"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", NUMERIC), Port("filters", types("u1")))

    mode: Literal["xnor-popcount"] = "xnor-popcount"
    pad_value: float = 0.0

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        data, filters = inputs
        geometry = Convolution(strides=self.strides, pads_begin=self.pads_begin, pads_end=self.pads_end,
                               dilations=self.dilations, auto_pad=self.auto_pad)
        try:  # the shape rule is Convolution's, whatever the data type
            out = geometry.infer([TensorType(ElementType.f32, data.shape), TensorType(ElementType.f32, filters.shape)])
        except InferenceError as exc:
            raise self.fail(str(exc).split(": ", 1)[-1]) from None
        shape = PartialShape(out[0].shape)
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def evaluate(self, x: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
        x, bits = np.asarray(x), np.asarray(w).astype(np.float64)
        kernel = bits.shape[2:]
        begin, end = self._pads(x, kernel)
        xf = x.astype(np.float64)
        ones = pad_spatial((xf > 0).astype(np.float64), begin, end, float(self.pad_value == 1))
        zeros = pad_spatial((~(xf > 0)).astype(np.float64), begin, end, float(self.pad_value == 0))
        nopad = [0] * len(kernel)
        matches = grouped_conv(ones, bits[None], self.strides, self.dilations, nopad, nopad) + \
            grouped_conv(zeros, (1 - bits)[None], self.strides, self.dilations, nopad, nopad)
        taps = int(np.prod(bits.shape[1:]))
        return [(2 * matches - taps).astype(x.dtype)]
