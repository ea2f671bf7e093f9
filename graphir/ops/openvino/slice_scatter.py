"""OpenVINO SliceScatter-15: ``data`` with a Slice-8 region replaced by ``updates``."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from graphir.errors import InferenceError
from graphir.ops.base import INTEGRAL, Op, Port, TensorType
from graphir.ops.openvino.binary import fold
from graphir.ops.openvino.slicing import Slice, _clip
from graphir.shapes import PartialShape


class SliceScatter(Op):
    """SliceScatter-15: the region Slice-8 would read (``start``/``stop``/``step`` along ``axes``)
    takes ``updates`` (of the region's shape; converted to data's type); the output is data's shape."""

    type_name: ClassVar[str] = "SliceScatter"
    version: ClassVar[str] = "opset15"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("updates"), Port("start", INTEGRAL), Port("stop", INTEGRAL),
                                          Port("step", INTEGRAL), Port("axes", INTEGRAL, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, updates = inputs[:2]
        sliced = data.shape
        if sliced.rank_is_dynamic and updates.shape.rank_is_static:  # the updates tell the rank
            sliced = PartialShape.dynamic(len(updates.shape))
            if len(inputs) > 5:  # OpenVINO checks nothing when axes need a rank it does not know
                return [TensorType(data.element_type, sliced)]
        try:
            region = Slice().infer([TensorType(data.element_type, sliced)] + list(inputs[2:]))[0].shape
        except InferenceError as exc:  # the slice's own checks, told as this op's
            raise self.fail(str(exc).split(": ", 1)[-1]) from None
        if region.rank_is_static and updates.shape.rank_is_static:
            if len(region) != len(updates.shape):
                raise self.fail(f"SliceScatter updates rank must be equal to the data rank (updates "
                                f"{updates.shape}, data {data.shape}).")
            for i, (r, u) in enumerate(zip(region.dims, updates.shape.dims)):
                if not r.compatible(u):
                    raise self.fail(f"SliceScatter updates at index {i} are not compatible with expected slice "
                                    f"shape {region}")
        shape = sliced
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def evaluate(self, x: np.ndarray, updates: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray,
                 axes: np.ndarray | None = None) -> list[np.ndarray]:
        out = np.array(x, copy=True)
        st, sp, sd = (list(map(int, np.asarray(v).reshape(-1))) for v in (start, stop, step))
        ax = list(map(int, np.asarray(axes).reshape(-1))) if axes is not None else list(range(len(st)))
        index = [slice(None)] * out.ndim
        for i, a in enumerate(ax):
            index[a % out.ndim] = slice(_clip(st[i]), _clip(sp[i]), sd[i])
        out[tuple(index)] = np.asarray(updates).astype(out.dtype)
        return [out]
