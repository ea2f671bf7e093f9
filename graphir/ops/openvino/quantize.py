"""OpenVINO ``FakeQuantize-1``: clamp to ``[input_low, input_high]``, snap to ``levels`` steps,
map to ``[output_low, output_high]``; the four range inputs broadcast to the data."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.broadcast import AutoBroadcastSpec, broadcast_merge
from graphir.ops.base import REAL, Op, Port, TensorType


class FakeQuantize(Op):
    type_name: ClassVar[str] = "FakeQuantize"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("X", REAL), Port("input_low", REAL), Port("input_high", REAL),
        Port("output_low", REAL), Port("output_high", REAL),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    levels: int
    auto_broadcast: Literal["none", "numpy", "pdpd"] = "numpy"  # pdpd aligns at axis -1 (the IR default)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, tuple(range(5)))
        if self.levels < 2:
            raise self.fail(f"levels must be at least 2, got {self.levels}")
        spec = AutoBroadcastSpec(type=self.auto_broadcast, axis=-1)
        shape = inputs[0].shape
        for i, t in enumerate(inputs[1:], start=1):
            merged = broadcast_merge(shape, t.shape, spec)
            if merged is None:
                raise self.fail(
                    f"input {i} ('{self.inputs[i].name}') {t.shape} does not broadcast to X {inputs[0].shape} "
                    f"({self.auto_broadcast})"
                )
            shape = merged
        return [TensorType(et, shape)]

    def evaluate(self, x: np.ndarray, il: np.ndarray, ih: np.ndarray, ol: np.ndarray, oh: np.ndarray) -> list[np.ndarray]:
        out_dtype = np.asarray(x).dtype
        ct = np.float64 if out_dtype == np.float64 else np.float32
        x, il, ih, ol, oh = (np.asarray(a).astype(ct) for a in (x, il, ih, ol, oh))
        steps = ct(self.levels - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.round((x - il) / (ih - il) * steps) / steps * (oh - ol) + ol
        out = np.where(x <= np.minimum(il, ih), ol, np.where(x > np.maximum(il, ih), oh, q))
        return [np.asarray(out).astype(out_dtype)]  # f16/bf16 data gives f16/bf16 (was f32)
