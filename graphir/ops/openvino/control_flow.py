"""TensorIterator, Loop and If (owned by the control-flow developer; others: do not edit).

Sub-graph operations whose bodies are graphir Models. The port maps keep OpenVINO's IR form, one
dict per ``<input>``/``<output>`` of ``<port_map>`` (``external_port_id``, ``internal_layer_id`` and,
for sliced inputs / concatenated outputs, ``axis``, ``start``, ``end``, ``stride``, ``part_size``;
Loop's special body ports carry ``purpose="current_iteration"`` / ``"execution_condition"`` and
``external_port_id=-1``); ``back_edges`` holds ``{"from-layer": result id, "to-layer": parameter
id}``. ``internal_layer_id`` is the body node's id (the IR reader keeps layer ids as node ids).
Output external ids count after the inputs (output k of a node with n inputs is ``n + k``).

Shape inference re-infers the bodies with the outer input types (merged inputs whose shape changes
across iterations are relaxed until stable); concatenated outputs are the body's slice times the
number of iterations when that is known, else dynamic. Evaluation runs the bodies' run plans.

These ops never import the engine: whoever infers or runs them hands them a context
(:class:`graphir.ops.base.BodyContext`: ``ctx.infer_body`` from the inference pass, ``ctx.run_body``
from the runtime), as onnx's reference evaluator hands an op the evaluator class.
"""
from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pydantic import Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from graphir.errors import EvaluationError, OpDefinitionError, UnsupportedOpError
from graphir.limits import check_bytes
from graphir.ops.base import BodyContext, Op, Port, TensorType, types
from graphir.ops.openvino.core import parameter_of
from graphir.shapes import Dimension, PartialShape
from graphir.trampoline import Task
from graphir.types import ElementType

__all__ = ["TensorIterator", "Loop", "If"]

#: a body: a graph (graphir.model.Model) with Parameters and Results; typed loosely here, the ops
#: layer sits below the graph layer (checked by _as_body)
Body = Any

_MAX_RELAX_ROUNDS = 4


# ================================================================================ helpers ==
def _as_body(value: Any) -> Any:
    """A body field's value: None or a graph (anything with Parameters and Results)."""
    if value is None or (hasattr(value, "get_parameters") and hasattr(value, "get_results")):
        return value
    raise OpDefinitionError(f"a body must be a graphir Model, got {type(value).__name__}")


def _infer_body(ctx: BodyContext, body: Body, param_types: list[TensorType], where: str) -> Task[list[TensorType]]:
    """``ctx.infer_body``; a body holding an op graphir does not implement (loaded opaquely)
    keeps the types its Results were read with, as the opaque op keeps its recorded ones."""
    try:
        return (yield ctx.infer_body(body, param_types, where))  # type: ignore[no-any-return]
    except UnsupportedOpError:
        return [r.output_types[0] for r in body.get_results()]


class _WithBodies(Op):
    """An op with bodies: its inference and evaluation are tasks (graphir.trampoline) given a
    context (``infer_task(inputs, ctx)``, ``evaluate_task(ctx, *arrays)``); the plain
    ``infer``/``evaluate`` have no context to run bodies with and refuse."""

    has_bodies: ClassVar[bool] = True

    def infer_task(self, inputs: list[TensorType], ctx: BodyContext) -> Task[list[TensorType]]:
        raise NotImplementedError

    def evaluate_task(self, ctx: BodyContext, *arrays: np.ndarray) -> Task[list[np.ndarray]]:
        raise NotImplementedError

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        raise self.fail("an op with bodies infers through its node (node.infer() or model.infer_shapes()), "
                        "which hands it the body inference")

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        raise EvaluationError(f"{self.describe()}: an op with bodies runs in a model (model.run), "
                              "which hands it the body runner")


def _index_of(nodes: list[Any], layer_id: Any, what: str, op: Op, where: str) -> int:
    for i, n in enumerate(nodes):
        if n.id == layer_id:
            return i
    known = ", ".join(str(n.id) for n in nodes) or "none"
    raise op.fail(f"{where}: internal_layer_id={layer_id} is not a {what} of the body (its {what}s: {known})")


