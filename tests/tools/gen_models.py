"""Real exports the tools' tests need beyond the committed fixtures, written at test time (or once
by hand: ``python tests/tools/gen_models.py DIR``) with torch + ``openvino.convert_model``.

* ``resnet18``: torchvision's resnet18 (weights=None, BatchNorm statistics re-drawn by
  tests/gen_torchvision_fixtures.randomize) at 1x3x224x224, f32: the known counts of ``stats``
  (1.8 GMACs, 11.7M parameters);
* ``deep_residual``: 300 residual blocks ``x + relu(linear(x))`` of width 16: a 1,200-layer model
  for ``reduce``.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def resnet18(out: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    import openvino as ov
    import torch

    from tests.gen_torchvision_fixtures import randomize  # registers the schemas torchvision needs
    from torchvision.models import resnet18 as build

    path = out / "resnet18.xml"
    if not path.exists():
        module = randomize(build(weights=None), seed=18)
        converted = ov.convert_model(module, example_input=torch.zeros(1, 3, 224, 224), input=[1, 3, 224, 224])
        ov.save_model(converted, str(path), compress_to_fp16=False)
    return path


def deep_residual(out: Path, blocks: int = 300, width: int = 16) -> Path:
    import openvino as ov
    import torch
    from torch import nn

    class Deep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(blocks))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for block in self.blocks:
                x = x + torch.relu(block(x))
            return x

    path = out / "deep_residual.xml"
    if not path.exists():
        torch.manual_seed(0)
        with torch.no_grad():
            module = Deep().eval()
            for block in module.blocks:  # small weights: 300 residual steps stay finite
                block.weight.mul_(0.1)
            converted = ov.convert_model(module, example_input=torch.zeros(2, width), input=[2, width])
        ov.save_model(converted, str(path), compress_to_fp16=False)
    return path


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    print(resnet18(target), deep_residual(target))
