"""How the detection ops order candidates with equal keys (scores): a :class:`TieOrder` passed to
their evaluation. The reference profile's is :data:`STABLE`: equal keys keep their input order (ties
by index, what the specification's sorted-by-score lists mean where it does not say more). OpenVINO
CPU's kernels sort with libstdc++'s ``std::sort``/``std::partial_sort``, whose order among equal keys
the ``openvino-cpu`` profile replays (graphir.numerics.openvino_cpu.stl_sort.LIBSTDCXX)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol

#: ``less(a, b)``: whether ``a`` goes before ``b``
Less = Callable[[Any, Any], bool]


class TieOrder(Protocol):
    name: str

    def sort(self, items: list[Any], less: Less) -> list[Any]:
        """``items`` sorted by ``less``."""

    def partial_sort(self, items: list[Any], middle: int, less: Less) -> list[Any]:
        """``items`` with its first ``middle`` sorted by ``less`` (the rest in any order)."""


class _Stable:
    name = "stable"

    def sort(self, items: list[Any], less: Less) -> list[Any]:
        return sorted(items, key=functools.cmp_to_key(lambda a, b: -1 if less(a, b) else (1 if less(b, a) else 0)))

    def partial_sort(self, items: list[Any], middle: int, less: Less) -> list[Any]:
        return self.sort(items, less)


#: equal keys in input order (the reference profile)
STABLE: TieOrder = _Stable()
