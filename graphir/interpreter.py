"""Runs a model on numpy arrays.

A run plan is built once per model structure: the nodes in topological order, where each input
value comes from, and after which step each value is last used (so it is dropped there and peak
memory is the live set). A run is then a plain loop over tuples, with no networkx, no attribute
look-ups on pydantic objects and no per-node allocations beyond the argument list.

Constants are placed in the value table from a template built with the plan (their arrays are
shared, never copied); Parameters from the checked inputs. Stateful ops (ReadValue, Assign) get the
request's variable store as their first argument: it sits in one extra slot of the value table
(``RunPlan.state_slot``), filled per run, so state never lives in the plan, the model or a global.
"""
from __future__ import annotations

import contextlib
import functools
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from graphir.errors import (EmptyInputError, EvaluationError, GraphirError, InputError, OpDefinitionError,
                             ResourceLimitError, UnsupportedOpError)
from graphir.limits import max_tensor_bytes as tensor_limit_in_force, tensor_limit
from graphir.run_guard import check_run
from graphir.ops.openvino.core import Constant, Parameter, Result
from graphir.numerics import active as active_numerics
from graphir.numerics import check as check_numerics
from graphir.numerics import using as using_numerics
from graphir.numerics.openvino_cpu.decompression import absorbed_nodes, decompressions
from graphir.specialize import (MAX_SPECIALIZATIONS, ConstantCache, Specialization, check_largest_output,
                                 constant_cache_bytes, empty_outputs_at_run, generic_evaluate, signature_types,
                                 specialize)
from graphir.step_code import compile_steps
from graphir.trampoline import Task, drive
from graphir.variables import VariableStore, model_variables

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node

#: a plan step: (evaluate, arity, first three input slots (-1: none), all input slots, first output
#: slot, number of outputs, slots freed after it, node). Arity and the first slots let the hot loop
#: call ``evaluate`` without building an argument list for nodes of up to three inputs.
#: ``observe(node, outputs)``: see :func:`run`
Observer = Callable[["Node", "list[Any]"], None]
Step = tuple[Any, int, int, int, int, tuple[int, ...], int, int, tuple[int, ...], "Node"]


@dataclass(frozen=True)
class InputSpec:
    """What one Parameter accepts, precomputed for a cheap per-run check."""

    index: int
    name: str
    element_type: Any
    dtype: np.dtype | None  # None: dynamic or string element type (any array accepted)
    static_shape: tuple[int, ...] | None  # set when the shape is fully static
    shape: Any  # the PartialShape, for dynamic checks and messages
    #: per dim (min, max; max -1: unbounded) when the rank is static: the per-run check of a dynamic shape
    bounds: tuple[tuple[int, int], ...] | None = None


@dataclass
class RunPlan:
    steps: list[Step]
    inputs: list[InputSpec]
    input_index: dict[str, int]  # friendly and tensor names -> Parameter index
    parameter_slots: list[int]
    result_slots: list[int]
    result_keys: list[str]
    template: list[Any]  # the value table before a run: constants filled in, the rest None
    result_pairs: tuple[tuple[str, int], ...] = ()  # (result key, slot), in Result order
    #: whether a progress bar may be worth it: more than one step, and the last run (if any) took
    #: over half a second; fast models then skip the terminal check and tqdm entirely
    show_progress: bool = False
    #: the Model.version the plan was built for; a plan of another version is rebuilt
    version: int = -1
    #: some Parameter has a dynamic shape: each new signature of input shapes is shape-inferred
    #: once before it runs (see :func:`check_signature`)
    dynamic: bool = False
    #: input shape signature -> the InferenceError it raised (raised again without inferring)
    signatures: dict[tuple[tuple[int, ...], ...], Exception | None] = field(default_factory=dict)
    #: the nodes that run (no Parameter, Constant or Result), in order
    executed: list["Node"] = field(default_factory=list)
    #: nodes only a decompression subgraph uses: not run where the profile fuses decompression
    absorbed: set[int] = field(default_factory=set)
    #: (node id, output index) -> value-table slot; node id -> the slots of its inputs
    slot_of: dict[tuple[int, int], int] = field(default_factory=dict)
    input_slots: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: the slots some node or Result reads
    read_slots: set[int] = field(default_factory=set)
    #: final Convert of a weight decompression subgraph -> computes its f32 value (graphir.numerics.openvino_cpu.decompression)
    decompressions: dict[int, Any] = field(default_factory=dict)
    #: folded constants shared by the specializations, within their budget (graphir.specialize)
    constant_cache: ConstantCache = field(default_factory=lambda: ConstantCache(constant_cache_bytes()))
    #: the same for each other numerics profile (their folded values differ from the reference's)
    constant_caches: dict[str, ConstantCache] = field(default_factory=dict)
    #: (input shapes, prepared?, numerics profile) -> the plan specialized for them
    specializations: dict[tuple[Any, bool, str], Specialization] = field(default_factory=dict)
    #: held while a specialization is built (requests in several threads share the plan)
    lock: Any = field(default_factory=threading.Lock)
    #: the value-table slot that holds the variable store during a run (-1: the model has no stateful op)
    state_slot: int = -1
    #: the model's variables by id (see graphir.variables), for the stores of its requests
    variables: dict[str, Any] = field(default_factory=dict)
    #: ``steps`` cut where an op with bodies runs (see :func:`steps_task`), made on first use
    segments: "list[tuple[bool, Any]] | None" = None


