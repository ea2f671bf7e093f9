"""Differential oracle for single ops: the same op built in graphir and in openvino.

``check(ov, build_gr, build_ov, [Param("[?,3]", "f32"), Const(np.array(...)), ...], values=[...])``
builds both graphs from the same inputs (Parameters by partial shape and element type, constants
by value), asserts that every output's inferred element type and partial shape print identically,
then (with ``values``, one array per Param) runs graphir's interpreter and OpenVINO CPU with
``INFERENCE_PRECISION_HINT=f32`` and compares with tests/tolerances.py.

OpenVINO CPU computes i64/u64 in 32 bits and f64 as f32, so when any input or output has one of
those types the CPU comparison is skipped and ``expected`` (the exact numpy values, computed by
the test) must be given instead. ``expected`` may be given in any case; it is then checked too.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphir import opset
from graphir.model import Model
from graphir.types import ElementType
from tests.tolerances import assert_close

#: types OpenVINO CPU does not compute at full width
WIDE_TYPES = frozenset({"i64", "u64", "f64"})

_CORE: list[Any] = []


@dataclass(frozen=True)
class Param:
    """A model input: partial shape text (OpenVINO form) and element type name."""

    shape: str
    dtype: str = "f32"


@dataclass(frozen=True)
class Const:
    """A constant input, built in both graphs (so value-dependent shapes can fold)."""

    value: Any
    dtype: str | None = None

    def array(self) -> np.ndarray:
        if self.dtype is None:
            return np.asarray(self.value)
        return np.asarray(self.value, dtype=ElementType.parse(self.dtype).numpy_dtype)


def core(ov: Any) -> Any:
    if not _CORE:
        _CORE.append(ov.Core())
    return _CORE[0]


def ov_type(ov: Any, name: str) -> Any:
    """``ov.Type`` for a graphir element type name."""
    return getattr(ov.Type, {"boolean": "boolean", "dynamic": "dynamic"}.get(name, name))


def random_array(shape: Sequence[int], dtype: str, rng: np.random.Generator,
                 low: float = -4, high: float = 4) -> np.ndarray:
    """Random data of a graphir element type: integers in [low, high] (clipped at 0 for unsigned)."""
    et = ElementType.parse(dtype)
    shape = tuple(shape)
    if et is ElementType.boolean:
        return rng.random(shape) > 0.5
    if et.is_integral_number:
        lo = max(int(low), 0) if not et.is_signed else int(low)
        return rng.integers(lo, int(high) + 1, size=shape).astype(et.numpy_dtype)
    return rng.uniform(low, high, size=shape).astype(et.numpy_dtype)


def _outputs_of(built: Any) -> list[Any]:
    if isinstance(built, (list, tuple)):
        return list(built)
    return [built]


def _ov_outputs(built: Any) -> list[Any]:
    out = []
    for item in _outputs_of(built):
        if hasattr(item, "get_output_size"):  # a Node: all its outputs
            out.extend(item.output(i) for i in range(item.get_output_size()))
        else:
            out.append(item)
    return out


def build_both(ov: Any, build_gr: Callable[..., Any], build_ov: Callable[..., Any],
               inputs: Sequence[Param | Const]) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """Build the graphs; returns (graphir outputs, graphir params, openvino outputs, openvino params)."""
    from openvino import opset13 as ops

    gr_args, ov_args, gr_params, ov_params = [], [], [], []
    for i, spec in enumerate(inputs):
        if isinstance(spec, Param):
            g = opset.parameter(spec.shape, spec.dtype, name=f"in{i}")
            o = ops.parameter(ov.PartialShape(spec.shape), ov_type(ov, spec.dtype), name=f"in{i}")
            gr_params.append(g)
            ov_params.append(o)
        else:
            arr = spec.array()
            et = ElementType.from_numpy(arr.dtype) if spec.dtype is None else ElementType.parse(spec.dtype)
            g = opset.constant(arr, et)
            o = ops.constant(arr, ov_type(ov, str(et)))
        gr_args.append(g)
        ov_args.append(o)
    return _outputs_of(build_gr(*gr_args)), gr_params, _ov_outputs(build_ov(*ov_args)), ov_params


def check(
    ov: Any,
    build_gr: Callable[..., Any],
    build_ov: Callable[..., Any],
    inputs: Sequence[Param | Const],
    values: Sequence[np.ndarray] | None = None,
    *,
    expected: Sequence[np.ndarray] | None = None,
    cpu: bool = True,
) -> list[np.ndarray]:
    """Compare inferred types/shapes, then (with ``values``) run both; returns graphir's outputs."""
    gr_out, gr_params, ov_out, ov_params = build_both(ov, build_gr, build_ov, inputs)
    assert len(gr_out) == len(ov_out), f"graphir gives {len(gr_out)} outputs, openvino {len(ov_out)}"
    for i, (g, o) in enumerate(zip(gr_out, ov_out)):
        ov_shape, ov_et = str(o.get_partial_shape()), o.get_element_type().get_type_name()
        assert (str(g.element_type), str(g.shape)) == (ov_et, ov_shape), (
            f"output {i}: graphir {g.element_type}{g.shape}, openvino {ov_et}{ov_shape}")
    if values is None:
        return []
    model = Model(gr_out, [p.node for p in gr_params])
    got = list(model.run(list(values), numerics="openvino-cpu" if cpu else "reference").values())
    if expected is not None:
        for g, e in zip(got, expected):
            e = np.asarray(e)
            assert g.dtype == e.dtype, f"dtype {g.dtype} != expected {e.dtype}"
            assert_close(g, e)
    wide = {str(g.element_type) for g in gr_out} | {s.dtype for s in inputs if isinstance(s, Param)}
    if not cpu or wide & WIDE_TYPES:
        assert expected is not None or not cpu, "i64/u64/f64 cases need exact expected values"
        return got
    from openvino import opset13 as ops

    ov_model = ov.Model([ops.result(o) for o in ov_out], ov_params)
    compiled = core(ov).compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer([np.array(v, order="C", copy=True) for v in values])
    for i, g in enumerate(got):
        ref = request.get_output_tensor(i).data.copy()
        if str(g.dtype) == "bfloat16" and ref.dtype == np.float16:  # openvino shows bf16 bits as f16
            ref = ref.view(np.uint16).view(g.dtype)
        assert g.dtype == ref.dtype, f"output {i}: dtype {g.dtype}, openvino {ref.dtype}"
        assert_close(g, ref)
    return got


