"""OpenVINO segment and sparse-row ops: SegmentMax-16 and SparseFillEmptyRows-16."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.limits import check_tensor
from graphir.ops.base import INDEX, Op, Port, TensorType
from graphir.ops.openvino import shape_values as sv
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def lowest(dtype: np.dtype) -> object:
    """The lowest finite value of a numpy dtype (``std::numeric_limits<T>::lowest``)."""
    if dtype == np.bool_:
        return False
    if np.issubdtype(dtype, np.integer):
        return np.iinfo(dtype).min
    return np.finfo(dtype).min


class SegmentMax(Op):
    """SegmentMax-16: the maximum of the rows of ``data`` per segment id (``segment_ids``: sorted,
    one per row); ``num_segments`` (default: the largest id + 1) rows out; an empty segment is 0
    (``fill_mode`` zero) or the type's lowest value (lowest). Ids past ``num_segments`` end the scan."""

    type_name: ClassVar[str] = "SegmentMax"
    version: ClassVar[str] = "opset16"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data"), Port("segment_ids", INDEX),
                                          Port("num_segments", INDEX, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    fill_mode: Literal["zero", "lowest", "ZERO", "LOWEST"]

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, ids = inputs[:2]
        self.check_input_types(inputs)
        if len(inputs) > 2 and ids.element_type.merge(inputs[2].element_type) is None:
            raise self.fail(f"The element types of the segment_ids and num_segments tensors must match "
                            f"(got {ids.element_type} and {inputs[2].element_type}).")
        if ids.shape.rank_is_static and len(ids.shape) != 1:
            raise self.fail(f"segment_ids must be a 1D input. Got: {ids.shape}")
        if len(inputs) > 2 and inputs[2].shape.rank_is_static and len(inputs[2].shape) != 0:
            raise self.fail(f"num_segments must be a scalar input. Got: {inputs[2].shape}")
        if data.shape.rank_is_static and len(data.shape) == 0:
            raise self.fail("The data input cannot be a scalar.")
        if data.shape.rank_is_static and ids.shape.rank_is_static and data.shape[0].merge(ids.shape[0]) is None:
            raise self.fail(f"The number of elements in segment_ids must match the first dimension of data "
                            f"(got {ids.shape} and {data.shape}).")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, PartialShape.dynamic())]
        shape = PartialShape([self._segment_count(inputs), *data.shape.dims[1:]])
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def _segment_count(self, inputs: list[TensorType]) -> Dimension:
        if len(inputs) > 2:
            values = sv.elements(inputs[2])
            return sv.as_dimension(values[0]) if values and len(values) == 1 else Dimension.dynamic()
        values = sv.elements(inputs[1])
        if values is not None and sv.is_known(values):
            ids = [int(v) for v in values]  # type: ignore[arg-type]
            return Dimension.static(max(ids) + 1 if ids else 0)
        return Dimension.dynamic()

    def evaluate(self, data: np.ndarray, ids: np.ndarray, num_segments: np.ndarray | None = None) -> list[np.ndarray]:
        data, ids = np.asarray(data), np.asarray(ids).reshape(-1).astype(np.int64)
        count = int(np.asarray(num_segments).reshape(-1)[0]) if num_segments is not None else \
            (int(ids.max()) + 1 if ids.size else 0)
        low = lowest(data.dtype)
        check_tensor((count,) + data.shape[1:], data.dtype)
        out = np.full((count,) + data.shape[1:], low, dtype=data.dtype)
        seen = np.zeros(count, dtype=bool)
        for i, s in enumerate(ids):
            if s >= count:
                break
            seen[s] = True
            out[s] = np.where(out[s] < data[i], data[i], out[s])  # std::max: a NaN row leaves the max
        empty = 0 if self.fill_mode.lower() == "zero" else low
        out[~seen] = empty
        return [out]


