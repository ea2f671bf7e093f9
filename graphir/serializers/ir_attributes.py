"""IR ``<data>`` attributes <-> op fields, driven by the op's pydantic field annotations.

For op authors:

* A field's name is the OpenVINO attribute name. When that spelling is not a Python identifier,
  give it as the alias: ``axis: int = Field(0, alias="auto_broadcast.auto_broadcast_axis")``.
* Decoding follows the annotation: ``bool`` reads ``true``/``false``; ``int``/``float`` as numbers;
  ``list[...]``/``tuple[...]`` split on commas (OpenVINO writes ``"1, 1"``); ``Literal``/``str``/
  enums take the string; ``ElementType`` the lower-case name; ``PartialShape`` OpenVINO's form.
  ``X | None`` fields are left unset when the attribute is absent.
* Encoding writes bools as ``true``/``false``, floats as ``%.17g`` (as OpenVINO's serializer does),
  vectors joined with ``", "``, element types lower-case, partial shapes in IR form; ``None`` is
  not written. A value read from a file and left unchanged is written back with its original text.
* Attributes a known op does not declare are kept (``node.extra["ir_unknown_attributes"]``) and
  written back unchanged.
* Ops whose attributes need more than this register a hook::

      from graphir.serializers.ir_attributes import register_ir_hook
      register_ir_hook("Select", read=fn(raw: dict[str, str]) -> dict[str, str],
                       write=fn(op, encoded: dict[str, str]) -> dict[str, str])

  ``read`` rewrites the raw attribute strings before the generic decoding (its keys must then be
  field names or aliases); ``write`` adjusts the generically encoded strings (add, drop, rename).
  The hook is keyed by the op's ``type_name`` (not the IR spelling); ``version`` may narrow it.
"""
from __future__ import annotations

import enum
import functools
import math
import types as pytypes
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from graphir.errors import GraphirError, SerializationError, clip
from graphir.ops.base import Op
from graphir.shapes import PartialShape
from graphir.types import ElementType

ReadHook = Callable[[dict[str, str]], dict[str, str]]
WriteHook = Callable[[Op, dict[str, str]], dict[str, str]]


@dataclass(frozen=True)
class IRHook:
    read: ReadHook | None = None
    write: WriteHook | None = None


_HOOKS: dict[tuple[str, str | None], IRHook] = {}

#: fields never written as <data> attributes (handled by the serializer itself)
STRUCTURAL_FIELDS = {"body", "then_body", "else_body", "input_descriptions", "output_descriptions",
                     "back_edges"}
#: If's per-branch port maps (written as <then_port_map>/<else_port_map>)
STRUCTURAL_FIELDS |= {f"{branch}_{kind}_descriptions" for branch in ("then", "else") for kind in ("input", "output")}


def register_ir_hook(type_name: str, read: ReadHook | None = None, write: WriteHook | None = None,
                     version: str | None = None) -> None:
    """Register special IR attribute handling for op ``type_name`` (optionally one version)."""
    _HOOKS[(type_name, version)] = IRHook(read, write)
    _HOOK_OF.clear()
    _encode_plan.cache_clear()


#: op class -> its hook (or None), remembered until the next registration (a read asks per layer)
_HOOK_OF: dict[type, "IRHook | None"] = {}


def _hook(cls: type[Op]) -> IRHook | None:
    try:
        return _HOOK_OF[cls]
    except KeyError:
        hook = _HOOK_OF[cls] = _HOOKS.get((cls.type_name, cls.version)) or _HOOKS.get((cls.type_name, None))
        return hook


# --- encoding --------------------------------------------------------------------------------
def format_float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return "%.17g" % value


