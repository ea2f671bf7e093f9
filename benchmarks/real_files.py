"""graphir against OpenVINO (and ONNX Runtime) on the benchmark corpus of real exports, one process.

    python benchmarks/real_files.py [--only PATTERN] [--repeat N] [--json OUT] [--skip-run] ...

Makes the corpus first when files are missing (``benchmarks/make_corpus.py``; in ``--dir``, default
``$GRAPHIR_BENCH_DIR`` or ``~/.cache/graphir-bench``). Then, per file, best of ``--repeat`` each
(at least 25 calls of one under 5 ms):

* read:    ``graphir.read_model`` vs ``openvino.Core().read_model``;
* reshape: graphir ``Model.reshape`` vs OpenVINO ``Model.reshape`` to the same
  input shapes (those of the run inputs; each timed on a freshly read model);
* save:    ``graphir.save_model`` vs ``openvino.save_model(..., compress_to_fp16=False)``;
* run:     graphir ``Model.run`` under ``--numerics`` (default ``openvino-cpu``: what OpenVINO CPU computes,
  its chain folding included; ``reference`` computes every op as written) (numpy's BLAS on 1 thread: OPENBLAS/OMP/MKL_NUM_THREADS default to 1
  in this process) vs OpenVINO CPU compiled with INFERENCE_NUM_THREADS=1 and
  INFERENCE_PRECISION_HINT=f32 (KV cache f32, no dynamic quantization; compile time and the first
  call excluded), and ONNX Runtime on 1 thread where the same torch module exported to ONNX, each
  engine in a fresh process of its own (not one where another engine ran other models). The
  outputs are compared with OpenVINO's (max abs diff, and "ok" when within 1e-3 of the largest
  magnitude), so a fast wrong result cannot pass.

Prints one row per file (layers as OpenVINO counts them, times in ms, ratios graphir/OpenVINO and
graphir/ONNX Runtime), the worst ratio per column, the load average at start and end, the run class
of each file ("large" = compute-bound: at least ``--large-gmacs`` 1e9 multiply-accumulates per run in
Convolution/MatMul layers, default 0.3) and which goals of issue 17 are met: read, reshape and save
<= 1.0x OpenVINO on every file, run <= 2.0x on small nets and <= 3.0x on large ones. ``--json OUT``
writes all of it; ``--slow`` also compares the run of the shared-constant chain, which OpenVINO
takes ~10 minutes to compile.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

# One thread for numpy's BLAS too, as for OpenVINO and ONNX Runtime (the comparison is 1 thread against
# 1 thread), set before numpy loads it; a value in the environment wins. Measured on BERT at load ~12:
# OpenBLAS' default threads took graphir's run from 1.4 ms to ~22 ms wall (~200 ms of CPU).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # after the BLAS thread count

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_corpus  # after the path: benchmarks/ is not a package (make_corpus puts the repository on it)

OV_RUN_CONFIG = {"INFERENCE_NUM_THREADS": "1", "INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32",
                 "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
GOALS = {"read": 1.0, "reshape": 1.0, "save": 1.0, "run_small": 2.0, "run_large": 3.0}
STAGES = ("read", "reshape", "save", "run")
#: from this many multiply-accumulates per run a net is "large" (compute-bound: numpy's kernels, not
#: graphir's per-node work, take the time): MobileNetV3-small at 224 (0.06) is small, ResNet-18 (1.8) large
LARGE_GMACS = 0.3


#: a measurement stops repeating once its timed calls took this long in all (at least one call is made)
BUDGET_S = 10.0


#: calls faster than this are timed at least SHORT_SAMPLES times (both engines alike): the best of 5
#: cold calls of ~0.1 ms (a reshape to the shape a model has, right after a GC pass) moved by +-20%
#: between runs of the benchmark on a quiet machine, more than either engine's difference
SHORT_CALL_S = 0.005
SHORT_SAMPLES = 25


#: what best_time measures: "wall" (time.perf_counter) or "cpu" (time.process_time: the CPU time of
#: all the process' threads, which waiting for a core on a machine shared with other work does not inflate)
CLOCK = "wall"
#: graphir's numerics profile for the run: "openvino-cpu" computes what OpenVINO CPU computes (its
#: LinOpSequenceFusion folds a chain of constant Adds into one Add, as OpenVINO's compile does), the
#: like-for-like comparison; "reference" computes every op as written (add_chain's 5,000 Adds of
#: f32[8192]: ~23 ms instead of ~0.2 ms)
NUMERICS = "openvino-cpu"


def best_time(fn: Callable[[], Any], repeat: int, before: Callable[[], Any] | None = None) -> tuple[float, Any]:
    """The best of ``repeat`` timed calls of ``fn`` on :data:`CLOCK` (``before()`` and a GC pass run
    untimed first), fewer when the calls have used up :data:`BUDGET_S` of wall time; at least
    :data:`SHORT_SAMPLES` while the best is under :data:`SHORT_CALL_S`."""
    clock = time.process_time if CLOCK == "cpu" else time.perf_counter
    best, out, spent, calls = math.inf, None, 0.0, 0
    while calls < repeat or (best < SHORT_CALL_S and calls < SHORT_SAMPLES):
        calls += 1
        out = None  # free the previous result outside the timed region
        if before is not None:
            before()
        gc.collect()
        wall, start = time.perf_counter(), clock()
        out = fn()
        took = clock() - start
        best, spent = min(best, took), spent + time.perf_counter() - wall
        if spent >= BUDGET_S:
            break
    return best, out


def short_error(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:200] if text else ''}"


def compare(actual: list[np.ndarray], expected: list[np.ndarray]) -> tuple[float, bool, str]:
    """(max abs diff, within tolerance, what differs) of ``actual`` against the reference outputs;
    NaN/inf must sit at the same places with the same values."""
    if len(actual) != len(expected):
        return math.inf, False, f"{len(actual)} outputs, reference has {len(expected)}"
    worst, ok, notes = 0.0, True, []
    for i, (a, e) in enumerate(zip(actual, expected)):
        a, e = np.asarray(a), np.asarray(e)
        if a.shape != e.shape:
            ok = False
            notes.append(f"output {i}: shape {list(a.shape)} vs {list(e.shape)}")
            worst = math.inf
            continue
        if a.size == 0:
            continue
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        finite = np.isfinite(e64)
        if not np.array_equal(np.isfinite(a64), finite) or not np.array_equal(a64[~finite], e64[~finite], equal_nan=True):
            ok = False
            notes.append(f"output {i}: non-finite values differ")
        if finite.any():
            diff = float(np.max(np.abs(a64[finite] - e64[finite])))
            scale = max(1.0, float(np.max(np.abs(e64[finite]))))
            worst = max(worst, diff)
            if diff > 1e-3 * scale:
                ok = False
                notes.append(f"output {i}: max abs diff {diff:.3g} (scale {scale:.3g})")
    return worst, ok, "; ".join(notes)


def multiply_accumulates(ov_model: Any) -> int:
    """Multiply-accumulates of one run of ``ov_model`` (static shapes): Convolution, GroupConvolution,
    ConvolutionBackpropData and MatMul; the rest is counted as free. A measure of compute that
    does not depend on the machine's load."""
    total = 0
    for op in ov_model.get_ops():
        kind = op.get_type_name()
        if kind not in ("Convolution", "GroupConvolution", "ConvolutionBackpropData", "MatMul"):
            continue
        shapes = [op.get_input_partial_shape(i) for i in range(2)] + [op.get_output_partial_shape(0)]
        if not all(s.is_static for s in shapes):
            continue
        a, w, out = ([d.get_length() for d in s] for s in shapes)
        if kind == "MatMul":
            k = a[-2] if op.get_attributes().get("transpose_a") and len(a) > 1 else a[-1]
            total += math.prod(out) * k
        elif kind == "Convolution":  # weights [O, I, k...]: each output element takes I * prod(k)
            total += math.prod(out) * math.prod(w[1:])
        elif kind == "GroupConvolution":  # weights [G, O/G, I/G, k...]
            total += math.prod(out) * math.prod(w[2:])
        else:  # backprop data, weights [I, O, k...]: each input element spreads over O * prod(k)
            total += math.prod(a) * math.prod(w[1:])
    return total


