"""Shape/type propagation over a whole model, OpenVINO-style ``reshape``, and constant folding.

Each node re-infers from its inputs in topological order (``Node.infer`` names the node and its
input types in any error). Small constants carry their values (``TensorType.value``); ops that
know how propagate values themselves, and where an op did not, a node whose inputs all have known
values is evaluated here when its result is small — as OpenVINO's shape inference does — so that
value-dependent shapes (ShapeOf -> Gather -> Concat -> Reshape) resolve to static shapes.

Ops with subgraph bodies (TensorIterator, Loop, If) call :func:`infer_body` from their ``infer``:
strict inference reaches into the bodies and an error there names the inner node, wrapped by the
outer node's description.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.errors import GraphirError, InferenceError, InputError, ShapeError, UnsupportedOpError
from graphir.ops.base import TensorType, same_type
from graphir.ops.openvino.core import FOLDABLE_CONSTANT_SIZE, Constant, Parameter, Result, parameter_of
from graphir.shapes import Dimension, PartialShape
from graphir.trampoline import Task, drive

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node, Output

#: boundary ops: never folded here (Constant and Result carry values themselves)
_NOT_FOLDED = (Parameter, Constant, Result)


def infer_shapes(model: "Model", *, fold: bool = True, recorded_opaque: bool = False) -> list["Node"]:
    """Re-infer every node in topological order; the first inconsistency raises an
    InferenceError naming the node and its input types. ``fold``: evaluate nodes whose inputs
    all have known values (and whose result is small) when the op's infer left the value out.

    ``recorded_opaque``: an opaque layer (an op graphir does not implement) keeps the output types
    its file recorded as long as its inputs are what the file recorded too; otherwise (or without
    the flag) it raises UnsupportedOpError. Returns the opaque layers that kept recorded types.
    (A node whose inputs are the types its last inference saw gives what it gave then: see
    ``Node.infer``.)
    """
    model._types_inferring()
    kept: list[Node] = []
    for node in model.get_ordered_ops():
        _infer_node(node, fold, recorded_opaque, kept)
    model._types_inferred()
    return kept


def _infer_node(node: "Node", fold: bool, recorded_opaque: bool, kept: list["Node"]) -> list[TensorType]:
    """Infer ``node`` (and fold it); an opaque layer that keeps its recorded types joins ``kept``.
    Returns the node's output types."""
    try:
        types_ = node.infer()
    except UnsupportedOpError:
        if not recorded_opaque or not _keeps_recorded(node):
            raise
        kept.append(node)
        return node.output_types
    if fold and not isinstance(node.op, _NOT_FOLDED) and fold_node(node, types_):
        return node.output_types
    return types_


def _infer_reached(model: "Model", changed: Sequence["Node"], *, recorded_opaque: bool = False) -> list["Node"]:
    """Re-infer ``changed`` (nodes without inputs whose attributes changed: reshaped Parameters)
    and what their new types reach, in topological order; a node whose outputs come out the same
    stops the walk there. Only for a model whose other types are all inferred from their inputs
    (``model._types_whole`` and nothing in ``model._dirty``): inference is a function of a node's
    attributes and input types, so the rest would infer what it has. Ops that are not
    (``pure_infer`` False: opaque layers, ops with bodies) re-infer every time. Same errors and
    result as :func:`infer_shapes`; a reshape to the shapes the inputs have costs next to nothing."""
    kept: list[Node] = []
    reached: list[Node] = model._types_inferring()
    for node in changed:
        before = node.output_types
        _infer_node(node, True, recorded_opaque, kept)
        if not same_types(before, node.output_types):
            reached += model.readers_of(node.id)
    if reached:
        # one walk along the topological order, re-inferring the nodes marked as reached (a set
        # lookup per node costs less than keeping a heap of positions for what a reshape reaches)
        marked = {node.id for node in reached}
        for node in changed:
            marked.discard(node.id)
        readers_of = model.readers_of
        for node in model.get_ordered_ops():
            if node.id not in marked:
                continue
            before = node.output_types
            after = _infer_node(node, True, recorded_opaque, kept)
            if len(before) == len(after):
                for a, b in zip(before, after):
                    if a is not b and not same_type(a, b):
                        break
                else:
                    continue  # the same outputs: what reads them stays as it is
            for reader in readers_of(node.id):
                marked.add(reader.id)
    model._types_inferred()
    return kept