def encode_value(value: Any) -> str | None:
    """One attribute value as IR text; None means: do not write it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, ElementType):
        return value.value
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, PartialShape):
        return value.to_ir()
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return ", ".join(encode_value(v) or "" for v in value)
    if hasattr(value, "item"):  # numpy scalar
        return encode_value(value.item())
    return str(value)


@functools.cache
def _encode_plan(cls: type[Op]) -> tuple[tuple[tuple[str, str, Any], ...], IRHook | None, bool]:
    """What encoding an op class's attributes needs, worked out once per class: (field name, IR
    key, annotation) of each written field in order, its write hook, whether it has auto_broadcast
    (pydantic's ``model_fields`` is a slow property; cleared when a hook is registered)."""
    fields = tuple((name, info.alias or name, info.annotation) for name, info in cls.model_fields.items()
                   if name not in STRUCTURAL_FIELDS)
    order = cls.ir_attribute_order
    if order:  # OpenVINO's order; sorted() is stable, so unlisted keys keep theirs after the listed ones
        fields = tuple(sorted(fields, key=lambda f: order.index(f[1]) if f[1] in order else len(order)))
    return fields, _hook(cls), "auto_broadcast" in cls.model_fields


#: decoded attribute texts, to compare a kept text with the current value (bounded): keyed by
#: the annotation's id (typing's Literal hashes slowly), which the entry keeps alive
_DECODED: dict[tuple[str, int], tuple[Any, Any]] = {}
_DECODED_LIMIT = 1 << 16


def _decoded(text: str, annotation: Any) -> Any:
    """``_decode(text, annotation)``, remembered for short texts (the value is only compared)."""
    if len(text) > 256:
        return _decode(text, annotation)
    key = (text, id(annotation))
    known = _DECODED.get(key)
    if known is not None and known[0] is annotation:
        return known[1]
    value = _decode(text, annotation)
    if len(_DECODED) >= _DECODED_LIMIT:
        _DECODED.clear()
    _DECODED[key] = (annotation, value)
    return value


def encode_attributes(node: Any) -> dict[str, str]:
    """The ``<data>`` attributes of a node's op, in field order, unknown ones appended."""
    op: Op = node.op
    fields, hook, has_auto_broadcast = _encode_plan(type(op))
    extra = node.extra
    original: dict[str, str] = extra.get("ir_attribute_text") or {}
    values = op.__dict__
    out: dict[str, str] = {}
    for name, key, annotation in fields:
        value = values[name] if name in values else getattr(op, name)
        text = original.get(key)
        if text is not None:
            try:
                if _decoded(text, annotation) == value:
                    out[key] = text
                    continue
            except (ValueError, TypeError, GraphirError):
                pass
        encoded = encode_value(value)
        if encoded is not None:
            out[key] = encoded
    if hook is not None and hook.write is not None:
        out = hook.write(op, out)
    if has_auto_broadcast and getattr(op, "auto_broadcast", None) != "pdpd":
        out.pop(_AXIS, None)  # OpenVINO writes the axis only for pdpd
    unknown = extra.get("ir_unknown_attributes")
    if unknown:
        for key, text in unknown.items():
            out.setdefault(key, text)
    return out


# --- decoding --------------------------------------------------------------------------------
def _strip_optional(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, pytypes.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _split(text: str) -> list[str]:
    s = text.strip()
    if s in ("", "[]"):
        return []
    if s[0] in "[(" and s[-1] in "])":
        s = s[1:-1]
    return [p.strip() for p in s.split(",")]


def _decode(text: str, annotation: Any) -> Any:
    """The Python value for ``text`` under ``annotation`` (pydantic then validates it)."""
    ann = _strip_optional(annotation)
    origin = typing.get_origin(ann)
    if ann is bool:
        low = text.strip().lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
        raise ValueError(f"'{clip(text)}' is not a boolean (true/false)")
    if ann is int:
        return int(text.strip())
    if ann is float:
        return float(text.strip())
    if origin in (list, tuple) or ann in (list, tuple):
        args = typing.get_args(ann)
        inner = args[0] if args else str
        return [_decode(p, inner) for p in _split(text)]
    if origin is Literal:
        options = typing.get_args(ann)
        if text in options:
            return text
        low = text.lower()
        for opt in options:
            if isinstance(opt, str) and opt.lower() == low:
                return opt
        return text
    if isinstance(ann, type) and issubclass(ann, ElementType):
        return ElementType.parse(text)
    if ann is PartialShape:
        return PartialShape.parse_ir(text)
    if origin in (typing.Union, pytypes.UnionType):
        for arm in typing.get_args(ann):
            if arm is type(None):
                continue
            try:
                return _decode(text, arm)
            except (ValueError, TypeError, GraphirError):
                continue
        return text
    return text


@functools.cache
def _field_table(cls: type[Op]) -> dict[str, str]:
    """IR attribute spelling (alias, else the name) and the field name itself -> field name."""
    table: dict[str, str] = {}
    for name, info in cls.model_fields.items():
        table[info.alias or name] = name
        table.setdefault(name, name)
    return table


@functools.cache
def _annotations(cls: type[Op]) -> dict[str, Any]:
    return {name: info.annotation for name, info in cls.model_fields.items()}


#: the longest attribute text decoded for a known op (checked before decoding): a rank-65,536
#: shape of 18-digit dims fits; a 100 MB ``shape=`` is refused at once instead of being split
MAX_ATTRIBUTE_CHARS = 1 << 21


def decode_attributes(cls: type[Op], raw: dict[str, str], where: str) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """(field values by field name, unknown attributes, original text of the known ones)."""
    hook = _hook(cls)
    if "auto_broadcast" in cls.model_fields:
        raw = _autobroadcast_read(dict(raw))
    if hook is not None and hook.read is not None:
        raw = hook.read(dict(raw))
    for key, text in raw.items():
        if len(text) > MAX_ATTRIBUTE_CHARS:
            raise SerializationError(f"{where}: attribute {key}=\"{clip(text)}\" holds {len(text):,} characters, "
                                     f"more than graphir decodes in one attribute ({MAX_ATTRIBUTE_CHARS:,})")
    by_key = _field_table(cls)
    values: dict[str, Any] = {}
    unknown: dict[str, str] = {}
    original: dict[str, str] = {}
    for key, text in raw.items():
        name = by_key.get(key)
        if name is None or name in STRUCTURAL_FIELDS:
            unknown[key] = text
            continue
        try:
            values[name] = _decode(text, _annotations(cls)[name])
        except (ValueError, TypeError, GraphirError) as exc:
            raise SerializationError(f"{where}: attribute {key}=\"{clip(text)}\" is not valid for "
                                     f"{cls.describe()}: {clip(exc, 400)}") from None
        original[key] = text
    return values, unknown, original


# --- auto_broadcast (every op that has it) and Select's pdpd axis (its field is named `axis`)
_AXIS = "auto_broadcast.auto_broadcast_axis"


def _autobroadcast_read(raw: dict[str, str]) -> dict[str, str]:
    """Any op with ``auto_broadcast``: the value is case-insensitive and "explicit" means none."""
    if "auto_broadcast" in raw:
        value = raw["auto_broadcast"].strip().lower()
        raw["auto_broadcast"] = "none" if value == "explicit" else value
    return raw


def _select_read(raw: dict[str, str]) -> dict[str, str]:
    if _AXIS in raw:
        raw["axis"] = raw.pop(_AXIS)
    return raw


def _autobroadcast_write(op: Op, encoded: dict[str, str]) -> dict[str, str]:
    axis = encoded.pop("axis", None)
    if getattr(op, "auto_broadcast", None) == "pdpd" and axis is not None:
        encoded[_AXIS] = axis
    return encoded


register_ir_hook("Select", read=_select_read, write=_autobroadcast_write)
