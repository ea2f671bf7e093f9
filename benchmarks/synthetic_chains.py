"""The synthetic nets of the benchmarks, written by OpenVINO itself (one place for all of them).

* :func:`make_add_chain`: x -> Add(const_i) -> ... (``benchmarks/read_ir.py``, the corpus' ``add_chain``);
  each Const has ``elems`` f32 values, above graphir's constant-folding size, so reading never touches them.
* :func:`make_shared_constant_chain`: f32[?,16] through alternating Add/Multiply layers against one
  shared constant (``benchmarks/shape_inference.py``, the corpus' ``shared_const_chain``).
* :func:`make_varied_chain`: MatMul + ReLU pairs whose shapes change from layer to layer (small
  constants, folded and shape-inferred as OpenVINO does).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np


def make_add_chain(path: Path, layers: int, elems: int, compress_to_fp16: bool = False) -> None:
    import openvino as ov
    import openvino.opset1 as op1

    x = op1.parameter([elems], np.float32, name="x")
    y = x
    rng = np.random.default_rng(0)
    for i in range((layers - 2) // (3 if compress_to_fp16 else 2)):  # f16 Const + Convert + Add
        y = op1.add(y, op1.constant(rng.standard_normal(elems).astype(np.float32) + i))
    ov.save_model(ov.Model([op1.result(y, name="y")], [x], "chain"), str(path), compress_to_fp16=compress_to_fp16)


def make_shared_constant_chain(path: Path, layers: int) -> None:
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter([-1, 16], np.float32, name="x")
    c = ops.constant(np.full((1, 16), 0.5, np.float32))
    y = x
    for i in range(layers - 3):  # + Parameter, Constant and Result
        y = (ops.add if i % 2 == 0 else ops.multiply)(y, c, name=f"l{i}")
    ov.save_model(ov.Model([y], [x], "chain"), str(path), compress_to_fp16=False)


def make_varied_chain(path: Path, pairs: int) -> None:
    import openvino as ov
    import openvino.opset13 as op13

    x = op13.parameter([1, 8], np.float32, name="x")
    y, n = x, 8
    rng = np.random.default_rng(0)
    for i in range(pairs):
        m = 9 + i % 97 if i % 2 == 0 else 8 + i * 7 % 89
        y = op13.relu(op13.matmul(y, op13.constant(rng.standard_normal((n, m)).astype(np.float32)), False, False))
        n = m
    ov.save_model(ov.Model([op13.result(y, name="y")], [x], "varied"), str(path), compress_to_fp16=False)
