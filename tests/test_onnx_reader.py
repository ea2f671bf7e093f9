"""The ONNX reader's contract: the missing-package message, the listing of unmappable nodes, OpenVINO's
naming, translator registration by opset range, function expansion, bad files."""
from __future__ import annotations

import builtins
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir.errors import GraphirError, SerializationError, UnsupportedOpError

if os.environ.get("CI"):
    import onnx
else:
    onnx = pytest.importorskip("onnx", reason="reading .onnx needs the onnx package (graphir[onnx])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _save(tmp_path: Path, nodes: list[Any], inputs: list[Any], outputs: list[Any], opset: int = 17,
          initializers: list[Any] = (), extra_opsets: list[Any] = ()) -> Path:  # type: ignore[assignment]
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), *extra_opsets])
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    return path


def _f32(name: str, shape: Any) -> Any:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def test_without_the_onnx_package_one_line_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _save(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], [_f32("x", [2])], [_f32("y", [2])])
    real_import = builtins.__import__

    def no_onnx(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError("No module named 'onnx'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_onnx)
    with pytest.raises(GraphirError) as info:
        graphir.read_model(path)
    assert str(info.value) == "reading .onnx needs the onnx package: pip install 'graphir[onnx]'"


def test_every_unmappable_node_is_listed_in_one_error(tmp_path: Path) -> None:
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="fine"),
             helper.make_node("Frobnicate", ["a"], ["b"], name="custom", domain="com.example"),
             helper.make_node("ImageDecoder", ["s"], ["c"], name="decode")]
    path = _save(tmp_path, nodes, [_f32("x", [2]), helper.make_tensor_value_info("s", TensorProto.UINT8, [9])],
                 [_f32("b", [2]), _f32("c", None)], opset=20, extra_opsets=[helper.make_opsetid("com.example", 3)])
    with pytest.raises(UnsupportedOpError) as info:
        graphir.read_model(path)
    assert str(info.value) == (
        f"{path}: 2 ONNX node(s) graphir cannot map: 'custom' (Frobnicate, domain com.example, opset 3); "
        "'decode' (ImageDecoder, domain ai.onnx, opset 20)")


def test_nodes_and_tensors_are_named_as_openvino_names_them(tmp_path: Path) -> None:
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    nodes = [helper.make_node("Gemm", ["x", "w"], ["g"], name="gemm", transB=1, alpha=2.0),
             helper.make_node("Relu", ["g"], ["r"]),  # no node name: named after its output
             helper.make_node("Identity", ["r"], ["y"])]
    path = _save(tmp_path, nodes, [_f32("x", ["N", 3])], [_f32("y", None)], initializers=[w])
    model = graphir.read_model(path)
    by_name = {n.name: n for n in model.get_ordered_ops()}
    assert by_name["gemm"].type_name == "Multiply"  # the node a translation ends with carries the name
    assert by_name["gemm"].output(0).names == {"g"}
    assert by_name["w"].type_name == "Constant" and by_name["x"].type_name == "Parameter"
    # the graph output's producer is renamed after it; Identity adds its name to its input's tensor
    assert by_name["y"].type_name == "Relu" and by_name["y"].output(0).names == {"r", "y"}
    assert model.get_results()[0].name == "y/sink_port_0"
    x = np.array([[1, 0, -1], [0.5, 0.5, 0.5]], np.float32)
    (out,) = model.run({"x": x}).values()
    np.testing.assert_allclose(out, np.maximum(2 * x @ np.arange(6).reshape(2, 3).T, 0))


def test_a_translator_is_picked_by_the_models_opset(tmp_path: Path) -> None:
    from graphir.serializers.onnx.registry import find_translator

    def picked(version: int) -> str:
        fn = find_translator("", "Softmax", version)
        assert fn is not None
        return fn.__name__

    assert (picked(1), picked(11), picked(13), picked(21)) == ("softmax_v1", "softmax_v1", "softmax", "softmax")
    assert find_translator("", "Resize", 9) is None and find_translator("", "Resize", 10).__name__ == "resize_v10"
    x = np.array([[[1, 2], [3, 4]]], np.float32)
    for opset, expected in ((11, np.exp(x) / np.exp(x).sum(axis=(1, 2), keepdims=True)),
                            (13, np.exp(x) / np.exp(x).sum(axis=1, keepdims=True))):
        path = _save(tmp_path, [helper.make_node("Softmax", ["x"], ["y"], axis=1)], [_f32("x", [1, 2, 2])],
                     [_f32("y", None)], opset=opset)
        np.testing.assert_allclose(graphir.read_model(path).run({"x": x})["y"], expected, rtol=1e-6)


