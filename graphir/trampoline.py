"""Nested work without nested Python calls.

Bodies nest in bodies (an If in a Loop in an If ...) as deep as a file says. Running or inferring
them by plain calls would nest one set of Python frames per level, so a deep enough file ends in
``RecursionError``. Work that contains work of its own kind is written instead as a generator, a
*task*: where it needs the result of inner work it yields the inner task, and the result comes
back as the value of the ``yield`` (an inner failure is raised at the ``yield``). :func:`drive`
runs a task to its result with an explicit stack of tasks, so the Python stack stays flat at any
depth; only memory bounds it.

    def run_body(body, args):                 # a task
        for step in steps(body):
            if has_bodies(step):
                outs = yield step.op.evaluate_task(*args_of(step))
            ...
        return results

    results = drive(run_body(body, args))
"""
from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

__all__ = ["Task", "drive"]

T = TypeVar("T")

#: a task: yields inner tasks, receives their results, returns its own result
Task = Generator["Task[Any]", Any, T]


def drive(task: "Task[T]") -> T:
    """Run ``task`` and every task it yields, innermost first, on an explicit stack; its result.

    An exception raised by an inner task is thrown into the task that yielded it (which may catch
    it, e.g. to name its own node, or let it pass on up)."""
    stack: list[Task[Any]] = [task]
    value: Any = None
    error: BaseException | None = None
    while True:
        top = stack[-1]
        try:
            if error is None:
                inner = top.send(value)
            else:
                failure, error = error, None
                inner = top.throw(failure)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value  # type: ignore[no-any-return]
            value = done.value
            continue
        except BaseException as exc:  # noqa: BLE001 - handed to the task below, or raised at the bottom
            stack.pop()
            if not stack:
                raise
            value, error = None, exc
            continue
        stack.append(inner)
        value = None
