"""Shape inference against OpenVINO where partly known values decide a shape: ReduceMin/ReduceMax/
ReduceProd of shape values (a detector's ``min(300, boxes)`` TopK k, Mask R-CNN's ``N * C`` reshape
pattern) and the union of If's two branches. Each model is built with openvino's Python API, saved
as IR and read by graphir; every node's output shape must print as OpenVINO's does.

On the corpus exports (benchmarks/make_corpus.py) these were the differences left after a static
reshape: SSDlite 454 nodes ([..3234] for OpenVINO's [..300] from a TopK on), Mask R-CNN 2 and
Faster R-CNN 1 (an If output, a reshape); now none.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir


def _same_shapes_as_openvino(ov: Any, model: Any, tmp_path: Path) -> int:
    """Save ``model``, read it with graphir, and assert every output shape equals OpenVINO's;
    returns how many outputs were compared."""
    path = tmp_path / "m.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    ours = {n.name: n for n in graphir.read_model(path).nodes()}
    compared = 0
    for op in ov.Core().read_model(str(path)).get_ordered_ops():
        node = ours[op.get_friendly_name()]
        for i in range(op.get_output_size()):
            expected = str(op.get_output_partial_shape(i)).replace(" ", "")
            assert str(node.output_types[i].shape) == expected, (op.get_type_name(), op.get_friendly_name(), i)
            compared += 1
    return compared


def test_reduce_min_of_shape_values_bounds_a_topk(ov, tmp_path: Path) -> None:
    """SSDlite's ``k = min(300, boxes)``: OpenVINO bounds k by 300, so the TopK gives [..300]."""
    import openvino.opset11 as ops

    x = ops.parameter([ov.Dimension(0, 3234)], np.float32, name="scores")
    k = ops.reduce_min(ops.concat([ops.constant(np.array([300], np.int64)), ops.shape_of(x)], 0),
                       ops.constant(np.array(0, np.int64)), keep_dims=False, name="k")
    top = ops.topk(x, k, -1, "max", "value", name="top")
    model = ov.Model(top.outputs(), [x])
    assert str(top.get_output_partial_shape(0)) == "[..300]"
    assert _same_shapes_as_openvino(ov, model, tmp_path) >= 6


def test_reduce_max_and_prod_of_shape_values(ov, tmp_path: Path) -> None:
    """Mask R-CNN's reshape to ``[N * C, -1]`` with N in [0, 100]: [..9100,?]; a max of a bounded
    dim and a constant broadcast target: [4..50]."""
    import openvino.opset11 as ops

    y = ops.parameter([ov.Dimension(0, 100), 91, 28, 28], np.float32, name="masks")
    dims = ops.slice(ops.shape_of(y), np.array([0], np.int64), np.array([2], np.int64), np.array([1], np.int64))
    rows = ops.reduce_prod(dims, np.array(0, np.int64), keep_dims=True, name="rows")
    flat = ops.reshape(y, ops.concat([rows, ops.constant(np.array([-1], np.int64))], 0), False, name="flat")
    z = ops.parameter([ov.Dimension(2, 50)], np.float32, name="z")
    longest = ops.reduce_max(ops.concat([ops.shape_of(z), ops.constant(np.array([4], np.int64))], 0),
                             np.array([0], np.int64), keep_dims=True, name="longest")
    wide = ops.broadcast(ops.constant(np.float32(1)), longest, name="wide")
    model = ov.Model([flat.output(0), wide.output(0)], [y, z])
    assert str(flat.get_output_partial_shape(0)) == "[..9100,?]"
    assert str(wide.get_output_partial_shape(0)) == "[4..50]"
    assert _same_shapes_as_openvino(ov, model, tmp_path) >= 10


@pytest.mark.parametrize("then_shape,else_shape,expected", [
    ([2], [3], "[2..3]"),
    ([(2, 5)], [3], "[?]"),
    ([(2, 5)], [(2, 5)], "[?]"),  # the same interval in both: still ? (OpenVINO keeps only equal static dims)
    ([(0, 2278)], [0], "[?]"),  # Faster R-CNN's If
    ([-1], [3], "[?]"),
    ([], [3], "[?]"),  # a scalar and a vector
    ([2, 3], [2, 4], "[2,3..4]"),
    ([2], [2, 3], "[...]"),
])
def test_if_unites_its_branches_as_openvino_does(ov, tmp_path: Path, then_shape: list, else_shape: list,
                                                 expected: str) -> None:
    import openvino.opset8 as ops

    def shape(dims: list) -> list:
        return [ov.Dimension(*d) if isinstance(d, tuple) else d for d in dims]

    cond = ops.parameter([], np.bool_, name="cond")
    x = ops.parameter(shape(then_shape), np.float32, name="x")
    y = ops.parameter(shape(else_shape), np.float32, name="y")
    then_in = ops.parameter(shape(then_shape), np.float32, name="then_in")
    else_in = ops.parameter(shape(else_shape), np.float32, name="else_in")
    then_body = ov.Model([ops.result(then_in)], [then_in], "then")
    else_body = ov.Model([ops.result(else_in)], [else_in], "else")
    branch = ops.if_op(cond)
    branch.set_friendly_name("branch")
    branch.set_then_body(then_body)
    branch.set_else_body(else_body)
    branch.set_input(x.output(0), then_in, None)
    branch.set_input(y.output(0), None, else_in)
    out = branch.set_output(then_body.get_results()[0], else_body.get_results()[0])
    branch.validate_and_infer_types()
    assert str(out.get_partial_shape()).replace(" ", "") == expected
    model = ov.Model([ops.result(out)], [cond, x, y])
    _same_shapes_as_openvino(ov, model, tmp_path)


@pytest.mark.parametrize("op_name", ["add", "subtract", "multiply", "divide", "minimum", "maximum"])
def test_arithmetic_on_an_unbounded_shape_value_knows_nothing_of_it(ov, tmp_path: Path, op_name: str) -> None:
    """OpenVINO's bounds arithmetic keeps no lower bound for an element without an upper one
    (``[5..] + 16`` is ``?``, ``min([5..], 2)`` too; the LLM exports' causal mask ``past + 16``),
    while bounded elements combine as intervals."""
    import openvino.opset13 as ops

    x = ops.parameter([ov.Dimension(5, -1), 3, ov.Dimension(2, 9)], np.float32, name="x")
    combined = getattr(ops, op_name)(ops.shape_of(x), ops.constant(np.array([2, 2, 2], np.int64)), name="combined")
    target = ops.broadcast(ops.constant(np.float32(1)), combined, name="target")
    mask = ops.parameter([-1, -1, -1], np.float32, name="mask")
    both = ops.broadcast(mask, combined, broadcast_spec="BIDIRECTIONAL", name="both")  # the causal mask's
    model = ov.Model([target.output(0), both.output(0)], [x, mask])
    assert str(target.get_output_partial_shape(0)).startswith("[?,")
    assert str(both.get_output_partial_shape(0)).startswith("[?,")
    assert _same_shapes_as_openvino(ov, model, tmp_path) >= 5