@dataclass
class NodeProfile:
    """Time and output bytes of one node in a profiled run."""

    id: int
    name: str
    type: str
    version: str
    seconds: float
    output_bytes: int


@dataclass
class RunResult:
    """What ``model.profile`` / ``request.profile`` return: the outputs and one record per executed node."""

    outputs: dict[str, np.ndarray]
    profile: list[NodeProfile] = field(default_factory=list)

    def table(self) -> str:
        """The profile as a readable table, slowest first."""
        rows = sorted(self.profile, key=lambda r: -r.seconds)
        lines = [f"{'id':>6}  {'name':<30} {'type':<24} {'us':>10} {'bytes':>12}"]
        for r in rows:
            lines.append(f"{r.id:>6}  {r.name[:30]:<30} {(r.type + '-' + r.version)[:24]:<24} "
                         f"{r.seconds * 1e6:>10.1f} {r.output_bytes:>12}")
        return "\n".join(lines)


def result_key(result: "Node") -> str:
    """The key a Result's value is returned under: its tensor name, else its friendly name."""
    names = result.output_names[0] or (result.inputs[0].names if result.inputs and result.inputs[0] else set())
    return sorted(names)[0] if names else result.name


def unique_result_keys(results: Sequence["Node"]) -> list[str]:
    """Result keys, made unique: a repeated tensor name falls back to the Result's friendly name,
    then to ``name:index``."""
    keys: list[str] = []
    for i, r in enumerate(results):
        key = result_key(r)
        if key in keys:
            key = r.name if r.name not in keys else f"{key}:{i}"
        keys.append(key)
    return keys


def build_plan(model: "Model") -> RunPlan:
    """The run plan of ``model``: slots for every output, steps in topological order, releases.
    Only live nodes (those a Result or sink reaches, and the Parameters) take part."""
    order = model.live_nodes()
    slot_of: dict[tuple[int, int], int] = {}
    next_slot = 0
    for node in order:
        for i in range(len(node.output_types)):
            slot_of[(node.id, i)] = next_slot
            next_slot += 1
    results = model.get_results()
    # a Result passes its input through: its output slot aliases its input's slot
    for r in results:
        src = r.input_value(0)
        slot_of[(r.id, 0)] = slot_of[(src.node.id, src.index)]
    found = decompressions(order)  # weight decompression, computed in f32 under openvino-cpu numerics
    skipped = absorbed_nodes(order, found, results + model.sinks) if found else set()
    executed = [n for n in order if not isinstance(n.op, (Parameter, Result, Constant))]
    result_slots = [slot_of[(r.id, 0)] for r in results]
    stateful = any(getattr(n.op, "stateful", False) for n in executed)
    state_slot = next_slot if stateful else -1
    template: list[Any] = [None] * (next_slot + stateful)
    for node in order:
        if isinstance(node.op, Constant):
            template[slot_of[(node.id, 0)]] = node.op.value  # shared, never copied
    input_slots = {n.id: tuple(slot_of[(s.node.id, s.index)] for s in n.inputs if s is not None) for n in executed}
    params = model.get_parameters()
    specs = [_input_spec(i, p) for i, p in enumerate(params)]
    index: dict[str, int] = {}
    for i, p in enumerate(params):  # tensor names first, so friendly names win on a clash
        for name in p.output_names[0]:
            index.setdefault(name, i)
    for i, p in enumerate(params):
        index[p.name] = i
    plan = RunPlan(
        steps=[],
        inputs=specs,
        input_index=index,
        parameter_slots=[slot_of[(p.id, 0)] for p in params],
        result_slots=result_slots,
        result_keys=unique_result_keys(results),
        template=template,
        result_pairs=tuple(zip(unique_result_keys(results), result_slots)),
        version=model.version,
        dynamic=any(s.static_shape is None for s in specs),
        state_slot=state_slot,
        variables=model_variables(order, f"model '{model.name}'", model.sinks) if stateful else {},
        executed=executed,
        slot_of=slot_of,
        input_slots=input_slots,
        decompressions=found,
        absorbed=skipped,
        read_slots={s for slots in input_slots.values() for s in slots} | set(result_slots),
    )
    plan.steps = specialize(plan, {}, make_step, prepare=False).steps  # the generic steps: each op's evaluate
    plan.show_progress = len(plan.steps) > 1
    return plan


