"""Writes small torchvision classifiers and a segmenter converted by OpenVINO with dynamic dims.

Run from the repository root (needs the `fixtures` extra: torch==2.13.0, torchvision==0.28.0,
openvino; the torchvision wheel is a CUDA build, but classifiers and segmenters convert without
its compiled ops):
    python tests/gen_torchvision_fixtures.py
Each network becomes tests/fixtures/torchvision/NAME.xml/.bin, saved with compress_to_fp16 to keep
it small (weights=None, few classes, narrow widths). BatchNorm statistics and affine parameters are
set to seeded random values (torchvision's init leaves outputs near 0, which would compare nothing).
`graphir run NAME.xml --random` must pick input sizes these accept (tests/test_run_random.py).
"""
from __future__ import annotations

from pathlib import Path

import openvino as ov
import torch
from torch import nn


def _define_detection_op_schemas() -> "torch.library.Library":
    """The PyPI torchvision 0.28.0 is a CUDA build: its C++ ops do not load with the CPU torch, and
    its import then fails registering fake kernels for nms/qnms. Declaring their schemas (never
    run: classifiers and segmenters do not use them) lets it import."""
    lib = torch.library.Library("torchvision", "FRAGMENT")
    if not hasattr(torch.ops.torchvision, "nms"):
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    return lib


_LIB = _define_detection_op_schemas()

import torchvision  # noqa: E402 - after the schemas above
from torchvision.models import mobilenet_v3_small, shufflenet_v2_x0_5, squeezenet1_1  # noqa: E402
from torchvision.models.segmentation.lraspp import _lraspp_mobilenetv3  # noqa: E402

OUT = Path(__file__).resolve().parent / "fixtures" / "torchvision"

#: name -> (module factory, example input shape, the dims convert_model leaves dynamic (-1))
NETWORKS = {
    # MaxPool with ceil_mode and Fire modules (Concat); batch and spatial dims dynamic
    "squeezenet1_1": (lambda: squeezenet1_1(weights=None, num_classes=10), (1, 3, 64, 64), [-1, 3, -1, -1]),
    # channel shuffles (Reshape/Transpose of ShapeOf values); every dim dynamic, channels included
    "shufflenet_v2_x0_5": (lambda: shufflenet_v2_x0_5(weights=None, num_classes=10), (1, 3, 64, 64), [-1, -1, -1, -1]),
    # hard-swish, squeeze-excitation, adaptive pooling
    "mobilenet_v3_small": (lambda: mobilenet_v3_small(weights=None, num_classes=10, width_mult=0.5), (1, 3, 64, 64),
                           [-1, 3, -1, -1]),
    # a segmenter: LR-ASPP head on a narrow MobileNetV3 backbone, Interpolate back to the input size
    "lraspp_mobilenet_v3_small": (
        lambda: _lraspp_mobilenetv3(mobilenet_v3_small(weights=None, width_mult=0.5, dilated=True), num_classes=3),
        (1, 3, 64, 64), [-1, 3, -1, -1]),
}


def randomize(module: nn.Module, seed: int) -> nn.Module:
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features, generator=generator) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=generator) * 0.1)
    return module.eval()


class _Segmenter(nn.Module):
    """The segmenter's dict output as one tensor (convert_model takes tensors or tuples)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)["out"]


def main() -> None:
    assert torch.__version__.startswith("2.13.0") and torchvision.__version__.startswith("0.28.0")
    OUT.mkdir(parents=True, exist_ok=True)
    for seed, (name, (factory, example, dims)) in enumerate(NETWORKS.items()):
        torch.manual_seed(seed)
        module = randomize(factory(), seed)
        if name.startswith("lraspp"):
            module = _Segmenter(module).eval()
        example_input = torch.randn(*example)
        model = ov.convert_model(module, example_input=example_input, input=[ov.PartialShape(dims)])
        if model.inputs[0].get_partial_shape() != ov.PartialShape(dims):  # the converter fixed some dims
            model.reshape({model.inputs[0]: ov.PartialShape(dims)})
        ov.save_model(model, OUT / f"{name}.xml", compress_to_fp16=True)
        size = (OUT / f"{name}.bin").stat().st_size
        print(f"{name}: input {model.inputs[0].get_partial_shape()}, {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
