"""graphir's ONNX reader and runtime against OpenVINO's ONNX frontend, onnx's ReferenceEvaluator and
ONNX Runtime, on the same .onnx files (default: the exports in tests/fixtures/onnx).

    python benchmarks/onnx_files.py [FILES...] [--repeat N] [--cpu] [--json OUT]

Per file, best of ``--repeat`` (at least 25 calls of one under 5 ms; see real_files.best_time):

* read:    ``graphir.read_model(m.onnx)`` vs ``openvino.Core().read_model(m.onnx)``;
* convert: graphir's read + ``save_model(m.xml)`` (what ``graphir convert m.onnx m.xml`` does);
* run:     graphir ``Model.run`` (numpy's BLAS on 1 thread) vs ``onnx.reference.ReferenceEvaluator`` (the
  Python peer) and ONNX Runtime (1 intra-op and 1 inter-op thread), on the same seeded input; the
  outputs are checked against ONNX Runtime's (rtol 1e-3, atol 1e-5) so a fast wrong run cannot count.
  Runs are timed back to back (the steady state of a process running a model again and again: one
  GC pass before the series, see :func:`steady_time`); ``cold`` is the same ratio with a full GC pass
  before every call (real_files.best_time), which evicts the CPU caches: on a 0.04 ms run it adds
  ~0.25 ms to each engine, measuring the cache refill more than the engine.

Prints a row per file and the worst ratios: read and convert graphir/OpenVINO (goal <= 2x), run
ReferenceEvaluator/graphir (goal >= 10x faster) and graphir/ONNX Runtime.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_files  # noqa: E402 - sets numpy's BLAS to 1 thread before numpy loads
from real_files import best_time  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FIXTURES = ROOT / "tests" / "fixtures" / "onnx"


def _feed(proto: Any) -> dict[str, np.ndarray]:
    """A seeded input per graph input: a dynamic first dim 2, later dynamic dims (a sequence) 7;
    integer inputs in [0, 50) (token ids), an ``attention_mask`` all ones."""
    from onnx import helper

    rng = np.random.default_rng(0)
    init = {t.name for t in proto.graph.initializer}
    feed = {}
    for info in proto.graph.input:
        if info.name in init:
            continue
        t = info.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 2 if i == 0 else 7 for i, d in enumerate(t.shape.dim)]
        dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        if info.name == "attention_mask":
            feed[info.name] = np.ones(shape, dtype)
            continue
        feed[info.name] = (rng.integers(0, 50, shape) if np.issubdtype(dtype, np.integer)
                           else rng.standard_normal(shape)).astype(dtype)
    return feed


def steady_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The best of back-to-back calls of ``fn`` (one untimed call and one GC pass first), at least
    real_files.SHORT_SAMPLES of them, on real_files.CLOCK."""
    clock = time.process_time if real_files.CLOCK == "cpu" else time.perf_counter
    out = fn()
    gc.collect()
    best = math.inf
    for _ in range(max(repeat, real_files.SHORT_SAMPLES)):
        out = None
        start = clock()
        out = fn()
        best = min(best, clock() - start)
    return best, out


