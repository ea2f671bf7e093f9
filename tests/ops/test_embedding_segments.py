"""Embedding bags (-3 sums, -15 with reduction), SegmentMax-16 and SparseFillEmptyRows-16 against
OpenVINO 2026: shapes (static, intervals, dynamic, folded constants), rejected inputs, CPU values."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Const, Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(3)
EMB = random_array((6, 3, 2), "f32", RNG)


@pytest.mark.parametrize("table", ["[6,3,2]", "[?,3,1..4]", "[...]", "[]"])
@pytest.mark.parametrize("index_type", ["i32", "i64", "f32"])
def test_offsets_sum_shapes(ov, table: str, index_type: str) -> None:
    for extra in ([], [Param("[]", index_type)], [Param("[]", index_type), Param("[7]")], [Param("[]", index_type), Param("[6]")]):
        agree_or_both_fail(ov, "EmbeddingBagOffsetsSum", "opset3", {},
                           [Param(table), Param("[7]", index_type), Param("[?]", index_type)] + extra)


@pytest.mark.parametrize("name,version,attrs", [("EmbeddingBagOffsetsSum", "opset3", {}),
                                                ("EmbeddingBagOffsets", "opset15", {"reduction": "sum"}),
                                                ("EmbeddingBagOffsets", "opset15", {"reduction": "mean"})])
@pytest.mark.parametrize("with_default,with_weights", [(False, False), (True, False), (True, True)])
def test_offsets_values_match_openvino_cpu(ov, name: str, version: str, attrs: dict, with_default: bool,
                                           with_weights: bool) -> None:
    indices = np.array([0, 2, 3, 3, 5, 1, 4], np.int32)
    offsets = np.array([0, 2, 2, 6], np.int32)  # bag 1 is empty
    inputs = [Param("[6,3,2]"), Param("[7]", "i32"), Param("[4]", "i32")]
    values = [EMB, indices, offsets]
    if with_default:
        inputs.append(Const(np.int32(4)))
    if with_weights:
        inputs.append(Param("[7]"))
        values.append(random_array((7,), "f32", RNG))
    if with_weights and attrs.get("reduction") == "mean":
        assert "Per sample weights can only be used" in agree_or_both_fail(ov, name, version, attrs, inputs)
        return
    same(ov, name, version, attrs, inputs, values)


@pytest.mark.parametrize("name,version,attrs", [("EmbeddingBagPackedSum", "opset3", {}),
                                                ("EmbeddingBagPacked", "opset15", {"reduction": "mean"}),
                                                ("EmbeddingBagPacked", "opset15", {"reduction": "sum"})])
@pytest.mark.parametrize("indices_shape", ["[3,2]", "[?,2]", "[2..5,?]", "[...]", "[3]"])
def test_packed_shapes_and_values(ov, name: str, version: str, attrs: dict, indices_shape: str) -> None:
    agree_or_both_fail(ov, name, version, attrs, [Param("[6,3,2]"), Param(indices_shape, "i64")])
    if indices_shape == "[3,2]":
        indices = np.array([[0, 5], [2, 2], [1, 3]], np.int32)
        same(ov, name, version, attrs, [Param("[6,3,2]"), Param("[3,2]", "i32")], [EMB, indices])
        if attrs.get("reduction") != "mean":
            w = random_array((3, 2), "f32", RNG)
            same(ov, name, version, attrs, [Param("[6,3,2]"), Param("[3,2]", "i32"), Param("[3,2]")], [EMB, indices, w])


@pytest.mark.parametrize("num_segments", [Const(np.int32(5)), Param("[]", "i32")])
@pytest.mark.parametrize("indices_shape", ["[7]", "[?]", "[...]", "[8]"])
def test_segments_sum_shapes(ov, num_segments, indices_shape: str) -> None:
    agree_or_both_fail(ov, "EmbeddingSegmentsSum", "opset3", {},
                       [Param("[6,3,2]"), Param(indices_shape, "i32"), Param("[7]", "i32"), num_segments])


@pytest.mark.parametrize("with_default,with_weights", [(False, False), (True, False), (True, True)])
def test_segments_sum_values_match_openvino_cpu(ov, with_default: bool, with_weights: bool) -> None:
    indices = np.array([0, 2, 3, 3, 5, 1, 4], np.int32)
    segments = np.array([0, 0, 2, 2, 2, 4, 4], np.int32)
    inputs = [Param("[6,3,2]"), Param("[7]", "i32"), Param("[7]", "i32"), Const(np.int32(5))]
    values = [EMB, indices, segments]
    if with_default:
        inputs.append(Const(np.int32(1)))
    if with_weights:
        inputs.append(Param("[7]"))
        values.append(random_array((7,), "f32", RNG))
    same(ov, "EmbeddingSegmentsSum", "opset3", {}, inputs, values)


@pytest.mark.parametrize("ids", [Const(np.array([0, 0, 1, 3, 3], np.int64)), Param("[5]", "i64"), Param("[?]", "i64")])
@pytest.mark.parametrize("num", [None, Const(np.int64(2)), Const(np.int64(6)), Param("[]", "i64")])
@pytest.mark.parametrize("data", ["[5,3]", "[?,2..4]", "[...]", "[4,3]"])
def test_segment_max_shapes(ov, ids, num, data: str) -> None:
    inputs = [Param(data), ids] + ([] if num is None else [num])
    agree_or_both_fail(ov, "SegmentMax", "opset16", {"fill_mode": "zero"}, inputs)


@pytest.mark.parametrize("fill", ["zero", "lowest"])
@pytest.mark.parametrize("dtype", ["f32", "i32"])
@pytest.mark.parametrize("num", [None, 2, 6])
def test_segment_max_values_match_openvino(ov, fill: str, dtype: str, num: int | None) -> None:
    data = random_array((6, 3), dtype, RNG, -9, 9)
    ids = np.array([0, 0, 2, 2, 3, 3], np.int32)
    inputs = [Param("[6,3]", dtype), Const(ids)] + ([] if num is None else [Const(np.int32(num))])
    got = same(ov, "SegmentMax", "opset16", {"fill_mode": fill}, inputs, [data])[0]
    if num == 6:  # segments 1, 4, 5 are empty
        empty = 0 if fill == "zero" else (np.finfo(np.float32).min if dtype == "f32" else np.iinfo(np.int32).min)
        assert np.all(got[[1, 4, 5]] == empty)


@pytest.mark.parametrize("shapes", [("[5]", "[2]", "[5,2]", "[]"), ("[?]", "[2]", "[?,2]", "[]"),
                                    ("[...]", "[...]", "[...]", "[...]"), ("[5]", "[3]", "[5,2]", "[]"),
                                    ("[5]", "[2]", "[4,2]", "[]"), ("[5]", "[2]", "[5,3]", "[]")])
def test_sparse_fill_empty_rows_shapes(ov, shapes) -> None:
    inputs = [Param(shapes[0]), Param(shapes[1], "i64"), Param(shapes[2], "i64"), Param(shapes[3])]
    agree_or_both_fail(ov, "SparseFillEmptyRows", "opset16", {}, inputs)
    agree_or_both_fail(ov, "SparseFillEmptyRows", "opset16", {},
                       [Param(shapes[0]), Const(np.array([6, 4], np.int64)), Param(shapes[2], "i64"), Param(shapes[3])])


def test_sparse_fill_empty_rows_values_match_openvino(ov) -> None:
    values = np.array([1.5, 2.5, -3.0, 4.0, 7.0], np.float32)
    indices = np.array([[3, 2], [0, 1], [3, 0], [5, 3], [0, 0]], np.int64)
    dense = np.array([7, 4], np.int64)
    default = np.float32(-1)
    from graphir import opset
    outs = opset.make("SparseFillEmptyRows", values, dense, indices, default)  # folded: exact shapes
    want = [[[0, 0], [0, 1], [1, 0], [2, 0], [3, 0], [3, 2], [4, 0], [5, 3], [6, 0]],
            [7.0, 2.5, -1, -1, -3.0, 1.5, -1, 4.0, -1], [False, True, True, False, True, False, True]]
    for o, w in zip(outs, want):
        np.testing.assert_array_equal(o.tensor_type.value, w)
    assert str(outs[0].shape) == "[9,2]"
    # and with parameters: CPU (i32 indices, exact there)
    inputs = [Param("[5]"), Param("[2]", "i32"), Param("[5,2]", "i32"), Const(default)]
    same(ov, "SparseFillEmptyRows", "opset16", {}, inputs, [values, dense.astype(np.int32), indices.astype(np.int32)])


def test_segment_max_lowest_fill_in_f16_is_the_f16_lowest(ov) -> None:
    """OpenVINO's reference fills an empty segment with numeric_limits<f16>::lowest() (-65504); its
    CPU plugin computes f16 in f32 and gives -inf there (f32's lowest, rounded). graphir follows the
    reference; the other elements agree with the CPU."""
    from tests.ops.ov_diff import core

    data = random_array((5, 3), "f16", RNG)
    ids = np.array([0, 0, 2, 2, 4], np.int32)
    from graphir import opset
    got = opset.make("SegmentMax", data, ids, fill_mode="lowest").tensor_type.value
    assert np.all(got[[1, 3]] == np.float16(-65504))
    from openvino import opset13 as ops
    from openvino.utils.node_factory import NodeFactory

    p = ops.parameter([5, 3], ov.Type.f16)
    node = NodeFactory("opset16").create("SegmentMax", [p.output(0), ops.constant(ids).output(0)], {"fill_mode": "lowest"})
    cpu = core(ov).compile_model(ov.Model([node], [p]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([data])[0]
    assert np.all(np.isneginf(cpu[[1, 3]]))
    np.testing.assert_array_equal(got[[0, 2, 4]], cpu[[0, 2, 4]])
