"""The IR reader's shortcuts for big files (benchmarks/read_ir.py) change nothing a read gives.

Edges: every bad edge gets its full message. Attribute decoding is remembered per (op class, text): nodes must not share dicts.
Big Constants are built without pydantic and stay lazy. numpy broadcast of equal shapes short-cuts.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.broadcast import numpy_merge
from graphir.errors import SerializationError
from graphir.ops.openvino.core import Constant
from graphir.serializers.openvino_xml import read_ir, write_ir
from graphir.shapes import Dimension, PartialShape


@pytest.fixture()
def chain(tmp_path: Path) -> Path:
    """x -> Add(k1) -> Add(k2) -> Result; k1, k2 are 4096+ f32 (too big to fold: lazy)."""
    x = opset.parameter([4097], "f32", name="x")
    k1 = opset.constant(np.arange(4097, dtype=np.float32), name="k1")
    k2 = opset.constant(np.full(4097, 2.0, dtype=np.float32), name="k2")
    y = opset.add(opset.add(x, k1, name="a1"), k2, name="a2")
    write_ir(graphir.Model([y], [x], name="chain"), tmp_path / "chain.xml")
    # node ids come from a global counter: renumber the layers 0.. so the texts below are fixed
    text = (tmp_path / "chain.xml").read_text()
    ids = re.findall(r'<layer id="(\d+)"', text)
    new = {old: str(i) for i, old in enumerate(ids)}
    text = re.sub(r'(layer id|from-layer|to-layer)="(\d+)"', lambda m: f'{m[1]}="{new[m[2]]}"', text)
    (tmp_path / "chain.xml").write_text(text)
    return tmp_path / "chain.xml"


def _read_bad(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text, old
    bad = path.with_name("bad.xml")
    bad.write_text(text.replace(old, new, 1))
    path.with_name("bad.bin").write_bytes(path.with_suffix(".bin").read_bytes())
    with pytest.raises(SerializationError) as info:
        read_ir(bad)
    return str(info.value).replace(str(bad), "F")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('<edge from-layer="0" from-port="0"', '<edge from-layer="x0" from-port="0"',
         'F: edge from-layer=x0 from-port=0 to-layer=3 to-port=0: attribute from-layer="x0" is not an integer'),
        ('<edge from-layer="0" from-port="0"', '<edge from-layer="0"',
         "F: edge from-layer=0 from-port=None to-layer=3 to-port=0: missing from-port or to-port"),
        ('<edge from-layer="0" from-port="0"', '<edge from-layer="0" from-port="5"',
         "F: edge from-layer=0 from-port=5 to-layer=3 to-port=0: F: layer id=0 name='x' type=Parameter "
         "has no output port 5 (output ports: 0)"),
        ('<edge from-layer="0" from-port="0" to-layer="3"', '<edge from-layer="0" from-port="0" to-layer="77"',
         "F: layer id=3 name='a1' type=Add: input port 0 has no incoming edge; ignored: edge from-layer=0 "
         "from-port=0 to-layer=77 to-port=0 (there is no layer 77)"),
        ('to-layer="3" to-port="1"', 'to-layer="3" to-port="0"',
         "F: edge from-layer=1 from-port=0 to-layer=3 to-port=0: F: layer id=3 name='a1' type=Add "
         "input port 0 has two incoming edges"),
    ],
)
def test_bad_edges_keep_their_full_messages(chain: Path, old: str, new: str, message: str) -> None:
    assert _read_bad(chain, old, new) == message


def test_layer_attribute_errors_keep_their_messages(chain: Path) -> None:
    assert _read_bad(chain, '<layer id="3" name="a1"', '<layer name="a1"') == \
        "F: layer id=None name='a1': missing attribute 'id'"
    assert _read_bad(chain, 'name="a1" type="Add" version="opset1"', 'name="a1" type="Add"') == \
        "F: layer id=3 name='a1' type=Add: missing mandatory attribute 'version'"


def test_repeated_attribute_sets_give_each_node_its_own_dicts(chain: Path) -> None:
    model = read_ir(chain)
    a1, a2 = model.node("a1"), model.node("a2")
    assert a1.extra["ir_attribute_text"] == a2.extra["ir_attribute_text"] == {"auto_broadcast": "numpy"}
    assert a1.extra["ir_attribute_text"] is not a2.extra["ir_attribute_text"]
    a1.extra["ir_attribute_text"]["auto_broadcast"] = "none"
    a1.set_attribute("auto_broadcast", "none")
    again = read_ir(chain)
    assert again.node("a1").extra["ir_attribute_text"] == {"auto_broadcast": "numpy"}
    assert again.node("a1").op.auto_broadcast == "numpy" and a2.op.auto_broadcast == "numpy"


def test_big_constants_are_lazy_plain_constants(chain: Path) -> None:
    model = read_ir(chain)
    k1 = model.node("k1")
    assert type(k1.op) is Constant and not k1.op.is_loaded
    built = Constant.model_construct(element_type=k1.op.element_type, shape=[4097])
    for slot in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__"):
        assert getattr(k1.op, slot) == getattr(built, slot), slot
    assert set(k1.op.__pydantic_private__) == set(built.__pydantic_private__) == {"_data", "_loader"}
    assert str(k1.output_types[0]) == "f32[4097]" and k1.output_types[0].value is None
    assert k1.op.model_dump() == {"element_type": k1.op.element_type, "shape": [4097]}
    np.testing.assert_array_equal(k1.op.value, np.arange(4097, dtype=np.float32))
    assert k1.op.is_loaded
    out = model.run({"x": np.ones(4097, np.float32)})
    np.testing.assert_array_equal(list(out.values())[0], np.arange(4097, dtype=np.float32) + 3.0)


SHAPES = ["[]", "[3]", "[1]", "[?]", "[1..4]", "[2..]", "[0]", "[?,1,3]", "[2,3]", "[1..1,5]", "[...]"]


def _slow_numpy_merge(a: PartialShape, b: PartialShape) -> PartialShape | None:
    if a.rank_is_dynamic or b.rank_is_dynamic:
        return PartialShape.dynamic()
    rank = max(len(a.dims), len(b.dims))
    one = Dimension.static(1)
    da = (one,) * (rank - len(a.dims)) + a.dims
    db = (one,) * (rank - len(b.dims)) + b.dims
    out = [x.broadcast_merge(y) for x, y in zip(da, db)]
    return None if any(m is None for m in out) else PartialShape(out)


@pytest.mark.parametrize("a", SHAPES)
@pytest.mark.parametrize("b", SHAPES)
def test_numpy_merge_matches_the_dimensionwise_rule(a: str, b: str) -> None:
    pa, pb = PartialShape.parse(a), PartialShape.parse(b)
    fast, slow = numpy_merge(pa, pb), _slow_numpy_merge(pa, pb)
    assert (None if fast is None else str(fast)) == (None if slow is None else str(slow))


# --- dims checked from the document's bytes ----------------------------------------------------
_DIM_SPELLINGS = ["<dim>4</dim>", "<dim>-1</dim>", "<dim>007</dim>", "<dim> 4 </dim>", "<dim>1_0</dim>",
                  "<dim>abc</dim>", "<dim></dim>", "<dim>-2</dim>", "<dim>99999999999999999999</dim>",
                  "<dim><![CDATA[4]]></dim>", "<dim>&#52;</dim>", "<dim>4<!-- c --></dim>", "<dim a='1'>4</dim>",
                  "<dim>4</dim><rt_info><attribute name='x' version='0' value='1'/></rt_info>"]


@pytest.mark.parametrize("spelling", _DIM_SPELLINGS)
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "latin-1"])
def test_dims_checked_from_bytes_agree_with_the_tree(spelling: str, encoding: str) -> None:
    """dims_are_valid with the document's bytes (the plain ``<dim>N</dim>`` shortcut) gives what
    the tree-only check gives, for every spelling and encoding (UTF-16 with a BOM, which libxml2
    reports as UTF-8, must not take the shortcut)."""
    from graphir.serializers.ir_parser import parse_xml
    from graphir.serializers.ir_reader import dims_are_valid

    declaration = '<?xml version="1.0" encoding="ISO-8859-1"?>' if encoding == "latin-1" else ""
    doc = (f'{declaration}<net name="n" version="11"><layers><layer id="0" name="x" type="Parameter" '
           f'version="opset1"><data shape="4" element_type="f32"/><output><port id="0" precision="FP32">'
           f'{spelling}</port></output></layer></layers></net>')
    text = doc.encode(encoding)
    root = parse_xml(text, "doc")
    assert dims_are_valid(root, text) == dims_are_valid(root)


def test_dims_shortcut_reads_plain_files_and_refuses_bad_dims(tmp_path: Path) -> None:
    x = opset.parameter([2, 3], "f32", name="x")
    path = tmp_path / "m.xml"
    write_ir(graphir.Model([opset.relu(x)], [x]), path)
    assert read_ir(path).get_parameters()[0].output(0).shape == PartialShape([2, 3])
    path.write_text(path.read_text().replace("<dim>3</dim>", "<dim>x3</dim>", 1))
    with pytest.raises(SerializationError, match=r"<dim>x3</dim> is not an integer"):
        read_ir(path)


# --- Constants over one blob, Outputs over one port --------------------------------------------
def test_constants_over_one_blob_share_a_read_only_value(tmp_path: Path) -> None:
    """OpenVINO writes equal blobs once: the Constants over it share one read-only value and type
    (each with its own op and node), with the values and shapes of separate reads."""
    x = opset.parameter([3], "f32", name="x")
    ks = [opset.constant(np.array([1.0, 2.0, 3.0], np.float32), name=f"k{i}") for i in range(3)]
    y = x
    for i, k in enumerate(ks):
        y = opset.add(y, k, name=f"a{i}")
    # the same bytes as another type (one blob in the .bin): its own value
    odd = opset.constant(np.array([1.0, 2.0, 3.0], np.float32).view(np.int32), name="odd")
    path = tmp_path / "m.xml"
    write_ir(graphir.Model([y, opset.convert(odd, destination_type="f32", name="c")], [x]), path)
    model = read_ir(path)
    consts = [model.node(f"k{i}") for i in range(3)]
    values = [n.output(0).tensor_type.value for n in consts]
    assert all(v is values[0] for v in values) and not values[0].flags.writeable
    assert all(n.op.value is values[0] for n in consts)
    assert len({id(n.op) for n in consts}) == 3
    np.testing.assert_array_equal(values[0], [1.0, 2.0, 3.0])
    odd_value = model.node("odd").output(0).tensor_type.value
    assert odd_value.dtype == np.int32 and odd_value.tobytes() == values[0].tobytes()
    out = model.run({"x": np.zeros(3, np.float32)})  # dict: result name -> value, in Result order
    np.testing.assert_array_equal(next(iter(out.values())), [3.0, 6.0, 9.0])


def test_readers_of_one_port_share_an_equal_output(tmp_path: Path) -> None:
    x = opset.parameter([3], "f32", name="x")
    r = opset.relu(x, name="r")
    path = tmp_path / "m.xml"
    write_ir(graphir.Model([opset.add(r, r, name="a"), opset.negative(r, name="n")], [x]), path)
    model = read_ir(path)
    a, n = model.node("a"), model.node("n")
    assert a.inputs[0] == a.inputs[1] == n.inputs[0] == model.node("r").output(0)


@pytest.mark.parametrize("spelling", ["<dim> </dim>", "<dim>  <!-- c --></dim>", "<dim></dim>"])
def test_blank_dims_keep_their_message(tmp_path: Path, spelling: str) -> None:
    """The parser leaves whitespace between elements out of the tree; a dim holding only
    whitespace (or whitespace and a comment) is still refused with the same message."""
    x = opset.parameter([2, 3], "f32", name="x")
    path = tmp_path / "m.xml"
    write_ir(graphir.Model([opset.relu(x)], [x]), path)
    path.write_text(path.read_text().replace("<dim>3</dim>", spelling, 1))
    with pytest.raises(SerializationError, match=re.escape("port 0: <dim></dim> is not an integer (-1 for dynamic)")):
        read_ir(path)