def _int(desc: dict[str, Any], key: str, op: Op, where: str) -> int:
    value = desc.get(key)
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise op.fail(f"{where}: {key}={value!r} is not an integer (description {desc})") from None


def _scalar(array: np.ndarray) -> Any:
    return np.asarray(array).reshape(-1)[0]


def _relax(a: TensorType, b: TensorType) -> TensorType:
    """The least type admitting both (dims that differ become dynamic; ranks that differ too)."""
    et = a.element_type if a.element_type == b.element_type else ElementType.dynamic
    if a.shape.rank_is_static and b.shape.rank_is_static and len(a.shape) == len(b.shape):
        dims = [x if x == y else Dimension.dynamic() for x, y in zip(a.shape.dims, b.shape.dims)]
        return TensorType(et, PartialShape(dims))
    return TensorType(et, PartialShape.dynamic())


def _branch_union(a: TensorType, b: TensorType, op: Op, index: int) -> TensorType:
    """If's output from its two branches, as OpenVINO 2026.4 unites them (measured): element types
    agree; of equal ranks, a dim static in both is kept when equal and becomes ``min..max``
    otherwise, and a dim dynamic in either (even the same interval in both) is ``?``; a scalar
    and a 1-D output give ``[?]``, other ranks a dynamic rank."""
    et = a.element_type.merge(b.element_type)
    if et is None:
        raise op.fail(f"output {index}: then_body gives {a.element_type}, else_body gives {b.element_type}")
    if a.shape.rank_is_dynamic or b.shape.rank_is_dynamic:
        return TensorType(et, PartialShape.dynamic())
    if len(a.shape) != len(b.shape):
        scalar_or_vector = len(a.shape) <= 1 and len(b.shape) <= 1
        return TensorType(et, PartialShape.dynamic(1) if scalar_or_vector else PartialShape.dynamic())
    dims = []
    for x, y in zip(a.shape.dims, b.shape.dims):
        if x.is_dynamic or y.is_dynamic:
            dims.append(Dimension.dynamic())
        else:
            dims.append(x if x == y else Dimension(min(x.min, y.min), max(x.min, y.min)))
    return TensorType(et, PartialShape(dims))


class _Slicing:
    """One sliced input or concatenated output: where iteration ``j`` reads or writes."""

    def __init__(self, desc: dict[str, Any], op: Op, where: str) -> None:
        self.axis = _int(desc, "axis", op, where)
        self.start = _int(desc, "start", op, where) if "start" in desc else 0
        self.end = _int(desc, "end", op, where) if "end" in desc else -1
        self.stride = _int(desc, "stride", op, where) if "stride" in desc else 1
        self.part_size = _int(desc, "part_size", op, where) if "part_size" in desc else 1
        if self.stride == 0 or self.part_size <= 0:
            raise op.fail(f"{where}: stride={self.stride} must be non-zero and part_size={self.part_size} positive")

    def normalized_axis(self, rank: int, op: Op, where: str) -> int:
        axis = self.axis + rank if self.axis < 0 else self.axis
        if not 0 <= axis < rank:
            raise op.fail(f"{where}: axis {self.axis} is out of range for rank {rank}")
        return axis

    def iterations(self, length: int) -> int:
        """How many parts of ``length`` the slicing visits (start and end both inclusive); none of
        a zero-size axis (OpenVINO CPU refuses to compile that, graphir runs zero iterations)."""
        if length == 0:
            return 0
        start = self.start + length if self.start < 0 else self.start
        end = self.end + length if self.end < 0 else self.end
        return (abs(end - start) + 1) // self.part_size

    def part(self, array: np.ndarray, axis: int, j: int) -> np.ndarray:
        length = array.shape[axis]
        start = self.start + length if self.start < 0 else self.start
        if self.stride > 0:
            begin = start + j * self.stride
        else:
            begin = start + j * self.stride - self.part_size + 1
        index = [slice(None)] * array.ndim
        index[axis] = slice(begin, begin + self.part_size)
        return array[tuple(index)]