def test_an_op_without_translator_is_expanded_from_its_onnx_function(tmp_path: Path) -> None:
    from graphir.serializers.onnx.registry import find_translator

    assert find_translator("", "MeanVarianceNormalization", 13) is None
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    path = _save(tmp_path, [helper.make_node("MeanVarianceNormalization", ["x"], ["y"])], [_f32("x", [2, 3, 4, 4])],
                 [_f32("y", None)], opset=13)
    model = graphir.read_model(path)
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    expected = (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=(0, 2, 3), keepdims=True))
    np.testing.assert_allclose(model.run({"x": x})["y"], expected, rtol=1e-4, atol=1e-5)
    assert {"ReduceMean", "Sqrt", "Divide"} <= {n.type_name for n in model.get_ordered_ops()}


def test_a_function_called_twice_names_each_expansion_apart(tmp_path: Path) -> None:
    """Names inside an expanded body are 'Func_<calling node><name>' (ONNX's FunctionExpandHelper,
    which OpenVINO's frontend uses) and its outputs take the calling node's names: two calls of one
    function, model-local or from the schema, never name a node or a tensor alike."""
    add_mul = helper.make_function("custom", "AddMul", ["a", "b"], ["y"],
                                   [helper.make_node("Add", ["a", "b"], ["t"], name="add"),
                                    helper.make_node("Mul", ["t", "b"], ["y"], name="mul")],
                                   [helper.make_opsetid("", 17)])
    nodes = [helper.make_node("AddMul", ["x", "w"], ["y1"], domain="custom", name="f1"),
             helper.make_node("AddMul", ["y1", "w"], ["y2"], domain="custom"),
             helper.make_node("CenterCropPad", ["y2", "s"], ["c1"], name="crop"),
             helper.make_node("CenterCropPad", ["c1", "s"], ["c2"])]
    graph = helper.make_graph(nodes, "g", [_f32("x", [4, 6]), _f32("w", [4, 6])], [_f32("c2", None)],
                              [numpy_helper.from_array(np.array([3, 5], np.int64), "s")])
    model_proto = helper.make_model(graph, functions=[add_mul], opset_imports=[
        helper.make_opsetid("", 18), helper.make_opsetid("custom", 1)])
    path = tmp_path / "twice.onnx"
    onnx.save(model_proto, str(path))
    model = graphir.read_model(path)
    ops = model.get_ordered_ops()
    names = [n.get_friendly_name() for n in ops]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    tensors = [t for n in ops if n.type_name != "Result" for o in n.outputs() for t in o.get_names()]
    assert len(tensors) == len(set(tensors))
    by_name = {n.get_friendly_name(): n for n in ops}
    assert by_name["Func_f1add"].type_name == "Add" and by_name["Func_y2add"].type_name == "Add"
    assert by_name["Func_f1add"].output(0).get_names() == {"Func_f1t"}
    assert by_name["f1"].output(0).get_names() == {"y1"} and by_name["y2"].output(0).get_names() == {"y2"}
    assert {"crop", "c2", "Func_cropx_shape", "Func_c2x_shape"} <= set(by_name)
    x, w = (np.random.default_rng(1).standard_normal((2, 4, 6)).astype(np.float32))
    y2 = ((x + w) * w + w) * w
    np.testing.assert_allclose(model.run({"x": x, "w": w})["c2"], y2[:3, :5], rtol=1e-6)


def test_a_bad_attribute_value_is_an_error_naming_the_node(tmp_path: Path) -> None:
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], name="up", mode="area")
    path = _save(tmp_path, [node], [_f32("x", [1, 1, 2, 2])], [_f32("y", None)],
                 initializers=[numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")], opset=13)
    with pytest.raises(SerializationError, match=r"ONNX node 'up' \(Resize, ai.onnx opset 13\): mode 'area' is not supported"):
        graphir.read_model(path)


def test_a_file_that_is_not_onnx_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.onnx"
    path.write_bytes(b"\x08\x07 this is not a protobuf \xff\xfe")
    with pytest.raises(SerializationError, match="junk.onnx: not a readable ONNX model"):
        graphir.read_model(path)
    with pytest.raises(SerializationError, match="no such file"):
        graphir.read_model(tmp_path / "absent.onnx")


def test_external_data_outside_the_models_folder_is_refused(tmp_path: Path) -> None:
    tensor = numpy_helper.from_array(np.ones(4, np.float32), "w")
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "../elsewhere.bin"), ("offset", "0"), ("length", "16")):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    path = _save(tmp_path, [helper.make_node("Add", ["x", "w"], ["y"])], [_f32("x", [4])], [_f32("y", None)],
                 initializers=[tensor])
    with pytest.raises(SerializationError, match=r"initializer 'w': external data location '../elsewhere.bin' is not a file beside the model"):
        graphir.read_model(path)


