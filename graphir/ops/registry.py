"""Op registry: (dialect, type name, version) -> op class, filled by declaring a class.

Every module under ``graphir.ops`` is imported on first lookup, so a new op needs only its class.
Versions are ordered by their trailing number (``opset1`` < ``opset13``); asking for a type at a
later opset than any defined resolves to the newest version not above it, as OpenVINO's IR
reader does (a Select at ``opset8`` is Select-1).
"""
from __future__ import annotations

import difflib
import importlib
import pkgutil
import re
from typing import TYPE_CHECKING

from graphir.errors import OpDefinitionError

if TYPE_CHECKING:
    from graphir.ops.base import Op

_REGISTRY: dict[tuple[str, str, str], type["Op"]] = {}
_ALIASES: dict[tuple[str, str], str] = {}  # (dialect, serialized name) -> type name
_loaded = False


def register(cls: type["Op"]) -> type["Op"]:
    key = (cls.dialect, cls.type_name, cls.version)
    existing = _REGISTRY.get(key)
    if existing is not None and existing is not cls and existing.__qualname__ != cls.__qualname__:
        raise OpDefinitionError(
            f"op {cls.describe()} is defined twice: {existing.__module__}.{existing.__qualname__} "
            f"and {cls.__module__}.{cls.__qualname__}"
        )
    _REGISTRY[key] = cls
    for alias in cls.serialized_type_names.values():
        _ALIASES[(cls.dialect, alias)] = cls.type_name
    return cls


def load_all() -> None:
    """Import every module below ``graphir.ops`` so that their classes register."""
    global _loaded
    if _loaded:
        return
    _loaded = True  # set first: modules being imported may look ops up themselves
    import graphir.ops as package

    try:
        for info in pkgutil.walk_packages(package.__path__, prefix="graphir.ops."):
            importlib.import_module(info.name)
    except BaseException:
        _loaded = False  # a broken module: let the next lookup report it again
        raise


def unregister(cls: type["Op"]) -> None:
    """Forget ``cls`` (tests that declare throw-away ops clean up with this)."""
    key = (cls.dialect, cls.type_name, cls.version)
    if _REGISTRY.get(key) is cls:
        del _REGISTRY[key]
    for alias in cls.serialized_type_names.values():
        if not any(d == cls.dialect and t == cls.type_name for (d, t, _) in _REGISTRY):
            _ALIASES.pop((cls.dialect, alias), None)


def version_number(version: str) -> int:
    m = re.search(r"(\d+)$", version)
    return int(m.group(1)) if m else 0


def canonical_type_name(dialect: str, name: str) -> str:
    load_all()
    return _ALIASES.get((dialect, name), name)


def lookup(dialect: str, type_name: str, version: str | None = None) -> type["Op"]:
    """The op class for (dialect, type, version); version None gives the newest.

    A version between two defined ones resolves to the newest not above it; an unknown key is an
    OpDefinitionError that lists what is known.
    """
    found = find(dialect, type_name, version)
    if found is None:
        name = canonical_type_name(dialect, type_name)
        versions = sorted(
            (v for (d, t, v) in _REGISTRY if d == dialect and t == name), key=version_number
        )
        if versions:
            raise OpDefinitionError(
                f"{dialect} op '{type_name}' has no version '{version}'; known: {', '.join(versions)}"
            )
        dialects = sorted({d for (d, _, _) in _REGISTRY})
        if dialect not in dialects:
            raise OpDefinitionError(f"unknown dialect '{dialect}' (asked for op '{type_name}'); "
                                    f"known: {', '.join(dialects)}")
        known = sorted({t for (d, t, _) in _REGISTRY if d == dialect} | {a for (d, a) in _ALIASES if d == dialect})
        close = difflib.get_close_matches(type_name, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        asked = "" if version is None else f" (version {version})"
        raise OpDefinitionError(f"unknown {dialect} op '{type_name}'{asked}{hint}")
    return found


def find(dialect: str, type_name: str, version: str | None = None) -> type["Op"] | None:
    load_all()
    name = canonical_type_name(dialect, type_name)
    if version is not None and (dialect, name, version) in _REGISTRY:
        return _REGISTRY[(dialect, name, version)]
    candidates = [(version_number(v), cls) for (d, t, v), cls in _REGISTRY.items() if d == dialect and t == name]
    if not candidates:
        return None
    if version is None:
        return max(candidates, key=lambda c: c[0])[1]
    if not re.fullmatch(r"[A-Za-z_]*\d+", version):
        return None
    wanted = version_number(version)
    eligible = [c for c in candidates if c[0] <= wanted]
    return max(eligible, key=lambda c: c[0])[1] if eligible else None


def all_ops(dialect: str | None = None) -> list[type["Op"]]:
    load_all()
    return [cls for (d, _, _), cls in sorted(_REGISTRY.items(), key=lambda kv: (kv[0][0], kv[0][1], version_number(kv[0][2])))
            if dialect is None or d == dialect]