# ===================================================================== TensorIterator/Loop ==
class _Iterating(_WithBodies):
    """What TensorIterator and Loop share: a body, port maps, back edges."""

    body: SkipJsonSchema[Any] = Field(None, description="the body run on every iteration")

    _check_body = field_validator("body", mode="before")(lambda cls, value: _as_body(value))
    input_descriptions: list[dict[str, Any]] = Field(default_factory=list)
    output_descriptions: list[dict[str, Any]] = Field(default_factory=list)
    back_edges: list[dict[str, Any]] = Field(default_factory=list)

    #: number of leading inputs that are not mapped into the body (Loop: trip count, condition)
    _control_inputs: ClassVar[int] = 0
    #: never fold: evaluation may be long (or unbounded, for Loop)
    foldable: ClassVar[bool] = False
    pure_infer: ClassVar[bool] = False  # the body may be edited while the inputs stay

    def num_outputs(self) -> int:
        return len({d.get("external_port_id") for d in self.output_descriptions if not self._special(d)})

    @staticmethod
    def _special(desc: dict[str, Any]) -> bool:
        return "purpose" in desc or desc.get("external_port_id") == -1

    def _body(self) -> Body:
        if self.body is None:
            raise self.fail("has no body")
        return self.body

    # --- the port map, resolved against the body ------------------------------------------
    def _inputs_map(self, n_in: int) -> list[tuple[int, int, _Slicing | None]]:
        """(outer input index, body parameter index, slicing or None) per mapped input."""
        body = self._body()
        params = body.get_parameters()
        out = []
        for k, d in enumerate(self.input_descriptions):
            if self._special(d):
                continue
            where = f"port_map input {k}"
            ext = _int(d, "external_port_id", self, where)
            if not 0 <= ext < n_in:  # Loop may feed its trip count or condition to the body too (OpenVINO reads it)
                raise self.fail(f"{where}: external_port_id={ext} is not one of its {n_in} inputs")
            index = _index_of(params, _int(d, "internal_layer_id", self, where), "Parameter", self, where)
            out.append((ext, index, _Slicing(d, self, where) if "axis" in d else None))
        return out

    def _outputs_map(self, n_in: int) -> list[tuple[int, int, _Slicing | None]]:
        """(outer output index, body result index, slicing or None) per output."""
        results = self._body().get_results()
        out = []
        count = self.num_outputs()
        for k, d in enumerate(self.output_descriptions):
            if self._special(d):
                continue
            where = f"port_map output {k}"
            ext = _int(d, "external_port_id", self, where) - n_in
            if not 0 <= ext < count:
                raise self.fail(f"{where}: external_port_id={ext + n_in} is not one of its outputs "
                                f"(ids {n_in}..{n_in + count - 1} with {n_in} inputs)")
            index = _index_of(results, _int(d, "internal_layer_id", self, where), "Result", self, where)
            out.append((ext, index, _Slicing(d, self, where) if "axis" in d else None))
        return out

    def _back_edges(self) -> list[tuple[int, int]]:
        """(body result index, body parameter index) per back edge."""
        body = self._body()
        out = []
        for k, e in enumerate(self.back_edges):
            where = f"back edge {k}"
            r = _index_of(body.get_results(), _int(e, "from-layer", self, where), "Result", self, where)
            p = _index_of(body.get_parameters(), _int(e, "to-layer", self, where), "Parameter", self, where)
            out.append((r, p))
        return out

    def _special_index(self, purpose: str, nodes: list[Any], descs: list[dict[str, Any]], what: str) -> int:
        for d in descs:
            if d.get("purpose") == purpose:
                where = f"port_map {purpose}"
                return _index_of(nodes, _int(d, "internal_layer_id", self, where), what, self, where)
        return -1

    # --- inference ------------------------------------------------------------------------
    def _infer_iterating(self, inputs: list[TensorType], iterations: int | None, ctx: BodyContext
                         ) -> Task[tuple[list[TensorType], list[TensorType]]]:
        """Infer the body (relaxing merged inputs until stable); (outer outputs, body results)."""
        body = self._body()
        n_in = len(inputs)
        params = body.get_parameters()
        param_types = [TensorType(parameter_of(p).element_type, parameter_of(p).shape) for p in params]
        for ext, index, slicing in self._inputs_map(n_in):
            t = inputs[ext]
            if slicing is not None and t.shape.rank_is_static:
                where = f"sliced input {ext}"
                axis = slicing.normalized_axis(len(t.shape), self, where)
                dims = list(t.shape.dims)
                dims[axis] = Dimension.static(slicing.part_size)
                t = TensorType(t.element_type, PartialShape(dims))
            elif slicing is not None:
                t = TensorType(t.element_type, t.shape)
            param_types[index] = t
        edges = self._back_edges()
        # a merged input changes across iterations: its initial value is no constant of the body
        for _, p in edges:
            param_types[p] = TensorType(param_types[p].element_type, param_types[p].shape)
        where = f"{self.type_name} body"
        for _ in range(_MAX_RELAX_ROUNDS):
            results = yield _infer_body(ctx, body, param_types, where)
            changed = False
            for r, p in edges:
                relaxed = _relax(results[r], param_types[p])
                if relaxed != param_types[p]:
                    param_types[p] = relaxed
                    changed = True
            if not changed:
                break
        results = yield _infer_body(ctx, body, param_types, where)
        outs: list[TensorType | None] = [None] * self.num_outputs()
        for ext, index, slicing in self._outputs_map(n_in):
            t = results[index]
            if slicing is not None and t.shape.rank_is_static:
                axis = slicing.normalized_axis(len(t.shape), self, f"concatenated output {ext}")
                dims = list(t.shape.dims)
                dims[axis] = dims[axis] * iterations if iterations is not None else Dimension.dynamic()
                t = TensorType(t.element_type, PartialShape(dims))
            else:
                t = TensorType(t.element_type, t.shape)
            outs[ext] = t
        missing = [i for i, t in enumerate(outs) if t is None]
        if missing:
            raise self.fail(f"outputs {missing} have no port_map description")
        return outs, results  # type: ignore[return-value]

    # --- evaluation -----------------------------------------------------------------------
    def _iterate(self, ctx: BodyContext, arrays: tuple[np.ndarray, ...], count: int | None, condition: bool = True
                 ) -> Task[list[np.ndarray]]:
        """Run the body ``count`` times (None: until the body condition is false)."""
        body = self._body()
        n_in = len(arrays)
        params = body.get_parameters()
        results = body.get_results()
        ins = self._inputs_map(n_in)
        outs = self._outputs_map(n_in)
        edges = self._back_edges()
        iteration_param = self._special_index("current_iteration", params, self.input_descriptions, "Parameter")
        condition_result = self._special_index("execution_condition", results, self.output_descriptions, "Result")
        current: list[Any] = [None] * len(params)
        sliced: list[tuple[int, np.ndarray, int, _Slicing]] = []
        for ext, index, slicing in ins:
            if slicing is None:
                current[index] = arrays[ext]
            else:
                axis = slicing.normalized_axis(arrays[ext].ndim, self, f"sliced input {ext}")
                sliced.append((index, arrays[ext], axis, slicing))
        collected: dict[int, list[np.ndarray]] = {ext: [] for ext, _, s in outs if s is not None}
        gathered = {ext: 0 for ext in collected}  # bytes collected so far per concatenated output
        last: list[np.ndarray] | None = None
        j = 0
        while condition and (count is None or j < count):
            for index, array, axis, slicing in sliced:
                if j >= slicing.iterations(array.shape[axis]):
                    raise EvaluationError(
                        f"{self.describe()}: iteration {j} needs part {j} of the sliced input for body "
                        f"parameter '{params[index].name}', which has only "
                        f"{slicing.iterations(array.shape[axis])} (shape {list(array.shape)}, axis {axis}, "
                        f"part_size {slicing.part_size})")
                current[index] = slicing.part(array, axis, j)
            if iteration_param >= 0:
                counter = parameter_of(params[iteration_param])
                value = np.array(j, dtype=counter.element_type.numpy_dtype)
                current[iteration_param] = value.reshape([1] * (len(counter.shape) if counter.shape.rank_is_static else 0))
            missing = [params[i].name for i, v in enumerate(current) if v is None]
            if missing:
                raise EvaluationError(f"{self.describe()}: body parameters {missing} receive no value")
            last = yield ctx.run_body(body, current)
            for ext, index, slicing in outs:
                if slicing is not None:
                    part = last[index]
                    collected[ext].append(part)
                    gathered[ext] += int(getattr(part, "nbytes", 0))
                    # the concatenation of all iterations, projected from those so far when the count is known
                    total = gathered[ext] if count is None else gathered[ext] // (j + 1) * count
                    check_bytes(total, f"concatenated output {ext} (body result {index}) after {j + 1} of "
                                       f"{count if count is not None else 'unbounded'} iterations")
            for r, p in edges:
                current[p] = last[r]
            if condition_result >= 0:
                condition = bool(_scalar(last[condition_result]))
            j += 1
        values: list[np.ndarray | None] = [None] * self.num_outputs()
        for ext, index, slicing in outs:
            if slicing is None:
                values[ext] = last[index] if last is not None else self._no_iteration_value(index, edges, current)
            else:
                parts = collected[ext][::-1] if slicing.stride < 0 else collected[ext]
                if parts:
                    values[ext] = np.concatenate(parts, axis=slicing.normalized_axis(parts[0].ndim, self, "concat"))
                else:
                    values[ext] = self._empty(index, slicing)
        return values  # type: ignore[return-value]

    def _no_iteration_value(self, index: int, edges: list[tuple[int, int]], current: list[Any]) -> np.ndarray:
        """A last-iteration output of a loop that ran zero times: the merged input's initial value."""
        for r, p in edges:
            if r == index and current[p] is not None:
                return current[p]
        t = self._body().get_results()[index].output_types[0]
        if t.shape.is_static and not t.element_type.is_dynamic:
            return np.zeros(t.shape.to_shape(), dtype=t.element_type.numpy_dtype)
        raise EvaluationError(f"{self.describe()}: ran zero iterations, so body output {index} has no value")

    def _empty(self, index: int, slicing: _Slicing) -> np.ndarray:
        t = self._body().get_results()[index].output_types[0]
        if not t.shape.rank_is_static or t.element_type.is_dynamic:
            raise EvaluationError(f"{self.describe()}: ran zero iterations; concatenated output of body "
                                  f"result {index} ({t}) has no known shape")
        dims = [d.min for d in t.shape.dims]
        dims[slicing.normalized_axis(len(dims), self, "concat")] = 0
        return np.zeros(dims, dtype=t.element_type.numpy_dtype)


