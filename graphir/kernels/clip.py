"""numpy's ``clip`` ufunc, called directly.

``np.clip`` is this ufunc behind Python-level argument handling that costs ~1.7 us a call: on a
2,000-element f32 array three times the ufunc's own work, paid by each of MobileNetV3-small's 28
HSwish/HardSigmoid layers every run. The same ufunc, so the same values (a NaN kept, ``-0`` kept);
``np.clip`` itself where numpy does not expose it where expected.
"""
from __future__ import annotations

from typing import Any

import numpy as np

_UFUNC = getattr(getattr(getattr(np, "_core", None), "umath", None), "clip", None)
if not isinstance(_UFUNC, np.ufunc):  # pragma: no cover (numpy moved it: the public function)
    _UFUNC = None


def clip(x: Any, lo: Any, hi: Any, out: np.ndarray | None = None) -> Any:
    """``np.clip(x, lo, hi, out=out)`` (both bounds given)."""
    if _UFUNC is None:  # pragma: no cover
        return np.clip(x, lo, hi, out=out)
    return _UFUNC(x, lo, hi, out=out)
