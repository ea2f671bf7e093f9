"""The run's allocation guard: every tensor a run holds is checked against the tensor size limit
(:mod:`graphir.limits`) before it is allocated or touched, wherever its size comes from.

* **Sizes known from the input shapes** (attributes, constants, shape arithmetic): the
  specialization of each input signature records its largest output, checked before the first
  step (:func:`graphir.specialize.check_largest_output`).
* **Sizes that come from input values at run time** (AdaptiveAvgPool's ``output_shape`` fed by a
  Parameter, DFT's ``signal_size``, ConvolutionBackpropData's ``output_shape``, ISTFT's
  ``signal_length``, EmbeddingSegmentsSum's ``num_segments``, Col2Im's ``output_size``...): a step
  whose output shape the signature leaves open and which reads a small integer input is wrapped
  by :func:`guarded`: before its kernel runs, the op's own shape inference is given the input
  values, and every output whose shape that fixes is checked. One mechanism for every op, with no
  per-op call; ops whose output size depends on data in a way inference cannot tell (NonZero,
  Unique) allocate at most their inputs' sizes.
* **Constants** count too, memory-mapped ones included (:func:`check_run`: once per plan), and a
  mapped ``.bin`` is checked for changes before each run touches its pages
  (:meth:`graphir.serializers.ir_constants.BinSource.check`).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.errors import GraphirError, ResourceLimitError
from graphir.limits import check_bytes, check_tensor, max_tensor_bytes, tensor_bytes
from graphir.ops.base import TensorType
from graphir.shapes import PartialShape

if TYPE_CHECKING:
    from graphir.node import Node

#: integer inputs up to this many elements are given to shape inference as values (shape tensors)
VALUE_ELEMENTS = 4096


def _may_carry_shape(t: TensorType) -> bool:
    """Whether an input of type ``t`` may hold a size (a small integer tensor)."""
    et = t.element_type
    if not (et.is_dynamic or et.is_integral_number):
        return False
    dims = t.shape.to_shape() if t.shape.is_static else None
    return dims is None or int(np.prod(dims, dtype=np.int64)) <= VALUE_ELEMENTS


def needs_guard(node: "Node", in_types: list[TensorType], out_types: list[TensorType]) -> bool:
    """Whether a step's output sizes may come from its input values (see the module docstring)."""
    if getattr(type(node.op), "has_bodies", False) or not out_types:
        return False
    if all(t.shape.is_static for t in out_types):
        return False
    return any(_may_carry_shape(t) for t in in_types)


#: input signatures (shapes and small integer values) remembered per guarded step
MEMO_ENTRIES = 64


def guarded(node: "Node", evaluate: Callable[..., Any], in_types: list[TensorType]) -> Callable[..., Any]:
    """``evaluate`` preceded by the check of the output sizes its input values ask for. What the
    inference gave is remembered per input signature (shapes, small integer values): a step run
    again with the same sizes (a loop's steps, a KV cache of one length) pays a dict look-up."""
    op = node.op
    element_types = [t.element_type for t in in_types]
    memo: dict[tuple[Any, ...], tuple[tuple[int, int, tuple[int, ...], Any], Any]] = {}

    def outcome(args: tuple[Any, ...]) -> "tuple[tuple[int, int, tuple[int, ...], Any], Any] | None":
        """((bytes, index, shape, dtype) of the largest static output, empty outputs or None);
        None when inference tells nothing."""
        types = []
        for et, arg in zip(element_types, args):
            if not isinstance(arg, np.ndarray):
                return None
            value = arg if arg.dtype.kind in "iu" and arg.size <= VALUE_ELEMENTS else None
            types.append(TensorType(et, PartialShape(list(arg.shape)), value))
        try:
            outs = op.infer(types)
        except ResourceLimitError:
            raise
        except (GraphirError, ValueError, TypeError, IndexError, OverflowError):
            return None  # the kernel reports what is wrong with its inputs
        largest: tuple[int, int, tuple[int, ...], Any] = (-1, -1, (), None)
        for i, t in enumerate(outs):
            if t.shape.is_static and not t.element_type.is_dynamic:
                shape, dtype = tuple(t.shape.to_shape()), _dtype(t)
                nbytes = tensor_bytes(shape, _itemsize(dtype))
                if nbytes > largest[0]:
                    largest = (nbytes, i, shape, dtype)
        return largest, _empty_outputs(outs)

    @functools.wraps(evaluate)  # (named as the step it guards: profiles and tests read the name)
    def checked(*args: Any) -> Any:
        try:
            key = tuple((a.shape, a.tobytes() if a.dtype.kind in "iu" and a.size <= VALUE_ELEMENTS else None)
                        for a in args)
        except AttributeError:  # not arrays (a state store...): nothing to check
            return evaluate(*args)
        known = memo.get(key)
        if known is None:
            known = outcome(args)
            if known is None:
                return evaluate(*args)
            if len(memo) >= MEMO_ENTRIES:
                memo.clear()
            memo[key] = known
        (nbytes, index, shape, dtype), empty = known
        if nbytes > max_tensor_bytes():
            check_tensor(shape, dtype, f"output {index}")
        if empty is not None:
            return [o.copy() for o in empty]
        return evaluate(*args)

    return checked