class TensorIterator(_Iterating):
    """TensorIterator-1: runs the body once per part of the sliced inputs."""

    type_name: ClassVar[str] = "TensorIterator"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("inputs", variadic=True, optional=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("outputs", variadic=True),)

    def iterations(self, input_shapes: list[PartialShape]) -> int | None:
        """The number of iterations the sliced inputs give, None when a sliced dim is dynamic."""
        found: int | None = None
        for ext, _, slicing in self._inputs_map(len(input_shapes)):
            if slicing is None:
                continue
            shape = input_shapes[ext]
            if not shape.rank_is_static:
                return None
            dim = shape[slicing.normalized_axis(len(shape), self, f"sliced input {ext}")]
            if not dim.is_static:
                return None
            n = slicing.iterations(dim.get_length())
            if found is not None and n != found:
                raise self.fail(f"sliced inputs give different iteration counts ({found} and {n}; "
                                f"input {ext} has shape {shape})")
            found = n
        return found

    def infer_task(self, inputs: list[TensorType], ctx: BodyContext) -> Task[list[TensorType]]:
        outs, _ = yield self._infer_iterating(inputs, self.iterations([t.shape for t in inputs]), ctx)
        return outs  # type: ignore[no-any-return]

    def evaluate_task(self, ctx: BodyContext, *arrays: np.ndarray) -> Task[list[np.ndarray]]:
        count = self.iterations([PartialShape(list(np.shape(a))) for a in arrays])
        if count is None:
            raise EvaluationError(f"{self.describe()}: has no sliced input, so no iteration count")
        return (yield self._iterate(ctx, arrays, count))  # type: ignore[no-any-return]


