"""Writes tests/fixtures/torchvision_shapes/*.xml: torchvision classifiers and segmenters converted by
``openvino.convert_model`` with dynamic batch, height and width (run: python tests/gen_torchvision_shape_fixtures.py).

Needs the ``fixtures`` extra (torchvision==0.28.0 with torch==2.13.0 CPU, openvino==2026.4.1).
The models are the real torchvision architectures (weights=None) at reduced widths/depths so the
files stay small (weights compressed to f16); shape inference does not depend on the widths.
torchvision 0.28.0 on PyPI is a CUDA build whose compiled ops fail to load with the CPU torch; the
classifiers and segmenters never call them, so their schemas are declared as stubs before import.
tests/test_torchvision_shapes.py compares every layer's shapes with OpenVINO's.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "fixtures" / "torchvision_shapes"


def import_torchvision() -> Any:
    import torch

    try:
        torch.ops.torchvision.nms
    except (AttributeError, RuntimeError):  # the CUDA build's ops did not load: declare their schemas
        lib = torch.library.Library("torchvision", "DEF")
        for name in ("nms", "qnms"):
            lib.define(f"{name}(Tensor x) -> Tensor")
        import_torchvision.keep = lib  # type: ignore[attr-defined]  # the library lives as long as the process
    import torchvision

    return torchvision


def models() -> dict[str, Any]:
    tv = import_torchvision()
    from torchvision.models.efficientnet import _efficientnet_conf
    from torchvision.models.segmentation.lraspp import _lraspp_mobilenetv3

    def backbone() -> Any:
        return tv.models.mobilenet_v3_large(weights=None, dilated=True, width_mult=0.25)

    inverted_residual_setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.5)

    return {
        "swin_t": tv.models.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 2],
                                            window_size=[7, 7], stochastic_depth_prob=0.0, num_classes=10),
        "swin_v2": tv.models.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 2],
                                             window_size=[8, 8], stochastic_depth_prob=0.0, num_classes=10,
                                             block=tv.models.swin_transformer.SwinTransformerBlockV2,
                                             downsample_layer=tv.models.swin_transformer.PatchMergingV2),
        "mobilenet_v3_small": tv.models.mobilenet_v3_small(weights=None, width_mult=0.25, num_classes=10),
        "efficientnet": tv.models.EfficientNet(inverted_residual_setting, 0.2, num_classes=10, last_channel=last),
        "squeezenet": tv.models.squeezenet1_1(weights=None, num_classes=10),
        "lraspp": _lraspp_mobilenetv3(backbone(), 3),
    }


def main() -> None:
    import openvino as ov
    import torch

    OUT.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    for name, model in models().items():
        model.eval()
        converted = ov.convert_model(model, example_input=torch.randn(1, 3, 64, 64),
                                     input=[ov.PartialShape([-1, 3, -1, -1])])
        ov.save_model(converted, OUT / f"{name}.xml", compress_to_fp16=True)
        print(name, (OUT / f"{name}.bin").stat().st_size // 1024, "KiB")


if __name__ == "__main__":
    main()
