"""Reshape-1's ``-1`` with interval dims, as OpenVINO 2026.4's shape inference bounds it
(graphir/ops/openvino/reshape_bounds.py): each case is built with openvino's Python API (the
pattern's interval elements read by ShapeOf from parameters with interval dims), saved as IR and
read by graphir; the Reshape's output shape must print as OpenVINO's. Where OpenVINO refuses the
pattern, graphir must refuse it with OpenVINO's words.

The detectors' heads are the case that mattered: ``[1,60,1..,1..]`` viewed as ``[1,-1,4,H,W]``
(H, W read back from the input) is ``[1,1..,4,1..,1..]`` -- OpenVINO keeps the lower bound through
the product (60..) and the division by an unbounded product (ceil(60 / inf) = 1).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import GraphirError

#: (input dims, pattern, special_zero, OpenVINO's output shape); a dim or pattern element that is a
#: pair is an interval (-1: unbounded), a pattern pair read by ShapeOf; input None: dynamic rank
CASES: list[tuple[Any, list[Any], bool, str]] = [
    ([1, 60, (1, -1), (1, -1)], [1, -1, 4, (1, -1), (1, -1)], False, "[1,1..,4,1..,1..]"),  # the RPN head
    ([1, (1, -1), (1, -1), (1, -1), 4], [1, -1, 4], False, "[1,1..,4]"),
    ([6, (1, 5)], [4, -1], False, "[4,2..7]"),  # static parts differ: 6..30 / 4
    ([10, (10, 12)], [(5, 6), -1], False, "[5..6,17..24]"),  # [ceil(100/6), 120//5]
    ([(10, 12)], [(5, 6), -1], False, "[5..6,2]"),
    ([(2, -1), 3], [(1, 4), -1], False, "[1..4,2..]"),
    ([(2, 8), 3], [(0, 4), -1], False, "[..4,2..]"),  # a pattern dim that may be 0: no upper bound
    ([(0, -1), 3], [3, -1], False, "[3,?]"),  # equal static dims cancel: ? / 1
    ([(0, 8), 2, 3], [3, -1], False, "[3,..16]"),
    ([2, 3, (0, -1)], [2, 0, -1], True, "[2,3,?]"),
    ([2, 3, (0, 5)], [3, 0, -1], True, "[3,3,..3]"),  # 2 * (0..5) / 3
    ([(1, 4), 5, (2, 3)], [0, -1], True, "[1..4,10..15]"),  # the copied dim leaves both products
    (None, [2, -1], False, "[2,1..]"),  # dynamic rank: 1 / (? * 2)
    (None, [-1], False, "[1..]"),
    (None, [3, -1, (2, 5)], False, "[3,1..,2..5]"),
    (None, [0, -1, (2, 5)], True, "[?,?,2..5]"),  # a copied dim of unknown rank: ? / ?
    ([(2, 5), (3, 7)], [-1], False, "[6..35]"),
    ([(2, 5), 4], [(2, 5), -1], False, "[2..5,2..10]"),  # equal intervals do not cancel: 4*(2..5) / (2..5)
    ([0, 3], [0, -1], False, "[0,1]"),  # zero-size on both sides: the -1 is the rest's quotient
    ([0, (1, -1)], [0, -1], False, "[0,1..]"),
    ([(0, -1), 0], [0, 5, -1], False, "[0,5,?]"),
    ([7, (1, 3)], [7, 2, -1], False, "[7,2,1]"),  # 7s cancel; (1..3) / 2: [ceil(1/2), 3 // 2]
    ([(1, 3), 6], [4, -1], False, "[4,2..4]"),
]


def _dim(ov: Any, d: Any) -> Any:
    return ov.Dimension(*d) if isinstance(d, tuple) else ov.Dimension(d)


def _reshape(ov: Any, dims: Any, pattern: list[Any], special_zero: bool) -> tuple[Any, Any]:
    import openvino.opset11 as ops

    shape = ov.PartialShape.dynamic() if dims is None else ov.PartialShape([_dim(ov, d) for d in dims])
    x = ops.parameter(shape, np.float32, name="x")
    params, parts = [x], []
    for k, p in enumerate(pattern):
        if isinstance(p, tuple):
            params.append(ops.parameter(ov.PartialShape([_dim(ov, p)]), np.float32, name=f"p{k}"))
            parts.append(ops.shape_of(params[-1]))
        else:
            parts.append(ops.constant(np.array([p], np.int64)))
    y = ops.reshape(x, ops.concat(parts, 0), special_zero, name="y")
    return ov.Model([y], params), y


@pytest.mark.parametrize("dims,pattern,special_zero,want", CASES, ids=[c[3] + ("-sz" if c[2] else "") for c in CASES])
def test_minus_one_bounds_match_openvino(ov, tmp_path: Path, dims: Any, pattern: list[Any], special_zero: bool,
                                         want: str) -> None:
    model, y = _reshape(ov, dims, pattern, special_zero)
    assert str(y.get_output_partial_shape(0)) == want  # the table is OpenVINO's
    path = tmp_path / "r.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    ours = {n.name: n for n in graphir.read_model(path).nodes()}
    assert str(ours["y"].output_types[0].shape) == want


@pytest.mark.parametrize("dims,pattern,words", [
    ([(0, -1), 3], [0, -1], "Cannot infer '-1' dimension with zero-size output dimension"),
    ([7, (3, 3)], [2, -1], "Non-'-1' output dimensions do not evenly divide the input dimensions"),
])
def test_a_pattern_openvino_refuses_is_refused(ov, dims: Any, pattern: list[Any], words: str) -> None:
    """A zero in the pattern with no zero-size input dim (the input's static part is 3); 21
    elements as [2, -1]."""
    with pytest.raises(Exception) as theirs:
        _reshape(ov, dims, pattern, False)
    assert words in str(theirs.value)
    x = opset.parameter([d if isinstance(d, int) else graphir.Dimension(d[0], None if d[1] < 0 else d[1])
                         for d in dims], "f32", name="x")
    with pytest.raises(GraphirError, match=words.replace("(", r"\(")):
        opset.reshape(x, opset.constant(np.array(pattern, np.int64)), special_zero=False, name="y")


def test_a_pattern_no_length_fits_is_refused(ov) -> None:
    """OpenVINO prints ``[6,2..1]`` for 10..11 elements viewed as [6, -1] (ceil(10/6) = 2 over
    11 // 6 = 1); graphir's Dimension cannot hold an inverted interval and no tensor fits the
    pattern, so graphir refuses it as OpenVINO refuses a static mismatch."""
    _, y = _reshape(ov, [(10, 11)], [6, -1], False)
    assert str(y.get_output_partial_shape(0)) == "[6,2..1]"
    x = opset.parameter([graphir.Dimension(10, 11)], "f32", name="x")
    with pytest.raises(GraphirError, match="do not evenly divide the input dimensions"):
        opset.reshape(x, opset.constant(np.array([6, -1], np.int64)), special_zero=False, name="y")
