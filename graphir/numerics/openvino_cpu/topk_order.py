"""The order OpenVINO's CPU plugin gives TopK's results among equal values (and NaN).

The plugin (``src/plugins/intel_cpu/src/nodes/topk.cpp``, x86-64 JIT kernels) picks one of four
sorts per node, and each leaves equal values in its own order:

* **bubble**: the first ``k`` items bubble-sorted, then every further item inserted from the back.
  A swap happens only when the right item is strictly better, so equal values keep their input
  order (a stable sort). Used when ``k <= 6`` on a static-shape node, for ``stable`` TopK-11, and
  for a dynamic-shape node whose axis is not the innermost one.
* **horizontal** (``k == 1`` on the innermost axis of a static node): 16 lanes (AVX-512; lane ``l``
  sees items ``l, l+16, ...``) keep their first best item, the lanes are reduced pairwise
  ``(l, l+4)``, ``(l+8, l+12)``, ``(l, l+8)``, ``(0, 1)``, ``(2, 3)``, ``(0, 2)`` keeping the left
  one among equals, then the items past the last full block of 16 are compared one by one.
* **heap** (innermost axis, ``k > 6`` or a dynamic node, not stable): the first ``k`` items form a
  heap whose root is the worst kept value (ties go to the left child); a later item replaces the
  root only when strictly better; the heap is then sorted by repeatedly swapping the root to the end.
* **bitonic** (static node, not the innermost axis, ``k > 6``, when
  ``n/4 * log2(n) * (log2(n)+1) < k(k-1)/2 + (n-k)k``): a bitonic network over the whole axis,
  padded to a power of two, every comparator swapping when the right item is strictly better.

"Better" is the kernels' comparison: mode max swaps when ``left < right`` (ordered: NaN never
moves), mode min when ``not (left <= right)`` (unordered: NaN always moves); the heap uses the
opposite predicates. ``sort_type`` index re-sorts the chosen ``k`` by index (ascending); none
behaves as value. The layout is taken to be planar (what a Parameter feeding TopK gets).

Where the ``k`` best items hold no equal values and no NaN, every algorithm agrees with a stable
argsort, which is what runs; only lanes with ties or NaN are replayed item by item.
Measured against OpenVINO 2026.4 CPU (f32 hint) in tests/ops/test_topk_ties.py.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np

Algorithm = Literal["bubble", "horizontal", "heap", "bitonic"]
#: the vector registers the kernels may fill with a sorted top-k: ``16 // 2 - 2``
_IN_REGISTER_K = 6
#: lanes of one AVX-512 register of f32
_LANES = 16


def algorithm(n: int, k: int, *, innermost: bool, dynamic: bool, stable: bool) -> Algorithm:
    """The sort the CPU plugin runs for a TopK of ``k`` over an axis of ``n`` items."""
    if dynamic:
        if stable or not innermost:
            return "bubble"
        return "heap"
    if k <= _IN_REGISTER_K:
        return "horizontal" if innermost and k == 1 and not stable else "bubble"
    if stable:
        return "bubble"
    if innermost:
        return "heap"
    log_n = math.log2(n)
    bitonic_cost = int((n / 4.0) * log_n * (log_n + 1))
    bubble_cost = k * (k - 1) // 2 + (n - k) * k
    return "bitonic" if bitonic_cost < bubble_cost else "bubble"


def _swap_test(mode: str) -> Callable[[float, float], bool]:
    """The bubble/bitonic comparator: does ``right`` move before ``left``?"""
    if mode == "max":
        return lambda left, right: left < right
    return lambda left, right: not left <= right


def _heap_test(mode: str) -> Callable[[float, float], bool]:
    """The heap's comparator: does ``a`` belong below ``b`` (is ``a`` better)?"""
    if mode == "max":
        return lambda a, b: not a <= b
    return lambda a, b: a < b


def _bubble(values: list, k: int, mode: str) -> list[int]:
    moves = _swap_test(mode)
    kept = [(values[i], i) for i in range(k)]
    for i in range(k - 1):
        for j in range(k - 1, i, -1):
            if moves(kept[j - 1][0], kept[j][0]):
                kept[j - 1], kept[j] = kept[j], kept[j - 1]
    for i in range(k, len(values)):
        kept.append((values[i], i))
        for j in range(k, 0, -1):
            if moves(kept[j - 1][0], kept[j][0]):
                kept[j - 1], kept[j] = kept[j], kept[j - 1]
        kept.pop()
    return [i for _, i in kept]


