"""Imports every per-op override module of the openvino-cpu profile (each registers on import)."""
from __future__ import annotations

from graphir.numerics.openvino_cpu import (depthwise, detection_ties, dft, divide, empty_reductions,
                                           hard_activations, random_uniform, sigmoid, softmax, topk)

__all__ = ["depthwise", "detection_ties", "dft", "divide", "empty_reductions", "hard_activations", "random_uniform", "sigmoid",
           "softmax", "topk"]
