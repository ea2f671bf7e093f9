"""Topological order of nodes without networkx: importing networkx costs more than most
commands, and ordering is all that reading, inferring and running a model need."""
from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphir.node import Node


def lexicographic_order(nodes: Mapping[int, "Node"]) -> list[int] | None:
    """Node ids in topological order, the smallest ready id first (networkx's
    ``lexicographical_topological_sort`` keyed by id); None when the graph has a cycle.
    Every input counts as one edge, so a node fed twice by the same output waits for it once."""
    for nid, node in nodes.items():
        for src in node.inputs:
            if src is not None and src.node.id >= nid:
                break
        else:
            continue
        break
    else:  # every input comes from a smaller id (files usually number layers so): ids in order
        return sorted(nodes)
    waiting: dict[int, int] = {}
    consumers: dict[int, list[int]] = {}
    for nid, node in nodes.items():
        count = 0
        for src in node.inputs:
            if src is not None:
                count += 1
                consumers.setdefault(src.node.id, []).append(nid)
        waiting[nid] = count
    ready = [nid for nid, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        nid = heapq.heappop(ready)
        order.append(nid)
        for dst in consumers.get(nid, ()):
            waiting[dst] -= 1
            if waiting[dst] == 0:
                heapq.heappush(ready, dst)
    return order if len(order) == len(nodes) else None