class SparseFillEmptyRows(Op):
    """SparseFillEmptyRows-16: a 2-D sparse tensor (``indices [N, 2]``, ``values [N]``,
    ``dense_shape [2]``) with an entry ``(row, 0) = default_value`` added to each empty row; entries
    come out sorted by (row, column), and ``empty_row_indicator`` marks the rows that were empty.
    The entry count is data-dependent: ``[?,2]`` unless every input is known."""

    type_name: ClassVar[str] = "SparseFillEmptyRows"
    version: ClassVar[str] = "opset16"
    inputs: ClassVar[tuple[Port, ...]] = (Port("values"), Port("dense_shape", INDEX), Port("indices", INDEX),
                                          Port("default_value"))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output_indices"), Port("output_values"),
                                           Port("empty_row_indicator"))

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        values, dense, indices, default = inputs
        self.check_input_types(inputs)
        if dense.element_type.merge(indices.element_type) is None:
            raise self.fail(f"The element types of the dense_shape and indices inputs must match "
                            f"(got {dense.element_type} and {indices.element_type}).")
        if values.element_type.merge(default.element_type) is None:
            raise self.fail(f"The element types of the values and default_value inputs must match "
                            f"(got {values.element_type} and {default.element_type}).")
        for t, rank, name in ((values, 1, "values"), (dense, 1, "dense_shape"), (indices, 2, "indices"),
                              (default, 0, "default_value")):
            if t.shape.rank_is_static and len(t.shape) != rank:
                raise self.fail(f"The {name} input must be {'a scalar' if rank == 0 else f'a {rank}D tensor'}. "
                                f"Got: {t.shape}")
        if dense.shape.rank_is_static and not dense.shape[0].compatible(Dimension.static(2)):
            raise self.fail(f"The dense_shape input must have exactly 2 elements. Got: {dense.shape}")
        if indices.shape.rank_is_static and not indices.shape[1].compatible(Dimension.static(2)):
            raise self.fail(f"The indices input must have 2 columns. Got: {indices.shape}")
        if indices.shape.rank_is_static and values.shape.rank_is_static \
                and indices.shape[0].merge(values.shape[0]) is None:
            raise self.fail(f"The number of rows in indices must match the number of values "
                            f"(got {indices.shape} and {values.shape}).")
        shape_values = sv.elements(dense)
        rows = sv.as_dimension(shape_values[0]) if shape_values and len(shape_values) == 2 else Dimension.dynamic()
        index_type = dense.element_type.merge(indices.element_type) or ElementType.dynamic
        if all(t.value is not None for t in inputs):
            out = self.evaluate(*(np.asarray(t.value) for t in inputs))
            return [TensorType(index_type, PartialShape(list(a.shape)), a) if i != 1 else
                    TensorType(values.element_type, PartialShape(list(a.shape)), a) for i, a in enumerate(out[:2])] + \
                [TensorType(ElementType.boolean, PartialShape(list(out[2].shape)), out[2])]
        count = Dimension.dynamic()
        if dense.value is not None and indices.value is not None:  # the entry count needs no values
            rows_known = int(np.asarray(dense.value).reshape(-1)[0])
            present = np.asarray(indices.value).reshape(-1, 2)[:, 0]
            filled = rows_known - len(set(int(r) for r in present if 0 <= r < rows_known))
            count = Dimension.static(len(present) + filled)
        return [TensorType(index_type, PartialShape([count, 2])),
                TensorType(values.element_type, PartialShape([count])),
                TensorType(ElementType.boolean, PartialShape([rows]))]

    def evaluate(self, values: np.ndarray, dense_shape: np.ndarray, indices: np.ndarray,
                 default: np.ndarray) -> list[np.ndarray]:
        values, indices = np.asarray(values).reshape(-1), np.asarray(indices).reshape(-1, 2)
        rows = int(np.asarray(dense_shape).reshape(-1)[0])
        check_tensor([rows, 2], indices.dtype)  # at most one filled row each
        empty = np.ones(rows, dtype=bool)
        present = indices[:, 0]
        empty[present[(present >= 0) & (present < rows)]] = False
        new_rows = np.nonzero(empty)[0].astype(indices.dtype)
        all_indices = np.concatenate([indices, np.stack([new_rows, np.zeros_like(new_rows)], axis=1)])
        fill = np.full(new_rows.size, np.asarray(default).reshape(-1)[0], dtype=values.dtype)
        all_values = np.concatenate([values, fill])
        order = np.lexsort((all_indices[:, 1], all_indices[:, 0]))  # stable: ties keep input order
        return [np.ascontiguousarray(all_indices[order]), all_values[order], empty]
