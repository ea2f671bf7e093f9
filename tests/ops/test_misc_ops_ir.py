"""The op versions of issue 14's non-detection list through OpenVINO IR both ways: each built by
OpenVINO and saved with ``openvino.save_model`` is read by graphir (attributes, port order) and
gives OpenVINO's shapes and CPU values; each built by graphir and saved with ``graphir.save_model``
is read and run by OpenVINO with the same values."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphir
from tests.ops.ov_diff import core
from tests.tolerances import assert_close

R = np.random.default_rng(47)
F = np.float32


def f(*shape: int, lo: float = -2, hi: float = 2) -> np.ndarray:
    return R.uniform(lo, hi, shape).astype(F)


# (opset, type, attributes, inputs: ("p", array) is a Parameter fed with the array, ("c", array) a Constant,
#  compare values on CPU)
CASES = [
    ("opset2", "BatchToSpace", {}, [("p", f(8, 3, 2, 3)), ("c", np.array([1, 2, 1, 2])), ("c", np.array([0, 1, 0, 1])),
                                    ("c", np.array([0, 0, 0, 2]))], True),
    ("opset2", "SpaceToBatch", {}, [("p", f(2, 3, 3, 4)), ("c", np.array([1, 2, 2, 3])), ("c", np.array([0, 1, 0, 1])),
                                    ("c", np.array([0, 0, 1, 1]))], True),
    ("opset1", "LRN", {"alpha": 0.02, "beta": 0.75, "bias": 2.0, "size": 3}, [("p", f(2, 5, 4, 3)),
                                                                              ("c", np.array([1]))], True),
    ("opset1", "GRN", {"bias": 0.5}, [("p", f(2, 3, 4))], True),
    ("opset17", "ErfInv", {}, [("p", f(2, 5, lo=-0.99, hi=0.99))], True),
    ("opset1", "CTCGreedyDecoder", {"ctc_merge_repeated": True}, [("p", f(6, 2, 4)), ("p", np.ones((6, 2), F))], True),
    ("opset6", "CTCGreedyDecoderSeqLen", {"merge_repeated": True, "classes_index_type": "i32",
                                          "sequence_length_type": "i32"},
     [("p", f(2, 6, 4)), ("p", np.array([6, 3], np.int32)), ("c", np.int32(0))], True),
    ("opset4", "CTCLoss", {"preprocess_collapse_repeated": False, "ctc_merge_repeated": True, "unique": False},
     [("p", f(2, 6, 4)), ("p", np.array([6, 5], np.int32)), ("p", np.array([[0, 1, 1, 2, 0, 0], [2, 2, 0, 0, 0, 0]],
                                                                           np.int32)),
      ("p", np.array([4, 2], np.int32))], True),
    ("opset1", "GatherTree", {}, [("p", np.round(f(5, 2, 3, lo=0, hi=4))), ("p", np.round(f(5, 2, 3, lo=0, hi=2))),
                                  ("p", np.array([5, 3], F)), ("c", F(3))], True),
    ("opset3", "EmbeddingBagOffsetsSum", {}, [("p", f(6, 4)), ("c", np.array([0, 2, 3, 5], np.int32)),
                                              ("c", np.array([0, 2, 2], np.int32)), ("c", np.int32(1))], True),
    ("opset15", "EmbeddingBagOffsets", {"reduction": "mean"}, [("p", f(6, 4)), ("c", np.array([0, 2, 3, 5], np.int32)),
                                                               ("c", np.array([0, 2, 2], np.int32))], True),
    ("opset3", "EmbeddingBagPackedSum", {}, [("p", f(6, 4)), ("c", np.array([[0, 2], [3, 5]], np.int32))], True),
    ("opset15", "EmbeddingBagPacked", {"reduction": "mean"}, [("p", f(6, 4)), ("c", np.array([[0, 2], [3, 5]], np.int32))],
     True),
    ("opset3", "EmbeddingSegmentsSum", {}, [("p", f(6, 4)), ("c", np.array([0, 2, 3, 5], np.int32)),
                                            ("c", np.array([0, 0, 2, 2], np.int32)), ("c", np.int32(4))], True),
    ("opset16", "SegmentMax", {"fill_mode": "lowest"}, [("p", f(5, 3)), ("c", np.array([0, 0, 2, 2, 3], np.int64))],
     True),
    ("opset16", "SparseFillEmptyRows", {}, [("p", f(3)), ("c", np.array([4, 3], np.int32)),
                                            ("c", np.array([[0, 1], [2, 0], [2, 2]], np.int32)), ("c", F(-1))], True),
    ("opset7", "DFT", {}, [("p", f(2, 6, 5, 2)), ("c", np.array([1, 2]))], True),
    ("opset7", "IDFT", {}, [("p", f(2, 6, 5, 2)), ("c", np.array([1])), ("c", np.array([8]))], True),
    ("opset9", "RDFT", {}, [("p", f(2, 6, 5)), ("c", np.array([2]))], True),
    ("opset9", "IRDFT", {}, [("p", f(2, 6, 5, 2)), ("c", np.array([1, 2]))], True),
    ("opset15", "STFT", {"transpose_frames": True}, [("p", f(2, 40)), ("p", f(16, lo=0, hi=1)), ("c", np.int64(16)),
                                                     ("c", np.int64(4))], True),
    ("opset16", "ISTFT", {"center": True, "normalized": False}, [("p", f(9, 7, 2)), ("p", f(16, lo=0.3, hi=1)),
                                                                 ("c", np.int64(16)), ("c", np.int64(4))], True),
    ("opset9", "GridSample", {"align_corners": True, "mode": "bicubic", "padding_mode": "reflection"},
     [("p", f(1, 2, 5, 6)), ("p", f(1, 3, 4, 2, lo=-1.2, hi=1.2))], True),
    ("opset8", "NV12toRGB", {}, [("p", R.integers(0, 256, (1, 6, 4, 1)).astype(np.uint8))], True),
    ("opset8", "I420toBGR", {}, [("p", R.integers(0, 256, (1, 4, 4, 1)).astype(np.uint8)),
                                 ("p", R.integers(0, 256, (1, 2, 2, 1)).astype(np.uint8)),
                                 ("p", R.integers(0, 256, (1, 2, 2, 1)).astype(np.uint8))], True),
    ("opset17", "RGBtoNV12", {"single_plane": False}, [("p", R.integers(0, 256, (1, 4, 4, 3)).astype(np.uint8))], False),
    ("opset15", "Col2Im", {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0]},
     [("p", f(2, 12, 9)), ("c", np.array([4, 4])), ("c", np.array([2, 2]))], True),
    ("opset3", "ExtractImagePatches", {"sizes": [3, 2], "strides": [2, 1], "rates": [1, 2], "auto_pad": "same_lower"},
     [("p", f(1, 2, 7, 6))], True),
    ("opset8", "DeformableConvolution", {"strides": [1, 1], "pads_begin": [1, 0], "pads_end": [0, 0],
                                         "dilations": [1, 1], "auto_pad": "explicit", "group": 2,
                                         "deformable_group": 2, "bilinear_interpolation_pad": True},
     [("p", f(1, 4, 5, 5)), ("p", f(1, 16, 5, 4)), ("p", f(2, 2, 2, 2)), ("p", f(1, 8, 5, 4, lo=0, hi=1))], True),
    ("opset1", "BinaryConvolution", {"strides": [1, 1], "pads_begin": [1, 1], "pads_end": [0, 0], "dilations": [1, 1],
                                     "auto_pad": "explicit", "mode": "xnor-popcount", "pad_value": 1.0},
     [("p", R.integers(0, 2, (1, 2, 4, 4)).astype(F)), ("u1", R.integers(0, 2, (3, 2, 2, 2)).astype(np.uint8))], False),
    ("opset14", "Inverse", {"adjoint": True}, [("p", f(2, 3, 3) + 3 * np.eye(3, dtype=F))], True),
    ("opset10", "Unique", {"sorted": False, "index_element_type": "i32", "count_element_type": "i32"},
     [("c", np.array([[1, 2], [3, 1], [1, 2]], F)), ("c", np.int32(0))], True),
    ("opset15", "SliceScatter", {}, [("p", f(4, 5)), ("p", f(2, 5)), ("c", np.array([0])), ("c", np.array([4])),
                                     ("c", np.array([2])), ("c", np.array([0]))], True),
    ("opset14", "ConvertPromoteTypes", {"promote_unsafe": True, "pytorch_scalar_promotion": False,
                                        "u64_integer_promotion_target": "f32"},
     [("p", np.array([1, 2], np.int32)), ("p", f(2))], True),
    ("opset13", "FakeConvert", {"destination_type": "f8e5m2"}, [("p", f(3, 4, lo=-300, hi=300)), ("c", F(0.5)),
                                                                ("c", F(1.0))], True),
    ("opset17", "GroupedMatMul", {}, [("p", f(6, 5)), ("p", f(2, 3, 5)), ("c", np.array([2, 6], np.int32))], False),
    ("opset8", "RandomUniform", {"output_type": "f32", "global_seed": 150, "op_seed": 10, "alignment": "tensorflow"},
     [("c", np.array([2, 5], np.int64)), ("c", F(-1)), ("c", F(1))], True),
    ("opset13", "Multinomial", {"convert_type": "i32", "with_replacement": True, "log_probs": False,
                                "global_seed": 3, "op_seed": 4},
     [("p", np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], F)), ("c", np.int64(5))], True),
]


def _ov_model(ov, version: str, name: str, attrs: dict, inputs):
    from openvino import opset13 as ops
    from openvino.utils.node_factory import NodeFactory

    params, args = [], []
    for kind, value in inputs:
        if kind == "p":
            p = ops.parameter(list(value.shape), ov.Type(value.dtype))
            params.append(p)
            args.append(p.output(0))
        elif kind == "u1":
            args.append(ops.constant(value, dtype=ov.Type.u1).output(0))
        else:
            args.append(ops.constant(value).output(0))
    node = NodeFactory(version).create(name, args, attrs)
    return ov.Model(node.outputs(), params)


def _run_ov(ov, model, feeds):
    compiled = core(ov).compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer([np.array(v, copy=True) for v in feeds])
    return [request.get_output_tensor(i).data.copy() for i in range(len(model.outputs))]


@pytest.mark.parametrize("version,name,attrs,inputs,on_cpu", CASES, ids=[c[1] + "-" + c[0] for c in CASES])
def test_read_what_openvino_writes(ov, tmp_path: Path, version, name, attrs, inputs, on_cpu) -> None:
    model = _ov_model(ov, version, name, attrs, inputs)
    ov.save_model(model, str(tmp_path / "m.xml"), compress_to_fp16=False)
    ours = graphir.read_model(tmp_path / "m.xml")
    assert [(str(o.element_type), str(o.shape)) for o in ours.outputs] == \
        [(o.get_element_type().get_type_name(), str(o.get_partial_shape())) for o in model.outputs]
    feeds = [v for kind, v in inputs if kind == "p"]
    got = list(ours.run(feeds).values())
    if on_cpu:
        for g, w in zip(got, _run_ov(ov, model, feeds)):
            assert_close(g, w)
    # and back: graphir writes, OpenVINO reads and runs
    graphir.save_model(ours, tmp_path / "g.xml")
    again = core(ov).read_model(str(tmp_path / "g.xml"))
    assert [str(o.get_partial_shape()) for o in again.outputs] == [str(o.get_partial_shape()) for o in model.outputs]
    if on_cpu:
        for g, w in zip(got, _run_ov(ov, again, feeds)):
            assert_close(g, w)
