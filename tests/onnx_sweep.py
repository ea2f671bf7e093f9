"""A sweep of real torch exports through graphir's ONNX reader (not collected by pytest).

Run from the repository root (needs the ``test`` and ``onnx`` extras: torch, torchvision, onnx,
onnxruntime, openvino):
    PYTHONPATH=$PWD python3 tests/onnx_sweep.py                  # every model
    PYTHONPATH=$PWD python3 tests/onnx_sweep.py squeezenet lstm  # names containing these words
    PYTHONPATH=$PWD python3 tests/onnx_sweep.py --list
Each model is exported by torch's TorchScript exporter (``dynamo=False``) into a temporary folder
(``--out DIR`` keeps the files), read by ``graphir.read_model``, every named layer's type and shape
compared with OpenVINO's ONNX frontend (by friendly name, as tests/test_onnx_exports.py does), then
run by graphir (reference numerics), ONNX Runtime (1 thread) and OpenVINO CPU (f32 hint) on one seeded
input; ``graphir convert`` IR is run by OpenVINO too. One row per model: read ok, layers matched /
mismatched, max abs diff of graphir vs ORT and vs OpenVINO (scaled: diff / (atol + rtol*|ref|), so
<= 1 is within rtol 1e-3 / atol 1e-4), the IR's diff vs OpenVINO on the .onnx, and seconds.
Detection outputs are compared as sets (rows sorted) and only where ORT and OpenVINO agree with each
other: NMS/TopK tie order under random weights is not a bug.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script: its sibling modules
from onnx_layers import layer_differences  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4


def _cpu_nms(boxes: torch.Tensor, scores: torch.Tensor, iou: float) -> torch.Tensor:
    """torchvision::nms for tracing: the PyPI torchvision wheel's compiled ops do not load with CPU
    torch, and detection models call nms while being traced (the ONNX symbolic replaces it)."""
    order = scores.argsort(descending=True)
    keep: list[int] = []
    b = boxes[order]
    alive = torch.ones(len(order), dtype=torch.bool)
    area = (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)
    for i in range(len(order)):
        if not alive[i]:
            continue
        keep.append(int(order[i]))
        lt = torch.maximum(b[i, :2], b[:, :2])
        rb = torch.minimum(b[i, 2:], b[:, 2:])
        inter = (rb - lt).clamp(min=0).prod(dim=1)
        alive &= inter / (area[i] + area - inter) <= iou
    return torch.tensor(keep, dtype=torch.int64)


def _has_ops() -> bool:
    """torchvision's check, answered yes (TorchScript compiles it: a plain function)."""
    return True