def make_step(plan: RunPlan, node: "Node", ins: tuple[int, ...], evaluate: Any, release: tuple[int, ...]) -> Step:
    """One step of ``node``: ``evaluate`` (None: the op's generic one) on the values in ``ins``."""
    if evaluate is None or type(node.op).has_bodies:
        evaluate = generic_evaluate(node) if not type(node.op).has_bodies else functools.partial(evaluate_with_bodies, node.op)
    if getattr(node.op, "stateful", False):  # the store comes first: evaluate_state(store, *arrays)
        ins, evaluate = (plan.state_slot, *ins), getattr(node.op, "evaluate_state")
    base = plan.slot_of[(node.id, 0)] if node.output_types else -1
    first = (ins + (-1, -1, -1))[:3]
    return (evaluate, len(ins), first[0], first[1], first[2], ins, base, len(node.output_types), release, node)


def _input_spec(index: int, param: "Node") -> InputSpec:
    op = param.op
    assert isinstance(op, Parameter)
    et = op.element_type
    dtype = None if et.is_dynamic or et.value == "string" else np.dtype(et.numpy_dtype)
    static = tuple(op.shape.to_shape()) if op.shape.is_static else None
    bounds = (tuple((d.min, -1 if d.max is None else d.max) for d in op.shape.dims)
              if op.shape.rank_is_static else None)
    return InputSpec(index, param.name, et, dtype, static, op.shape, bounds)


def get_plan(model: "Model") -> RunPlan:
    """The model's run plan: built, after validating the model and re-inferring what edits
    touched, on first use and whenever the model's version moved since (``Model.derived``)."""
    return model.derived("plan", lambda: _new_plan(model))  # type: ignore[no-any-return]


def _new_plan(model: "Model") -> RunPlan:
    model.validate()
    plan = build_plan(model)
    _check_run_types(plan)
    return plan


def _check_run_types(plan: RunPlan) -> None:
    """The checks a run makes beyond shape inference (``Op.check_run``) on the model's own types;
    what a dynamic dim hides is checked per input signature (:func:`check_signature`)."""
    from graphir.ops.base import Op

    for step in plan.steps:
        node = step[-1]
        if type(node.op).check_run is not Op.check_run:
            node._types_for(node.input_types(), run=True)


_INDICES = [list(range(n)) for n in range(64)]
#: the context a run enters when its numerics profile is the active one already (a stateless no-op)
_ALREADY_ACTIVE = contextlib.nullcontext()


def specialization(model: "Model", plan: RunPlan, inputs: list[Any], prepared: bool = True,
                   numerics: str | None = None) -> Specialization:
    """The plan specialized for the shapes of ``inputs`` (Parameter order), built on first use: a
    dynamic model's signature is shape-inferred once, so a shape problem is reported at the node
    where it arises, with that node's input types, before anything runs (a signature that failed
    fails again the same way without inferring). ``numerics``: the profile (None: the one of the
    run in progress, graphir.numerics.active: what an op's body gets)."""
    if numerics is None:
        numerics = active_numerics()
    key = (tuple([a.shape for a in inputs]), prepared, numerics)
    spec = plan.specializations.get(key)
    if spec is not None:
        return spec
    with plan.lock:  # one thread builds a signature's specialization; the others wait and share it
        spec = plan.specializations.get(key)
        if spec is None:
            spec = _specialize_signature(model, plan, key)
    return spec


def _specialize_signature(model: "Model", plan: RunPlan, key: "tuple[Any, bool, str]") -> Specialization:
    prepared, numerics = key[1], key[2]
    if plan.dynamic:
        failed = plan.signatures.get(key[0])
        if failed is not None:
            raise failed
        known = _infer_signature(model, plan, key[0])
        if isinstance(known, Exception):
            if len(plan.signatures) >= MAX_SPECIALIZATIONS:
                plan.signatures.clear()
            plan.signatures = {**plan.signatures, key[0]: known}
            raise known
        types = known if known is not None else signature_types(plan.executed)
    else:
        types = signature_types(plan.executed)
    spec = specialize(plan, types, make_step, prepare=prepared, numerics=numerics)
    specializations = dict(plan.specializations) if len(plan.specializations) < MAX_SPECIALIZATIONS else {}
    specializations[key] = spec
    plan.specializations = specializations  # replaced whole: readers without the lock see one or the other
    return spec