def _horizontal(values: list, mode: str) -> list[int]:
    moves = _swap_test(mode)

    def keep(a: tuple, b: tuple) -> tuple:
        return b if moves(a[0], b[0]) else a

    n = len(values)
    if n < _LANES:
        best = (values[0], 0)
        for i in range(n):
            best = keep(best, (values[i], i))
        return [best[1]]
    lanes = [(values[i], i) for i in range(_LANES)]
    start = _LANES
    while start + _LANES <= n:
        lanes = [keep(lanes[j], (values[start + j], start + j)) for j in range(_LANES)]
        start += _LANES
    quad = [keep(keep(lanes[j], lanes[j + 4]), keep(lanes[j + 8], lanes[j + 12])) for j in range(4)]
    best = keep(keep(quad[0], quad[1]), keep(quad[2], quad[3]))
    for i in range(start, n):
        best = keep(best, (values[i], i))
    return [best[1]]


def _heap(values: list, k: int, mode: str) -> list[int]:
    above = _heap_test(mode)  # a parent is swapped with a child that is 'not above' it
    heap = [(values[i], i) for i in range(k)]

    def sift_down(node: int, last: int) -> None:
        if last == 0:
            return
        while node <= (last - 1) >> 1:
            left = 2 * node + 1
            child = left
            if not (last % 2 == 1 and node == last >> 1) and above(heap[left][0], heap[left + 1][0]):
                child = left + 1
            if not above(heap[node][0], heap[child][0]):
                return
            heap[node], heap[child] = heap[child], heap[node]
            node = child

    for node in range((k - 2) >> 1 if k > 1 else 0, -1, -1):
        sift_down(node, k - 1)
    for i in range(k, len(values)):
        if above(values[i], heap[0][0]):
            heap[0] = (values[i], i)
            sift_down(0, k - 1)
    for last in range(k - 1, 0, -1):
        heap[0], heap[last] = heap[last], heap[0]
        sift_down(0, last - 1)
    return [i for _, i in heap]


def _heap_ordered(keys: list, k: int) -> list[int]:
    """:func:`_heap` in mode max for NaN-free ``keys`` (mode min: the negated values, which keep
    every comparison's outcome): ``above`` is then ``>``, and the heap is two flat lists instead of
    pairs, and a sift moves a hole down instead of swapping (the same moves, so the same order)."""
    values = keys[:k]
    index = list(range(k))

    def sift_down(node: int, last: int) -> None:
        if last == 0:
            return
        only_left = last >> 1 if last & 1 else -1  # the node whose one child is ``last``
        deepest = (last - 1) >> 1
        value, item = values[node], index[node]  # moved down a hole: children move up into it
        while node <= deepest:
            child = 2 * node + 1
            if node != only_left and values[child] > values[child + 1]:
                child += 1
            below = values[child]
            if not value > below:
                break
            values[node], index[node] = below, index[child]
            node = child
        values[node], index[node] = value, item

    for node in range((k - 2) >> 1 if k > 1 else 0, -1, -1):
        sift_down(node, k - 1)
    root = values[0]
    for i in range(k, len(keys)):
        if keys[i] > root:
            values[0], index[0] = keys[i], i
            sift_down(0, k - 1)
            root = values[0]
    for last in range(k - 1, 0, -1):
        values[0], values[last] = values[last], values[0]
        index[0], index[last] = index[last], index[0]
        sift_down(0, last - 1)
    return index