def compare_detections(actual: list[np.ndarray], expected: list[np.ndarray]) -> tuple[float, bool, str]:
    """Detector outputs (boxes, labels, ..., scores): OpenVINO's detections found among graphir's
    (tests/detectors: same label, score within 1e-4, box within 1e-2 px); "ok" when at least
    :data:`MIN_DETECTIONS_MATCHED` of them are. On random weights many scores tie within a few ulps,
    so which of two equal boxes NMS keeps differs between engines (see tests/detectors)."""
    from tests.detectors.convert import match_detections

    shapes = [(a.shape, e.shape) for a, e in zip(actual, expected)]
    if len(actual) != len(expected) or any(x != y for x, y in shapes):
        return math.inf, False, f"output shapes {[list(a.shape) for a in actual]} vs {[list(e.shape) for e in expected]}"
    matched, pairs = match_detections(actual, expected)
    n = len(expected[-1])
    diff = max((float(np.max(np.abs(actual[0][k] - expected[0][j]))) for j, k in pairs), default=0.0)
    ok = n > 0 and matched >= MIN_DETECTIONS_MATCHED * n
    return diff, ok, f"{matched} of {n} detections matched"


#: the least fraction of OpenVINO's detections graphir must reproduce: ONNX Runtime itself reproduces
#: 152 of OpenVINO's 300 SSDlite detections on the corpus' random weights (ties, see above)
MIN_DETECTIONS_MATCHED = 0.5


