"""The CLI frictions of issue 27, each fixed: what ``run --random`` chose and ``--save-inputs``,
the defaults for dynamic dims, multi-step ``--inputs`` archives, ``convert``'s report of what it
cannot convert and oneDNN JSON of real models, ``schema``'s unknown versions and did-you-mean
across dialects, an unknown dialect, a directory given as a model."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.cli import main
from graphir.node import Node
from graphir.ops.openvino.variables import Assign6, ReadValue6

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _image_model(tmp_path: Path) -> Path:
    x = opset.parameter("[?,3,?,?]", "f32", name="image")
    w = opset.constant(np.ones((4, 3, 3, 3), np.float32))
    y = opset.relu(opset.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1]), name="y")
    y.names = {"y"}
    path = tmp_path / "cnn.xml"
    graphir.save_model(graphir.Model([y], [x], name="cnn"), path)
    return path


def test_run_random_says_which_shapes_it_chose_and_defaults_images_to_224(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _image_model(tmp_path)
    assert main(["run", str(path), "--random", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "random input 'image': f32[1,3,224,224], chosen for [?,3,?,?] (seed 0)\n"
    assert '"shape": [\n      1,\n      4,\n      224,\n      224\n    ]' in captured.out


def test_run_random_saves_the_inputs_and_they_read_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _image_model(tmp_path)
    saved, first, second = tmp_path / "in.npz", tmp_path / "a.npz", tmp_path / "b.npz"
    assert main(["run", str(path), "--random", "--seed", "3", "--shape", "image=[2,3,8,8]",
                 "--save-inputs", str(saved), "--output", str(first)]) == 0
    assert "random input 'image': f32[2,3,8,8] (seed 3)" in capsys.readouterr().err  # static after --shape
    with np.load(saved) as archive:
        assert list(archive.keys()) == ["image"] and archive["image"].shape == (2, 3, 8, 8)
    assert main(["run", str(path), "--inputs", str(saved), "--output", str(second)]) == 0
    assert capsys.readouterr().err == ""  # nothing random
    with np.load(first) as a, np.load(second) as b:
        np.testing.assert_array_equal(a["y"], b["y"])
    assert main(["run", str(path), "--random", "--save-inputs", str(tmp_path)]) == 2
    assert f"--save-inputs {tmp_path}: is a directory" in capsys.readouterr().err


def _accumulator(tmp_path: Path) -> Path:
    x = opset.parameter("[2]", "f32", name="x")
    state = Node(ReadValue6(variable_id="acc", variable_type="f32", variable_shape="[2]"), [])
    total = opset.add(state.output(0), x, name="total")
    total.names = {"total"}
    assign = Node(Assign6(variable_id="acc"), [total])
    path = tmp_path / "acc.xml"
    graphir.save_model(graphir.Model([total], [x.node], name="acc", sinks=[assign]), path)
    return path


def test_run_inputs_takes_the_steps_of_a_multi_step_archive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _accumulator(tmp_path)
    steps = tmp_path / "steps.npz"
    np.savez(steps, **{"step0:x": np.array([1, 2], np.float32), "step1:x": np.array([10, 20], np.float32),
                       "step2:x": np.array([100, 200], np.float32)})
    out = tmp_path / "out.npz"
    assert main(["run", str(path), "--inputs", str(steps), "--output", str(out)]) == 0
    with np.load(out) as archive:
        assert list(archive.keys()) == ["step0:total", "step1:total", "step2:total"]
        np.testing.assert_array_equal(archive["step2:total"], [111, 222])  # the state carried across steps
    assert "step1:total" in capsys.readouterr().out
    np.savez(steps, **{"step0:x": np.array([1, 2], np.float32), "step2:x": np.array([1, 2], np.float32)})
    assert main(["run", str(path), "--inputs", str(steps)]) == 2
    assert "step1 has no values" in capsys.readouterr().err
    np.savez(steps, **{"step0:x": np.array([1, 2], np.float32), "x": np.array([1, 2], np.float32)})
    assert main(["run", str(path), "--inputs", str(steps)]) == 2
    assert "keys 'x' have no step<k>: prefix" in capsys.readouterr().err


def test_a_directory_given_as_a_model_says_it_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"graphir info: error: {tmp_path}: is a directory; give the model's .xml (or oneDNN .json) file\n")
    assert main(["info", str(tmp_path / "absent.xml")]) == 2
    assert "absent.xml: no such file" in capsys.readouterr().err


def test_convert_lists_what_cannot_convert_one_per_line_counted(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    x = opset.parameter([2, 3], "f32", name="x")
    outs = [opset.shape_of(opset.relu(x, name=f"r{i}"), name=f"s{i}") for i in range(12)]
    outs.append(opset.unsqueeze(x, np.array([0], np.int64), name="u"))
    path = tmp_path / "m.xml"
    graphir.save_model(graphir.Model(outs, [x], name="many"), path)
    assert main(["convert", str(path), str(tmp_path / "m.json")]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == ("graphir convert: error: model 'many' cannot be converted from openvino to onednn: "
                        "13 node(s) cannot convert (ShapeOf 12, Unsqueeze 1)")
    assert len(lines) == 1 + 10 + 1 and lines[-1] == "  ... and 3 more"
    assert all(line.startswith("  node ") and "no openvino -> onednn conversion for" in line for line in lines[1:11])
    assert not (tmp_path / "m.json").exists()


def test_convert_a_real_model_to_onednn_json_and_back_keeps_the_weights(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """No --constants-as-inputs: the weights stay Constants (88 in the JSON's constants file),
    and the model converted back to IR computes what the original does."""
    source = FIXTURES / "torchvision/mobilenet_v3_small.xml"
    assert main(["convert", str(source), str(tmp_path / "m.json")]) == 0
    assert f"constants in {tmp_path / 'm.constants.npz'}" in capsys.readouterr().out
    assert main(["convert", str(tmp_path / "m.json"), str(tmp_path / "back.xml")]) == 0
    original, back = graphir.read_model(source), graphir.read_model(tmp_path / "back.xml")
    assert len(back.get_parameters()) == len(original.get_parameters()) == 1
    with np.load(tmp_path / "m.constants.npz") as kept:
        assert len(kept.files) == 88
    image = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
    want = next(iter(original.run([image]).values()))
    got = next(iter(back.run([image]).values()))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("args", "message"), [
    (["MaxPool", "--version", "opset99"],
     "openvino has no version 'opset99' (the newest is opset17); MaxPool has opset1, opset8, opset14"),
    (["Relu", "--dialect", "onednn"],
     "unknown onednn op 'Relu'; onednn has ReLU (graphir schema ReLU --dialect onednn)"),
    (["Select", "--dialect", "directml"],
     "unknown directml op 'Select'; directml has ElementWiseIf (graphir schema ElementWiseIf --dialect directml)"),
])
def test_schema_refuses_unknown_versions_and_points_to_the_dialects_op(
        args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"graphir schema: error: {message}\n" and captured.out == ""


def test_schema_of_an_earlier_opset_still_resolves_as_openvino_does(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "MaxPool", "--version", "opset13"]) == 0
    assert '"version": "opset8"' in capsys.readouterr().out


def test_convert_model_to_an_unknown_dialect_names_the_dialects() -> None:
    from graphir.convert import convert_model
    from graphir.errors import ConversionError

    model = graphir.read_model(FIXTURES / "corpus/mlp.xml")
    with pytest.raises(ConversionError) as info:
        convert_model(model, "direcml")
    assert str(info.value) == "unknown dialect 'direcml'; the dialects are directml, onednn, openvino"


def test_random_integers_are_small_and_non_negative() -> None:
    """Integer inputs are ids, indices, counts, trip counts: 0..8 (a negative random trip count made
    torch_loop.xml's Loop run until its condition stopped it: it hung)."""
    from graphir.input_sizes import random_value

    n = opset.parameter([], "i64", name="n")
    values = [int(random_value(n.node, (), np.random.default_rng(seed))) for seed in range(200)]
    assert min(values) == 0 and max(values) == 8
    ids = random_value(opset.parameter([1, 64], "i32").node, (1, 64), np.random.default_rng(0))
    assert ids.dtype == np.int32 and 0 <= ids.min() and ids.max() <= 8
