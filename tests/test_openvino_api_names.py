"""graphir.opset's builders against the openvino wheel's Python API (``openvino.opset1..N``).

For every op type graphir declares that OpenVINO's Python API builds, each of OpenVINO's names for
it is a graphir.opset builder taking the same positional parameters (names, order, defaults; the
newest opset module's definition). OpenVINO's op classes built by mutation (If, Loop, ...) are
checked by name. Without openvino installed the test skips (fails under CI, which installs it).
"""
from __future__ import annotations

import importlib
import inspect
import os
from typing import Any

from pathlib import Path

import numpy as np
import pytest

from graphir import opset
from graphir.ops.registry import all_ops, load_all
from tests.script_modules import load_script

#: OpenVINO builders with no comparable signature: overloaded through a dispatcher (*args, **kwargs)
OVERLOADED = {"constant", "read_value"}


def _openvino() -> Any:
    try:
        return importlib.import_module("openvino")
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI is set, so the openvino wheel (the test extra) is required")
        pytest.skip("needs the openvino wheel (pip install '.[test]')")


def openvino_api() -> dict[str, tuple[int, Any]]:
    """Public callables of openvino.opset1..N: name -> (newest opset defining it, object) (read as
    scripts/capture_openvino_api.py reads them)."""
    _openvino()
    capture = load_script(Path(__file__).resolve().parent.parent / "scripts" / "capture_openvino_api.py",
                          "capture_openvino_api")
    found: dict[str, tuple[int, Any]] = capture.openvino_functions()
    assert max(v for v, _ in found.values()) >= 16, "openvino.opset16 or newer expected"
    return found


def shared_types() -> dict[str, list[str]]:
    """graphir's openvino op type -> OpenVINO's builder names for it (names compared without
    underscores and case: ``matmul`` is MatMul, ``is_nan`` IsNaN, ``i420_to_rgb`` I420toRGB)."""
    load_all()
    api = openvino_api()
    by_key: dict[str, list[str]] = {}
    for name in api:
        by_key.setdefault(name.replace("_", "").lower(), []).append(name)
    return {cls.type_name: sorted(by_key[cls.type_name.lower()])
            for cls in all_ops("openvino") if cls.type_name.lower() in by_key}


def positional(fn: Any) -> list[tuple[str, Any]]:
    sig = inspect.signature(fn)
    return [(p.name, p.default) for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def test_every_shared_op_has_openvinos_names_and_parameters() -> None:
    api = openvino_api()
    shared = shared_types()
    assert len(shared) > 150, sorted(shared)  # the comparison covers the opset, not a corner
    problems = []
    compared = 0
    for type_name, names in sorted(shared.items()):
        for name in names:
            ours = getattr(opset, name, None)
            if ours is None or name not in opset.__all__:
                problems.append(f"{type_name}: graphir.opset has no '{name}'")
                continue
            theirs = api[name][1]
            if inspect.isclass(theirs) or name in OVERLOADED:
                continue  # built by mutation / overloaded: the name is what can match
            want, got = positional(theirs), positional(ours)
            if [n for n, _ in want] != [n for n, _ in got]:
                problems.append(f"{name}: parameters {[n for n, _ in got]}, OpenVINO's {[n for n, _ in want]}")
            elif want != got:
                problems.append(f"{name}: defaults {got}, OpenVINO's {want}")
            compared += 1
    assert not problems, "\n".join(problems)
    assert compared > 170


def test_the_renamed_builders_are_gone() -> None:
    """No second spelling of a builder: the regex snake-caser's names do not resolve."""
    for old in ("mat_mul", "top_k", "is_na_n", "p_relu", "h_swish", "h_sigmoid", "grouped_mat_mul",
                "bg_rto_nv12", "rg_bto_nv12", "experimental_detectron_top_kro_is", "if_", "col2_im",
                "soft_plus", "soft_sign", "nv12to_rgb", "i420to_bgr", "erf_inv"):
        assert not hasattr(opset, old), old


def test_graphir_only_ops_have_plain_snake_case_names() -> None:
    for name in ("bgr_to_nv12", "rgb_to_nv12", "experimental_detectron_topk_rois", "reverse", "xor"):
        assert name in opset.__all__, name
    for name in set(opset.__all__) - {"TensorLike"}:
        assert name == name.lower() and "__" not in name and not name.endswith("_"), name


def test_called_as_openvino_is_called_the_result_matches() -> None:
    """The same positional call to both APIs builds the same output types: OpenVINO's spellings
    ('NUMPY', 'EXPLICIT', None for the op's default, numpy dtypes) are taken."""
    ov = _openvino()
    ops = importlib.import_module("openvino.opset16")
    x_ov = ops.parameter([1, 3, 8, 8], np.float32)
    x = opset.parameter([1, 3, 8, 8], np.float32)
    calls: list[tuple[str, tuple[Any, ...]]] = [
        ("max_pool", ([2, 2], [1, 1], [0, 0], [0, 0], [2, 2], "floor", None, "i32")),
        ("avg_pool", ([2, 2], [1, 0], [1, 0], [3, 3], False)),
        ("add", ("X", "NUMPY")),
        ("matmul", ("X", False, True)),
        ("topk", (np.int64(3), 1, "max", "value", "i32")),
        ("convert", (np.float16,)),
        ("reduce_mean", (np.array([2, 3], np.int64), True)),
        ("split", (np.int64(1), 3)),
        ("interpolate", (np.array([4, 4], np.int64), "nearest", "sizes", None, None, "asymmetric",
                         "floor", False, -0.75, np.array([2, 3], np.int64))),
    ]
    for name, args in calls:
        ov_node = getattr(ops, name)(x_ov, *(x_ov if isinstance(a, str) and a == "X" else a for a in args))
        ours = getattr(opset, name)(x, *(x if isinstance(a, str) and a == "X" else a for a in args))
        outputs = ours.outputs() if hasattr(ours, "outputs") else [ours]
        assert isinstance(ov_node, ov.Node)
        assert len(outputs) == ov_node.get_output_size(), name
        for i, out in enumerate(outputs):
            assert str(out.tensor_type.shape) == str(ov_node.get_output_partial_shape(i)), (name, i)
            assert out.tensor_type.element_type.name == ov_node.get_output_element_type(i).get_type_name(), (name, i)


def test_multi_output_builders_return_the_node_as_openvino() -> None:
    x = opset.parameter([1, 2, 4, 4], np.float32)
    pooled = opset.max_pool(x, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2])
    assert [str(o.tensor_type) for o in pooled.outputs()] == ["f32[1,2,3,3]", "i64[1,2,3,3]"]
    assert pooled.output(1).tensor_type.element_type.name == "i64"
    parts = opset.split(x, 1, 2)
    assert len(parts.outputs()) == 2
    assert str(parts.output(1).tensor_type) == "f32[1,1,4,4]"