def check_signature(model: "Model", plan: RunPlan, values: list[Any]) -> None:
    """Shape-infer ``model`` for the shapes of the inputs in ``values`` (a value table), once per
    signature; raises the InferenceError of the first inconsistent node."""
    specialization(model, plan, [values[s] for s in plan.parameter_slots])


def _infer_signature(model: "Model", plan: RunPlan, signature: tuple[tuple[int, ...], ...]
                     ) -> "dict[tuple[int, int], Any] | Exception | None":
    """The output types of every node for the input shapes ``signature``; the InferenceError a
    node raises for them; None when an opaque layer stops inference (the run reports it there)."""
    from graphir.errors import InferenceError
    from graphir.inference import infer_for_inputs
    from graphir.ops.base import TensorType
    from graphir.shapes import PartialShape

    types = [TensorType(spec.element_type, PartialShape(list(shape))) for spec, shape in zip(plan.inputs, signature)]
    try:
        return infer_for_inputs(model, types, model.live_nodes())
    except InferenceError as exc:
        shown = ", ".join(f"{spec.name} [{','.join(map(str, shape))}]" for spec, shape in zip(plan.inputs, signature))
        return InferenceError(f"{exc} (shape inference for the run's input shapes: {shown})")
    except UnsupportedOpError:
        return None


def prepare_inputs(model: "Model", inputs: Any, plan: RunPlan | None = None) -> list[np.ndarray]:
    """Inputs in Parameter order, checked against each Parameter's element type and shape."""
    if plan is None:
        plan = get_plan(model)
    values: list[Any] = [None] * len(plan.inputs)
    _place_inputs(model, plan, inputs, values, list(range(len(plan.inputs))))
    return values


def _place_inputs(model: "Model", plan: RunPlan, inputs: Any, values: list[Any], slots: list[int]) -> None:
    """Check each input and store it in ``values[slots[i]]`` (i: Parameter index)."""
    specs = plan.inputs
    n = len(specs)
    if type(inputs) is dict or isinstance(inputs, Mapping):
        index = plan.input_index
        seen = 0
        for key, value in inputs.items():
            i = index.get(key) if type(key) is str else _int_key(model, key, n)
            if i is None:
                known = ", ".join(f"'{s.name}'" for s in specs) or "none"
                raise InputError(f"model '{model.name}' has no input {key!r} (inputs: {known})")
            bit = 1 << i
            if seen & bit:
                raise InputError(f"model '{model.name}': input '{specs[i].name}' is given twice "
                                 f"(by friendly name, tensor name or index)")
            seen |= bit
            values[slots[i]] = _check(specs[i], value)
        if seen != (1 << n) - 1:
            missing = ", ".join(f"'{s.name}'" for i, s in enumerate(specs) if not seen & (1 << i))
            raise InputError(f"model '{model.name}': no value given for input(s) {missing}")
        return
    if inputs is None:
        given: list[Any] = []
    elif isinstance(inputs, np.ndarray) and n == 1:
        given = [inputs]
    elif type(inputs) is list or type(inputs) is tuple:
        given = list(inputs)
    else:
        given = _sequence(model, inputs)
    if len(given) != n:
        raise InputError(f"model '{model.name}' has {n} inputs "
                         f"({', '.join(repr(s.name) for s in specs) or 'none'}), got {len(given)} values")
    for i, value in enumerate(given):
        values[slots[i]] = _check(specs[i], value)


def _sequence(model: "Model", inputs: Any) -> list[Any]:
    """Values in Parameter order from any other iterable; an InputError for what is not one."""
    if not isinstance(inputs, (str, bytes)):
        try:
            return list(inputs)
        except TypeError:
            pass
    raise InputError(f"model '{model.name}': inputs must be a dict (by input name or index), a list or "
                     f"tuple in Parameter order, or one array for a one-input model; got {type(inputs).__name__}")


def _int_key(model: "Model", key: Any, count: int) -> int | None:
    """The Parameter index of a non-string input key: an index, or a Parameter's Node/Output."""
    node = getattr(key, "node", key)
    if hasattr(node, "op") and hasattr(node, "id"):
        for i, p in enumerate(model.get_parameters()):
            if p is node:
                return i
        return None
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        if -count <= key < count:
            return int(key) % count
        raise InputError(f"model '{model.name}' has {count} inputs; input index {key} is out of range")
    return None


