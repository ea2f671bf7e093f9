"""``Model``: a graph of nodes over a ``networkx.MultiDiGraph``.

Graph nodes are keyed by node id (attribute ``node`` holds the :class:`Node`); an edge
``(src_id, dst_id)`` carries ``src_port`` (output index) and ``dst_port`` (input index). The
connections themselves live on the nodes (``node.inputs``), as in OpenVINO; the networkx view is
rebuilt from them on demand and is what ordering, cycle checks and consumer queries use.
"""
from __future__ import annotations

import contextlib
import copy
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from graphir import node as _node_module
from graphir.errors import GraphError, GraphirError
from graphir.node import Node, Output, _as_output
from graphir.ops import base as _ops_base
from graphir.ops.openvino.core import Parameter, Result
from graphir.toposort import lexicographic_order

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

    from graphir.interpreter import RunResult
    from graphir.request import InferRequest
    from graphir.variables import Variable, VariableStore


#: every Model alive in the process: an edit on a node (``Node.set_input``) finds the models that
#: hold it here, so nodes need no back references (and reading a file pays nothing for them)
_LIVE: "weakref.WeakSet[Model]" = weakref.WeakSet()


#: how many edits any model has seen (a body's inference is remembered while this stays: an edit
#: inside a body nested in the body moves only the inner body's own version)
edits = 0


def models_holding(node: Node) -> "list[Model]":
    """The live models that hold ``node`` (usually one; none for a node not placed in a model)."""
    return [m for m in list(_LIVE) if m._nodes.get(node.id) is node]


@contextlib.contextmanager
def quiet_edits() -> Iterator[None]:
    """Attribute assignments graphir makes itself while inferring (a body's Parameter types) are
    not user edits: no model moves its version for them."""
    listener = _ops_base.attribute_listener
    _ops_base.attribute_listener = None
    try:
        yield
    finally:
        _ops_base.attribute_listener = listener