class FileBench:
    """The measurements of one corpus file; every stage records a time or the error that stopped it."""

    def __init__(self, folder: Path, meta: dict[str, Any], repeat: int, run_repeat: int) -> None:
        self.folder, self.meta, self.repeat, self.run_repeat = folder, meta, repeat, run_repeat
        self.name = meta["name"]
        self.xml = folder / f"{self.name}.xml"
        with np.load(folder / f"{self.name}.npz") as npz:
            self.inputs = [npz[k] for k in meta["input_order"]]  # in the model's input order
        self.row: dict[str, Any] = {"file": self.name, "family": meta["family"], "errors": {}, "notes": []}
        self.ort_outputs: list[np.ndarray] | None = None
        if meta.get("note"):
            self.row["notes"].append(f"reshape: {meta['note']}")

    def compare(self, actual: list[np.ndarray], expected: list[np.ndarray]) -> tuple[float, bool, str]:
        return (compare_detections if self.meta["family"] == "detector" else compare)(actual, expected)

    def error(self, stage: str, e: BaseException) -> None:
        self.row["errors"][stage] = short_error(e)
        if os.environ.get("GRAPHIR_BENCH_TRACEBACK"):
            traceback.print_exc()

    def measure_read(self, core: Any) -> None:
        import graphir

        t_ov, ov_model = best_time(lambda: core.read_model(str(self.xml)), self.repeat)
        self.row.update(layers=len(ov_model.get_ops()), read_ov=t_ov)
        try:
            t_gir, model = best_time(lambda: graphir.read_model(self.xml), self.repeat)
            self.row.update(read_graphir=t_gir, layers_graphir=len(model))
        except Exception as e:  # noqa: BLE001 - reported per file
            self.error("graphir read", e)

    def measure_reshape(self, core: Any) -> None:
        import openvino as ov

        import graphir

        shapes = self.meta["reshape"]  # per input, in input order
        ov_shapes = {i: ov.PartialShape(shape) for i, shape in enumerate(shapes)}
        fresh: list[Any] = []  # the model each timed reshape starts from, read untimed

        def read_ov() -> None:
            fresh[:] = [core.read_model(str(self.xml))]

        t_ov, _ = best_time(lambda: fresh[0].reshape(ov_shapes), self.repeat, read_ov)
        self.row["reshape_ov"] = t_ov
        if "graphir read" in self.row["errors"]:
            return

        def read_graphir() -> None:
            fresh[:] = [graphir.read_model(self.xml)]

        def reshape() -> None:  # leaves every type inferred, as OpenVINO's reshape does (no infer_shapes after)
            fresh[0].reshape(shapes)

        try:
            t_gir, _ = best_time(reshape, self.repeat, read_graphir)
            self.row["reshape_graphir"] = t_gir
        except Exception as e:  # noqa: BLE001
            self.error("graphir reshape", e)

    def measure_save(self, core: Any, tmp: Path) -> None:
        import openvino as ov

        import graphir

        ov_model = core.read_model(str(self.xml))
        self.row["save_ov"], _ = best_time(lambda: ov.save_model(ov_model, str(tmp / "ov.xml"), compress_to_fp16=False),
                                           self.repeat)
        if "graphir read" in self.row["errors"]:
            return
        try:
            model = graphir.read_model(self.xml)
            self.row["save_graphir"], _ = best_time(lambda: graphir.save_model(model, tmp / "gir.xml"), self.repeat)
        except Exception as e:  # noqa: BLE001
            self.error("graphir save", e)

    def measure_run(self, onnx: bool) -> None:
        """Each engine's run in a fresh process of its own (:func:`in_fresh_process`), its outputs
        compared here with OpenVINO's."""
        settings = (BUDGET_S, CLOCK, NUMERICS)
        ov_side = in_fresh_process(ov_run_worker, str(self.xml), self.inputs, self.run_repeat, settings)
        reference = ov_side.pop("reference")
        self.row.update(ov_side)
        if onnx:
            self.measure_onnx(reference, settings)
        if "graphir read" in self.row["errors"]:
            return
        side = in_fresh_process(graphir_run_worker, str(self.xml), self.inputs, self.run_repeat, settings)
        if "error" in side:
            self.row["errors"]["graphir run"] = side["error"]
            return
        outputs = side.pop("outputs")
        diff, ok, why = self.compare(outputs, reference)
        self.row.update(run_max_abs_diff=diff, run_outputs_ok=ok)
        if self.meta["family"] == "detector":
            self.row["notes"].append(f"graphir vs OpenVINO: {why}")
        elif not ok:
            self.row["notes"].append(f"graphir run differs from OpenVINO: {why}")
        if self.ort_outputs is not None:
            diff_ort, ok_ort, why_ort = self.compare(outputs, self.ort_outputs)
            self.row["run_max_abs_diff_graphir_ort"] = diff_ort
            if not ok_ort:
                self.row["notes"].append(f"graphir run differs from ONNX Runtime: {why_ort}")
        self.row.update(side)

    def measure_onnx(self, reference: list[np.ndarray], settings: tuple[float, str, str]) -> None:
        onnx_file = self.meta.get("onnx")
        if not onnx_file:
            self.row["onnx_note"] = self.meta.get("onnx_note") or "no ONNX file"
            return
        side = in_fresh_process(ort_run_worker, str(self.folder / onnx_file), self.inputs, self.run_repeat, settings)
        if "onnx_note" in side:
            self.row["onnx_note"] = side["onnx_note"]
            return
        outputs = self.ort_outputs = side["outputs"]
        diff, ok, why = self.compare(outputs, reference)
        self.row.update(ort_max_abs_diff=diff, ort_outputs_ok=ok)
        if not ok:
            self.row["notes"].append(f"ONNX Runtime differs from OpenVINO: {why}")
        self.row["run_ort"] = side["run_ort"]


