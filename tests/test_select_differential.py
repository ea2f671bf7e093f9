"""OpenVINO Select-1: graphir's shape/type inference against the real runtime, case by case.

Each case builds the same Select in graphir and in openvino (``openvino.opset1.select`` on
``opset1.parameter``s, or an IR read by ``Core.read_model`` when the pdpd axis must be set) and
asserts the same output type and partial shape, or that both reject with the same rule.
"""
from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from graphir import opset
from graphir.errors import GraphirError
from graphir.shapes import PartialShape

DIMS = ["0", "1", "2", "3", "5", "?", "1..4", "2..4", "..5", "2..", "0..1", "3..6", "1..10"]
VALUE_TYPES = ["f32", "f16", "bf16", "f64", "i4", "u4", "i8", "u8", "i16", "u16", "i32", "u32",
               "i64", "u64", "f8e4m3", "f8e5m2", "boolean", "dynamic"]
COND_TYPES = ["boolean", "boolean", "boolean", "dynamic", "u8", "f32"]

# cases written out from the issue and the measured facts: (cond, then, else, mode)
KNOWN = [
    ("[2,3,4,5]", "[4,5]", "[4,5]", "numpy"),
    ("[3,5]", "[2,3,4,5]", "[2,3,4,5]", "numpy"),
    ("[2,1]", "[1,3]", "[3]", "numpy"),
    ("[?,3]", "[1,3]", "[1,3]", "numpy"),
    ("[1..10,4]", "[5,4]", "[5,4]", "numpy"),
    ("[...]", "[2,3]", "[2,3]", "numpy"),
    ("[...]", "[2,3]", "[4,5]", "numpy"),
    ("[2,1,3]", "[3]", "[4,1]", "numpy"),
    ("[0]", "[1]", "[?]", "numpy"),
    ("[0]", "[3]", "[3]", "numpy"),
    ("[]", "[]", "[]", "numpy"),
    ("[1,1,1,1,1,1,1,1]", "[2,1,3,1,4,1,5,1]", "[6]", "numpy"),
    ("[?,3]", "[2,3]", "[2,?]", "none"),
    ("[1..10]", "[5..20]", "[?]", "none"),
    ("[1..10]", "[11..20]", "[?]", "none"),
    ("[2]", "[3]", "[2]", "none"),
    ("[1,4]", "[2,4]", "[2,4]", "none"),
    ("[...]", "[2,4]", "[2,4]", "none"),
    ("[2,3]", "[2,3,4,5]", "[2,3,4,5]", "pdpd"),
    ("[4,5]", "[2,3,4,5]", "[2,3,4,5]", "pdpd"),
    ("[5]", "[1..4]", "[1..4]", "pdpd"),
    ("[1]", "[0,3]", "[0,3]", "pdpd"),
    ("[0]", "[1,3]", "[1,3]", "pdpd"),
    ("[2,3]", "[1,3]", "[2,3]", "pdpd"),
    ("[2,1]", "[2,3]", "[2,1]", "pdpd"),
    ("[3]", "[2..4]", "[2..4]", "pdpd"),
    ("[5]", "[2..4]", "[2..4]", "pdpd"),
    ("[...]", "[2,3]", "[2]", "pdpd"),
]


def _shape_from(rng: random.Random, base: list[str], rank_range: int) -> PartialShape:
    """A shape related to ``base`` (a trailing/leading slice with some dims replaced)."""
    if rng.random() < 0.05:
        return PartialShape.dynamic()
    rank = rng.randint(0, rank_range)
    if rank > len(base):
        base = [rng.choice(DIMS) for _ in range(rank - len(base))] + base
    start = rng.choice([len(base) - rank, 0, rng.randint(0, len(base) - rank)])
    dims = []
    for d in base[start:start + rank]:
        x = rng.random()
        dims.append(d if x < 0.55 else "1" if x < 0.75 else rng.choice(DIMS))
    return PartialShape(dims)


def _same_rank(rng: random.Random, base: list[str]) -> PartialShape:
    """``base`` with a few dims replaced (what the none rule can accept)."""
    if rng.random() < 0.05:
        return PartialShape.dynamic()
    return PartialShape([d if rng.random() < 0.8 else rng.choice(DIMS) for d in base])


