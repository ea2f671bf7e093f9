"""Numerics profiles: which arithmetic and orders a run computes (runtime layer).

``reference`` (the default): each op's ``evaluate``, its spec semantics in plain numpy (OpenVINO's
reference implementations; TopK ties by index), the same bits on every host.

``openvino-cpu``: OpenVINO's CPU plugin's arithmetic and orders where they differ from the
reference (oneDNN's JIT exp in Sigmoid, TopK's heap/bitonic orders, the DFT's twiddles and lanes,
weight decompression in f32, LinOpSequenceFusion, depthwise convolutions as BLAS products), kept in :mod:`graphir.numerics.openvino_cpu`
as overrides per (op class, element type), plus the plan-level fusions the profile enables. A
replay that depends on the host's ISA says which host it matches (:func:`host_report`) and falls
back to the reference on other hosts.

A run picks its profile once (``model.run(..., numerics=)``, ``create_infer_request(numerics=)``);
constant folding at specialization uses the same profile; op bodies (Loop, If, TensorIterator)
run under the profile of the run that reaches them (:func:`active`). ``evaluator(op, profile)``
is the one place where a node's evaluate is picked for a profile, so ``evaluator(op, p)(arrays)``,
``model.run(..., numerics=p)`` and a request give the same bits (tests/test_numerics_profiles.py).
"""
from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.errors import GraphirError
from graphir.types import ElementType

if TYPE_CHECKING:
    from graphir.ops.base import Op, TensorType

__all__ = ["PROFILES", "DEFAULT", "Profile", "evaluator", "has_override", "register", "profile", "check",
           "active", "using", "host_report"]

#: the profiles a run may ask for
PROFILES = ("reference", "openvino-cpu")
#: what a run computes unless told otherwise: spec semantics, identical on every host
DEFAULT = "reference"

#: an evaluate over a list of input arrays, giving the list of output arrays
Evaluate = Callable[[list[np.ndarray]], list[np.ndarray]]
#: builds an override's evaluate for one op (its attributes decoded once); ``inputs``: the node's
#: input types when known (a run plan passes them), else None
OverrideFactory = Callable[["Op", "Sequence[TensorType] | None"], Evaluate]


@dataclass(frozen=True)
class Profile:
    """What a profile changes besides per-op overrides: the plan-level fusions of OpenVINO's CPU
    plugin (a decompression subgraph computed in f32, a chain of constant Adds/Multiplies folded)."""

    name: str
    fuse_decompression: bool = False
    fold_linear_chains: bool = False


_PROFILES = {
    "reference": Profile("reference"),
    "openvino-cpu": Profile("openvino-cpu", fuse_decompression=True, fold_linear_chains=True),
}
#: profile -> (op class, element type) -> the override's factory
_OVERRIDES: dict[str, dict[tuple[type, ElementType], OverrideFactory]] = {name: {} for name in PROFILES}
#: profile -> the module whose import registers its overrides (imported on first use)
_PROVIDERS = {"openvino-cpu": "graphir.numerics.openvino_cpu.overrides"}
#: the profile of the run in progress on this thread (bodies of Loop/If/TensorIterator read it)
_ACTIVE: ContextVar[str] = ContextVar("graphir_numerics", default=DEFAULT)


def check(name: Any) -> str:
    """``name`` if it is a profile; else a GraphirError listing the valid ones."""
    if not isinstance(name, str) or name not in _PROFILES:
        raise GraphirError(f"unknown numerics profile {name!r}; valid profiles: {', '.join(PROFILES)}")
    return name


def profile(name: str) -> Profile:
    """The :class:`Profile` of that name (a GraphirError for an unknown one)."""
    return _PROFILES[check(name)]


def register(profile_name: str, op_class: type, element_types: Sequence[str]
             ) -> Callable[[OverrideFactory], OverrideFactory]:
    """Decorator: ``factory(op, input_types)`` gives ``op``'s evaluate under ``profile_name`` when
    its first input has one of ``element_types`` (subclasses of ``op_class`` included)."""
    table = _OVERRIDES[check(profile_name)]

    def decorate(factory: OverrideFactory) -> OverrideFactory:
        for name in element_types:
            table[(op_class, ElementType.parse(name))] = factory
        _BY_CLASS.clear()  # a registration after a lookup (a plugin's) is seen
        return factory

    return decorate


