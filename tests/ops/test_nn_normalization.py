"""BatchNormInference-1/5, MVN-1/6 and NormalizeL2-1 against the real OpenVINO runtime."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError
from tests.ops.test_nn_oracle import diff, rand


@pytest.mark.parametrize("data", [[2, 3, 4, 5], [2, 3], [1, 3, 2, 2, 2]])
@pytest.mark.parametrize("version", ["opset1", "opset5"])
def test_batch_norm_inference_matches_openvino(ov, data: list[int], version: str) -> None:
    from openvino import opset1, opset5

    c = data[1]
    gamma, beta, mean = rand([c], seed=1), rand([c], seed=2), rand([c], seed=3)
    var = rand([c], seed=4, low=0.1, high=2.0)
    consts = [opset1.constant(v) for v in (gamma, beta, mean, var)]
    shape = [(str(data).replace(" ", ""), "f32")]
    if version == "opset5":
        diff(ov, lambda x: opset.make("BatchNormInference", x, gamma, beta, mean, var, version="opset5", epsilon=1e-3),
             lambda x: opset5.batch_norm_inference(x, *consts, 1e-3), shape, [rand(data)])
    else:
        diff(ov, lambda x: opset.make("BatchNormInference", gamma, beta, x, mean, var, version="opset1", epsilon=1e-3),
             lambda x: opset1.batch_norm_inference(x, *consts, 1e-3), shape, [rand(data)])


def test_batch_norm_channel_mismatch_is_an_error() -> None:
    with pytest.raises(InferenceError, match=r"'gamma' has 4 channels but data \[2,3,5\] has 3"):
        z = np.ones(4, np.float32)
        opset.make("BatchNormInference", opset.parameter("[2,3,5]"), z, z, z, z, version="opset5", epsilon=1e-5)


@pytest.mark.parametrize("across,normalize,axes", [
    (False, True, None), (True, True, None), (False, False, None), (True, False, None),
])
def test_mvn_1_matches_openvino(ov, across, normalize, axes) -> None:
    from openvino import opset2

    data = [2, 3, 4, 5]
    attrs = {"normalize_variance": normalize, "eps": 1e-4}
    if axes is not None:
        attrs["reduction_axes"] = axes

        def build_ov(x):  # noqa: ANN001, ANN202
            node = opset2.mvn(x, False, normalize, 1e-4)
            node.set_attribute("reduction_axes", axes)
            return node
    else:
        attrs["across_channels"] = across

        def build_ov(x):  # noqa: ANN001, ANN202
            return opset2.mvn(x, across, normalize, 1e-4)
    diff(ov, lambda x: opset.make("MVN", x, version="opset2", **attrs), build_ov, [("[2,3,4,5]", "f32")], [rand(data)])


@pytest.mark.parametrize("axes", [[-1], [2, 3], [1, 2, 3], [0]])
@pytest.mark.parametrize("eps_mode", ["inside_sqrt", "outside_sqrt"])
@pytest.mark.parametrize("normalize", [True, False])
def test_mvn_6_matches_openvino(ov, axes, eps_mode, normalize) -> None:
    from openvino import opset6

    a = np.array(axes, dtype=np.int64)
    diff(ov, lambda x: opset.make("MVN", x, a, version="opset6", normalize_variance=normalize, eps=1e-3, eps_mode=eps_mode),
         lambda x: opset6.mvn(x, opset6.constant(a), normalize, 1e-3, eps_mode), [("[2,3,4,5]", "f32")],
         [rand([2, 3, 4, 5])])


def test_mvn_6_keeps_dynamic_shape_and_rejects_bad_axes() -> None:
    x = opset.parameter("[?,3,1..8]")
    out = opset.make("MVN", x, np.array([-1]), version="opset6", normalize_variance=True, eps=1e-5, eps_mode="inside_sqrt")
    assert str(out.shape) == "[?,3,1..8]"
    with pytest.raises(InferenceError, match=r"axes value 3 is out of the range \[-3, 2\]"):
        opset.make("MVN", x, np.array([3]), version="opset6", normalize_variance=True, eps=1e-5, eps_mode="inside_sqrt")


@pytest.mark.parametrize("axes", [[1], [2, 3], [-1], [1, 2, 3], []])
@pytest.mark.parametrize("eps_mode,eps", [("add", 1e-6), ("max", 1e-6), ("add", 5.0)])
def test_normalize_l2_matches_openvino(ov, axes, eps_mode, eps) -> None:
    """Empty axes: each element by itself, x/x, eps ignored (0 gives 0), as the CPU plugin and
    op_reference's normalize_l2_*_axes_empty_* cases have it."""
    from openvino import opset1

    a = np.array(axes, dtype=np.int64)
    x = rand([2, 3, 4, 5])
    x[0, 0, 0, :2] = 0
    got = diff(ov, lambda x: opset.normalize_l2(x, a, eps=eps, eps_mode=eps_mode),
               lambda x: opset1.normalize_l2(x, ov.op.Constant(a), eps, eps_mode), [("[2,3,4,5]", "f32")], [x])
    if not axes:
        np.testing.assert_array_equal(got[0], (x != 0).astype(np.float32))


def test_mvn_1_reduction_axes_equal_mvn_6_inside_sqrt() -> None:
    x = rand([2, 3, 4, 5])
    a = opset.parameter("[2,3,4,5]")
    v1 = opset.make("MVN", a, version="opset2", reduction_axes=[1, 3], normalize_variance=True, eps=1e-4)
    v6 = opset.make("MVN", a, np.array([1, 3]), version="opset6", normalize_variance=True, eps=1e-4,
                    eps_mode="inside_sqrt")
    from graphir.model import Model

    got = list(Model([v1, v6], [a]).run([x]).values())
    mean = x.mean(axis=(1, 3), keepdims=True)
    expected = (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=(1, 3), keepdims=True) + 1e-4)
    np.testing.assert_allclose(got[0], expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], expected, rtol=1e-5, atol=1e-6)


def test_normalize_l2_max_mode_follows_the_spec_with_a_large_eps() -> None:
    """Spec: x / sqrt(max(sum(x^2), eps)). (OpenVINO 2026.4's CPU plugin adds eps instead in
    max mode; with the usual tiny eps the two agree, which the differential test above checks.)"""
    from graphir.model import Model

    x = rand([2, 3])
    a = opset.parameter("[2,3]")
    got = list(Model([opset.normalize_l2(a, np.array([1]), eps=100.0, eps_mode="max")], [a]).run([x]).values())[0]
    np.testing.assert_allclose(got, x / 10.0, rtol=1e-6)


@pytest.mark.parametrize("data,groups", [([2, 6, 4, 5], 3), ([2, 6, 4, 5], 1), ([1, 4, 7], 4), ([2, 8, 2, 2, 3], 2)])
def test_group_normalization_matches_openvino(ov, data: list[int], groups: int) -> None:
    from openvino import opset12

    c = data[1]
    scale, bias = rand([c], seed=1), rand([c], seed=2)
    diff(ov, lambda x: opset.group_normalization(x, scale, bias, num_groups=groups, epsilon=1e-5),
         lambda x: opset12.group_normalization(x, opset12.constant(scale), opset12.constant(bias), groups, 1e-5),
         [(str(data).replace(" ", ""), "f32")], [rand(data)])


def test_group_normalization_indivisible_channels_is_an_error() -> None:
    z = np.ones(6, np.float32)
    with pytest.raises(InferenceError, match=r"channels 6 of data \[2,6,4\] are not divisible by num_groups 4"):
        opset.group_normalization(opset.parameter("[2,6,4]"), z, z, num_groups=4, epsilon=1e-5)
