"""``Model``: a graph that owns its nodes, with one version.

The connections live on the nodes (``node.inputs``) and each node keeps its uses, as in OpenVINO
and torch.fx; a node belongs to one model (a body is a model of its own). Every mutation made
through the node and model API moves the model's :attr:`~Model.version` on (an edit inside a body
moves the version of the model holding it too); the order, the networkx view (:attr:`Model.graph`:
node id -> attribute ``node``, edges ``(src_id, dst_id)`` carrying ``src_port`` and ``dst_port``),
the inferred types and run plans remember the version they were made for.
"""
from __future__ import annotations

import copy
import heapq
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphir.errors import GraphError, GraphirError
from graphir.node import Node, Output, _as_output, _link, _unlink
from graphir.ops.openvino.core import Parameter, Result
from graphir.toposort import lexicographic_order

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

    from graphir.interpreter import RunResult
    from graphir.request import InferRequest
    from graphir.variables import Variable


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
        inferred: bool = False,
        restored: bool = False,
    ) -> None:
        """``inferred``: every node's types are already what inference from its inputs gives (a
        reader that inferred each node as it built it); a reshape may then start from them.
        ``restored``: the nodes were made by ``Node._restore`` (a reader): their inputs are
        recorded as uses when first needed."""
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
        self._sinks: list[Node] = list(dict.fromkeys(
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
                self._collect([p])
            listed = {p.id for p in self._parameters}
            for n in self._nodes.values():
                if isinstance(n.op, Parameter) and n.id not in listed:
                    raise GraphError(
                        f"{n.describe()} is used by the graph but is not in the model's parameters"
                    )
        self._types_whole = inferred
        if restored:
            self._unlinked: "list[Node] | None" = list(self._nodes.values())

    # --- construction helpers ---------------------------------------------------------------
    @staticmethod
    def _as_result(value: "Output | Node") -> Node:
        """A Result as is (node or its output); any other output gets a new Result."""
        node = value.node if isinstance(value, Output) else value
        if isinstance(node, Node) and isinstance(node.op, Result):
            return node
        return Node(Result(), [_as_output(value)])

    def _check_joinable(self, node: Node) -> None:
        """A GraphError when ``node`` belongs to another model (a node has one owner)."""
        owner = node._owner
        if owner is not None:
            other = owner()
            if other is not None and other is not self:
                which = "another model named" if other.name == self.name else "model"
                raise GraphError(
                    f"{node.describe()} belongs to {which} '{other.name}'; a node belongs to one model: "
                    f"use model.clone() (or node.copy()) to put a copy of it into model '{self.name}'")

    def _collect(self, roots: Iterable[Node]) -> None:
        """Take ``roots`` and every node upstream of them not yet here; a GraphError for a node
        another live model owns (nothing is taken then)."""
        nodes = self._nodes
        impure = self._impure
        ref = self._ref
        found: list[Node] = []
        holds_bodies = _HOLDS_BODIES
        stack = list(roots)
        pop, push, take = stack.pop, stack.append, found.append
        try:
            while stack:
                node = pop()
                nid = node.id
                known = nodes.get(nid)
                if known is node:
                    continue
                if known is not None:
                    raise GraphError(
                        f"two nodes share id {nid}: {known.describe()} and {node.describe()}; ids read "
                        f"from a file (IR layer ids) may repeat those of nodes built before reading it"
                    )
                if node._owner is not None:
                    self._check_joinable(node)
                nodes[nid] = node
                node._owner = ref
                take(node)
                op = node._op
                cls = type(op)
                if not cls.pure_infer:
                    impure.append(node)
                holds = holds_bodies.get(cls)
                if holds is None:
                    holds = _may_hold_bodies(cls)
                if holds:
                    for _, body in named_bodies(op):
                        body._holder = node
                for src in node.inputs:
                    if src is not None:
                        push(src.node)
        except GraphError:
            for node in found:  # nothing taken
                del nodes[node.id]
                node._owner = None
            impure[:] = [n for n in impure if n._owner is ref]
            raise

    def _init_state(self) -> None:
        self._version = 0
        self._ref = weakref.ref(self)  # what each node owned by this model points to
        #: the node whose op holds this model as a body (its model moves on when this one does)
        self._holder: Node | None = None
        self._validated = -1  # the version validate() last passed at
        self._dirty: set[Node] = set()  # nodes whose inputs or op changed since their types were inferred
        self._sinks = []  # set by __init__ from its arguments (see the class docstring)
        #: True when every node's types are what inference from its inputs gives (those edits
        #: touched wait in _dirty): after infer_shapes or a reshape, and after reading an IR file
        #: (its reader infers every layer). Then a reshape re-infers only what the new input shapes
        #: reach. False for a model put together from nodes (one built with ``infer=False`` has
        #: placeholder types) and while an inference is under way or failed.
        self._types_whole = False
        #: nodes whose op must re-infer even when its inputs are unchanged (``pure_infer`` False:
        #: opaque layers, ops with bodies), kept by _collect; removed nodes are skipped on use
        self._impure: list[Node] = []
        #: derived from the structure, each with the version it was made for
        self._graph: "tuple[int, nx.MultiDiGraph] | None" = None
        self._order: "tuple[int, list[Node]] | None" = None
        #: values derived from the model by the layers above (the run plan), each with the version
        #: it was made for (see derived); dropped when types are re-inferred
        self._derived: dict[str, tuple[int, Any]] = {}
        self._position: "tuple[list[Node], dict[int, int]] | None" = None  # see _positions
        #: nodes made by Node._restore whose inputs are not yet recorded as uses (see _link_restored)
        self._unlinked = None
        self._lock = threading.RLock()  # held while a run plan is built (requests in several threads)
        #: (version, Parameter types) of this body's last inference (graphir.inference.infer_body)
        self._inferred: "tuple[int, list[Any]] | None" = None

    def _invalidate(self) -> None:
        """Forget everything derived from the structure (order, graph, run plan)."""
        self._graph = None
        self._order = None
        self._derived.clear()

    def derived(self, key: str, build: "Callable[[], Any]") -> Any:
        """A value derived from the model (the runtime's run plan under ``"plan"``): made by
        ``build()`` for the current version, kept until the version moves (or types are
        re-inferred), and made once when requests in several threads ask at the same time."""
        entry = self._derived.get(key)
        if entry is not None and entry[0] == self._version:
            return entry[1]
        with self._lock:
            entry = self._derived.get(key)
            if entry is None or entry[0] != self._version:
                value = build()
                entry = self._derived[key] = (self._version, value)
        return entry[1]

    @property
    def _plan(self) -> Any:
        """The current run plan, if one was made (for tests and benchmarks that inspect it)."""
        entry = self._derived.get("plan")
        return entry[1] if entry is not None and entry[0] == self._version else None

    @property
    def version(self) -> int:
        """How many edits the model (and the bodies in it) has seen; everything derived from it
        (order, networkx view, inferred types, run plans) remembers the version it was made for."""
        return self._version

    def _touch(self, *edited: Node) -> None:
        """An edit: move the version on, note the nodes to re-infer; the model holding this one as
        a body moves on too (its node with the body re-infers)."""
        self._version += 1
        self._derived.clear()
        if edited:
            self._dirty.update(edited)
        holder = self._holder
        if holder is not None:
            outer = holder.model
            if outer is not None:
                op = holder._op
                if any(body is self for _, body in named_bodies(op)):
                    outer._touch(holder)
                else:
                    self._holder = None

    def _inputs_changed(self, node: Node) -> None:
        """``node``'s inputs changed (Node.set_input): upstream nodes new to the model join it."""
        self._collect([src.node for src in node.inputs if src is not None and src.node.id not in self._nodes])
        self._touch(node)

    def _op_replaced(self, node: Node, old: Any) -> None:
        """``node.op`` was replaced (an attribute edit): bodies it holds point back to it."""
        op = node._op
        if not op.pure_infer and node not in self._impure:
            self._impure.append(node)
        for _, body in named_bodies(op):
            body._holder = node
        self._touch(node)
        self._keep_structure(self._version - 1)

    def _keep_structure(self, before: int) -> None:
        """An edit that changed no connection (an op replaced, a Parameter retyped): the order and
        the networkx view made at version ``before`` hold at the new version too."""
        if self._order is not None and self._order[0] == before:
            self._order = (self._version, self._order[1])
        if self._graph is not None and self._graph[0] == before:
            self._graph = (self._version, self._graph[1])
        if self._validated == before:
            self._validated = self._version

    def _link_restored(self) -> None:
        """Record the inputs of the nodes a reader restored as uses of their producers (once)."""
        if self._unlinked is None:
            return
        restored, self._unlinked = self._unlinked, None
        for node in restored or ():
            if node._owner is self._ref:
                _link(node)

    def readers_of(self, node_id: int) -> list[Node]:
        """The nodes of this model with an input fed by node ``node_id`` (each once), from its uses."""
        if self._unlinked is not None:
            self._link_restored()
        node = self._nodes.get(node_id)
        users = node._users if node is not None else None
        if not users:
            return []
        ref = self._ref
        found: dict[int, Node] = {}
        for k in range(0, len(users), 2):
            user = users[k]
            if user._owner is ref:
                found[id(user)] = user
        return list(found.values())

    def set_parameter_type(self, node: Node, element_type: Any = None, shape: Any = None, *,
                           edit: bool = True) -> None:
        """Give a Parameter of this model a new element type and/or shape (None: keep). ``edit``
        (reshape): the version moves on; ``edit=False``: the types a body's Parameters receive
        while the op holding it infers (derived state, not an edit). Nothing is re-inferred here."""
        op = node._op
        if not isinstance(op, Parameter) or self._nodes.get(node.id) is not node:
            raise GraphError(f"{node.describe()} is not a Parameter of model '{self.name}'")
        changes = {}
        if element_type is not None and element_type != op.element_type:
            changes["element_type"] = element_type
        if shape is not None and shape != op.shape:
            changes["shape"] = shape
        if changes:
            node._op = op.with_attributes(**changes)
        if edit:
            self._version += 1
            self._derived.clear()
            self._keep_structure(self._version - 1)
            holder = self._holder
            if holder is not None and holder.model is not None:
                holder.model._touch(holder)

    # --- what the inference pass records (graphir.inference) ------------------------------
    def _types_inferring(self) -> list[Node]:
        """A whole-model inference starts: pending edits are its business now; returns the nodes
        that must re-infer though their inputs stay (``pure_infer`` False)."""
        self._derived.clear()
        self._dirty = set()
        self._types_whole = False
        nodes = self._nodes
        return [node for node in self._impure if nodes.get(node.id) is node]

    def _types_inferred(self) -> None:
        """Every node's types are what inference from its inputs gives (at this version)."""
        self._types_whole = True

    def types_are_whole(self) -> bool:
        """Whether every node's types are what inference from its inputs gives, with no edit
        pending: a reshape then re-infers only what the new input shapes reach."""
        return self._types_whole and not self._dirty

    def has_impure_nodes(self) -> bool:
        """Whether some node re-infers though its inputs stay (opaque layers, ops with bodies)."""
        nodes = self._nodes
        return any(nodes.get(n.id) is n for n in self._impure)

    def inferred_for(self, input_types: Sequence[Any], same: Any) -> bool:
        """Whether this body's types are those of its last inference, given ``input_types``
        (compared with ``same``) at this version."""
        inferred = self._inferred
        return (inferred is not None and inferred[0] == self._version and not self._dirty
                and len(inferred[1]) == len(input_types)
                and all(same(a, b) for a, b in zip(inferred[1], input_types)))

    def note_inferred_types(self, input_types: list[Any]) -> None:
        """This body was just inferred from ``input_types`` (see :meth:`inferred_for`)."""
        self._inferred = (self._version, input_types)
        self._derived.clear()  # its plan was built for the types before

    def forget_inferred_types(self) -> None:
        self._inferred = None
        self._derived.clear()

    def _settle_types(self) -> None:
        """Re-infer the nodes edits touched and everything downstream of them, before a type is
        read (``Output.tensor_type``). A failure leaves the edit pending: run, infer_shapes and
        save report it; a read in the middle of a series of edits must not."""
        if not self._dirty:
            return
        try:
            self._infer_dirty()
        except GraphirError:
            pass

    def _infer_dirty(self) -> None:
        """Re-infer the nodes edits touched and everything downstream of them (in topological order);
        an InferenceError names the first inconsistent node."""
        if not self._dirty:
            return
        from graphir.inference import fold_node, foldable, same_types

        redo = self._dirty
        self._dirty = set()  # types read below are ours (no re-entry)
        position = self._positions()
        ready = [(position[node.id], node.id, node) for node in redo if self._nodes.get(node.id) is node]
        heapq.heapify(ready)
        queued = {entry[1] for entry in ready}
        try:  # in topological order, from the edited nodes along their uses while types change: O(what changes)
            while ready:
                _, _, node = heapq.heappop(ready)
                before = node.output_types
                types_ = node.infer()
                if foldable(node):
                    fold_node(node, types_)
                if node in redo or not same_types(before, node.output_types):
                    for reader in self.readers_of(node.id):
                        if reader.id not in queued:
                            queued.add(reader.id)
                            heapq.heappush(ready, (position[reader.id], reader.id, reader))
        except BaseException:
            self._dirty = redo
            raise
        self._derived.clear()

    def _positions(self) -> dict[int, int]:
        """Node id -> its place in the topological order (made with the order, kept with it)."""
        order = self.get_ordered_ops()
        cached = self._position
        if cached is None or cached[0] is not order:
            cached = self._position = (order, {node.id: i for i, node in enumerate(order)})
        return cached[1]

    def roots(self) -> list[Node]:
        """What liveness starts from: the Results, then :attr:`sinks` (nodes kept though no Result
        reads them, as OpenVINO keeps an Assign), then nodes with no outputs (they exist for their
        effect: oneDNN Graph's End). Nodes no root reaches are dead: not run, not saved."""
        roots = list(self._results)
        seen = {r.id for r in roots}
        for node in list(self._sinks) + [n for n in self._nodes.values() if not n.output_types]:
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
        """The model as a networkx MultiDiGraph: node id -> attribute ``node``; edges carry
        src_port/dst_port. Derived from the nodes, made again when the version has moved (edit
        through the node and model API, not through this view)."""
        cached = self._graph
        if cached is not None and cached[0] == self._version:
            return cached[1]
        if True:
            import networkx as nx  # deferred: an import costs ~0.1-0.6 s, most calls never need it

            g = nx.MultiDiGraph()
            for nid, node in self._nodes.items():
                g.add_node(nid, node=node)
            for node in self._nodes.values():
                for dst_port, src in enumerate(node.inputs):
                    if src is not None:
                        g.add_edge(src.node.id, node.id, src_port=src.index, dst_port=dst_port)
            self._graph = (self._version, g)
        return g

    def get_parameters(self) -> list[Node]:
        return list(self._parameters)

    def get_results(self) -> list[Node]:
        return list(self._results)

    def get_sinks(self) -> list[Node]:
        return list(self._sinks)

    @property
    def sinks(self) -> list[Node]:
        """Nodes kept though no Result reads them (a copy; assign a list to change them: an edit)."""
        return list(self._sinks)

    @sinks.setter
    def sinks(self, value: "Sequence[Output | Node]") -> None:
        new = [_node_of(s, "sink") for s in value]
        self._collect(new)
        self._sinks = list(dict.fromkeys(new))
        self._touch(*new)

    def add_sinks(self, sinks: "Sequence[Output | Node]") -> None:
        """Keep these nodes (and what feeds them) though no Result reads them."""
        new = [_node_of(s, "sink") for s in sinks]
        self._collect(new)
        self._sinks.extend(n for n in new if n not in self._sinks)
        self._touch(*new)

    @property
    def variables(self) -> "list[Variable]":
        """The variables the model's ReadValue/Assign nodes read and write (id, element type, partial
        shape), in topological order; a GraphError when an Assign has no ReadValue or a declaration
        conflicts (see :mod:`graphir.variables`)."""
        from graphir.variables import model_variables

        return list(model_variables(self.get_ordered_ops(), f"model '{self.name}'", self._sinks).values())

    def get_variables(self) -> "list[Variable]":
        """OpenVINO's spelling of :attr:`variables`."""
        return self.variables

    def create_infer_request(self, *, numerics: str = "reference") -> "InferRequest":
        """A request with its own variable state and run scratch (OpenVINO's
        ``CompiledModel.create_infer_request``); ``numerics``: see :meth:`run`."""
        return _request(self, numerics)

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
        cached = self._order
        if cached is not None and cached[0] == self._version:
            return cached[1]
        if True:
            order = lexicographic_order(self._nodes)
            if order is None:
                import networkx as nx

                cycle = nx.find_cycle(self.graph)
                names = " -> ".join(self._nodes[e[0]].describe() for e in cycle)
                raise GraphError(f"model '{self.name}' has a cycle: {names}")
            ordered = [self._nodes[nid] for nid in order]
            self._order = (self._version, ordered)
        return ordered

    topological_order = get_ordered_ops

    def consumers(self, output: Output) -> list[tuple[Node, int]]:
        """Every (node, input index) of this model fed by ``output``: O(uses)."""
        if self._nodes.get(output.node.id) is not output.node:
            raise GraphError(f"{output.node.describe()} is not in model '{self.name}'")
        return output.uses()

    uses = consumers

    def producer(self, node: Node, index: int) -> Output | None:
        return node.inputs[index] if index < len(node.inputs) else None

    # --- editing ----------------------------------------------------------------------------
    def add_node(self, node: Node) -> Node:
        """Take ``node`` (and what feeds it) into this model; a GraphError when another owns it."""
        self._collect([node])
        self._touch(node)
        return node

    def replace_all_uses_with(self, old: Output, new: "Output | Node") -> int:
        """Re-point every consumer of ``old`` to ``new`` (``new``'s own node keeps reading ``old``);
        returns how many inputs changed. O(uses of ``old``); the re-pointed consumers and what
        follows them re-infer lazily."""
        if self._nodes.get(old.node.id) is not old.node:
            raise GraphError(f"{old.node.describe()} is not in model '{self.name}'")
        replacement = _as_output(new)
        assert replacement is not None
        self._check_joinable(replacement.node)
        return old.replace_all_uses_with(replacement)

    def remove_node(self, node: Node) -> None:
        """Remove a node no one uses; a GraphError naming the uses while something consumes it.
        The node leaves the model (it may join another) and stops counting as a use of its inputs."""
        if self._nodes.get(node.id) is not node:
            raise GraphError(f"{node.describe()} is not in model '{self.name}'")
        if self._unlinked is not None:
            self._link_restored()
        users = node.uses()
        if users:
            raise GraphError(
                f"cannot remove {node.describe()}: still used by "
                + ", ".join(f"{n.describe()} input {i}" for n, i in users)
            )
        del self._nodes[node.id]
        node._owner = None
        _unlink(node)
        self._results = [r for r in self._results if r is not node]
        self._parameters = [p for p in self._parameters if p is not node]
        self._sinks = [s for s in self._sinks if s is not node]
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
        Parameter listed, and the types edits touched re-inferred (an InferenceError names the
        first inconsistent node). A model that passed at this version passes again without the checks."""
        if self._dirty:
            self._infer_dirty()
        if self._validated == self._version:
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
        """Propagate element types and partial shapes through the whole graph (see
        graphir.inference); the one shape-inference entry point (``reshape`` sets input shapes
        and infers what they reach). An InferenceError names the first inconsistent node."""
        _infer_shapes(self)

    def reshape(self, shapes: Any) -> None:
        """Set Parameter shapes (OpenVINO's ``Model.reshape``) and re-infer."""
        _reshape(self, shapes)

    def run(self, inputs: Any = None, *, numerics: str = "reference", progress: bool | None = None,
            max_tensor_bytes: "int | None" = None) -> "dict[str, np.ndarray]":
        """Run on numpy inputs: a fresh request's ``infer`` (see :class:`graphir.request.InferRequest`);
        {result tensor name: array} in Result order. Stateless: every call starts from each
        variable's initial value and forgets what its Assigns wrote (a request made with
        :meth:`create_infer_request` carries state from one call to the next). ``numerics``:
        "reference" (each op's spec semantics, the same bits on every host) or "openvino-cpu"."""
        return _run_fresh(self, inputs, numerics, progress, max_tensor_bytes)

    def profile(self, inputs: Any = None, *, numerics: str = "reference",
                max_tensor_bytes: "int | None" = None) -> "RunResult":
        """Run like :meth:`run` and time each node: a RunResult with the outputs and a per-node profile."""
        return _request(self, numerics).profile(inputs, max_tensor_bytes=max_tensor_bytes)

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
        model = Model.__new__(Model)
        model._init_state()
        ref = model._ref
        for node in self.get_ordered_ops():
            op = node._op
            bodies = named_bodies(op)
            if bodies:  # the op with its bodies replaced by their clones
                op = copy.deepcopy(op, {id(body): clones[id(body)] for _, body in bodies})
            inputs = [None if s is None else Output(mapping[s.node.id], s.index) for s in node.inputs]
            clone = Node._restore(op, inputs, node.name, node.id, list(node.output_types))
            clone._output_names = None if node._output_names is None else [set(n) for n in node._output_names]
            clone.rt_info = copy.deepcopy(node.rt_info)
            clone.extra = copy.deepcopy(node.extra)
            clone._owner = ref
            for _, body in named_bodies(op):
                body._holder = clone
            mapping[node.id] = clone
        model.name = self.name
        model.rt_info = copy.deepcopy(self.rt_info)
        model.meta = copy.deepcopy(self.meta)
        model._nodes = {nid: mapping[nid] for nid in self._nodes}
        model._results = [mapping[r.id] for r in self._results]
        model._parameters = [mapping[p.id] for p in self._parameters]
        model._impure = [n for n in model._nodes.values() if not n.op.pure_infer]
        model._sinks = [mapping[s.id] for s in self._sinks if s.id in mapping]
        model._types_whole = self._types_whole and not self._dirty
        model._unlinked = list(model._nodes.values())  # made by Node._restore: uses recorded when first needed
        model._dirty = {mapping[n.id] for n in self._dirty if n.id in mapping}
        return model

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        for key in ("_ref", "_derived", "_graph", "_order", "_lock", "_position"):
            state.pop(key, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling: the copy owns its nodes (they were pickled with it)."""
        self.__dict__.update(state)
        self._ref = ref = weakref.ref(self)
        self._graph = self._order = self._position = None
        self._derived = {}
        self._lock = threading.RLock()
        for node in self._nodes.values():
            node._owner = ref

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


_HOLDS_BODIES: dict[type, bool] = {}


def _may_hold_bodies(cls: type) -> bool:
    """Whether ops of ``cls`` may hold bodies (ops with bodies, opaque layers with children):
    asked per class, never per op (a missing attribute on a pydantic instance is slow to miss)."""
    known = _HOLDS_BODIES.get(cls)
    if known is None:
        known = _HOLDS_BODIES[cls] = bool(getattr(cls, "has_bodies", False)
                                          or "children" in getattr(cls, "model_fields", {}))
    return known


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


from graphir.request import InferRequest as _request, run_fresh as _run_fresh  # noqa: E402 - after Model; the runtime imports model only for types
from graphir.inference import infer_shapes as _infer_shapes, reshape as _reshape  # noqa: E402 - likewise


def _node_of(value: "Output | Node", role: str = "Parameter") -> Node:
    if isinstance(value, Output):
        return value.node
    if isinstance(value, Node):
        return value
    raise GraphError(f"expected a {role} node or its output, got {type(value).__name__}")
