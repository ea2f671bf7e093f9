"""Immutable attribute values: what an op holds where a caller passed a list, a dict or an array.

Ops are frozen pydantic models, but a frozen model still hands out its list attributes, and a list
can be changed in place (``op.strides.append(3)``) behind the back of the model holding the op.
:func:`freeze` turns an attribute value into one nobody can change: a list into a
:class:`FrozenList` (a ``list`` that refuses every mutation, so ``op.pads == [0, 0]``, ``list(op.pads)``,
numpy, json, pydantic serialization, pickling and copies keep working), a dict into a
:class:`FrozenDict`, a numpy array into a read-only copy; recursively, always a copy of what the
caller gave (so nothing the caller holds aliases the op). The Op base applies it to every op it
builds (:meth:`graphir.ops.base.Op.__init__`, ``with_attributes``, ``model_copy``, ``model_construct``).
"""
from __future__ import annotations

import enum
import types
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NoReturn, SupportsIndex, Union, get_args, get_origin

import numpy as np
from pydantic import BaseModel

from graphir.errors import FrozenAttributeError
from graphir.shapes import PartialShape

if TYPE_CHECKING:
    from typing_extensions import Self

_FIX = "attributes are immutable; use node.set_attribute(name, value) (or op.with_attributes(name=value))"


def _refuse(what: str) -> NoReturn:
    raise FrozenAttributeError(f"cannot {what} an op attribute value: {_FIX}")


class _Frozen:
    """What the frozen containers share: a copy, shallow or deep, is the value itself (frozen all
    the way down, as freeze made it); a pickle rebuilds it whole (a list or dict subclass otherwise
    pickles by filling an empty instance, which a frozen one refuses)."""

    __slots__ = ()
    _plain: ClassVar[type]

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._plain(self),))

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self


class FrozenList(_Frozen, list[Any]):
    """A list attribute value: reads as a list, compares equal to one, hashes as a tuple; every
    in-place change raises :class:`~graphir.errors.FrozenAttributeError`. Build with :func:`freeze`
    (which also freezes nested lists and dicts)."""

    __slots__ = ()
    _plain = list

    def append(self, item: Any) -> NoReturn:
        _refuse("append to")

    def extend(self, items: Any) -> NoReturn:
        _refuse("extend")

    def insert(self, index: SupportsIndex, item: Any) -> NoReturn:
        _refuse("insert into")

    def remove(self, item: Any) -> NoReturn:
        _refuse("remove from")

    def pop(self, index: SupportsIndex = -1) -> NoReturn:
        _refuse("pop from")

    def clear(self) -> NoReturn:
        _refuse("clear")

    def sort(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("sort")

    def reverse(self) -> NoReturn:
        _refuse("reverse")

    def __setitem__(self, index: Any, value: Any) -> NoReturn:
        _refuse("assign an item of")

    def __delitem__(self, index: Any) -> NoReturn:
        _refuse("delete an item of")

    def __iadd__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse("extend (+=)")

    def __imul__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse("repeat (*=)")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))


class FrozenDict(_Frozen, dict[Any, Any]):
    """A dict attribute value (a body's port descriptions): reads and compares as a dict; every
    in-place change raises :class:`~graphir.errors.FrozenAttributeError`."""

    __slots__ = ()
    _plain = dict

    def __setitem__(self, key: Any, value: Any) -> NoReturn:
        _refuse("assign an item of")

    def __delitem__(self, key: Any) -> NoReturn:
        _refuse("delete an item of")

    def __ior__(self, other: Any) -> NoReturn:  # type: ignore[misc,override]
        _refuse("update (|=)")

    def clear(self) -> NoReturn:
        _refuse("clear")

    def pop(self, *args: Any) -> NoReturn:
        _refuse("pop from")

    def popitem(self) -> NoReturn:
        _refuse("pop from")

    def setdefault(self, *args: Any) -> NoReturn:
        _refuse("set an item of")

    def update(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("update")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))


_NESTED = frozenset((list, dict, tuple, np.ndarray))
_PLAIN = frozenset((int, float, bool, str, type(None)))


def freeze(value: Any) -> Any:
    """``value`` as an immutable value: lists, dicts and arrays copied and frozen, recursively (a
    FrozenList or FrozenDict is already frozen all the way down and is returned as it is; so is a
    read-only array owning its data). A frozen pydantic model holding lists comes back as a copy
    holding them frozen; anything else is returned as it is."""
    kind = type(value)
    if kind is list:
        frozen = FrozenList(value)
        for item in frozen:  # lists of numbers are the common case: one pass, no per-item call
            if type(item) not in _PLAIN:
                return FrozenList([freeze(x) for x in value])
        return frozen
    if kind is FrozenList or kind is FrozenDict or kind in _PLAIN:
        return value
    if kind is dict:
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if kind is tuple:
        return tuple(freeze(x) for x in value) if any(type(x) in _NESTED for x in value) else value
    if kind is np.ndarray:
        if not value.flags.writeable and value.base is None:
            return value
        array = np.array(value, copy=True)
        array.flags.writeable = False
        return array
    if isinstance(value, BaseModel):
        if not value.model_config.get("frozen") or all(freeze(v) is v for v in value.__dict__.values()):
            return value
        copy = value.model_copy()
        freeze_state(copy.__dict__)
        return copy
    if isinstance(value, list):  # some other subclass (a user's list, an OrderedDict)
        return freeze(list(value))
    if isinstance(value, dict):
        return freeze(dict(value))
    return value


def freeze_state(state: dict[str, Any]) -> None:
    """Freeze every value of a field dict in place (a frozen model's own ``__dict__``)."""
    freeze_fields(state, tuple(state))


#: annotations whose values are immutable as pydantic gives them (no freezing needed)
_IMMUTABLE_ANNOTATIONS = frozenset((int, float, bool, str, bytes, type(None), PartialShape))
#: per op class, the fields that may hold a value freeze changes (filled by freezable_fields)
FREEZABLE_FIELDS: dict[type, tuple[str, ...]] = {}


def _may_be_mutable(annotation: Any) -> bool:
    """Whether a field declared ``annotation`` may hold a list, dict, array or model."""
    if annotation in _IMMUTABLE_ANNOTATIONS:
        return False
    origin = get_origin(annotation)
    if origin is Literal:
        return False
    if origin is Union or origin is types.UnionType:
        return any(_may_be_mutable(a) for a in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return False
    return True


def freezable_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``cls`` that may hold a value :func:`freeze` changes (remembered per class:
    an op of only numbers and strings skips freezing)."""
    names = FREEZABLE_FIELDS.get(cls)
    if names is None:
        names = FREEZABLE_FIELDS[cls] = tuple(
            name for name, info in cls.model_fields.items() if _may_be_mutable(info.annotation))
    return names


def freeze_fields(state: dict[str, Any], names: tuple[str, ...]) -> None:
    """Freeze the values of ``names`` in an op's field dict in place (the op's own ``__dict__``);
    values already immutable (numbers, strings, frozen lists) are passed over without a call."""
    for name in names:
        value = state[name]
        kind = type(value)
        if kind in _PLAIN or kind is FrozenList:
            continue
        frozen = freeze(value)
        if frozen is not value:
            state[name] = frozen
