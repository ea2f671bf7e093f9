"""Generated attribute/shape grids (hypothesis) for the window ops' shape inference against
OpenVINO: static, dynamic and interval dims, every auto_pad and rounding type. Where OpenVINO
rejects the node, graphir must reject it too; where it accepts, the shapes must print the same."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphir import opset
from graphir.errors import GraphirError
from graphir.node import Node

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def dims(draw: Any) -> str:
    kind = draw(st.sampled_from(["static", "static", "dynamic", "interval"]))
    if kind == "static":
        return str(draw(st.integers(1, 12)))
    if kind == "dynamic":
        return "?"
    lo = draw(st.integers(1, 8))
    return f"{lo}..{lo + draw(st.integers(0, 10))}"


@st.composite
def window_case(draw: Any) -> dict:
    n = draw(st.integers(1, 2))
    return dict(
        spatial=[draw(dims()) for _ in range(n)],
        kernel=[draw(st.integers(1, 4)) for _ in range(n)],
        strides=[draw(st.integers(1, 3)) for _ in range(n)],
        dilations=[draw(st.integers(1, 2)) for _ in range(n)],
        pads_begin=[draw(st.integers(0, 2)) for _ in range(n)],
        pads_end=[draw(st.integers(0, 2)) for _ in range(n)],
        auto_pad=draw(st.sampled_from(["explicit", "same_upper", "same_lower", "valid"])),
        rounding=draw(st.sampled_from(["floor", "ceil", "ceil_torch"])),
    )


def _compare(ov: Any, shape: str, build_gr: Any, build_ov: Any) -> None:
    from openvino import opset14

    try:
        expected = str(build_ov(opset14.parameter(ov.PartialShape(shape), np.float32)).get_output_partial_shape(0))
    except RuntimeError:
        expected = None
    try:
        got = build_gr(opset.parameter(shape, "f32"))
        got = str((got.output(0) if isinstance(got, Node) else got[0] if isinstance(got, list) else got).shape)
    except GraphirError:
        got = None
    assert got == expected, f"data {shape}: graphir {got}, openvino {expected}"


@SETTINGS
@given(case=window_case())
def test_convolution_shapes_match_openvino(ov: Any, case: dict) -> None:
    from openvino import opset14

    n = len(case["kernel"])
    w = np.zeros([3, 2] + case["kernel"], np.float32)
    shape = "[2,2," + ",".join(case["spatial"]) + "]"
    attrs = {k: case[k] for k in ("strides", "pads_begin", "pads_end", "dilations")}
    _compare(ov, shape, lambda x: opset.convolution(x, w, auto_pad=case["auto_pad"], **attrs),
             lambda x: opset14.convolution(x, opset14.constant(w), attrs["strides"], attrs["pads_begin"],
                                           attrs["pads_end"], attrs["dilations"], case["auto_pad"]))
    assert n in (1, 2)


@SETTINGS
@given(case=window_case())
def test_pooling_shapes_match_openvino(ov: Any, case: dict) -> None:
    from openvino import opset14

    shape = "[2,3," + ",".join(case["spatial"]) + "]"
    common = dict(kernel=case["kernel"], strides=case["strides"], pads_begin=case["pads_begin"],
                  pads_end=case["pads_end"], rounding_type=case["rounding"], auto_pad=case["auto_pad"])
    _compare(ov, shape, lambda x: opset.make("MaxPool", x, version="opset14", dilations=case["dilations"], **common),
             lambda x: opset14.max_pool(x, case["strides"], case["dilations"], case["pads_begin"], case["pads_end"],
                                        case["kernel"], case["rounding"], case["auto_pad"]))
    _compare(ov, shape, lambda x: opset.make("AvgPool", x, version="opset14", **common, **{"exclude-pad": True}),
             lambda x: opset14.avg_pool(x, case["strides"], case["pads_begin"], case["pads_end"], case["kernel"], True,
                                        case["rounding"], case["auto_pad"]))


@SETTINGS
@given(case=window_case(), out_pad=st.integers(0, 1))
def test_convolution_backprop_shapes_match_openvino(ov: Any, case: dict, out_pad: int) -> None:
    from openvino import opset14

    n = len(case["kernel"])
    w = np.zeros([2, 3] + case["kernel"], np.float32)
    shape = "[2,2," + ",".join(case["spatial"]) + "]"
    strides = [max(s, out_pad + 1) for s in case["strides"]]
    attrs = dict(strides=strides, pads_begin=case["pads_begin"], pads_end=case["pads_end"],
                 dilations=case["dilations"], output_padding=[out_pad] * n)
    _compare(ov, shape, lambda x: opset.convolution_backprop_data(x, w, auto_pad=case["auto_pad"], **attrs),
             lambda x: opset14.convolution_backprop_data(x, opset14.constant(w), strides, None, case["pads_begin"],
                                                         case["pads_end"], case["dilations"], case["auto_pad"],
                                                         [out_pad] * n))


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_reduction_shapes_over_all_axis_subsets_match_openvino(ov: Any, rank: int) -> None:
    import itertools

    from openvino import opset14

    shape = "[" + ",".join(["?", "2..5", "7"][:rank]) + "]"
    for count in range(rank + 1):
        for axes in itertools.permutations(range(-rank, rank), count):
            a = np.array(axes, np.int64)
            for keep in (False, True):
                _compare(ov, shape, lambda x: opset.reduce_sum(x, a, keep_dims=keep),
                         lambda x: opset14.reduce_sum(x, opset14.constant(a), keep))


@st.composite
def matmul_case(draw: Any) -> tuple[str, str, bool, bool]:
    k = draw(st.sampled_from(["3", "?", "2..4"]))
    batch = [draw(st.sampled_from(["1", "2", "?", "1..3"])) for _ in range(draw(st.integers(0, 2)))]
    a = batch[draw(st.integers(0, len(batch))):] + [draw(dims()), k]
    b = [draw(st.sampled_from(["1", "2", "?"])) for _ in range(draw(st.integers(0, 2)))] + [
        draw(st.sampled_from([k, "3", "?"])), draw(dims())]
    if draw(st.booleans()):
        a = a[-1:]
    if draw(st.booleans()):
        b = b[-2:-1]
    ta, tb = draw(st.booleans()), draw(st.booleans())
    if ta and len(a) > 1:
        a[-1], a[-2] = a[-2], a[-1]
    if tb and len(b) > 1:
        b[-1], b[-2] = b[-2], b[-1]
    return "[" + ",".join(a) + "]", "[" + ",".join(b) + "]", ta, tb


@SETTINGS
@given(case=matmul_case())
def test_matmul_shapes_match_openvino(ov: Any, case: tuple[str, str, bool, bool]) -> None:
    from openvino import opset14

    a, b, ta, tb = case
    try:
        node = opset14.matmul(opset14.parameter(ov.PartialShape(a), np.float32),
                              opset14.parameter(ov.PartialShape(b), np.float32), ta, tb)
        expected = str(node.get_output_partial_shape(0))
    except RuntimeError:
        expected = None
    try:
        got = str(opset.matmul(opset.parameter(a), opset.parameter(b), transpose_a=ta, transpose_b=tb).shape)
    except GraphirError:
        got = None
    assert got == expected, f"A {a}, B {b}, transpose {ta}/{tb}: graphir {got}, openvino {expected}"


@SETTINGS
@given(spatial=st.lists(dims(), min_size=2, max_size=2),
       scales=st.lists(st.sampled_from([0.5, 0.75, 1.0, 1.5, 2.0, 3.3]), min_size=2, max_size=2),
       pads=st.lists(st.integers(0, 2), min_size=4, max_size=4),
       calc=st.sampled_from(["sizes", "scales"]))
def test_interpolate_shapes_match_openvino(ov: Any, spatial: list[str], scales: list[float], pads: list[int],
                                           calc: str) -> None:
    from openvino import opset11

    shape = "[2,3," + ",".join(spatial) + "]"
    values = np.array(scales, np.float32) if calc == "scales" else np.array([int(v * 4) for v in scales], np.int64)
    axes = np.array([2, 3], np.int64)
    pads_begin, pads_end = [0, 0] + pads[:2], [0, 0] + pads[2:]
    _compare(ov, shape, lambda x: opset.make("Interpolate", x, values, axes, version="opset11", mode="nearest",
                                             shape_calculation_mode=calc, pads_begin=pads_begin, pads_end=pads_end),
             lambda x: opset11.interpolate(x, opset11.constant(values), "nearest", calc, axes=opset11.constant(axes),
                                           pads_begin=pads_begin, pads_end=pads_end))


@SETTINGS
@given(batch=st.lists(st.sampled_from(["1", "2", "?", "1..3"]), min_size=0, max_size=2),
       kb=st.lists(st.sampled_from(["1", "2", "?"]), min_size=0, max_size=2),
       lq=dims(), ls=dims(), e=st.sampled_from(["8", "?", "4"]), ev=dims(), dynamic_rank=st.booleans())
def test_sdpa_shapes_match_openvino(ov: Any, batch: list[str], kb: list[str], lq: str, ls: str, e: str, ev: str,
                                    dynamic_rank: bool) -> None:
    from openvino import opset14

    q = "[" + ",".join(batch + [lq, "8"]) + "]"
    k = "[" + ",".join(kb + [ls, e]) + "]"
    v = "[...]" if dynamic_rank else "[" + ",".join(kb + [ls, ev]) + "]"
    try:
        node = opset14.scaled_dot_product_attention(*[opset14.parameter(ov.PartialShape(s), np.float32)
                                                      for s in (q, k, v)])
        expected = str(node.get_output_partial_shape(0))
    except RuntimeError:
        expected = None
    try:
        got = str(opset.scaled_dot_product_attention(*[opset.parameter(s) for s in (q, k, v)]).shape)
    except GraphirError:
        got = None
    assert got == expected, f"q {q}, k {k}, v {v}: graphir {got}, openvino {expected}"


@SETTINGS
@given(x=st.lists(st.sampled_from(["2", "?", "1..3", "5", "3"]), min_size=3, max_size=3),
       h=st.lists(st.sampled_from(["2", "?", "1", "4", "3"]), min_size=3, max_size=3),
       lengths=st.sampled_from(["[2]", "[?]", "[3]", "[...]"]),
       direction=st.sampled_from(["forward", "reverse", "bidirectional"]), h_dynamic_rank=st.booleans())
def test_gru_sequence_shapes_match_openvino(ov: Any, x: list[str], h: list[str], lengths: str, direction: str,
                                            h_dynamic_rank: bool) -> None:
    from openvino import opset14

    nd = 2 if direction == "bidirectional" else 1
    w, r, b = np.zeros([nd, 12, 3], np.float32), np.zeros([nd, 12, 4], np.float32), np.zeros([nd, 12], np.float32)
    shapes = ["[" + ",".join(x) + "]", "[...]" if h_dynamic_rank else "[" + ",".join(h) + "]", lengths]
    types = [np.float32, np.float32, np.int32]
    try:
        ps = [opset14.parameter(ov.PartialShape(s), t) for s, t in zip(shapes, types)]
        node = opset14.gru_sequence(*ps, w, r, b, 4, direction)
        expected = [str(node.get_output_partial_shape(i)) for i in range(2)]
    except RuntimeError:
        expected = None
    try:
        gs = [opset.parameter(s, t) for s, t in zip(shapes, ("f32", "f32", "i32"))]
        got = [str(o.shape) for o in opset.gru_sequence(*gs, w, r, b, hidden_size=4, direction=direction).outputs()]
    except GraphirError:
        got = None
    assert got == expected, f"{shapes} {direction}: graphir {got}, openvino {expected}"