def infer_error(ov: Any, build_gr: Callable[..., Any], build_ov: Callable[..., Any],
                inputs: Sequence[Param | Const]) -> tuple[str, str]:
    """Both builds must fail; returns (graphir message, openvino message's last line)."""
    from graphir.errors import GraphirError

    try:
        build_both(ov, build_gr, lambda *a: None, inputs)
    except GraphirError as exc:
        gr_msg = str(exc)
    else:
        raise AssertionError("graphir accepted what openvino should reject")
    try:
        build_both(ov, lambda *a: [], build_ov, inputs)
    except Exception as exc:  # openvino raises RuntimeError/NodeValidationFailure
        ov_msg = str(exc).strip().splitlines()[-1]
    else:
        raise AssertionError(f"openvino accepted it; graphir said: {gr_msg}")
    return gr_msg, ov_msg


def reference(ov: Any, build_ov: Callable[..., Any], arrays: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    """OpenVINO's reference evaluator (what its constant folding computes) on static inputs; None
    when the op has no reference kernel for these types. Exact where CPU is not (integers)."""
    from openvino import opset13 as ops

    params = [ops.constant(np.asarray(a)) for a in arrays]  # constants: value-dependent shapes are static
    node = build_ov(*params)
    node = node.node if hasattr(node, "get_node") and not hasattr(node, "get_output_size") else node
    outs = [ov.Tensor(node.get_output_element_type(i), list(node.get_output_shape(i)))
            for i in range(node.get_output_size())]
    if not node.evaluate(outs, [ov.Tensor(np.array(a, order="C", copy=True)) for a in arrays]):
        return None
    return [o.data.copy() for o in outs]
