"""Real exports the tools' tests need beyond the committed fixtures, written at test time (or once
by hand: ``python tests/tools/gen_models.py DIR``) with torch + ``openvino.convert_model``.

* ``resnet18``: torchvision's resnet18 (weights=None, BatchNorm statistics re-drawn by
  tests/gen_torchvision_fixtures.randomize) at 1x3x224x224, f32: the known counts of ``stats``
  (1.8 GMACs, 11.7M parameters);
* ``deep_residual``: 300 residual blocks ``x + relu(x @ W.T + b)`` of width 16, written by
  OpenVINO's Python API: a 1,200-layer model for ``reduce``.
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
    """Built with OpenVINO's own Python opset (as a converter would emit it: MatMul with
    transpose_b, bias Add, Relu, residual Add per block) and saved by ``openvino.save_model``."""
    import numpy as np
    import openvino as ov
    import openvino.opset13 as ops

    path = out / "deep_residual.xml"
    if not path.exists():
        rng = np.random.default_rng(0)
        x = ops.parameter([2, width], np.float32, name="x")
        y = x.output(0)
        for i in range(blocks):
            weight = ops.constant((rng.standard_normal((width, width)) * 0.1).astype(np.float32),
                                  name=f"blocks.{i}.weight")
            bias = ops.constant((rng.standard_normal(width) * 0.1).astype(np.float32), name=f"blocks.{i}.bias")
            product = ops.matmul(y, weight, transpose_a=False, transpose_b=True, name=f"blocks.{i}/MatMul")
            added = ops.add(product, bias, name=f"blocks.{i}/Add")
            relu = ops.relu(added, name=f"blocks.{i}/Relu")
            y = ops.add(y, relu, name=f"blocks.{i}/residual").output(0)
        ov.save_model(ov.Model([ops.result(y, name="out")], [x], "deep_residual"), str(path),
                      compress_to_fp16=False)
    return path


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    print(resnet18(target), deep_residual(target))