def measure(path: Path, repeat: int) -> dict[str, Any]:
    import onnx
    import onnxruntime
    import openvino as ov
    from onnx.reference import ReferenceEvaluator

    import graphir

    core = ov.Core()
    row: dict[str, Any] = {"file": path.name}
    row["read_ov"], _ = best_time(lambda: core.read_model(str(path)), repeat)
    row["read"], model = best_time(lambda: graphir.read_model(path), repeat)
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "m.xml"
        row["convert"], _ = best_time(lambda: graphir.save_model(graphir.read_model(path), xml), repeat)
    proto = onnx.load(str(path))
    feed = _feed(proto)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    row["run_ort"], expected = steady_time(lambda: session.run(None, feed), repeat)
    names = [p.name for p in model.get_parameters()]
    row["run"], got = steady_time(lambda: model.run({n: feed[n] for n in names}), repeat)
    row["run_cold"], _ = best_time(lambda: model.run({n: feed[n] for n in names}), repeat)
    evaluator = ReferenceEvaluator(proto)
    try:
        row["run_ref"], _ = steady_time(lambda: evaluator.run(None, feed), repeat)
        row["run_ref_cold"], _ = best_time(lambda: evaluator.run(None, feed), max(1, repeat // 2))
    except Exception as exc:  # noqa: BLE001 - the peer's own failure: reported, not timed
        row["run_ref"] = row["run_ref_cold"] = None
        row["ref_error"] = real_files.short_error(exc)
    row["outputs_ok"] = all(np.allclose(a, b, rtol=1e-3, atol=1e-5) for a, b in zip(got.values(), expected))
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="the .onnx files (default: tests/fixtures/onnx/*.onnx)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--cpu", action="store_true",
                        help="time CPU seconds of this process (what waiting for a core on a busy machine does "
                             "not inflate; every engine here runs on one thread) instead of wall seconds")
    args = parser.parse_args(argv)
    if args.cpu:
        real_files.CLOCK = "cpu"
    files = args.files or sorted(FIXTURES.glob("*.onnx"))
    rows = [measure(p, args.repeat) for p in files]
    header = (f"{'file':26}{'read':>9}{'ov read':>9}{'x':>7}{'convert':>9}{'x':>7}{'run':>9}{'ref':>9}"
              f"{'ref/gx':>8}{'cold':>6}{'ort':>9}{'gx/ort':>8}  ok")
    print(f"{'CPU' if args.cpu else 'wall'} times in ms, best of", args.repeat)
    print(header)
    for r in rows:
        ref = (f"{r['run_ref'] * 1e3:9.2f}{r['run_ref'] / r['run']:8.1f}{r['run_ref_cold'] / r['run_cold']:6.1f}"
               if r["run_ref"] is not None else f"{'fails':>9}{'-':>8}{'-':>6}")
        print(f"{r['file']:26}{r['read'] * 1e3:9.2f}{r['read_ov'] * 1e3:9.2f}{r['read'] / r['read_ov']:7.2f}"
              f"{r['convert'] * 1e3:9.2f}{r['convert'] / r['read_ov']:7.2f}{r['run'] * 1e3:9.2f}{ref}"
              f"{r['run_ort'] * 1e3:9.2f}"
              f"{r['run'] / r['run_ort']:8.1f}  {'yes' if r['outputs_ok'] else 'NO'}")
    for r in rows:
        if r["run_ref"] is None:
            print(f"{r['file']}: the ReferenceEvaluator fails: {r['ref_error']}")
    peers = [r for r in rows if r["run_ref"] is not None] or [{"run": 1, "run_ref": math.nan, "run_cold": 1,
                                                              "run_ref_cold": math.nan}]
    worst = {"read_vs_openvino": max(r["read"] / r["read_ov"] for r in rows),
             "convert_vs_openvino_read": max(r["convert"] / r["read_ov"] for r in rows),
             "reference_evaluator_over_graphir_run": min(r["run_ref"] / r["run"] for r in peers),
             "reference_evaluator_over_graphir_run_cold": min(r["run_ref_cold"] / r["run_cold"] for r in peers),
             "graphir_run_over_onnxruntime": max(r["run"] / r["run_ort"] for r in rows)}
    print("\nworst: read {read_vs_openvino:.2f}x OpenVINO (goal <= 2), convert {convert_vs_openvino_read:.2f}x, "
          "run {reference_evaluator_over_graphir_run:.1f}x faster than ReferenceEvaluator (goal >= 10; "
          "{reference_evaluator_over_graphir_run_cold:.1f}x cold), "
          "{graphir_run_over_onnxruntime:.1f}x ONNX Runtime".format(**worst))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "worst": worst}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
