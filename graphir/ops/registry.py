"""Op registry: (dialect, type name, version) -> op class, filled by declaring a class.

Op modules are imported on first use: a generated index (:mod:`graphir.ops._index`, written by
``python scripts/generate.py``) tells which module defines each (dialect, type, version), and a
lookup imports only the modules of the type it asks for. A type the index does not know (an op
declared since the index was last generated) makes the registry import every module under
``graphir.ops`` once, so a new op needs only its class; ``tests/test_generated.py`` fails until
the index is regenerated. Versions are ordered by their trailing number (``opset1`` < ``opset13``); asking for a type at a
later opset than any defined resolves to the newest version not above it, as OpenVINO's IR
reader does (a Select at ``opset8`` is Select-1).
"""
from __future__ import annotations

import difflib
import importlib
import os
import pkgutil
import re
from typing import TYPE_CHECKING

from graphir.errors import OpDefinitionError

if TYPE_CHECKING:
    from graphir.ops.base import Op

_REGISTRY: dict[tuple[str, str, str], type["Op"]] = {}
_ALIASES: dict[tuple[str, str], str] = {}  # (dialect, serialized name) -> type name
_loaded = False
#: (dialect, type name) -> modules the generated index says define it (built on first use)
_MODULES_BY_TYPE: dict[tuple[str, str], tuple[str, ...]] | None = None
_imported: set[str] = set()
#: key -> the class an ``override=True`` class replaced there
_OVERRIDDEN: dict[tuple[str, str, str], type["Op"]] = {}
#: bumped by every change of _REGISTRY (see generation)
_CHANGES = [0]


def generation() -> int:
    """A number that changes whenever a class is registered, replaced or unregistered: what a
    reader's per-process cache of lookups compares to know its answers still hold."""
    return _CHANGES[0]


def type_names(dialect: str) -> list[str]:
    """The type names registered in ``dialect`` (by the modules imported so far), then the other
    spellings serialized files use for them (``serialized_type_names``)."""
    return [t for (d, t, _) in _REGISTRY if d == dialect] + [a for (d, a) in _ALIASES if d == dialect]


def register(cls: type["Op"], override: bool = False) -> type["Op"]:
    """Enter ``cls`` under its (dialect, type, version). A second class for a key is refused unless
    declared ``class X(Op, override=True)``; an override replaces the class it names whichever is
    imported first (the overridden one is imported first if it was not yet, and when a module
    defining it is imported later the override stays)."""
    key = (cls.dialect, cls.type_name, cls.version)
    _load_defining_modules(cls)
    existing = _REGISTRY.get(key)
    if existing is not None and existing is not cls and not _same_definition(existing, cls):
        if key in _OVERRIDDEN and not override:  # the overridden class, imported after its override
            _OVERRIDDEN[key] = cls
            return cls
        if not override:
            raise OpDefinitionError(
                f"op {cls.describe()} is defined twice: {_name(existing)} and {_name(cls)}; "
                f"declare the second 'class {cls.__name__}(..., override=True)' to replace the first"
            )
        _OVERRIDDEN[key] = existing
    elif override and existing is None:
        raise OpDefinitionError(f"{_name(cls)} is declared override=True but no op {cls.describe()} "
                                "is defined to override")
    _REGISTRY[key] = cls
    _CHANGES[0] += 1
    for alias in cls.serialized_type_names.values():
        _ALIASES[(cls.dialect, alias)] = cls.type_name
    return cls


