"""Attributes are immutable values (issues 33 and 27): no op holds a list, dict or array a caller
can change in place, nor one the caller still holds (graphir.ops.frozen, applied by the Op base)."""
from __future__ import annotations

import copy
import enum
import json
import pickle
import types
import typing
import warnings
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

import graphir
from graphir import opset
from graphir.errors import FrozenAttributeError, GraphirError
from graphir.model import Model
from graphir.ops.base import Op
from graphir.ops.directml.element_wise_if import ElementWiseIf
from graphir.ops.directml.tensor_desc import BufferTensorDesc
from graphir.ops.frozen import FrozenDict, FrozenList, freeze
from graphir.ops.registry import all_ops, lookup
from graphir.shapes import PartialShape
from graphir.types import ElementType

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIX = "attributes are immutable; use node.set_attribute(name, value)"


def mutable_parts(value: Any, where: str) -> Iterator[str]:
    """Where ``value`` holds something changeable in place: a plain list or dict, a writeable array,
    a pydantic model that is not frozen."""
    if isinstance(value, list):
        if type(value) is not FrozenList:
            yield f"{where}: {type(value).__name__}"
        for i, item in enumerate(value):
            yield from mutable_parts(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        if type(value) is not FrozenDict:
            yield f"{where}: {type(value).__name__}"
        for key, item in value.items():
            yield from mutable_parts(item, f"{where}[{key!r}]")
    elif isinstance(value, tuple):
        for i, item in enumerate(value):
            yield from mutable_parts(item, f"{where}[{i}]")
    elif isinstance(value, np.ndarray):
        if value.flags.writeable:
            yield f"{where}: writeable array"
    elif isinstance(value, BaseModel):
        if not value.model_config.get("frozen"):
            yield f"{where}: {type(value).__name__} is not frozen"
        for name, item in value.__dict__.items():
            yield from mutable_parts(item, f"{where}.{name}")


def op_mutable_parts(op: Op) -> list[str]:
    return [part for name in type(op).model_fields
            for part in mutable_parts(getattr(op, name), f"{op.describe()}.{name}")]


def _sample(annotation: Any) -> Any:
    """A value of a field's declared type, for the fields without a default."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return typing.get_args(annotation)[0]
    if origin in (typing.Union, types.UnionType):
        return _sample(typing.get_args(annotation)[0])
    if origin is list:
        return [_sample(typing.get_args(annotation)[0]), _sample(typing.get_args(annotation)[0])]
    if origin is dict:
        return {"k": 1}
    simple = {int: 1, float: 1.0, bool: False, str: "x", ElementType: ElementType.f32,
              PartialShape: PartialShape.parse("[1,2]")}
    if annotation in simple:
        return simple[annotation]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return list(annotation)[0]
    if annotation is BufferTensorDesc:
        return BufferTensorDesc(DataType="UINT8", Sizes=[1, 2])
    raise LookupError(f"no sample value for a field declared {annotation}: extend _sample")


def _build(cls: type[Op]) -> Op:
    if cls is ElementWiseIf:
        cond = BufferTensorDesc(DataType="UINT8", Sizes=[1, 2])
        a = BufferTensorDesc(DataType="FLOAT32", Sizes=[1, 2], Strides=[0, 1])
        return ElementWiseIf.from_inputs(cond, a, a)
    return cls(**{name: _sample(info.annotation) for name, info in cls.model_fields.items()
                  if info.default is PydanticUndefined and info.default_factory is None})


@pytest.mark.parametrize("cls", all_ops(), ids=lambda c: c.describe())
def test_every_registered_op_holds_only_immutable_values(cls: type[Op]) -> None:
    op = _build(cls)
    assert op_mutable_parts(op) == []
    again = op.with_attributes(**{name: getattr(op, name) for name in type(op).model_fields})
    assert again == op and op_mutable_parts(again) == []


def test_every_dialect_is_covered() -> None:
    assert {c.dialect for c in all_ops()} >= {"openvino", "onednn", "directml"}
    assert sum(1 for c in all_ops() for f in c.model_fields.values() if "list" in str(f.annotation)) > 150


def _pool() -> Any:
    x = opset.parameter([1, 3, 8, 8], "f32", name="x")
    return opset.avg_pool(x, [2, 2], [0, 0], [0, 0], [2, 2], True, name="pool")


MUTATIONS = {
    "append": lambda v: v.append(3),
    "extend": lambda v: v.extend([3]),
    "insert": lambda v: v.insert(0, 3),
    "remove": lambda v: v.remove(2),
    "pop": lambda v: v.pop(),
    "clear": lambda v: v.clear(),
    "sort": lambda v: v.sort(),
    "reverse": lambda v: v.reverse(),
    "setitem": lambda v: v.__setitem__(0, 5),
    "setslice": lambda v: v.__setitem__(slice(0, 1), [5]),
    "delitem": lambda v: v.__delitem__(0),
    "iadd": lambda v: v.__iadd__([3]),
    "imul": lambda v: v.__imul__(2),
}


@pytest.mark.parametrize("how", MUTATIONS)
def test_changing_a_list_attribute_in_place_is_refused(how: str) -> None:
    node = _pool().node
    with pytest.raises(FrozenAttributeError, match=FIX.replace("(", r"\(").replace(")", r"\)")) as caught:
        MUTATIONS[how](node.op.strides)
    assert isinstance(caught.value, GraphirError) and isinstance(caught.value, TypeError)
    assert node.op.strides == [2, 2] and str(node.outputs()[0].tensor_type) == "f32[1,3,4,4]"


def test_augmented_assignment_on_an_op_attribute_is_refused() -> None:
    op = _pool().node.op
    with pytest.raises(FrozenAttributeError):
        op.strides += [1]
    with pytest.raises(FrozenAttributeError):
        op.strides[0] = 1
    assert op.strides == [2, 2]


def test_dict_attributes_are_frozen_too() -> None:
    then_body, else_body = _branches()
    ins = [{"external_port_id": 1, "internal_layer_id": then_body.get_parameters()[0].id}]
    op = lookup("openvino", "If", "opset8")(
        then_body=then_body, else_body=else_body, then_input_descriptions=ins, then_output_descriptions=[],
        else_input_descriptions=[], else_output_descriptions=[])
    desc = op.then_input_descriptions[0]
    assert type(desc) is FrozenDict and desc == ins[0]
    for change in (lambda: desc.__setitem__("external_port_id", 2), lambda: desc.update(a=1),
                   lambda: desc.pop("external_port_id"), desc.clear, lambda: desc.setdefault("a", 1)):
        with pytest.raises(FrozenAttributeError):
            change()
    ins[0]["external_port_id"] = 7  # the caller's dict is not the op's
    ins.append({})
    assert op.then_input_descriptions == [{"external_port_id": 1, "internal_layer_id": then_body.get_parameters()[0].id}]
    assert op.then_body is then_body  # bodies are graphs, edited through their own API, not copied


def _branches() -> tuple[Model, Model]:
    tp = opset.parameter("[2]", "f32", name="tp")
    ep = opset.parameter("[2]", "f32", name="ep")
    return Model([opset.relu(tp)], [tp], name="then"), Model([opset.negative(ep)], [ep], name="else")


def test_the_callers_list_does_not_alias_the_op() -> None:
    strides, pads = [2, 2], [0, 0]
    x = opset.parameter([1, 3, 8, 8], "f32", name="x")
    out = opset.avg_pool(x, strides, pads, pads, [2, 2], True)
    strides.append(1)
    strides[0] = 5
    pads[:] = [1, 1]
    assert out.node.op.strides == [2, 2] and out.node.op.pads_begin == [0, 0]
    assert str(out.tensor_type) == "f32[1,3,4,4]"


def test_nested_values_are_copied_and_frozen() -> None:
    inner = [1, 2]
    value = [inner, {"k": [3]}, np.arange(3)]
    frozen = freeze(value)
    inner.append(9)
    value[2][0] = 7
    assert frozen == [[1, 2], {"k": [3]}, frozen[2]] and frozen[2].tolist() == [0, 1, 2]
    assert list(mutable_parts(frozen, "v")) == []
    assert freeze(frozen) is frozen and freeze(frozen[2]) is frozen[2]


def test_set_attribute_still_works_and_reinfers() -> None:
    out = _pool()
    node = out.node
    new = [1, 1]
    node.set_attribute("strides", new)
    new.append(4)
    assert node.op.strides == [1, 1] and type(node.op.strides) is FrozenList
    assert str(node.outputs()[0].tensor_type) == "f32[1,3,7,7]"
    node.op = node.op.with_attributes(kernel=[4, 4])
    assert str(node.outputs()[0].tensor_type) == "f32[1,3,5,5]" and type(node.op.kernel) is FrozenList


def test_every_way_to_make_an_op_freezes() -> None:
    op = _pool().node.op
    updated = op.model_copy(update={"strides": [1, 1]})
    constructed = type(op).model_construct(**{**op.attributes(), "pads_end": [1, 1]})
    validated = type(op).model_validate(op.model_dump())
    for other in (updated, constructed, validated):
        assert op_mutable_parts(other) == []
    assert validated == op and hash(validated) == hash(op)


def test_readers_writers_and_copies_see_plain_values() -> None:
    op = _pool().node.op
    assert op.pads_begin == [0, 0] and list(op.strides) == [2, 2] and type(list(op.strides)) is list
    assert np.asarray(op.strides).tolist() == [2, 2] and np.asarray(op.strides).dtype == np.int64
    assert json.loads(json.dumps(op.model_dump())) == json.loads(op.model_dump_json())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pydantic warns when a value does not match its field type
        dumped = op.model_dump()
    assert dumped["strides"] == [2, 2] and type(dumped["strides"]) in (list, FrozenList)
    assert repr(op.strides) == "[2, 2]"
    for other in (pickle.loads(pickle.dumps(op)), copy.copy(op), copy.deepcopy(op), op.model_copy(deep=True)):
        assert other == op and hash(other) == hash(op) and op_mutable_parts(other) == []
    assert pickle.loads(pickle.dumps(op.strides)) == [2, 2]
    assert type(pickle.loads(pickle.dumps(op.strides))) is FrozenList


def test_save_and_read_round_trip(tmp_path: Path) -> None:
    x = opset.parameter([1, 3, 8, 8], "f32", name="x")
    pooled = opset.avg_pool(x, [2, 2], [0, 0], [1, 1], [3, 3], False, name="pool")
    w = opset.constant(np.ones((4, 3, 1, 1), np.float32))
    conv = opset.convolution(pooled, w, [1, 1], [0, 0], [0, 0], [1, 1], name="conv")
    model = Model([opset.result(conv)], [x], name="m")
    graphir.save_model(model, tmp_path / "m.xml")
    again = graphir.read_model(tmp_path / "m.xml")
    ours = {n.name: n.op for n in model.get_ordered_ops()}
    theirs = {n.name: n.op for n in again.get_ordered_ops()}
    for name in ("pool", "conv"):
        assert theirs[name] == ours[name] and op_mutable_parts(theirs[name]) == []
    graphir.save_model(again, tmp_path / "again.xml")
    assert (tmp_path / "again.xml").read_bytes() == (tmp_path / "m.xml").read_bytes()


@pytest.mark.parametrize("name", ["llm/gpt2-fp32/openvino_model.xml", "torchvision_detectors/maskrcnn.xml"])
def test_ops_read_from_a_file_are_frozen(name: str) -> None:
    """Through the reader's fast paths too (template copies, Constants built without pydantic)."""
    model = graphir.read_model(FIXTURES / name)
    nodes = [n for n in model.get_ordered_ops()]
    with_lists = [n for n in nodes if any(isinstance(v, list) for v in n.op.attributes().values())]
    assert len(with_lists) > 50
    assert [p for n in nodes for p in op_mutable_parts(n.op)] == []


def test_clone_keeps_values_frozen_and_equal() -> None:
    out = _pool()
    model = Model([opset.result(out)], [out.node.inputs[0].node.outputs()[0]], name="m")
    clone = model.clone()
    pool = next(n for n in clone.get_ordered_ops() if n.name == "pool")
    assert pool.op == out.node.op and op_mutable_parts(pool.op) == []
    pool.set_attribute("strides", [1, 1])
    assert out.node.op.strides == [2, 2]
