"""Select (f32) through graphir's interpreter against the bandwidth limit and its peers.

    python benchmarks/bench_select.py [--sizes 1e3,1e6] [--cases same,broadcast] [--rounds 15]

One OpenVINO IR file per case and size is written and loaded by both graphir
(``graphir.read_model``, run with ``model.run``: input checks, dispatch and output allocation
included) and OpenVINO. Contenders, timed round-robin (one sample of each per round, so load
from other processes hits all of them alike, in a shuffled order), reported as medians -- the
goals' measure -- and as 20th percentiles: on a shared, overloaded machine a ~2 ms call is either
left alone or preempted for a whole time slice (~8 ms), so medians there flip between the two.
The ratio columns compare graphir with the faster of ort1/ort2; for outputs that may use two
threads, the thread chooser's latest timings of each mode follow. ``--formulations`` times the
kernel variants that were tried instead.

- ``graphir``: ``model.run({...})`` on the loaded IR; ``kernel``: graphir.kernels.select alone
- ``limit``: ``np.copyto`` of as many bytes as Select reads plus writes (13 B/element for
  same-shape f32) into a preallocated buffer -- the brief's "copy of the same bytes"; that copy
  reads and writes them all (26 B of traffic per element), while Select reads 9 and writes 4, so
  ``limit_rw`` copies half as many bytes: the same memory traffic as Select, the stricter limit
- ``where``: ``numpy.where``
- ``ov1``/``ov2``: OpenVINO CPU, 1/2 inference threads, compiled once, reused infer request,
  ``share_inputs=True, share_outputs=True``
- ``ort1``/``ort2``: ONNX Runtime CPU ``Where``, intra-op threads 1/2 (model from onnx.helper)
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import graphir
from graphir.kernels.select import select as select_kernel

Runner = Callable[[], object]
#: pause before each sample, long enough for other runtimes' spinning threads to go to sleep
SETTLE_S = 0.005

CASES = {
    # name: (cond shape, then shape, else shape) for n elements
    "same": lambda n: ([n], [n], [n]),
    "broadcast": lambda n: ([max(1, n // 1000), min(n, 1000)], [min(n, 1000)], []),
}


def ir_xml(shapes: list[list[int]]) -> str:
    """An OpenVINO IR v11 with three Parameters (cond, then, else), a Select and a Result."""
    names, types = ("cond", "then", "else"), ("boolean", "f32", "f32")
    precisions = ("BOOL", "FP32", "FP32")
    out_shape = list(np.broadcast_shapes(*(tuple(s) for s in shapes)))

    def dims(shape: list[int]) -> str:
        return "".join(f"<dim>{d}</dim>" for d in shape)

    layers = [
        f'<layer id="{i}" name="{names[i]}" type="Parameter" version="opset1">'
        f'<data shape="{",".join(map(str, shapes[i]))}" element_type="{types[i]}"/>'
        f'<output><port id="0" precision="{precisions[i]}" names="{names[i]}">{dims(shapes[i])}</port>'
        f"</output></layer>"
        for i in range(3)
    ]
    ports = "".join(f'<port id="{i}" precision="{precisions[i]}">{dims(shapes[i])}</port>' for i in range(3))
    layers.append(
        f'<layer id="3" name="select" type="Select" version="opset1"><data auto_broadcast="numpy"/>'
        f'<input>{ports}</input><output><port id="3" precision="FP32" names="out">{dims(out_shape)}'
        f"</port></output></layer>"
    )
    layers.append(
        f'<layer id="4" name="out" type="Result" version="opset1"><input><port id="0" precision="FP32">'
        f"{dims(out_shape)}</port></input></layer>"
    )
    edges = "".join(f'<edge from-layer="{i}" from-port="0" to-layer="3" to-port="{i}"/>' for i in range(3))
    edges += '<edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>'
    return (f'<?xml version="1.0"?>\n<net name="select" version="11"><layers>{"".join(layers)}</layers>'
            f"<edges>{edges}</edges></net>\n")


def graphir_runner(xml: Path, feed: dict[str, np.ndarray], notes: list[str]) -> Runner:
    try:
        model = graphir.read_model(xml)
    except Exception as exc:  # the IR reader is young: fall back to the builder, and say so
        from graphir import opset

        notes.append(f"graphir.read_model failed ({type(exc).__name__}: {exc}); model built with graphir.opset")
        params = [opset.parameter(list(v.shape), "boolean" if v.dtype == np.bool_ else "f32", name=k)
                  for k, v in feed.items()]
        model = graphir.Model([opset.select(*params)], [p.node for p in params], name="select")
    return lambda: model.run(feed)


def openvino_runners(xml: Path, feed: dict[str, np.ndarray], notes: list[str]) -> dict[str, Runner]:
    try:
        import openvino as ov
    except ImportError:
        notes.append("openvino not installed: no OpenVINO columns")
        return {}
    core = ov.Core()
    model = core.read_model(str(xml))
    inputs = list(feed.values())
    runners = {}
    for threads in (1, 2):
        compiled = core.compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": threads})
        request = compiled.create_infer_request()
        runners[f"ov{threads}"] = (
            lambda request=request: request.infer(inputs, share_inputs=True, share_outputs=True))
    return runners


def onnxruntime_runners(feed: dict[str, np.ndarray], notes: list[str]) -> dict[str, Runner]:
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        notes.append("onnxruntime/onnx not installed: no ONNX Runtime columns")
        return {}
    kinds = {"cond": TensorProto.BOOL, "then": TensorProto.FLOAT, "else": TensorProto.FLOAT}
    out_shape = list(np.broadcast_shapes(*(v.shape for v in feed.values())))
    graph = helper.make_graph(
        [helper.make_node("Where", list(feed), ["out"])], "select",
        [helper.make_tensor_value_info(k, kinds[k], list(v.shape)) for k, v in feed.items()],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, out_shape)],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    runners = {}
    for threads in (1, 2):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        session = ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
        runners[f"ort{threads}"] = lambda session=session: session.run(None, feed)
    return runners


def limit_runner(nbytes: int) -> Runner:
    src = np.ones(nbytes, np.uint8)
    dst = np.empty_like(src)
    return lambda: np.copyto(dst, src)


def calibrate(fn: Runner, target_s: float) -> int:
    """Calls per sample so one sample lasts about ``target_s`` (tiny sizes: timer resolution)."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, min(1000, int(target_s / once)))


