"""The ``graphir`` command line: every subcommand's output formats and exit statuses."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.cli import main

COND = np.array([[True, False], [False, True], [True, True]])
THEN = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
ELSE = np.array([[9, 8], [7, 6], [5, 4]], np.int32)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def select_xml(tmp_path: Path) -> Path:
    c = opset.parameter("[?,2]", "boolean", name="cond")
    a = opset.parameter("[?,2]", "i32", name="then")
    b = opset.parameter("[?,2]", "i32", name="else")
    y = opset.select(c, a, b, name="select")
    y.names = {"out"}
    path = tmp_path / "select.xml"
    graphir.save_model(graphir.Model([opset.result(y, name="out")], [c, a, b], name="sel"), path)
    return path


@pytest.fixture
def float_xml(tmp_path: Path) -> Path:
    """A model that oneDNN Graph and DirectML can express: an f32 Select of static shape."""
    c = opset.parameter([3, 4], "boolean", name="c")
    a = opset.parameter([3, 4], "f32", name="a")
    b = opset.parameter([1, 4], "f32", name="b")
    y = opset.select(c, a, b, name="pick")
    y.names = {"y"}
    path = tmp_path / "float.xml"
    graphir.save_model(graphir.Model([y], [c, a, b], name="pick"), path)
    return path


def ids(path: Path) -> dict[str, int]:
    """Layer ids by name, as the file has them."""
    return {n.name: n.id for n in graphir.read_model(path).nodes()}


@pytest.fixture
def opaque_xml(select_xml: Path, tmp_path: Path) -> Path:
    """The select model with its Select replaced by an op graphir does not know."""
    text = select_xml.read_text().replace('type="Select" version="opset1"', 'type="Frobnicate" version="custom1"')
    path = tmp_path / "opaque.xml"
    path.write_text(text)
    (tmp_path / "opaque.bin").write_bytes(select_xml.with_suffix(".bin").read_bytes())
    return path


# --- general --------------------------------------------------------------------------------
def test_no_command_and_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], select_xml: Path) -> None:
    assert cli(capsys, )[0] == 2
    assert cli(capsys, "frobnicate")[0] == 2
    code, _, err = cli(capsys, "shapes", select_xml, "--bogus")
    assert code == 2 and "unrecognized arguments: --bogus" in err
    assert cli(capsys, "--version")[0] == 0


@pytest.mark.parametrize("command", ["info", "shapes", "run", "validate"])
def test_unreadable_files_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str) -> None:
    extra = ["--dialect", "directml"] if command == "validate" else []
    code, out, err = cli(capsys, command, tmp_path / "missing.xml", *extra)
    assert code == 2 and out == ""
    assert err == f"graphir {command}: error: {tmp_path / 'missing.xml'}: no such file\n"
    bad = tmp_path / "bad.xml"
    bad.write_text("<net name='x' version='11'><layers><layer id='0'")
    code, out, err = cli(capsys, command, bad, *extra)
    assert code == 2 and err.count("\n") == 1 and str(bad) in err


def test_console_script_exit_status(select_xml: Path) -> None:
    """The installed ``graphir`` script (or ``python -m graphir.cli``) exits with main's status."""
    exe = [shutil.which("graphir")] if shutil.which("graphir") else [sys.executable, "-m", "graphir.cli"]
    bad = subprocess.run(exe + ["shapes", str(select_xml), "--input", "cond=[3,3]"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.startswith("graphir shapes: error: node ") and "'select' (Select-opset1)" in bad.stderr


# --- info -----------------------------------------------------------------------------------
def test_info_table(capsys: pytest.CaptureFixture[str], select_xml: Path) -> None:
    code, out, _ = cli(capsys, "info", select_xml)
    assert code == 0
    assert "Model:   sel" in out and "(IR v11), 5 nodes" in out
    assert "cond  cond          boolean  [?,2]" in out
    assert "out   out           i32   [?,2]" in out
    assert "Select  opset1  openvino  1" in out
    assert "Cannot run: none" in out


def test_info_json_and_ops_graphir_cannot_run(capsys: pytest.CaptureFixture[str], opaque_xml: Path) -> None:
    code, out, _ = cli(capsys, "info", opaque_xml, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["name"] == "sel" and data["ir_version"] == 11 and data["format"] == "ir"
    assert data["inputs"][1] == {"name": "then", "tensor_names": ["then"], "type": "i32", "shape": "[?,2]"}
    assert data["outputs"] == [{"name": "out", "tensor_names": ["out"], "type": "i32", "shape": "[?,2]"}]
    assert {"dialect": "openvino", "type": "Frobnicate", "version": "custom1", "count": 1} in data["ops"]
    assert data["not_runnable"] == [{"id": ids(opaque_xml)["select"], "name": "select", "type": "Frobnicate", "version": "custom1",
                                     "reason": "not implemented in graphir (kept as an opaque layer)"}]
    code, out, _ = cli(capsys, "info", opaque_xml)
    assert "Cannot run (1 nodes):" in out and "Frobnicate-custom1" in out


# --- shapes ---------------------------------------------------------------------------------
def test_shapes_table(capsys: pytest.CaptureFixture[str], select_xml: Path) -> None:
    code, out, _ = cli(capsys, "shapes", select_xml, "--input", "cond=[3,2]", "-i", "then=[3,2]", "-i", "else=[1..3,2]")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "sel: 5 layers"
    assert lines[1].split() == ["id", "name", "type", "output", "types", "and", "shapes"]
    layer = ids(select_xml)
    assert lines[5].split() == [str(layer["else"]), "else", "Parameter-opset1", "i32[1..3,2]"]
    assert lines[6].split() == [str(layer["select"]), "select", "Select-opset1", "i32[3,2]"]
    assert lines[7].split() == [str(layer["out"]), "out", "Result-opset1", "i32[3,2]"]


def test_shapes_json(capsys: pytest.CaptureFixture[str], select_xml: Path) -> None:
    code, out, _ = cli(capsys, "shapes", select_xml, "--json", "--input", "cond=[?,2]", "-i", "then=[4,2]")
    assert code == 0
    rows = json.loads(out)
    layer = ids(select_xml)
    assert [r["name"] for r in rows] == ["cond", "then", "else", "select", "out"]
    assert rows[0] == {"id": layer["cond"], "name": "cond", "type": "Parameter", "version": "opset1", "inputs": [],
                       "outputs": [{"type": "boolean", "shape": "[?,2]"}]}
    assert rows[3] == {"id": layer["select"], "name": "select", "type": "Select", "version": "opset1",
                       "inputs": [{"type": "boolean", "shape": "[?,2]"}, {"type": "i32", "shape": "[4,2]"},
                                  {"type": "i32", "shape": "[?,2]"}],
                       "outputs": [{"type": "i32", "shape": "[4,2]"}]}
    assert rows[4] == {"id": layer["out"], "name": "out", "type": "Result", "version": "opset1",
                       "inputs": [{"type": "i32", "shape": "[4,2]"}], "outputs": []}


def test_shapes_inconsistency_exits_1_naming_the_layer(capsys: pytest.CaptureFixture[str], select_xml: Path) -> None:
    code, out, err = cli(capsys, "shapes", select_xml, "-i", "cond=[3,3]", "-i", "then=[3,2]")
    assert code == 1 and out == ""
    select_id = ids(select_xml)["select"]
    assert err.startswith(f"graphir shapes: error: node {select_id} 'select' (Select-opset1), "
                          "inputs (boolean[3,3], i32[3,2], i32[?,2])")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("arg", "message"),
    [("zz=[1,2]", "has no input 'zz'"), ("cond=[1,2", "invalid shape '[1,2'"), ("[3,2]", "the model has 3 inputs"),
     ("=[3]", "expected NAME=SHAPE")],
)
def test_shapes_bad_inputs_exit_2(capsys: pytest.CaptureFixture[str], select_xml: Path, arg: str, message: str) -> None:
    code, _, err = cli(capsys, "shapes", select_xml, "--input", arg)
    assert code == 2 and message in err


def test_shapes_bare_shape_for_one_input_and_opaque_layers(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                           opaque_xml: Path) -> None:
    x = opset.parameter("[?,3]", "f32", name="x")
    path = tmp_path / "one.xml"
    graphir.save_model(graphir.Model([opset.add(x, x)], [x]), path)
    code, out, _ = cli(capsys, "shapes", path, "-i", "[5,3]")
    assert code == 0 and "f32[5,3]" in out
    code, out, err = cli(capsys, "shapes", opaque_xml)  # the unknown layer keeps its recorded shapes
    assert code == 0 and "Frobnicate-custom1  i32[?,2]" in out
    assert err.startswith("graphir shapes: note: 1 layer(s) graphir does not implement keep the shapes")
    code, _, err = cli(capsys, "shapes", opaque_xml, "-i", "cond=[4,2]")  # its inputs changed: no shapes
    assert code == 1 and "type=Frobnicate version=custom1: graphir does not implement this op" in err


# --- run ------------------------------------------------------------------------------------
def test_run_with_input_files_and_npz(capsys: pytest.CaptureFixture[str], select_xml: Path, tmp_path: Path) -> None:
    for name, value in (("cond", COND), ("then", THEN), ("else", ELSE)):
        np.save(tmp_path / f"{name}.npy", value)
    out_npz = tmp_path / "out.npz"
    code, out, _ = cli(capsys, "run", select_xml, "-i", f"cond={tmp_path / 'cond.npy'}",
                       "-i", f"then={tmp_path / 'then.npy'}", "--input", f"else={tmp_path / 'else.npy'}",
                       "--output", out_npz)
    assert code == 0
    expected = np.where(COND, THEN, ELSE)
    row = out.splitlines()[2].split()
    assert row[:3] == ["out", "i32", "[3,2]"]
    assert f"min {expected.min()}" in out and f"max {expected.max()}" in out
    with np.load(out_npz) as data:
        assert list(data) == ["out"]
        np.testing.assert_array_equal(data["out"], expected)


def test_run_random_json_and_profile(capsys: pytest.CaptureFixture[str], float_xml: Path) -> None:
    code, out, _ = cli(capsys, "run", float_xml, "--random", "--json")
    assert code == 0
    assert json.loads(out)[0]["name"] == "y" and json.loads(out)[0]["shape"] == [3, 4]
    code, out, _ = cli(capsys, "run", float_xml, "--random", "--profile")
    assert code == 0 and "Select-opset1" in out and "bytes" in out


def test_random_dims_use_one_or_the_interval_minimum(tmp_path: Path) -> None:
    from graphir.input_sizes import choose_input_shapes

    p = opset.parameter("[?,3..8,..4,0..0,2]", "f32", name="p")
    assert choose_input_shapes(graphir.Model([p], [p])) == [(1, 3, 1, 0, 2)]


@pytest.mark.parametrize(
    ("setup", "message", "status"),
    [
        ("missing", "no value for input(s) 'then', 'else'; give --input NAME=FILE.npy, --inputs FILE.npz or --random", 2),
        ("wrong_dtype", "t.npy: expected element type i32 (int32), got an array of float64 with shape [3, 2]", 2),
        ("not_npy", "t.npy: not a readable .npy file (no NUMPY magic)", 2),
        ("no_file", "no such file", 2),
    ],
)
def test_run_input_errors(capsys: pytest.CaptureFixture[str], select_xml: Path, tmp_path: Path,
                          setup: str, message: str, status: int) -> None:
    np.save(tmp_path / "cond.npy", COND)
    args: list[Any] = ["run", select_xml, "-i", f"cond={tmp_path / 'cond.npy'}"]
    if setup == "wrong_dtype":
        np.save(tmp_path / "t.npy", THEN.astype(np.float64))
        args += ["-i", f"then={tmp_path / 't.npy'}", "--random"]
    elif setup == "not_npy":
        (tmp_path / "t.npy").write_text("hello")
        args += ["-i", f"then={tmp_path / 't.npy'}", "--random"]
    elif setup == "no_file":
        args += ["-i", f"then={tmp_path / 'nope.npy'}", "--random"]
    code, _, err = cli(capsys, *args)
    assert code == status and message in err


def test_run_an_opaque_layer_exits_1(capsys: pytest.CaptureFixture[str], opaque_xml: Path) -> None:
    code, _, err = cli(capsys, "run", opaque_xml, "--random")
    assert code == 1 and "graphir does not implement this op, so it cannot run" in err


# --- convert --------------------------------------------------------------------------------
def test_convert_to_ir_v10_and_back(capsys: pytest.CaptureFixture[str], select_xml: Path, tmp_path: Path) -> None:
    target = tmp_path / "v10.xml"
    code, out, _ = cli(capsys, "convert", select_xml, target, "--to", "ir-v10")
    assert code == 0 and "ir-v10" in out
    assert 'version="10"' in target.read_text()
    model = graphir.read_model(target)
    got = model.run({"cond": COND, "then": THEN, "else": ELSE})["out"]
    np.testing.assert_array_equal(got, np.where(COND, THEN, ELSE))


def test_convert_to_onednn_json(capsys: pytest.CaptureFixture[str], float_xml: Path, tmp_path: Path) -> None:
    target = tmp_path / "pick.json"
    code, out, err = cli(capsys, "convert", float_xml, target)
    assert code == 0, err
    data = json.loads(target.read_text())
    assert "graph" in data
    back = graphir.read_model(target)
    assert {n.dialect for n in back.nodes()} >= {"onednn"}


def test_convert_constants_to_onednn_json_keeps_them_beside_the_file(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    a = opset.parameter([2], "f32", name="a")
    y = opset.add(a, opset.constant(np.array([1, 2], np.float32)), name="plus")
    source = tmp_path / "plus.xml"
    graphir.save_model(graphir.Model([y], [a], name="plus"), source)
    code, out, err = cli(capsys, "convert", source, tmp_path / "plus.json")
    assert code == 0, err
    assert out == f"wrote {tmp_path / 'plus.json'} (onednn-json, 4 nodes; constants in {tmp_path / 'plus.constants.npz'})\n"
    back = graphir.read_model(tmp_path / "plus.json")
    assert len(back.get_parameters()) == 1  # the constant stays a constant
    np.testing.assert_array_equal(next(iter(back.run([np.array([10, 20], np.float32)]).values())), [11, 22])
    code, _, err = cli(capsys, "convert", source, tmp_path / "plus.json", "--constants-as-inputs")
    assert code == 0, err
    assert not (tmp_path / "plus.constants.npz").exists()  # no stale data beside the file
    assert len(graphir.read_model(tmp_path / "plus.json").get_parameters()) == 2


def test_convert_errors(capsys: pytest.CaptureFixture[str], select_xml: Path, tmp_path: Path) -> None:
    code, _, err = cli(capsys, "convert", select_xml, tmp_path / "x.json")  # i32 Select: not in oneDNN
    assert code == 1 and "cannot be converted from openvino to onednn" in err and "'select'" in err
    code, _, err = cli(capsys, "convert", select_xml, tmp_path / "x.xml", "--to", "onednn-json")
    assert code == 2 and "--to onednn-json writes a .json file" in err
    code, _, err = cli(capsys, "convert", select_xml, tmp_path / "x.txt")
    assert code == 2 and "cannot tell the output format" in err


# --- validate -------------------------------------------------------------------------------
def test_validate_directml_feature_levels(capsys: pytest.CaptureFixture[str], float_xml: Path) -> None:
    code, out, _ = cli(capsys, "validate", float_xml, "--dialect", "directml", "--feature-level", "3_0")
    assert code == 0 and out == "pick: every node can be expressed in directml (feature level 3_0)\n"
    code, out, _ = cli(capsys, "validate", float_xml, "--dialect", "directml", "--feature-level", "1_0")
    assert code == 1
    assert "1 node(s) cannot be expressed in directml (feature level 1_0)" in out
    assert "'pick' (Select-opset1): DML_OPERATOR_ELEMENT_WISE_IF was introduced in DML_FEATURE_LEVEL_2_0" in out


def test_validate_lists_every_node_even_after_a_failed_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    x = opset.parameter([2, 2], "f32", name="x")
    a = opset.matmul(x, x, transpose_a=False, transpose_b=False, name="mm")
    b = opset.matmul(a, x, transpose_a=False, transpose_b=False, name="mm2")
    path = tmp_path / "mm.xml"
    graphir.save_model(graphir.Model([b], [x], name="mm"), path)
    code, out, _ = cli(capsys, "validate", path, "--dialect", "directml", "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["dialect"] == "directml"
    assert len(data["problems"]) == 2
    assert "'mm' (MatMul-opset1)" in data["problems"][0] and "'mm2' (MatMul-opset1)" in data["problems"][1]


def test_validate_bad_feature_level_exits_2(capsys: pytest.CaptureFixture[str], float_xml: Path) -> None:
    code, _, err = cli(capsys, "validate", float_xml, "--dialect", "directml", "--feature-level", "9_9")
    assert code == 2 and "unknown DirectML feature level '9_9'" in err
    code, _, err = cli(capsys, "validate", float_xml, "--dialect", "onednn", "--feature-level", "3_0")
    assert code == 2 and "--feature-level applies to --dialect directml only" in err


def test_run_shape_fixes_dynamic_dims_before_random_inputs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    x = opset.parameter("[?,?]", "f32", name="x")
    y = opset.matmul(x, opset.constant(np.ones((4, 3), np.float32)), transpose_a=False, transpose_b=False)
    y.names = {"y"}
    path = tmp_path / "mm.xml"
    graphir.save_model(graphir.Model([y], [x], name="mm"), path)
    code, out, err = cli(capsys, "run", path, "--random", "--json")  # x gets [1,4]: K must be 4
    assert code == 0, err
    assert json.loads(out)[0]["shape"] == [1, 3]
    code, out, err = cli(capsys, "run", path, "--random", "--shape", "x=[2,4]", "--json")
    assert code == 0, err
    assert json.loads(out)[0]["shape"] == [2, 3]
    code, _, err = cli(capsys, "run", path, "--random", "--shape", "x=[2,5]")
    assert code == 1 and "K of A (5)" in err
    code, _, err = cli(capsys, "run", path, "--random", "--shape", "nope=[2,5]")
    assert code == 2 and "has no input 'nope'" in err


@pytest.mark.parametrize("element_type", ["u1", "u2", "i4", "u4", "i8", "u8", "i32", "i64", "f16", "bf16", "f32", "boolean"])
def test_random_values_fit_the_element_type(element_type: str) -> None:
    from graphir.input_sizes import random_value
    from graphir.types import ElementType

    et = ElementType.parse(element_type)
    p = opset.parameter("[?,50]", element_type, name="p")
    value = random_value(p.node, (1, 50), np.random.default_rng(0))
    assert value.shape == (1, 50) and value.dtype == np.dtype(et.numpy_dtype)
    if element_type in ("u1", "u2", "i4", "u4"):
        low, high = {"u1": (0, 1), "u2": (0, 3), "i4": (-8, 7), "u4": (0, 15)}[element_type]
        assert low <= int(value.min()) and int(value.max()) <= high
