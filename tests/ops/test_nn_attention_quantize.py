"""ScaledDotProductAttention-13 and FakeQuantize-1 against the real OpenVINO runtime."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError
from tests.ops.test_nn_oracle import diff, rand


@pytest.mark.parametrize("q,k,v", [
    ([2, 4, 5, 8], [2, 4, 6, 8], [2, 4, 6, 3]),
    ([1, 2, 3, 4], [1, 1, 3, 4], [1, 1, 3, 4]),
    ([3, 5, 8], [3, 7, 8], [3, 7, 8]),
])
@pytest.mark.parametrize("variant", ["plain", "causal", "bool_mask", "float_mask", "scale"])
def test_sdpa_matches_openvino(ov, q, k, v, variant) -> None:
    from openvino import opset13 as ops

    L, S = q[-2], k[-2]
    mask_b = rand([L, S], "boolean", seed=7)
    mask_b[:, 0] = True  # no fully masked row
    mask_f = rand([1, L, S], seed=8)
    scale = np.array(0.3, np.float32)
    params = [(str(s).replace(" ", ""), "f32") for s in (q, k, v)]
    data = [rand(s, seed=i) for i, s in enumerate((q, k, v))]

    def gr(a, b, c):  # noqa: ANN001, ANN202
        if variant == "causal":
            return opset.scaled_dot_product_attention(a, b, c, causal=True)
        if variant == "bool_mask":
            return opset.scaled_dot_product_attention(a, b, c, mask_b)
        if variant == "float_mask":
            return opset.scaled_dot_product_attention(a, b, c, mask_f)
        if variant == "scale":
            return opset.scaled_dot_product_attention(a, b, c, mask_f, scale)
        return opset.scaled_dot_product_attention(a, b, c)

    def ovb(a, b, c):  # noqa: ANN001, ANN202
        if variant == "causal":
            return ops.scaled_dot_product_attention(a, b, c, causal=True)
        if variant == "bool_mask":
            return ops.scaled_dot_product_attention(a, b, c, ops.constant(mask_b))
        if variant == "float_mask":
            return ops.scaled_dot_product_attention(a, b, c, ops.constant(mask_f))
        if variant == "scale":
            return ops.scaled_dot_product_attention(a, b, c, ops.constant(mask_f), ops.constant(scale))
        return ops.scaled_dot_product_attention(a, b, c)

    diff(ov, gr, ovb, params, data)


def test_sdpa_dynamic_shapes_match_openvino(ov) -> None:
    from openvino import opset13 as ops

    diff(ov, lambda a, b, c: opset.scaled_dot_product_attention(a, b, c),
         lambda a, b, c: ops.scaled_dot_product_attention(a, b, c),
         [("[?,4,?,64]", "f32"), ("[?,4,?,64]", "f32"), ("[?,4,1..10,32]", "f32")])


def test_sdpa_embedding_mismatch_is_an_error() -> None:
    with pytest.raises(InferenceError, match=r"embedding sizes differ: query \[2,3,8\], key \[2,3,4\]"):
        opset.scaled_dot_product_attention(opset.parameter("[2,3,8]"), opset.parameter("[2,3,4]"),
                                           opset.parameter("[2,3,4]"))


@pytest.mark.parametrize("levels", [2, 16, 255, 256])
@pytest.mark.parametrize("ranges", ["scalar", "per_channel", "inverted"])
def test_fake_quantize_matches_openvino(ov, levels: int, ranges: str) -> None:
    from openvino import opset13 as ops

    if ranges == "scalar":
        il, ih, ol, oh = (np.array(v, np.float32) for v in (-1.0, 1.2, -0.5, 0.7))
    elif ranges == "per_channel":
        il = rand([1, 3, 1, 1], seed=1, low=-1.5, high=-0.5)
        ih = rand([1, 3, 1, 1], seed=2, low=0.5, high=1.5)
        # same shapes for output_low/high: with a scalar output_low and per-channel output_high,
        # OpenVINO 2026.4's CPU plugin (levels > 2) uses channel 0's output_high everywhere
        ol, oh = np.zeros([1, 3, 1, 1], np.float32), rand([1, 3, 1, 1], seed=3, low=1, high=2)
    else:
        il, ih, ol, oh = (np.array(v, np.float32) for v in (-1.0, 1.0, 1.0, -1.0))
    x = rand([2, 3, 4, 5], seed=4)
    diff(ov, lambda p: opset.fake_quantize(p, il, ih, ol, oh, levels=levels),
         lambda p: ops.fake_quantize(p, il, ih, ol, oh, levels), [("[2,3,4,5]", "f32")], [x])


def test_fake_quantize_keeps_f16(ov) -> None:
    """f16 data gives f16 values (op_reference's f16 cases; the run gave f32 before)."""
    from openvino import opset13 as ops

    il, ih, ol, oh = (np.array(v, np.float16) for v in (-1.0, 1.2, -0.5, 0.7))
    got = diff(ov, lambda p: opset.fake_quantize(p, il, ih, ol, oh, levels=16),
               lambda p: ops.fake_quantize(p, il, ih, ol, oh, 16), [("[2,3,4]", "f16")], [rand([2, 3, 4], "f16", seed=5)])
    assert got[0].dtype == np.float16


def test_fake_quantize_broadcast_shape_matches_openvino(ov) -> None:
    from openvino import opset13 as ops

    r = np.zeros([1, 3, 1, 1], np.float32)
    diff(ov, lambda p: opset.fake_quantize(p, r, r + 1, r, r + 1, levels=256),
         lambda p: ops.fake_quantize(p, r, r + 1, r, r + 1, 256), [("[?,3,?,?]", "f32")])
