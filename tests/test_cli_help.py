"""``python -m graphir``, --help with examples and exit codes, flag names in messages, opset
versions refused as OpenVINO refuses them, and exit codes as the README documents them."""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import graphir
from graphir import opset
from graphir.cli import COMMANDS, EXIT_CODES, main

ROOT = Path(__file__).resolve().parent.parent
SELECT = (ROOT / "examples" / "select.xml").read_text()


def _run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_python_dash_m_graphir() -> None:
    done = subprocess.run([sys.executable, "-m", "graphir", "info", str(ROOT / "examples" / "select.xml"), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"name": "select"' in done.stdout
    done = subprocess.run([sys.executable, "-m", "graphir", "run", "nope.xml", "--random"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr == "graphir run: error: nope.xml: no such file\n"


def test_help_shows_examples_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--help")
    assert code == 0
    assert "examples:\n  graphir batch " in out  # the first example of each command, by name
    assert "\n  graphir compare model.xml\n" in out
    assert "\n  graphir convert model.xml model_v10.xml --to ir-v10\n" in out and "\n  graphir info examples/select.xml\n" in out
    assert out.rstrip().endswith(EXIT_CODES + "\n\n'graphir COMMAND --help' shows a command's options and examples.")
    assert "  1  the model is inconsistent or cannot be handled" in EXIT_CODES
    assert "  2  unusable arguments or an unreadable file" in EXIT_CODES
    for name in COMMANDS:
        code, out, _ = _run(capsys, name, "--help")
        assert code == 0 and "examples:\n  graphir " + name in out and out.rstrip().endswith(EXIT_CODES.rstrip())
    code, out, _ = _run(capsys, "run", "--help")
    assert "  graphir run model.xml --inputs inputs.npz --json\n" in out and "--inputs FILE.npz" in out


def test_examples_in_the_help_use_real_options(capsys: pytest.CaptureFixture[str]) -> None:
    from graphir.cli import EXAMPLES, build_parser

    parser = build_parser()
    for name, examples in EXAMPLES.items():
        for example in examples:
            args = parser.parse_args(shlex.split(example)[1:])  # parses (as a shell would split it): every option exists
            assert args.command == name


def test_messages_name_the_flag_not_the_python_keyword() -> None:
    """A library message naming a keyword argument is shown with the command's flag."""
    from graphir.cli import _flag_spellings, build_parser, with_flags

    spellings = _flag_spellings(build_parser(), "convert")
    message = "a Constant cannot be written (pass constants_as_inputs=True to write it as a graph input)"
    assert with_flags(message, spellings) == ("a Constant cannot be written (pass --constants-as-inputs to write it "
                                              "as a graph input)")


@pytest.mark.parametrize(("version", "message"), [
    ("opset99", "Cannot create Select layer select id:3 from unsupported opset: opset99"),
    ("opset0", "Cannot create Select layer select id:3 from unsupported opset: opset0"),
    ("opset18", "Cannot create Select layer select id:3 from unsupported opset: opset18"),
    ("opset17", "Opset opset17 doesn't contain the operation with type: Select"),  # 2026.4's opset17 is new ops only
])
def test_unknown_opset_versions_are_refused_as_openvino_refuses_them(
        version: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v.xml"
    path.write_text(SELECT.replace('type="Select" version="opset1"', f'type="Select" version="{version}"'))
    with pytest.raises(graphir.errors.SerializationError) as info:
        graphir.read_model(path)
    assert str(info.value) == f"{path}: layer id=3 name='select' type=Select: {message}"
    code, _, err = _run(capsys, "info", path)
    assert code == 2 and err == f"graphir info: error: {path}: layer id=3 name='select' type=Select: {message}\n"
    ov = pytest.importorskip("openvino")
    with pytest.raises(RuntimeError) as refused:  # the same words as OpenVINO 2026.4
        ov.Core().read_model(str(path))
    assert str(refused.value).strip().splitlines()[-1] == message


def test_a_later_opset_that_contains_the_op_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "v.xml"
    path.write_text(SELECT.replace('type="Select" version="opset1"', 'type="Select" version="opset16"'))
    model = graphir.read_model(path)
    assert model.node("select").version == "opset1"
    gelu = opset.gelu(opset.parameter("[2]", "f32", name="x"), approximation_mode="erf", name="g")
    graphir.save_model(graphir.Model([gelu]), tmp_path / "g.xml")
    text = (tmp_path / "g.xml").read_text()
    version = 'type="Gelu" version="opset7"'
    assert version in text
    (tmp_path / "g1.xml").write_text(text.replace(version, 'type="Gelu" version="opset1"'))
    with pytest.raises(graphir.errors.SerializationError, match="Opset opset1 doesn't contain the operation with type: Gelu"):
        graphir.read_model(tmp_path / "g1.xml")


def test_the_opset_table_matches_the_installed_openvino() -> None:
    pytest.importorskip("openvino")
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_opset_table
    finally:
        sys.path.pop(0)
    expected = gen_opset_table.render(gen_opset_table.opset_contents())
    assert (ROOT / "graphir/serializers/ir_opsets.py").read_text() == expected


def test_an_inconsistent_layer_in_a_file_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "f32cond.xml"
    path.write_text(SELECT.replace('element_type="boolean"', 'element_type="f32"').replace('precision="BOOL"', 'precision="FP32"'))
    (tmp_path / "f32cond.bin").write_bytes(b"")
    for command in ("info", "shapes", "run"):
        code, _, err = _run(capsys, command, path, *(["--random"] if command == "run" else []))
        assert code == 1, err
        assert err == (f"graphir {command}: error: {path}: layer id=3 name='select' type=Select: node 3 'select' "
                       "(Select-opset1), inputs (f32[3,2], i32[3,2], i32[3,2]): openvino::Select-opset1: Argument 0 "
                       "must have boolean element type (element type: f32); input 0 ('cond') is f32[3,2]\n")
    with pytest.raises(graphir.errors.InferenceError):  # and still a SerializationError for callers that catch that
        graphir.read_model(path)
    with pytest.raises(graphir.errors.SerializationError):
        graphir.read_model(path)


def test_opset1_layers_openvino_takes_from_opset2_and_type_case(tmp_path: Path) -> None:
    """OpenVINO reads MVN (also ROIPooling, ReorgYolo) declared as opset1 from opset2, and matches
    layer types without regard to case; so does graphir."""
    x = opset.parameter("[1,2,3]", "f32", name="x")
    mvn = opset.make("MVN", x, version="opset2", across_channels=False, normalize_variance=True, eps=1e-9,
                     name="mvn")
    graphir.save_model(graphir.Model([mvn]), tmp_path / "m.xml")
    text = (tmp_path / "m.xml").read_text()
    assert 'type="MVN" version="opset2"' in text
    (tmp_path / "m1.xml").write_text(text.replace('type="MVN" version="opset2"', 'type="MVN" version="opset1"'))
    assert graphir.read_model(tmp_path / "m1.xml").node("mvn").version == "opset2"
    (tmp_path / "s.xml").write_text(SELECT.replace('type="Select" version="opset1"', 'type="select" version="opset17"'))
    with pytest.raises(graphir.errors.SerializationError, match="Opset opset17 doesn't contain the operation with type: select"):
        graphir.read_model(tmp_path / "s.xml")
    ov = pytest.importorskip("openvino")
    assert [op.get_type_name() for op in ov.Core().read_model(str(tmp_path / "m1.xml")).get_ordered_ops()] == [
        "Parameter", "MVN", "Result"]
