"""libstdc++'s ``std::partial_sort`` and ``std::sort`` (GCC's algorithms, step for step), whose order
among equal keys OpenVINO CPU's detection kernels keep (MatrixNms, DetectionOutput's keep_top_k,
Proposal's pre-NMS top-n, ExperimentalDetectronDetectionOutput's cut): the ``openvino-cpu`` profile's
tie order (:data:`LIBSTDCXX`, graphir.numerics.openvino_cpu.detection_ties). The reference profile
orders equal keys by index (graphir.ops.openvino.tie_order.STABLE)."""
from __future__ import annotations

from typing import Any

from graphir.ops.openvino.tie_order import Less

__all__ = ["stl_partial_sort", "stl_sort", "LIBSTDCXX"]


def _adjust_heap(a: list, hole: int, length: int, value: object, less) -> None:  # noqa: ANN001
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if less(a[second], a[second - 1]):
            second -= 1
        a[hole] = a[second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        a[hole] = a[second - 1]
        hole = second - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[parent], value):
        a[hole] = a[parent]
        hole = parent
        parent = (hole - 1) // 2
    a[hole] = value


def stl_partial_sort(a: list, middle: int, less) -> list:  # noqa: ANN001
    """``std::partial_sort(a, a + middle, a + len(a), less)`` as GCC's libstdc++ does it (heap select,
    then heap sort): the first ``middle`` items sorted, equal items in the order that gives."""
    a = list(a)
    n = len(a)
    if middle < 1:
        return a
    if middle > 1:  # make_heap
        parent = (middle - 2) // 2
        while True:
            _adjust_heap(a, parent, middle, a[parent], less)
            if parent == 0:
                break
            parent -= 1
    for i in range(middle, n):
        if less(a[i], a[0]):
            value = a[i]
            a[i] = a[0]
            _adjust_heap(a, 0, middle, value, less)
    end = middle
    while end > 1:  # sort_heap
        end -= 1
        value = a[end]
        a[end] = a[0]
        _adjust_heap(a, 0, end, value, less)
    return a


def _linear_insert(a: list, i: int, less) -> None:  # noqa: ANN001
    value = a[i]
    while less(value, a[i - 1]):
        a[i] = a[i - 1]
        i -= 1
    a[i] = value


def stl_sort(a: list, less) -> list:  # noqa: ANN001
    """``std::sort(a, a + len(a), less)`` as GCC's libstdc++ does it (introsort: median-of-three
    pivots, partitions down to 16 items, heap sort past 2 log2(n) levels, then insertion sort),
    so that items ``less`` calls equal end in the order it gives them."""
    a = list(a)
    threshold = 16

    def median_to_first(first: int, x: int, y: int, z: int) -> None:
        if less(a[x], a[y]):
            pick = y if less(a[y], a[z]) else (z if less(a[x], a[z]) else x)
        else:
            pick = x if less(a[x], a[z]) else (z if less(a[y], a[z]) else y)
        a[first], a[pick] = a[pick], a[first]

    def partition(lo: int, hi: int, pivot: int) -> int:
        while True:
            while less(a[lo], a[pivot]):
                lo += 1
            hi -= 1
            while less(a[pivot], a[hi]):
                hi -= 1
            if not lo < hi:
                return lo
            a[lo], a[hi] = a[hi], a[lo]
            lo += 1

    def introsort(lo: int, hi: int, depth: int) -> None:
        while hi - lo > threshold:
            if depth == 0:
                a[lo:hi] = stl_partial_sort(a[lo:hi], hi - lo, less)
                return
            depth -= 1
            median_to_first(lo, lo + 1, lo + (hi - lo) // 2, hi - 1)
            cut = partition(lo + 1, hi, lo)
            introsort(cut, hi, depth)
            hi = cut

    def insertion(lo: int, hi: int) -> None:
        for i in range(lo + 1, hi):
            if less(a[i], a[lo]):
                value = a[i]
                a[lo + 1:i + 1] = a[lo:i]
                a[lo] = value
            else:
                _linear_insert(a, i, less)

    n = len(a)
    if n > 1:
        introsort(0, n, 2 * (n.bit_length() - 1))
        if n > threshold:
            insertion(0, threshold)
            for i in range(threshold, n):
                _linear_insert(a, i, less)
        else:
            insertion(0, n)
    return a


class _Libstdcxx:
    """The tie order of libstdc++'s sorts (graphir.ops.openvino.tie_order.TieOrder)."""

    name = "libstdc++"

    def sort(self, items: list[Any], less: Less) -> list[Any]:
        return stl_sort(items, less)

    def partial_sort(self, items: list[Any], middle: int, less: Less) -> list[Any]:
        return stl_partial_sort(items, middle, less)


#: OpenVINO CPU's order among equal keys
LIBSTDCXX = _Libstdcxx()
