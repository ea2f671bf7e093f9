"""Prepared f32 activations (Relu, HSwish, HSigmoid, Swish, Clamp) compute in blocks and, in a run
plan, into their input when it is a fresh array nothing else reads: the generic evaluate's bits."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.interpreter import get_plan, _run_unspecialized
from graphir.ops.base import NodeSignature, TensorType
from graphir.ops.openvino import activations
from graphir.shapes import PartialShape
from graphir.types import ElementType


def _inputs(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    x = (rng.standard_normal(shape) * 6).astype(np.float32)
    flat = x.reshape(-1)
    flat[::97] = np.nan
    flat[1::89] = np.inf
    flat[2::83] = -np.inf
    flat[3::79] = -0.0
    flat[4::73] = 3.0  # HSwish/HSigmoid's kinks
    flat[5::71] = -3.0
    return x


def _op(name: str) -> Any:
    if name == "Clamp":
        return activations.Clamp(min=-0.5, max=6.0)
    return getattr(activations, name)()


def _signature(shape: tuple[int, ...], extra: int = 0, beta: np.ndarray | None = None) -> NodeSignature:
    t = TensorType(ElementType.f32, PartialShape(shape))
    inputs = [t] + [TensorType(ElementType.f32, PartialShape([]))] * extra
    return NodeSignature(inputs, [None] + [beta] * extra, [t], [True])


@pytest.mark.parametrize("name", ["Relu", "HSwish", "HSigmoid", "Swish", "Clamp"])
@pytest.mark.parametrize("shape", [(1, 7, 5, 3), (1, 16, 96, 96), (3, 1 << 17)])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NaN/inf inputs (a run plan silences them for the run)
def test_prepared_activation_and_its_in_place_variant_keep_the_generic_bits(name: str, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(shape) + shape[1])
    x = _inputs(rng, shape)
    op = _op(name)
    want = op.evaluate(x.copy())[0]
    step = op.prepare(_signature(shape))
    assert getattr(step, "fresh_output", False)
    into = step.into_inputs[0]
    assert step(x.copy())[0].tobytes() == want.tobytes()
    inplace = x.copy()
    got = into(inplace)[0]
    assert got is inplace and got.tobytes() == want.tobytes()
    view = np.swapaxes(x.copy(), -1, -2)  # a non-contiguous input: whole-array passes
    assert step(view)[0].tobytes() == op.evaluate(view)[0].tobytes()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_swish_with_a_constant_beta_and_other_types() -> None:
    rng = np.random.default_rng(3)
    x = _inputs(rng, (2, 300, 301))
    beta = np.array(0.7, np.float32)
    op = activations.Swish()
    step = op.prepare(_signature(x.shape, 1, beta))
    assert step(x, beta)[0].tobytes() == op.evaluate(x, beta)[0].tobytes()
    assert step.into_inputs[0](x.copy(), beta)[0].tobytes() == op.evaluate(x, beta)[0].tobytes()
    f16 = NodeSignature([TensorType(ElementType.f16, PartialShape([4]))], [None], [], [True])
    hswish = activations.HSwish()
    assert hswish.prepare(f16) == hswish.evaluate  # other types: the generic evaluate


def test_activations_after_a_convolution_run_in_its_output() -> None:
    rng = np.random.default_rng(0)
    x = opset.parameter([1, 8, 40, 40], "f32", name="x")
    w = opset.constant(rng.standard_normal((16, 8, 3, 3)).astype(np.float32))
    conv = opset.make("Convolution", x, w, strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1])
    act = opset.make("HSwish", conv)
    clamp = opset.make("Clamp", act, min=0.0, max=6.0)
    model = graphir.Model([clamp, opset.make("Relu", conv)], [x])  # conv read twice: not written into
    inputs = [rng.standard_normal((1, 8, 40, 40)).astype(np.float32)]
    want = _run_unspecialized(model, inputs)
    got = model.run(inputs)
    for key in want:
        assert got[key].tobytes() == want[key].tobytes()
    spec = next(s for key, s in get_plan(model).specializations.items() if key[1])
    by_type = {step[-1].type_name: step[0] for step in spec.steps}
    # Clamp reads HSwish's fresh output alone: its in-place variant took the step's place;
    # HSwish and Relu share the convolution's output: HSwish (the first reader) computes into a
    # new array, Relu (the last, after a reader that kept no reference) writes into it
    assert not hasattr(by_type["Clamp"], "into_inputs")
    assert hasattr(by_type["HSwish"], "into_inputs") and not hasattr(by_type["Relu"], "into_inputs")