def _table(name: str) -> dict[tuple[type, ElementType], OverrideFactory]:
    provider = _PROVIDERS.get(name)
    if provider is not None:
        importlib.import_module(provider)  # registers on first import; a dict lookup afterwards
    return _OVERRIDES[name]


#: (op class, profile) -> its overrides by element type, worked out once (registrations happen at import)
_BY_CLASS: dict[tuple[type, str], dict[ElementType, OverrideFactory]] = {}


def _overrides_for(op: "Op", name: str) -> dict[ElementType, OverrideFactory]:
    key = (type(op), name)
    known = _BY_CLASS.get(key)
    if known is not None:
        return known
    found: dict[ElementType, OverrideFactory] = {}
    table = _table(name)
    for cls in reversed(type(op).__mro__):  # the most derived class's registration wins
        for (klass, et), factory in table.items():
            if klass is cls:
                found[et] = factory
    return _BY_CLASS.setdefault(key, found)


def has_override(op: "Op", name: str) -> bool:
    """Whether ``op`` computes anything differently under profile ``name`` than its ``evaluate``."""
    return bool(_overrides_for(op, check(name)))


def _reference(op: "Op", profile: str) -> Evaluate:
    """``op.evaluate`` over a list; an op with bodies runs them under ``profile`` (:func:`using`)."""
    evaluate = op.evaluate
    if not getattr(type(op), "has_bodies", False):
        def reference(arrays: list[np.ndarray]) -> list[np.ndarray]:
            return evaluate(*arrays)

        return reference

    def with_bodies(arrays: list[np.ndarray]) -> list[np.ndarray]:
        with using(profile):
            return evaluate(*arrays)

    return with_bodies


def evaluator(op: "Op", profile: str, inputs: "Sequence[TensorType] | None" = None) -> Evaluate:
    """``op``'s evaluate under ``profile``, taking the list of input arrays: the profile's override
    for the op's class and first input's element type, else ``op.evaluate``. ``inputs`` (the node's
    input types, optional) lets an override that depends on the model's own types (TopK: whether
    its shapes are dynamic) see them and picks the override once; without them the element type is
    read from the first array per call. An op with bodies (Loop, If, TensorIterator) runs them under
    ``profile`` too."""
    found = _overrides_for(op, check(profile))
    if not found:
        return _reference(op, profile)
    if inputs:
        factory = found.get(inputs[0].element_type)
        return _reference(op, profile) if factory is None else factory(op, inputs)
    by_dtype: dict[Any, Evaluate] = {}  # numpy dtype -> the evaluate for it, picked once
    reference = _reference(op, profile)

    def pick(dtype: Any) -> Evaluate:
        try:
            factory = found.get(ElementType.from_numpy(dtype))
        except GraphirError:
            factory = None
        return by_dtype.setdefault(dtype, reference if factory is None else factory(op, None))

    def dispatch(arrays: list[np.ndarray]) -> list[np.ndarray]:
        if not arrays:
            return reference(arrays)
        dtype = np.asarray(arrays[0]).dtype
        fn = by_dtype.get(dtype)
        return (fn if fn is not None else pick(dtype))(arrays)

    return dispatch


def active() -> str:
    """The profile of the run in progress on this thread (``reference`` outside any run)."""
    return _ACTIVE.get()


@contextlib.contextmanager
def using(name: str) -> Iterator[str]:
    """Within the block, :func:`active` is ``name`` on this thread (a run sets it for its bodies)."""
    token = _ACTIVE.set(check(name))
    try:
        yield name
    finally:
        _ACTIVE.reset(token)


def host_report() -> list[str]:
    """One line per ISA-dependent replay of the openvino-cpu profile: which host it matches and
    whether this host is one (elsewhere the profile computes the reference for it)."""
    report = importlib.import_module("graphir.numerics.openvino_cpu").host_report  # a provider, as in _PROVIDERS

    return report()