def measure(runners: dict[str, Runner], rounds: int) -> dict[str, list[float]]:
    """Seconds per call of each runner, one sample per round, sampled round-robin.

    The order is shuffled every round and a short pause precedes each sample: ONNX Runtime's and
    OpenVINO's worker threads spin for a while after a call, and whoever ran right after them
    would lose a core to that spinning in every round.
    """
    for fn in runners.values():  # warm-up: page faults, thread pools, plan building
        for _ in range(3):
            fn()
    loops = {name: calibrate(fn, 2e-3) for name, fn in runners.items()}
    samples: dict[str, list[float]] = {name: [] for name in runners}
    order = list(runners)
    shuffle = random.Random(0).shuffle
    for _ in range(rounds):
        shuffle(order)
        for name in order:
            fn, count = runners[name], loops[name]
            time.sleep(SETTLE_S)
            start = time.perf_counter()
            for _ in range(count):
                fn()
            samples[name].append((time.perf_counter() - start) / count)
    return samples


def quantile(samples: dict[str, list[float]], q: float) -> dict[str, float]:
    """Per runner: the median (q=0.5) or another quantile of its samples."""
    if q == 0.5:
        return {name: statistics.median(values) for name, values in samples.items()}
    return {name: sorted(values)[int(q * (len(values) - 1))] for name, values in samples.items()}


