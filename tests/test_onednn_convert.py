"""OpenVINO <-> oneDNN Graph conversion: generated graphs converted both ways run to the same
values; what the target cannot express is refused with the reason."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphir import read_model, save_model
from graphir.convert.base import convert_model
from graphir.errors import ConversionError
from graphir.model import Model
from graphir.opset import make, parameter
from graphir.ops.registry import find
from tests.shared_data import require_shared
from tests.tolerances import assert_close

RNG = np.random.default_rng(11)


def data(shape: list[int], low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


def need(*names: str) -> None:
    for name in names:
        assert find("openvino", name) is not None, f"graphir has no OpenVINO {name}"


def roundtrip(model: Model, inputs: list[np.ndarray], tmp_path: Path | None = None) -> Model:
    """Convert to oneDNN and back; each model runs to the original's values. Returns the oneDNN one."""
    expected = list(model.run(inputs).values())
    dnn = convert_model(model, "onednn")
    assert {n.dialect for n in dnn.nodes() if n.type_name not in ("Parameter", "Result", "Constant")} <= {"onednn"}
    for got, want in zip(dnn.run(inputs).values(), expected):
        assert_close(got, want)
    if tmp_path is not None:  # and through the JSON file
        save_model(dnn, tmp_path / "m.json", constants_as_inputs=False)
        for got, want in zip(read_model(tmp_path / "m.json").run(inputs).values(), expected):
            assert_close(got, want)
    back = convert_model(dnn, "openvino")
    assert {n.dialect for n in back.nodes()} == {"openvino"}
    for got, want in zip(back.run(inputs).values(), expected):
        assert_close(got, want)
    return dnn


@pytest.mark.parametrize("name", ["Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "SquaredDifference"])
def test_binary_with_broadcast(name: str, tmp_path: Path) -> None:
    a, b = parameter("[2,3,4]", name="a"), parameter("[3,1]", name="b")
    model = Model([make(name, a, b)], [a, b])
    dnn = roundtrip(model, [data([2, 3, 4]), data([3, 1], 0.5, 2.0)], tmp_path)
    assert [n.type_name for n in dnn.get_ordered_ops() if n.dialect == "onednn"] == [name]


@given(shapes=st.sampled_from([([4], [4]), ([2, 1], [1, 5]), ([3, 1, 2], [2]), ([1], [2, 2, 2]), ([5, 1], [1])]),
       name=st.sampled_from(["Add", "Multiply", "Maximum"]))
@settings(max_examples=15, deadline=None)
def test_binary_generated_shapes(shapes: tuple[list[int], list[int]], name: str) -> None:
    sa, sb = shapes
    a, b = parameter(str(sa), name="a"), parameter(str(sb), name="b")
    roundtrip(Model([make(name, a, b)], [a, b]), [data(sa), data(sb)])


@pytest.mark.parametrize("name, extra", [("Relu", {}), ("Sigmoid", {}), ("Tanh", {}), ("Abs", {}), ("Exp", {}),
                                          ("Gelu", {"version": "opset7", "approximation_mode": "TANH"}),
                                          ("Gelu", {"version": "opset7"}), ("Elu", {"alpha": 0.5}),
                                          ("Clamp", {"min": -0.5, "max": 0.7}), ("Mish", {}), ("HSwish", {}),
                                          ("HSigmoid", {}), ("SoftPlus", {})])
def test_unary(name: str, extra: dict) -> None:
    x = parameter("[2,5]", name="x")
    roundtrip(Model([make(name, x, **extra)], [x]), [data([2, 5])])


@pytest.mark.parametrize("axis", [1, -1, 0])
def test_softmax_and_logsoftmax(axis: int) -> None:
    x = parameter("[3,4,5]", name="x")
    soft = make("Softmax", x, version="opset8", axis=axis)
    log = make("LogSoftmax", x, version="opset5", axis=axis)
    roundtrip(Model([soft, log], [x]), [data([3, 4, 5])])


@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True)])
def test_matmul(ta: bool, tb: bool) -> None:
    a, b = parameter("[2,4,3]" if ta else "[2,3,4]", name="a"), parameter("[5,4]" if tb else "[4,5]", name="b")
    model = Model([make("MatMul", a, b, transpose_a=ta, transpose_b=tb)], [a, b])
    roundtrip(model, [data([2, 4, 3] if ta else [2, 3, 4]), data([5, 4] if tb else [4, 5])])


