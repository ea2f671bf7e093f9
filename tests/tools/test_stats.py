"""stats: MACs/FLOPs, parameters, weight bytes and memory against known and hand counts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphir.tools.stats import stats
from tests.tools.conftest import CORPUS, FIXTURES, cli


def test_resnet18_at_224_has_the_known_counts(resnet18_ir: Path) -> None:
    """torchvision's resnet18: 1.814 GMACs and 11.69M parameters (its model card: 1.81 GFLOPS, as
    torchvision counts multiply-accumulates, and 11,689,512 parameters; convert_model folds each
    BatchNorm into its convolution, leaving 4,800 fewer: one bias per channel instead of two)."""
    result = stats(resnet18_ir)
    assert result.input_shapes == {"x": [1, 3, 224, 224]}
    assert result.macs == pytest.approx(1.814e9, rel=0.005)
    assert result.parameters == pytest.approx(11.69e6, rel=0.002)
    assert result.by_type()["Convolution"]["layers"] == 20 and result.by_type()["MatMul"]["macs"] == 512 * 1000
    # the largest live set: the stem's 64x112x112 f32 output and the next layer's, 3.2 MB each
    assert result.peak_live_bytes == 2 * 64 * 112 * 112 * 4


def test_matmul_family_by_hand() -> None:
    """mlp: Linear(16,32) ReLU Linear(32,32) GELU Linear(32,4) Softmax on x[2,16]."""
    result = stats(CORPUS / "mlp.xml", {"x": [2, 16]})
    assert result.macs == 2 * 32 * 16 + 2 * 32 * 32 + 2 * 4 * 32
    assert result.parameters == 16 * 32 + 32 + 32 * 32 + 32 + 32 * 4 + 4
    by = result.by_type()
    assert by["Add"]["flops"] == 2 * 32 + 2 * 32 + 2 * 4  # the biases
    assert by["Relu"]["flops"] == by["Gelu"]["flops"] == 2 * 32 and by["Softmax"]["flops"] == 3 * 2 * 4
    assert result.flops == 2 * result.macs + 136 + 64 + 64 + 24
    assert result.peak_live_bytes == 2 * (2 * 32 * 4)  # a [2,32] f32 and the next one
    assert result.activation_bytes == 6 * (2 * 32 * 4) + 3 * (2 * 4 * 4)


def test_convolution_and_pooling_family_by_hand() -> None:
    """cnn_bn_pool: Conv(3->8,k3,p1) BN ReLU MaxPool(2) Conv(8->16,k3,p1) BN ReLU AvgPool(2) ... on 16x16."""
    by = stats(CORPUS / "cnn_bn_pool.xml", {"x": [1, 3, 16, 16]}).by_type()
    assert by["Convolution"]["macs"] == 8 * 16 * 16 * 3 * 9 + 16 * 8 * 8 * 8 * 9
    assert by["MaxPool"]["flops"] == 8 * 8 * 8 * 4 and by["AvgPool"]["flops"] == 16 * 4 * 4 * 4
    assert by["ReduceMean"]["flops"] == 16 * 4 * 4
    assert by["Convolution"]["parameters"] == 3 * 8 * 9 + 8 * 16 * 9


def test_grouped_and_transposed_convolutions_by_hand() -> None:
    by = stats(CORPUS / "depthwise_separable.xml", {"x": [1, 8, 12, 12]}).by_type()
    assert by["GroupConvolution"]["macs"] == 8 * 12 * 12 * 9  # one 3x3 per channel
    assert by["Convolution"]["macs"] == 16 * 12 * 12 * 8
    by = stats(CORPUS / "encoder_decoder.xml", {"x": [1, 3, 8, 8]}).by_type()
    assert by["ConvolutionBackpropData"]["macs"] == (8 * 4 * 4) * 8 * 4 * 4  # each input element x C_out x k
    assert by["Convolution"]["macs"] == 8 * 4 * 4 * 3 * 9 + 3 * 16 * 16 * 8


@pytest.mark.parametrize(("name", "gates"), [("lstm", 4), ("gru", 3)])
def test_recurrent_family_by_hand(name: str, gates: int) -> None:
    """nn.LSTM / nn.GRU (8 -> 16) on x[2,5,8]: per step and batch row, gates x 16 x (8 + 16)."""
    by = stats(CORPUS / f"{name}.xml", {"x": [2, 5, 8]}).by_type()
    kind = "LSTMSequence" if name == "lstm" else "GRUSequence"
    assert by[kind]["macs"] == 2 * 5 * gates * 16 * (8 + 16)
    # W, R and B: 4 x 16 biases for both (torch's GRU is OpenVINO's linear_before_reset: 4 bias rows)
    assert by[kind]["parameters"] == gates * 16 * (8 + 16) + 4 * 16
    assert by["MatMul"]["macs"] == 2 * 5 * 16 * 3 if name == "lstm" else 2 * 16 * 3


def test_compressed_weights_at_stored_width_and_decompressed() -> None:
    """One GPT-2 export at f32, f16, int8 and int4: the same parameters; the bytes at each width."""
    llm = FIXTURES / "llm"
    full = stats(llm / "gpt2-fp32" / "openvino_model.xml")
    int4 = stats(llm / "gpt2-int4asym" / "openvino_model.xml")
    int8 = stats(llm / "gpt2-int8" / "openvino_model.xml")
    assert full.parameters == int4.parameters == int8.parameters == 122887
    u4 = int4.weights["u4"]
    # half a byte per weight, plus the u4 zero points (stored, not parameters)
    assert u4["elements"] // 2 < u4["stored_bytes"] < u4["elements"] // 2 * 1.1
    assert u4["decompressed_bytes"] == 4 * u4["elements"] and u4["stored_bytes"] < u4["decompressed_bytes"] / 7
    assert int8.weights["u8"]["decompressed_bytes"] == 4 * int8.weights["u8"]["elements"]
    assert int4.decompression_constants > 0 and full.decompression_constants == 0
    assert full.macs == int4.macs == int8.macs


def test_cli_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "stats", str(CORPUS / "mlp.xml"), "-s", "x=[2,16]", "--layers", "2")
    assert status == 0
    assert "MACs 3.33k  FLOPs 6.94k  parameters 1.73k" in out and "op type" in out
    assert out.count("MatMul") >= 3  # the type table, and two of the top layers
    status, out, _ = cli(capsys, "stats", str(CORPUS / "gru.xml"), "--json")
    data = json.loads(out)
    assert status == 0 and data["input_shapes"] == {"x": [1, 16, 8]}  # graphir.input_sizes' defaults: 1, then 16
    assert data["macs"] == sum(layer["macs"] for layer in data["layers"])