def _load_torchvision() -> Any:
    lib = torch.library.Library("torchvision", "FRAGMENT")
    if not hasattr(torch.ops.torchvision, "nms"):
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.impl("nms", _cpu_nms, "CPU")
    if not hasattr(torch.ops.torchvision, "roi_align"):
        lib.define("roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                   "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor")
    import torchvision
    import torchvision.extension
    import torchvision.ops.roi_align

    roi_align = sys.modules["torchvision.ops.roi_align"]  # the package's name is the function

    if not torchvision.extension._has_ops():
        # the detectors' nms and roi_align run (traced) through the definitions above
        lib.impl("roi_align", roi_align._roi_align, "CPU")
        setattr(torchvision.extension, "_has_ops", _has_ops)
        setattr(roi_align, "_has_ops", _has_ops)
    return torchvision, lib


TORCHVISION, _LIB = _load_torchvision()
tvm = TORCHVISION.models


@dataclass
class Case:
    name: str
    build: Callable[[], nn.Module]
    inputs: Callable[[], tuple[torch.Tensor, ...]]
    opset: int = 17
    dynamic: dict[str, dict[int, str]] = field(default_factory=dict)
    detection: bool = False
    #: inputs fed at run time when they differ from the export's (dynamic dims)
    run_inputs: Callable[[], tuple[torch.Tensor, ...]] | None = None


def _randomize(module: nn.Module, seed: int = 0) -> nn.Module:
    """Seeded BatchNorm statistics (torchvision's init leaves outputs near 0) and eval mode."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                assert m.running_mean is not None and m.running_var is not None
                m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=g) + 0.5)
                if m.affine:
                    m.weight.copy_(torch.rand(n, generator=g) + 0.5)
                    m.bias.copy_(torch.randn(n, generator=g) * 0.1)
            elif isinstance(m, (nn.Linear, nn.Conv2d)) and not m.weight.any():
                # zero-initialized heads (vit, swin) would give all-zero outputs that compare nothing
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * 0.02)
    return module.eval()


def _image(*shape: int) -> Callable[[], tuple[torch.Tensor, ...]]:
    return lambda: (torch.randn(*shape, generator=torch.Generator().manual_seed(7)),)


class _Out(nn.Module):
    """A dict/tuple-returning net reduced to its tensors."""

    def __init__(self, inner: nn.Module, key: str | None = None) -> None:
        super().__init__()
        self.inner, self.key = inner, key

    def forward(self, x: torch.Tensor) -> Any:
        y = self.inner(x)
        if self.key is not None:
            return y[self.key]
        return y


class _Detector(nn.Module):
    """A torchvision detector on one image: boxes, scores, labels (and keypoints) as a tuple."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor) -> Any:
        out = self.inner([x])[0]
        return tuple(out[k] for k in sorted(out))


class _Raft(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = tvm.optical_flow.raft_small(weights=None)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return self.inner(a, b, num_flow_updates=2)[-1]


# ---- handwritten modules exercising ops the fixtures lack ----

class Recurrent(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(16, 5, batch_first=True)

    def forward(self, x: torch.Tensor) -> Any:
        y, (h, c) = self.lstm(x)
        z, g = self.gru(y)
        return z, h, g


class Sampling(nn.Module):
    def forward(self, x: torch.Tensor, grid: torch.Tensor) -> Any:
        a = nn.functional.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
        b = nn.functional.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=True)
        c = nn.functional.interpolate(x, scale_factor=2.0, mode="bicubic", align_corners=True)
        d = nn.functional.interpolate(x, size=(5, 11), mode="bicubic", align_corners=False)
        e = nn.functional.interpolate(x, scale_factor=1.5, mode="nearest")
        f = nn.functional.interpolate(x, size=(9, 13), mode="bilinear", align_corners=True)
        g = nn.functional.pixel_shuffle(torch.cat([x, x, x, x], 1), 2)
        h = nn.functional.pixel_unshuffle(x, 2)
        return a, b, c, d, e, f, g, h


class Indexing(nn.Module):
    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> Any:
        r = torch.roll(x, shifts=(1, -2), dims=(0, 2))
        c = torch.cumsum(x, dim=1)
        cr = torch.flip(torch.cumsum(torch.flip(x, [2]), 2), [2])
        v, i = torch.topk(x, 3, dim=-1)
        order = torch.argsort(x[:, 0], dim=-1, descending=True)
        m = x.masked_fill(x > 0.5, -1.0)
        s = torch.zeros_like(x).scatter(2, idx, 1.0)
        sa = torch.zeros_like(x).scatter_add(2, idx, x[..., : idx.shape[-1]])
        y = x.clone()
        y[:, 1] = 0.25
        w = torch.where(x > 0, x, torch.tensor([0.5]))
        nz = torch.nonzero(x > 1.0)
        g = torch.gather(x, 2, idx)
        emb = nn.functional.embedding(idx.flatten(), x.reshape(-1, x.shape[-1])).sum(0)
        return r, c, cr, v, i, order, m, s, sa, y, w, nz, g, emb


class Integers(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> Any:
        q = torch.div(a, b, rounding_mode="floor")
        t = torch.div(a, b, rounding_mode="trunc")
        r = torch.remainder(a, b)
        f = torch.fmod(a, b)
        m = (a * b + 7) // 3
        logic = ((a > 0) & (b < 3)) | ~(a == b) ^ (a % 2 == 0)
        cnt = logic.sum(-1)
        amax = torch.argmax(a, dim=1, keepdim=True)
        cmp = torch.clamp(a, -3, 4)
        return q, t, r, f, m, logic, cnt, amax, cmp, a.abs().max(), torch.minimum(a, b)


class Norms(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln = nn.LayerNorm([6, 7])
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2d(4, affine=True)
        self.inorm2 = nn.InstanceNorm2d(4, affine=False, track_running_stats=False)
        with torch.no_grad():
            for p in self.parameters():
                p.uniform_(0.5, 1.5)

    def forward(self, x: torch.Tensor) -> Any:
        return self.ln(x), self.gn(x), self.inorm(x), self.inorm2(x), nn.functional.normalize(x, dim=1)


class Attention(nn.Module):
    """einsum and scaled_dot_product_attention over a dynamic batch and sequence."""

    def __init__(self) -> None:
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.k = nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> Any:
        q, k = self.q(x), self.k(x)
        scores = torch.einsum("bsd,btd->bst", q, k) / 4.0
        causal = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool), 1)
        scores = scores.masked_fill(causal, float("-inf")).softmax(-1)
        out = torch.einsum("bst,btd->bsd", scores, x)
        heads = q.unflatten(-1, (2, 8)).transpose(1, 2)
        mha = nn.functional.scaled_dot_product_attention(heads, heads, heads, is_causal=True)
        diag = torch.einsum("bii->bi", scores)
        outer = torch.einsum("bi,bj->bij", x[:, 0], x[:, -1])
        return out, mha, diag, outer


class Pooling(nn.Module):
    """pads, pools with ceil mode and indices, unfold, dilated/strided convs, transposed conv padding."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(3, 4, 3, dilation=2, padding=3, stride=2)
        self.tconv = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1, groups=1, dilation=2)
        self.gconv = nn.Conv2d(3, 6, (2, 3), groups=3, padding="same", bias=False)
        self.prelu = nn.PReLU(3)
        self.conv3 = nn.Conv3d(3, 2, (1, 2, 2), stride=(1, 2, 1))

    def forward(self, x: torch.Tensor) -> Any:
        f = nn.functional
        p1 = f.pad(x, (1, 2, 2, 1), mode="reflect")
        p2 = f.pad(x, (2, 0, 1, 3), mode="replicate")
        p3 = f.pad(x, (1, 1, 1, 1), mode="circular")
        p4 = f.pad(x, (-1, 2, 0, -1), value=0.5)
        mp, ind = f.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)
        ap = f.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        ap2 = f.avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=True)
        lp = f.lp_pool2d(x.abs() + 0.1, 2, 2)
        amp = f.adaptive_max_pool2d(x, (7, 3))
        aap = f.adaptive_avg_pool2d(x, (1, 3))
        c1 = self.conv(x.flatten(2))
        tc = self.tconv(x)
        gc = self.gconv(x)
        pr = self.prelu(x)
        c3 = self.conv3(x.unsqueeze(2))
        mp1 = f.max_pool1d(x.flatten(2), 4, stride=3, dilation=2)
        return p1, p2, p3, p4, mp, ind, ap, ap2, lp, amp, aap, c1, tc, gc, pr, c3, mp1


class Reductions(nn.Module):
    def forward(self, x: torch.Tensor) -> Any:
        return (x.logsumexp(1), x.std(2), x.var(-1, unbiased=False), x.norm(dim=1), x.norm(p=1, dim=-1),
                x.amax((1, 2)), x.min(dim=1)[0], x.min(dim=1)[1], x.argmin(-1), x.prod(1), x.mean((-1, -2), keepdim=True),
                x.abs().sqrt().sum(), torch.linalg.vector_norm(x, ord=float("inf"), dim=2),
                nn.functional.log_softmax(x, 1), nn.functional.softmin(x, -1), x.sum(0))


class Activations(nn.Module):
    def forward(self, x: torch.Tensor) -> Any:
        f = nn.functional
        return (f.gelu(x, approximate="tanh"), f.gelu(x), f.hardswish(x), f.hardsigmoid(x), f.mish(x),
                f.softplus(x, beta=2.0, threshold=1.0), f.celu(x, 0.7), f.elu(x, 1.3), f.selu(x), f.silu(x),
                f.logsigmoid(x), torch.erf(x), f.leaky_relu(x, 0.2), f.relu6(x * 4), f.hardtanh(x, -0.5, 0.5),
                f.softsign(x), f.tanhshrink(x), f.hardshrink(x, 0.3), f.softshrink(x, 0.3),
                torch.atan(x), torch.sign(x), torch.round(x * 3), torch.floor(x * 3), torch.ceil(x * 3),
                torch.reciprocal(x.abs() + 1), torch.log(x.abs() + 1),
                torch.pow(x.abs(), 1.7), torch.pow(2.0, x), x.clamp(min=-0.2))


class Shapes(nn.Module):
    """shape arithmetic over a dynamic batch and length: arange, narrow, split, repeat, expand, tril, cat."""

    def forward(self, x: torch.Tensor) -> Any:
        n = x.shape[1]
        pos = torch.arange(n, dtype=torch.int64).unsqueeze(0).expand(x.shape[0], n)
        first, rest = x.split([2, n - 2], dim=1)
        chunks = x.chunk(2, dim=-1)
        rep = x[:, :1].repeat(1, 3, 2)
        tri = torch.tril(x[..., :n] if x.shape[-1] >= n else x)
        flat = x.reshape(x.shape[0], int(np.prod(x.shape[1:])))
        view = flat.view(-1, 2, x.shape[-1])
        sel = x.index_select(1, torch.tensor([0, 2, 1]))
        back = x[:, ::2, 1::3]
        neg = x[:, -3:, :-1]
        ids = (pos * 3 + 1) % 5
        stack = torch.stack([x.sum(-1), x.amax(-1)], dim=-1)
        pos_f = pos.to(torch.float32) / n
        ints = torch.arange(1, n + 1, 2) * 2
        return first, rest, chunks[0], chunks[1], rep, tri, view, sel, back, neg, ids, stack, pos_f, ints, x.transpose(0, 2)


class MoreRecurrent(nn.Module):
    """GRU bidirectional with an initial state, LSTM with projections off and initial states, RNN tanh."""

    def __init__(self) -> None:
        super().__init__()
        self.gru = nn.GRU(4, 6, num_layers=2, batch_first=True, bidirectional=True)
        self.lstm = nn.LSTM(4, 3, batch_first=False)
        self.rnn = nn.RNN(4, 5, batch_first=True, nonlinearity="relu")

    def forward(self, x: torch.Tensor, h0: torch.Tensor) -> Any:
        g, hg = self.gru(x, h0)
        l, (hl, cl) = self.lstm(x.transpose(0, 1), (h0[:1, :, :3], h0[1:2, :, :3] * 0.5))
        r, hr = self.rnn(x)
        return g, hg, l, hl, cl, r, hr


class Scatters(nn.Module):
    """index_put with accumulate, scatter_reduce, one_hot, unique, tile, meshgrid."""

    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> Any:
        acc = torch.zeros(5, x.shape[1]).index_put((idx[:, 0] % 5,), x, accumulate=True)
        red = torch.full((2, 5), -9.0).scatter_reduce(1, idx[:2] % 5, x[:2, :2], reduce="amax", include_self=True)
        hot = nn.functional.one_hot(idx[:, 1] % 4, 4)
        uniq, inverse = torch.unique(idx % 4, sorted=True, return_inverse=True)
        tile = torch.tile(x[:1], (2, 2))  # (2, 1, 2) exports an If whose dead branch ORT and OpenVINO refuse
        gx, gy = torch.meshgrid(torch.arange(3.0), x[0, :4], indexing="ij")
        put = x.clone()
        put[idx[:, 0] % 2, 1] = -1.0
        return acc, red, hot, uniq, inverse, tile, gx, gy, put


class Bag(nn.Module):
    """EmbeddingBag with offsets: a Loop over the bags."""

    def __init__(self) -> None:
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 4, mode="mean")

    def forward(self, idx: torch.Tensor) -> Any:
        return self.bag(idx.flatten() % 10, torch.tensor([0, 2, 5]))


class Spectral(nn.Module):
    def forward(self, x: torch.Tensor) -> Any:
        s = torch.stft(x, 16, hop_length=4, window=torch.hann_window(16), return_complex=False, center=False)
        return s, s.sum(-1)


class Resizes(nn.Module):
    """interpolate to a size taken from another input (dynamic), trilinear, area, linear (nearest-exact
    does not export)."""

    def forward(self, x: torch.Tensor, like: torch.Tensor) -> Any:
        f = nn.functional
        a = f.interpolate(x, size=like.shape[-2:], mode="bilinear", align_corners=False)
        b = f.interpolate(x, size=like.shape[-2:], mode="nearest")
        c = f.interpolate(x.unsqueeze(2).expand(-1, -1, 3, -1, -1), scale_factor=(1.0, 2.0, 1.5), mode="trilinear")
        d = f.interpolate(x, scale_factor=1.7, mode="nearest")
        e = f.interpolate(x, size=(5, 3), mode="area")
        g = f.upsample(x, scale_factor=2, mode="bilinear", align_corners=True)
        h = f.interpolate(x[:, :, 0], scale_factor=2.5, mode="linear")
        return a, b, c, d, e, g, h


class Einsums(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> Any:
        return (torch.einsum("...ij,...jk->...ik", a, b), torch.einsum("bij,bij->b", a, a),
                torch.einsum("bij->bji", a), torch.einsum("bij,bkj->bik", a, a), torch.einsum("ij,ij->", a[0], a[1]),
                torch.bmm(a, b), torch.matmul(a[0], b), torch.matmul(a[:, 0], b[0]), torch.outer(a[0, 0], b[0, 0]))


class Dtypes(nn.Module):
    """f64 matmul/softmax, f16 arithmetic, casts to int32/uint8/int8/bool and back, int32 math."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)  # f32: ORT has no f64 Conv
        self.fc = nn.Linear(4, 5).double()

    def forward(self, x: torch.Tensor, i: torch.Tensor) -> Any:
        y = self.conv(x.float())
        z = self.fc(y.double().mean((2, 3))).softmax(-1)
        h = x.half()
        half = (h * 1.5 + h.abs()).sigmoid()
        i32 = (x * 10).to(torch.int32)
        u8 = (x.abs() * 40).to(torch.uint8)
        i8 = (x * 30).to(torch.int8)
        b = x > 0.3
        back = i32.float() + u8.float() + i8.double().float() + b.float()
        ints = (i * 3 - 7) // 2 + i.remainder(3) + (i > 2).to(torch.int32)
        return y, z, half, i32, u8, i8, b, back, ints, i.to(torch.float16), i.sum(), i.cumsum(0)


def _models() -> list[Case]:
    T = tvm
    cases = [
        Case("squeezenet1_0", lambda: T.squeezenet1_0(weights=None, num_classes=10), _image(1, 3, 64, 64)),
        Case("shufflenet_v2_x0_5", lambda: T.shufflenet_v2_x0_5(weights=None), _image(1, 3, 64, 64)),
        Case("mnasnet0_5", lambda: T.mnasnet0_5(weights=None), _image(1, 3, 64, 64), opset=18),
        Case("googlenet", lambda: T.googlenet(weights=None, aux_logits=False, init_weights=True),
             _image(1, 3, 64, 64)),
        Case("regnet_x_400mf", lambda: T.regnet_x_400mf(weights=None), _image(1, 3, 64, 64)),
        Case("resnext50_32x4d", lambda: T.resnext50_32x4d(weights=None), _image(1, 3, 64, 64), opset=18),
        Case("convnext_tiny", lambda: T.convnext_tiny(weights=None), _image(1, 3, 64, 64)),
        Case("efficientnet_v2_s", lambda: T.efficientnet_v2_s(weights=None), _image(1, 3, 64, 64)),
        Case("vit_b_16", lambda: T.vit_b_16(weights=None), _image(1, 3, 224, 224)),
        Case("swin_t", lambda: T.swin_t(weights=None), _image(1, 3, 64, 64), opset=18),
        Case("maxvit_t", lambda: T.maxvit_t(weights=None), _image(1, 3, 224, 224)),
        Case("densenet121", lambda: T.densenet121(weights=None), _image(1, 3, 64, 64)),
        Case("lraspp_mobilenet_v3_large",
             lambda: _Out(T.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None), "out"),
             _image(1, 3, 64, 64)),
        Case("deeplabv3_mobilenet_v3_large",
             lambda: _Out(T.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None), "out"),
             _image(1, 3, 64, 64), opset=18),
        Case("fcn_resnet50",
             lambda: _Out(T.segmentation.fcn_resnet50(weights=None, weights_backbone=None), "out"),
             _image(1, 3, 64, 64)),
        Case("r3d_18", lambda: T.video.r3d_18(weights=None), _image(1, 3, 4, 32, 32)),
        Case("raft_small", _Raft, lambda: (torch.randn(1, 3, 128, 128, generator=torch.Generator().manual_seed(1)),
                                           torch.randn(1, 3, 128, 128, generator=torch.Generator().manual_seed(2)))),
        Case("fasterrcnn_mobilenet_v3_large_320_fpn",
             lambda: _Detector(T.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
                 weights=None, weights_backbone=None, num_classes=5)),
             lambda: (torch.rand(3, 160, 160, generator=torch.Generator().manual_seed(7)),), detection=True),
        Case("ssdlite320_mobilenet_v3_large",
             lambda: _Detector(T.detection.ssdlite320_mobilenet_v3_large(
                 weights=None, weights_backbone=None, num_classes=5)),
             lambda: (torch.rand(3, 160, 160, generator=torch.Generator().manual_seed(7)),), detection=True),
        Case("retinanet_resnet50_fpn",
             lambda: _Detector(T.detection.retinanet_resnet50_fpn(
                 weights=None, weights_backbone=None, num_classes=5, min_size=128, max_size=128)),
             lambda: (torch.rand(3, 128, 128, generator=torch.Generator().manual_seed(7)),), detection=True),
        Case("keypointrcnn_resnet50_fpn",
             lambda: _Detector(T.detection.keypointrcnn_resnet50_fpn(
                 weights=None, weights_backbone=None, num_classes=2, min_size=128, max_size=128)),
             lambda: (torch.rand(3, 128, 128, generator=torch.Generator().manual_seed(7)),), detection=True),
        Case("recurrent", Recurrent, _image(2, 5, 6), dynamic={"in0": {0: "batch", 1: "seq"}},
             run_inputs=_image(3, 9, 6)),
        Case("sampling", Sampling,
             lambda: (torch.randn(2, 3, 6, 8, generator=torch.Generator().manual_seed(3)),
                      torch.rand(2, 5, 7, 2, generator=torch.Generator().manual_seed(4)) * 2.4 - 1.2)),
        Case("sampling_opset18", Sampling,
             lambda: (torch.randn(2, 3, 6, 8, generator=torch.Generator().manual_seed(3)),
                      torch.rand(2, 5, 7, 2, generator=torch.Generator().manual_seed(4)) * 2.4 - 1.2), opset=18),
        Case("indexing", Indexing,
             lambda: (torch.randn(2, 4, 6, generator=torch.Generator().manual_seed(5)) * 1.5,
                      torch.randint(0, 6, (2, 4, 3), generator=torch.Generator().manual_seed(6))),
             dynamic={"in0": {0: "batch"}, "in1": {0: "batch"}}),
        Case("integers", Integers,
             lambda: (torch.randint(-20, 20, (3, 5), generator=torch.Generator().manual_seed(8)),
                      torch.randint(1, 6, (3, 5), generator=torch.Generator().manual_seed(9))
                      * (torch.randint(0, 2, (3, 5), generator=torch.Generator().manual_seed(10)) * 2 - 1)),
             dynamic={"in0": {0: "batch"}, "in1": {0: "batch"}}),
        Case("norms", Norms, _image(2, 4, 6, 7), opset=18),
        Case("attention", Attention, _image(2, 5, 16), dynamic={"in0": {0: "batch", 1: "seq"}},
             run_inputs=_image(3, 8, 16)),
        Case("pooling", Pooling, _image(2, 3, 7, 9)),
        Case("reductions", Reductions, _image(2, 4, 6), opset=18),
        Case("reductions_opset17", Reductions, _image(2, 4, 6)),
        Case("activations", Activations, _image(2, 3, 5)),
        Case("shapes", Shapes, _image(2, 6, 8), dynamic={"in0": {0: "batch", 1: "len"}}, run_inputs=_image(3, 8, 8)),
        Case("more_recurrent", MoreRecurrent,
             lambda: (torch.randn(2, 5, 4, generator=torch.Generator().manual_seed(11)),
                      torch.randn(4, 2, 6, generator=torch.Generator().manual_seed(12))),
             dynamic={"in0": {0: "batch", 1: "seq"}, "in1": {1: "batch"}},
             run_inputs=lambda: (torch.randn(3, 4, 4, generator=torch.Generator().manual_seed(11)),
                                 torch.randn(4, 3, 6, generator=torch.Generator().manual_seed(12)))),
        Case("scatters", Scatters,
             lambda: (torch.randn(6, 3, generator=torch.Generator().manual_seed(13)),
                      torch.randint(0, 20, (6, 2), generator=torch.Generator().manual_seed(14))), opset=18),
        Case("embedding_bag", Bag, lambda: (torch.randint(0, 20, (6, 2), generator=torch.Generator().manual_seed(14)),)),
        Case("dtypes", Dtypes, lambda: (torch.randn(1, 3, 6, 7, generator=torch.Generator().manual_seed(19)).double(),
                                        torch.randint(-9, 9, (4, 3), generator=torch.Generator().manual_seed(20)).int())),
        Case("shufflenet_dynamic", lambda: T.shufflenet_v2_x0_5(weights=None, num_classes=7), _image(1, 3, 64, 64),
             dynamic={"in0": {0: "batch", 2: "h", 3: "w"}}, run_inputs=_image(2, 3, 96, 80)),
        Case("efficientnet_b0_dynamic", lambda: T.efficientnet_b0(weights=None, num_classes=7), _image(1, 3, 64, 64),
             dynamic={"in0": {0: "batch", 2: "h", 3: "w"}}, run_inputs=_image(2, 3, 72, 56), opset=18),
        Case("spectral", Spectral, _image(2, 64)),
        Case("resizes", Resizes, lambda: (torch.randn(1, 2, 5, 6, generator=torch.Generator().manual_seed(15)),
                                          torch.randn(1, 1, 8, 9, generator=torch.Generator().manual_seed(16))),
             dynamic={"in1": {2: "h", 3: "w"}},
             run_inputs=lambda: (torch.randn(1, 2, 5, 6, generator=torch.Generator().manual_seed(15)),
                                 torch.randn(1, 1, 11, 7, generator=torch.Generator().manual_seed(16)))),
        Case("einsums", Einsums, lambda: (torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(17)),
                                          torch.randn(2, 4, 5, generator=torch.Generator().manual_seed(18)))),
        Case("integers_opset18", Integers,
             lambda: (torch.randint(-20, 20, (3, 5), generator=torch.Generator().manual_seed(8)),
                      torch.randint(1, 6, (3, 5), generator=torch.Generator().manual_seed(9))
                      * (torch.randint(0, 2, (3, 5), generator=torch.Generator().manual_seed(10)) * 2 - 1)),
             opset=18),
    ]
    return cases


