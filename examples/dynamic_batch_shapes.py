"""The shape tool on a model with a dynamic batch.

Saves a small conv net whose input is f32[?,3,32,32], then runs ``graphir shapes`` on it three
times: as it is (the batch stays ``?`` through every layer), with a fixed batch
(``--input x=[8,3,32,32]``), and with a batch interval (``--input x=[1..16,3,32,32]``, JSON).
Finally a channel count that does not fit the convolution: exit status 1, naming the layer.

    python examples/dynamic_batch_shapes.py
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

import graphir
from graphir import opset
from graphir.cli import main as graphir_cli


def build() -> graphir.Model:
    rng = np.random.default_rng(0)
    x = opset.parameter("[?,3,32,32]", "f32", name="x")
    w = opset.constant(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), name="weights")
    conv = opset.convolution(x, w, strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1], name="conv")
    pool = opset.max_pool(conv, strides=[2, 2], dilations=[1, 1], pads_begin=[0, 0], pads_end=[0, 0], kernel_shape=[2, 2],
                          name="pool")
    pooled = pool.output(0)
    mean = opset.reduce_mean(pooled, opset.constant(np.array([2, 3], np.int64)), keep_dims=False, name="mean")
    return graphir.Model([mean], [x], name="tiny_cnn")


def shapes(*args: str) -> tuple[int, str, str]:
    """Run ``graphir shapes ARGS`` in-process; (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = graphir_cli(["shapes", *args])
    return code, out.getvalue(), err.getvalue()


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tiny_cnn.xml"
        graphir.save_model(build(), path)

        print(f"$ graphir shapes {path.name}")
        code, out, _ = shapes(str(path))
        print(out)
        assert code == 0 and "f32[?,8,8,8]" in out

        print(f"$ graphir shapes {path.name} --input x=[8,3,32,32]")
        code, out, _ = shapes(str(path), "--input", "x=[8,3,32,32]")
        print(out)
        assert code == 0 and "f32[8,8]" in out

        print(f"$ graphir shapes {path.name} --input x=[1..16,3,32,32] --json")
        code, out, _ = shapes(str(path), "--input", "x=[1..16,3,32,32]", "--json")
        rows = json.loads(out)
        for row in rows:
            print(f"  {row['name']:<10} {row['type']:<14} {[o['shape'] for o in row['outputs']]}")
        assert code == 0 and rows[-1]["inputs"][0]["shape"] == "[1..16,8]"

        print(f"\n$ graphir shapes {path.name} --input x=[1,4,32,32]")
        code, _, err = shapes(str(path), "--input", "x=[1,4,32,32]")
        print(f"exit status {code}: {err}")
        assert code == 1 and "'conv' (Convolution-opset1)" in err
    return 0


if __name__ == "__main__":
    sys.exit(main())
