"""Dimensions and partial shapes, printed and parsed exactly as OpenVINO does.

A ``Dimension`` is an interval ``[min, max]`` of non-negative lengths; ``max=None`` means unbounded.
``3`` is static, ``?`` is ``[0, inf)``, ``1..10``, ``..10`` (``0..10``) and ``2..`` are intervals.
A ``PartialShape`` is a tuple of dimensions, or ``dims=None`` for a dynamic rank (``[...]``).
"""
from __future__ import annotations

import numbers
import re
from collections.abc import Iterable, Iterator
from dataclasses import FrozenInstanceError
from typing import Any, Union

from graphir.errors import ShapeError, clip

_INTERVAL = re.compile(r"^(\d*)\.\.(\d*)$")
#: the largest rank a shape written as text may have (numpy runs up to 64 dims)
MAX_RANK = 65536
#: the largest length a dimension may have (OpenVINO keeps dims in int64 and refuses larger ones)
MAX_LENGTH = (1 << 63) - 1


class Dimension:
    """An interval ``[min, max]`` of lengths (``max=None``: unbounded); immutable.

    Dimensions are made in every node's shape inference, so making one is cheap: static lengths
    and ``?`` are shared instances, made when first met (``Dimension(3, 3) is Dimension.static(3)``).
    """

    __slots__ = ("min", "max")
    min: int
    max: int | None

    def __new__(cls, min: int = 0, max: int | None = None) -> "Dimension":  # noqa: A002 - OpenVINO's names
        if type(min) is int:
            if max is None:
                if min == 0 and _DYNAMIC is not None:
                    return _DYNAMIC
            elif type(max) is int and max == min:
                found = _STATIC.get(min)
                if found is not None:
                    return found
        if min < 0 or (max is not None and max < min):
            raise ShapeError(f"invalid dimension interval {min}..{max}")
        if min > MAX_LENGTH or (max is not None and max > MAX_LENGTH):
            raise ShapeError(f"dimension {max if max is not None and max > MAX_LENGTH else min} "
                             f"is beyond the largest length 2^63-1")
        self = object.__new__(cls)
        _set_min(self, min)
        _set_max(self, max)
        if max == min and type(min) is int and type(max) is int and len(_STATIC) < _STATIC_LIMIT:
            _STATIC[min] = self
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field '{name}'")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field '{name}'")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Dimension, (self.min, self.max))

    def __copy__(self) -> "Dimension":
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> "Dimension":
        return self

    # --- construction -----------------------------------------------------------------------
    @classmethod
    def static(cls, length: int) -> "Dimension":
        if type(length) is int:
            found = _STATIC.get(length)
            if found is not None:
                return found
        return cls(int(length), int(length))

    @classmethod
    def dynamic(cls) -> "Dimension":
        return _DYNAMIC  # type: ignore[return-value]  # set once the class exists

    @classmethod
    def parse(cls, text: "str | int | Dimension") -> "Dimension":
        """``3``, ``?``, ``-1``, ``1..10``, ``..10``, ``2..`` (the forms OpenVINO prints and IR uses)."""
        if type(text) is Dimension:
            return text
        if type(text) is int:
            found = _STATIC.get(text)
            if found is not None:
                return found
        if isinstance(text, Dimension):
            return text
        if isinstance(text, int):
            return cls.dynamic() if text == -1 else cls.static(text) if text >= 0 else cls._bad(text)
        s = str(text).strip()
        if len(s) > 41:  # a 19-digit interval is 40 characters; longer text is not worth reading
            return cls._bad(text)
        if s in ("?", "-1"):
            return cls.dynamic()
        if s.isdigit():
            return cls.static(int(s))
        m = _INTERVAL.match(s)
        if m:
            lo = int(m.group(1)) if m.group(1) else 0
            hi = int(m.group(2)) if m.group(2) else None
            if hi is not None and hi < lo:
                raise ShapeError(f"invalid dimension '{text}': upper bound below lower bound")
            return cls(lo, hi)
        return cls._bad(text)

    @staticmethod
    def _bad(text: object) -> "Dimension":
        shown = text if len(str(text)) <= 60 else f"{str(text)[:40]}... ({len(str(text)):,} characters)"
        raise ShapeError(
            f"invalid dimension '{shown}': expected N, ?, -1, MIN..MAX, ..MAX or MIN.. (lengths below 2^63)"
        )

    # --- queries ----------------------------------------------------------------------------
    @property
    def is_static(self) -> bool:
        return self.max == self.min

    @property
    def is_dynamic(self) -> bool:
        return self.max != self.min

    def get_length(self) -> int:
        if not self.is_static:
            raise ShapeError(f"dimension {self} is not static")
        return self.min

    def contains(self, length: int) -> bool:
        return self.min <= length and (self.max is None or length <= self.max)

    def __str__(self) -> str:
        if self.is_static:
            return str(self.min)
        if self.max is None:
            return "?" if self.min == 0 else f"{self.min}.."
        return f"..{self.max}" if self.min == 0 else f"{self.min}..{self.max}"

    def __repr__(self) -> str:
        return f"Dimension({self})"

    def __eq__(self, other: object) -> bool:
        if type(other) is Dimension:
            return self is other or (self.min == other.min and self.max == other.max)
        if type(other) is int:
            return self.max == self.min == other
        if isinstance(other, numbers.Integral):
            return self.is_static and self.min == int(other)
        if isinstance(other, Dimension):
            return self.min == other.min and self.max == other.max
        return NotImplemented

    def __hash__(self) -> int:  # a static dimension hashes like the int it equals
        return hash(self.min) if self.is_static else hash((self.min, self.max))

    # --- OpenVINO's merge / relax rules -----------------------------------------------------
    def merge(self, other: "Dimension") -> "Dimension | None":
        """Intersection (``Dimension::merge``): ``?``&``3`` is 3, ``1..10``&``5`` is 5; None on conflict."""
        if self is other:
            return self
        lo = max(self.min, other.min)
        hi = _min_hi(self.max, other.max)
        if hi is not None and hi < lo:
            return None
        return Dimension(lo, hi)

    def compatible(self, other: "Dimension") -> bool:
        return self.merge(other) is not None

    def relaxes(self, other: "Dimension") -> bool:
        """True when every length ``other`` admits, ``self`` admits too."""
        return self.min <= other.min and (self.max is None or (other.max is not None and other.max <= self.max))

    def refines(self, other: "Dimension") -> bool:
        """True when ``self`` admits only lengths ``other`` admits (the converse of relaxes)."""
        return other.relaxes(self)

    def hull(self, other: "Dimension") -> "Dimension":
        hi = None if self.max is None or other.max is None else max(self.max, other.max)
        return Dimension(min(self.min, other.min), hi)

    def broadcast_merge(self, other: "Dimension") -> "Dimension | None":
        """Numpy broadcast of two dimensions as OpenVINO computes it; None when they cannot broadcast.

        Both may be 1: their hull. Only one may be 1: the other one. Neither: their intersection.
        """
        a1, b1 = self.contains(1), other.contains(1)
        if a1 and b1:
            if self == 1:
                return other
            if other == 1:
                return self
            return self.hull(other)
        if a1:
            return other
        if b1:
            return self
        return self.merge(other)

    # --- arithmetic used by shape inference ------------------------------------------------
    def __add__(self, other: "Dimension | int") -> "Dimension":
        o = Dimension.static(other) if isinstance(other, int) else other
        hi = None if self.max is None or o.max is None else self.max + o.max
        return Dimension(self.min + o.min, hi)

    __radd__ = __add__

    def __mul__(self, other: "Dimension | int") -> "Dimension":
        o = Dimension.static(other) if isinstance(other, int) else other
        if self == 0 or o == 0:
            return Dimension.static(0)
        hi = None if self.max is None or o.max is None else self.max * o.max
        return Dimension(self.min * o.min, hi)

    __rmul__ = __mul__

    def __sub__(self, other: "Dimension | int") -> "Dimension":
        o = Dimension.static(other) if isinstance(other, int) else other
        lo = max(0, self.min - (o.max if o.max is not None else self.min))
        hi = None if self.max is None else max(0, self.max - o.min)
        return Dimension(lo, hi)

    def __floordiv__(self, other: int) -> "Dimension":
        hi = None if self.max is None else self.max // other
        return Dimension(self.min // other, hi)


#: static lengths, shared once made (up to _STATIC_LIMIT of them), and ``?``
_STATIC: "dict[int, Dimension]" = {}
_STATIC_LIMIT = 1 << 16
_set_min = Dimension.__dict__["min"].__set__  # the slots' setters (Dimension.__setattr__ refuses)
_set_max = Dimension.__dict__["max"].__set__
_DYNAMIC: "Dimension | None" = None
_DYNAMIC = Dimension(0, None)


def _min_hi(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


ShapeLike = Union["PartialShape", str, Iterable[Any], None]


class PartialShape:
    """A shape whose rank and dimensions may be unknown. ``str()`` prints OpenVINO's form."""

    __slots__ = ("_dims", "_hash", "_static")

    def __init__(self, dims: "Iterable[Dimension | int | str] | PartialShape | str | None") -> None:
        if isinstance(dims, str):  # like ov.PartialShape("[2,?]")
            dims = PartialShape.parse(dims)._dims
        elif isinstance(dims, PartialShape):
            dims = dims._dims
        if dims is None:
            self._dims: tuple[Dimension, ...] | None = None
        else:
            items: tuple[Any, ...] = tuple(dims)
            for d in items:  # the common case, dimensions already: no conversion
                if type(d) is not Dimension:
                    items = tuple([_as_dimension(d) for d in items])
                    break
            self._dims = items
        self._hash: int | None = None
        self._static: bool | None = None

    @classmethod
    def of(cls, dims: "tuple[Dimension, ...] | None") -> "PartialShape":
        """A shape of ``dims`` as they are (a tuple of Dimension instances, or None for a dynamic
        rank): what shape inference builds, without the conversions of the constructor."""
        self = object.__new__(cls)
        self._dims = dims
        self._hash = None
        self._static = None
        return self

    # --- construction -----------------------------------------------------------------------
    @classmethod
    def dynamic(cls, rank: int | None = None) -> "PartialShape":
        return cls.of(None) if rank is None else cls.of((Dimension.dynamic(),) * rank)

    @classmethod
    def parse(cls, value: ShapeLike) -> "PartialShape":
        """``[2,3]``, ``[?,3]``, ``[1..10,4]``, ``[...]``, ``[]``, ``2,3``, a list of ints/strings, or None."""
        if isinstance(value, PartialShape):
            return value
        if value is None:
            return cls(None)
        if isinstance(value, str):
            s = value.strip()
            if s and s[0] in "[(" and s[-1:] in "])":
                s = s[1:-1].strip()
            elif s and (s[0] in "[(" or s[-1:] in "])"):
                raise ShapeError(f"invalid shape '{value}': unbalanced brackets")
            if s == "...":
                return cls(None)
            if s == "":
                return cls([])
            commas = s.count(",", 0, 4 * MAX_RANK) if len(s) > 2 * MAX_RANK else 0
            if commas >= MAX_RANK:
                raise ShapeError(f"invalid shape '{clip(value)}': {s.count(',') + 1:,} dimensions, more than "
                                 f"the largest rank graphir reads ({MAX_RANK:,})")
            try:
                return cls([Dimension.parse(p) for p in s.split(",")])
            except ShapeError as exc:
                raise ShapeError(f"invalid shape '{clip(value)}': {exc}") from None
        try:
            return cls(list(value))
        except TypeError:
            raise ShapeError(f"cannot make a shape from {value!r}") from None

    @classmethod
    def parse_ir(cls, text: str | None) -> "PartialShape":
        """A Parameter's IR ``shape`` attribute: ``?,1..10,-1,3``; ``""`` or missing is a scalar."""
        if text is None:
            return cls([])
        return cls.parse(text)

    # --- queries ----------------------------------------------------------------------------
    @property
    def rank_is_static(self) -> bool:
        return self._dims is not None

    @property
    def rank_is_dynamic(self) -> bool:
        return self._dims is None

    @property
    def rank(self) -> Dimension:
        return Dimension.dynamic() if self._dims is None else Dimension.static(len(self._dims))

    @property
    def dims(self) -> tuple[Dimension, ...]:
        if self._dims is None:
            raise ShapeError("a shape of dynamic rank has no dimensions")
        return self._dims

    @property
    def is_static(self) -> bool:
        static = self._static
        if static is None:
            dims = self._dims
            static = self._static = dims is not None and all([d.max == d.min for d in dims])
        return static

    @property
    def is_dynamic(self) -> bool:
        return not self.is_static

    def to_shape(self) -> tuple[int, ...]:
        """The static shape as a tuple of ints; a ShapeError when anything is dynamic."""
        if not self.is_static:
            raise ShapeError(f"shape {self} is not static")
        return tuple([d.min for d in self._dims])  # type: ignore[union-attr]

    def get_min_shape(self) -> tuple[int, ...]:
        return tuple(d.min for d in self.dims)

    def compatible_with_shape(self, shape: Iterable[int]) -> bool:
        """Whether a concrete array shape fits this partial shape."""
        shape = tuple(shape)
        if self._dims is None:
            return True
        return len(shape) == len(self._dims) and all(d.contains(n) for d, n in zip(self._dims, shape))

    def __len__(self) -> int:
        return len(self.dims)

    def __iter__(self) -> Iterator[Dimension]:
        return iter(self.dims)

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, slice):
            return PartialShape.of(self.dims[index])
        return self.dims[index]

    def __str__(self) -> str:
        if self._dims is None:
            return "[...]"
        return "[" + ",".join(str(d) for d in self._dims) + "]"

    def to_ir(self) -> str:
        """The form of a Parameter's IR ``shape`` attribute (``?,1..10,3``; ``...`` for dynamic rank)."""
        return "..." if self._dims is None else ",".join(str(d) for d in self._dims)

    def __repr__(self) -> str:
        return f"PartialShape('{self}')"

    def __eq__(self, other: object) -> bool:
        if type(other) is PartialShape:
            return self is other or self._dims == other._dims
        if isinstance(other, (str, list, tuple)):
            try:
                other = PartialShape.parse(other)
            except ShapeError:
                return False
        if not isinstance(other, PartialShape):
            return NotImplemented
        return self is other or self._dims == other._dims

    def __ne__(self, other: object) -> bool:
        if type(other) is PartialShape:
            return self is not other and self._dims != other._dims
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._dims)
        return self._hash

    # --- OpenVINO's merge / relax rules -----------------------------------------------------
    def merge(self, other: "PartialShape") -> "PartialShape | None":
        """``PartialShape::merge_into``: dynamic rank takes the other; dims intersect; None on conflict."""
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims):
            return None
        out = []
        for a, b in zip(self._dims, other._dims):
            m = a.merge(b)
            if m is None:
                return None
            out.append(m)
        return PartialShape.of(tuple(out))

    def compatible(self, other: "PartialShape") -> bool:
        return self.merge(other) is not None

    def relaxes(self, other: "PartialShape") -> bool:
        if self._dims is None:
            return True
        if other._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(a.relaxes(b) for a, b in zip(self._dims, other._dims))

    def refines(self, other: "PartialShape") -> bool:
        """The converse of :meth:`relaxes`: every shape ``self`` admits, ``other`` admits too."""
        return other.relaxes(self)

    # --- pydantic integration: attributes typed PartialShape validate from str/list --------
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            cls.parse,
            serialization=core_schema.plain_serializer_function_ser_schema(str),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        return {"type": "string", "description": "OpenVINO partial shape, e.g. [?,3] or [1..10,4]"}


def _as_dimension(value: "Dimension | int | str") -> Dimension:
    if type(value) is int:
        found = _STATIC.get(value)
        if found is not None:
            return found
    return Dimension.parse(value)


def as_partial_shape(value: ShapeLike) -> PartialShape:
    return PartialShape.parse(value)