def _empty_outputs(types: list[TensorType]) -> "list[np.ndarray] | None":
    """Empty arrays of ``types`` when every one is static with no elements (a zero-size dim); else
    None. A kernel has nothing to compute then, and many would trip over the empty arrays."""
    if not types or not all(t.shape.is_static and not t.element_type.is_dynamic for t in types):
        return None
    shapes = [t.shape.to_shape() for t in types]
    if any(0 not in shape for shape in shapes):
        return None
    return [np.empty(shape, _dtype(t)) for shape, t in zip(shapes, types)]


def _itemsize(dtype: Any) -> int:
    try:
        return int(np.dtype(dtype).itemsize) or 1
    except TypeError:
        return 8


def _dtype(t: TensorType) -> Any:
    try:
        return np.dtype(t.element_type.numpy_dtype)
    except (TypeError, ValueError, AttributeError):
        return object


def check_run(model: Any, plan: Any, limit: "int | None" = None) -> None:
    """Before a run: the largest constant against the limit in force (``limit``: that limit, read
    by the caller already), and every memory-mapped weights file the run reads unchanged since it
    was read (a GraphirError naming it)."""
    known = getattr(plan, "_run_guard", None)  # once per plan (a plan is rebuilt after any edit)
    if known is None:
        known = _constants(model)
        plan._run_guard = known
    largest, node, sources = known
    if largest > (max_tensor_bytes() if limit is None else limit) and node is not None:
        check_bytes(largest, f"{node.describe()}: constant")
    for source in sources:
        source.check()


def _constants(model: Any) -> "tuple[int, Node | None, tuple[Any, ...]]":
    """The largest Constant of ``model`` (bytes, node) and the mapped weights files its Constants read."""
    from graphir.limits import tensor_bytes
    from graphir.ops.openvino.core import Constant

    largest, largest_node, sources = 0, None, {}
    for node in model.live_nodes():
        op = node.op
        if not isinstance(op, Constant):
            continue
        nbytes = tensor_bytes(op.shape, _dtype(TensorType(op.element_type, PartialShape([]))).itemsize)
        if nbytes > largest:
            largest, largest_node = nbytes, node
        loader = (op.__pydantic_private__ or {}).get("_loader")
        source = getattr(loader, "source", None)
        if source is not None and getattr(source, "mapped", False):
            sources[id(source)] = source
    return largest, largest_node, tuple(sources.values())


def guard_steps(types: Any, nodes: list[tuple["Node", tuple[int, ...], Any]],
                generic: Callable[["Node"], Callable[..., Any]]) -> list[tuple["Node", tuple[int, ...], Any]]:
    """The steps of one signature (node, input slots, evaluate or None for ``generic(node)``), those
    whose output sizes may come from input values wrapped by :func:`guarded`."""
    out = []
    for node, ins, evaluate in nodes:
        if not getattr(type(node.op), "stateful", False) and node.output_types:
            sources = [s for s in node.inputs if s is not None]
            if len(sources) == len(ins):
                in_types = [types.get((s.node.id, s.index), s.node.output_types[s.index]) for s in sources]
                out_types = [types.get((node.id, i), t) for i, t in enumerate(node.output_types)]
                empty = _empty_outputs(out_types)
                if empty is not None:  # a zero-size dim: every output empty, nothing to compute
                    evaluate = _constant_outputs(empty)
                elif needs_guard(node, in_types, out_types):
                    evaluate = guarded(node, generic(node) if evaluate is None else evaluate, in_types)
        out.append((node, ins, evaluate))
    return out


def _constant_outputs(outputs: list[np.ndarray]) -> Callable[..., list[np.ndarray]]:
    """A step giving fresh copies of ``outputs`` (empty arrays: nothing is copied)."""
    def give(*args: Any) -> list[np.ndarray]:
        return [o.copy() for o in outputs]
    return give
