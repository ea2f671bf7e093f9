"""HSwish and HSigmoid under ``openvino-cpu``: f32 (and f16/bf16, computed in f32) as OpenVINO 2026.4's
CPU plugin rounds them (equal on 200,000 inputs, tests/ops/test_cpu_exp.py):

* HSwish: oneDNN's hardswish, ``x * clamp(x * (1/6) + 0.5, 0, 1)``, three f32 roundings;
* HSigmoid: ``clamp(x + 3, 0, 6)`` times 0x3e2aaaaa (1/6 rounded down), x86's maxps/minps for the clamp.

The reference profile computes the spec's ``x * min(max(x + 3, 0), 6) / 6`` (graphir.ops.openvino.activations).
Plain f32 arithmetic: the same bits on every host."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from graphir.kernels.clip import clip
from graphir.numerics import Evaluate, register
from graphir.ops.base import Op, TensorType
from graphir.ops.openvino.activations import HSigmoid, HSwish, blocked_into
from graphir.ops.openvino.unary import compute_real

#: the f32 constant OpenVINO's CPU HSigmoid multiplies by (one ulp under the nearest f32 to 1/6)
SIXTH_DOWN = np.array(0x3e2aaaaa, np.uint32).view(np.float32)[()]


def hswish_into(v: np.ndarray, out: np.ndarray) -> None:
    """oneDNN's hardswish on f32 ``v`` into ``out`` (``v`` itself too: then the gate takes a scratch
    buffer). x86's minps gives the gate 1 where it is NaN, ``clip`` keeps the NaN: either way
    ``v * gate`` is v's NaN; the sum is never -0.0."""
    f = np.float32
    gate = np.empty_like(v) if np.may_share_memory(v, out) else out
    np.multiply(v, f(1 / 6), out=gate)
    np.add(gate, f(0.5), out=gate)
    clip(gate, f(0), f(1), out=gate)
    np.multiply(v, gate, out=out)


def hsigmoid_into(v: np.ndarray, out: np.ndarray) -> None:
    """The CPU plugin's HSigmoid on f32 ``v`` into ``out`` (``v`` is read by the first pass only)."""
    f = np.float32
    np.add(v, f(3), out=out)
    np.fmax(out, f(0), out=out)  # x86 maxps: NaN takes the constant
    np.minimum(out, f(6), out=out)
    np.multiply(out, SIXTH_DOWN, out=out)


def _override(into: Callable[[np.ndarray, np.ndarray], None]) -> Callable[[Op, Sequence[TensorType] | None], Evaluate]:
    def factory(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
        def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
            x = np.asarray(arrays[0])
            if x.dtype == np.float32:
                with np.errstate(all="ignore"):  # inf * 0: NaN, as the op's own evaluate gives quietly
                    return [blocked_into(into, x)]
            if x.dtype.kind != "f" or x.dtype == np.float64:
                return op.evaluate(x)
            return [compute_real(x, lambda v: blocked_into(into, v))]  # f16/bf16 in f32, as the plugin

        return evaluate

    return factory


register("openvino-cpu", HSwish, ("f32", "f16", "bf16"))(_override(hswish_into))
register("openvino-cpu", HSigmoid, ("f32", "f16", "bf16"))(_override(hsigmoid_into))
