"""Ops and tensor types built from parts a reader has already checked, without pydantic's
re-validation, and the keys of the readers' inference memos: what the IR and ONNX readers share to
build thousands of nodes quickly. Every op built here holds only immutable values (frozen lists),
so copies share nothing a caller could change."""
from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel

from graphir.ops.base import Op, SharedFieldsSet, TensorType
from graphir.ops.frozen import FrozenList
from graphir.ops.openvino.core import Constant
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

#: known input values up to this many elements of an integer or boolean type take part in the
#: inference memo by content (see the IR reader's _Reader._infer); others by identity
CONTENT_KEY_SIZE = 64


def known_key(t: TensorType) -> Any:
    """What a memo key holds for an input type's known value and bounds (see the IR reader's _Reader._infer): their
    content when small (the dtype, shape and bytes of an integer/bool array; bound items as ints or
    (min, max) pairs), else their identity. Keys that agree give the same inference."""
    value, bounds = t.value, t.bounds
    if value is None and bounds is None:
        return None
    if type(value) is np.ndarray and value.dtype.kind in "iub" and value.size <= CONTENT_KEY_SIZE:
        value_key: Any = (value.dtype.str, value.shape, value.tobytes())
    else:
        value_key = id(value)
    if bounds is None:
        return value_key, None
    if type(bounds) in (list, tuple) and len(bounds) <= CONTENT_KEY_SIZE:
        items: list[Any] = []
        for x in bounds:
            if type(x) is int:
                items.append(x)
            elif type(x) is Dimension:
                items.append((x.min, x.max))
            else:
                return value_key, id(bounds)
        return value_key, type(bounds), tuple(items)
    return value_key, id(bounds)


def copyable_type(t: TensorType) -> bool:
    """A type whose value is None or a numeric/bool numpy array and whose bounds are None or a
    list/tuple (of immutable ints and Dimensions): fresh_type makes an independent equal copy."""
    value, bounds = t.value, t.bounds
    return ((value is None or (type(value) is np.ndarray and value.dtype.kind in "biufc"))
            and (bounds is None or type(bounds) in (list, tuple)))


def fresh_type(t: TensorType) -> TensorType:
    """An equal TensorType with its own copy of the value (read-only when the original is) and of
    the bounds list; a type without either is immutable and returned as it is."""
    value, bounds = t.value, t.bounds
    if value is None and bounds is None:
        return t
    if value is not None:
        copy = value.copy()
        if not value.flags.writeable:
            copy.setflags(write=False)
        value = copy
    if type(bounds) is list:
        bounds = list(bounds)
    return TensorType(t.element_type, t.shape, value, bounds)


_SCALARS = (str, int, float, bool, type(None), ElementType, PartialShape)


def copyable(value: Any) -> bool:
    """Immutable, or a list of immutable items (an op holds it frozen, see graphir.ops.frozen)."""
    return isinstance(value, _SCALARS) or (type(value) in _SEQUENCES and all(isinstance(v, _SCALARS) for v in value))


_SEQUENCES = (tuple, list, FrozenList)


# the slots of every pydantic model, filled through their descriptors (a third cheaper than
# object.__setattr__, which looks each name up on the class first)
new_object = object.__new__
set_dict = BaseModel.__dict__["__dict__"].__set__
set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def template_safe(op: Op) -> bool:
    """An op whose state is only immutable values or frozen lists of them (defaults included),
    without private attributes or extras: a copy of its field dict is a fully independent op."""
    return (op.__pydantic_private__ is None and op.__pydantic_extra__ is None
            and all(copyable(v) for v in op.__dict__.values()))


_CONSTANT_FIELDS = frozenset(("element_type", "shape"))
_CONSTANT_FIELDS_SET = SharedFieldsSet(_CONSTANT_FIELDS)  # every Constant read shares it
_FAST_CONSTANT = (set(Constant.model_fields) == _CONSTANT_FIELDS
                  and set(Constant.__private_attributes__) == {"_data", "_loader"})


def new_constant(et: ElementType, shape: FrozenList, loader: Any) -> Constant:
    """``Constant.model_construct`` without pydantic's per-call default resolution: the fields are
    already typed and checked, and Constant's private attributes are exactly ``_data``/``_loader``."""
    if not _FAST_CONSTANT:
        op = Constant.model_construct(element_type=et, shape=shape)
        op._loader = loader
        return op
    op = new_object(Constant)
    set_dict(op, {"element_type": et, "shape": shape})
    set_fields_set(op, _CONSTANT_FIELDS_SET)
    set_extra(op, None)
    set_private(op, {"_data": None, "_loader": loader})
    return op



def copy_op(template: Op) -> Op:
    """A new op of ``template``'s class and field values (``template`` passed template_safe)."""
    op = new_object(type(template))
    set_dict(op, template.__dict__.copy())
    set_fields_set(op, template.__pydantic_fields_set__)
    set_extra(op, None)
    set_private(op, None)
    return op


class InferenceMemo:
    """Inference remembered within one read, per (op key, input types, their known values' keys):
    the same op on the same types infers the same outputs, and large files repeat both. Input types
    with known values take part by :func:`known_key` (content when small, else identity); outputs with
    values are remembered as private copies and handed out as fresh copies (no two nodes share one)."""

    def __init__(self) -> None:
        self._known: dict[tuple[Any, ...], tuple[tuple[TensorType, ...], bool]] = {}

    @staticmethod
    def key(op_key: Any, in_types: tuple[TensorType, ...]) -> tuple[Any, ...]:
        """The memo key of an op (``op_key``: its class and attributes) on ``in_types``; the types
        keep the known values whose ids the key may hold alive."""
        for t in in_types:
            if t.value is not None or t.bounds is not None:
                return op_key, in_types, tuple([known_key(t) for t in in_types])
        return op_key, in_types, None

    def recall(self, key: tuple[Any, ...]) -> list[TensorType] | None:
        """The output types remembered under ``key`` (values fresh copies), or None."""
        hit = self._known.get(key)
        if hit is None:
            return None
        types, with_values = hit
        return [fresh_type(t) for t in types] if with_values else list(types)

    def remember(self, key: tuple[Any, ...], outputs: list[TensorType]) -> None:
        """Keep ``outputs`` under ``key``, unless a value in them cannot be copied independently."""
        if all(t.value is None and t.bounds is None for t in outputs):
            self._known[key] = (tuple(outputs), False)
        elif all(copyable_type(t) for t in outputs):
            self._known[key] = (tuple([fresh_type(t) for t in outputs]), True)