def test_convolution_and_pools(tmp_path: Path) -> None:
    x, w = parameter("[1,4,9,9]", name="x"), parameter("[6,4,3,3]", name="w")
    conv = make("Convolution", x, w, strides=[2, 1], pads_begin=[1, 0], pads_end=[1, 1], dilations=[1, 2])
    relu = make("Relu", conv)
    mp = make("MaxPool", relu, version="opset1", strides=[2, 2], pads_begin=[0, 0], pads_end=[1, 1], kernel=[2, 2], rounding_type="ceil")
    ap = make("AvgPool", relu, version="opset1", strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1], kernel=[3, 3], exclude_pad=True)
    roundtrip(Model([mp, ap], [x, w]), [data([1, 4, 9, 9]), data([6, 4, 3, 3])], tmp_path)


def test_group_convolution_needs_reshape() -> None:
    need("Reshape")
    x, w = parameter("[1,4,6,6]", name="x"), parameter("[2,3,2,3,3]", name="w")
    conv = make("GroupConvolution", x, w, strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1])
    roundtrip(Model([conv], [x, w]), [data([1, 4, 6, 6]), data([2, 3, 2, 3, 3])])


@pytest.mark.parametrize("name", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"])
@pytest.mark.parametrize("keep_dims", [False, True])
def test_reductions(name: str, keep_dims: bool) -> None:
    x = parameter("[2,3,4]", name="x")
    axes = make("Constant", version="opset1") if False else None  # noqa: F841 - constants come from opset.constant
    from graphir.opset import constant

    y = make(name, x, constant(np.array([0, 2], np.int64)), keep_dims=keep_dims)
    dnn = roundtrip(Model([y], [x]), [data([2, 3, 4], 0.5, 1.5)])
    (op,) = [n.op for n in dnn.nodes() if n.dialect == "onednn"]
    assert op.axes == [0, 2] and op.keep_dims == keep_dims


def test_mvn_to_layernorm_and_back(tmp_path: Path) -> None:
    from graphir.opset import constant

    x = parameter("[2,3,8]", name="x")
    mvn = make("MVN", x, constant(np.array([-1], np.int64)), version="opset6", normalize_variance=True, eps=1e-5, eps_mode="inside_sqrt")
    dnn = roundtrip(Model([mvn], [x]), [data([2, 3, 8])], tmp_path)
    (ln,) = [n.op for n in dnn.nodes() if n.dialect == "onednn"]
    assert (ln.type_name, ln.begin_norm_axis, ln.use_affine, ln.keep_stats) == ("LayerNorm", 2, False, False)


def test_layernorm_with_affine_to_openvino() -> None:
    path = require_shared("conformance", "onednn", "op", "lnorm_3d.json")
    model = read_model(path)
    model.reshape({"0": "[2,3,1024]"})
    inputs = [data([2, 3, 1024]), data([1024]), data([1024])]
    expected = list(model.run(inputs).values())
    back = convert_model(model, "openvino")
    assert sorted(n.type_name for n in back.nodes() if n.type_name not in ("Parameter", "Result", "Constant")) == ["Add", "MVN", "Multiply"]
    assert_close(list(back.run(inputs).values())[0], expected[0])


def test_onednn_nxc_convolution_to_openvino() -> None:
    need("Transpose")
    path = require_shared("conformance", "onednn", "pattern", "conv_bias_post_ops_fusion.json")
    model = read_model(path)
    inputs = [data(list(p.op.shape.to_shape())) for p in model.get_parameters()]
    expected = list(model.run(inputs).values())
    back = convert_model(model, "openvino")
    assert_close(list(back.run(inputs).values())[0], expected[0])


def test_conformance_files_convert_to_openvino_where_expressible() -> None:
    """The NCX/OIX and plain forward patterns convert and run to the same values."""
    base = require_shared("conformance", "onednn")
    names = ["pattern/binary_post_ops_fusion", "pattern/softmax_post_ops_binary_fusion", "pattern/lnorm_gelu",
             "op/conv_2d", "op/maxpool", "op/reducesum", "op/gelu", "op/matmul", "op/bnorm"]
    for name in names:
        model = read_model(base / f"{name}.json")
        inputs = [data(list(p.op.shape.to_shape()), 0.5, 1.5) for p in model.get_parameters()]
        expected = list(model.run(inputs).values())
        back = convert_model(model, "openvino")
        for got, want in zip(back.run(inputs).values(), expected):
            assert_close(got, want)


# --- refusals ------------------------------------------------------------------------------------
def refused(model: Model, target: str, pattern: str) -> None:
    with pytest.raises(ConversionError, match=pattern):
        convert_model(model, target)


def test_refuses_pdpd_broadcast() -> None:
    a, b = parameter("[2,3]", name="a"), parameter("[2]", name="b")
    add = make("Add", a, b, auto_broadcast="pdpd", **{"auto_broadcast.auto_broadcast_axis": 0})
    refused(Model([add], [a, b]), "onednn", r"Add.*oneDNN Graph has no pdpd broadcast")


def test_refuses_types_onednn_lacks() -> None:
    a, b = parameter("[2]", "i64", name="a"), parameter("[2]", "i64", name="b")
    refused(Model([make("Multiply", a, b)], [a, b]), "onednn", r"Multiply.*has element type i64")


def test_refuses_non_constant_axes_and_bad_mvn() -> None:
    x, axes = parameter("[2,3]", name="x"), parameter("[1]", "i64", name="axes")
    refused(Model([make("ReduceSum", x, axes)], [x, axes]), "onednn", r"input 1 \('axes'\) is not a constant")
    from graphir.opset import constant

    x = parameter("[2,3]", name="x")  # a node belongs to one model: a fresh input for each
    mvn = make("MVN", x, constant(np.array([0], np.int64)), version="opset6", normalize_variance=True, eps=1e-5, eps_mode="inside_sqrt")
    refused(Model([mvn], [x]), "onednn", r"MVN axes \[0\] of rank 2 are not trailing")
    x = parameter("[2,3]", name="x")
    mvn = make("MVN", x, constant(np.array([1], np.int64)), version="opset6", normalize_variance=True, eps=1e-5, eps_mode="outside_sqrt")
    refused(Model([mvn], [x]), "onednn", r"eps_mode is outside_sqrt")


def test_refuses_onednn_only_features() -> None:
    base = require_shared("conformance", "onednn")
    refused(read_model(base / "op" / "softmax_w_stats.json"), "openvino", r"SoftMax.*no stats output")
    refused(read_model(base / "op" / "lnorm_ks.json"), "openvino", r"LayerNorm.*keep_stats")
    refused(read_model(base / "op" / "relu_bwd.json"), "openvino", r"no onednn -> openvino conversion for ReLUBackward")


def test_concat_reshape_transpose_convert(tmp_path: Path) -> None:
    need("Concat", "Reshape", "Transpose", "Convert")
    from graphir.opset import constant

    a, b = parameter("[2,3,4]", name="a"), parameter("[2,1,4]", name="b")
    cat = make("Concat", a, b, axis=1)
    shaped = make("Reshape", cat, constant(np.array([0, -1, 2], np.int64)), special_zero=True)
    moved = make("Transpose", shaped, constant(np.array([2, 0, 1], np.int64)))
    half = make("Convert", moved, destination_type="f16")
    dnn = roundtrip(Model([half], [a, b]), [data([2, 3, 4]), data([2, 1, 4])], tmp_path)
    kinds = [n.type_name for n in dnn.get_ordered_ops() if n.dialect == "onednn"]
    assert kinds == ["Concat", "StaticReshape", "StaticTranspose", "TypeCast"]
    written = json.loads((tmp_path / "m.json").read_text())
    assert [op["kind"] for op in written["graph"]] == kinds
    assert written["graph"][1]["attrs"] == {"shape": {"type": "s64[]", "value": [0, -1, 2]}, "special_zero": {"type": "bool", "value": 1}}
    assert written["graph"][3]["outputs"][0]["dtype"] == "f16"


def test_openvino_ir_to_onednn_json_file(tmp_path: Path) -> None:
    """IR (weights as Constants) -> oneDNN JSON with constant-property inputs -> back to IR."""
    from graphir.opset import constant

    x = parameter("[1,3,5,5]", name="x")
    w = constant(data([4, 3, 3, 3]))
    y = make("Relu", make("Convolution", x, w, strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1]))
    model = Model([y], [x])
    dnn = convert_model(model, "onednn")
    save_model(dnn, tmp_path / "kept.json")  # by default the weights' data goes beside the file
    kept = read_model(tmp_path / "kept.json")
    assert len(kept.get_parameters()) == 1  # the weights stay a Constant
    image = data([1, 3, 5, 5])
    np.testing.assert_array_equal(next(iter(kept.run([image]).values())), next(iter(model.run([image]).values())))
    save_model(dnn, tmp_path / "m.json", constants_as_inputs=True)
    written = json.loads((tmp_path / "m.json").read_text())
    conv = written["graph"][0]
    assert conv["kind"] == "Convolution" and conv["inputs"][1]["property_type"] == "constant"
    assert {a: v["value"] for a, v in conv["attrs"].items() if a in ("data_format", "weights_format")} == {"data_format": "NCX", "weights_format": "OIX"}
    loaded = read_model(tmp_path / "m.json")
    assert len(loaded.get_parameters()) == 2  # the weights became a graph input
