"""Run plans specialized for one signature of input shapes.

A :class:`~graphir.interpreter.RunPlan` is built once per model structure; its steps call each
op's generic ``evaluate``. Once the shapes of a run's inputs are known, shape inference knows every
output's type, and a *specialization* of the plan for that signature is built (and remembered):

* **constant folding, once**: a node whose inputs are all constants (a ``Convert`` of f16 weights
  to f32, a ``Transpose`` or ``Reshape`` of a weight, a decompression subgraph of compressed
  weights) is evaluated when the specialization is built, with the op's own ``evaluate``, so the
  values are bit for bit those a run would compute. Nodes whose values shape inference already
  knows for this signature (shape subgraphs: ``ShapeOf -> Gather -> Concat``) become constants too.
  Folded values larger than what their inputs hold are kept only within the *constant cache
  budget* (:func:`constant_cache_bytes`); past it the node runs per call as before.
* **prepared evaluates**: every remaining node gets ``op.prepare(NodeSignature(...))`` (its
  input and output types, constant inputs, which outputs are read),
  a callable with ``evaluate``'s arguments and results whose attributes are decoded, whose
  constant inputs are laid out for the kernel, and whose checks were made once
  (:meth:`graphir.ops.base.Op.prepare`; the default is ``evaluate`` itself).
* **sizes checked before anything is allocated**: the largest output of the signature (node, port,
  bytes) is recorded; a run whose tensor size limit it exceeds stops before its first step
  (issue 16: no op needs its own check unless its output size depends on values).

Memory: the steps free each value after its last use (the live set), as the generic plan does;
the folded constants are shared by all signatures of a plan.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.errors import ResourceLimitError
from graphir.limits import parse_byte_count
from graphir.numerics import evaluator, has_override
from graphir.numerics import profile as numerics_profile
from graphir.run_guard import guard_steps
from graphir.ops.base import NodeSignature, Op, TensorType, fresh_output, static_dims
from graphir.shapes import PartialShape
from graphir.types import ElementType

if TYPE_CHECKING:
    from graphir.interpreter import RunPlan, Step
    from graphir.node import Node

#: the default budget of constants a plan may hold beyond the model's own (1 GiB)
DEFAULT_CONSTANT_CACHE_BYTES = 1 << 30
#: the environment variable that overrides it (an integer number of bytes; 0 caches nothing)
ENVIRONMENT_VARIABLE = "GRAPHIR_CONSTANT_CACHE_BYTES"
#: specializations remembered per plan (signatures of a dynamic model); past this they start afresh
MAX_SPECIALIZATIONS = 16
#: inferred values (shape subgraphs) larger than this many elements are not made constants
_MAX_INFERRED_VALUE = 1 << 16


def constant_cache_bytes() -> int:
    """The budget in force: ``GRAPHIR_CONSTANT_CACHE_BYTES`` if set, else 1 GiB."""
    text = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_CONSTANT_CACHE_BYTES
    return parse_byte_count(text, ENVIRONMENT_VARIABLE, "the constant cache budget", minimum=0)


@dataclass
class ConstantCache:
    """Values of constant-only nodes, shared by every specialization of one plan."""

    budget: int
    used: int = 0
    #: node id -> its output values (None: tried and not folded: over the budget or it failed)
    values: dict[int, "list[Any] | None"] = field(default_factory=dict)
    #: last node of a folded chain of constant Adds/Multiplies -> its folded constant
    #: (graphir.numerics.openvino_cpu.linear_chains; None: over the budget)
    chains: dict[int, "np.ndarray | None"] = field(default_factory=dict)


@dataclass
class Specialization:
    """The steps and value table of one input signature (see the module docstring)."""

    steps: "list[Step]"
    template: list[Any]
    #: the largest output of any node of the signature: (bytes, node, output index, its type)
    largest_output: "tuple[int, Node | None, int, TensorType | None]" = (0, None, -1, None)
    #: ``steps`` cut where an op with bodies runs (see graphir.interpreter.steps_task), made on first use
    segments: "list[tuple[bool, Any]] | None" = None
    #: (``steps``, the same as one generated function or None: not compiled), made on the first run
    #: (graphir.step_code)
    compiled: Any = None


_ITEMSIZE: dict[Any, int] = {}


def output_bytes(t: "TensorType") -> int | None:
    """Bytes of a tensor of type ``t``; None when its shape or element type is not known."""
    et = t.element_type
    itemsize = _ITEMSIZE.get(et)
    if itemsize is None:
        if et.is_dynamic:
            return None
        try:
            itemsize = max(np.dtype(et.numpy_dtype).itemsize, 1)
        except (TypeError, ValueError, AttributeError):
            itemsize = 8
        _ITEMSIZE[et] = itemsize
    dims = static_dims(t)
    if dims is None:
        return None
    nbytes = itemsize
    for d in dims:
        nbytes *= d
    return nbytes


def check_largest_output(largest: "tuple[int, Node | None, int, TensorType | None]", limit: int) -> None:
    """Refuse a run whose largest output is over ``limit`` bytes, naming the node and port."""
    nbytes, node, index, t = largest
    if node is not None and nbytes > limit:
        raise ResourceLimitError(
            f"{node.describe()}: output {index} ({t}) would take {nbytes:,} bytes, over the tensor size limit of "
            f"{limit:,} bytes (raise it with max_tensor_bytes=, --max-tensor-bytes or GRAPHIR_MAX_TENSOR_BYTES)")


_FOLDABLE: dict[type, bool] = {}


def _foldable_at_plan(node: "Node") -> bool:
    cls = type(node.op)
    foldable = _FOLDABLE.get(cls)
    if foldable is None:  # a missing class attribute costs pydantic's metaclass a slow lookup: once per class
        foldable = _FOLDABLE[cls] = bool(cls.runnable and getattr(cls, "foldable", True)
                                         and not getattr(cls, "stateful", False))
    return foldable and bool(node.inputs)


def _empty_at_plan(node: "Node", types: list["TensorType"]) -> bool:
    """Whether every output of ``node`` is, for this signature, an empty tensor of a static shape
    and a numpy element type, and the op has no effect beyond its outputs (no state, no sink): then
    the step is not run and its outputs are those empty arrays (a zero-size batch or dim runs
    through every op without its kernel being asked to handle it)."""
    for t in types:
        dims = static_dims(t)
        if dims is None or 0 not in dims or t.element_type.is_dynamic:
            return False
    cls = type(node.op)  # reached only for empty outputs: no per-class cache needed
    return bool(cls.runnable and not getattr(cls, "stateful", False) and not getattr(cls, "sink", False))


def _empty_array(t: "TensorType") -> np.ndarray:
    dims = static_dims(t)
    assert dims is not None
    return np.empty(dims, np.dtype(t.element_type.numpy_dtype))


def _empty_value(t: "TensorType") -> np.ndarray:
    value = _empty_array(t)
    value.flags.writeable = False  # shared by every run of the signature
    return value


def empty_outputs_at_run(node: "Node", args: Sequence[Any]) -> list[np.ndarray] | None:
    """The outputs of a step whose inputs include an empty array, when shape inference on the run's
    actual input shapes makes every output empty too: what :func:`_empty_at_plan` does for shapes
    the plan could not know (a dim that depends on data, e.g. after NonZero or NMS). None when an
    output would hold elements, or the inputs' shapes do not settle the outputs'."""
    if not all(type(a) is np.ndarray for a in args) or not any(a.size == 0 for a in args):
        return None
    try:
        given = [TensorType(ElementType.from_numpy(a.dtype), PartialShape(list(a.shape))) for a in args]
        types = node.op.infer(given)
    except Exception:  # noqa: BLE001 - no answer here: the kernel's own failure is reported
        return None
    if not types or not _empty_at_plan(node, types):
        return None
    return [_empty_array(t) for t in types]  # this run's own: a later step may write into them


def _inferred_value(t: "TensorType") -> np.ndarray | None:
    """The value shape inference knows for an output, when it is exactly what a run computes."""
    value = t.value
    if type(value) is not np.ndarray or value.size > _MAX_INFERRED_VALUE:
        return None
    dims = static_dims(t)
    if dims is None:
        return None
    try:
        dtype = np.dtype(t.element_type.numpy_dtype)
    except (TypeError, ValueError, AttributeError):
        return None
    if value.dtype != dtype or value.shape != dims:
        return None
    return value


def _folded(node: "Node", args: list[Any], types: list["TensorType"], cache: ConstantCache,
            override: Callable[..., Any] | None = None) -> "list[Any] | None":
    """The outputs of a constant-only node, from the cache or evaluated now within its budget."""
    known = cache.values.get(node.id, _UNSET)
    if known is not _UNSET:
        return known  # type: ignore[return-value]
    sizes = [output_bytes(t) for t in types]
    outs: list[Any] | None = None
    if all(s is not None for s in sizes) and cache.used + sum(sizes) <= cache.budget:  # type: ignore[arg-type]
        try:
            result = (override or generic_evaluate(node))(*args)
        except Exception:  # noqa: BLE001 - the step then runs per call and reports there
            result = None
        if isinstance(result, (list, tuple)) and len(result) >= len(types):
            outs = list(result[:len(types)])
            # a view of a constant (Reshape, Squeeze) costs nothing; a new array counts
            cache.used += sum(int(getattr(o, "nbytes", 0)) for o in outs
                              if not any(np.may_share_memory(o, a) for a in args if isinstance(a, np.ndarray)))
    cache.values[node.id] = outs
    return outs


def _folded_small(node: "Node", args: list[Any], types: list["TensorType"],
                  override: Callable[..., Any] | None = None) -> "list[Any] | None":
    """The outputs of a node whose inputs are known for one signature only, when they are small
    (they are kept by that signature's specialization, not in the shared cache)."""
    sizes = [output_bytes(t) for t in types]
    if any(s is None or s > _MAX_INFERRED_VALUE * 8 for s in sizes):
        return None
    try:
        result = (override or generic_evaluate(node))(*args)
    except Exception:  # noqa: BLE001 - the step then runs per call and reports there
        return None
    return list(result[:len(types)]) if isinstance(result, (list, tuple)) and len(result) >= len(types) else None


def generic_evaluate(node: "Node") -> Callable[..., Any]:
    """The op's generic evaluate (for ops whose evaluate depends on input types, their ``specialize``)."""
    specialize_types = getattr(node.op, "specialize", None)
    return node.op.evaluate if specialize_types is None else specialize_types(node.input_types())


def profile_evaluate(node: "Node", numerics: str) -> Callable[..., Any] | None:
    """The numerics profile's override of ``node``'s evaluate, as a step calls it (``*arrays``);
    None when the profile computes what the op's own evaluate does (graphir.numerics). The override
    sees the model's own input types (TopK: a dynamic-shape node sorts as the plugin's dynamic one,
    whatever shapes a run's signature has)."""
    if numerics == "reference" or not has_override(node.op, numerics):
        return None
    fn = evaluator(node.op, numerics, node.input_types())

    def evaluate(*arrays: Any) -> Any:
        return fn(list(arrays))

    if getattr(fn, "fresh_output", False):  # (the next elementwise step may write into its output)
        fresh_output(evaluate)
    return evaluate


class _Unset:
    pass


_UNSET = _Unset()


def _reads_values(node: "Node") -> bool:
    """Whether ``node``'s outputs depend on its inputs' values: a ShapeOf reads only their shapes, so
    an override upstream (a Divide under openvino-cpu) does not make its value, and the shape
    arithmetic after it, differ from what shape inference folded (t5_encoder under openvino-cpu:
    its shape subgraph ran every run, 0.55 -> 0.73 ms)."""
    return node.op.type_name != "ShapeOf" or node.op.dialect != "openvino"


def specialize(plan: "RunPlan", types: "Mapping[tuple[int, int], TensorType]", make_step: "Callable[..., Step]", *,
               prepare: bool = True, numerics: str = "reference") -> Specialization:
    """The steps of ``plan`` for the output types ``types`` of one input signature.

    ``prepare=False`` builds the reference: no folding, each op's generic ``evaluate`` (what a run
    computed before specialization existed; the tests compare both bit for bit). ``numerics``: the
    profile (graphir.numerics): its overrides replace the ops' evaluates, in folding too, and its
    plan-level fusions (decompression, constant chains) apply."""
    chosen = numerics_profile(numerics)
    cache: ConstantCache = plan.constant_cache if numerics == "reference" else \
        plan.constant_caches.setdefault(numerics, ConstantCache(plan.constant_cache.budget))
    #: slots whose values an override computed: values shape inference folded with the ops' own
    #: evaluate are not taken for what reads them
    overridden: set[int] = set()
    template = plan.template.copy()
    known = [v is not None for v in template]  # values every run of this signature has
    constant = list(known)  # the same for every signature (model constants and what folds from them)
    nodes: list[tuple["Node", tuple[int, ...], Callable[..., Any] | None]] = []
    largest: tuple[int, Node | None, int, TensorType | None] = (0, None, -1, None)
    for node in plan.executed:
        outs_types = [types.get((node.id, i), t) for i, t in enumerate(node.output_types)]
        for i, t in enumerate(outs_types):
            nbytes = output_bytes(t)
            if nbytes is not None and nbytes > largest[0]:
                largest = (nbytes, node, i, t)
        if chosen.fuse_decompression and node.id in plan.absorbed:
            continue  # computed within a decompression step
        ins = plan.input_slots[node.id]
        base = plan.slot_of[(node.id, 0)] if node.output_types else -1
        thunk = plan.decompressions.get(node.id) if chosen.fuse_decompression else None
        override = profile_evaluate(node, numerics)
        if override is not None or (any(s in overridden for s in ins) and _reads_values(node)):
            overridden.update(base + i for i in range(len(outs_types)))
        if prepare and outs_types and _empty_at_plan(node, outs_types):
            for i, t in enumerate(outs_types):  # nothing to compute: shape inference knows the empty outputs
                template[base + i] = _empty_value(t)
                known[base + i] = True
                constant[base + i] = False
            continue
        if prepare and outs_types and _foldable_at_plan(node):
            values: list[Any] | None = None
            shared = all(constant[s] for s in ins)
            if thunk is None and shared:
                values = _folded(node, [template[s] for s in ins], outs_types, cache, override)
            elif thunk is None:
                inferred = [_inferred_value(t) for t in outs_types] if base not in overridden else [None]
                if all(v is not None for v in inferred):
                    values = inferred
                elif all(known[s] for s in ins):  # folds for this signature only (shape arithmetic)
                    values = _folded_small(node, [template[s] for s in ins], outs_types, override)
            if values is not None:
                for i, v in enumerate(values):
                    template[base + i] = v
                    known[base + i] = True
                    constant[base + i] = shared
                continue
        if thunk is not None:
            value = _decompressed(node, thunk, cache) if prepare else None
            if value is not None:
                template[base] = value
                known[base] = constant[base] = True
                continue
            nodes.append((node, (), lambda thunk=thunk: [thunk()]))
            continue
        if override is not None or not prepare:
            nodes.append((node, ins, override))
            continue
        consts = [template[s] if known[s] else None for s in ins]
        in_types = [types.get((s.node.id, s.index), s.node.output_types[s.index]) for s in node.inputs if s is not None]
        used = [plan.slot_of[(node.id, i)] in plan.read_slots for i in range(len(outs_types))]
        if getattr(node.op, "specialize", None) is not None and type(node.op).prepare is Op.prepare:
            nodes.append((node, ins, generic_evaluate(node)))  # evaluate depends on the model's own types
            continue
        nodes.append((node, ins, node.op.prepare(NodeSignature(in_types, consts, outs_types, used))))
    if prepare and chosen.fold_linear_chains:
        from graphir.numerics.openvino_cpu.linear_chains import fold_constant_chains

        nodes = fold_constant_chains(plan, types, nodes, template, constant, cache)
    known.extend([True] * (len(template) - len(known)))
    keep = set(plan.result_slots) | {s for s, k in enumerate(known) if k}
    if prepare:
        _write_into_dead_inputs(plan, types, nodes, keep)
    last_use: dict[int, int] = {}
    for step_index, (node, ins, _) in enumerate(nodes):
        for i in range(len(node.output_types)):
            last_use[plan.slot_of[(node.id, i)]] = step_index
        for s in ins:
            last_use[s] = step_index
    releases: dict[int, list[int]] = {}
    for slot, step_index in last_use.items():
        if slot not in keep:
            releases.setdefault(step_index, []).append(slot)
    for slot in plan.result_slots:  # a value every run returns (a constant, a folded one): read-only
        kept = template[slot]  # for the caller, so writing into an output never changes later runs
        if type(kept) is np.ndarray and kept.flags.writeable:
            kept.flags.writeable = False
    nodes = guard_steps(types, nodes, generic_evaluate)  # sizes asked for by input values (graphir.run_guard)
    steps = [make_step(plan, node, ins, evaluate, tuple(sorted(releases.get(i, ()))))
             for i, (node, ins, evaluate) in enumerate(nodes)]
    return Specialization(steps, template, largest)


def _write_into_dead_inputs(plan: "RunPlan", types: "Mapping[tuple[int, int], TensorType]",
                            nodes: "list[tuple[Node, tuple[int, ...], Callable[..., Any] | None]]", keep: set[int]) -> None:
    """Let an elementwise step write its result into an input nothing will read after it: a fresh
    array (:func:`graphir.ops.base.fresh_output`: a convolution's, a product's, an earlier
    elementwise step's) of the output's type and static shape that it alone reads (a bias Add
    after a Convolution, a residual Add), or that it reads last while every earlier reader made a
    fresh array of its own from it (a squeeze-excite block's Multiply after its ReduceMean: those
    readers keep no reference to it). Saves an allocation per step; the values are the same ufunc's."""
    readers: dict[int, list[int]] = {}
    fresh: set[int] = set()
    for index, (node, ins, evaluate) in enumerate(nodes):
        for s in set(ins):
            readers.setdefault(s, []).append(index)
        if getattr(evaluate, "fresh_output", False) and node.output_types:
            fresh.add(plan.slot_of[(node.id, 0)])

    def dead_after(slot: int, index: int) -> bool:
        """Is step ``index`` the last reader of ``slot``, every earlier one a fresh-output step?"""
        for other in readers.get(slot, ()):
            if other == index:
                continue
            earlier, _, evaluate = nodes[other]
            if other > index or not getattr(evaluate, "fresh_output", False) or len(earlier.output_types) != 1:
                return False
        return True

    for index, (node, ins, evaluate) in enumerate(nodes):
        variants = getattr(evaluate, "into_inputs", None)
        if variants is None or len(ins) != len(variants) or not node.output_types:
            continue
        out_type = types.get((node.id, 0), node.output_types[0])
        out_dims = static_dims(out_type)
        for port, slot in enumerate(ins):
            if slot in keep or slot not in fresh or out_dims is None or not dead_after(slot, index):
                continue
            source = node.inputs[port]
            assert source is not None
            in_type = types.get((source.node.id, source.index), source.node.output_types[source.index])
            if in_type.element_type == out_type.element_type and static_dims(in_type) == out_dims:
                nodes[index] = (node, ins, variants[port])
                fresh.add(plan.slot_of[(node.id, 0)])  # (it was already: the variants are fresh too)
                break


def _decompressed(node: "Node", thunk: Callable[[], np.ndarray], cache: ConstantCache) -> np.ndarray | None:
    """A decompression subgraph's f32 value, cached within the budget (None: computed per run)."""
    known = cache.values.get(node.id, _UNSET)
    if known is not _UNSET:
        return None if known is None else known[0]  # type: ignore[index]
    nbytes = output_bytes(node.output_types[0])
    value = None
    if nbytes is not None and cache.used + nbytes <= cache.budget:
        value = thunk()
        cache.used += nbytes
    cache.values[node.id] = None if value is None else [value]
    return value


def signature_types(nodes: Sequence["Node"]) -> dict[tuple[int, int], "TensorType"]:
    """The model's own output types (a static model's only signature)."""
    return {(n.id, i): t for n in nodes for i, t in enumerate(n.output_types)}
