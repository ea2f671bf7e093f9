"""IR files as OpenVINO's own tests write them, read as OpenVINO 2026.4's ``Core().read_model`` reads
them (every test runs with the scanning fast path and with the tree-based reader alone): input ports
without ``precision``, IR v10's legacy input/output precisions, and the other leniencies listed in
issue 14 (each checked against the real runtime)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir.errors import SerializationError
from graphir.serializers.openvino_xml import read_ir

_V10_TEMPLATE = """<?xml version="1.0"?>
<net name="n" version="{version}">
  <layers>
    <layer id="0" name="in1" type="Parameter" version="opset1">
      <data shape="2,3" element_type="{in_type}"/>
      <output><port id="0" precision="{in_prec}"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="1" name="in2" type="Parameter" version="opset1">
      <data shape="2,3" element_type="{in_type}"/>
      <output><port id="0" precision="{in_prec}"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="2" name="op" type="{op}" version="opset1">
      <input><port id="0"><dim>2</dim><dim>3</dim></port><port id="1"><dim>2</dim><dim>3</dim></port></input>
      <output><port id="2" precision="{out_prec}"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="3" name="out" type="Result" version="opset1">
      <input><port id="0"><dim>2</dim><dim>3</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
  </edges>
</net>
"""

_CASES = [  # (input type, op, output precision)
    ("f32", "Add", "FP32"), ("f16", "Add", "FP16"), ("f32", "Equal", "BOOL"), ("i64", "Add", "I64"),
    ("i32", "Add", "I32"), ("u8", "Add", "U8"), ("f64", "Add", "FP64"), ("u64", "Add", "U64"), ("i16", "Multiply", "I16"),
]
_PRECISIONS = {"f32": "FP32", "f16": "FP16", "i64": "I64", "i32": "I32", "u8": "U8", "f64": "FP64", "u64": "U64",
               "i16": "I16"}


def _write(tmp_path: Path, version: int, in_type: str, op: str, out_prec: str) -> Path:
    path = tmp_path / f"m{version}.xml"
    path.write_text(_V10_TEMPLATE.format(version=version, in_type=in_type, in_prec=_PRECISIONS[in_type], op=op,
                                         out_prec=out_prec))
    return path


def _signature(ov_model) -> tuple[list[str], list[str]]:  # noqa: ANN001
    return ([p.get_element_type().get_type_name() for p in ov_model.get_parameters()],
            [o.get_element_type().get_type_name() for o in ov_model.outputs])


@pytest.mark.parametrize("in_type,op,out_prec", _CASES)
@pytest.mark.parametrize("version", [10, 11])
def test_input_ports_without_precision_and_v10_legacy_io_match_read_model(ov, tmp_path: Path, version: int,
                                                                          in_type: str, op: str, out_prec: str) -> None:
    """Input ports carry no precision (as in OpenVINO's own test IRs): read. IR v10 only: an f16
    input becomes f32 + Convert, an output other than f32/i32 gets a Convert (i64/u32/u64 to i32, the
    rest to f32), as read_model applies them; v11 is read as written."""
    path = _write(tmp_path, version, in_type, op, out_prec)
    want = _signature(ov.Core().read_model(str(path)))
    model = read_ir(path)
    got = ([str(p.op.element_type) for p in model.parameters], [str(o.element_type) for o in model.outputs])
    assert got == want
    x = np.arange(6).reshape(2, 3).astype(graphir.ElementType(got[0][0]).numpy_dtype)
    compiled = ov.Core().compile_model(str(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = compiled([x, x + 1])[0]
    result = list(model.run([x, x + 1]).values())[0]
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


def test_output_port_without_precision_is_an_error(tmp_path: Path) -> None:
    """OpenVINO refuses an output port without precision (openvino-facts.md); so does graphir."""
    path = _write(tmp_path, 11, "f32", "Add", "FP32")
    path.write_text(path.read_text().replace('<port id="2" precision="FP32">', '<port id="2">'))
    with pytest.raises(SerializationError, match=r"layer id=2 name='op' type=Add: output port 2 has no precision"):
        read_ir(path)


def test_experimental_version_of_experimental_detectron_ops_looks_up_opset6(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenVINO reads ``version="experimental"`` on ExperimentalDetectron* layers (its IR v10 test files
    use it) as their opset6 op, and refuses it on any other type; graphir looks the op up likewise, so
    once the op is defined such layers get it (and its inferred outputs, e.g. the ROI feature
    extractor's second output that the files leave out)."""
    from graphir.serializers import ir_reader

    asked: list[tuple[str, str, str]] = []
    monkeypatch.setattr(ir_reader, "find", lambda *key: asked.append(key) or None)
    assert ir_reader._find_op("ExperimentalDetectronROIFeatureExtractor", "experimental") is None
    assert ir_reader._find_op("Add", "experimental") is None
    assert asked == [("openvino", "ExperimentalDetectronROIFeatureExtractor", "opset6")]


@pytest.mark.parametrize("type_name,version", [("Proposal", "extension"), ("GRUCell", "experimental"),
                                               ("RNNCell", "extension"), ("ExperimentalDetectronTopKROIs", "extension")])
def test_extension_and_experimental_versions_of_the_ops_openvino_maps_read_as_opset6(type_name: str, version: str) -> None:
    """OpenVINO's IR reader takes ExperimentalDetectron*, GRUCell, RNNCell and Proposal from opset6
    when a layer says ``experimental`` or ``extension`` (its ngraph_reader ReadExtensionProposalNetwork
    reads as Proposal-4, two outputs of post_nms_topn rows); other types stay unknown there."""
    from graphir.ops.registry import find
    from graphir.serializers import ir_reader

    assert ir_reader._find_op(type_name, version) is find("openvino", type_name, "opset6") is not None
    assert ir_reader._find_op("Add", "extension") is None


def test_a_registered_extension_op_is_read_as_its_class(tmp_path: Path) -> None:
    """A layer whose version is not a standard opset (``version="frozen_attrs_ext"``) is read as the
    op class a user registered for that (type, version), not as an opaque op; unregistered, the
    same layer is opaque again, and a standard opset still refuses a type it lacks."""
    from typing import ClassVar

    from graphir import opset
    from graphir.errors import UnsupportedOpError
    from graphir.model import Model
    from graphir.ops.base import Op, Port, TensorType
    from graphir.ops.opaque import OpaqueOp
    from graphir.ops.registry import unregister

    class ScaleByExt(Op):
        type_name: ClassVar[str] = "GraphirTestScaleByExt"
        version: ClassVar[str] = "frozen_attrs_ext"
        inputs: ClassVar[tuple[Port, ...]] = (Port("x"),)
        outputs: ClassVar[tuple[Port, ...]] = (Port("y"),)

        factor: float = 1.0
        axes: list[int] = []

        def infer(self, inputs: list[TensorType]) -> list[TensorType]:
            return [TensorType(inputs[0].element_type, inputs[0].shape)]

        def evaluate(self, x: np.ndarray) -> list[np.ndarray]:
            return [x * np.float32(self.factor)]

    try:
        x = opset.parameter([2, 3], "f32", name="x")
        y = opset.make("GraphirTestScaleByExt", x, version="frozen_attrs_ext", name="scaled", factor=2.5, axes=[0, 1])
        graphir.save_model(Model([y], [x], name="ext"), tmp_path / "ext.xml")
        text = (tmp_path / "ext.xml").read_text()
        assert 'type="GraphirTestScaleByExt" version="frozen_attrs_ext"' in text
        model = graphir.read_model(tmp_path / "ext.xml")
        node = model.node("scaled")
        assert type(node.op) is ScaleByExt and node.op.factor == 2.5 and node.op.axes == [0, 1]
        data = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_array_equal(list(model.run([data]).values())[0], data * 2.5)
        with pytest.raises(SerializationError, match="Opset opset1 doesn't contain the operation with type: "
                                                     "GraphirTestScaleByExt"):
            read_ir(text.replace('version="frozen_attrs_ext"', 'version="opset1"').encode())
    finally:
        unregister(ScaleByExt)
    model = graphir.read_model(tmp_path / "ext.xml")
    assert isinstance(model.node("scaled").op, OpaqueOp)
    with pytest.raises(UnsupportedOpError, match="type=GraphirTestScaleByExt version=frozen_attrs_ext"):
        model.run([data])


def _layer(lid: int, name: str, ltype: str, data: str, ins: list[str], outs: list[tuple[str, str]],
           opset: str = "opset1") -> str:
    """One <layer>; ``ins``: dims text per input port (no precision, as OpenVINO's test IRs),
    ``outs``: (precision, dims text) per output port; port ids count on from the inputs."""
    dims = lambda text: "".join(f"<dim>{d}</dim>" for d in text.split(",") if d)  # noqa: E731
    inp = "".join(f'<port id="{i}">{dims(d)}</port>' for i, d in enumerate(ins))
    out = "".join(f'<port id="{len(ins) + i}" precision="{p}">{dims(d)}</port>' for i, (p, d) in enumerate(outs))
    return (f'<layer id="{lid}" name="{name}" type="{ltype}" version="{opset}">{data}'
            + (f"<input>{inp}</input>" if ins else "") + (f"<output>{out}</output>" if outs else "") + "</layer>")


def _net(layers: list[str], edges: list[tuple[int, int, int, int]], head: str = "", version: int = 10) -> str:
    e = "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>' for a, b, c, d in edges)
    return f'<?xml version="1.0"?>\n<net name="t" version="{version}">{head}<layers>{"".join(layers)}</layers><edges>{e}</edges></net>\n'


_PARAM = _layer(0, "data", "Parameter", '<data shape="1,3,2,2" element_type="f32"/>', [], [("FP32", "1,3,2,2")])
_RELU = _layer(1, "relu", "ReLU", "", ["1,3,2,2"], [("FP32", "1,3,2,2")])
_RESULT = _layer(2, "out", "Result", "", ["1,3,2,2"], [])
_MEANS = ('<pre-process mean-precision="FP32" reference-layer-name="data">'
          + "".join(f'<channel id="{c}"><mean {m}/></channel>' for c, m in enumerate(["{0}", "{1}", "{2}"]))
          + "</pre-process>")
_CONST = lambda lid, name, et, shape, off, size, prec: _layer(  # noqa: E731
    lid, name, "Const", f'<data element_type="{et}" shape="{shape}" offset="{off}" size="{size}"/>', [],
    [(prec, shape)])

_COMPAT_CASES = {
    # <pre-process> mean values and mean images (from the .bin) subtract from the named input
    "pre_process_mean_values": (_net([_PARAM, _RELU, _RESULT], [(0, 0, 1, 0), (1, 1, 2, 0)],
                                     _MEANS.format('value="1.1"', 'value="-2.2"', 'value="0.3"')), b""),
    "pre_process_mean_image": (_net([_PARAM, _RELU, _RESULT], [(0, 0, 1, 0), (1, 1, 2, 0)],
                                    _MEANS.format('offset="0" size="16"', 'offset="16" size="16"', 'offset="32" size="16"')),
                               np.linspace(-1, 1, 12, dtype=np.float32).tobytes()),
    # two XML declarations (exec_graph_info's test IR); libxml2 alone refuses them
    "repeated_xml_declaration": ('<?xml version="1.0" ?>\n' + _net([_PARAM, _RELU, _RESULT], [(0, 0, 1, 0), (1, 1, 2, 0)]),
                                 b""),
    # an edge into no layer is ignored (reduce_to_pooling's test IRs)
    "edge_into_no_layer": (_net([_PARAM, _RELU, _RESULT], [(0, 0, 1, 0), (7, 0, 8, 1), (1, 1, 2, 0)]), b""),
    # Broadcast-1 without mode: numpy with two inputs (the third port has no edge), explicit with three
    "broadcast_without_mode_two_inputs": (_net(
        [_layer(0, "x", "Parameter", '<data shape="3,1" element_type="f32"/>', [], [("FP32", "3,1")]),
         _CONST(1, "target", "i64", "3", 0, 24, "I64"),
         _layer(2, "b", "Broadcast", "", ["3,1", "3", "2"], [("FP32", "2,3,4")]),
         _layer(3, "out", "Result", "", ["2,3,4"], [])],
        [(0, 0, 2, 0), (1, 0, 2, 1), (2, 3, 3, 0)]), np.array([2, 3, 4], np.int64).tobytes()),
    "broadcast_without_mode_three_inputs": (_net(
        [_layer(0, "x", "Parameter", '<data shape="3" element_type="f32"/>', [], [("FP32", "3")]),
         _CONST(1, "target", "i64", "3", 0, 24, "I64"), _CONST(2, "axes", "i64", "1", 24, 8, "I64"),
         _layer(3, "b", "Broadcast", "", ["3", "3", "1"], [("FP32", "2,3,4")]),
         _layer(4, "out", "Result", "", ["2,3,4"], [])],
        [(0, 0, 3, 0), (1, 0, 3, 1), (2, 0, 3, 2), (3, 3, 4, 0)]), np.array([2, 3, 4, 1], np.int64).tobytes()),
    # layer types match case-insensitively (ngraph_reader's prelu test writes "PRelU")
    "prelu_spelled_PRelU": (_net(
        [_PARAM, _CONST(1, "slope", "f32", "3", 0, 12, "FP32"),
         _layer(2, "prelu", "PRelU", "", ["1,3,2,2", "3"], [("FP32", "1,3,2,2")]), _layer(3, "out", "Result", "", ["1,3,2,2"], [])],
        [(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0)]), np.array([0.5, -2.0, 3.0], np.float32).tobytes()),
    # RNNSequence without direction (forward) and with f32 sequence_lengths (ngraph_reader's sequences.cpp)
    "rnn_sequence_without_direction": (_net(
        [_layer(0, "x", "Parameter", '<data shape="2,3,4" element_type="f32"/>', [], [("FP32", "2,3,4")]),
         _layer(1, "h", "Parameter", '<data shape="2,1,5" element_type="f32"/>', [], [("FP32", "2,1,5")]),
         _CONST(2, "len", "f32", "2", 0, 8, "FP32"), _CONST(3, "w", "f32", "1,5,4", 8, 80, "FP32"),
         _CONST(4, "r", "f32", "1,5,5", 88, 100, "FP32"), _CONST(5, "bias", "f32", "1,5", 188, 20, "FP32"),
         _layer(6, "seq", "RNNSequence", '<data hidden_size="5" activations="tanh"/>', ["2,3,4", "2,1,5", "2", "1,5,4", "1,5,5", "1,5"],
                [("FP32", "2,1,3,5"), ("FP32", "2,1,5")], "opset5"),
         _layer(7, "y", "Result", "", ["2,1,3,5"], []), _layer(8, "ho", "Result", "", ["2,1,5"], [])],
        [(0, 0, 6, 0), (1, 0, 6, 1), (2, 0, 6, 2), (3, 0, 6, 3), (4, 0, 6, 4), (5, 0, 6, 5), (6, 6, 7, 0), (6, 7, 8, 0)]),
        np.concatenate([np.array([3, 2], np.float32), np.random.default_rng(0).uniform(-0.5, 0.5, 52).astype(np.float32)]).tobytes()),
}


@pytest.mark.parametrize("name", sorted(_COMPAT_CASES))
def test_lenient_files_read_as_openvino_reads_them(ov, tmp_path: Path, name: str) -> None:
    """Each file as OpenVINO's own tests write it: graphir reads it with read_model's output types and
    shapes, and runs it to the values OpenVINO's CPU plugin gives (f32 hint)."""
    text, blob = _COMPAT_CASES[name]
    xml = tmp_path / "m.xml"
    xml.write_text(text)
    (tmp_path / "m.bin").write_bytes(blob)
    ov_model = ov.Core().read_model(str(xml))
    model = read_ir(xml)
    assert not [n for n in model.nodes() if not getattr(n.op, "runnable", True)]  # no opaque layer
    assert [(str(o.element_type), str(o.partial_shape)) for o in model.outputs] == [
        (o.get_element_type().get_type_name(), str(o.get_partial_shape())) for o in ov_model.outputs]
    rng = np.random.default_rng(1)
    feeds = [rng.uniform(-2, 2, [d.get_length() for d in p.get_partial_shape()]).astype(np.float32)
             for p in ov_model.get_parameters()]
    want = ov.Core().compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(feeds)
    got = list(model.run(feeds).values())
    assert len(got) == len(want)
    for g, w in zip(got, want.values()):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