def in_fresh_process(worker: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """``worker(*args)`` in a new interpreter (spawned: it loads this module, numpy and the one engine
    it measures). A run timed in a process where another engine has compiled and run other models
    is not that engine's run alone: after OpenVINO's compiles of resnet18, mobilenet_v3_small and
    densenet121 (86 MB left free in glibc's main heap) graphir's efficientnet_b0 run went from 29.2
    to 32.0 ms, with 30 -> 357 page faults per run."""
    import concurrent.futures
    import multiprocessing

    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(worker, *args).result()


def _use_settings(settings: tuple[float, str, str]) -> None:
    """The parent's --budget and --clock, in a worker process."""
    global BUDGET_S, CLOCK, NUMERICS
    BUDGET_S, CLOCK, NUMERICS = settings


def ov_run_worker(xml: str, inputs: list[np.ndarray], repeat: int, settings: tuple[float, str, str]) -> dict[str, Any]:
    """OpenVINO CPU (:data:`OV_RUN_CONFIG`) on ``inputs``: compile time (not in the run's figure), the
    best run after a first (warm-up) call, the multiply-accumulates, and the first call's outputs."""
    _use_settings(settings)
    import openvino as ov

    core = ov.Core()
    ov_model = core.read_model(xml)
    ov_model.reshape({i: ov.PartialShape(list(v.shape)) for i, v in enumerate(inputs)})
    side: dict[str, Any] = {"gmacs": multiply_accumulates(ov_model) / 1e9}
    start = time.perf_counter()
    request = core.compile_model(ov_model, "CPU", OV_RUN_CONFIG).create_infer_request()
    side["ov_compile_s"] = time.perf_counter() - start
    reset = request.reset_state if request.query_state() else None

    def ov_run() -> list[np.ndarray]:
        request.infer(inputs)
        return [request.get_output_tensor(i).data.copy() for i in range(len(ov_model.outputs))]

    if reset:
        reset()
    side["reference"] = ov_run()  # the first call: warm-up
    side["run_ov"], _ = best_time(ov_run, repeat, reset)
    return side


def ort_run_worker(onnx_file: str, inputs: list[np.ndarray], repeat: int, settings: tuple[float, str, str]) -> dict[str, Any]:
    """ONNX Runtime on 1 thread: the best run after a first call, and that call's outputs (or why not)."""
    _use_settings(settings)
    try:
        import onnxruntime as ort
    except ImportError:
        return {"onnx_note": "onnxruntime is not installed (pip install -e .[bench])"}
    try:
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        session = ort.InferenceSession(onnx_file, options, providers=["CPUExecutionProvider"])
        feed = dict(zip([i.name for i in session.get_inputs()], inputs))
        outputs = session.run(None, feed)
        best, _ = best_time(lambda: session.run(None, feed), repeat)
        return {"outputs": outputs, "run_ort": best}
    except Exception as e:  # noqa: BLE001
        return {"onnx_note": f"onnxruntime failed: {short_error(e)}"}


def graphir_run_worker(xml: str, inputs: list[np.ndarray], repeat: int, settings: tuple[float, str, str]) -> dict[str, Any]:
    """graphir's run: the first call's time (the run plan is built) and outputs, then the best run."""
    _use_settings(settings)
    import graphir

    try:
        model = graphir.read_model(xml)
        model.reshape([list(v.shape) for v in inputs])
        start = time.perf_counter()
        outputs = list(model.run(inputs, numerics=NUMERICS, progress=False).values())  # warm-up: the plan is built
        first = time.perf_counter() - start
        best, _ = best_time(lambda: model.run(inputs, numerics=NUMERICS, progress=False), repeat)
        return {"outputs": outputs, "graphir_first_run_s": first, "run_graphir": best}
    except Exception as e:  # noqa: BLE001 - reported per file
        if os.environ.get("GRAPHIR_BENCH_TRACEBACK"):
            traceback.print_exc()
        return {"error": short_error(e)}


def ratio(row: dict[str, Any], a: str, b: str) -> float | None:
    if a in row and b in row and row[b] > 0:
        return row[a] / row[b]
    return None


def add_ratios(row: dict[str, Any], large_gmacs: float) -> None:
    for stage in STAGES:
        row[f"{stage}_ratio"] = ratio(row, f"{stage}_graphir", f"{stage}_ov")
    row["run_ratio_ort"] = ratio(row, "run_graphir", "run_ort")
    if "gmacs" in row:
        row["run_class"] = "large" if row["gmacs"] >= large_gmacs else "small"


def goals(rows: list[dict[str, Any]], stages: list[str]) -> list[tuple[str, str, bool | None]]:
    """(goal, worst figure and file, met?) for each goal; met is None when nothing was measured.
    A graphir error in a stage counts as a missed goal."""
    out: list[tuple[str, str, bool | None]] = []
    checks = [(s, s, GOALS[s], lambda r: True) for s in ("read", "reshape", "save") if s in stages]
    if "run" in stages:
        checks += [("run (small nets)", "run", GOALS["run_small"], lambda r: r.get("run_class") == "small"),
                   ("run (large nets)", "run", GOALS["run_large"], lambda r: r.get("run_class") == "large")]
    for label, stage, limit, which in checks:
        rows_in = [r for r in rows if which(r)]
        failed = [r["file"] for r in rows_in if f"graphir {stage}" in r["errors"] or
                  (stage != "read" and "graphir read" in r["errors"])]
        measured = [(r[f"{stage}_ratio"], r["file"]) for r in rows_in if r.get(f"{stage}_ratio") is not None]
        if not measured and not failed:
            out.append((f"{label} <= {limit:.1f}x", "not measured", None))
            continue
        worst = max(measured) if measured else None
        text = f"worst {worst[0]:.2f}x ({worst[1]})" if worst else "no ratio"
        if failed:
            text += f"; graphir failed on {', '.join(failed)}"
        out.append((f"{label} <= {limit:.1f}x", text, not failed and worst is not None and worst[0] <= limit))
    return out


def fmt_ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    ms = seconds * 1000
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def fmt_x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


COLUMNS = [("file", 28), ("layers", 6), ("GMAC", 6), ("read ov", 8), ("gir", 8), ("x", 6), ("reshape ov", 10), ("gir", 8),
           ("x", 6), ("save ov", 8), ("gir", 8), ("x", 6), ("run ov", 8), ("ort", 8), ("gir", 8), ("/ov", 7),
           ("/ort", 7), ("class", 5), ("max|diff|", 9)]


def table_line(cells: list[str]) -> str:
    return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, (_, w)) in enumerate(zip(cells, COLUMNS)))


