"""Dimension and PartialShape: OpenVINO's printed and IR forms, merge/relax rules, vs openvino."""
from __future__ import annotations

import itertools
import random
import re

import numpy as np
import pytest

from graphir.errors import ShapeError
from graphir.shapes import Dimension, PartialShape

# --- Dimension -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,lo,hi,printed",
    [("3", 3, 3, "3"), ("0", 0, 0, "0"), ("?", 0, None, "?"), ("-1", 0, None, "?"),
     ("1..10", 1, 10, "1..10"), ("..10", 0, 10, "..10"), ("0..10", 0, 10, "..10"),
     ("2..", 2, None, "2.."), ("0..", 0, None, "?"), ("5..5", 5, 5, "5"), (" 4 ", 4, 4, "4")],
)
def test_dimension_parse_and_print(text: str, lo: int, hi: int | None, printed: str) -> None:
    d = Dimension.parse(text)
    assert (d.min, d.max) == (lo, hi)
    assert str(d) == printed
    assert Dimension.parse(str(d)) == d
    assert repr(d) == f"Dimension({printed})"


def test_dimension_from_ints_and_queries() -> None:
    assert Dimension.parse(7) == Dimension.static(7) == 7
    assert Dimension.parse(-1) == Dimension.dynamic()
    assert Dimension.parse(np.int64(4)) == 4
    assert Dimension(3, 3) == np.int64(3) and hash(Dimension(3, 3)) == hash(3)
    d = Dimension(1, 10)
    assert d.is_dynamic and not d.is_static and d.contains(1) and d.contains(10) and not d.contains(11)
    assert Dimension.static(4).get_length() == 4
    with pytest.raises(ShapeError, match=r"dimension 1\.\.10 is not static"):
        d.get_length()


@pytest.mark.parametrize("bad", ["abc", "-2", "+3", "1 .. 3", "?..3", "1..?", "", "3.5", -2])
def test_dimension_parse_errors_name_the_text(bad: object) -> None:
    with pytest.raises(ShapeError, match=re.escape(f"invalid dimension '{bad}'")):
        Dimension.parse(bad)  # type: ignore[arg-type]


def test_dimension_interval_upside_down_is_an_error() -> None:
    with pytest.raises(ShapeError, match="'10..1': upper bound below lower bound"):
        Dimension.parse("10..1")
    with pytest.raises(ShapeError, match=r"invalid dimension interval 5\.\.3"):
        Dimension(5, 3)
    with pytest.raises(ShapeError, match="invalid dimension interval -1"):
        Dimension(-1, 3)


@pytest.mark.parametrize(
    "a,b,merged",
    [("?", "3", "3"), ("1..10", "5", "5"), ("2", "3", None), ("1..10", "5..20", "5..10"),
     ("1..10", "11..20", None), ("?", "?", "?"), ("2..", "..6", "2..6"), ("0", "?", "0")],
)
def test_dimension_merge(a: str, b: str, merged: str | None) -> None:
    got = Dimension.parse(a).merge(Dimension.parse(b))
    assert (None if got is None else str(got)) == merged
    assert Dimension.parse(a).compatible(Dimension.parse(b)) == (merged is not None)


