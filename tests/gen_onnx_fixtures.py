"""Writes small ONNX exports for the ONNX reader's tests (tests/test_onnx_exports.py).

Run from the repository root (needs torch==2.13.0, torchvision==0.28.0 and onnx==1.23.2: the ``test``
and ``onnx`` extras):
    python tests/gen_onnx_fixtures.py
Each module is exported by torch's TorchScript exporter (``torch.onnx.export(dynamo=False)``, opset 17)
to tests/fixtures/onnx/NAME.onnx with its batch dim dynamic (the encoder's dims static); ``cnn_external`` is the CNN
saved again with its initializers in an external file (cnn_external.onnx.data). Weights are seeded
random values; BatchNorm statistics are randomized so the outputs are not near 0. All files together
stay under 1 MB.
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
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"wrote {len(list(OUT.iterdir()))} files, {total / 1e6:.2f} MB, to {OUT}")


if __name__ == "__main__":
    main()
