"""OpenVINO GatherTree-1: the beam search back-trace."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.ops.base import Op, Port, TensorType, types
from graphir.ops.openvino.binary import fold
from graphir.ops.openvino.ctc import merged, ranked
from graphir.shapes import PartialShape

_TYPES = types("f32", "f16", "bf16", "f64", "i32", "i64")


def as_index(value: object) -> int:
    """A step/parent id read as an index: truncated, negatives as 0."""
    return max(int(value), 0)  # type: ignore[call-overload]


class GatherTree(Op):
    """GatherTree-1: ``step_ids``/``parent_ids [T, N, beam]``, ``max_seq_len [N]``, scalar
    ``end_token``; the full beams, each traced back from its last step; after the first
    ``end_token`` (and past ``max_seq_len``) every step is ``end_token``."""

    type_name: ClassVar[str] = "GatherTree"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("step_ids", _TYPES), Port("parent_ids", _TYPES),
                                          Port("max_seq_len", _TYPES), Port("end_token", _TYPES))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = self.merge_types(inputs, (0, 1, 2, 3))
        if not et.is_dynamic and not (et.is_real or et.is_integral_number):
            raise self.fail(f"Element type of inputs must be numeric. Got: {et}")
        step = ranked(self, inputs[0], 3, "step_ids input")
        parent = ranked(self, inputs[1], 3, "parent_idx input")
        seq = ranked(self, inputs[2], 1, "max_seq_len input")
        if inputs[3].shape.rank_is_static and len(inputs[3].shape) != 0:
            raise self.fail(f"end_token input must be scalar. Got: {inputs[3].shape}")
        if inputs[0].shape.rank_is_dynamic and inputs[1].shape.rank_is_dynamic and inputs[2].shape.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        dims = [merged(self, "step_ids and parent_idx", a, b) for a, b in zip(step, parent)]
        dims[1] = merged(self, "batch", dims[1], seq[0])
        shape = PartialShape(dims)
        return [TensorType(et, shape, fold(self, inputs, shape, et))]

    def evaluate(self, step_ids: np.ndarray, parent_ids: np.ndarray, max_seq_len: np.ndarray,
                 end_token: np.ndarray) -> list[np.ndarray]:
        step_ids, parent_ids = np.asarray(step_ids), np.asarray(parent_ids)
        end = np.asarray(end_token).reshape(-1)[0]
        steps, batch, beams = step_ids.shape
        out = np.full(step_ids.shape, end, dtype=step_ids.dtype)
        for b in range(batch):
            length = min(steps, as_index(np.asarray(max_seq_len).reshape(-1)[b]))
            for beam in range(beams):
                if length == 0:
                    continue
                out[length - 1, b, beam] = step_ids[length - 1, b, beam]
                parent = as_index(parent_ids[length - 1, b, beam])
                for level in range(length - 2, -1, -1):
                    if parent >= beams:
                        raise ValueError(f"GatherTree-1: parent id {parent} is out of range of beam width {beams}")
                    out[level, b, beam] = step_ids[level, b, parent]
                    parent = as_index(parent_ids[level, b, parent])
                finished = False
                for t in range(length):
                    if finished:
                        out[t, b, beam] = end
                    elif as_index(out[t, b, beam]) == as_index(end):
                        finished = True
        return [out]