def test_dimension_relaxes_refines_hull_and_arithmetic() -> None:
    p = Dimension.parse
    assert p("1..10").relaxes(p("5")) and not p("5").relaxes(p("1..10"))
    assert p("5").refines(p("1..10")) and p("?").relaxes(p("2.."))
    assert not p("..10").relaxes(p("2.."))
    assert str(p("1..3").hull(p("5..6"))) == "1..6" and str(p("1..3").hull(p("2.."))) == "1.."
    assert str(p("1..3") + p("2")) == "3..5" and str(p("2") + 1) == "3" and str(p("2..") + 1) == "3.."
    assert str(p("2..3") * 4) == "8..12" and str(p("?") * 0) == "0" and str(p("2..") * p("3")) == "6.."
    assert str(p("5..10") - 2) == "3..8" and str(p("5") - p("1..3")) == "2..4"
    assert str(p("10..21") // 2) == "5..10"


# --- PartialShape --------------------------------------------------------------------------------

ISSUE_FORMS = ["[2,3]", "[?,3]", "[1..10,4]", "[..6]", "[2..]", "[...]", "[]"]


@pytest.mark.parametrize("text", ISSUE_FORMS)
def test_partial_shape_round_trips_openvino_forms(text: str) -> None:
    ps = PartialShape.parse(text)
    assert str(ps) == text
    assert PartialShape.parse(str(ps)) == ps
    assert repr(ps) == f"PartialShape('{text}')"


@pytest.mark.parametrize(
    "text,printed",
    [("2,3", "[2,3]"), ("[ 2, 3 ]", "[2,3]"), ("-1,3", "[?,3]"), ("(2,3)", "[2,3]"),
     ("...", "[...]"), ("  [ ]  ", "[]"), ("[0..5,5..5]", "[..5,5]")],
)
def test_partial_shape_lenient_spellings(text: str, printed: str) -> None:
    assert str(PartialShape.parse(text)) == printed


def test_partial_shape_from_python_values() -> None:
    assert str(PartialShape.parse([2, -1, "1..3"])) == "[2,?,1..3]"
    assert str(PartialShape.parse((np.int64(4), 5))) == "[4,5]"
    assert str(PartialShape.parse(None)) == "[...]"
    assert str(PartialShape([])) == "[]"
    assert str(PartialShape.dynamic()) == "[...]" and str(PartialShape.dynamic(2)) == "[?,?]"
    ps = PartialShape.parse("[2,3]")
    assert PartialShape.parse(ps) is ps


@pytest.mark.parametrize(
    "bad,detail",
    [("[1,2", "unbalanced brackets"), ("1,2]", "unbalanced brackets"), ("1,,2", "invalid dimension ''"),
     ("[?,]", "invalid dimension ''"), ("[...,3]", "invalid dimension '...'"),
     ("[2,x]", "invalid dimension 'x'")],
)
def test_partial_shape_parse_errors_name_the_text(bad: str, detail: str) -> None:
    with pytest.raises(ShapeError) as info:
        PartialShape.parse(bad)
    assert f"invalid shape '{bad}'" in str(info.value)
    assert detail in str(info.value)


def test_partial_shape_from_a_non_iterable_is_an_error() -> None:
    with pytest.raises(ShapeError, match="cannot make a shape from 5"):
        PartialShape.parse(5)  # type: ignore[arg-type]


def test_partial_shape_queries() -> None:
    ps = PartialShape.parse("[2,?,1..4]")
    assert ps.rank == 3 and ps.rank_is_static and not ps.rank_is_dynamic and len(ps) == 3
    assert ps[1] == Dimension.dynamic() and str(ps[1:]) == "[?,1..4]" and list(ps)[0] == 2
    assert ps.is_dynamic and not ps.is_static and ps.get_min_shape() == (2, 0, 1)
    assert ps.compatible_with_shape((2, 100, 4)) and not ps.compatible_with_shape((2, 100, 5))
    assert not ps.compatible_with_shape((2, 1))
    assert PartialShape.parse("[3,4]").to_shape() == (3, 4)
    with pytest.raises(ShapeError, match=r"shape \[2,\?,1\.\.4\] is not static"):
        ps.to_shape()
    dyn = PartialShape.dynamic()
    assert dyn.rank_is_dynamic and str(dyn.rank) == "?" and dyn.compatible_with_shape((1, 2, 3))
    with pytest.raises(ShapeError, match="dynamic rank has no dimensions"):
        dyn.dims
    assert ps == "[2,?,1..4]" and PartialShape.parse("[2,3]") == [2, 3] and ps != "[2,"
    assert hash(PartialShape.parse("[?,3]")) == hash(PartialShape.parse("-1,3"))


@pytest.mark.parametrize(
    "text,shape",
    [("-1", "[?]"), ("?,1..10,2..,..6,3", "[?,1..10,2..,..6,3]"), ("", "[]"), (None, "[]"),
     ("...", "[...]"), ("1, 2", "[1,2]"), ("[1,3]", "[1,3]")],
)
def test_ir_forms(text: str | None, shape: str) -> None:
    ps = PartialShape.parse_ir(text)
    assert str(ps) == shape
    assert PartialShape.parse_ir(ps.to_ir()) == ps


def test_to_ir_writes_openvino_parameter_form() -> None:
    assert PartialShape.parse("[?,1..10,..6,2..,3]").to_ir() == "?,1..10,..6,2..,3"
    assert PartialShape.parse("[]").to_ir() == ""
    assert PartialShape.dynamic().to_ir() == "..."


@pytest.mark.parametrize(
    "a,b,merged",
    [("[?,3]", "[2,?]", "[2,3]"), ("[1..10,4]", "[5,4]", "[5,4]"), ("[2,3]", "[3,3]", None),
     ("[...]", "[2,3]", "[2,3]"), ("[2,3]", "[...]", "[2,3]"), ("[2,3]", "[2,3,1]", None),
     ("[]", "[]", "[]"), ("[...]", "[...]", "[...]")],
)
def test_partial_shape_merge(a: str, b: str, merged: str | None) -> None:
    got = PartialShape.parse(a).merge(PartialShape.parse(b))
    assert (None if got is None else str(got)) == merged


def test_partial_shape_relaxes_and_refines() -> None:
    p = PartialShape.parse
    assert p("[...]").relaxes(p("[2,3]")) and not p("[2,3]").relaxes(p("[...]"))
    assert p("[?,1..5]").relaxes(p("[4,3]")) and p("[4,3]").refines(p("[?,1..5]"))
    assert not p("[?,1..5]").relaxes(p("[4,6]")) and not p("[?]").relaxes(p("[?,?]"))


def test_pydantic_fields_typed_partial_shape_validate_and_serialize() -> None:
    from pydantic import BaseModel

    from graphir.errors import GraphirError

    class Holder(BaseModel):
        shape: PartialShape

    h = Holder(shape="[?,3]")
    assert isinstance(h.shape, PartialShape) and str(h.shape) == "[?,3]"
    assert Holder(shape=[1, 2]).model_dump() == {"shape": "[1,2]"}
    assert Holder.model_json_schema()["properties"]["shape"]["type"] == "string"
    with pytest.raises((GraphirError, ValueError), match="invalid shape"):
        Holder(shape="[1,")


# --- differential against openvino.Dimension / PartialShape ---------------------------------------

DIM_GRID = ["0", "1", "3", "5", "?", "1..10", "..6", "2..", "0..1", "5..20", "11..20", "4..4", "1.."]


def _shape_grid(seed: int = 7, count: int = 400) -> list[str]:
    rng = random.Random(seed)
    shapes = ["[...]", "[]"] + [f"[{d}]" for d in DIM_GRID]
    for _ in range(count):
        rank = rng.randint(0, 8)
        shapes.append("[" + ",".join(rng.choice(DIM_GRID) for _ in range(rank)) + "]")
    return shapes


def test_printing_matches_openvino(ov) -> None:  # type: ignore[no-untyped-def]
    for d in DIM_GRID:
        assert str(Dimension.parse(d)) == str(ov.Dimension(d)), d
        ours, theirs = Dimension.parse(d), ov.Dimension(d)
        assert ours.min == theirs.get_min_length()
        assert (ours.max if ours.max is not None else -1) == theirs.get_max_length()
        assert ours.is_static == theirs.is_static
    for s in _shape_grid():
        assert str(PartialShape.parse(s)) == str(ov.PartialShape(s)), s
        # unbracketed IR spelling reads the same way in both
        assert str(PartialShape.parse(s.strip("[]"))) == str(ov.PartialShape(s.strip("[]"))), s


def test_dimension_relations_match_openvino(ov) -> None:  # type: ignore[no-untyped-def]
    for a, b in itertools.product(DIM_GRID, repeat=2):
        ours, da, db = Dimension.parse(a), ov.Dimension(a), ov.Dimension(b)
        other = Dimension.parse(b)
        assert ours.compatible(other) == da.compatible(db), (a, b)
        assert ours.relaxes(other) == da.relaxes(db), (a, b)
        assert ours.refines(other) == da.refines(db), (a, b)


def test_partial_shape_relations_match_openvino(ov) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(11)
    grid = _shape_grid(count=120)
    for _ in range(600):
        a, b = rng.choice(grid), rng.choice(grid)
        if rng.random() < 0.5 and a not in ("[...]",):  # same rank pairs are the interesting ones
            b = "[" + ",".join(rng.choice(DIM_GRID) for _ in range(len(PartialShape.parse(a)))) + "]"
        pa, pb = PartialShape.parse(a), PartialShape.parse(b)
        oa, ob = ov.PartialShape(a), ov.PartialShape(b)
        assert pa.compatible(pb) == oa.compatible(ob), (a, b)
        assert pa.relaxes(pb) == oa.relaxes(ob), (a, b)
        assert pa.refines(pb) == oa.refines(ob), (a, b)


def test_merge_matches_openvino_merge_into(ov) -> None:  # type: ignore[no-untyped-def]
    """Add with auto_broadcast='none' checks ``PartialShape::merge_into``: it is the merge oracle."""
    ops = ov.opset13
    rng = random.Random(5)
    pairs = [(f"[{a}]", f"[{b}]") for a, b in itertools.product(DIM_GRID, repeat=2)]
    for _ in range(150):
        rank = rng.randint(0, 4)
        pairs.append(tuple("[" + ",".join(rng.choice(DIM_GRID) for _ in range(rank)) + "]" for _ in range(2)))
    pairs += [("[...]", "[2,?]"), ("[1..3,4]", "[...]"), ("[2]", "[2,2]")]
    for a, b in pairs:
        ours = PartialShape.parse(a).merge(PartialShape.parse(b))
        try:
            node = ops.add(ops.parameter(ov.PartialShape(a), ov.Type.f32),
                           ops.parameter(ov.PartialShape(b), ov.Type.f32), auto_broadcast="none")
            theirs = str(node.get_output_partial_shape(0))
        except Exception as exc:  # noqa: BLE001 - the runtime reports a conflict as a generic error
            assert "Argument shapes are inconsistent" in str(exc)
            theirs = None
        assert (None if ours is None else str(ours)) == theirs, (a, b)


def test_constructor_takes_what_openvino_takes() -> None:
    assert str(PartialShape("[2,?]")) == "[2,?]" and str(PartialShape("1..3,4")) == "[1..3,4]"
    assert str(PartialShape("[...]")) == "[...]" and str(PartialShape(PartialShape.dynamic())) == "[...]"
    assert str(PartialShape(PartialShape("[..6]"))) == "[..6]"
    with pytest.raises(ShapeError, match=r"invalid shape '\[2,x\]'"):
        PartialShape("[2,x]")


# --- algebraic properties (hypothesis) -----------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_dims = st.one_of(
    st.integers(0, 6).map(Dimension.static),
    st.tuples(st.integers(0, 6), st.one_of(st.none(), st.integers(0, 6))).filter(
        lambda t: t[1] is None or t[1] >= t[0]).map(lambda t: Dimension(*t)),
)


@settings(max_examples=200, deadline=None)
@given(_dims, _dims)
def test_dimension_merge_and_broadcast_properties(a: Dimension, b: Dimension) -> None:
    m = a.merge(b)
    assert m == b.merge(a)  # commutative
    assert (m is not None) == a.compatible(b)
    if m is not None:
        assert m.refines(a) and m.refines(b)  # the merge admits only what both admit
        assert all(a.contains(n) and b.contains(n) for n in range(m.min, (8 if m.max is None else m.max) + 1))
    assert a.broadcast_merge(b) == b.broadcast_merge(a)  # numpy broadcast is symmetric
    assert a.relaxes(a) and a.hull(b).relaxes(a) and a.hull(b).relaxes(b)
    assert Dimension.parse(str(a)) == a  # printing round-trips
