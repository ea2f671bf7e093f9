"""Writes small ONNX exports for the ONNX reader's tests (tests/test_onnx_exports.py).

Run from the repository root (needs torch==2.13.0, torchvision==0.28.0 and onnx==1.23.2: the ``test``
and ``onnx`` extras; transformers==5.5.4 from the ``fixtures`` extra):
    python tests/gen_onnx_fixtures.py
Each module is exported by torch's TorchScript exporter (``torch.onnx.export(dynamo=False)``, opset 17)
to tests/fixtures/onnx/NAME.onnx with its batch dim dynamic (the encoder's dims static); ``cnn_external`` is the CNN
saved again with its initializers in an external file (cnn_external.onnx.data). Weights are seeded
random values; BatchNorm statistics are randomized so the outputs are not near 0. ``hf_*`` are Hugging
Face models built from tiny random configs (transformers, eager attention) and exported by the same
exporter: optimum 2.x moved its ONNX exporter to ``optimum-onnx``, whose releases (up to 0.1.0) need
optimum 2.1 and transformers < 4.58, so it does not install beside the pinned optimum 2.3.0. Each file
stays under 300 kB.
"""
from __future__ import annotations

from pathlib import Path

import onnx
import torch
from torch import nn

from tests.gen_torchvision_fixtures import randomize  # also makes torchvision importable (CPU torch)
from torchvision.models import mobilenet_v3_small  # noqa: E402

OUT = Path(__file__).resolve().parent / "fixtures" / "onnx"
OPSET = 17


class SmallCNN(nn.Module):
    """Conv/BN/ReLU, ceil-mode MaxPool, a depthwise conv, ConvTranspose, bilinear Upsample, Concat,
    adaptive pooling, Flatten and a Linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.pool = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.head = nn.Linear(12 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pool(self.stem(x))
        z = torch.sigmoid(self.depthwise(y)) * y
        up = self.up(z)
        resized = nn.functional.interpolate(z, size=up.shape[-2:], mode="bilinear", align_corners=False)
        both = torch.cat([up, resized], dim=1)
        pooled = nn.functional.adaptive_avg_pool2d(both, 4)
        return torch.softmax(self.head(torch.flatten(pooled, 1)), dim=-1)


class EncoderBlock(nn.Module):
    """A transformer encoder layer over token ids: Embedding (Gather), LayerNorm, multi-head attention
    (MatMul, Reshape, Transpose, Softmax), GELU MLP, residuals."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 32)
        self.layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0, activation="gelu",
                                                batch_first=True, norm_first=True)
        self.out = nn.Linear(32, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.out(self.layer(self.embed(ids)))


class Misc(nn.Module):
    """The ops a post-processing head uses: Where, Clip, TopK, CumSum, ArgMax, Split, Pad, ReduceMax, Expand."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        clipped = torch.clamp(x, -1.0, 1.0)
        chosen = torch.where(x > 0, clipped, x * 0.1)
        values, indices = torch.topk(chosen, 3, dim=-1)
        a, b = torch.split(torch.cumsum(chosen, dim=-1), [4, 4], dim=-1)
        padded = nn.functional.pad(a * b, (1, 2), value=0.5)
        best = torch.argmax(padded, dim=-1, keepdim=True)
        peak = padded.amax(dim=-1, keepdim=True).expand(-1, 3)
        return values + peak, indices, best


class HuggingFace(nn.Module):
    """A transformers model over (input_ids, attention_mask) giving its last hidden state (encoders) or
    logits (causal LMs, no KV cache). transformers 5.5.4's mask builders fail under the TorchScript
    trace (``sdpa_mask`` indexes a shape the trace holds as a 0-d tensor), so the additive 4-D mask
    (padding, and causal for the LMs) is computed here, and the model takes it as given."""

    def __init__(self, model: nn.Module, causal: bool) -> None:
        super().__init__()
        self.model, self.causal = model, causal

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        keep = mask[:, None, None, :].to(torch.bool)
        if self.causal:
            length = ids.shape[1]
            keep = keep & torch.ones(length, length, dtype=torch.bool).tril()[None, None]
        additive = torch.zeros(keep.shape, dtype=torch.float32).masked_fill(~keep, torch.finfo(torch.float32).min)
        if self.causal:
            return self.model(input_ids=ids, attention_mask=additive, use_cache=False).logits
        return self.model(input_ids=ids, attention_mask=additive).last_hidden_state


def hugging_face_models() -> dict[str, tuple[nn.Module, bool]]:
    """Tiny random configs (hidden 32, 2 layers, vocab 100; eager attention): BERT (an encoder),
    LLaMA (RMSNorm, rotary embeddings, grouped-query attention, SiLU MLP) and GPT-2 (Conv1D, GELU)."""
    import transformers as tf

    common = {"vocab_size": 100, "attn_implementation": "eager"}
    return {
        "hf_bert": (tf.BertModel(tf.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                               intermediate_size=64, max_position_embeddings=64, **common)), False),
        "hf_llama": (tf.LlamaForCausalLM(tf.LlamaConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                        num_key_value_heads=2, intermediate_size=64,
                                                        max_position_embeddings=64, **common)), True),
        "hf_gpt2": (tf.GPT2LMHeadModel(tf.GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=64, **common)), True),
    }


def _export_hugging_face() -> None:
    """``input_ids`` and ``attention_mask`` (int64, batch and sequence dynamic) -> ``output``."""
    torch.manual_seed(3)
    for name, (model, causal) in hugging_face_models().items():
        ids, mask = torch.randint(0, 100, (2, 7)), torch.ones(2, 7, dtype=torch.int64)
        dims = {0: "batch", 1: "sequence"}
        torch.onnx.export(HuggingFace(model.eval(), causal), (ids, mask), str(OUT / f"{name}.onnx"), dynamo=False,
                          opset_version=OPSET, input_names=["input_ids", "attention_mask"], output_names=["output"],
                          dynamic_axes={"input_ids": dims, "attention_mask": dims})


def _export(name: str, module: nn.Module, example: torch.Tensor, dynamic: dict[int, str]) -> Path:
    path = OUT / f"{name}.onnx"
    torch.onnx.export(module, (example,), str(path), dynamo=False, opset_version=OPSET, input_names=["input"],
                      output_names=None, dynamic_axes={"input": dynamic})
    return path


def main() -> None:
    assert torch.__version__.startswith("2.13.0"), torch.__version__
    OUT.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    cnn = randomize(SmallCNN(), 0)
    path = _export("cnn", cnn, torch.randn(1, 3, 16, 16), {0: "batch"})
    model = onnx.load(str(path))
    onnx.save_model(model, str(OUT / "cnn_external.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="cnn_external.onnx.data", size_threshold=0)
    torch.manual_seed(1)
    # static dims: the TorchScript trace of nn.MultiheadAttention keeps the example's batch * heads and
    # sequence length as constants in its Reshapes, so other sizes fail in ONNX Runtime and OpenVINO too
    _export("encoder", EncoderBlock().eval(), torch.randint(0, 50, (2, 7)), {})
    _export("misc", Misc().eval(), torch.randn(2, 8), {0: "batch"})
    torch.manual_seed(2)
    net = randomize(mobilenet_v3_small(weights=None, num_classes=10, width_mult=0.25), 2)
    _export("mobilenet_v3_small", net, torch.randn(1, 3, 64, 64), {0: "batch"})
    _export_hugging_face()
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"wrote {len(list(OUT.iterdir()))} files, {total / 1e6:.2f} MB, to {OUT}")


if __name__ == "__main__":
    main()