def test_a_loop_becomes_an_openvino_loop_that_converts_to_ir(tmp_path: Path) -> None:
    """Loop(M=4): carried x + i each iteration, the running value also stacked as a scan output; the
    IR graphir writes runs in OpenVINO to the same values."""
    ov = pytest.importorskip("openvino")
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
         helper.make_node("Add", ["x_in", "fi"], ["x_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Identity", ["x_out"], ["scan"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []), _f32("x_in", [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), _f32("x_out", [2]), _f32("scan", [2])])
    trip = numpy_helper.from_array(np.array(4, np.int64), "M")
    path = _save(tmp_path, [helper.make_node("Loop", ["M", "", "x"], ["final", "stacked"], body=body)],
                 [_f32("x", [2])], [_f32("final", [2]), _f32("stacked", [4, 2])], opset=13, initializers=[trip])
    model = graphir.read_model(path)
    assert "Loop" in {n.type_name for n in model.get_ordered_ops()}
    x = np.array([1.0, -1.0], np.float32)
    final, stacked = model.run({"x": x}).values()
    np.testing.assert_array_equal(final, x + 6)
    np.testing.assert_array_equal(stacked, [x, x + 1, x + 3, x + 6])
    xml = tmp_path / "m.xml"
    graphir.save_model(model, xml)
    compiled = ov.Core().compile_model(str(xml), "CPU")
    result = compiled(x)
    np.testing.assert_array_equal(result[compiled.outputs[0]], x + 6)
    np.testing.assert_array_equal(result[compiled.outputs[1]], stacked)


def _every_node(model: Any) -> list[Any]:
    """The model's nodes, then those of its ops' bodies (a Loop's), depth first."""
    found = []
    for node in model.get_ordered_ops():
        found.append(node)
        for value in node.op.__dict__.values():
            if hasattr(value, "get_ordered_ops"):
                found.extend(_every_node(value))
    return found


def test_two_reads_of_one_file_name_every_node_alike(tmp_path: Path) -> None:
    """Nodes a translation makes besides the one carrying the ONNX node's name (Gemm's MatMul and
    alpha Constant, an expanded function's ops, a Loop body's Results) are named after the ONNX node
    and a counter of the read, not after process-wide node ids: a second read gives the same names
    (ids still differ: they are unique per process)."""
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
         helper.make_node("Add", ["x_in", "fi"], ["x_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []), _f32("x_in", [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), _f32("x_out", [2])])
    trip = numpy_helper.from_array(np.array(3, np.int64), "M")
    nodes = [helper.make_node("Gemm", ["x", "w"], ["g"], name="gemm", transB=1, alpha=2.0),
             helper.make_node("MeanVarianceNormalization", ["g"], ["n"], name="mvn", axes=[0, 1]),
             helper.make_node("Loop", ["M", "", "v"], ["final"], name="loop", body=body)]
    path = _save(tmp_path, nodes, [_f32("x", [4, 3]), _f32("v", [2])], [_f32("n", None), _f32("final", [2])],
                 opset=13, initializers=[w, trip])
    first, second = (_every_node(graphir.read_model(path)) for _ in range(2))
    assert [n.name for n in first] == [n.name for n in second]
    assert not {n.id for n in first} & {n.id for n in second}
    assert not [n.name for n in first if n.name == f"{n.type_name}_{n.id}"]  # Node's default: by id
    names = {n.name: n.type_name for n in first}
    assert len(names) == len(first)  # no two nodes share a name
    made = sorted(kind for name, kind in names.items() if name.startswith("gemm."))  # Gemm: x @ w.T * alpha
    assert made == ["Constant", "MatMul"] and names["gemm"] == "Multiply"
    assert {"ReduceMean", "Sqrt", "Divide"} <= set(names.values())  # the expanded function
    assert sum(name.startswith("loop.") and kind == "Result" for name, kind in names.items()) == 2


def test_reads_in_parallel_threads_give_what_one_read_gives() -> None:
    """The reader's memos shared by reads (op templates, op classes) are safe to share: eight reads
    of a Hugging Face export on four threads name, type and shape every layer as a read alone does."""
    from concurrent.futures import ThreadPoolExecutor

    path = Path(__file__).parent / "fixtures" / "onnx" / "hf_gpt2.onnx"

    def layers(model: Any) -> list[tuple[str, str, list[str]]]:
        return [(n.name, n.type_name, [str(o.tensor_type) for o in n.outputs()]) for n in model.get_ordered_ops()]

    alone = layers(graphir.read_model(path))
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda _: layers(graphir.read_model(path)), range(8)))
    assert all(one == alone for one in together)
