"""What ``graphir schema`` says when an op is not in the asked dialect or version: the dialect's
op of the same name in another spelling (``Relu`` -> oneDNN's ``ReLU``), the op graphir converts
it to there (``Select`` -> DirectML's ``ElementWiseIf``), and versions past the newest opset."""
from __future__ import annotations

from graphir.errors import GraphirError, OpDefinitionError
from graphir.ops.registry import all_ops, find, version_number


def check_version(dialect: str, type_name: str, version: str | None) -> None:
    """An OpDefinitionError for a version past every version of the dialect (``opset99``): a
    lookup would give the newest op, as if the version existed."""
    if version is None:
        return
    newest = max((cls.version for cls in all_ops(dialect)), key=version_number, default=None)
    if newest is not None and version_number(version) > version_number(newest):
        known = sorted({c.version for c in all_ops(dialect) if c.type_name == type_name}, key=version_number)
        raise OpDefinitionError(f"{dialect} has no version '{version}' (the newest is {newest})"
                                + (f"; {type_name} has {', '.join(known)}" if known else ""))


def equivalents(dialect: str, type_name: str) -> list[str]:
    """The ``dialect`` op types ``type_name`` may mean: the same name in another case, then what
    graphir's converter makes of that op from another dialect."""
    names = sorted({cls.type_name for cls in all_ops(dialect)})
    found = [n for n in names if n.lower() == type_name.lower()]
    for source in sorted({cls.dialect for cls in all_ops()} - {dialect}):
        cls = find(source, type_name)
        if cls is not None:
            found += [t for t in _converted(cls, dialect) if t not in found]
    return found


def _converted(cls: type, dialect: str) -> list[str]:
    """The op types converting one node of ``cls`` (default attributes, inputs of a type each
    port allows) into ``dialect`` gives; none when graphir cannot build or convert it."""
    from graphir import opset
    from graphir.convert.base import convert_model, find_converter
    from graphir.model import Model
    from graphir.node import Node

    if find_converter(cls.dialect, dialect, cls.type_name) is None:  # type: ignore[attr-defined]
        return []
    try:
        params = [opset.parameter([2, 2], str(p.types[0]) if p.types else "f32")
                  for p in cls.inputs if not p.optional]  # type: ignore[attr-defined]
        node = Node(cls(), params)
        model = Model(node.outputs(), [p.node for p in params])
        converted = convert_model(model, dialect)
    except GraphirError:
        return []
    boundary = {"Parameter", "Constant", "Result"}
    return list(dict.fromkeys(n.type_name for n in converted.get_ordered_ops() if n.type_name not in boundary))
