"""Static sizes for a model's dynamic inputs: what ``graphir run --random`` feeds.

Each dynamic dimension of each input is chosen in turn (inputs in Parameter order, dims left to
right), from candidates in this order: the sizes the file records for that dim (the input's own
port, its consumers' input ports), the default size (:func:`default_size`: 224 for an image's
height and width, 1 for a batch, 16 for any other unbounded dim), the lower bound of its interval
(``?`` counts as 1), then the static dims that occur anywhere in the model and powers of two,
ascending. A candidate is taken
when the model shape-infers with it (the dims chosen so far fixed, the others still dynamic),
including the checks a run makes beyond shape inference (``Op.check_run``). So a ``[?,3,?,?]`` image
input of a CNN gets ``[1,3,224,224]``, and a ``[?,?]`` token input ``[1,16]``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphir.errors import InferenceError, InputError, UnsupportedOpError
from graphir.limits import check_tensor
from graphir.ops.base import TensorType
from graphir.ops.openvino.core import Parameter, parameter_of
from graphir.shapes import Dimension, PartialShape

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node

#: the largest size tried for a dim
MAX_SIZE = 4096


class InputSizeError(InputError):
    """No size the model accepts could be chosen for a dynamic dimension of an input."""


def choose_input_shapes(model: "Model", recorded: Mapping[int, Sequence[Sequence[int]]] | None = None,
                        *, advice: str = "--shape") -> list[tuple[int, ...]]:
    """A static shape per Parameter (in Parameter order) that the model accepts.

    ``recorded``: Parameter node id -> dim lists a file records for that input (its port and its
    consumers' input ports; -1 for a dynamic dim). ``advice``: how the caller sets a shape by hand,
    named in the error (``--shape`` for the CLI). An InputSizeError names the input and the dim.
    """
    params = model.get_parameters()
    recorded = recorded or {}
    shapes: list[list[Dimension] | None] = [list(_shape(p).dims) if _shape(p).rank_is_static else None
                                            for p in params]
    if all(dims is not None and all(d.is_static for d in dims) for dims in shapes):
        return [tuple(d.min for d in dims) for dims in shapes if dims is not None]
    live = model.live_nodes()
    pool = _size_pool(live)
    for pi, p in enumerate(params):
        if shapes[pi] is None:
            shapes[pi] = _choose_rank(model, params, shapes, pi, recorded.get(p.id, ()), live, advice)
    for pi, p in enumerate(params):
        dims = shapes[pi]
        assert dims is not None
        for di, dim in enumerate(dims):
            if dim.is_static:
                continue
            candidates = _candidates(dim, [r[di] for r in recorded.get(p.id, ()) if len(r) == len(dims)]
                                     + [default_size(dims, di)], pool)
            first: tuple[int, InferenceError] | None = None
            for size in candidates:
                dims[di] = Dimension.static(size)
                error = _rejection(model, params, shapes, live)
                if error is None:
                    break
                if first is None:
                    first = (size, error)
            else:
                dims[di] = dim
                wanted = ",".join("N" if j == di else str(d) for j, d in enumerate(dims))
                tried = f"{len(candidates)} sizes from {min(candidates)} to {max(candidates)}" if candidates else "no size"
                reason = f"; with {first[0]}: {first[1]}" if first else ""
                raise InputSizeError(
                    f"input '{p.name}' {_shape(p)}: cannot choose a size for dim {di} "
                    f"that the model accepts (tried {tried}{reason}); give the shape with "
                    f"{advice} {p.name}=[{wanted}]")
    return [tuple(d.min for d in dims) for dims in shapes if dims is not None]


def _choose_rank(model: "Model", params: Sequence["Node"], shapes: list[list[Dimension] | None], index: int,
                 recorded: Sequence[Sequence[int]], live: Sequence["Node"], advice: str) -> list[Dimension]:
    """All-dynamic dims for an input of dynamic rank: the first rank the model accepts among the
    ranks the file records, those of the other inputs, then 0 to 6."""
    ranks = [len(r) for r in recorded] + [len(d) for d in shapes if d is not None] + list(range(7))
    first: tuple[int, InferenceError] | None = None
    for rank in dict.fromkeys(ranks):
        shapes[index] = [Dimension.dynamic()] * rank
        error = _rejection(model, params, shapes, live)
        if error is None:
            return list(shapes[index] or [])
        if first is None:
            first = (rank, error)
    name = params[index].name
    reason = f"; with rank {first[0]}: {first[1]}" if first else ""
    raise InputSizeError(f"input '{name}' has a dynamic rank ([...]) and no rank from 0 to 6 passes shape "
                         f"inference{reason}; give the shape with {advice} {name}=[...]")


def _parameter(node: "Node") -> Parameter:
    op = node.op
    assert isinstance(op, Parameter)
    return op


def _shape(node: "Node") -> PartialShape:
    return _parameter(node).shape


#: the default size of a dynamic image height or width, of a batch, and of any other dynamic dim
IMAGE_SIZE, BATCH_SIZE, OTHER_SIZE = 224, 1, 16


def default_size(dims: Sequence[Dimension], index: int) -> int:
    """The size tried first for dynamic dim ``index`` of an input shaped ``dims`` when the file
    records none: an image's height and width (rank 4 with a static 1, 3 or 4 channels at dim 1
    or 3) 224, the first dim (a batch) 1, any other 16."""
    if len(dims) == 4 and index != 0:
        channels = 1 if dims[1].is_static and dims[1].min in (1, 3, 4) else \
            3 if dims[3].is_static and dims[3].min in (1, 3, 4) else None
        if channels is not None and index != channels:
            return IMAGE_SIZE
    return BATCH_SIZE if index == 0 else OTHER_SIZE


def _candidates(dim: Dimension, recorded: Sequence[int], pool: Sequence[int]) -> list[int]:
    """Sizes to try for ``dim``, in order, each once and inside its bounds."""
    low = dim.min if dim.max is not None and dim.max < 1 else max(dim.min, 1)
    ordered = [r for r in recorded if r >= 0] + [low] + list(pool)
    seen: set[int] = set()
    out = []
    for size in ordered:
        if size not in seen and dim.min <= size and (dim.max is None or size <= dim.max):
            seen.add(size)
            out.append(size)
    return out


def _size_pool(nodes: Sequence["Node"]) -> list[int]:
    """Static dims seen anywhere in the model, and powers of two, ascending, 1..MAX_SIZE."""
    sizes = {1 << k for k in range(13)}
    for node in nodes:
        for t in node.output_types:
            if t.shape.rank_is_static:
                sizes.update(d.min for d in t.shape.dims if d.is_static)
            if t.value is not None and t.value.ndim <= 1 and t.value.size <= 8 and t.value.dtype.kind in "iu":
                sizes.update(int(v) for v in t.value.reshape(-1))  # split lengths, target shapes...
    return sorted(s for s in sizes if 1 <= s <= MAX_SIZE)


def _rejection(model: "Model", params: Sequence["Node"], shapes: Sequence[Sequence[Dimension] | None],
               live: Sequence["Node"]) -> InferenceError | None:
    """The error inferring the model for these input shapes raises, or None when it infers."""
    from graphir.inference import infer_for_inputs

    types = [TensorType(_parameter(p).element_type, PartialShape.dynamic() if dims is None else PartialShape(list(dims)))
             for p, dims in zip(params, shapes)]
    try:
        infer_for_inputs(model, types, live)
    except InferenceError as exc:
        return exc
    except UnsupportedOpError:
        return None  # an opaque layer: what it accepts is unknown
    return None


#: value ranges for element types narrower than their numpy container
_SUB_BYTE_RANGES = {"u1": (0, 1), "u2": (0, 3), "u3": (0, 7), "u4": (0, 7), "u6": (0, 7), "i4": (-8, 7)}


def random_value(param: "Node", shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Random data of a Parameter's element type and the given (static) shape."""
    et = parameter_of(param).element_type
    name = str(et)
    check_tensor(shape, np.float64, f"random value for input '{param.name}'")  # drawn in f64 first
    if name == "boolean":
        return rng.random(shape) < 0.5
    if name == "string":
        return np.array(["graphir"], dtype=object).repeat(int(np.prod(shape, dtype=np.int64))).reshape(shape)
    if et.is_dynamic:
        return rng.standard_normal(shape).astype(np.float32)
    dtype = np.dtype(et.numpy_dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        # 0..8: integer inputs are mostly ids, indices, counts and trip counts (a negative Loop trip
        # count runs until the condition stops it: a random one hung torch_loop.xml)
        low, high = _SUB_BYTE_RANGES.get(name, (0, min(int(info.max), 8)))
        return rng.integers(low, high + 1, size=shape).astype(dtype)
    if name in _SUB_BYTE_RANGES:
        low, high = _SUB_BYTE_RANGES[name]
        return rng.integers(low, high + 1, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)
