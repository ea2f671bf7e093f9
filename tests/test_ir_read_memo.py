"""The IR reader's economies (graphir/serializers/ir_reader.py) change nothing a read gives.

Known input values of small integer tensors key the inference memo (``_Reader._infer``) by content,
outputs with values are remembered and handed out as copies, and equal port groups of a read are
one tuple (``_parse_ports``): reads with and without these must give the same models (every node's
op state, inputs, output types with their values, bounds and read-only flags, names, extras), and
no two nodes may share a value array.
"""
from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.ops.openvino.shape_ops import Reshape
from graphir.serializers import fast_build, ir_reader
from graphir.serializers.openvino_xml import read_ir, read_ir_string, write_ir

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted({*ROOT.glob("tests/fixtures/**/*.xml"), *ROOT.glob("examples/**/*.xml")})


def _plain(x: Any) -> Any:
    """``x`` as comparable plain data (arrays by dtype, shape, bytes and read-only flag)."""
    if isinstance(x, np.ndarray):
        data = repr(x.tolist()) if x.dtype == object else x.tobytes()
        return ("ndarray", x.dtype.str, x.shape, data, x.flags.writeable)
    if isinstance(x, graphir.Model):
        return ("model", full_dump(x))
    if isinstance(x, dict):
        return ("dict", tuple((repr(k), _plain(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_plain(v) for v in x))
    if isinstance(x, set):
        return ("set", tuple(sorted(map(repr, x))))
    return repr(x)


def full_dump(model: graphir.Model) -> tuple:
    """Everything a read gives, node by node, with output types' values and bounds."""
    nodes = []
    for node in sorted(model.nodes(), key=lambda n: n.id):
        op = node.op
        private = {k: (type(v).__name__ if k == "_loader" else _plain(v))
                   for k, v in (op.__pydantic_private__ or {}).items()}
        nodes.append((node.id, node.name, type(op).__qualname__, _plain(op.__dict__), repr(private),
                      sorted(op.__pydantic_fields_set__),
                      [(s.node.id, s.index) if s is not None else None for s in node.inputs],
                      [(repr(t.element_type), str(t.shape), _plain(t.value), _plain(t.bounds))
                       for t in node.output_types],
                      [sorted(n) for n in node.output_names], _plain(node.rt_info), _plain(node.extra)))
    return (model.name, [p.id for p in model.get_parameters()], [r.id for r in model.get_results()],
            _plain(model.meta), _plain(model.rt_info), nodes)


def _memo_by_identity_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader as it was: known values by identity, outputs with values never remembered, each
    layer's port groups its own tuples."""
    monkeypatch.setattr(fast_build, "CONTENT_KEY_SIZE", -1)
    monkeypatch.setattr(fast_build, "copyable_type", lambda t: False)
    parse_ports = ir_reader._parse_ports
    monkeypatch.setattr(ir_reader, "_parse_ports", lambda *args: parse_ports(*args[:4]))


def _read_or_error(path: Path) -> Any:
    try:
        return full_dump(read_ir(path))
    except graphir.GraphirError as exc:
        return f"{type(exc).__name__}: {exc}"


def test_fixtures_read_the_same_with_and_without_the_value_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(FILES) > 50
    with_memo = {path: _read_or_error(path) for path in FILES}
    _memo_by_identity_only(monkeypatch)
    for path in FILES:
        reference = _read_or_error(path)
        assert pickle.dumps(with_memo[path]) == pickle.dumps(reference), path


def _two_shape_subgraphs(path: Path) -> None:
    """Two Parameters of one shape, each reshaped by a ShapeOf -> Gather -> Concat subgraph: the
    second subgraph repeats the first's inference with equal (not identical) values."""
    outs, params = [], []
    for i in range(2):
        x = opset.parameter([2, 3, 4], "f32", name=f"x{i}")
        dims = opset.gather(opset.shape_of(x), opset.constant(np.array([0, 1], np.int64)),
                            opset.constant(np.array(0, np.int64)))
        shape = opset.concat([dims, opset.constant(np.array([-1], np.int64))], axis=0)
        outs.append(opset.reshape(x, shape, False, name=f"r{i}"))
        params.append(x)
    write_ir(graphir.Model(outs, params, name="two"), path)


def test_a_repeated_shape_subgraph_is_inferred_once_and_gets_its_own_values(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _two_shape_subgraphs(tmp_path / "two.xml")
    calls: list[int] = []
    infer = Reshape.infer
    monkeypatch.setattr(Reshape, "infer", lambda self, inputs: calls.append(1) or infer(self, inputs))
    model = read_ir(tmp_path / "two.xml")
    dump = pickle.dumps(full_dump(model))
    assert len(calls) == 1  # the second Reshape's (attributes, types, shape value) is a memo hit
    by_type: dict[str, list[graphir.Node]] = {}
    for node in sorted(model.nodes(), key=lambda n: n.id):
        by_type.setdefault(node.op.type_name, []).append(node)
    for kind in ("ShapeOf", "Gather", "Concat"):
        first, second = (n.output_types[0] for n in by_type[kind])
        assert first is not second and first.value is not second.value
        assert first.value.dtype == second.value.dtype and first.value.tolist() == second.value.tolist()
        assert first.value.flags.writeable == second.value.flags.writeable
    assert by_type["Concat"][1].output_types[0].value.tolist() == [2, 3, -1]
    assert [str(n.output_types[0].shape) for n in by_type["Reshape"]] == ["[2,3,4]", "[2,3,4]"]
    first_value = by_type["Concat"][0].output_types[0].value
    if first_value.flags.writeable:  # a value of one node changed in place leaves the other's alone
        first_value[0] = 7
        assert by_type["Concat"][1].output_types[0].value.tolist() == [2, 3, -1]

    calls.clear()
    _memo_by_identity_only(monkeypatch)
    reference = read_ir(tmp_path / "two.xml")
    assert len(calls) == 2
    assert dump == pickle.dumps(full_dump(reference))  # node ids come from the file: comparable


def test_equal_port_groups_are_one_tuple_unless_they_hold_dims_names_or_rt_info() -> None:
    from lxml import etree

    groups: dict = {}
    where = ("F", "1", "a", "Add")
    plain = etree.fromstring('<input><port id="0" precision="FP32"><dim>2</dim></port>'
                             '<port id="1" precision="FP32"/></input>')
    first, index = ir_reader._parse_ports(plain, where, set(), False, groups)
    again, index_again = ir_reader._parse_ports(etree.fromstring(etree.tostring(plain)), where, set(), False, groups)
    assert first is again and first == (("0", "FP32", None, None, None), ("1", "FP32", (), None, None))
    assert index is index_again and index == {"0": 0, "1": 1}
    named = etree.fromstring('<output><port id="2" precision="FP32" names="y"><dim>2</dim></port></output>')
    assert ir_reader._parse_ports(named, where, set(), False, groups) == ((("2", "FP32", None, "y", None),), {"2": 0})
    opaque, _ = ir_reader._parse_ports(plain, where, set(), True, groups)  # dims read: a list, kept apart
    assert opaque == (("0", "FP32", [2], None, None), ("1", "FP32", (), None, None))
    assert list(groups) == [first]


def test_plain_documents_find_port_rt_info_by_tag() -> None:
    """In a plain document the ports holding ``<rt_info>`` are found by a walk for that tag: the
    same rt_info is read as when every port is looked at (the tree-only check)."""
    from graphir.serializers.ir_parser import parse_xml

    port_rt = '<rt_info><attribute name="fused_names" version="0" value="a,b"/></rt_info>'
    doc = ('<net name="n" version="11"><layers><layer id="0" name="x" type="Parameter" version="opset1">'
           '<data shape="2" element_type="f32"/><rt_info><attribute name="layer_rt" version="0" value="1"/>'
           f'</rt_info><output><port id="0" precision="FP32"><dim>2</dim><other/>{port_rt}</port></output></layer>'
           '<layer id="1" name="y" type="Result" version="opset1"><input><port id="0" precision="FP32">'
           f'<dim>2</dim>{port_rt}</port></input></layer></layers>'
           '<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>').encode()
    root = parse_xml(doc, "doc")
    plain = ir_reader.dims_are_valid(root, doc)
    assert plain is not None and {p.getparent().getparent().get("name") for p in plain} == {"x", "y"}
    model = read_ir_string(doc)
    nodes = {n.name: n for n in model.nodes()}
    assert nodes["x"].extra["ir_output_rt_info"][0] == nodes["y"].extra["ir_input_rt_info"][0]
    assert "fused_names" in repr(nodes["x"].extra["ir_output_rt_info"][0])
    assert "layer_rt" in repr(nodes["x"].rt_info)