def shape_grid(seed: int, count: int, max_rank: int = 8,
               same_rank: bool = False) -> Iterator[tuple[PartialShape, ...]]:
    """``count`` (cond, then, else) triples, most of them related so many are accepted."""
    rng = random.Random(seed)
    for _ in range(count):
        rank = rng.choice([0, 1, 2, 2, 3, 3, 4, 4, 5, max_rank])
        base = [rng.choice(DIMS) for _ in range(rank)]
        if same_rank:
            yield _same_rank(rng, base), _same_rank(rng, base), _same_rank(rng, base)
            continue
        then = PartialShape(base) if rng.random() < 0.7 else _shape_from(rng, base, rank)
        yield _shape_from(rng, base, rank + 1), then, _shape_from(rng, base, rank)


def classify(message: str) -> str:
    """The rule a rejection names, in words both graphir and OpenVINO use."""
    for key in ("'Else' tensor shape is not broadcastable", "'Cond' tensor shape is not broadcastable",
                "Argument shapes are inconsistent", "Argument 0 must have boolean element type",
                "Argument 1 and 2 element types must match"):
        if key in message:
            return key
    return "other: " + message[-300:]


def graphir_select(shapes: tuple[PartialShape, ...], types_: tuple[str, ...], mode: str,
                   axis: int = 0) -> str:
    params = [opset.parameter(s, t) for s, t in zip(shapes, types_)]
    try:
        out = opset.make("Select", *params, auto_broadcast=mode, axis=axis)
    except GraphirError as exc:
        return "ERROR " + classify(str(exc))
    return f"{out.element_type}{out.partial_shape}"


@pytest.fixture(scope="module")
def ov_select(ov):
    opset1 = pytest.importorskip("openvino.opset1")

    def build(shapes: tuple[PartialShape, ...], types_: tuple[str, ...], mode: str) -> str:
        try:
            params = [opset1.parameter(ov.PartialShape(str(s)), getattr(ov.Type, t))
                      for s, t in zip(shapes, types_)]
            node = opset1.select(*params, auto_broadcast=mode)
        except Exception as exc:  # openvino raises its own exception types
            return "ERROR " + classify(str(exc))
        return f"{node.get_output_element_type(0).get_type_name()}{node.get_output_partial_shape(0)}"

    return build


def _ir_port(pid: int, precision: str, shape: PartialShape) -> str:
    dims = "" if shape.rank_is_dynamic else "".join(
        f"<dim>{'-1' if d.is_dynamic else d.min}</dim>" for d in shape.dims)
    return f'<port id="{pid}" precision="{precision}">{dims}</port>'


def select_ir(shapes: tuple[PartialShape, ...], axis: int | None) -> str:
    """A three-Parameter Select IR v11 in pdpd mode; ``axis=None`` leaves the axis attribute out."""
    c, t, e = shapes
    layers = []
    for i, (s, et, prec) in enumerate(((c, "boolean", "BOOL"), (t, "f32", "FP32"), (e, "f32", "FP32"))):
        layers.append(f'<layer id="{i}" name="p{i}" type="Parameter" version="opset1">'
                      f'<data shape="{s.to_ir()}" element_type="{et}"/><output>{_ir_port(0, prec, s)}'
                      f'</output></layer>')
    axis_attr = "" if axis is None else f' auto_broadcast.auto_broadcast_axis="{axis}"'
    layers.append(f'<layer id="3" name="sel" type="Select" version="opset1"><data auto_broadcast="pdpd"'
                  f'{axis_attr}/><input>{_ir_port(0, "BOOL", c)}{_ir_port(1, "FP32", t)}'
                  f'{_ir_port(2, "FP32", e)}</input><output>{_ir_port(3, "FP32", t)}</output></layer>')
    layers.append(f'<layer id="4" name="out" type="Result" version="opset1"><input>'
                  f'{_ir_port(0, "FP32", t)}</input></layer>')
    edges = "".join(f'<edge from-layer="{i}" from-port="0" to-layer="3" to-port="{i}"/>' for i in range(3))
    edges += '<edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>'
    return (f'<?xml version="1.0"?><net name="m" version="11"><layers>{"".join(layers)}</layers>'
            f'<edges>{edges}</edges></net>')


@pytest.mark.parametrize("cond,then,else_,mode", KNOWN)
def test_known_cases_match_openvino(ov_select, cond: str, then: str, else_: str, mode: str) -> None:
    shapes = (PartialShape.parse(cond), PartialShape.parse(then), PartialShape.parse(else_))
    types_ = ("boolean", "f32", "f32")
    assert graphir_select(shapes, types_, mode) == ov_select(shapes, types_, mode)