class Loop(_Iterating):
    """Loop-5: runs the body while the condition holds, at most ``trip_count`` times (-1: no limit).

    Special body ports live in the port map (``purpose``); see :attr:`special_body_ports`."""

    type_name: ClassVar[str] = "Loop"
    version: ClassVar[str] = "opset5"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("trip_count", types("i32", "i64")),
        Port("execution_condition", types("boolean")),
        Port("inputs", variadic=True, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("outputs", variadic=True),)
    _control_inputs: ClassVar[int] = 2

    @property
    def special_body_ports(self) -> tuple[int, int]:
        """(current_iteration_input_idx, body_condition_output_idx), -1 where absent (as OpenVINO)."""
        body = self._body()
        return (self._special_index("current_iteration", body.get_parameters(), self.input_descriptions, "Parameter"),
                self._special_index("execution_condition", body.get_results(), self.output_descriptions, "Result"))

    def _check_scalar(self, t: TensorType, index: int) -> None:
        if t.shape.rank_is_static and (len(t.shape) > 1 or (len(t.shape) == 1 and not t.shape[0].contains(1))):
            raise self.fail(f"input {index} ('{self.inputs[index].name}') must be a scalar or [1], got {t}")

    def infer_task(self, inputs: list[TensorType], ctx: BodyContext) -> Task[list[TensorType]]:
        self.check_input_types(inputs[:2])
        self._check_scalar(inputs[0], 0)
        self._check_scalar(inputs[1], 1)
        _, condition_idx = self.special_body_ports
        if condition_idx < 0:
            raise self.fail("the body has no execution_condition output (port_map purpose)")
        # the first pass finds out whether the body condition is a constant
        _, results = yield self._infer_iterating(inputs, None, ctx)
        body_condition = self._passed_through_condition(inputs, condition_idx) or results[condition_idx]
        outs, _ = yield self._infer_iterating(inputs, self._known_iterations(inputs, body_condition), ctx)
        return outs  # type: ignore[no-any-return]

    def _passed_through_condition(self, inputs: list[TensorType], condition_idx: int) -> TensorType | None:
        """The body condition when the body hands a Parameter straight back to itself (Result ->
        back edge -> the same Parameter) and that Parameter starts from a known outer value: it
        stays that value on every iteration (OpenVINO infers loop_2d_add.xml's 3 iterations so)."""
        body = self._body()
        result = body.get_results()[condition_idx]
        source = result.inputs[0]
        params = body.get_parameters()
        if source is None or source.node not in params:
            return None
        p = params.index(source.node)
        if (condition_idx, p) not in self._back_edges():
            return None
        for ext, index, slicing in self._inputs_map(len(inputs)):
            if index == p and slicing is None and inputs[ext].value is not None:
                return inputs[ext]
        return None

    @staticmethod
    def _known_iterations(inputs: list[TensorType], body_condition: TensorType) -> int | None:
        trip, first = inputs[0].value, inputs[1].value
        if first is not None and not bool(_scalar(first)):
            return 0
        if first is None:
            return None
        cond = body_condition.value
        if cond is not None and not bool(_scalar(cond)):
            return 1
        if cond is not None and trip is not None and int(_scalar(trip)) >= 0:
            return int(_scalar(trip))
        return None

    def evaluate_task(self, ctx: BodyContext, *arrays: np.ndarray) -> Task[list[np.ndarray]]:
        trip = int(_scalar(arrays[0]))
        first = bool(_scalar(arrays[1]))
        # as OpenVINO: running out of a sliced input's parts before the loop ends is an error
        return (yield self._iterate(ctx, arrays, trip if trip >= 0 else None, first))  # type: ignore[no-any-return]