def _name(cls: type["Op"]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _same_definition(a: type["Op"], b: type["Op"]) -> bool:
    """The same class declared again (its module re-imported or reloaded), not a second one."""
    return a.__module__ == b.__module__ and a.__qualname__ == b.__qualname__


def _load_defining_modules(cls: type["Op"]) -> None:
    """Import graphir's modules that define ``cls``'s key (not ``cls``'s own), so that a class
    declared outside them meets the class it would replace whatever the import order."""
    from graphir.ops._index import OPS

    module = OPS.get((cls.dialect, cls.type_name, cls.version))
    if module is not None and module != cls.__module__ and module not in _imported:
        importlib.import_module(module)
        _imported.add(module)


def load_all() -> None:
    """Import every module below ``graphir.ops`` so that their classes register."""
    global _loaded
    if _loaded:
        return
    _loaded = True  # set first: modules being imported may look ops up themselves
    try:  # the package's directory, walked without importing the package (it imports this module)
        for info in pkgutil.walk_packages([os.path.dirname(os.path.abspath(__file__))], prefix="graphir.ops."):
            importlib.import_module(info.name)
    except BaseException:
        _loaded = False  # a broken module: let the next lookup report it again
        raise


def _index() -> dict[tuple[str, str], tuple[str, ...]]:
    global _MODULES_BY_TYPE
    if _MODULES_BY_TYPE is None:
        from graphir.ops._index import OPS

        by_type: dict[tuple[str, str], list[str]] = {}
        for (dialect, type_name, _version), module in OPS.items():
            modules = by_type.setdefault((dialect, type_name), [])
            if module not in modules:
                modules.append(module)
        _MODULES_BY_TYPE = {key: tuple(modules) for key, modules in by_type.items()}
    return _MODULES_BY_TYPE


def _load_type(dialect: str, type_name: str) -> bool:
    """Import the modules defining ``type_name`` in ``dialect``; False when the index does not
    know the type (then every module is imported: the index may be older than the op)."""
    if _loaded:
        return True
    modules = _index().get((dialect, type_name))
    if modules is None:
        load_all()
        return False
    for module in modules:
        if module not in _imported:
            importlib.import_module(module)
            _imported.add(module)
    return True


def unregister(cls: type["Op"]) -> None:
    """Forget ``cls`` (tests that declare throw-away ops clean up with this)."""
    key = (cls.dialect, cls.type_name, cls.version)
    if _REGISTRY.get(key) is cls:
        del _REGISTRY[key]
        _CHANGES[0] += 1
        replaced = _OVERRIDDEN.pop(key, None)
        if replaced is not None:  # an override withdrawn: the class it replaced is back
            _REGISTRY[key] = replaced
    for alias in cls.serialized_type_names.values():
        if not any(d == cls.dialect and t == cls.type_name for (d, t, _) in _REGISTRY):
            _ALIASES.pop((cls.dialect, alias), None)


#: a numbered version ("opset8", "1"), as opposed to a named one
_NUMBERED = re.compile(r"[A-Za-z_]*\d+")


def version_number(version: str) -> int:
    m = re.search(r"(\d+)$", version)
    return int(m.group(1)) if m else 0


def canonical_type_name(dialect: str, name: str) -> str:
    """The type name for ``name``, which may be a serialized spelling (IR ``Const``, ``ReLU``)."""
    alias = _ALIASES.get((dialect, name))
    if alias is not None:
        return alias
    if not _loaded:
        from graphir.ops._index import ALIASES

        alias = ALIASES.get((dialect, name))
        if alias is not None:
            return alias
        if (dialect, name) not in _index():
            load_all()
            return _ALIASES.get((dialect, name), name)
    return name


def lookup(dialect: str, type_name: str, version: str | None = None) -> type["Op"]:
    """The op class for (dialect, type, version); version None gives the newest.

    A version between two defined ones resolves to the newest not above it; an unknown key is an
    OpDefinitionError that lists what is known.
    """
    found = find(dialect, type_name, version)
    if found is None:
        load_all()  # the message lists what is known
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
    """The op class for (dialect, type, version) as :func:`lookup` resolves it; None if unknown."""
    name = canonical_type_name(dialect, type_name)
    _load_type(dialect, name)
    found = _resolve(dialect, name, version)
    if found is None and not _loaded:  # e.g. a version declared in a module the index lacks
        load_all()
        found = _resolve(dialect, name, version)
    return found


def registered_exactly(dialect: str, type_name: str, version: str) -> type["Op"] | None:
    """The class registered under exactly (dialect, type, version), ``type_name`` possibly a
    serialized spelling; no nearest-version resolution (an extension's named version)."""
    return _REGISTRY.get((dialect, canonical_type_name(dialect, type_name), version))


def _resolve(dialect: str, name: str, version: str | None) -> type["Op"] | None:
    if version is not None and (dialect, name, version) in _REGISTRY:
        return _REGISTRY[(dialect, name, version)]
    candidates = [(version_number(v), v, cls) for (d, t, v), cls in _REGISTRY.items() if d == dialect and t == name]
    if not candidates:
        return None
    if version is None:
        return max(candidates, key=lambda c: c[0])[2]
    if not _NUMBERED.fullmatch(version):
        return None  # a named version (an extension's "my_ext") is only ever its own key
    wanted = version_number(version)
    # the newest numbered version not above it (a named version is not a number: never a nearest)
    eligible = [c for c in candidates if c[0] <= wanted and _NUMBERED.fullmatch(c[1])]
    return max(eligible, key=lambda c: c[0])[2] if eligible else None


def all_ops(dialect: str | None = None) -> list[type["Op"]]:
    load_all()
    return [cls for (d, _, _), cls in sorted(_REGISTRY.items(), key=lambda kv: (kv[0][0], kv[0][1], version_number(kv[0][2])))
            if dialect is None or d == dialect]
