"""Writes tests/fixtures/torchvision_shapes/*.xml and tests/fixtures/torchvision_detectors/*.xml: torchvision
classifiers, segmenters and detectors converted by ``openvino.convert_model`` with dynamic batch, height and width (run: python tests/gen_torchvision_shape_fixtures.py).

Needs the ``fixtures`` extra (torchvision==0.28.0 with torch==2.13.0 CPU, openvino==2026.4.1).
The models are the real torchvision architectures (weights=None) at reduced widths/depths so the
files stay small (weights compressed to f16); shape inference does not depend on the widths.
torchvision 0.28.0 on PyPI is a CUDA build whose compiled ops fail to load with the CPU torch; the
classifiers and segmenters never call them, so their schemas are declared as stubs before import; the
detectors call nms and roi_align, so they import torchvision through tests/detectors/torchvision_cpu.py.
The detectors are torchvision's FasterRCNN, RetinaNet, FCOS, MaskRCNN (on a MobileNetV3-large FPN backbone,
as ``fasterrcnn_mobilenet_v3_large_fpn`` builds it) and SSDlite (as ``ssdlite320_mobilenet_v3_large`` builds
it), with weights=None at width 1/4, 32 FPN channels and small box/mask heads (the builders' full widths give
20-170 MB files); min_size/max_size 128/160.
tests/test_torchvision_shapes.py compares every layer's shapes with OpenVINO's.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "fixtures" / "torchvision_shapes"
#: the detectors: apart, since their detections on random weights come out in another order than
#: OpenVINO's (tests/detectors/test_torchvision_detectors.py matches them; test_run_random cannot)
DETECTORS_OUT = OUT.parent / "torchvision_detectors"


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


def detectors() -> dict[str, Any]:
    """The five torchvision detectors, with the builders' structure at reduced widths (see the module doc)."""
    from functools import partial

    import torch
    from torch import nn

    from tests.detectors.torchvision_cpu import import_torchvision as import_with_ops

    tv = import_with_ops()
    det = tv.models.detection
    from torchvision.models.detection import ssdlite
    from torchvision.models.detection.anchor_utils import AnchorGenerator, DefaultBoxGenerator
    from torchvision.models.detection.backbone_utils import BackboneWithFPN
    from torchvision.ops.feature_pyramid_network import LastLevelMaxPool

    def fpn_backbone() -> Any:  # backbone_utils._mobilenet_extractor(fpn=True) with 32 output channels (GroupNorm(32) in FCOS's head)
        features = tv.models.mobilenet_v3_large(weights=None, width_mult=0.25).features
        stages = [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] + [len(features) - 1]
        returned = [len(stages) - 2, len(stages) - 1]
        return BackboneWithFPN(features, {f"{stages[k]}": str(v) for v, k in enumerate(returned)},
                               [features[stages[i]].out_channels for i in returned], 32, extra_blocks=LastLevelMaxPool())

    sizes = dict(min_size=128, max_size=160)
    anchors = AnchorGenerator(((32, 64, 128, 256, 512),) * 3, ((0.5, 1.0, 2.0),) * 3)  # as the mobilenet builders
    box_head = lambda: det.faster_rcnn.TwoMLPHead(32 * 7 * 7, 32)  # noqa: E731
    box_predictor = lambda: det.faster_rcnn.FastRCNNPredictor(32, 5)  # noqa: E731
    norm = partial(nn.BatchNorm2d, eps=0.001, momentum=0.03)
    ssd_backbone = ssdlite._mobilenet_extractor(
        tv.models.mobilenet_v3_large(weights=None, width_mult=0.25, reduced_tail=True, norm_layer=norm), 6, norm)
    ssd_anchors = DefaultBoxGenerator([[2, 3] for _ in range(6)], min_ratio=0.2, max_ratio=0.95)
    ssd_channels = det._utils.retrieve_out_channels(ssd_backbone, (320, 320))
    torch.manual_seed(0)
    return {
        "fasterrcnn": det.FasterRCNN(fpn_backbone(), None, rpn_anchor_generator=anchors, box_head=box_head(),
                                     box_predictor=box_predictor(), **sizes),
        "retinanet": det.RetinaNet(fpn_backbone(), 5, anchor_generator=AnchorGenerator(
            ((32, 40, 50), (64, 80, 101), (128, 161, 203)), ((0.5, 1.0, 2.0),) * 3), **sizes),
        "fcos": det.fcos.FCOS(fpn_backbone(), 5, anchor_generator=AnchorGenerator(((8,), (16,), (32,)), ((1.0,),) * 3),
                         **sizes),
        "maskrcnn": det.MaskRCNN(fpn_backbone(), None, rpn_anchor_generator=anchors, box_head=box_head(),
                                 box_predictor=box_predictor(), mask_head=det.mask_rcnn.MaskRCNNHeads(32, (16, 16), 1),
                                 mask_predictor=det.mask_rcnn.MaskRCNNPredictor(16, 16, 5), **sizes),
        "ssdlite": det.ssd.SSD(ssd_backbone, ssd_anchors, (320, 320), 5,
                           head=ssdlite.SSDLiteHead(ssd_channels, ssd_anchors.num_anchors_per_location(), 5, norm),
                           score_thresh=0.001, nms_thresh=0.55, detections_per_img=300, topk_candidates=300,
                           image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5]),
    }


def image_batch(inner: Any) -> Any:
    """A detector (which takes a list of [3,H,W] images and returns one dict per image) as a module
    taking an [N,3,H,W] tensor and returning the first image's outputs sorted by key (the trace
    unrolls the list for the example's one image, as tests/detectors/convert.py's wrapper does)."""
    import torch

    class Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: Any) -> Any:
            out = self.inner(list(x))[0]
            return tuple(out[k] for k in sorted(out))

    return Wrapper().eval()


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
    DETECTORS_OUT.mkdir(parents=True, exist_ok=True)
    for name, model in detectors().items():
        converted = ov.convert_model(image_batch(model.eval()), example_input=torch.rand(1, 3, 128, 160),
                                     input=[ov.PartialShape([-1, 3, -1, -1])])
        ov.save_model(converted, DETECTORS_OUT / f"{name}.xml", compress_to_fp16=True)
        print(name, (DETECTORS_OUT / f"{name}.bin").stat().st_size // 1024, "KiB")


if __name__ == "__main__":
    main()