def same_types(old: Sequence[TensorType], new: Sequence[TensorType]) -> bool:
    """Whether two output type lists are the same for every consumer (see ``same_type``)."""
    return len(old) == len(new) and all([a is b or same_type(a, b) for a, b in zip(old, new)])


def _keeps_recorded(node: "Node") -> bool:
    """Whether an opaque node's inputs match the types its file recorded (so its outputs hold)."""
    recorded_in = getattr(node.op, "recorded_inputs", None)
    recorded_out = getattr(node.op, "recorded_outputs", None)
    if recorded_in is None or recorded_out is None:
        return False
    current = [src.node.output_types[src.index] for src in node.inputs if src is not None]
    if len(current) != len(recorded_in) or any(
        a.element_type != b.element_type or a.shape != b.shape for a, b in zip(current, recorded_in)
    ):
        return False
    node.output_types = list(recorded_out)
    return True


def foldable(node: "Node") -> bool:
    """Whether inference may fold ``node`` (boundary ops carry or receive values themselves)."""
    return not isinstance(node.op, _NOT_FOLDED)


def fold_node(node: "Node", types_: list[TensorType] | None = None) -> bool:
    """Evaluate ``node`` on its inputs' known values and attach the results as output values.

    Only when every input value is known, some output value is not, the op is runnable and the
    results are at most FOLDABLE_CONSTANT_SIZE elements. A failing evaluate folds nothing (the
    node's infer already accepted the types; evaluation is an optimisation here). Where the
    evaluated shape is more precise than the inferred one (value-dependent shapes), it wins.
    Returns whether values were attached.
    """
    if types_ is None:
        types_ = node.output_types
    for src in node.inputs:  # the common case first: some input value is unknown
        if src is not None and src.node.output_types[src.index].value is None:
            return False
    inputs = [src.node.output_types[src.index] for src in node.inputs if src is not None]
    folded = fold_types(node, inputs, types_)
    if folded is None:
        return False
    node.output_types = folded
    return True


def fold_types(node: "Node", inputs: Sequence[TensorType], types_: list[TensorType]) -> list[TensorType] | None:
    """``types_`` with the values of ``node`` evaluated on ``inputs``' known values (see
    :func:`fold_node`), or None when nothing folds. The node is not changed."""
    args = []
    for t in inputs:
        if t.value is None:
            return None
        args.append(t.value)
    if not args:
        return None  # a node without inputs (e.g. a random generator) is not a constant
    if not types_ or all(t.value is not None for t in types_):
        return None
    op = node.op
    if not type(op).runnable or not type(op).foldable:
        return None
    try:
        with np.errstate(all="ignore"):
            outs = op.evaluate(*(np.asarray(a) for a in args))
    except RecursionError:
        raise
    except Exception:  # noqa: BLE001 - folding is best effort; infer already validated the node
        return None
    if len(outs) < len(types_):
        return None
    folded: list[TensorType] = []
    for t, out in zip(types_, outs):
        array = np.asarray(out)
        if array.size > FOLDABLE_CONSTANT_SIZE or not t.shape.compatible_with_shape(array.shape):
            return None
        shape = t.shape if t.shape.is_static else PartialShape(list(array.shape))
        folded.append(TensorType(t.element_type, shape, array))
    return folded


def infer_for_inputs(model: "Model", input_types: Sequence[TensorType], nodes: Sequence["Node"] | None = None,
                     ) -> dict[tuple[int, int], TensorType]:
    """Every output type of ``model`` when its Parameters receive ``input_types`` (in Parameter
    order), without changing the model or its bodies: what a run on inputs of those shapes meets,
    node by node (the runtime calls it once per new signature of a request's inputs; requests in
    other threads may be running the same bodies meanwhile). ``nodes``: the nodes to infer, in
    topological order (default: all). The first inconsistency raises an InferenceError naming
    that node and its input types. An op with bodies infers on a private copy of its bodies."""
    types: dict[tuple[int, int], TensorType] = {}
    for param, t in zip(model.get_parameters(), input_types):
        types[(param.id, 0)] = t
    for node in model.get_ordered_ops() if nodes is None else nodes:
        op = node.op
        if isinstance(op, Parameter):
            continue
        if isinstance(op, Constant):
            types[(node.id, 0)] = node.output_types[0]
            continue
        inputs = [types[(s.node.id, s.index)] for s in node.inputs if s is not None]
        out = (node._types_for(inputs, run=True, op=_with_private_bodies(op), ctx=INFER_CONTEXT) if op.has_bodies
               else node._types_for(inputs, run=True))
        if not isinstance(op, Result):
            out = fold_types(node, inputs, out) or out
        for i, t in enumerate(out):
            types[(node.id, i)] = t
    return types


