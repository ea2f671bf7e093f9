"""Numerics profiles (placeholder until the numerics package lands): which evaluate a run plan
calls for an op. ``reference``: the op's own ``evaluate`` (its spec semantics in plain numpy);
``openvino-cpu``: the CPU plugin's arithmetic where a profile override exists."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

PROFILES = ("reference", "openvino-cpu")


def evaluator(op: Any, profile: str) -> Callable[..., Any]:
    """The evaluate to call for ``op`` under ``profile`` (no overrides registered yet)."""
    return op.evaluate  # type: ignore[no-any-return]
