"""Broadcast rules: numpy (vs numpy.broadcast_shapes and vs openvino), none, one-way."""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphir.broadcast import (
    AutoBroadcastSpec,
    broadcast_merge,
    broadcast_shapes,
    none_merge,
    numpy_merge,
    one_way_broadcast,
    one_way_merge,
)
from graphir.errors import BroadcastError, ShapeError
from graphir.shapes import PartialShape

P = PartialShape.parse

static_shapes = st.lists(st.integers(min_value=0, max_value=4), min_size=0, max_size=5)


def _numpy_reference(*shapes: list[int]) -> tuple[int, ...] | None:
    try:
        return tuple(np.broadcast_shapes(*(tuple(s) for s in shapes)))
    except ValueError:
        return None


@settings(max_examples=300, deadline=None)
@given(static_shapes, static_shapes)
def test_numpy_merge_agrees_with_numpy_on_static_shapes(a: list[int], b: list[int]) -> None:
    expected = _numpy_reference(a, b)
    got = numpy_merge(PartialShape(a), PartialShape(b))
    assert (None if got is None else got.to_shape()) == expected


@settings(max_examples=150, deadline=None)
@given(st.lists(static_shapes, min_size=1, max_size=4))
def test_broadcast_shapes_agrees_with_numpy_for_several_shapes(shapes: list[list[int]]) -> None:
    expected = _numpy_reference(*shapes)
    if expected is None:
        with pytest.raises(BroadcastError, match=r"cannot be broadcast \(numpy rule\)"):
            broadcast_shapes(*(PartialShape(s) for s in shapes))
    else:
        assert broadcast_shapes(*(PartialShape(s) for s in shapes)).to_shape() == expected


# The "Dimension broadcast (numpy)" rules measured on OpenVINO 2026.4 (openvino-facts.md).
FACT_CASES = [
    ("[1]", "[7]", "[7]"), ("[?]", "[1]", "[?]"), ("[?]", "[3]", "[3]"),
    ("[1..10]", "[5]", "[5]"), ("[0..10]", "[5]", "[5]"),
    ("[1..10]", "[1..3]", "[1..10]"), ("[1..10]", "[?]", "[?]"),
    ("[1..3]", "[2..5]", "[2..5]"),
    ("[2..10]", "[5..20]", "[5..10]"), ("[2..4]", "[6..8]", None),
    ("[0]", "[1]", "[0]"), ("[0]", "[?]", "[0]"), ("[0]", "[3]", None),
    # the examples
    ("[?,3]", "[1,3]", "[?,3]"), ("[1..10,4]", "[5,4]", "[5,4]"),
    ("[...]", "[2,3]", "[...]"), ("[2,3]", "[...]", "[...]"),
    ("[]", "[2]", "[2]"), ("[2,1,3]", "[4,1]", "[2,4,3]"), ("[4,5]", "[2,3,4,5]", "[2,3,4,5]"),
]


@pytest.mark.parametrize("a,b,expected", FACT_CASES)
def test_numpy_partial_shape_rules(a: str, b: str, expected: str | None) -> None:
    for x, y in ((a, b), (b, a)):  # the rule is symmetric
        got = numpy_merge(P(x), P(y))
        assert (None if got is None else str(got)) == expected, (x, y)


def test_broadcast_error_names_every_shape_and_the_conflict() -> None:
    with pytest.raises(BroadcastError) as info:
        broadcast_shapes("[2,3]", "[1,3]", "[4,3]")
    text = str(info.value)
    assert "shapes [2,3], [1,3], [4,3] cannot be broadcast (numpy rule)" in text
    assert "[2,3] and [4,3] conflict" in text
    assert isinstance(info.value, ShapeError)


def test_none_mode() -> None:
    assert str(broadcast_shapes("[2,3]", "[2,3]", mode="none")) == "[2,3]"
    assert str(broadcast_shapes("[?,3]", "[2,?]", mode="none")) == "[2,3]"
    assert str(broadcast_shapes("[1..10]", "[5..20]", mode="none")) == "[5..10]"
    assert str(broadcast_shapes("[...]", "[2,?]", mode="none")) == "[2,?]"
    assert str(none_merge(P("[2,3]"), P("[...]"))) == "[2,3]"
    for a, b in (("[2,3]", "[3]"), ("[2,3]", "[1,3]"), ("[1..10]", "[11..20]")):
        with pytest.raises(BroadcastError, match=r"\(none rule\)"):
            broadcast_shapes(a, b, mode="none")


