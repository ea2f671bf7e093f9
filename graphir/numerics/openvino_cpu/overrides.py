"""Imports every per-op override module of the openvino-cpu profile (each registers on import)."""
from __future__ import annotations

from graphir.numerics.openvino_cpu import dft, divide, empty_reductions, sigmoid, softmax, topk

__all__ = ["dft", "divide", "empty_reductions", "sigmoid", "softmax", "topk"]
