"""torchvision detectors converted by ``openvino.convert_model`` into OpenVINO IR, cached.

Each detector is built with ``weights=None`` (no hub), in eval mode, with BatchNorm statistics and
every parameter re-drawn from a seeded normal distribution scaled per tensor, so that the heads
give non-trivial scores (torchvision's zero-initialised heads would give 0 or ~1e-10) and NMS has
boxes to choose from. The IR is written to ``$TMPDIR/graphir-detectors/<name>.xml`` once (the
ResNet-50 ones are ~100-170 MB: too big to commit) and reused. Needs torch==2.13.0, torchvision
0.28.0 (see torchvision_cpu.py) and openvino.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

CACHE = Path(tempfile.gettempdir()) / "graphir-detectors"
VERSION = "4"  # bump when the recipe changes
LOGIT_STD = 2.5

#: name -> (builder in torchvision.models.detection, keyword arguments, input height, width)
DETECTORS: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "ssdlite": ("ssdlite320_mobilenet_v3_large", {"score_thresh": 0.2}, 320, 320),
    "fasterrcnn": ("fasterrcnn_mobilenet_v3_large_320_fpn", {"box_score_thresh": 0.05}, 160, 192),
    "retinanet": ("retinanet_resnet50_fpn", {"min_size": 128, "max_size": 160, "score_thresh": 0.2}, 128, 160),
    "fcos": ("fcos_resnet50_fpn", {"min_size": 128, "max_size": 160, "score_thresh": 0.2}, 128, 160),
    "maskrcnn": ("maskrcnn_resnet50_fpn", {"min_size": 128, "max_size": 160, "box_score_thresh": 0.05}, 128, 160),
}


def _randomize(model: Any, seed: int, example: Any) -> None:
    """Keep torchvision's initialisation of the trunk; re-draw what it leaves constant (zero or
    constant biases, zero-initialised heads) and the BatchNorm statistics; then scale every class
    logit layer so its logits on ``example`` have standard deviation ``LOGIT_STD`` (random trunks
    give small, flat features: the softmax/sigmoid scores would sit below every threshold)."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in model.named_parameters():
            if p.numel() == 1 or float(p.std()) < 1e-3:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.05)
        for m in model.modules():
            if hasattr(m, "running_mean") and hasattr(m, "running_var") and m.running_mean is not None:
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) + 0.5)
        layers = {name: m for name, m in model.named_modules()
                  if ("cls" in name or "classification" in name) and isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))}
        outputs: dict[str, list[Any]] = {name: [] for name in layers}
        hooks = [m.register_forward_hook(lambda _m, _i, o, key=name: outputs[key].append(o)) for name, m in layers.items()]
        model([example])
        for h in hooks:
            h.remove()
        for name, m in layers.items():
            if not outputs[name]:
                continue
            logits = torch.cat([o.reshape(-1) for o in outputs[name]])
            std, mean = float(logits.std()), float(logits.mean())
            if std > 0 and m.bias is not None:  # logits centred on 0 with LOGIT_STD spread
                m.weight.mul_(LOGIT_STD / std)
                m.bias.sub_(mean).mul_(LOGIT_STD / std)


def image(name: str, seed: int = 0) -> Any:
    import numpy as np

    _, _, h, w = DETECTORS[name]
    return np.random.default_rng(seed).random((1, 3, h, w)).astype(np.float32)


def match_detections(got: list[Any], ref: list[Any]) -> tuple[int, list[tuple[int, int]]]:
    """Greedy match of reference detections (OpenVINO's) to graphir's, outputs (boxes, labels, ...,
    scores): same label, score within 1e-4, box within 1e-2 px. (matched count, (ref index, got
    index) pairs)."""
    import numpy as np

    gb, gl, gs = got[0], got[1], got[-1]
    eb, el, es = ref[0], ref[1], ref[-1]
    used = np.zeros(len(gs), bool)
    pairs = []
    for j in range(len(es)):
        cand = np.nonzero(~used & (gl == el[j]) & (np.abs(gs - es[j]) < 1e-4) & (np.abs(gb - eb[j]).max(axis=1) < 1e-2))[0]
        if len(cand):
            used[cand[0]] = True
            pairs.append((j, int(cand[0])))
    return len(pairs), pairs


def detector_module(name: str) -> Any:
    """The detector as a torch module taking one [1,3,H,W] image tensor and returning its outputs
    (boxes, labels, scores[, masks]: sorted by key) as a tuple; seeded as described above."""
    import torch

    from tests.detectors.torchvision_cpu import import_torchvision

    tv = import_torchvision()
    builder, kwargs, h, w = DETECTORS[name]
    model = getattr(tv.models.detection, builder)(weights=None, weights_backbone=None, **kwargs).eval()
    _randomize(model, 1, torch.from_numpy(image(name))[0])

    class Wrapper(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: Any) -> Any:
            out = self.inner(list(x))[0]
            return tuple(out[k] for k in sorted(out))

    return Wrapper(model).eval()


def detector_ir(name: str) -> Path:
    """The IR of one detector (converted on first use)."""
    xml = CACHE / f"{name}-v{VERSION}.xml"
    if xml.exists() and xml.with_suffix(".bin").exists():
        return xml
    import openvino as ov
    import torch

    example = torch.from_numpy(image(name))
    converted = ov.convert_model(detector_module(name), example_input=example)
    CACHE.mkdir(exist_ok=True)
    tmp = xml.with_suffix(".tmp.xml")
    ov.save_model(converted, tmp, compress_to_fp16=False)
    tmp.with_suffix(".bin").replace(xml.with_suffix(".bin"))
    tmp.replace(xml)
    return xml
