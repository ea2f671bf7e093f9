"""``graphir run --inputs FILE.npz`` and inputs of any element type (bf16, f8, int4...) from .npy/.npz."""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.cli import main


def _converting_model(tmp_path: Path, element_type: str) -> Path:
    """x (element_type, [?]) -> Convert to f32 -> Result 'y'."""
    x = opset.parameter("[?]", element_type, name="x")
    y = opset.convert(x, destination_type="f32", name="y")
    y.names = {"y"}
    path = tmp_path / f"{element_type}.xml"
    graphir.save_model(graphir.Model([y], [x], name="conv"), path)
    return path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.err


@pytest.mark.parametrize(("element_type", "dtype", "values"), [
    ("bf16", ml_dtypes.bfloat16, [1.5, -2.0, 0.0078125]),
    ("f8e4m3", ml_dtypes.float8_e4m3fn, [1.0, -448.0, 0.5]),
    ("f8e5m2", ml_dtypes.float8_e5m2, [1.0, -2.0, 0.25]),  # numpy writes its descriptor as '<f1'
    ("i4", ml_dtypes.int4, [-8, 7, 0]),
    ("u4", ml_dtypes.uint4, [0, 15, 3]),
    ("f16", np.float16, [1.5, -65504.0, 0.5]),
])
def test_npy_of_any_element_type(element_type: str, dtype: type, values: list[float], tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    model = _converting_model(tmp_path, element_type)
    np.save(tmp_path / "x.npy", np.array(values, dtype=dtype))
    code, err = _run(capsys, "run", model, "--input", f"x={tmp_path / 'x.npy'}", "--output", tmp_path / "out.npz")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], np.array(values, np.float32))


def test_plain_numbers_convert_to_an_ml_dtypes_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _converting_model(tmp_path, "bf16")
    np.save(tmp_path / "x.npy", np.array([1.0, 3.14159, -2.5], np.float32))
    code, err = _run(capsys, "run", model, "--input", f"x={tmp_path / 'x.npy'}", "--output", tmp_path / "out.npz")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], [1.0, 3.140625, -2.5])  # rounded to bf16
    model4 = _converting_model(tmp_path, "i4")
    np.save(tmp_path / "big.npy", np.array([1, 9], np.int8))
    code, err = _run(capsys, "run", model4, "--input", f"x={tmp_path / 'big.npy'}")
    assert code == 2
    assert err.endswith("big.npy: values from 1 to 9 do not fit int4 (-8..7)\n")


def test_inputs_from_an_npz_by_name_and_by_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    c = opset.parameter("[?]", "boolean", name="cond")
    a = opset.parameter("[?]", "bf16", name="then")
    b = opset.parameter("[?]", "bf16", name="else")
    y = opset.convert(opset.select(c, a, b), destination_type="f32", name="y")
    y.names = {"y"}
    path = tmp_path / "sel.xml"
    graphir.save_model(graphir.Model([y], [c, a, b], name="sel"), path)
    np.savez(tmp_path / "in.npz", cond=np.array([True, False, True]),
             then=np.array([1, 2, 3], ml_dtypes.bfloat16), arr_2=np.array([-1, -2, -3], ml_dtypes.bfloat16))
    code, err = _run(capsys, "run", path, "--inputs", tmp_path / "in.npz", "--output", tmp_path / "out.npz")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], [1, -2, 3])
    # --input wins over the archive for the input it names
    np.save(tmp_path / "then.npy", np.array([7, 8, 9], ml_dtypes.bfloat16))
    code, err = _run(capsys, "run", path, "--inputs", tmp_path / "in.npz", "--input", f"then={tmp_path / 'then.npy'}",
                     "--output", tmp_path / "out.npz")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], [7, -2, 9])
    np.savez(tmp_path / "bad.npz", nope=np.ones(3))
    code, err = _run(capsys, "run", path, "--inputs", tmp_path / "bad.npz")
    assert code == 2
    assert err == (f"graphir run: error: --inputs {tmp_path / 'bad.npz'}: key 'nope' names no input of model 'sel' "
                   "(inputs: 'cond', 'then', 'else'; or arr_0..arr_2 by position)\n")
    (tmp_path / "junk.npz").write_text("not a zip")
    code, err = _run(capsys, "run", path, "--inputs", tmp_path / "junk.npz")
    assert code == 2 and "not a readable .npz file" in err


def test_an_npz_given_as_one_input_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _converting_model(tmp_path, "f32")
    np.savez(tmp_path / "x.npz", x=np.ones(3, np.float32))
    code, err = _run(capsys, "run", model, "--input", f"x={tmp_path / 'x.npz'}")
    assert code == 2
    assert err.endswith("x.npz: expected one array (.npy), got an archive (give it with --inputs)\n")
