"""Start-up cost: ``import graphir`` against ``import numpy``, and a whole ``graphir info`` call.

    python benchmarks/startup.py [--repeat 7]

Each figure is the best of ``--repeat`` fresh interpreters (``python -c ...`` / the CLI through
``python -m graphir.cli``), wall time measured around the subprocess. Goals (issue 15):
``import graphir`` at most 0.25 s more than ``import numpy``; ``graphir info examples/select.xml``
at most 0.5 s of wall time. ``import graphir`` defers its submodules to first use (PEP 562), so
the time to the first builder call (numpy, pydantic and the core op schemas) is printed too, and
which heavy modules a plain ``import graphir`` loaded.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("networkx", "lxml", "ml_dtypes", "tqdm", "pydantic", "scipy")


def best_wall(args: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        best = min(best, time.perf_counter() - start)
    return best


def loaded_after_import() -> dict[str, object]:
    code = ("import sys, json, graphir; "
            f"print(json.dumps({{'heavy': [m for m in {HEAVY!r} if m in sys.modules], "
            "'op_modules': sorted(m for m in sys.modules if m.startswith('graphir.ops.') "
            "and m.count('.') >= 3)}))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    py = sys.executable
    bare = best_wall([py, "-c", "pass"], args.repeat)
    numpy = best_wall([py, "-c", "import numpy"], args.repeat)
    graphir = best_wall([py, "-c", "import graphir"], args.repeat)
    used = best_wall([py, "-c", "import graphir; graphir.opset.parameter('[2]')"], args.repeat)
    info = best_wall([py, "-m", "graphir.cli", "info", "examples/select.xml"], args.repeat)
    print(f"python -c pass:          {bare:.3f} s")
    print(f"import numpy:            {numpy:.3f} s")
    print(f"import graphir:          {graphir:.3f} s  ({graphir - numpy:+.3f} s over numpy, goal <= +0.25 s; "
          f"ratio {graphir / numpy:.2f}x)")
    print(f"import + first builder:  {used:.3f} s  ({used - numpy:+.3f} s over numpy: numpy, pydantic and the "
          f"core op schemas load on first use)")
    print(f"graphir info select.xml: {info:.3f} s  (goal <= 0.5 s; {info / numpy:.2f}x import numpy)")
    print(f"after import graphir: {json.dumps(loaded_after_import())}")


if __name__ == "__main__":
    main()