def _check(spec: InputSpec, value: Any) -> np.ndarray:
    """``value`` as an array of the Parameter's type; an InputError naming input, expected, got."""
    dtype = spec.dtype
    if type(value) is np.ndarray:
        array = value
        if dtype is not None and array.dtype != dtype:
            raise InputError(f"input '{spec.name}': expected element type {spec.element_type} "
                             f"({dtype}), got an array of {array.dtype} with shape {list(array.shape)}")
    else:
        array = _convert(spec, value)
    if spec.static_shape is not None:
        if array.shape != spec.static_shape:
            raise InputError(f"input '{spec.name}': expected shape {spec.shape}, got {list(array.shape)}")
    elif not _fits(spec.bounds, array.shape):
        raise InputError(f"input '{spec.name}': expected shape {spec.shape}, got {list(array.shape)}")
    return array


def _fits(bounds: tuple[tuple[int, int], ...] | None, shape: tuple[int, ...]) -> bool:
    """Whether an array shape fits a Parameter's dims (InputSpec.bounds; None: any rank fits)."""
    if bounds is None:
        return True
    if len(shape) != len(bounds):
        return False
    for (low, high), n in zip(bounds, shape):
        if n < low or (high >= 0 and n > high):
            return False
    return True


def _convert(spec: InputSpec, value: Any) -> np.ndarray:
    """A list/scalar/array-like converted to the Parameter's dtype when no value would change kind."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as exc:
        raise InputError(f"input '{spec.name}': cannot make an array of the given value: {exc}") from None
    dtype = spec.dtype
    if dtype is None:
        if spec.element_type.value == "string" and array.dtype.kind not in "UOS":
            raise InputError(f"input '{spec.name}': expected strings, got values of {array.dtype}")
        return array
    if array.dtype == dtype:
        return array
    ok = (array.size == 0 or np.can_cast(array.dtype, dtype, "same_kind")
          or (dtype.kind == "V" and array.dtype.kind in "fiu")  # ml_dtypes (bf16, f8, ...)
          or (dtype.kind in "fV" and array.dtype.kind in "iu"))
    if not ok:
        raise InputError(f"input '{spec.name}': expected element type {spec.element_type} ({dtype}), "
                         f"got values of {array.dtype} with shape {list(array.shape)}")
    return array.astype(dtype)


def execute(model: "Model", inputs: Any, state: "VariableStore | None", *, numerics: str = "reference",
            profile: bool = False, progress: bool | None = None, prepared: bool = True,
            observe: "Observer | None" = None) -> Any:
    """One run of ``model`` for a request (graphir.request: ``Model.run`` and ``InferRequest.infer``
    come here); returns {result tensor name: array} in Result order, or a RunResult when ``profile``.

    ``state``: the request's variable store, which ReadValue/Assign read and write (Assigns take
    effect once the run completes). ``prepared=False`` runs every op's generic ``evaluate`` with
    nothing folded: the reference the specialized plans of :mod:`graphir.specialize` are tested
    against (see :func:`_run_unspecialized`). ``observe``: called as ``observe(node, outputs)``
    after each executed node, before the values whose last use it was are freed
    (graphir.tools.compare streams per-layer checks this way); the arrays may be reused by later
    steps, so an observer that keeps one must copy it. ``numerics``: the numerics profile
    (:mod:`graphir.numerics`). Everything a run writes lives in this call's value table and
    ``state``: the plan and its specializations are shared and never written after they are built
    (built under the plan's lock)."""
    check_numerics(numerics)
    plan = get_plan(model)
    given: list[Any] = [None] * len(plan.inputs)
    _place_inputs(model, plan, inputs, given, _INDICES[len(given)] if len(given) < 64 else list(range(len(given))))
    spec = specialization(model, plan, given, prepared, numerics)
    values = spec.template.copy()
    for slot, value in zip(plan.parameter_slots, given):
        values[slot] = value
    limit = tensor_limit_in_force()  # (read once: the environment variable costs a lookup)
    if spec.largest_output[0] > limit:
        check_largest_output(spec.largest_output, limit)
    check_run(model, plan, limit)  # constants against the limit, mapped weights unchanged (graphir.run_guard)
    if plan.state_slot >= 0:
        if state is None:
            state = VariableStore(plan.variables)
        values[plan.state_slot] = state
    try:
        # the bodies of Loop/If/TensorIterator run under the profile too (already active: nothing to set)
        with using_numerics(numerics) if numerics != active_numerics() else _ALREADY_ACTIVE:
            if observe is not None and not profile:
                with np.errstate(all="ignore"):
                    _run_observed(spec.steps, values, observe)
                outputs = {key: values[slot] for key, slot in plan.result_pairs}
            else:
                outputs = _execute(plan, spec, values, profile, progress)
    except BaseException:
        if state is not None:
            state.abandon()
        raise
    if state is not None:
        state.commit()
    return outputs


def _run_unspecialized(model: "Model", inputs: Any = None) -> dict[str, np.ndarray]:
    """The reference for tests of the specialized plans: every op's generic ``evaluate``,
    nothing folded (not a way to run a model: use ``Model.run``)."""
    return execute(model, inputs, None, prepared=False)  # type: ignore[no-any-return]


def _execute(plan: RunPlan, spec: Specialization, values: list[Any], profile: bool, progress: bool | None) -> Any:
    records: list[NodeProfile] = []
    steps = spec.steps
    if profile:
        with np.errstate(all="ignore"):
            records = _run_profiled(steps, values)
    else:
        bar = None
        if progress or (progress is None and plan.show_progress):
            bar = _progress_bar(len(steps), progress)
            if bar is None:
                plan.show_progress = False  # not a terminal: do not ask again for this plan
        if bar is None:
            with np.errstate(all="ignore"):  # context-local; prepared elementwise steps rely on it
                _run_compiled(spec, values)
        else:
            start = time.perf_counter()
            try:
                with np.errstate(all="ignore"):
                    _run_steps(steps, values, bar.update)
            finally:
                bar.close()
            plan.show_progress = time.perf_counter() - start > 0.5
    outputs = {}
    for key, slot in plan.result_pairs:
        outputs[key] = values[slot]
    return RunResult(outputs, records) if profile else outputs


def _run_steps(steps: list[Step], values: list[Any], tick: Any = None) -> None:
    """The hot loop: one ``evaluate`` per step, values freed after their last use."""
    for evaluate, arity, a, b, c, ins, base, count, release, node in steps:
        try:
            if arity == 2:
                outs = evaluate(values[a], values[b])
            elif arity == 1:
                outs = evaluate(values[a])
            elif arity == 3:
                outs = evaluate(values[a], values[b], values[c])
            else:
                outs = evaluate(*[values[s] for s in ins])
            if count == 1 and (type(outs) is list or type(outs) is tuple):
                values[base] = outs[0]
            elif type(outs) is list and len(outs) == count:
                values[base:base + count] = outs
            else:
                values[base:base + count] = _outputs(outs, count)
        except Exception as exc:
            values[base:base + count] = _empty_or_reraise(node, [values[s] for s in ins], exc)
        if release:
            for s in release:
                values[s] = None
        if tick is not None:
            tick(1)


def _run_compiled(spec: Specialization, values: list[Any]) -> None:
    """:func:`_run_steps` as one generated function per specialization (graphir.step_code), made on
    first use; the loop for step lists it does not compile."""
    steps = spec.steps
    compiled = spec.compiled
    if compiled is None or compiled[0] is not steps:  # (built for these steps: a test may swap them)

        def fail(values: list[Any], k: int, exc: Exception) -> None:
            raise _Resume(k, _empty_or_reraise(steps[k][-1], [values[s] for s in steps[k][5]], exc))

        compiled = spec.compiled = (steps, compile_steps(steps, _outputs, fail))
    run = compiled[1]
    if run is None:
        _run_steps(steps, values)
        return
    try:
        run(values)
    except _Resume as resume:  # a step's outputs turned out empty: on from the next step, in the loop
        _, _, _, _, _, _, base, count, release, _ = steps[resume.step]
        values[base:base + count] = resume.outputs
        for s in release:
            values[s] = None
        _run_steps(steps[resume.step + 1:], values)


class _Resume(Exception):
    """Raised out of a compiled run when step ``step`` failed on an empty input whose outputs are
    empty too (:func:`_empty_or_reraise`): the run goes on from the next step."""

    def __init__(self, step: int, outputs: list[np.ndarray]) -> None:
        super().__init__(step)
        self.step, self.outputs = step, outputs


def _empty_or_reraise(node: "Node", args: Sequence[Any], exc: Exception) -> list[np.ndarray]:
    """A kernel's failure on an input with no elements, when the run's actual shapes make every
    output empty (a data-dependent dim the plan could not know): those empty outputs, as the plan
    gives them when it knows (graphir.specialize). Any other failure is re-raised naming the node."""
    if not isinstance(exc, GraphirError):
        outs = empty_outputs_at_run(node, args)
        if outs is not None:
            return outs
    _reraise(node, args, exc)


def _run_observed(steps: list[Step], values: list[Any], observe: "Observer") -> None:
    """:func:`_run_steps` with ``observe(node, outputs)`` called after each step, before its releases."""
    for evaluate, _, _, _, _, ins, base, count, release, node in steps:
        try:
            outs = _outputs(evaluate(*[values[s] for s in ins]), count)
        except Exception as exc:
            outs = _empty_or_reraise(node, [values[s] for s in ins], exc)
        values[base:base + count] = outs
        observe(node, outs)
        for s in release:
            values[s] = None


def steps_task(owner: "RunPlan | Specialization", values: list[Any]) -> Task[None]:
    """Run ``owner.steps`` on ``values`` as a task (graphir.trampoline): runs of plain steps go
    through :func:`_run_steps`; a step whose op has bodies yields the op's ``evaluate_task``, so
    its bodies run as inner tasks instead of nested calls."""
    segments = owner.segments
    if segments is None:
        segments = owner.segments = _segments(owner.steps)
    for has_bodies, part in segments:
        if not has_bodies:
            _run_steps(part, values)
            continue
        _, _, _, _, _, ins, base, count, release, node = part
        args = [values[s] for s in ins]
        try:
            outs = yield node.op.evaluate_task(RUN_CONTEXT, *args)
            values[base:base + count] = _outputs(outs, count)
        except Exception as exc:
            _reraise(node, args, exc)
        for s in release:
            values[s] = None


def run_body_task(body: "Model", args: list[np.ndarray]) -> Task[list[np.ndarray]]:
    """Run ``body`` on arrays in Parameter order as a task: its Result values in Result order.
    Bodies in the body run as inner tasks, so bodies nested hundreds deep run without nesting
    Python calls. Skips the per-run input checks (the outer op already inferred the body with
    these types). Everything written lives in this call's value table."""
    plan = get_plan(body)
    steps: Any = plan
    if not plan.dynamic and all(getattr(a, "shape", None) == s.static_shape for a, s in zip(args, plan.inputs)):
        steps = specialization(body, plan, args)  # a static body: specialized once, run per iteration
    values = steps.template.copy()
    for slot, value in zip(plan.parameter_slots, args):
        values[slot] = value
    yield steps_task(steps, values)
    return [values[s] for s in plan.result_slots]


class RunContext:
    """What the runtime hands an op with bodies (graphir.ops.base.BodyContext): ``run_body``."""

    def run_body(self, body: "Model", args: list[np.ndarray]) -> Task[list[np.ndarray]]:
        return run_body_task(body, args)

    def infer_body(self, body: "Model", types: list[Any], where: str) -> Any:
        from graphir.errors import InferenceError

        raise InferenceError(f"{where}: a run does not infer bodies")


#: the one context runs hand ops with bodies (it holds no state: a run's values live in its tables)
RUN_CONTEXT = RunContext()


def evaluate_with_bodies(op: Any, *arrays: np.ndarray) -> list[np.ndarray]:
    """A step of an op with bodies: its ``evaluate_task`` driven with the runtime's context."""
    with np.errstate(all="ignore"):  # as a run does (prepared elementwise steps rely on it)
        return drive(op.evaluate_task(RUN_CONTEXT, *arrays))  # type: ignore[no-any-return]


def _segments(steps: list[Step]) -> list[tuple[bool, Any]]:
    """``steps`` as (False, a run of steps without bodies) and (True, one step of an op with bodies)."""
    out: list[tuple[bool, Any]] = []
    plain: list[Step] = []
    for step in steps:
        if step[-1].op.has_bodies:
            if plain:
                out.append((False, plain))
                plain = []
            out.append((True, step))
        else:
            plain.append(step)
    if plain:
        out.append((False, plain))
    return out


def _outputs(outs: Any, count: int) -> list[Any]:
    """The ``count`` outputs of an evaluate call; a TypeError when it returned something else."""
    if not isinstance(outs, (list, tuple)):
        raise TypeError(f"evaluate returned {type(outs).__name__}; expected a list of {count} arrays")
    if len(outs) < count:
        raise TypeError(f"evaluate returned {len(outs)} outputs; the node has {count}")
    return list(outs[:count])


def _run_profiled(steps: list[Step], values: list[Any]) -> list[NodeProfile]:
    records: list[NodeProfile] = []
    clock = time.perf_counter
    for evaluate, _, _, _, _, ins, base, count, release, node in steps:
        start = clock()
        try:
            outs = _outputs(evaluate(*[values[s] for s in ins]), count)
        except Exception as exc:
            _reraise(node, [values[s] for s in ins], exc)
        elapsed = clock() - start
        values[base:base + count] = outs
        records.append(NodeProfile(node.id, node.name, node.type_name, node.version, elapsed,
                                   sum(int(getattr(o, "nbytes", 0)) for o in outs)))
        for s in release:
            values[s] = None
    return records


class BodiesTooDeepError(EvaluationError):
    """Python's recursion limit, reached while running a node. Bodies nested in bodies run as
    tasks without nested calls (graphir.trampoline), so this is reached only when the caller's own
    stack is nearly full; named once, at the outermost node."""

    def __init__(self, node: "Node", levels: int) -> None:
        self.levels = levels
        where = f"{levels} nested bodies below this node" if levels else "in this node"
        super().__init__(f"{node.describe()}: Python's recursion limit was reached {where} "
                         "(the caller's stack was nearly full)")


#: a failure inside bodies nested deeper than this names the outermost and the innermost node only
_SHOWN_BODY_LEVELS = 4


def _reraise(node: "Node", args: Sequence[Any], exc: Exception) -> NoReturn:
    """Re-raise a node's failure as a graphir error naming the node and its inputs.

    A failure inside a body is wrapped by each node with bodies around it; past
    ``_SHOWN_BODY_LEVELS`` levels the message names the outermost node, the depth and the innermost
    failure, not every level between (bodies may nest hundreds deep)."""
    if isinstance(exc, UnsupportedOpError):
        raise exc
    if isinstance(exc, RecursionError):
        raise BodiesTooDeepError(node, 0) from None
    if isinstance(exc, BodiesTooDeepError):
        raise BodiesTooDeepError(node, exc.levels + 1) from None
    innermost: str | None = getattr(exc, "innermost", None)
    levels: int = getattr(exc, "body_levels", -1) + 1
    if innermost is not None and levels > _SHOWN_BODY_LEVELS:
        message = f"{describe_inputs(node, args)}: {levels} nested bodies down: {innermost}"
    else:
        message = describe_failure(node, args, exc)
    error: GraphirError
    if isinstance(exc, ResourceLimitError):
        error = ResourceLimitError(message)
    elif not isinstance(exc, GraphirError) and innermost is None and _has_empty(args):
        message = empty_input_message(node, args, exc)
        error = EmptyInputError(message)
    else:
        error = EvaluationError(message)
    setattr(error, "body_levels", levels)  # read when a node with bodies around this one wraps it
    setattr(error, "innermost", innermost if innermost is not None else message)
    if isinstance(exc, GraphirError):
        raise error from None
    raise error from exc


def _has_empty(args: Sequence[Any]) -> bool:
    return any(type(a) is np.ndarray and a.size == 0 for a in args)


def empty_input_message(node: "Node", args: Sequence[Any], exc: Exception) -> str:
    """A kernel's failure on an input with no elements, said as the refusal it is: the node, the
    empty input(s), the outputs it was asked for, and what the kernel met."""
    ports = [f"input {i}{_port_name(node, i)} {a.dtype}{list(a.shape)}"
             for i, a in enumerate(args) if type(a) is np.ndarray and a.size == 0]
    wanted = ", ".join(str(t) for t in node.output_types)
    return (f"{describe_inputs(node, args)}: {' and '.join(ports)} holds no elements, and the op cannot compute "
            f"its outputs ({wanted}) from it ({type(exc).__name__}: {exc})")


def _port_name(node: "Node", index: int) -> str:
    try:
        return f" ({type(node.op).input_port(index).name!r})"
    except OpDefinitionError:  # more arguments than ports (a stateful step's store)
        return ""


def describe_inputs(node: "Node", args: Sequence[Any]) -> str:
    """``node 5 'sel' (Select-opset1) failed on inputs (bool[2], f32[3])``."""
    shown = ", ".join(
        f"{getattr(a, 'dtype', type(a).__name__)}{list(getattr(a, 'shape', ()))}" for a in args
    )
    return f"{node.describe()} failed on inputs ({shown})"


def describe_failure(node: "Node", args: Sequence[Any], exc: Exception) -> str:
    """``node 5 'sel' (Select-opset1) failed on inputs (bool[2], f32[3]): ...``."""
    detail = str(exc) if isinstance(exc, GraphirError) else f"{type(exc).__name__}: {exc}"
    return f"{describe_inputs(node, args)}: {detail}"


def _progress_bar(total: int, progress: bool | None) -> Any:
    """A tqdm bar on a terminal that appears only once the run takes longer than a second."""
    if progress is None and not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, delay=0.0 if progress else 1.0, unit="node", leave=False,
                disable=False, file=sys.stderr)
