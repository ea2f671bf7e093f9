"""StringTensorUnpack-15 and StringTensorPack-15 against OpenVINO 2026: shapes and types, rejected
inputs, CPU values (empty strings, UTF-8 beyond ASCII)."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.model import Model
from tests.ops.ov_diff import Param, core
from tests.ops.test_shape_ops import agree_or_both_fail, same

WORDS = np.array([["ab", "", "xyz"], ["héllo", "日本", " "]], dtype=object)


@pytest.mark.parametrize("shape", ["[2,3]", "[...]", "[?]", "[]", "[1..4,2]"])
def test_unpack_shapes(ov, shape: str) -> None:
    agree_or_both_fail(ov, "StringTensorUnpack", "opset15", {}, [Param(shape, "string")])
    assert agree_or_both_fail(ov, "StringTensorUnpack", "opset15", {}, [Param(shape, "u8")])


@pytest.mark.parametrize("shapes", [("[2,3]", "[2,3]", "[10]"), ("[2,?]", "[?,3]", "[?]"), ("[...]", "[2]", "[4]"),
                                    ("[2,3]", "[3,2]", "[10]"), ("[2,3]", "[2,3]", "[2,5]")])
@pytest.mark.parametrize("dtypes", [("i32", "i32", "u8"), ("i64", "i64", "u8"), ("i32", "i64", "u8"),
                                    ("i32", "i32", "i8")])
def test_pack_shapes(ov, shapes, dtypes) -> None:
    agree_or_both_fail(ov, "StringTensorPack", "opset15", {}, [Param(s, t) for s, t in zip(shapes, dtypes)])


def _ov_run(ov, build, inputs):
    from openvino import opset13 as ops

    params = [ops.parameter(list(np.shape(v)), ov.Type.string if np.asarray(v).dtype == object else
                            ov.Type(np.asarray(v).dtype)) for v in inputs]
    node = build(*params)
    compiled = core(ov).compile_model(ov.Model(node.outputs(), params), "CPU")
    request = compiled.create_infer_request()
    request.infer([ov.Tensor(np.asarray(v)) if np.asarray(v).dtype != object else ov.Tensor(np.asarray(v, dtype=str))
                   for v in inputs])
    return [request.get_output_tensor(i) for i in range(len(node.outputs()))]


def test_unpack_then_pack_values_match_openvino_cpu(ov) -> None:
    from openvino.utils.node_factory import NodeFactory

    outs = _ov_run(ov, lambda p: NodeFactory("opset15").create("StringTensorUnpack", [p.output(0)], {}), [WORDS])
    x = opset.parameter("[2,3]", "string", name="x")
    got = Model(opset.make("StringTensorUnpack", x), [x.node]).run([WORDS])
    for g, o in zip(got.values(), outs):
        np.testing.assert_array_equal(g, o.data)
    begins, ends, symbols = (o.data.copy() for o in outs)
    packed = _ov_run(ov, lambda b, e, s: NodeFactory("opset15").create(
        "StringTensorPack", [b.output(0), e.output(0), s.output(0)], {}), [begins, ends, symbols])[0]
    b, e, s = opset.parameter("[2,3]", "i32"), opset.parameter("[2,3]", "i32"), opset.parameter("[?]", "u8")
    mine = list(Model([opset.make("StringTensorPack", b, e, s)], [b.node, e.node, s.node]).run(
        [begins, ends, symbols]).values())[0]
    np.testing.assert_array_equal(mine, np.asarray(packed.str_data, dtype=object))
    np.testing.assert_array_equal(mine, WORDS)
    # overlapping and reversed order of slices of one buffer
    body = np.frombuffer("héllo".encode(), np.uint8).copy()
    got = opset.make("StringTensorPack", np.array([3, 0, 1], np.int32), np.array([6, 3, 1], np.int32), body)
    assert list(Model([got], []).run([]).values())[0].tolist() == ["llo", "hé", ""]
