"""The attribute codec (op fields <-> IR strings) and the .bin codec (packing of every element type)."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from graphir.errors import SerializationError
from graphir.node import Node
from graphir.ops.base import Op, Port, TensorType
from graphir.serializers.ir_attributes import decode_attributes, encode_attributes, format_float, register_ir_hook
from graphir.serializers.ir_constants import pack, unpack
from graphir.shapes import PartialShape
from graphir.types import ElementType


class _Attrs(Op):
    """Every attribute kind the codec supports (never registered: type_name is set afterwards)."""

    outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)

    flag: bool = False
    count: int = 0
    eps: float = 1e-5
    strides: list[int] = [1, 1]
    scales: list[float] = []
    mode: Literal["floor", "ceil"] = "floor"
    name_: str = Field(default="", alias="name.with.dots")
    destination_type: ElementType = ElementType.f32
    target: PartialShape = PartialShape([])
    limit: int | None = None

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        return [TensorType(ElementType.f32, PartialShape([1]))]


_Attrs.type_name = "CodecTest"
_Attrs.version = "opset1"


def _node(op: Op, extra: dict | None = None) -> Node:
    node = Node(op, [], infer=False)
    node.extra.update(extra or {})
    return node


def test_decode_each_kind() -> None:
    raw = {"flag": "true", "count": "7", "eps": "9.9999997473787516e-06", "strides": "2, 3",
           "scales": "0.5,1.5", "mode": "CEIL", "name.with.dots": "x", "destination_type": "bf16",
           "target": "?,1..10,3", "limit": "4", "unknown": "kept"}
    values, unknown, original = decode_attributes(_Attrs, raw, "f.xml: layer id=1")
    op = _Attrs(**values)
    assert op.flag is True and op.count == 7 and op.strides == [2, 3] and op.scales == [0.5, 1.5]
    assert op.eps == pytest.approx(1e-5) and op.mode == "ceil" and op.name_ == "x"
    assert op.destination_type is ElementType.bf16 and str(op.target) == "[?,1..10,3]" and op.limit == 4
    assert unknown == {"unknown": "kept"} and original["strides"] == "2, 3"


def test_encode_like_openvino() -> None:
    op = _Attrs(flag=True, count=-3, eps=float(np.float32(1e-5)), strides=[1, 2], scales=[0.25],
                mode="ceil", destination_type="u4", target="[?,2]")
    out = encode_attributes(_node(op))
    assert out == {"flag": "true", "count": "-3", "eps": "9.9999997473787516e-06", "strides": "1, 2",
                   "scales": "0.25", "mode": "ceil", "name.with.dots": "", "destination_type": "u4",
                   "target": "?,2"}  # None (limit) is not written
    assert format_float(0.5) == "0.5" and format_float(-0.75) == "-0.75" and format_float(float("inf")) == "inf"


def test_original_text_is_kept_when_unchanged_and_dropped_when_changed() -> None:
    raw = {"eps": "1e-5", "strides": "1,1", "future": "x"}
    values, unknown, original = decode_attributes(_Attrs, raw, "where")
    op = _Attrs(**values)
    node = _node(op, {"ir_attribute_text": original, "ir_unknown_attributes": unknown})
    out = encode_attributes(node)
    assert out["eps"] == "1e-5" and out["strides"] == "1,1" and out["future"] == "x"
    edited = _node(op.with_attributes(strides=[2, 2]), {"ir_attribute_text": original, "ir_unknown_attributes": unknown})
    assert encode_attributes(edited)["strides"] == "2, 2"


def test_bad_attribute_names_the_place() -> None:
    with pytest.raises(SerializationError, match=r'f.xml: layer id=3: attribute count="many" is not valid for openvino::CodecTest-opset1'):
        decode_attributes(_Attrs, {"count": "many"}, "f.xml: layer id=3")
    with pytest.raises(SerializationError, match=r'flag="maybe"'):
        decode_attributes(_Attrs, {"flag": "maybe"}, "f.xml")


def test_hook_rewrites_both_ways() -> None:
    class _Hooked(_Attrs):
        pass

    _Hooked.type_name = "HookedCodecTest"
    register_ir_hook("HookedCodecTest", read=lambda raw: {("count" if k == "n" else k): v for k, v in raw.items()},
                     write=lambda op, enc: {("n" if k == "count" else k): v for k, v in enc.items()})
    values, unknown, _ = decode_attributes(_Hooked, {"n": "5"}, "where")
    assert values == {"count": 5} and unknown == {}
    assert encode_attributes(_node(_Hooked(count=5)))["n"] == "5"


# --- .bin packing --------------------------------------------------------------------------
@pytest.mark.parametrize("et,values,packed", [
    ("u1", [1, 0, 0, 0, 0, 0, 0, 0, 1, 1], "80c0"),
    ("u2", [0, 1, 2, 3], "e4"),
    ("u4", [1, 2, 3, 4, 5], "214305"),
    ("u3", [7, 6, 5, 4, 3, 2, 1, 0, 1], "e4e4f0400000"),
    ("u6", [63, 1, 2, 3, 16], "f123c0000040"),
    ("i4", [-1, 2, -8, 7, 0], "2f7800"),
    ("nf4", [0, 7, 15], "700f"),
    ("f8e4m3", [1.0, 448.0], "387e"),
    ("f8e5m2", [1.0], "3c"),
    ("boolean", [True, False], "0100"),
    ("bf16", [1.0], "803f"),
    ("i32", [1, -1], "01000000ffffffff"),
])
def test_packing_matches_openvino_facts(et: str, values: list, packed: str) -> None:
    t = ElementType.parse(et)
    arr = np.asarray(values, dtype=t.numpy_dtype)
    assert pack(arr, t).hex() == packed
    back = unpack(bytes.fromhex(packed), t, [len(values)])
    np.testing.assert_array_equal(back.astype(np.float64), arr.astype(np.float64))


def test_strings_pack_as_openvino() -> None:
    blob = pack(np.array(["ab", "", "c"], dtype=object), ElementType.string)
    assert blob == (3).to_bytes(4, "little") + b"".join(i.to_bytes(4, "little") for i in (0, 2, 2, 3)) + b"abc"
    assert list(unpack(blob, ElementType.string, [3])) == ["ab", "", "c"]


_RANGES = {"u1": (0, 1), "u2": (0, 3), "u3": (0, 7), "u6": (0, 63), "u4": (0, 15), "i4": (-8, 7), "nf4": (0, 15), "u8": (0, 255),
           "i8": (-128, 127), "i16": (-(2**15), 2**15 - 1), "u32": (0, 2**32 - 1), "i64": (-(2**63), 2**63 - 1)}


@settings(max_examples=60, deadline=None)
@given(et=st.sampled_from(sorted(_RANGES)), data=st.data())
def test_integer_pack_unpack_round_trip(et: str, data: st.DataObject) -> None:
    lo, hi = _RANGES[et]
    values = data.draw(st.lists(st.integers(lo, hi), max_size=19))
    t = ElementType.parse(et)
    arr = np.asarray(values, dtype=t.numpy_dtype if et != "nf4" else np.uint8)
    blob = pack(arr, t)
    assert len(blob) == t.packed_size(len(values))
    np.testing.assert_array_equal(unpack(blob, t, [len(values)]).astype(np.int64), np.asarray(values, dtype=np.int64))


@settings(max_examples=40, deadline=None)
@given(et=st.sampled_from(["f16", "bf16", "f32", "f64", "f8e4m3", "f8e5m2", "f4e2m1"]),
       values=st.lists(st.floats(-4, 4, allow_nan=False), max_size=9))
def test_float_pack_unpack_round_trip(et: str, values: list[float]) -> None:
    t = ElementType.parse(et)
    arr = np.asarray(values, dtype=np.float64).astype(t.numpy_dtype)
    back = unpack(pack(arr, t), t, [len(values)])
    assert back.dtype == t.numpy_dtype
    np.testing.assert_array_equal(back.astype(np.float64), arr.astype(np.float64))
