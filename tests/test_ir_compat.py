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


@pytest.fixture(params=["scan", "tree"], autouse=True)
def reader_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "tree":
        from graphir.serializers import openvino_xml

        monkeypatch.setattr(openvino_xml, "scan_ir", lambda text: None)
    return request.param


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