def _with_private_bodies(op: Any) -> Any:
    """``op`` with each body replaced by a clone (the clones' inference changes only them)."""
    from graphir.model import Model

    bodies = {name: value for name, value in op.__dict__.items() if isinstance(value, Model)}
    return op.model_copy(update={name: body.clone() for name, body in bodies.items()})


class InferContext:
    """What the inference pass hands an op with bodies (graphir.ops.base.BodyContext)."""

    def infer_body(self, body: "Model", types: list[TensorType], where: str) -> Task[list[TensorType]]:
        return infer_body_task(body, types, where=where)

    def run_body(self, body: "Model", args: list[Any]) -> Any:
        raise InferenceError(f"{where_of(body)}: shape inference does not run bodies")


def where_of(body: "Model") -> str:
    return f"body '{body.name}'"


#: the one context inference hands ops with bodies (it holds no state)
INFER_CONTEXT = InferContext()


def infer_body(body: "Model", input_types: Sequence[TensorType], *, where: str = "body") -> list[TensorType]:
    """Infer a subgraph body given the types its Parameters receive; returns its Result types.

    The body's Parameters take the given element types and shapes (values are kept, so folding
    reaches into bodies); any inconsistency raises an InferenceError that names ``where`` and the
    inner node. Ops with bodies (TensorIterator, Loop, If) yield :func:`infer_body_task` from their
    ``infer_task`` instead, so nested bodies infer without nested calls.
    """
    return drive(infer_body_task(body, input_types, where=where))


def infer_body_task(body: "Model", input_types: Sequence[TensorType], *, where: str = "body") -> Task[list[TensorType]]:
    """:func:`infer_body` as a task (graphir.trampoline): a node with bodies in the body yields its
    ``infer_task``. A body given the types of its last inference, at the same version (an edit
    inside it or a body nested in it moves it), is not inferred again: a Loop infers its body
    several times per inference, and Loops nested n deep would infer the innermost 4^n times."""
    params = body.get_parameters()
    if len(input_types) != len(params):
        raise InferenceError(f"{where}: has {len(params)} parameters, given {len(input_types)} input types")
    if body.inferred_for(input_types, _same_input):
        return [r.output_types[0] for r in body.get_results()]
    for param, t in zip(params, input_types):  # the outer op's inference sets them: not an edit of the body
        body.set_parameter_type(param, t.element_type, t.shape, edit=False)
        param.output_types = [TensorType(t.element_type, t.shape, t.value)]
    try:
        for node in body.get_ordered_ops():
            if isinstance(node.op, Parameter):
                continue
            types_ = (yield node.infer_task(INFER_CONTEXT)) if node.op.has_bodies else node.infer()
            if not isinstance(node.op, _NOT_FOLDED):
                fold_node(node, types_)
    except InferenceError as exc:
        raise InferenceError(f"{where}: {exc}") from None
    body.note_inferred_types(list(input_types))
    return [r.output_types[0] for r in body.get_results()]


def mark_body_inferred(body: "Model") -> None:
    """Note that every node of ``body`` was just inferred from its Parameters' own types (the IR
    reader builds bodies innermost first, inferring each node as it is built): the next
    :func:`infer_body` given those same types, with no edit in between, takes the types as they
    are instead of inferring the body again, so reading bodies nested hundreds deep does not
    infer every level again."""
    body.note_inferred_types([p.output_types[0] for p in body.get_parameters()])


def _same_input(a: TensorType, b: TensorType) -> bool:
    return (a.element_type == b.element_type and a.shape == b.shape and a.value is b.value
            and a.bounds is b.bounds)


