"""A run's steps as one generated Python function.

:func:`graphir.interpreter._run_steps` walks the steps of a specialization as tuples: per step it
unpacks ten fields, branches on the arity and on how many outputs to store, and loops over the
slots to free. For a small model whose kernels take a microsecond each, that bookkeeping is a large
part of a run (a 51-step encoder: ~3 us of ~80). :func:`compile_steps` writes the same steps as
straight-line code, each step's slots as literals::

    k = 7
    o = f7(values[12], values[3])
    values[14] = o[0] if type(o) is list or type(o) is tuple else outputs(o, 1)[0]
    values[12] = None

and compiles it once per specialization. The code holds integers and the names ``f0...`` only (no
node name, no value from the model), computes exactly what the loop computes, and hands a failure
to ``fail(values, k, exc)``, which names the node as the loop does.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: step lists longer than this run through the loop (compiling costs ~10 us per step, once; the
#: bookkeeping saved is ~0.05 us per step and run)
MAX_COMPILED_STEPS = 3000


def compile_steps(steps: Sequence[tuple[Any, ...]], outputs: Callable[[Any, int], list[Any]],
                  fail: Callable[[list[Any], int, Exception], None]) -> Callable[[list[Any]], None] | None:
    """``run(values)`` doing what the step loop does on ``steps`` (interpreter.Step tuples);
    ``outputs(outs, count)`` checks an evaluate's result that is not a list of ``count`` values,
    ``fail(values, k, exc)`` reports the failure of step ``k``. None when there are too many steps."""
    if not steps or len(steps) > MAX_COMPILED_STEPS:
        return None
    namespace: dict[str, Any] = {}
    try:
        exec(compile(step_source(steps), "<graphir run steps>", "exec"), namespace)  # noqa: S102 - literals only
    except (RecursionError, MemoryError, SyntaxError):  # a compiler limit: the loop runs them
        return None
    run: Callable[[list[Any]], None] = namespace["make"]([step[0] for step in steps], outputs, fail)
    return run


def step_source(steps: Sequence[tuple[Any, ...]]) -> str:
    """The source of ``make(evaluates, outputs, fail)``, which returns the ``run`` of ``steps``:
    integers (slots, counts, step indices) and the names ``f0...`` only."""
    body: list[str] = []
    for k, step in enumerate(steps):
        ins, release = [int(s) for s in step[5]], [int(s) for s in step[8]]
        base, count = int(step[6]), int(step[7])
        body.append(f"k = {k}")
        body.append(f"o = f{k}({', '.join(f'values[{s}]' for s in ins)})")
        if count == 1:
            body.append(f"values[{base}] = o[0] if type(o) is list or type(o) is tuple else outputs(o, 1)[0]")
        else:
            body.append(f"values[{base}:{base + count}] = o if type(o) is list and len(o) == {count} "
                        f"else outputs(o, {count})")
        body.extend(f"values[{s}] = None" for s in release)
    names = ", ".join(f"f{k}" for k in range(len(steps)))
    return "\n".join([
        "def make(evaluates, outputs, fail):",
        f"    {names}, = evaluates",
        "    def run(values):",
        "        k = -1",
        "        try:",
        *(f"            {line}" for line in body),
        "        except Exception as exc:",
        "            fail(values, k, exc)",
        "    return run",
    ])
