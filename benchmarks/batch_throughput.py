"""Throughput of ``graphir.batch.run``: tasks/s in this process, on a pool of 1, 2 and 4 worker
processes and (with graphir[distributed]) on a Dask LocalCluster of 2, against a plain loop.

    python benchmarks/batch_throughput.py [--tasks 800] [--repeat 2] [--no-dask]

Two models, each run on ``--tasks`` random samples (the run job): ``tiny`` (Relu + Add on
[2,3], ~0.1 ms a run: the figures are the batch machinery's own cost) and ``mlp`` (four 256x256
MatMul + Tanh on [32,256], a few ms a run: the figures show what the workers buy). The plain
loop reads the model once and, per task, draws the random inputs, runs the model and makes the
output summaries, as the batch does, without the rows, the progress bar or any process.

``wall s`` and ``tasks/s``: the whole batch, start-up included (a pool's workers each import
graphir and read the model; the Dask cluster is started once, before its rows are timed);
``first row s``: the time to the first row (start-up plus one chunk); ``steady/s``: the rows
after the first chunk's over the time from its arrival to the last row, the rate once running;
``ms/task vs loop``: steady time per task minus the plain loop's (negative: the workers gain).
Each row is the run of least wall time of ``--repeat``.

This process runs with one BLAS thread (OPENBLAS/OMP/MKL_NUM_THREADS=1 unless already set), as
the pool's workers (threadpoolctl) and Dask's workers (its nanny) do: the plain loop is then the
same work as one worker's (with a BLAS thread per core, the mlp loop took 77 ms a task at load
10 on 2 cores instead of ~1 ms).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy loads; this script's own process

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import graphir  # noqa: E402
from graphir import batch, opset  # noqa: E402


def tiny(folder: Path) -> Path:
    x = opset.parameter([2, 3], "f32", name="x")
    y = opset.add(opset.relu(x), opset.constant(np.float32(0.5)))
    path = folder / "tiny.xml"
    graphir.save_model(graphir.Model([y], [x], name="tiny"), path)
    return path


def mlp(folder: Path) -> Path:
    rng = np.random.default_rng(0)
    x = opset.parameter([32, 256], "f32", name="x")
    h = x
    for _ in range(4):
        weights = opset.constant((rng.standard_normal((256, 256)) / 16).astype(np.float32))
        h = opset.tanh(opset.matmul(h, weights, False, False))
    path = folder / "mlp.xml"
    graphir.save_model(graphir.Model([h], [x], name="mlp"), path)
    return path


def plain_loop(model_path: Path, count: int) -> tuple[float, float, float]:
    start = time.perf_counter()
    model = graphir.read_model(model_path)
    shapes = batch.random_shapes(model)
    first = 0.0
    for seed in range(count):
        outputs = model.run(batch.random_inputs(model, seed, shapes), progress=False)
        [batch.summary(name, value) for name, value in outputs.items()]
        if seed == 0:
            first = time.perf_counter()
    end = time.perf_counter()
    return end - start, (count - 1) / (end - first), first - start


def batch_wall(model_path: Path, count: int, folder: Path, **where: object) -> tuple[float, float, float]:
    """(wall s, steady tasks/s, s to the first row): the steady rate counts the rows after the
    first chunk's, over the time from its arrival to the last row's."""
    tasks = batch.make_tasks([str(model_path)], batch.expand_samples(random=count))
    out = folder / "rows.jsonl"
    arrivals: list[float] = []
    start = time.perf_counter()
    summary = batch.run(tasks, output=out, overwrite=True, progress=False,
                        on_row=lambda _row: arrivals.append(time.perf_counter()), **where)  # type: ignore[arg-type]
    wall = time.perf_counter() - start
    assert summary.ok == count, summary
    first = arrivals[0]
    after = [t for t in arrivals if t > first]
    rate = len(after) / (arrivals[-1] - first) if after else float("nan")
    return wall, rate, first - start


def best(repeat: int, measure: Callable[[], tuple[float, float, float]]) -> tuple[float, float, float]:
    """The run of least wall time."""
    return min((measure() for _ in range(repeat)), key=lambda figures: figures[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=800)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask LocalCluster")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}, "
          f"{args.tasks} tasks per batch, best of {args.repeat}, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    client = None
    if not args.no_dask:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            print("(no Dask row: pip install 'graphir[distributed]')")
        else:
            start = time.perf_counter()
            client = Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, silence_logs=50))
            print(f"Dask LocalCluster of 2 workers started in {time.perf_counter() - start:.2f} s (not in its rows)")
    header = (f"{'model':<6} {'how':<22} {'wall s':>7} {'tasks/s':>8} {'first row s':>11} {'steady/s':>9} "
              f"{'ms/task vs loop':>15}")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for model_path in (tiny(folder), mlp(folder)):
            ways: list[tuple[str, Callable[[], tuple[float, float, float]]]] = [
                ("plain loop", lambda: plain_loop(model_path, args.tasks)),
                ("batch, in-process", lambda: batch_wall(model_path, args.tasks, folder))]
            for workers in (1, 2, 4):
                ways.append((f"batch, pool of {workers}",
                             lambda w=workers: batch_wall(model_path, args.tasks, folder, workers=w)))  # type: ignore[misc]
            if client is not None:
                ways.append(("batch, Dask 2 workers", lambda: batch_wall(model_path, args.tasks, folder, client=client)))
            loop_rate = 0.0
            for how, measure in ways:
                wall, rate, first = best(args.repeat, measure)
                if how == "plain loop":
                    loop_rate = rate
                extra = "" if how == "plain loop" else f"{(1 / rate - 1 / loop_rate) * 1e3:+.3f}"
                print(f"{model_path.stem:<6} {how:<22} {wall:7.2f} {args.tasks / wall:8.1f} {first:11.2f} {rate:9.1f} "
                      f"{extra:>15}")
    if client is not None:
        cluster = client.cluster
        client.close()
        cluster.close()
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
