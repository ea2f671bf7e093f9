"""Op schemas, one module per op family and dialect. See :mod:`graphir.ops.base`."""
from graphir.ops.base import INDEX, INTEGRAL, NUMERIC, REAL, Op, Port, TensorType, types
from graphir.ops.registry import all_ops, find, lookup

__all__ = ["Op", "Port", "TensorType", "types", "lookup", "find", "all_ops", "REAL", "INTEGRAL", "NUMERIC", "INDEX"]