def test_issue_examples_exactly() -> None:
    b, f = "boolean", "f32"
    assert graphir_select(tuple(map(PartialShape.parse, ("[2,3,4,5]", "[4,5]", "[4,5]"))), (b, f, f), "numpy") == "f32[2,3,4,5]"
    assert graphir_select(tuple(map(PartialShape.parse, ("[2,1]", "[1,3]", "[3]"))), (b, f, f), "numpy") == "f32[2,3]"
    assert graphir_select(tuple(map(PartialShape.parse, ("[1..10,4]", "[5,4]", "[5,4]"))), (b, f, f), "numpy") == "f32[5,4]"
    assert graphir_select(tuple(map(PartialShape.parse, ("[5]", "[1..4]", "[1..4]"))), (b, f, f), "pdpd") == "f32[5]"
    assert graphir_select(tuple(map(PartialShape.parse, ("[3,5]", "[2,3,4,5]", "[2,3,4,5]"))), (b, f, f),
                          "numpy").startswith("ERROR Argument shapes are inconsistent")


@pytest.mark.parametrize("mode,seed,count", [("numpy", 1, 1200), ("none", 2, 500), ("pdpd", 3, 1200)])
def test_shape_grid_matches_openvino(ov_select, mode: str, seed: int, count: int) -> None:
    mismatches = []
    accepted = 0
    for shapes in shape_grid(seed, count, same_rank=mode == "none"):
        types_ = ("boolean", "f32", "f32")
        ours, theirs = graphir_select(shapes, types_, mode), ov_select(shapes, types_, mode)
        accepted += not theirs.startswith("ERROR")
        if ours != theirs:
            mismatches.append(f"{[str(s) for s in shapes]}: graphir {ours} / openvino {theirs}")
    assert not mismatches, f"{len(mismatches)} of {count} differ:\n" + "\n".join(mismatches[:20])
    assert count * 0.2 < accepted < count * 0.95, f"grid too one-sided: {accepted} of {count} accepted"


def test_type_grid_matches_openvino(ov_select) -> None:
    rng = random.Random(7)
    mismatches = []
    for shapes in shape_grid(11, 400, max_rank=4):
        types_ = (rng.choice(COND_TYPES), rng.choice(VALUE_TYPES),
                  rng.choice(VALUE_TYPES) if rng.random() < 0.3 else "")
        types_ = (types_[0], types_[1], types_[2] or (types_[1] if rng.random() < 0.8 else "dynamic"))
        mode = rng.choice(["numpy", "none", "pdpd"])
        ours, theirs = graphir_select(shapes, types_, mode), ov_select(shapes, types_, mode)
        if ours != theirs:
            mismatches.append(f"{types_} {[str(s) for s in shapes]} {mode}: graphir {ours} / openvino {theirs}")
    assert not mismatches, "\n".join(mismatches[:20])


def test_pdpd_factory_and_ir_default_axis_is_zero(ov) -> None:
    """Without the IR attribute the axis is 0 (leading alignment), as from the Python factory."""
    core = ov.Core()
    lead = tuple(map(PartialShape.parse, ("[2,3]", "[2,3,4,5]", "[2,3,4,5]")))
    trail = tuple(map(PartialShape.parse, ("[4,5]", "[2,3,4,5]", "[2,3,4,5]")))
    weights = ov.Tensor(ov.Type.u8, [0])
    assert str(core.read_model(select_ir(lead, None).encode(), weights).output(0).get_partial_shape()) == "[2,3,4,5]"
    with pytest.raises(Exception, match="'Cond' tensor shape is not broadcastable"):
        core.read_model(select_ir(trail, None).encode(), weights)
    assert graphir_select(lead, ("boolean", "f32", "f32"), "pdpd") == "f32[2,3,4,5]"
    assert graphir_select(trail, ("boolean", "f32", "f32"), "pdpd").startswith("ERROR 'Cond'")
    assert graphir_select(trail, ("boolean", "f32", "f32"), "pdpd", axis=-1) == "f32[2,3,4,5]"


def test_pdpd_axis_from_ir_matches_graphir(ov) -> None:
    core = ov.Core()
    weights = ov.Tensor(ov.Type.u8, [0])
    rng = random.Random(5)
    mismatches = []
    for shapes in shape_grid(13, 250, max_rank=5):
        axis = rng.choice([-1, -1, 0, 1, 2, 3, -2])
        try:
            model = core.read_model(select_ir(shapes, axis).encode(), weights)
            theirs = "f32" + str(model.output(0).get_partial_shape())
        except Exception as exc:
            theirs = "ERROR " + classify(str(exc))
        ours = graphir_select(shapes, ("boolean", "f32", "f32"), "pdpd", axis=axis)
        if ours != theirs:
            mismatches.append(f"{[str(s) for s in shapes]} axis {axis}: graphir {ours} / openvino {theirs}")
    assert not mismatches, "\n".join(mismatches[:20])


