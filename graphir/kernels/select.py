"""The Select kernel shared by OpenVINO Select, oneDNN Select and DirectML ElementWiseIf.

Bit-identical to ``numpy.where(cond, then, else)`` with the output dtype of ``then``.
"""
from __future__ import annotations

import numpy as np


def select(cond: np.ndarray, then: np.ndarray, otherwise: np.ndarray) -> np.ndarray:
    """``where(cond, then, otherwise)`` broadcast numpy-style, in ``then``'s dtype."""
    cond = np.asarray(cond)
    if cond.dtype != np.bool_:
        cond = cond != 0
    out = np.where(cond, then, otherwise)
    if out.dtype != then.dtype:
        out = out.astype(then.dtype)
    return out
