"""One exception family. Every message names the place (file, node, port) and the rule broken."""
from __future__ import annotations


class GraphirError(Exception):
    """Base of every error graphir raises on purpose."""


class ElementTypeError(GraphirError, ValueError):
    """An unknown element type name, or element types that do not fit a rule."""


class ShapeError(GraphirError, ValueError):
    """A shape string that does not parse, or shapes that do not fit a rule."""


class BroadcastError(ShapeError):
    """Shapes that cannot be broadcast under the requested mode."""


class OpDefinitionError(GraphirError, ValueError):
    """An op constructed with bad attributes, or an unknown (dialect, type, version)."""


class InferenceError(GraphirError):
    """Shape/type inference of a node failed; the message names the node and its inputs."""


class GraphError(GraphirError, ValueError):
    """A structurally invalid graph: a dangling or doubly connected input, a cycle, a bad port."""


class EvaluationError(GraphirError):
    """A node failed while running; the message names the node and its inputs."""


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