def check(feed: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> None:
    want = np.where(feed["cond"], feed["then"], feed["else"])
    out = next(iter(got.values()))
    if out.dtype != want.dtype or out.tobytes() != want.tobytes():
        raise SystemExit("graphir's Select output differs from numpy.where")


def bench_case(case: str, n: int, rounds: int, workdir: Path) -> tuple[dict[str, list[float]], list[str]]:
    rng = np.random.default_rng(n)
    cshape, tshape, eshape = CASES[case](n)
    feed = {
        "cond": rng.random(cshape) < 0.5,
        "then": rng.standard_normal(tshape, dtype=np.float32),
        "else": rng.standard_normal(eshape, dtype=np.float32),
    }
    xml = workdir / f"select_{case}_{n}.xml"
    xml.write_text(ir_xml([cshape, tshape, eshape]))
    notes: list[str] = []
    graphir_run = graphir_runner(xml, feed, notes)
    check(feed, graphir_run())
    nbytes = sum(v.nbytes for v in feed.values()) + int(np.prod(np.broadcast_shapes(cshape, tshape, eshape))) * 4
    cond, then, other = feed.values()
    runners: dict[str, Runner] = {
        "graphir": graphir_run,
        "kernel": lambda: select_kernel(cond, then, other),
        "limit": limit_runner(nbytes),
        "limit_rw": limit_runner(nbytes // 2),
        "where": lambda: np.where(cond, then, other),
    }
    runners.update(openvino_runners(xml, feed, notes))
    runners.update(onnxruntime_runners(feed, notes))
    return measure(runners, rounds), notes


def formulations(n: int, rounds: int) -> dict[str, float]:
    """The Select formulations tried for the kernel: f32 same-shape, one thread, output
    preallocated, each run over L2-sized blocks (``where`` and ``copyto`` also unblocked)."""
    from graphir.kernels import select as kernel

    rng = np.random.default_rng(1)
    cond = rng.random(n) < 0.5
    then = rng.standard_normal(n, dtype=np.float32).view(np.uint32)
    other = rng.standard_normal(n, dtype=np.float32).view(np.uint32)
    out = np.empty(n, np.uint32)
    scratch = np.empty(kernel.BLOCK_BYTES // 4, np.uint32)
    block = kernel.BLOCK_BYTES // 4

    def blocked(body: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]) -> Runner:
        def run() -> None:
            for start in range(0, n, block):
                stop = min(start + block, n)
                body(cond[start:stop], then[start:stop], other[start:stop], out[start:stop],
                     scratch[: stop - start])
        return run

    def mul(c, t, e, o, m):  # the kernel's formulation
        np.bitwise_xor(t, e, out=o)
        np.multiply(o, c, out=o)
        np.bitwise_xor(o, e, out=o)

    def mask(c, t, e, o, m):  # mask = -cond widened, then and
        np.negative(c.view(np.int8), out=m.view(np.int32), casting="unsafe")
        np.bitwise_xor(t, e, out=o)
        np.bitwise_and(o, m, out=o)
        np.bitwise_xor(o, e, out=o)

    def cast_mul(c, t, e, o, m):  # cond cast to u32 once, then a same-type multiply
        np.copyto(m, c, casting="unsafe")
        np.bitwise_xor(t, e, out=o)
        np.multiply(o, m, out=o)
        np.bitwise_xor(o, e, out=o)

    def sub(c, t, e, o, m):  # wrapping integer arithmetic
        np.subtract(t, e, out=o)
        np.multiply(o, c, out=o)
        np.add(o, e, out=o)

    def copyto(c, t, e, o, m):
        np.copyto(o, e)
        np.copyto(o, t, where=c)

    def putmask(c, t, e, o, m):
        np.copyto(o, e)
        np.putmask(o, c, t)

    def where(c, t, e, o, m):
        o[...] = np.where(c, t, e)

    runners = {name: blocked(body) for name, body in
               [("mul-blend", mul), ("cast-mul-blend", cast_mul), ("mask-blend", mask), ("sub-blend", sub), ("copyto-where", copyto),
                ("putmask", putmask), ("where-blocked", where)]}
    runners["where"] = lambda: np.where(cond, then, other)
    runners["copyto-where-whole"] = lambda: (np.copyto(out, other), np.copyto(out, then, where=cond))
    src = np.ones(13 * n, np.uint8)
    dst = np.empty_like(src)
    runners["limit"] = lambda: np.copyto(dst, src)
    return quantile(measure(runners, rounds), 0.5)


def report(case: str, n: int, t: dict[str, float], goals: list[str], label: str) -> None:
    ms = " ".join(f"{k}={v * 1e3:.3f}" for k, v in t.items())
    g = t["graphir"]
    ratios = [f"graphir/limit={g / t['limit']:.2f}", f"graphir/limit_rw={g / t['limit_rw']:.2f}",
              f"where/graphir={t['where'] / g:.2f}"]
    if "ort1" in t:
        ort = min(t["ort1"], t["ort2"])
        ratios.append(f"ort/graphir={ort / g:.2f}")
    if "ov1" in t:
        ratios += [f"graphir/ov1={g / t['ov1']:.2f}", f"graphir/ov2={g / t['ov2']:.2f}"]
    print(f"{case:9s} n={n:.0e} {label:6s} ms: {ms}")
    print(f"{'':9s} {'':5s} {label:6s} ratios: {' '.join(ratios)}")
    big = n >= 10**6
    where = f"{case} {n:.0e} ({label})"
    if big and "ort1" in t:
        goals.append(_goal(f"{where}: >= 1.2x faster than ORT", min(t["ort1"], t["ort2"]) / g >= 1.2))
    if big and "ov1" in t:
        goals.append(_goal(f"{where}: <= 1.2x OpenVINO 1 thread", g / t["ov1"] <= 1.2))
    if big and case == "same":
        goals.append(_goal(f"{where}: within 2.0x of the limit", g / t["limit"] <= 2.0))
    if n == 10**3 and "ort1" in t:
        goals.append(_goal(f"{where}: within 1.5x of ORT's run", g / min(t["ort1"], t["ort2"]) <= 1.5))


def threads_note(nbytes: int) -> None:
    """What graphir's thread chooser last measured for this output size (ms per call, the median
    of its last timings of each mode; the mode it runs is the faster one)."""
    from graphir.kernels import select as kernel

    loops = [("flat", kernel._flat_chooser)]
    loops += [(body.__name__.strip("_"), chooser) for body, chooser in kernel._choosers.items()]
    for name, chooser in loops:
        one, two = chooser.cost(nbytes, 1), chooser.cost(nbytes, 2)
        if one is not None and two is not None:
            print(f"{'':16s} thread chooser ({name}): 1 thread {one * nbytes * 1e3:.3f} ms, "
                  f"2 threads {two * nbytes * 1e3:.3f} ms (medians of its last timings)")


def _goal(text: str, met: bool) -> str:
    return f"  [{'met ' if met else 'MISS'}] {text}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1e3,1e4,1e5,1e6,1e7")
    parser.add_argument("--cases", default="same,broadcast")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--formulations", action="store_true",
                        help="instead: time the kernel formulations that were tried (1 thread, no allocation)")
    args = parser.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"graphir Select benchmark: f32, {os.cpu_count()} cpus, load average {load:.2f}, "
          f"median of {args.rounds} round-robin rounds, times in ms")
    if args.formulations:
        for n in sizes:
            times = formulations(n, args.rounds)
            print(f"n={n:.0e} " + " ".join(f"{k}={v * 1e3:.3f}" for k, v in times.items()))
        return
    goals: list[str] = []
    low_goals: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            for n in sizes:
                samples, notes = bench_case(case, n, args.rounds if n < 10**7 else max(5, args.rounds // 2), Path(tmp))
                for note in notes:
                    print(f"  note: {note}")
                report(case, n, quantile(samples, 0.5), goals, "median")
                report(case, n, quantile(samples, 0.2), low_goals, "p20")
                threads_note(n * 4)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at the end {load:.2f}. goals on medians (the brief's measure):")
    print("\n".join(goals))
    print("goals on 20th percentiles (runs least disturbed by other processes on a shared machine):")
    print("\n".join(low_goals))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
