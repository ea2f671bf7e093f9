"""PriorBox-1/8 and PriorBoxClustered-1 against OpenVINO 2026.4: shapes with constant and
unknown sizes, and CPU values over a grid of attributes (sizes given as inputs, so the CPU
plugin computes them rather than constant folding)."""
from __future__ import annotations

import numpy as np
import pytest

from graphir import opset
from tests.ops.detection_oracle import Const, Param, compare
from tests.ops.ov_diff import reference


def _ov_prior_box(version: str, attrs: dict):  # noqa: ANN202
    import importlib

    mod = importlib.import_module(f"openvino.{version}")
    return lambda a, b: mod.prior_box(a, b, attrs)


PRIOR_BOX = [
    dict(min_size=[2.0], max_size=[5.0], aspect_ratio=[1.5], flip=True, clip=False, step=0.0, offset=0.5, variance=[0.1]),
    dict(min_size=[2.0, 4.0], max_size=[5.0, 8.0], aspect_ratio=[2.0, 3.0], flip=False, clip=True, step=16.0, offset=0.5,
         variance=[0.1, 0.1, 0.2, 0.2]),
    dict(min_size=[0.2, 0.5], aspect_ratio=[2.0], flip=True, clip=False, step=0.1, offset=0.5, scale_all_sizes=False, variance=[]),
    dict(fixed_size=[8.0, 16.0], density=[2.0, 1.0], aspect_ratio=[2.0], flip=False, clip=False, step=8.0, offset=0.5),
    dict(fixed_size=[8.0], density=[3.0], fixed_ratio=[1.0, 2.0], clip=True, offset=0.5),
    dict(min_size=[3.0], max_size=[9.0], aspect_ratio=[2.0, 0.5, 2.0], flip=True, clip=True, offset=0.0, step=4.0),
]


@pytest.mark.parametrize("version,order", [("opset1", True), ("opset8", True), ("opset8", False)])
@pytest.mark.parametrize("case", range(len(PRIOR_BOX)))
def test_prior_box_values_match_openvino_cpu(ov, version: str, case: int, order: bool) -> None:
    attrs = dict(PRIOR_BOX[case])
    if version == "opset8":
        attrs["min_max_aspect_ratios_order"] = order
    size, image = np.array([3, 4], np.int64), np.array([40, 48], np.int64)
    build = lambda a, b: opset.make("PriorBox", a, b, version=version, **attrs)  # noqa: E731
    if version == "opset1":
        compare(ov, build, _ov_prior_box(version, attrs), [Param("[2]", "i64"), Param("[2]", "i64")], [size, image],
                rtol=1e-5, atol=1e-6)
    compare(ov, build, _ov_prior_box(version, attrs), [Const(size), Const(image)], None)  # folded: static length
    # OpenVINO's CPU plugin refuses PriorBox-8 with non-constant sizes ("Unexpected op type in PriorBox shape
    # inference factory"): its constant folding (the reference evaluator) is what computes v8
    want = reference(ov, _ov_prior_box(version, attrs), [size, image])
    np.testing.assert_allclose(build(size, image).tensor_type.value, want[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("widths,heights,clip,steps,variance", [
    ([2.0, 4.0], [3.0, 1.0], True, (0.0, 0.0, 0.0), [0.1]),
    ([12.0], [9.0], False, (0.0, 8.0, 6.0), [0.1, 0.1, 0.2, 0.2]),
    ([5.0, 7.0, 9.0], [5.0, 7.0, 9.0], True, (16.0, 0.0, 0.0), []),
])
@pytest.mark.parametrize("offset", [0.5, 0.25])
def test_prior_box_clustered_values_match_openvino_cpu(ov, widths, heights, clip, steps, variance, offset) -> None:  # noqa: ANN001
    from openvino import opset1

    step, step_w, step_h = steps
    attrs = dict(width=widths, height=heights, clip=clip, step=step, step_w=step_w, step_h=step_h, offset=offset, variance=variance)
    ov_attrs = dict(widths=widths, heights=heights, clip=clip, offset=offset, variances=variance)
    ov_attrs.update({k: v for k, v in (("step", step), ("step_widths", step_w), ("step_heights", step_h)) if v})
    # openvino.opset1.prior_box_clustered validates "widths"/"step_widths" but its node factory reads the IR
    # names ("width", "step_w"): without those the op gets no priors
    ov_attrs.update(width=widths, height=heights, step_w=step_w, step_h=step_h, variance=variance)
    size, image = np.array([3, 5], np.int64), np.array([30, 52], np.int64)
    build = lambda a, b: opset.make("PriorBoxClustered", a, b, **attrs)  # noqa: E731
    build_ov = lambda a, b: opset1.prior_box_clustered(a, b, ov_attrs)  # noqa: E731
    compare(ov, build, build_ov, [Const(size), Const(image)], None)
    compare(ov, build, build_ov, [Param("[2]", "i64"), Param("[2]", "i64")], [size, image], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(build(size, image).tensor_type.value, reference(ov, build_ov, [size, image])[0],
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("size", ["[2]", "[?]", "[...]"])
def test_prior_box_shapes_with_unknown_sizes(ov, size: str) -> None:
    attrs = PRIOR_BOX[0]
    compare(ov, lambda a, b: opset.make("PriorBox", a, b, version="opset8", **attrs), _ov_prior_box("opset8", attrs),
            [Param(size, "i64"), Param("[2]", "i64")], None)
