"""Imports every per-op override module of the openvino-cpu profile (each registers on import)."""
from __future__ import annotations

from graphir.numerics.openvino_cpu import dft, divide, hard_activations, random_uniform, sigmoid, topk

__all__ = ["dft", "divide", "hard_activations", "random_uniform", "sigmoid", "topk"]