def bitonic_stages(n: int) -> list[list[tuple[int, int]]]:
    """The comparators of the plugin's bitonic network over ``n`` items, stage by stage (the
    comparators of one stage touch distinct items). Every comparator orders (left, right) the same
    way; items past ``n`` (up to the next power of two) are absent and never compared."""
    size = 1
    while size < n:
        size <<= 1
    stages: list[list[tuple[int, int]]] = []

    def merge(block: int, starts: range) -> None:
        half = block >> 1
        stages.append([(s + i, s + block - 1 - i) for s in starts for i in range(half - 1, -1, -1)
                       if s + block - 1 - i < n])
        span = half
        while span > 0:
            step = span >> 1
            stages.append([(s + j, s + j + step) for b in starts for s in range(b, b + block, span)
                           for j in range(step) if s + j + step < n])
            span >>= 1

    block = 2
    while block < size:
        merge(block, range(0, size, block))
        block <<= 1
    if size > 1:
        merge(size, range(0, 1))
    return [stage for stage in stages if stage]


def _bitonic(values: np.ndarray, k: int, mode: str) -> np.ndarray:
    """The network on every row of ``values`` at once (rows: lanes); the first ``k`` indices."""
    rows = values.shape[0]
    vals = values.copy()
    idx = np.broadcast_to(np.arange(values.shape[1]), values.shape).copy()
    every = np.arange(rows)[:, None]
    for stage in bitonic_stages(values.shape[1]):
        left = np.array([p[0] for p in stage])
        right = np.array([p[1] for p in stage])
        a, b = vals[:, left], vals[:, right]
        with np.errstate(invalid="ignore"):
            swap = a < b if mode == "max" else ~(a <= b)
        if not swap.any():
            continue
        li, ri = np.broadcast_to(left, swap.shape), np.broadcast_to(right, swap.shape)
        rr = np.broadcast_to(every, swap.shape)
        sl, sr = li[swap], ri[swap]
        row = rr[swap]
        vals[row, sl], vals[row, sr] = b[swap], a[swap]
        ia, ib = idx[row, sl], idx[row, sr]
        idx[row, sl], idx[row, sr] = ib, ia
    return idx[:, :k]


def _needs_replay(values: np.ndarray, order: np.ndarray, k: int) -> np.ndarray:
    """Rows whose stable-sort answer may differ from the kernels': NaN, or two equal values among
    the first ``k + 1`` sorted (the kept ones and the first one left out)."""
    rows = np.zeros(values.shape[0], bool)
    if values.dtype.kind == "f":
        rows |= np.isnan(values).any(axis=1)
    head = np.take_along_axis(values, order[:, : k + 1], axis=1)
    if head.shape[1] > 1:
        rows |= (head[:, 1:] == head[:, :-1]).any(axis=1)
    return rows


def cpu_topk_indices(values: np.ndarray, k: int, mode: str, algo: Algorithm) -> np.ndarray:
    """Indices ``[rows, k]`` of the ``k`` best items of each row of ``values`` ``[rows, n]`` in the
    order the CPU plugin's ``algo`` gives them (sorted by value)."""
    rows, n = values.shape
    if k == 0 or rows == 0:
        return np.zeros((rows, k), np.int64)
    if values.dtype.kind == "f":
        wide = values.astype(np.float64)
        key = -wide if mode == "max" else wide
    else:
        wide = values.astype(np.int64)
        key = -wide if mode == "max" else wide
    order = np.argsort(key, axis=1, kind="stable")
    if algo == "bubble":  # a stable sort: only NaN can make it differ
        replay = np.isnan(wide).any(axis=1) if values.dtype.kind == "f" else np.zeros(rows, bool)
    else:
        replay = _needs_replay(wide, order, k)
    result = order[:, :k].copy()
    todo = np.nonzero(replay)[0]
    if len(todo) == 0:
        return result
    if algo == "bitonic":
        result[todo] = _bitonic(wide[todo], k, mode)
        return result
    nan_rows = np.asarray(np.isnan(wide[todo]).any(axis=1) if values.dtype.kind == "f" else np.zeros(len(todo), bool))
    for r, nan in zip(todo.tolist(), nan_rows.tolist()):
        ordered = not nan
        row = wide[r].tolist()
        if algo == "heap" and ordered:
            result[r] = _heap_ordered(row if mode == "max" else [-v for v in row], k)
        elif algo == "heap":
            result[r] = _heap(row, k, mode)
        elif algo == "horizontal":
            result[r] = _horizontal(row, mode)
        else:
            result[r] = _bubble(row, k, mode)
    return result