def row_cells(r: dict[str, Any]) -> list[str]:
    diff = r.get("run_max_abs_diff")
    diff_text = "-" if diff is None else f"{diff:.1e}" + ("" if r.get("run_outputs_ok") else "!")
    gmacs = r.get("gmacs")
    return [r["file"], str(r.get("layers", "-")), "-" if gmacs is None else f"{gmacs:.3g}",
            fmt_ms(r.get("read_ov")), fmt_ms(r.get("read_graphir")), fmt_x(r.get("read_ratio")),
            fmt_ms(r.get("reshape_ov")), fmt_ms(r.get("reshape_graphir")), fmt_x(r.get("reshape_ratio")),
            fmt_ms(r.get("save_ov")), fmt_ms(r.get("save_graphir")), fmt_x(r.get("save_ratio")),
            fmt_ms(r.get("run_ov")), fmt_ms(r.get("run_ort")) if "run_ort" in r else "n/a",
            fmt_ms(r.get("run_graphir")), fmt_x(r.get("run_ratio")), fmt_x(r.get("run_ratio_ort")),
            r.get("run_class", "-"), diff_text]


def worst_cells(rows: list[dict[str, Any]]) -> list[str]:
    cells = ["worst"] + [""] * (len(COLUMNS) - 1)
    for key, col in (("read_ratio", 5), ("reshape_ratio", 8), ("save_ratio", 11), ("run_ratio", 15),
                     ("run_ratio_ort", 16)):
        values = [r[key] for r in rows if r.get(key) is not None]
        cells[col] = fmt_x(max(values)) if values else "-"
    diffs = [r["run_max_abs_diff"] for r in rows if r.get("run_max_abs_diff") is not None]
    cells[18] = f"{max(diffs):.1e}" if diffs else "-"
    return cells


