"""Dialect passes: Model -> Model. See :mod:`graphir.convert.base`."""
from graphir.convert.base import convert_model, register_converter

__all__ = ["convert_model", "register_converter"]
