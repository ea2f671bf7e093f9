"""Writes the two large networks the drawing benchmark lays out (not committed: regenerated on demand).

    python tests/gen_draw_models.py [OUT_DIR]     # needs torch==2.13.0 and openvino (the test extra)

- ``swin.xml``: a Swin-B-like network (depths 2-2-26-2, shifted window attention, patch
  merging, random init) at a narrow width (16), converted by ``openvino.convert_model``: about 2,000 layers.
- ``llm.xml``: a Llama-style decoder (RMSNorm, rotary embeddings, scaled dot-product attention,
  SwiGLU MLP) with 6 blocks and a dynamic sequence length: about 500 layers.
"""
from __future__ import annotations

import sys
from pathlib import Path

import openvino as ov
import torch
from torch import nn


class WindowBlock(nn.Module):
    """A Swin block: window attention with a relative position bias (shifted every other block), MLP."""

    def __init__(self, dim: int, heads: int, window: int, shift: int) -> None:
        super().__init__()
        self.heads, self.window, self.shift = heads, window, shift
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.bias = nn.Parameter(torch.randn(heads, window * window, window * window) * 0.02)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, h, w, c = x.shape
        s, n = self.window, self.heads
        y = self.norm1(x)
        if self.shift:
            y = torch.roll(y, shifts=(-self.shift, -self.shift), dims=(1, 2))
        y = y.view(b, h // s, s, w // s, s, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, s * s, c)
        q, k, v = self.qkv(y).reshape(-1, s * s, 3, n, c // n).permute(2, 0, 3, 1, 4).unbind(0)
        attn = (q * (c // n) ** -0.5) @ k.transpose(-2, -1) + self.bias
        y = (attn.softmax(-1) @ v).transpose(1, 2).reshape(-1, s * s, c)
        y = self.proj(y).view(b, h // s, w // s, s, s, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        if self.shift:
            y = torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2))
        x = x + y
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm, self.reduce = nn.LayerNorm(4 * dim), nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
        return self.reduce(self.norm(x))


class Swin(nn.Module):
    """Swin-B-like structure (depths 2-2-26-2, window 7, shifted windows, patch merging) at width 16."""

    def __init__(self, dim: int = 16, depths: tuple[int, ...] = (2, 2, 26, 2), heads: tuple[int, ...] = (1, 2, 4, 8)) -> None:
        super().__init__()
        self.embed = nn.Conv2d(3, dim, 4, stride=4)
        self.norm0 = nn.LayerNorm(dim)
        stages: list[nn.Module] = []
        for i, (depth, n) in enumerate(zip(depths, heads)):
            stages += [WindowBlock(dim, n, 7, 0 if j % 2 == 0 else 3) for j in range(depth)]
            if i < len(depths) - 1:
                stages.append(PatchMerging(dim))
                dim *= 2
        self.stages = nn.Sequential(*stages)
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, 10)

    def forward(self, x):
        x = self.norm0(self.embed(x).permute(0, 2, 3, 1))
        x = self.norm(self.stages(x))
        return self.head(x.mean(dim=(1, 2)))


def swin() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return Swin().eval(), torch.zeros(1, 3, 224, 224)


class RMSNorm(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = RMSNorm(dim), RMSNorm(dim)
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.gate, self.up = nn.Linear(dim, 2 * dim, bias=False), nn.Linear(dim, 2 * dim, bias=False)
        self.down = nn.Linear(2 * dim, dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        h = self.norm1(x)
        q, k, v = (proj(h).view(b, t, self.heads, d // self.heads).transpose(1, 2) for proj in (self.q, self.k, self.v))
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        a = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        h = self.norm2(x)
        return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))


class TinyLlama(nn.Module):
    def __init__(self, vocab: int = 256, dim: int = 32, heads: int = 4, layers: int = 6) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim // heads, 2).float() / (dim // heads))))

    def forward(self, ids):
        t = torch.arange(ids.shape[1], dtype=torch.float32)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat([freqs, freqs], dim=-1)
        cos, sin = emb.cos(), emb.sin()
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.head(self.norm(x))


def llm() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return TinyLlama().eval(), torch.zeros(1, 8, dtype=torch.int64)


def write(out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, make in (("swin", swin), ("llm", llm)):
        module, example = make()
        inputs = [ov.PartialShape([1, 3, 224, 224])] if name == "swin" else [(ov.PartialShape([1, -1]), ov.Type.i64)]
        model = ov.convert_model(module, example_input=example, input=inputs)
        paths[name] = out / f"{name}.xml"
        ov.save_model(model, paths[name], compress_to_fp16=False)
    return paths


if __name__ == "__main__":
    for name, path in write(Path(sys.argv[1] if len(sys.argv) > 1 else ".")).items():
        print(name, path)
