"""Writes the real-network corpus: small seeded PyTorch modules converted by OpenVINO itself.

Run from the repository root (needs torch==2.13.0 and openvino):
    python tests/corpus/gen_corpus.py
Each network becomes tests/fixtures/corpus/NAME.xml/.bin (and NAME_fp16.* compressed with
compress_to_fp16=True), plus NAME.npz holding seeded inputs. Weights stay under 1 MB each.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import openvino as ov
import torch
from torch import nn

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "corpus"


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 4), nn.Softmax(-1))

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.f = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, stride=1, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.AvgPool2d(2),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5))

    def forward(self, x):
        return self.f(x)


class DepthwiseSeparable(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = nn.Conv2d(8, 16, 1)
        self.bn = nn.BatchNorm2d(16)

    def forward(self, x):
        return torch.nn.functional.relu6(self.bn(self.pw(self.dw(x))))


class Residual(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(8, 8, 3, padding=1)
        self.b1 = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1)
        self.b2 = nn.BatchNorm2d(8)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(x + self.b2(self.c2(y)))


class EncoderDecoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU())
        self.dec = nn.ConvTranspose2d(8, 8, 4, stride=2, padding=1)
        self.head = nn.Conv2d(8, 3, 1)

    def forward(self, x):
        y = self.dec(self.enc(x))
        y = nn.functional.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False)
        z = nn.functional.interpolate(y, size=(16, 16), mode="nearest")
        return torch.sigmoid(self.head(z))


class TransformerLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)

    def forward(self, x, pad_mask):
        return self.layer(x, src_key_padding_mask=pad_mask)


class MaskedAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.k = nn.Linear(16, 16)
        self.v = nn.Linear(16, 16)

    def forward(self, x, mask):
        q, k, v = self.q(x), self.k(x), self.v(x)
        scores = q @ k.transpose(-2, -1) / 4.0
        scores = scores.masked_fill(mask == 0, float("-inf"))
        return torch.softmax(scores, dim=-1) @ v


class EmbeddingLayerNorm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(50, 24)
        self.pos = nn.Parameter(torch.randn(1, 10, 24) * 0.1)
        self.norm = nn.LayerNorm(24)

    def forward(self, ids):
        return self.norm(self.emb(ids) + self.pos)


class GRUNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.GRU(8, 16, batch_first=True)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        y, h = self.rnn(x)
        return self.fc(y[:, -1]), h


class LSTMNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.LSTM(8, 16, batch_first=True, num_layers=1)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        y, (h, c) = self.rnn(x)
        return self.fc(y)


class DynamicBatch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(12, 6)

    def forward(self, x):
        y = self.fc(x)
        b = x.shape[0]
        return torch.tanh(y).reshape(b, 2, 3).transpose(1, 2).flatten(1)


class ShapeOps(nn.Module):
    def forward(self, x):
        a, b = torch.split(x, [2, 6], dim=1)
        c = torch.cat([b, a * 2.0], dim=1)
        d = c.permute(0, 2, 1).unsqueeze(1)
        e = torch.clamp(d, -0.5, 0.5).squeeze(1)
        return torch.cumsum(e, dim=-1), torch.topk(x, 3, dim=1).values


def networks() -> dict[str, tuple[nn.Module, list[np.ndarray], dict]]:
    rng = np.random.default_rng(0)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    pad = np.zeros((2, 6), dtype=bool)
    pad[1, 4:] = True
    causal = np.tril(np.ones((6, 6), dtype=np.int64))[None]
    return {
        "mlp": (MLP(), [f(2, 16)], {}),
        "cnn_bn_pool": (CNN(), [f(1, 3, 16, 16)], {}),
        "depthwise_separable": (DepthwiseSeparable(), [f(1, 8, 12, 12)], {}),
        "residual_block": (Residual(), [f(1, 8, 10, 10)], {}),
        "encoder_decoder": (EncoderDecoder(), [f(1, 3, 8, 8)], {}),
        "transformer_encoder": (TransformerLayer(), [f(2, 6, 32), pad], {}),
        "masked_attention": (MaskedAttention(), [f(1, 6, 16), causal], {}),
        "embedding_layernorm": (EmbeddingLayerNorm(), [rng.integers(0, 50, (2, 10)).astype(np.int64)], {}),
        "gru": (GRUNet(), [f(2, 5, 8)], {}),
        "lstm": (LSTMNet(), [f(2, 5, 8)], {}),
        "dynamic_batch": (DynamicBatch(), [f(3, 12)], {"input": [ov.PartialShape("[?,12]")]}),
        "shape_ops": (ShapeOps(), [f(2, 8, 5)], {}),
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    torch.backends.mha.set_fastpath_enabled(False)  # the fused fast path does not trace
    torch.manual_seed(0)
    manifest = {}
    for name, (module, inputs, extra) in networks().items():
        torch.manual_seed(0)
        module.eval()
        for p in module.modules():  # non-trivial BatchNorm statistics
            if isinstance(p, nn.BatchNorm2d):
                p.running_mean.uniform_(-0.5, 0.5)
                p.running_var.uniform_(0.5, 1.5)
        example = tuple(torch.from_numpy(x) for x in inputs)
        kwargs = {"example_input": example}
        if "input" in extra:
            kwargs["input"] = extra["input"]
        model = ov.convert_model(module, **kwargs)
        for suffix, fp16 in (("", False), ("_fp16", True)):
            ov.save_model(model, OUT / f"{name}{suffix}.xml", compress_to_fp16=fp16)
            size = (OUT / f"{name}{suffix}.bin").stat().st_size
            assert size < 1_000_000, f"{name}{suffix}: weights {size} bytes"
        np.savez(OUT / f"{name}.npz", *inputs)
        manifest[name] = {"inputs": [list(x.shape) for x in inputs]}
        print(f"{name}: ok")
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