@pytest.mark.parametrize("dst,src,axis,expected", [
    ("[2,3,4,5]", "[2,3]", 0, "[2,3,4,5]"),
    ("[2,3,4,5]", "[4,5]", 0, None),
    ("[2,3,4,5]", "[4,5]", -1, "[2,3,4,5]"),
    ("[2,3,4]", "[3,1]", 1, "[2,3,4]"),
    ("[2,3,4]", "[3,4]", 2, None),  # runs past the end
    ("[2,3]", "[3]", -2, None),  # axis below -1
    ("[0,3]", "[1]", 0, None),  # a static source dim above the target's: 1 does not fit 0
    ("[1,3]", "[0]", 0, "[0,3]"),
    ("[1..4]", "[5]", 0, "[5]"),  # a target that may be 1 is widened
    ("[2..4]", "[5]", 0, None),
    ("[2..4]", "[3]", 0, "[3]"),
    ("[2,3]", "[...]", 0, "[...]"),
    ("[...]", "[2]", 0, "[...]"),
    ("[2]", "[2,3]", 0, None),
])
def test_pdpd_merge_rules(dst: str, src: str, axis: int, expected: str | None) -> None:
    """What OpenVINO 2026.4 does (measured by the grid tests above), pinned without openvino."""
    from graphir.broadcast import pdpd_merge

    merged = pdpd_merge(PartialShape.parse(dst), PartialShape.parse(src), axis)
    assert (None if merged is None else str(merged)) == expected


@pytest.mark.parametrize("shapes,types_,mode,message", [
    (("[3,5]", "[2,3,4,5]", "[2,3,4,5]"), ("boolean", "f32", "f32"), "numpy",
     r"Argument shapes are inconsistent: cond \[3,5\], then \[2,3,4,5\], else \[2,3,4,5\] \(numpy: right-aligned, "
     r"each dim equal or 1; input 0 \('cond'\) \[3,5\] does not fit \[2,3,4,5\]\)"),
    (("[2]", "[3]", "[2]"), ("boolean", "f32", "f32"), "none",
     r"none: shapes must be equal; input 1 \('then'\) \[3\] does not fit \[2\]"),
    (("[2]", "[2,3]", "[3]"), ("boolean", "f32", "f32"), "pdpd",
     r"'Else' tensor shape is not broadcastable: input 2 \('else'\) \[3\] into input 1 \('then'\) \[2,3\] "
     r"\(pdpd broadcast from axis 0"),
    (("[2]", "[2]", "[2]"), ("u8", "f32", "f32"), "numpy",
     r"Argument 0 must have boolean element type \(element type: u8\); input 0 \('cond'\) is u8\[2\]"),
    (("[2]", "[2]", "[2]"), ("boolean", "f32", "i32"), "numpy",
     r"Argument 1 and 2 element types must match: input 1 \('then'\) is f32, input 2 \('else'\) is i32"),
])
def test_error_messages_name_input_shapes_and_rule(shapes, types_, mode: str, message: str) -> None:
    params = [opset.parameter(s, t) for s, t in zip(shapes, types_)]
    with pytest.raises(GraphirError, match=message) as info:
        opset.make("Select", *params, auto_broadcast=mode, name="sel")
    assert "'sel' (Select-opset1)" in str(info.value)


def test_pdpd_axis_survives_an_ir_round_trip_through_openvino(ov, tmp_path) -> None:
    import graphir

    c, a, b = (opset.parameter(s, t, name=n) for s, t, n in
               (("[4]", "boolean", "c"), ("[2,3,4]", "f32", "a"), ("[3,4]", "f32", "b")))
    y = opset.make("Select", c, a, b, auto_broadcast="pdpd", axis=-1, name="sel")
    graphir.save_model(graphir.Model([y], [c.node, a.node, b.node]), tmp_path / "pdpd.xml")
    assert str(ov.Core().read_model(str(tmp_path / "pdpd.xml")).output(0).get_partial_shape()) == "[2,3,4]"
    op = graphir.read_model(tmp_path / "pdpd.xml").node("sel").op
    assert (op.auto_broadcast, op.axis) == ("pdpd", -1)