class Model:
    """An inference graph: Parameters in, Results out, nodes between.

    Every edit (``Node.set_input``, ``replace_all_uses_with``, ``add_node``, ``remove_node``,
    ``add_results``, ``reshape``...) moves :attr:`version` on. The run plan and the inferred types
    remember the version they were built for and are rebuilt when it moved, so an edited model
    never runs or saves its old graph; the nodes an edit touched, and those downstream of them,
    re-infer lazily (on the next read of a type, run, ``infer_shapes`` or save).

    ``sinks``: nodes kept though no Result reads them (OpenVINO's ``get_sinks()``: the Assigns of a
    stateful model). Any sink op reached through ``results``/``nodes`` joins them too. Their
    variables are :attr:`variables`; their values live in an :class:`~graphir.request.InferRequest`.
    """

    def __init__(
        self,
        results: "Sequence[Output | Node] | Output | Node",
        parameters: "Sequence[Output | Node] | None" = None,
        name: str = "Model",
        *,
        nodes: Iterable[Node] = (),
        rt_info: Mapping[str, Any] | None = None,
        sinks: "Sequence[Output | Node]" = (),
    ) -> None:
        if isinstance(results, (Output, Node)):
            results = [results]
        self.name = name
        self.rt_info: dict[str, Any] = dict(rt_info or {})
        self.meta: dict[str, Any] = {}  # serializer data kept for round trips (IR version, ...)
        self._init_state()
        self._results: list[Node] = [self._as_result(r) for r in results]
        given_sinks = [_node_of(s, "sink") for s in sinks]
        extra = list(nodes)
        self._nodes: dict[int, Node] = {}
        self._collect(self._results + given_sinks + extra)
        self.sinks: list[Node] = list(dict.fromkeys(
            given_sinks + sorted((n for n in self._nodes.values() if type(n.op).sink), key=lambda n: n.id)))
        if parameters is None:
            self._parameters = sorted(
                (n for n in self._nodes.values() if isinstance(n.op, Parameter)), key=lambda n: n.id
            )
        else:
            self._parameters = [_node_of(p, "Parameter") for p in parameters]
            seen: set[int] = set()
            for p in self._parameters:
                if not isinstance(p.op, Parameter):
                    raise GraphError(f"{p.describe()} is given as a parameter but is not a Parameter")
                if p.id in seen:
                    raise GraphError(f"{p.describe()} is given twice in the model's parameters")
                seen.add(p.id)
                self._nodes.setdefault(p.id, p)
            listed = {p.id for p in self._parameters}
            for n in self._nodes.values():
                if isinstance(n.op, Parameter) and n.id not in listed:
                    raise GraphError(
                        f"{n.describe()} is used by the graph but is not in the model's parameters"
                    )
        self._invalidate()

    # --- construction helpers ---------------------------------------------------------------
    @staticmethod
    def _as_result(value: "Output | Node") -> Node:
        """A Result as is (node or its output); any other output gets a new Result."""
        node = value.node if isinstance(value, Output) else value
        if isinstance(node, Node) and isinstance(node.op, Result):
            return node
        return Node(Result(), [_as_output(value)])

    def _collect(self, roots: Iterable[Node]) -> None:
        nodes = self._nodes
        impure = self._impure
        stack = list(roots)
        pop, push = stack.pop, stack.append
        while stack:
            node = pop()
            known = nodes.get(node.id)
            if known is node:
                continue
            if known is not None:
                raise GraphError(
                    f"two nodes share id {node.id}: {known.describe()} and {node.describe()}; ids read "
                    f"from a file (IR layer ids) may repeat those of nodes built before reading it"
                )
            nodes[node.id] = node
            if not node.op.pure_infer:
                impure.append(node)
            for src in node.inputs:
                if src is not None:
                    push(src.node)

    def _init_state(self) -> None:
        self._version = 0
        self._validated = -1  # the version validate() last passed at (with the order kept since)
        self._dirty: set[Node] = set()  # nodes whose inputs changed since their types were inferred
        self.sinks = []  # set by __init__ from its arguments (see the class docstring)
        self._op_index: dict[int, Node] | None = None
        #: True when every node's types are known to be what inference from its inputs gives
        #: (those edits touched wait in _dirty): after infer_shapes or a reshape, and after
        #: reading an IR file (its reader infers every layer). Then a reshape re-infers only what
        #: the new input shapes reach. False for a model put together from nodes (one built with
        #: ``infer=False`` has placeholder types) and while an inference is under way or failed.
        self._types_whole = False
        #: nodes whose op must re-infer even when its inputs are unchanged (``pure_infer`` False:
        #: opaque layers, ops with bodies), kept by _collect; removed nodes are skipped on use
        self._impure: list[Node] = []
        #: per structure: node id -> the nodes reading it (built on first use, see consumers_of)
        self._readers: dict[int, list[Node]] | None = None
        _LIVE.add(self)

    def _invalidate(self) -> None:
        """Forget everything derived from the structure (order, graph, run plan)."""
        self._graph: nx.MultiDiGraph | None = None
        self._order: list[Node] | None = None
        self._wired: list[list[Output | None]] | None = None  # the inputs the order was made for
        self._plan: Any = None
        self._readers = None

    @property
    def version(self) -> int:
        """How many edits the model has seen; run plans and inferred types are rebuilt when it moves."""
        return self._version

    def _touch(self, *edited: Node) -> None:
        """An edit: move the version on, drop the derived structure, and note the nodes to re-infer."""
        global edits
        edits += 1
        self._version += 1
        self._invalidate()
        if edited:
            self._dirty.update(edited)
            if self not in _node_module._pending_types:
                _node_module._pending_types.append(self)

    def readers_of(self, node_id: int) -> list[Node]:
        """The nodes with an input fed by node ``node_id`` (an index per structure, built on first use)."""
        readers = self._readers
        if readers is None:
            readers = {}
            for node in self._nodes.values():
                for src in node.inputs:
                    if src is not None:
                        found = readers.get(src.node.id)
                        if found is None:
                            readers[src.node.id] = [node]
                        elif found[-1] is not node:
                            found.append(node)
            self._readers = readers
        return readers.get(node_id, [])

    def _touch_inputs(self) -> None:
        """The Parameters' shapes changed (a reshape): the version moves on and the run plan is
        dropped; the structure (order, graph) stays what it is."""
        global edits
        edits += 1
        self._version += 1
        self._plan = None

    def _node_of_op(self, op: Any) -> Node | None:
        """The node holding ``op`` (an index by op identity, built on first use after a change)."""
        index = self._op_index
        if index is None or len(index) != len(self._nodes):
            index = self._op_index = {id(n.op): n for n in self._nodes.values()}
        node = index.get(id(op))
        if node is None or node.op is not op or self._nodes.get(node.id) is not node:
            return None
        return node

    def _node_edited(self, node: Node) -> None:
        """``node``'s inputs changed on the node itself: upstream nodes new to the model join it."""
        self._collect([src.node for src in node.inputs if src is not None and src.node.id not in self._nodes])
        self._touch(node)

    def ensure_types(self) -> None:
        """Re-infer the nodes edits touched and everything downstream of them (in topological order);
        an InferenceError names the first inconsistent node. Run, infer_shapes and save call it."""
        if not self._dirty:
            return
        from graphir.inference import fold_node, foldable

        pending = _node_module._pending_types
        if self in pending:
            pending.remove(self)
        hook, _node_module._flush_types = _node_module._flush_types, None  # types read below are ours
        try:
            redo = set(self._dirty)
            changed: set[int] = set()
            for node in self.get_ordered_ops():
                if node not in redo and not any(s is not None and s.node.id in changed for s in node.inputs):
                    continue
                types_ = node.infer()
                if foldable(node):
                    fold_node(node, types_)
                changed.add(node.id)
        finally:
            _node_module._flush_types = hook
        self._dirty.clear()
        self._plan = None

    def roots(self) -> list[Node]:
        """What liveness starts from: the Results, then :attr:`sinks` (nodes kept though no Result
        reads them, as OpenVINO keeps an Assign), then nodes with no outputs (they exist for their
        effect: oneDNN Graph's End). Nodes no root reaches are dead: not run, not saved."""
        roots = list(self._results)
        seen = {r.id for r in roots}
        for node in list(self.sinks) + [n for n in self._nodes.values() if not n.output_types]:
            if node.id not in seen:
                seen.add(node.id)
                roots.append(node)
        return roots

    def live_nodes(self) -> list[Node]:
        """The nodes some root reaches, and every Parameter, in topological order."""
        live: set[int] = {p.id for p in self._parameters}
        stack = self.roots()
        while stack:
            node = stack.pop()
            if node.id in live and not isinstance(node.op, Parameter):
                continue
            live.add(node.id)
            stack.extend(src.node for src in node.inputs if src is not None and src.node.id not in live)
        return [n for n in self.get_ordered_ops() if n.id in live]

    # --- structure --------------------------------------------------------------------------
    @property
    def graph(self) -> nx.MultiDiGraph:
        """The networkx view: node id -> attribute ``node``; edges carry src_port/dst_port."""
        if self._graph is None:
            import networkx as nx  # deferred: an import costs ~0.1-0.6 s, most calls never need it

            g = nx.MultiDiGraph()
            for nid, node in self._nodes.items():
                g.add_node(nid, node=node)
            for node in self._nodes.values():
                for dst_port, src in enumerate(node.inputs):
                    if src is not None:
                        g.add_edge(src.node.id, node.id, src_port=src.index, dst_port=dst_port)
            self._graph = g
        return self._graph

    def get_parameters(self) -> list[Node]:
        return list(self._parameters)

    def get_results(self) -> list[Node]:
        return list(self._results)

    def get_sinks(self) -> list[Node]:
        return list(self.sinks)

    def add_sinks(self, sinks: "Sequence[Output | Node]") -> None:
        """Keep these nodes (and what feeds them) though no Result reads them."""
        new = [_node_of(s, "sink") for s in sinks]
        self._collect(new)
        self.sinks.extend(n for n in new if n not in self.sinks)
        self._touch(*new)

    @property
    def variables(self) -> "list[Variable]":
        """The variables the model's ReadValue/Assign nodes read and write (id, element type, partial
        shape), in topological order; a GraphError when an Assign has no ReadValue or a declaration
        conflicts (see :mod:`graphir.variables`)."""
        from graphir.variables import model_variables

        return list(model_variables(self.get_ordered_ops(), f"model '{self.name}'", self.sinks).values())

    def get_variables(self) -> "list[Variable]":
        """OpenVINO's spelling of :attr:`variables`."""
        return self.variables

    def create_infer_request(self, numerics: str = "reference") -> "InferRequest":
        """A request with its own variable state (OpenVINO's ``CompiledModel.create_infer_request``),
        computing under the numerics profile ``numerics`` (graphir.numerics)."""
        from graphir.request import InferRequest

        return InferRequest(self, numerics=numerics)

    @property
    def parameters(self) -> list[Node]:
        return list(self._parameters)

    @property
    def results(self) -> list[Node]:
        return list(self._results)

    @property
    def inputs(self) -> list[Output]:
        return [p.output(0) for p in self._parameters]

    @property
    def outputs(self) -> list[Output]:
        """The Results' outputs (their types mirror what they receive)."""
        return [r.output(0) for r in self._results]

    def input(self, key: "int | str" = 0) -> Output:
        """A Parameter's output by index or by friendly/tensor name (OpenVINO's ``Model.input``)."""
        return self._port(self._parameters, key, "input")

    def output(self, key: "int | str" = 0) -> Output:
        """A Result's output by index or by friendly/tensor name (OpenVINO's ``Model.output``)."""
        return self._port(self._results, key, "output")

    def _port(self, nodes: list[Node], key: "int | str", kind: str) -> Output:
        if isinstance(key, int):
            if not -len(nodes) <= key < len(nodes):
                raise GraphError(f"model '{self.name}' has {len(nodes)} {kind}s; no {kind} {key}")
            return nodes[key].output(0)
        for n in nodes:
            src = n.inputs[0] if kind == "output" and n.inputs else None
            if n.name == key or key in n.output_names[0] or (src is not None and key in src.names):
                return n.output(0)
        known = ", ".join(n.name for n in nodes)
        raise GraphError(f"model '{self.name}' has no {kind} named '{key}' ({kind}s: {known})")

    def node(self, key: "int | str") -> Node:
        """A node by id or by friendly name."""
        if isinstance(key, int) and key in self._nodes:
            return self._nodes[key]
        matches = [n for n in self._nodes.values() if n.name == key]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise GraphError(f"model '{self.name}' has no node {key!r}")
        raise GraphError(f"model '{self.name}' has {len(matches)} nodes named {key!r}; use an id")

    def nodes(self) -> list[Node]:
        return list(self._nodes.values())

    def __len__(self) -> int:
        return len(self._nodes)

    def get_ordered_ops(self) -> list[Node]:
        """Nodes in topological order (computed once per structure); a cycle is a GraphError."""
        if self._order is None:
            order = lexicographic_order(self._nodes)
            if order is None:
                import networkx as nx

                cycle = nx.find_cycle(self.graph)
                names = " -> ".join(self._nodes[e[0]].describe() for e in cycle)
                raise GraphError(f"model '{self.name}' has a cycle: {names}")
            self._order = [self._nodes[nid] for nid in order]
            self._wired = self._wiring()
        return self._order

    topological_order = get_ordered_ops

    def consumers(self, output: Output) -> list[tuple[Node, int]]:
        """Every (node, input index) fed by ``output``."""
        if self._nodes.get(output.node.id) is not output.node:
            raise GraphError(f"{output.node.describe()} is not in model '{self.name}'")
        g = self.graph
        found = []
        for _, dst, data in g.out_edges(output.node.id, data=True):
            if data["src_port"] == output.index:
                found.append((self._nodes[dst], data["dst_port"]))
        return sorted(found, key=lambda x: (x[0].id, x[1]))

    uses = consumers

    def producer(self, node: Node, index: int) -> Output | None:
        return node.inputs[index] if index < len(node.inputs) else None

    # --- editing ----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Edits are tracked on their own; this re-reads the structure for writes straight into a
        ``node.inputs`` list: newly connected upstream nodes join, and the cached order, graph and
        run plan are dropped when the inputs differ from those they were made for (kept
        otherwise: a save validates, and re-sorting every time cost ~10% of a save)."""
        new = [src.node for n in list(self._nodes.values()) for src in n.inputs
               if src is not None and src.node.id not in self._nodes]
        if new or self._wired is None or self._wired != self._wiring():
            self._collect(new)
            self._invalidate()

    def _wiring(self) -> list[list["Output | None"]]:
        """Every node's inputs (copies of the lists; compared by identity first, so cheaply)."""
        return [list(n.inputs) for n in self._nodes.values()]

    def add_node(self, node: Node) -> Node:
        self._collect([node])
        self._touch(node)
        return node

    def replace_all_uses_with(self, old: Output, new: Output) -> int:
        """Re-point every consumer of ``old`` to ``new``; returns how many inputs changed. The
        re-pointed consumers and what follows them re-infer lazily."""
        count = 0
        self._collect([new.node])
        edited = []
        for node in self._nodes.values():
            for i, src in enumerate(node.inputs):
                if src == old and node is not new.node:
                    node.inputs[i] = new
                    count += 1
                    edited.append(node)
        self._touch(*edited)
        return count

    def remove_node(self, node: Node) -> None:
        """Remove a node no one uses; a GraphError naming the uses while something consumes it."""
        users = [c for o in node.outputs() for c in self.consumers(o)]
        if users:
            raise GraphError(
                f"cannot remove {node.describe()}: still used by "
                + ", ".join(f"{n.describe()} input {i}" for n, i in users)
            )
        if self._nodes.get(node.id) is not node:
            raise GraphError(f"{node.describe()} is not in model '{self.name}'")
        del self._nodes[node.id]
        self._results = [r for r in self._results if r is not node]
        self._parameters = [p for p in self._parameters if p is not node]
        self.sinks = [s for s in self.sinks if s is not node]
        self._dirty.discard(node)
        self._touch()

    def add_results(self, outputs: "Sequence[Output | Node]") -> list[Node]:
        new = [self._as_result(o) for o in outputs]
        self._results.extend(new)
        self._collect(new)
        self._touch(*new)
        return new

    # --- checks -----------------------------------------------------------------------------
    def validate(self) -> None:
        """Every required input connected once, ports in range, ids unique, no cycle, every
        Parameter listed. Re-reads the structure first (see :meth:`refresh`); a model that
        passed at this version, with its wiring unchanged, passes again without the checks."""
        self.refresh()
        if self._validated == self._version and self._order is not None:
            return
        listed = {p.id for p in self._parameters}
        for node in self._nodes.values():
            if isinstance(node.op, Parameter) and node.id not in listed:
                raise GraphError(f"{node.describe()} is in model '{self.name}' but not in its parameters")
            low, high = node.op.input_count_range()
            connected = len(node.inputs)
            if connected < low or (high is not None and connected > high):
                expected = f"{low}" if low == high else f"{low} to {high if high is not None else 'any'}"
                raise GraphError(f"{node.describe()}: expects {expected} inputs, has {connected}")
            for i, src in enumerate(node.inputs):
                if src is None:
                    if i < low or not node.op.input_port(i).optional:
                        raise GraphError(f"{node.describe()}: required input {i} ('{node.op.input_port(i).name}') is not connected")
                    continue
                if src.node.id not in self._nodes:
                    raise GraphError(f"{node.describe()}: input {i} comes from {src.node.describe()}, which is not in the model")
                if not 0 <= src.index < len(src.node.output_types):
                    raise GraphError(
                        f"{node.describe()}: input {i} comes from output {src.index} of "
                        f"{src.node.describe()}, which has {len(src.node.output_types)} outputs"
                    )
        self.get_ordered_ops()
        # a ClassVar: read on the class (a missing attribute on a pydantic instance is slow to miss)
        if any(type(n.op).stateful for n in self._nodes.values()):
            self.variables  # noqa: B018 - the variables' pairing rules (a GraphError names the node)
        self._validated = self._version

    # --- inference, running, copying --------------------------------------------------------
    def infer_shapes(self) -> None:
        """Propagate element types and partial shapes through the graph (see graphir.inference)."""
        from graphir.inference import infer_shapes

        infer_shapes(self)

    validate_nodes_and_infer_types = infer_shapes

    def reshape(self, shapes: Any) -> None:
        """Set Parameter shapes (OpenVINO's ``Model.reshape``) and re-infer."""
        _reshape(self, shapes)  # imported once below, as _run

    @overload
    def run(self, inputs: Any = None, *, profile: Literal[False] = False, progress: bool | None = None,
            state: "VariableStore | None" = None, max_tensor_bytes: "int | None" = None,
            numerics: str = "reference") -> "dict[str, np.ndarray]": ...
    @overload
    def run(self, inputs: Any = None, *, profile: Literal[True], progress: bool | None = None,
            state: "VariableStore | None" = None, max_tensor_bytes: "int | None" = None,
            numerics: str = "reference") -> "RunResult": ...
    @overload
    def run(self, inputs: Any = None, *, profile: bool, progress: bool | None = None,
            state: "VariableStore | None" = None, max_tensor_bytes: "int | None" = None,
            numerics: str = "reference") -> "dict[str, np.ndarray] | RunResult": ...

    def run(self, inputs: Any = None, *, profile: bool = False, progress: bool | None = None,
            state: "VariableStore | None" = None, max_tensor_bytes: "int | None" = None,
            numerics: str = "reference") -> "dict[str, np.ndarray] | RunResult":
        """Run on numpy inputs; see :func:`graphir.interpreter.run` (``profile=True``: a RunResult
        with the outputs and a per-node profile). Stateless: every call starts from each
        variable's initial value and forgets what its Assigns wrote (use
        :meth:`create_infer_request` to carry state from one call to the next). ``numerics``: the
        numerics profile, "reference" (spec semantics, the same bits on every host) or
        "openvino-cpu" (OpenVINO CPU's arithmetic and orders; docs/numerics.md)."""
        return _run(self, inputs, profile=profile, progress=progress, state=state, max_tensor_bytes=max_tensor_bytes,
                    numerics=numerics)  # imported once below: an import per call costs ~2-15 us

    def clone(self) -> "Model":
        """A deep copy: new nodes with equal ops, names, ids and connections; constants shared.
        Bodies are cloned innermost first (no recursion, however deep they nest)."""
        clones: dict[int, Model] = {}
        for model in reversed(nested_models(self)):
            clones[id(model)] = model._clone_alone(clones)
        return clones[id(self)]

    def _clone_alone(self, clones: "dict[int, Model]") -> "Model":
        """This model copied, its nodes' bodies taken from ``clones`` (by id of the original)."""
        mapping: dict[int, Node] = {}
        for node in self.get_ordered_ops():
            clone = Node.__new__(Node)
            clone.id, clone.name = node.id, node.name
            memo = {id(body): clones[id(body)] for _, body in named_bodies(node.op)}
            clone.op = copy.deepcopy(node.op, memo)
            clone.inputs = [None if s is None else Output(mapping[s.node.id], s.index) for s in node.inputs]
            clone.output_types = list(node.output_types)
            clone._memo = None
            clone.output_names = [set(n) for n in node.output_names]
            clone.rt_info = copy.deepcopy(node.rt_info)
            clone.extra = copy.deepcopy(node.extra)
            mapping[node.id] = clone
        model = Model.__new__(Model)
        model.name = self.name
        model.rt_info = copy.deepcopy(self.rt_info)
        model.meta = copy.deepcopy(self.meta)
        model._nodes = {nid: mapping[nid] for nid in self._nodes}
        model._results = [mapping[r.id] for r in self._results]
        model._parameters = [mapping[p.id] for p in self._parameters]
        model._init_state()
        model._impure = [n for n in model._nodes.values() if not n.op.pure_infer]
        model.sinks = [mapping[s.id] for s in self.sinks if s.id in mapping]
        model._invalidate()
        return model

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling: the copy is a live model too (edits on its nodes find it)."""
        self.__dict__.update(state)
        _LIVE.add(self)

    def draw(self, format: str = "svg", **options: Any) -> str:
        """The model laid out by Graphviz's dot: an SVG document (or ``format="html"``, the
        interactive page); options as :func:`graphir.drawing.draw` (``dialect``, ``profile``)."""
        from graphir.drawing import draw

        return draw(self, format, **options)

    def _repr_svg_(self) -> str | None:
        """Jupyter: the drawing (None when no layout engine is at hand: Jupyter shows the repr)."""
        from graphir.drawing import LayoutError

        try:
            return self.draw("svg")
        except LayoutError:
            return None

    def _repr_html_(self) -> str | None:
        """Jupyter: the interactive page in an isolated frame (its styles and script stay inside)."""
        from html import escape

        from graphir.drawing import LayoutError

        try:
            page = self.draw("html")
        except LayoutError:
            return None
        return (f'<iframe srcdoc="{escape(page, quote=True)}" title="{escape(self.name or "model")}" '
                'style="width:100%;height:600px;border:1px solid #cfd6df"></iframe>')

    __deepcopy__ = lambda self, memo: self.clone()  # noqa: E731

    def __reduce__(self) -> Any:
        """Pickled as its IR or oneDNN JSON file, without recursion (graphir.serializers.pickling)."""
        from graphir.serializers.pickling import reduce_model

        return reduce_model(self)
    copy = clone

    def __repr__(self) -> str:
        ins = ", ".join(f"{p.name}: {p.output_types[0]}" for p in self._parameters)
        outs = ", ".join(str(r.output_types[0]) for r in self._results)
        return f"<Model '{self.name}' ({ins}) -> ({outs}), {len(self._nodes)} nodes>"


def named_bodies(op: Any) -> "list[tuple[str, Model]]":
    """(field or child name, body) for each subgraph of an op (If/Loop/TensorIterator fields, an
    opaque layer's children), in field order."""
    items = list(op.attributes().items()) + list((getattr(op, "children", None) or {}).items())
    return [(name, value) for name, value in items if isinstance(value, Model)]


def nested_models(model: Model) -> list[Model]:
    """``model`` and every body in it at any depth, outermost first (walked without recursion)."""
    order = [model]
    i = 0
    while i < len(order):
        for node in order[i].nodes():
            order.extend(body for _, body in named_bodies(node.op))
        i += 1
    return order


from graphir.interpreter import run as _run  # noqa: E402 - after Model; interpreter does not import model
from graphir.inference import reshape as _reshape  # noqa: E402 - inference imports model only inside functions


def _notify_edit(node: Node) -> None:
    for model in models_holding(node):
        model._node_edited(node)


def _flush_pending_types() -> None:
    """Bring every edited model's types up to date before a type is read (``Output.tensor_type``).
    A failure leaves the edit pending: run, infer_shapes and save report it; a read in the middle
    of a series of edits must not."""
    pending = _node_module._pending_types
    _node_module._flush_types = None  # no re-entry while inferring
    try:
        while pending:
            model = pending.pop()
            try:
                model.ensure_types()
            except GraphirError:
                pass
    finally:
        _node_module._flush_types = _flush_pending_types


def _notify_attribute(op: Any) -> None:
    for model in list(_LIVE):
        node = model._node_of_op(op)
        if node is not None:
            model._touch(node)


_node_module._edit_listener = _notify_edit
_ops_base.attribute_listener = _notify_attribute
_node_module._flush_types = _flush_pending_types


def _node_of(value: "Output | Node", role: str = "Parameter") -> Node:
    if isinstance(value, Output):
        return value.node
    if isinstance(value, Node):
        return value
    raise GraphError(f"expected a {role} node or its output, got {type(value).__name__}")
