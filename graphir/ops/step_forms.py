"""How a prepared evaluate says it is one numpy call wrapped in a list, so that a compiled run
(graphir.step_code) may call numpy directly: ``inline(step, kind, target, port)``."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_Step = TypeVar("_Step", bound=Callable[..., Any])

#: the array methods a "method" form may name
METHODS = frozenset({"reshape", "transpose"})


def inline(step: _Step, kind: str, target: Any, port: int = -1) -> _Step:
    """Mark ``step`` (a prepared evaluate returning ``[one array]``) as equivalent to a direct call:

    * ``"call"``: ``step(*args) == [target(*args)]``;
    * ``"call_out"``: ``step(*args) == [target(*args, out=args[port])]``;
    * ``"method"``: ``step(x, *rest) == [getattr(x, target[0])(target[1])]`` whenever
      ``type(x) is np.ndarray`` (``target[0]`` in :data:`METHODS`).

    The form is stored with ``step`` itself: a wrapper that copies its attributes
    (``functools.wraps``) does not pass for it. Returns ``step``."""
    step.inline = (step, kind, target, port)  # type: ignore[attr-defined]
    return step