def test_modes_by_spec_and_unknown_mode() -> None:
    assert str(broadcast_merge(P("[2,3]"), P("[3]"), AutoBroadcastSpec(type="numpy"))) == "[2,3]"
    assert broadcast_merge(P("[2,3]"), P("[3]"), "none") is None
    assert str(broadcast_merge(P("[2,3,4]"), P("[2,3]"), AutoBroadcastSpec(type="pdpd", axis=0))) == "[2,3,4]"
    with pytest.raises(BroadcastError, match="unknown broadcast mode 'bidirectional'"):
        broadcast_merge(P("[2]"), P("[2]"), "bidirectional")  # type: ignore[arg-type]
    with pytest.raises(BroadcastError, match="at least one shape"):
        broadcast_shapes()


@pytest.mark.parametrize(
    "target,src,expected",
    [("[2,3,4,5]", "[4,5]", "[2,3,4,5]"), ("[2,3,4,5]", "[3,1,5]", "[2,3,4,5]"),
     ("[2,3,4,5]", "[3,5]", None), ("[2,3,4,5]", "[]", "[2,3,4,5]"), ("[4,5]", "[2,4,5]", None),
     ("[?,5]", "[3,5]", "[3,5]"), ("[?,5]", "[?,5]", "[?,5]"), ("[2,?]", "[1..3]", "[2,?]"),
     ("[2,4]", "[5..8]", None), ("[...]", "[2,3]", "[...]"), ("[2,3]", "[...]", "[2,3]"),
     ("[0,3]", "[1,3]", "[0,3]")],
)
def test_one_way(target: str, src: str, expected: str | None) -> None:
    got = one_way_merge(P(target), P(src))
    assert (None if got is None else str(got)) == expected
    if expected is None:
        with pytest.raises(BroadcastError) as info:
            one_way_broadcast(target, src)
        assert f"shape {src} cannot be one-way broadcast to {target}" in str(info.value)
    else:
        assert str(one_way_broadcast(target, src)) == expected


# --- differential: OpenVINO's numpy broadcast (Add-13's shape inference is exactly it) -----------

DIMS = ["0", "1", "2", "3", "?", "1..10", "..6", "2..", "0..1", "2..4", "5..20", "6..8"]


def _ov_broadcast(ov, a: str, b: str) -> str | None:  # type: ignore[no-untyped-def]
    ops = ov.opset13
    try:
        node = ops.add(ops.parameter(ov.PartialShape(a), ov.Type.f32),
                       ops.parameter(ov.PartialShape(b), ov.Type.f32), auto_broadcast="numpy")
    except Exception as exc:  # noqa: BLE001 - the runtime reports a conflict as a generic error
        assert "Argument shapes are inconsistent" in str(exc), str(exc)
        return None
    return str(node.get_output_partial_shape(0))


def test_numpy_merge_matches_openvino_on_every_dimension_pair(ov) -> None:  # type: ignore[no-untyped-def]
    for a, b in itertools.product(DIMS, repeat=2):
        ours = numpy_merge(P(f"[{a}]"), P(f"[{b}]"))
        assert (None if ours is None else str(ours)) == _ov_broadcast(ov, f"[{a}]", f"[{b}]"), (a, b)


def test_numpy_merge_matches_openvino_on_a_shape_grid(ov) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(2026)
    seen_fail = seen_ok = 0
    for _ in range(700):
        shapes = []
        for _side in range(2):
            if rng.random() < 0.06:
                shapes.append("[...]")
                continue
            rank = rng.randint(0, 5)
            shapes.append("[" + ",".join(rng.choice(DIMS) for _ in range(rank)) + "]")
        a, b = shapes
        ours = numpy_merge(P(a), P(b))
        theirs = _ov_broadcast(ov, a, b)
        assert (None if ours is None else str(ours)) == theirs, (a, b)
        seen_ok += theirs is not None
        seen_fail += theirs is None
    assert seen_ok > 100 and seen_fail > 100  # the grid exercises both outcomes