# ---- the comparison ----

def _scaled(a: np.ndarray, b: np.ndarray, mask: np.ndarray | None = None) -> float:
    if a.shape != b.shape:
        return float("inf")
    if a.dtype == bool or b.dtype == bool:
        a, b = a.astype(np.int8), b.astype(np.int8)
    a64, b64 = np.atleast_1d(a.astype(np.float64)), np.atleast_1d(b.astype(np.float64))
    both_nan = np.isnan(a64) & np.isnan(b64)
    same_inf = np.isinf(a64) & (a64 == b64)
    d = np.abs(a64 - b64) / (ATOL + RTOL * np.abs(b64))
    d[both_nan | same_inf] = 0.0
    if mask is not None:
        d = d[mask]
    return float(np.nanmax(d, initial=0.0)) if not np.isnan(d).any() else float("nan")


def _rows_sorted(x: np.ndarray) -> np.ndarray:
    """Detections as a set: rows sorted (scores tie under random weights; their order is no bug)."""
    if x.ndim == 0:
        return x
    if x.ndim == 1:
        return np.sort(x)
    flat = x.reshape(x.shape[0], int(np.prod(x.shape[1:])))
    return flat[np.lexsort(flat.T[::-1])].reshape(x.shape)


@dataclass
class Row:
    name: str
    opset: int = 0
    read: str = "-"
    matched: int = 0
    mismatched: int = 0
    ort: float = float("nan")
    ov: float = float("nan")
    ir: float = float("nan")
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def sweep_one(case: Case, out: Path, verbose: bool) -> Row:
    import onnx
    import onnxruntime
    import openvino as ov

    import graphir
    from graphir.cli import main as cli_main

    row = Row(case.name, case.opset)
    start = time.perf_counter()
    torch.manual_seed(0)
    path = out / f"{case.name}.onnx"
    try:
        module = _randomize(case.build())
        args = case.inputs()
        names = [f"in{i}" for i in range(len(args))]
        with torch.no_grad():
            torch.onnx.export(module, args if len(args) > 1 else (args[0],), str(path), dynamo=False,
                              opset_version=case.opset, input_names=names, dynamic_axes=case.dynamic or None)
    except Exception as e:  # noqa: BLE001 - an export torch refuses is a skip, noted
        row.read = "no export"
        row.notes.append(f"export: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
        row.seconds = time.perf_counter() - start
        return row
    feed_args = (case.run_inputs or case.inputs)()
    feed = {n: t.numpy() for n, t in zip(names, feed_args)}
    proto = onnx.load(str(path), load_external_data=False)
    feed = {k: v for k, v in feed.items() if k in {i.name for i in proto.graph.input}}
    try:
        model = graphir.read_model(path)
        row.read = "ok"
    except Exception as e:  # noqa: BLE001
        row.read = "FAIL"
        row.notes.append(f"read: {type(e).__name__}: {str(e)[:300]}")
        if verbose:
            traceback.print_exc()
        row.seconds = time.perf_counter() - start
        return row
    try:
        row.matched, differ, _ = layer_differences(path, model, ov, onnx)
        row.mismatched = len(differ)
        for name, ours, got in differ[:5]:
            row.notes.append(f"layer {name}: graphir {ours} openvino {got}")
    except Exception as e:  # noqa: BLE001
        row.notes.append(f"openvino read: {type(e).__name__}: {str(e)[:200]}")
    session = onnxruntime.SessionOptions()
    session.intra_op_num_threads = session.inter_op_num_threads = 1
    try:
        ref = onnxruntime.InferenceSession(str(path), session, providers=["CPUExecutionProvider"]).run(None, feed)
    except Exception as e:  # noqa: BLE001 - then OpenVINO is the reference
        row.notes.append(f"onnxruntime: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
        ref = None
    theirs: list[np.ndarray] | None = None
    try:
        core = ov.Core()
        compiled = core.compile_model(core.read_model(str(path)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        res = compiled(feed)
        theirs = [np.asarray(res[o]) for o in compiled.outputs]
    except Exception as e:  # noqa: BLE001
        row.notes.append(f"openvino run: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
    try:
        ours = list(model.run(feed).values())
    except Exception as e:  # noqa: BLE001
        row.notes.append(f"graphir run: {type(e).__name__}: {str(e)[:300]}")
        if verbose:
            traceback.print_exc()
        row.seconds = time.perf_counter() - start
        return row
    ort_diffs, ov_diffs = [], []
    has_ort = ref is not None
    ref = ref if ref is not None else (theirs or [])
    for k, (a, b) in enumerate(zip(ours, ref)):
        if a.dtype != b.dtype:
            row.notes.append(f"output {k}: dtype graphir {a.dtype} ort {b.dtype}")
        c = theirs[k] if theirs is not None and k < len(theirs) else None
        mask = None
        if case.detection and c is not None and c.shape == b.shape == a.shape:
            a, b, c = _rows_sorted(a), _rows_sorted(b), _rows_sorted(c)
            mask = np.isclose(b.astype(np.float64), c.astype(np.float64), rtol=RTOL, atol=ATOL)
        elif case.detection:  # the runtimes kept different boxes: graphir against ORT alone
            row.notes.append(f"output {k}: graphir {a.shape} ort {b.shape} openvino {None if c is None else c.shape}")
            if a.shape == b.shape:
                ort_diffs.append(_scaled(_rows_sorted(a), _rows_sorted(b)) if has_ort else float("nan"))
            continue
        ort_diffs.append(_scaled(a, b, mask) if has_ort else float("nan"))
        if c is not None:
            ov_diffs.append(_scaled(a, c, mask))
        if ort_diffs[-1] > 1 or (c is not None and ov_diffs[-1] > 1):
            row.notes.append(f"output {k} {a.shape}/{b.shape}: vs ort {ort_diffs[-1]:.3g}"
                             + (f" vs ov {ov_diffs[-1]:.3g}" if c is not None else "")
                             + (f" ort~ov {_scaled(c, b):.3g}" if c is not None else ""))
    if len(ours) != len(ref):
        row.notes.append(f"graphir gave {len(ours)} outputs, ort {len(ref)}")
    row.ort = max(ort_diffs, default=float("nan")) if has_ort else float("nan")
    row.ov = max(ov_diffs, default=float("nan"))
    try:
        xml = out / f"{case.name}.xml"
        if cli_main(["convert", str(path), str(xml)]) != 0:
            raise RuntimeError("graphir convert failed")
        core = ov.Core()
        compiled = core.compile_model(core.read_model(str(xml)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        res = compiled(feed)
        from_ir = [np.asarray(res[o]) for o in compiled.outputs]
        if theirs is not None:
            row.ir = max((_scaled(a, b) for a, b in zip(from_ir, theirs) if not case.detection), default=0.0)
    except Exception as e:  # noqa: BLE001
        row.notes.append(f"convert: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
    row.seconds = time.perf_counter() - start
    return row


def _print(rows: list[Row]) -> None:
    head = f"{'model':40} {'opset':>5} {'read':>9} {'layers':>7} {'differ':>6} {'vs ORT':>9} {'vs OV':>9} {'IR':>9} {'s':>6}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r.name:40} {r.opset:>5} {r.read:>9} {r.matched:>7} {r.mismatched:>6} {r.ort:>9.3g} {r.ov:>9.3g} "
              f"{r.ir:>9.3g} {r.seconds:>6.1f}")
        for n in r.notes:
            print(f"    {n}")


def _isolated(name: str, out: Path, verbose: bool) -> Row:
    """One model in its own process: exports leave TorchScript/tracing state behind that has broken a
    later detector's export, and a model's memory is returned when it ends."""
    command = [sys.executable, __file__, "--one", name, "--out", str(out)] + (["-v"] if verbose else [])
    done = subprocess.run(command, capture_output=True, text=True)
    if verbose:
        sys.stderr.write(done.stderr)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(_RESULT):
            return Row(**json.loads(line[len(_RESULT):]))
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return Row(name, read="CRASH", notes=[f"exit {done.returncode}: {tail[:200]}"])


_RESULT = "SWEEP-ROW "


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("words", nargs="*", help="run the models whose names contain one of these")
    parser.add_argument("--out", type=Path, help="keep the exports here (default: a temporary folder)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # run this one model here (the parent's child)
    parser.add_argument("-v", "--verbose", action="store_true", help="print tracebacks")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    torch.backends.mha.set_fastpath_enabled(False)  # its fused op has no ONNX export (vit, swin)
    if args.one:
        case = next(c for c in _models() if c.name == args.one)
        row = sweep_one(case, args.out, args.verbose)
        print(_RESULT + json.dumps(dataclasses.asdict(row)))
        return 0
    cases = [c for c in _models() if not args.words or any(w in c.name for w in args.words)]
    if args.list:
        print("\n".join(c.name for c in cases))
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        for case in cases:
            rows.append(_isolated(case.name, out, args.verbose))
            _print(rows[-1:])
            sys.stdout.flush()
    print()
    _print(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