def print_report(rows: list[dict[str, Any]], stages: list[str], large_gmacs: float, load: dict[str, Any]) -> None:
    print()
    print(table_line([c for c, _ in COLUMNS]))
    for r in rows:
        print(table_line(row_cells(r)))
    print(table_line(worst_cells(rows)))
    print(f"\ntimes: best-of ms ({CLOCK} clock; graphir runs under numerics={NUMERICS!r}); x: graphir/OpenVINO; /ort: graphir/ONNX Runtime (1 thread); n/a: no ONNX export; "
          "max|diff|: graphir vs OpenVINO outputs ('!': outside tolerance)")
    print(f"GMAC: multiply-accumulates of one run (Convolution, GroupConvolution, ConvolutionBackpropData, MatMul); "
          f"class: 'large' (compute-bound) from {large_gmacs:g} GMAC, else 'small'")
    for r in rows:
        for stage, err in r["errors"].items():
            print(f"ERROR {r['file']}: {stage}: {err}")
        for note in r["notes"]:
            print(f"note  {r['file']}: {note}")
        if "onnx_note" in r and "run" in stages:
            print(f"n/a   {r['file']}: ONNX Runtime: {r['onnx_note']}")
    print(f"\nload average (1/5/15 min): start {load['start']}, end {load['end']} on {os.cpu_count()} CPUs "
          "(other processes disturb these timings)")
    print("goals (issue 17):")
    for label, text, met in goals(rows, stages):
        print(f"  {label:26} {text}: {'met' if met else 'not measured' if met is None else 'NOT met'}")


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("numpy", "openvino", "onnxruntime", "torch"):
        try:
            module = __import__(name)
            out[name] = str(getattr(module, "__version__", "?"))
        except ImportError:
            pass
    return out


