"""One exception family. Every message names the place (file, node, port) and the rule broken.

Messages stay short whatever the input: a value echoed into a message goes through :func:`clip`,
and as a safety net a message longer than :data:`MAX_MESSAGE` characters keeps its head and its
tail (where the place and the rule are) and says how much was left out.
"""
from __future__ import annotations

from typing import Any

#: the longest error message kept whole, in characters
MAX_MESSAGE = 4000
#: how much of one echoed value :func:`clip` keeps, in characters
MAX_ECHO = 200


def clip(value: Any, limit: int = MAX_ECHO) -> str:
    """``str(value)`` cut to ``limit`` characters, saying how many were left out."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


def clip_repr(value: Any, limit: int = MAX_ECHO) -> str:
    """``repr(value)`` cut like :func:`clip` (for values echoed with their quotes)."""
    if isinstance(value, (str, bytes)) and len(value) > 4 * limit:
        value = value[:limit + 1]  # a repr of a 100 MB string is not built only to be cut
    return clip(repr(value), limit)


def _shorten(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    head, tail = MAX_MESSAGE * 3 // 4, MAX_MESSAGE // 4
    return f"{message[:head]} ... ({len(message) - head - tail:,} characters left out) ... {message[-tail:]}"


class GraphirError(Exception):
    """Base of every error graphir raises on purpose."""

    def __init__(self, *args: Any) -> None:
        if len(args) == 1 and isinstance(args[0], str):
            args = (_shorten(args[0]),)
        super().__init__(*args)


class ElementTypeError(GraphirError, ValueError):
    """An unknown element type name, or element types that do not fit a rule."""


class ShapeError(GraphirError, ValueError):
    """A shape string that does not parse, or shapes that do not fit a rule."""


class BroadcastError(ShapeError):
    """Shapes that cannot be broadcast under the requested mode."""


class OpDefinitionError(GraphirError, ValueError):
    """An op constructed with bad attributes, or an unknown (dialect, type, version)."""


class FrozenAttributeError(GraphirError, TypeError):
    """An attribute value of an op changed in place (``op.strides.append(3)``): attributes are
    immutable values; ``node.set_attribute(name, value)`` replaces one (validated, re-inferred)."""


class InferenceError(GraphirError):
    """Shape/type inference of a node failed; the message names the node and its inputs."""


class GraphError(GraphirError, ValueError):
    """A structurally invalid graph: a dangling or doubly connected input, a cycle, a bad port."""


class EvaluationError(GraphirError):
    """A node failed while running; the message names the node and its inputs."""


class EmptyInputError(EvaluationError):
    """A node whose outputs hold elements but whose kernel cannot compute them from an input with
    none (a zero-size dim): a ROIAlign over a batch of 0 images, an Interpolate of a width of 0 to 5.
    Outputs that are themselves empty are never computed (graphir.specialize), so this is the one
    refusal a zero-size dim meets at run time; the message names the node and the empty input."""


class InputError(GraphirError, ValueError):
    """A model input that does not match its Parameter (name, element type or shape)."""


class SerializationError(GraphirError, ValueError):
    """A file that cannot be read or written; the message names the file and the place in it."""


class ConversionError(GraphirError, ValueError):
    """A node that the target dialect cannot express; the message gives the reason."""


class UnsupportedOpError(GraphirError):
    """An opaque op (loaded but not implemented) was asked to infer or run."""


class FileInferenceError(SerializationError, InferenceError):
    """A file whose layers are inconsistent (shape or type inference of a layer failed while reading
    it): a SerializationError naming the file and layer, and an InferenceError (the model, not the
    file's syntax, is at fault; the CLI exits 1)."""


def file_error(message: str, cause: BaseException) -> SerializationError:
    """The error a reader raises for ``cause`` met at a place in a file: inference failures stay
    inference failures (FileInferenceError), anything else is a SerializationError."""
    if isinstance(cause, InferenceError):
        return FileInferenceError(message)
    return SerializationError(message)


class ResourceLimitError(GraphirError):
    """A tensor (or a file's count or depth of something) beyond a documented limit; the message
    names the place, the size asked for and the limit (see :mod:`graphir.limits`)."""
