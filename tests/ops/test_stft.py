"""STFT-15 and ISTFT-16 against OpenVINO 2026: shapes (batch or not, intervals, unknown sizes,
errors) and CPU values over windows shorter than the frame, both layouts, center/normalized."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Const, Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(41)


def scalar(v: int | str) -> Const | Param:
    return Param("[]", "i64") if v == "P" else Const(np.int64(v))


@pytest.mark.parametrize("signal,window,fs,step", [("[2,48]", "[16]", 16, 4), ("[48]", "[16]", 16, 4),
                                                   ("[2,?]", "[16]", 16, 4), ("[2,20..48]", "[?]", 16, 4),
                                                   ("[2,48]", "[16]", "P", 4), ("[2,48]", "[16]", 16, "P"),
                                                   ("[2,48]", "[20]", 16, 4), ("[2,10]", "[16]", 16, 4),
                                                   ("[...]", "[16]", 16, 4), ("[2,49]", "[7]", 10, 3),
                                                   ("[1,2,48]", "[16]", 16, 4), ("[2,48]", "[16]", 16, 0)])
@pytest.mark.parametrize("transpose", [False, True])
def test_stft_shapes(ov, signal: str, window: str, fs, step, transpose: bool) -> None:
    inputs = [Param(signal), Param(window), scalar(fs), scalar(step)]
    agree_or_both_fail(ov, "STFT", "opset15", {"transpose_frames": transpose}, inputs)


@pytest.mark.parametrize("shape", [(2, 50), (37,)])
@pytest.mark.parametrize("window,fs,step", [(16, 16, 4), (7, 10, 3), (5, 8, 8)])
@pytest.mark.parametrize("transpose", [False, True])
def test_stft_values_match_openvino_cpu(ov, shape, window: int, fs: int, step: int, transpose: bool) -> None:
    x, w = random_array(shape, "f32", RNG), random_array((window,), "f32", RNG, 0, 1)
    same(ov, "STFT", "opset15", {"transpose_frames": transpose},
         [Param(str(list(shape)).replace(" ", "")), Param(f"[{window}]"), Const(np.int64(fs)), Const(np.int64(step))],
         [x, w])


@pytest.mark.parametrize("data,fs,step,length", [("[9,11,2]", 16, 4, None), ("[3,9,11,2]", 16, 4, None),
                                                 ("[3,9,11,2]", 16, 4, 30), ("[3,9,?,2]", 16, 4, None),
                                                 ("[3,9,2..11,2]", 16, 4, None), ("[3,9,11,2]", "P", 4, None),
                                                 ("[3,9,11,2]", 16, 4, "P"), ("[3,8,11,2]", 16, 4, None),
                                                 ("[...]", 16, 4, None),
                                                 ("[3,9,11,3]", 16, 4, None)])  # OpenVINO does not check the 2
@pytest.mark.parametrize("center", [False, True])
def test_istft_shapes(ov, data: str, fs, step, length, center: bool) -> None:
    inputs = [Param(data), Param("[16]"), scalar(fs), scalar(step)] + ([] if length is None else [scalar(length)])
    agree_or_both_fail(ov, "ISTFT", "opset16", {"center": center, "normalized": False}, inputs)


@pytest.mark.parametrize("batch", [(), (2,)])
@pytest.mark.parametrize("window,fs,step", [(16, 16, 4), (7, 10, 3)])
@pytest.mark.parametrize("center,normalized", [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("length", [None, 20, 60])
def test_istft_values_match_openvino_cpu(ov, batch, window: int, fs: int, step: int, center: bool,
                                         normalized: bool, length) -> None:
    shape = batch + (fs // 2 + 1, 9, 2)
    x, w = random_array(shape, "f32", RNG), random_array((window,), "f32", RNG, 0.2, 1)
    inputs = [Param(str(list(shape)).replace(" ", "")), Param(f"[{window}]"), Const(np.int64(fs)), Const(np.int64(step))]
    inputs += [] if length is None else [Const(np.int64(length))]
    same(ov, "ISTFT", "opset16", {"center": center, "normalized": normalized}, inputs, [x, w])