# ======================================================================================= If ==
class If(_WithBodies):
    """If-8: runs ``then_body`` when ``cond`` is true, else ``else_body``."""

    type_name: ClassVar[str] = "If"
    version: ClassVar[str] = "opset8"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("cond", types("boolean")),
        Port("inputs", variadic=True, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("outputs", variadic=True),)
    foldable: ClassVar[bool] = False
    pure_infer: ClassVar[bool] = False  # the bodies may be edited while the inputs stay

    then_body: SkipJsonSchema[Any] = None
    else_body: SkipJsonSchema[Any] = None

    _check_bodies = field_validator("then_body", "else_body", mode="before")(lambda cls, value: _as_body(value))
    then_input_descriptions: list[dict[str, Any]] = Field(default_factory=list)
    then_output_descriptions: list[dict[str, Any]] = Field(default_factory=list)
    else_input_descriptions: list[dict[str, Any]] = Field(default_factory=list)
    else_output_descriptions: list[dict[str, Any]] = Field(default_factory=list)

    def num_outputs(self) -> int:
        ids = {d.get("external_port_id") for d in self.then_output_descriptions + self.else_output_descriptions}
        return len(ids)

    def _branch(self, which: str) -> tuple[Body, list[dict[str, Any]], list[dict[str, Any]]]:
        body = getattr(self, f"{which}_body")
        if body is None:
            raise self.fail(f"has no {which}_body")
        return body, getattr(self, f"{which}_input_descriptions"), getattr(self, f"{which}_output_descriptions")

    def _maps(self, which: str, n_in: int) -> tuple[Body, list[tuple[int, int]], list[tuple[int, int]]]:
        """The branch body, (outer input, body parameter) pairs, (outer output, body result) pairs."""
        body, ins, outs = self._branch(which)
        params, results = body.get_parameters(), body.get_results()
        in_map, out_map = [], []
        for k, d in enumerate(ins):
            where = f"{which}_port_map input {k}"
            ext = _int(d, "external_port_id", self, where)
            if not 1 <= ext < n_in:
                raise self.fail(f"{where}: external_port_id={ext} is not one of its data inputs 1..{n_in - 1}")
            in_map.append((ext, _index_of(params, _int(d, "internal_layer_id", self, where), "Parameter", self, where)))
        count = self.num_outputs()
        for k, d in enumerate(outs):
            where = f"{which}_port_map output {k}"
            ext = _int(d, "external_port_id", self, where) - n_in
            if not 0 <= ext < count:
                raise self.fail(f"{where}: external_port_id={ext + n_in} is not one of its outputs "
                                f"(ids {n_in}..{n_in + count - 1} with {n_in} inputs)")
            out_map.append((ext, _index_of(results, _int(d, "internal_layer_id", self, where), "Result", self, where)))
        if len(out_map) != count:
            raise self.fail(f"{which}_body maps {len(out_map)} of its {count} outputs")
        return body, in_map, out_map

    def _infer_branch(self, which: str, inputs: list[TensorType], ctx: BodyContext) -> Task[list[TensorType]]:
        body, in_map, out_map = self._maps(which, len(inputs))
        params = body.get_parameters()
        param_types = [TensorType(parameter_of(p).element_type, parameter_of(p).shape) for p in params]
        for ext, index in in_map:
            param_types[index] = inputs[ext]
        results = yield _infer_body(ctx, body, param_types, f"If {which}_body")
        outs: list[TensorType] = [results[0]] * self.num_outputs()
        for ext, index in out_map:
            outs[ext] = results[index]
        return outs

    def infer_task(self, inputs: list[TensorType], ctx: BodyContext) -> Task[list[TensorType]]:
        self.check_input_types(inputs[:1])
        cond = inputs[0]
        if cond.shape.rank_is_static and len(cond.shape) > 1:  # OpenVINO 2026.4 checks the rank only ([0], [2] pass)
            raise self.fail(f"Rank of If condition input must be equal to 0 or 1, got {cond}")
        then_types = yield self._infer_branch("then", inputs, ctx)
        else_types = yield self._infer_branch("else", inputs, ctx)
        if cond.value is not None:
            chosen = then_types if bool(_scalar(cond.value)) else else_types
            return [TensorType(t.element_type, t.shape, t.value) for t in chosen]
        return [_branch_union(a, b, self, i) for i, (a, b) in enumerate(zip(then_types, else_types))]

    def evaluate_task(self, ctx: BodyContext, *arrays: np.ndarray) -> Task[list[np.ndarray]]:
        which = "then" if bool(_scalar(arrays[0])) else "else"
        body, in_map, out_map = self._maps(which, len(arrays))
        args: list[Any] = [None] * len(body.get_parameters())
        for ext, index in in_map:
            args[index] = arrays[ext]
        missing = [body.get_parameters()[i].name for i, a in enumerate(args) if a is None]
        if missing:
            raise EvaluationError(f"{self.describe()}: {which}_body parameters {missing} receive no input")
        results = yield ctx.run_body(body, args)
        values: list[np.ndarray] = [results[0]] * self.num_outputs()
        for ext, index in out_map:
            values[ext] = results[index]
        return values

