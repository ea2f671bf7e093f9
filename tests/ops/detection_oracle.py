"""Differential oracle for the detection ops: the same op built in graphir and in OpenVINO.

``compare(build_gr, build_ov, inputs, values)`` asserts that every output's inferred element type
and partial shape print identically, runs graphir's interpreter (``openvino-cpu`` numerics; every profile's three ways checked to agree,
tests/numerics_consistency.py) and OpenVINO CPU
(``INFERENCE_PRECISION_HINT=f32``) and compares every output's dtype, shape and values. Unlike
``ov_diff.check`` it accepts i64 outputs: the detection ops' i64 outputs are indices and counts,
small enough that the CPU plugin's 32-bit arithmetic is exact. ``skip_outputs`` leaves out outputs
OpenVINO does not write (noted by the caller).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from graphir.model import Model
from graphir.node import Output
from tests.numerics_consistency import assert_profiles_agree
from tests.ops.ov_diff import Const, Param, build_both, core

__all__ = ["Const", "Param", "compare", "shapes_of"]


def shapes_of(outputs: Sequence[Any]) -> list[str]:
    return [f"{o.element_type}{o.shape}" if isinstance(o, Output) else
            f"{o.get_element_type().get_type_name()}{o.get_partial_shape()}" for o in outputs]


def compare(ov: Any, build_gr: Callable[..., Any], build_ov: Callable[..., Any],
            inputs: Sequence[Param | Const], values: Sequence[np.ndarray] | None, *,
            rtol: float = 1e-5, atol: float = 1e-5, skip_outputs: Sequence[int] = ()) -> list[np.ndarray]:
    gr_out, gr_params, ov_out, ov_params = build_both(ov, build_gr, build_ov, inputs)
    assert shapes_of(gr_out) == shapes_of(ov_out)
    if values is None:
        return []
    model = Model(gr_out, [p.node for p in gr_params])
    got = list(model.run(list(values), numerics="openvino-cpu").values())
    assert_profiles_agree(model, values)  # op.evaluate via evaluator, Model.run and a request: one answer
    from openvino import opset13 as ops

    compiled = core(ov).compile_model(ov.Model([ops.result(o) for o in ov_out], ov_params), "CPU",
                                      {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer([np.array(v, order="C", copy=True) for v in values])
    for i, g in enumerate(got):
        if i in skip_outputs:
            continue
        ref = request.get_output_tensor(i).data.copy()
        assert (g.dtype, g.shape) == (ref.dtype, ref.shape), f"output {i}: {g.dtype}{g.shape} vs openvino {ref.dtype}{ref.shape}"
        np.testing.assert_allclose(g, ref, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"output {i}")
    return got