def main(argv: list[str] | None = None) -> int:
    global BUDGET_S, CLOCK, NUMERICS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=make_corpus.default_dir(), help="corpus directory (default: %(default)s)")
    parser.add_argument("--only", help="files whose name matches this glob or substring")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per measurement, best taken (default 5)")
    parser.add_argument("--run-repeat", type=int, help="timed runs per engine (default: --repeat)")
    parser.add_argument("--json", type=Path, help="write every figure to this JSON file")
    parser.add_argument("--large-gmacs", type=float, default=LARGE_GMACS,
                        help="multiply-accumulates per run (in 1e9) from which a net counts as large, compute-bound "
                             "(default %(default)s)")
    parser.add_argument("--budget", type=float, default=BUDGET_S,
                        help="seconds of timed calls after which a measurement stops repeating (default %(default)s)")
    for stage in ("reshape", "save", "run"):
        parser.add_argument(f"--skip-{stage}", action="store_true", help=f"do not measure {stage}")
    parser.add_argument("--numerics", choices=("openvino-cpu", "reference"), default=NUMERICS,
                        help="graphir's numerics profile for the run (default: %(default)s, what OpenVINO CPU computes)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default=CLOCK,
                        help="wall time, or the process' CPU time (not inflated by waiting for a busy machine's cores; "
                             "default %(default)s)")
    parser.add_argument("--skip-onnx", action="store_true", help="do not run ONNX Runtime")
    parser.add_argument("--slow", action="store_true",
                        help="also compare runs that take OpenVINO minutes to compile (the shared-constant chain)")
    parser.add_argument("--no-generate", action="store_true", help="measure only the corpus files already made")
    args = parser.parse_args(argv)
    BUDGET_S, CLOCK, NUMERICS = args.budget, args.clock, args.numerics

    try:
        import openvino as ov
    except ImportError:
        print("openvino is not installed: nothing to compare with (pip install -e .[test,bench])", file=sys.stderr)
        return 2
    load_start = os.getloadavg()
    entries = make_corpus.selected(args.only)
    if not entries:
        print(f"no corpus entry matches {args.only!r}; entries: "
              f"{', '.join(e.name for e in make_corpus.CORPUS)}", file=sys.stderr)
        return 2
    if not args.no_generate:
        make_corpus.ensure(args.dir, args.only, lambda s: print(s, file=sys.stderr, flush=True))
    entries = [e for e in entries if make_corpus.is_current(args.dir, e.name)]
    stages = ["read"] + [s for s in ("reshape", "save", "run") if not getattr(args, f"skip_{s}")]
    core = ov.Core()
    rows = []
    with tempfile.TemporaryDirectory(prefix="graphir-bench-save-") as tmp:
        for entry in entries:
            meta = json.loads(make_corpus.meta_path(args.dir, entry.name).read_text())
            bench = FileBench(args.dir, meta, args.repeat, args.run_repeat or args.repeat)
            spent = []
            for stage in stages:
                start = time.perf_counter()
                if stage == "read":
                    bench.measure_read(core)
                elif stage == "reshape":
                    bench.measure_reshape(core)
                elif stage == "save":
                    bench.measure_save(core, Path(tmp))
                elif meta.get("slow_run") and not args.slow:
                    bench.row["notes"].append(f"run not compared (--slow does): {meta['slow_run']}")
                else:
                    bench.measure_run(not args.skip_onnx)
                spent.append(f"{stage} {time.perf_counter() - start:.1f} s")
            print(f"measured {entry.name}: {', '.join(spent)}", file=sys.stderr, flush=True)
            add_ratios(bench.row, args.large_gmacs)
            rows.append(bench.row)
            gc.collect()
    load = {"start": [round(v, 2) for v in load_start], "end": [round(v, 2) for v in os.getloadavg()]}
    print_report(rows, stages, args.large_gmacs, load)
    if args.json:
        summary = [{"goal": g, "worst": t, "met": m} for g, t, m in goals(rows, stages)]
        args.json.write_text(json.dumps({"when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                                         "load_average": load, "cpus": os.cpu_count(), "versions": versions(),
                                         "repeat": args.repeat, "clock": CLOCK, "numerics": NUMERICS, "large_gmacs": args.large_gmacs, "stages": stages,
                                         "goals": summary, "files": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
