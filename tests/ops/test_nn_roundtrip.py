"""Every NN/reduction/recurrent op version, built in graphir, written as IR by graphir, read and run
by OpenVINO: the same outputs as graphir's interpreter (attributes, defaults and port order survive)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import graphir
from graphir import opset
from graphir.model import Model


def _build() -> tuple[Model, list[np.ndarray]]:
    rng = np.random.default_rng(0)

    def rnd(*s: int) -> np.ndarray:
        return rng.uniform(-1, 1, s).astype(np.float32)

    x = opset.parameter("[1,4,9,8]", "f32", name="x")
    y = opset.parameter("[1,4,9,8]", "f32", name="y")
    conv = dict(strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1])
    pool = dict(kernel=[3, 3], strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1])
    outs = [
        opset.convolution(x, rnd(6, 4, 3, 3), strides=[2, 1], pads_begin=[1, 0], pads_end=[0, 1], dilations=[1, 2]),
        opset.group_convolution(x, rnd(2, 3, 2, 3, 3), **conv, auto_pad="same_upper"),
        opset.convolution_backprop_data(x, rnd(4, 3, 3, 3), **conv),
        opset.convolution_backprop_data(x, rnd(4, 3, 3, 3), output_shape=np.array([18, 16]), **conv, auto_pad="same_upper"),
        opset.group_convolution_backprop_data(x, rnd(2, 2, 3, 3, 3), **conv, output_padding=[1, 1]),
        opset.make("MaxPool", x, version="opset1", rounding_type="ceil", **pool),
        *opset.make("MaxPool", x, version="opset8", index_element_type="i32", **pool),
        *opset.make("MaxPool", x, version="opset14", rounding_type="ceil_torch", index_element_type="i32", **pool),
        opset.make("AvgPool", x, version="opset1", **pool, **{"exclude-pad": True}),
        opset.make("AvgPool", x, version="opset14", rounding_type="ceil_torch", **pool, **{"exclude-pad": False}),
        opset.make("AvgPool", x, version="opset16", kernel=[2, 2], strides=[2, 2], pads_begin=[1, 1],
                   pads_end=[1, 1], dilations=[2, 2], **{"exclude-pad": False}),
        opset.adaptive_avg_pool(x, np.array([3, 2])),
        opset.adaptive_max_pool(x, np.array([3, 2]), index_element_type="i32").output(0),
        opset.make("BatchNormInference", x, rnd(4), rnd(4), rnd(4), np.abs(rnd(4)) + 0.5, version="opset5",
                   epsilon=1e-3),
        opset.make("BatchNormInference", rnd(4), rnd(4), x, rnd(4), np.abs(rnd(4)) + 0.5, version="opset1",
                   epsilon=1e-3),
        opset.make("MVN", x, version="opset2", across_channels=True, normalize_variance=True, eps=1e-5),
        opset.make("MVN", x, np.array([2, 3]), version="opset6", normalize_variance=True, eps=1e-5,
                   eps_mode="outside_sqrt"),
        opset.normalize_l2(x, np.array([1]), eps=1e-6, eps_mode="max"),
        opset.group_normalization(x, rnd(4), rnd(4), num_groups=2, epsilon=1e-5),
    ]
    for name in ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"):
        outs.append(opset.make(name, x, np.array([1, -1]), keep_dims=name.endswith("Mean")))
    outs += [
        opset.make("Interpolate", x, np.array([12, 5]), np.array([2, 3]), version="opset11", mode="cubic",
                   shape_calculation_mode="sizes", coordinate_transformation_mode="align_corners"),
        opset.make("Interpolate", x, np.array([12, 5]), np.array([1.5, 0.5], np.float32), np.array([2, 3]),
                   version="opset4", mode="linear_onnx", shape_calculation_mode="scales", pads_begin=[0, 0, 1, 0],
                   pads_end=[0, 0, 0, 1]),
        opset.make("Interpolate", x, np.array([12, 5]), version="opset1", axes=[2, 3], mode="nearest"),
        opset.scaled_dot_product_attention(x, y, y, causal=True),
        opset.fake_quantize(x, np.float32(-1), np.float32(1), np.float32(-0.5), np.float32(0.5), levels=15),
        opset.einsum([x, y], equation="abcd,abed->abce"),
        opset.matmul(x, y, False, True),
    ]
    s = opset.parameter("[1,5,4]", "f32", name="s")
    h = opset.parameter("[1,1,6]", "f32", name="h")
    outs += opset.lstm_sequence(s, h, h, np.array([5], np.int32), rnd(1, 24, 4), rnd(1, 24, 6), rnd(1, 24),
                                hidden_size=6, direction="forward").outputs()
    outs += opset.gru_sequence(s, h, np.array([3], np.int32), rnd(1, 18, 4), rnd(1, 18, 6), rnd(1, 24),
                               hidden_size=6, direction="reverse", linear_before_reset=True).outputs()
    outs += opset.rnn_sequence(s, h, np.array([5], np.int32), rnd(1, 6, 4), rnd(1, 6, 6), rnd(1, 6),
                               hidden_size=6, direction="forward").outputs()
    c2 = opset.parameter("[1,6]", "f32", name="c2")
    x2 = opset.parameter("[1,4]", "f32", name="x2")
    outs += opset.lstm_cell(x2, c2, c2, rnd(24, 4), rnd(24, 6), rnd(24), hidden_size=6).outputs()
    outs.append(opset.gru_cell(x2, c2, rnd(18, 4), rnd(18, 6), rnd(18), hidden_size=6))
    outs.append(opset.rnn_cell(x2, c2, rnd(6, 4), rnd(6, 6), rnd(6), hidden_size=6, activations=["relu"],
                                 activations_alpha=[], activations_beta=[]))
    model = Model(outs, [x, y, s, h, c2, x2])
    inputs = [rnd(1, 4, 9, 8), rnd(1, 4, 9, 8), rnd(1, 5, 4), rnd(1, 1, 6), rnd(1, 6), rnd(1, 4)]
    return model, inputs


def test_graphir_written_ir_runs_the_same_in_openvino(ov: Any, tmp_path: Path) -> None:
    model, inputs = _build()
    path = tmp_path / "nn_ops.xml"
    graphir.save_model(model, path)
    ours = list(model.run(inputs).values())
    core = ov.Core()
    reference = core.read_model(str(path))
    compiled = core.compile_model(reference, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled(inputs)
    assert len(ours) == len(compiled.outputs) == 46
    producers = [r.inputs[0].node for r in model.get_results()]
    types = {n.op.describe() for n in producers}
    assert len(types) >= 30  # one model covers every op version this module family defines
    for i, got in enumerate(ours):
        expected = results[compiled.outputs[i]]
        where = producers[i].describe()
        assert got.shape == expected.shape, where
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-4, atol=1e-4,
                                   err_msg=where)
    reread = graphir.read_model(path)
    again = list(reread.run(inputs).values())
    for a, b in zip(ours, again):
        np.testing.assert_array_equal(a, b)
