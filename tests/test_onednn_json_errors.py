"""Bad oneDNN Graph JSON is a SerializationError naming the file, the op id and the field."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphir import opset, save_model
from graphir.errors import SerializationError
from graphir.model import Model
from graphir.serializers.onednn_json import UNKNOWN, dumps, loads, read_json
from tests.shared_data import SHARED, require_shared

F32 = {"dtype": "f32", "layout_type": "strided", "property_type": "undef"}


def lt(ident: int, shape: list[int], dtype: str = "f32") -> dict[str, Any]:
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    return {"id": ident, "dtype": dtype, "shape": shape, "stride": strides, "layout_type": "strided", "property_type": "undef"}


def graph() -> dict[str, Any]:
    return {
        "version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict",
        "graph": [
            {"id": 7, "name": "add", "kind": "Add", "attrs": {"auto_broadcast": {"type": "string", "value": "numpy"}},
             "inputs": [lt(0, [2, 3]), lt(1, [1, 3])], "outputs": [lt(2, [2, 3])]},
            {"id": 8, "name": "relu", "kind": "ReLU", "attrs": {}, "inputs": [lt(2, [2, 3])], "outputs": [lt(3, [2, 3])]},
        ],
    }


def load(data: Any, tmp_path: Path) -> Model:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    return read_json(path)


def test_good_graph_runs(tmp_path: Path) -> None:
    model = load(graph(), tmp_path)
    a, b = np.array([[1, -2, 3], [-4, 5, -6]], np.float32), np.array([[1, 1, 1]], np.float32)
    (y,) = model.run({"0": a, "1": b}).values()
    np.testing.assert_array_equal(y, np.maximum(a + b, 0))


def mutate(fn) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(graph())
    fn(data)
    return data


CASES = [
    ("missing top-level key", lambda d: d.pop("fpmath_mode"), r"top level: missing key 'fpmath_mode'"),
    ("missing op key", lambda d: d["graph"][1].pop("kind"), r"op 8 'relu', field 'kind': missing key"),
    ("missing tensor key", lambda d: d["graph"][0]["inputs"][1].pop("stride"),
     r"op 7 'add' \(Add\), field 'inputs\[1\]\.stride': missing key"),
    ("produced twice", lambda d: d["graph"][1]["outputs"][0].update(id=2),
     r"op 8 'relu' \(ReLU\), field 'outputs\[0\]\.id': logical tensor 2 is already an output of op 7 'add'"),
    ("stride length", lambda d: d["graph"][0]["inputs"][0].update(stride=[1]),
     r"op 7 'add' \(Add\), field 'inputs\[0\]\.stride': .*stride \[1\] has 1 values but shape \[2, 3\] has 2"),
    ("unknown kind", lambda d: d["graph"][1].update(kind="Relu6"), r"op 8 'relu' \(Relu6\), field 'kind': unknown oneDNN Graph op kind 'Relu6'"),
    ("input dtype constraint", lambda d: d["graph"][0]["inputs"][0].update(dtype="s8"),
     r"op 7 'add' \(Add\), field 'inputs'.*input 0 \('src_0'\) has element type i8"),
    ("output dtype constraint", lambda d: [t.update(dtype="s8") for t in (d["graph"][1]["inputs"][0], d["graph"][0]["outputs"][0])],
     r"op 7 'add' \(Add\), field 'outputs\[0\]\.dtype': output 0 \('dst'\) cannot be s8 \(i8\)"),
    ("unknown dtype", lambda d: d["graph"][0]["inputs"][0].update(dtype="f128"), r"field 'inputs\[0\]\.dtype': unknown data type 'f128'"),
    ("attribute kind", lambda d: d["graph"][0]["attrs"]["auto_broadcast"].update(type="s64"),
     r"op 7 'add' \(Add\), field 'attrs\.auto_broadcast': attribute type 's64', expected 'string'"),
    ("attribute value", lambda d: d["graph"][0]["attrs"]["auto_broadcast"].update(value="pdpd"),
     r"op 7 'add' \(Add\), field 'attrs'.*auto_broadcast"),
    ("unknown attribute", lambda d: d["graph"][1]["attrs"].update(alpha={"type": "f32", "value": 1.0}),
     r"field 'attrs\.alpha': unknown attribute for ReLU"),
    ("recorded shape disagrees", lambda d: d["graph"][1]["outputs"][0].update(shape=[3, 2], stride=[2, 1]),
     r"op 8 'relu' \(ReLU\), field 'outputs\[0\]\.shape': the file records \[3, 2\] but the inputs give \[2,3\]"),
    ("broadcast failure", lambda d: d["graph"][0]["inputs"][1].update(shape=[4], stride=[1]),
     r"op 7 'add' \(Add\), field 'inputs'.*\[2,3\].*\[4\]"),
    ("too many outputs", lambda d: d["graph"][1]["outputs"].append(lt(9, [2, 3])), r"op 8 'relu' \(ReLU\), field 'outputs': ReLU has 1 outputs, the file lists 2"),
    ("too many inputs", lambda d: d["graph"][1]["inputs"].append(lt(0, [2, 3])), r"field 'inputs': ReLU takes 1 inputs, the file lists 2"),
    ("cycle", lambda d: d["graph"][0]["inputs"][0].update(id=3), r"cycle"),
    ("graph not a list", lambda d: d.update(graph={}), r"graph: expected a list of ops"),
]


@pytest.mark.parametrize("name, fn, pattern", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_a_serialization_error(name: str, fn, pattern: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SerializationError, match=pattern) as info:
        load(mutate(fn), tmp_path)
    assert str(tmp_path / "bad.json") in str(info.value)


def test_output_port_naming_no_tensor_is_ignored() -> None:
    """oneDNN's benchdnn runs int8_softmax_add.json, whose output_ports name a tensor no op
    produces: the id is ignored (and remembered), the unconsumed outputs are the graph's outputs;
    a known id alongside it is kept."""
    data = graph()
    data["output_ports"] = [42]
    model = loads(json.dumps(data))
    unconsumed = loads(json.dumps(graph())).meta["onednn_read"]["results"]
    assert model.meta["onednn_read"]["results"] == unconsumed
    assert model.meta["onednn_read"]["ignored_output_ports"] == [42]
    data["output_ports"] = [42, unconsumed[0]]
    model = loads(json.dumps(data))
    assert model.meta["onednn_read"]["results"] == unconsumed[:1]
    assert model.meta["onednn"]["output_ports"] == [42, unconsumed[0]]  # written back as read


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{ nope")
    with pytest.raises(SerializationError, match=r"x\.json: not valid JSON"):
        read_json(path)


def test_unknown_shape_maps_to_dynamic_rank() -> None:
    data = graph()
    for op in data["graph"]:
        for t in op["outputs"]:
            t.update(shape=[UNKNOWN], stride=[UNKNOWN])
    data["graph"][0]["inputs"][0].update(shape=[-1, 3], stride=[3, 1])
    model = loads(json.dumps(data))
    (param,) = [p for p in model.get_parameters() if p.name == "0"]
    assert str(param.op.shape) == "[?,3]"
    assert str(model.get_results()[0].output_types[0].shape) == "[?,3]"
    assert json.loads(dumps(model)) == data


def test_writer_refuses_openvino_ops_and_constants(tmp_path: Path) -> None:
    x = opset.parameter("[2]", "f32", name="x")
    model = Model([x], [x])
    save_model(model, tmp_path / "ok.json")  # Parameter -> Result only: valid, empty graph
    assert json.loads((tmp_path / "ok.json").read_text())["graph"] == []
    from graphir.node import Node
    from graphir.ops.openvino.core import Constant
    from graphir.ops.registry import lookup

    x = opset.parameter("[2]", "f32", name="x")  # a node belongs to one model: a new Parameter
    c = Node(Constant.from_array(np.ones(2, np.float32)))
    add = Node(lookup("onednn", "Add")(), [x, c])
    with_constant = Model([add], [x])
    with pytest.raises(SerializationError, match="Constant cannot be written"):  # a string: nowhere for its data
        dumps(with_constant)
    save_model(with_constant, tmp_path / "c.json")  # a file: its data beside it (c.constants.npz)
    assert (tmp_path / "c.constants.npz").is_file()
    written = json.loads(dumps(with_constant, constants_as_inputs=True))
    assert written["graph"][0]["inputs"][1]["property_type"] == "constant"


_JUNK = [None, -5, 2.5, "x", [], {}, [1, 2], [-3], {"type": "s64", "value": 1}, True, [None], ["a"], UNKNOWN]
_SAMPLES = sorted((SHARED / "conformance" / "onednn").glob("pattern/*.json"))


def _paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else []
    for key, value in items:
        found += _paths(value, prefix + (key,))
    return found


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def test_mutated_files_raise_only_serialization_errors() -> None:
    """Any field replaced by junk or deleted: a clean SerializationError (or a valid model), never a bare traceback."""
    require_shared("conformance", "onednn", "pattern")
    _mutated_file_raises_only_serialization_errors()


@given(st.data())
@settings(max_examples=80, deadline=None)
def _mutated_file_raises_only_serialization_errors(draw: Any) -> None:
    data = json.loads(draw.draw(st.sampled_from(_SAMPLES)).read_text())
    path = draw.draw(st.sampled_from(_paths(data)))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    if isinstance(parent, dict) and draw.draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(draw.draw(st.sampled_from(_JUNK)))
    try:
        loads(json.dumps(data), "mutated.json")
    except SerializationError as exc:
        assert str(exc).startswith("mutated.json: ")


def test_end_and_wildcard() -> None:
    def tensor(i: int, shape: list[int], dt: str = "f32") -> dict[str, Any]:
        return {**lt(i, shape), "dtype": dt}

    data = {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
        {"id": 1, "name": "w", "kind": "Wildcard", "attrs": {}, "inputs": [tensor(0, [2, 3])], "outputs": [tensor(1, [2, 3]), tensor(5, [4], "s32")]},
        {"id": 2, "name": "relu", "kind": "ReLU", "attrs": {}, "inputs": [tensor(1, [2, 3])], "outputs": [tensor(2, [2, 3])]},
        {"id": 3, "name": "end", "kind": "End", "attrs": {}, "inputs": [tensor(2, [2, 3])], "outputs": []},
    ]}
    model = loads(json.dumps(data))
    wildcard = model.node("w")
    assert [str(t.element_type) for t in wildcard.output_types] == ["f32", "i32"]  # types as declared
    assert [r.inputs[0].get_any_name() for r in model.get_results()] == ["5", "2"]  # End marks lt 2 an output
    assert json.loads(dumps(model)) == data
    with pytest.raises(Exception, match="Wildcard.*cannot run"):
        model.run([np.ones((2, 3), np.float32)])