def find_parameter(model: "Model", key: Any) -> "Node":
    """A Parameter by friendly name, tensor name, index or Output/Node handle."""
    from graphir.node import Node, Output

    params = model.get_parameters()
    if isinstance(key, (Output, Node)):
        node = key.node if isinstance(key, Output) else key
        if any(p is node for p in params):
            return node
        raise InputError(f"model '{model.name}': {node.describe()} is not one of its inputs")
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        if -len(params) <= key < len(params):
            return params[int(key)]
        raise InputError(f"model '{model.name}' has {len(params)} inputs; input index {key} is out of range")
    for p in params:
        if p.name == key:
            return p
    for p in params:
        if key in p.output_names[0]:
            return p
    known = ", ".join(f"'{p.name}'" for p in params) or "none"
    raise InputError(f"model '{model.name}' has no input {key!r} (inputs: {known})")


def _parse_shape(node: "Node", shape: Any) -> PartialShape:
    try:
        return PartialShape.parse(shape)
    except (ShapeError, ValueError, TypeError) as exc:
        raise InputError(f"reshape of input '{node.name}': {exc}") from None


def _is_single_shape(shapes: Any) -> bool:
    """A shape (string, PartialShape, or a list of dims) rather than a list of shapes."""
    if isinstance(shapes, (str, PartialShape)):
        return True
    if not isinstance(shapes, Sequence):
        return False
    for d in shapes:
        if isinstance(d, (int, np.integer, Dimension)):
            continue
        if not isinstance(d, str):
            return False
        try:
            Dimension.parse(d)
        except (ShapeError, ValueError):
            return False
    return True


def reshape(model: "Model", shapes: Any, *, recorded_opaque: bool = False) -> list["Node"]:
    """Set Parameter shapes and re-infer (OpenVINO's ``Model.reshape``).

    ``shapes``: a mapping from input (friendly name, tensor name, index or Output) to a shape
    (``"[8,64]"``, ``"?,3"``, ``"1..10,3"``, a list, or a PartialShape); or one shape, when the
    model has one input; or a list of shapes in Parameter order. If re-inference fails, the old
    shapes are restored (as OpenVINO does) and the error, naming the first inconsistent layer, is
    raised. ``recorded_opaque``: see :func:`infer_shapes`; returns the opaque layers that kept
    their recorded types.
    """
    params = model.get_parameters()
    if isinstance(shapes, Mapping):
        items = []
        for key, shape in shapes.items():
            node = find_parameter(model, key)
            items.append((node, _parse_shape(node, shape)))
    elif _is_single_shape(shapes):
        if len(params) != 1:
            raise InputError(
                f"model '{model.name}' has {len(params)} inputs "
                f"({', '.join(repr(p.name) for p in params)}); give reshape a mapping of name -> shape"
            )
        items = [(params[0], _parse_shape(params[0], shapes))]
    elif isinstance(shapes, Sequence):
        if len(shapes) != len(params):
            raise InputError(f"model '{model.name}' has {len(params)} inputs; reshape got {len(shapes)} shapes")
        items = [(p, _parse_shape(p, s)) for p, s in zip(params, shapes)]
    else:
        raise InputError(f"model '{model.name}': reshape takes a shape, a list of shapes or a mapping "
                         f"of input -> shape, got {type(shapes).__name__}")
    old = [(p, parameter_of(p).shape) for p in params]
    incremental = model.types_are_whole()
    if incremental:  # an input given the shape it has changes nothing (OpenVINO's reshape skips it too)
        items = [(node, shape) for node, shape in items if parameter_of(node).shape != shape]
        if not items and not model.has_impure_nodes():
            return []
    for node, shape in items:  # an edit: the version moves on; inference below re-infers what it reaches
        model.set_parameter_type(node, shape=shape, edit=True)
    try:
        if incremental:
            return _infer_reached(model, [node for node, _ in items], recorded_opaque=recorded_opaque)
        return infer_shapes(model, recorded_opaque=recorded_opaque)
    except GraphirError:
        for node, shape in old:
            model.set_parameter_type(node, shape=shape, edit=False)
        try:
            infer_shapes(model, recorded_opaque=recorded_opaque)
        except GraphirError:  # pragma: no cover - the model was consistent before
            pass
        raise
