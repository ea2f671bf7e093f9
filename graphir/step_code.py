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

and compiles it once per specialization. The code holds integers and the names ``f0...``, ``g0...``
only (no node name, no value from the model), computes exactly what the loop computes, and hands a
failure to ``fail(values, k, exc)``, which names the node as the loop does.

**The names are globals of the generated module**, never locals or closure cells of ``run``: in
CPython 3.11 a function's frame holds a slot per local and per free variable, and frames live on
the thread's data stack, in chunks of 16 KiB (doubled until a frame fits) that are mmap'ed when a
call does not fit in the current chunk and unmapped when it returns. With ``f0...``/``g0...`` as
closure cells, ssdlite's 1,664 steps made a 27 KiB frame in a 32 KiB chunk, so the kernels' deeper
Python calls below it kept mapping fresh chunks: 1,468 page faults and ~7 ms more per run than the
loop (74.4 vs 67.2 ms, CPU time). As globals the frame holds five slots: 0 faults, 64.8 ms.

**Inline forms.** A prepared evaluate that is one numpy call wrapped in a list may say so with
:func:`graphir.ops.step_forms.inline` (a binary ufunc ``lambda a, b: [np.add(a, b)]``, a reshape to a fixed shape); its
step then calls numpy directly (``values[14] = g7(values[12], values[3])``), without the wrapper's
call and list: ~0.1 us per step. The form is recorded with the function it describes, so a wrapper
that copies the attributes (``functools.wraps``: the run guard's checks) is never inlined.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from graphir.ops.step_forms import METHODS

#: step lists longer than this run through the loop: compiling costs ~55 us per step, once (ssdlite's
#: 1,664 steps: 91 ms, its first run 353-396 -> 487 ms CPU), for ~0.1 us per step and run saved
#: (ssdlite compiled and looped measured alike, 74.6 ms each, alternated in one process), so ~500 runs
#: to pay back at any size. (Its compiled run was 7-9 ms slower, with 1,468 page faults, only while the
#: evaluates were closure cells: see the module docstring.)
MAX_COMPILED_STEPS = 1000


def _inline_form(evaluate: Any) -> "tuple[str, Any, int] | None":
    form = getattr(evaluate, "inline", None)
    if type(form) is not tuple or len(form) != 4 or form[0] is not evaluate:  # (a wrapper copied it)
        return None
    _, kind, target, port = form
    if kind == "method" and not (type(target) is tuple and len(target) == 2 and target[0] in METHODS):
        return None
    if kind not in ("call", "call_out", "method"):
        return None
    return kind, target, int(port)


def compile_steps(steps: Sequence[tuple[Any, ...]], outputs: Callable[[Any, int], list[Any]],
                  fail: Callable[[list[Any], int, Exception], None]) -> Callable[[list[Any]], None] | None:
    """``run(values)`` doing what the step loop does on ``steps`` (interpreter.Step tuples);
    ``outputs(outs, count)`` checks an evaluate's result that is not a list of ``count`` values,
    ``fail(values, k, exc)`` reports the failure of step ``k``. None when there are too many steps."""
    if not steps or len(steps) > MAX_COMPILED_STEPS:
        return None
    extras: list[Any] = []
    for step in steps:
        form = _inline_form(step[0]) if step[7] == 1 else None
        extras.append(None if form is None else form[1][1] if form[0] == "method" else form[1])
    namespace: dict[str, Any] = {"outputs": outputs, "fail": fail, "ndarray": np.ndarray}
    for k, (step, extra) in enumerate(zip(steps, extras)):
        namespace[f"f{k}"], namespace[f"g{k}"] = step[0], extra
    try:
        exec(compile(step_source(steps), "<graphir run steps>", "exec"), namespace)  # noqa: S102 - literals only
    except (RecursionError, MemoryError, SyntaxError):  # a compiler limit: the loop runs them
        return None
    run: Callable[[list[Any]], None] = namespace["run"]
    return run


def step_source(steps: Sequence[tuple[Any, ...]]) -> str:
    """The source of ``run(values)`` doing ``steps``: integers (slots, counts, step indices), the
    names ``f0...`` (the evaluates), ``g0...`` (their inline targets), ``outputs``, ``fail`` and
    ``ndarray`` (globals of the module it is executed in: see :func:`compile_steps`) and the methods
    of :data:`graphir.ops.step_forms.METHODS` only."""
    body: list[str] = []
    for k, step in enumerate(steps):
        ins, release = [int(s) for s in step[5]], [int(s) for s in step[8]]
        base, count = int(step[6]), int(step[7])
        args = ", ".join(f"values[{s}]" for s in ins)
        body.append(f"k = {k}")
        form = _inline_form(step[0]) if count == 1 else None
        # (o and x are cleared after their step: a local must not keep a freed value alive)
        generic = [f"o = f{k}({args})",
                   f"values[{base}] = o[0] if type(o) is list or type(o) is tuple else outputs(o, 1)[0]",
                   "o = None"]
        if form is not None and form[0] == "call":
            body.append(f"values[{base}] = g{k}({args})")
        elif form is not None and form[0] == "call_out" and 0 <= form[2] < len(ins):
            body.append(f"values[{base}] = g{k}({args}, out=values[{ins[form[2]]}])")
        elif form is not None and form[0] == "method" and ins:
            rest = "".join(f", values[{s}]" for s in ins[1:])
            body += [f"x = values[{ins[0]}]",
                     "if type(x) is ndarray:",
                     f"    values[{base}] = x.{form[1][0]}(g{k})",
                     "else:",
                     f"    o = f{k}(x{rest})",
                     f"    {generic[1]}",
                     "    o = None",
                     "x = None"]
        elif count == 1:
            body += generic
        else:
            body += [f"o = f{k}({args})",
                     f"values[{base}:{base + count}] = o if type(o) is list and len(o) == {count} "
                     f"else outputs(o, {count})",
                     "o = None"]
        body.extend(f"values[{s}] = None" for s in release)
    return "\n".join([
        "def run(values):",
        "    k = -1",
        "    try:",
        *(f"        {line}" for line in body),
        "    except Exception as exc:",
        "        fail(values, k, exc)",
    ])
