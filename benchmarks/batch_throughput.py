"""Throughput of ``graphir.batch.run``: tasks/s in this process, on a pool of 1, 2 and 4 worker
processes and (with graphir[distributed]) on a Dask LocalCluster of 2, against a plain loop.

    python benchmarks/batch_throughput.py [--tasks 400] [--repeat 3]

Two models, each run on ``--tasks`` random samples (the run job): ``tiny`` (Relu + Add on
[2,3], ~0.1 ms a run: the figures are the batch machinery's own cost) and ``mlp`` (four 256x256
MatMul + Tanh on [32,256], a few ms a run: the figures show what the workers buy). The plain
loop reads the model once and, per task, draws the random inputs, runs the model and makes the
output summaries, as the batch does, without the rows, the progress bar or any process.
Per-task overhead = (batch wall time - plain loop time) / tasks. The wall times include the
pool's (or cluster's) start-up: each worker process imports graphir and reads the model. Each
figure is the best of ``--repeat``. The machine's load average is printed: on shared cores, the
worker counts beyond the free cores measure contention, not graphir.

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
    matmul = getattr(opset, "matmul", None) or opset.mat_mul  # the builder's name is changing
    rng = np.random.default_rng(0)
    x = opset.parameter([32, 256], "f32", name="x")
    h = x
    for _ in range(4):
        weights = opset.constant((rng.standard_normal((256, 256)) / 16).astype(np.float32))
        h = opset.tanh(matmul(h, weights))
    path = folder / "mlp.xml"
    graphir.save_model(graphir.Model([h], [x], name="mlp"), path)
    return path


def plain_loop(model_path: Path, count: int) -> float:
    start = time.perf_counter()
    model = graphir.read_model(model_path)
    for seed in range(count):
        outputs = model.run(batch.random_inputs(model, seed), progress=False)
        [batch.summary(name, value) for name, value in outputs.items()]
    return time.perf_counter() - start


def batch_wall(model_path: Path, count: int, folder: Path, **where: object) -> float:
    tasks = batch.make_tasks([str(model_path)], batch.expand_samples(random=count))
    out = folder / "rows.jsonl"
    start = time.perf_counter()
    summary = batch.run(tasks, output=out, overwrite=True, progress=False, **where)  # type: ignore[arg-type]
    wall = time.perf_counter() - start
    assert summary.ok == count, summary
    return wall


def best(repeat: int, measure: Callable[[], float]) -> float:
    return min(measure() for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask LocalCluster")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}, "
          f"{args.tasks} tasks per row, best of {args.repeat}, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    client = None
    if not args.no_dask:
        try:
            from distributed import Client, LocalCluster

            client = Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                                         silence_logs=50))
        except ImportError:
            print("(no Dask row: pip install 'graphir[distributed]')")
    header = f"{'model':<6} {'how':<22} {'wall s':>8} {'tasks/s':>9} {'overhead/task':>14}"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for model_path in (tiny(folder), mlp(folder)):
            name = model_path.stem
            loop = best(args.repeat, lambda: plain_loop(model_path, args.tasks))
            rows: list[tuple[str, float]] = [("plain loop", loop)]
            rows.append(("batch, in-process", best(args.repeat, lambda: batch_wall(model_path, args.tasks, folder))))
            for workers in (1, 2, 4):
                rows.append((f"batch, pool of {workers}", best(args.repeat, lambda: batch_wall(
                    model_path, args.tasks, folder, workers=workers))))
            if client is not None:
                rows.append(("batch, Dask 2 workers", best(args.repeat, lambda: batch_wall(
                    model_path, args.tasks, folder, client=client))))
            for how, wall in rows:
                overhead = "" if how == "plain loop" else f"{(wall - loop) / args.tasks * 1e3:+.3f} ms"
                print(f"{name:<6} {how:<22} {wall:8.3f} {args.tasks / wall:9.1f} {overhead:>14}")
    if client is not None:
        cluster = client.cluster
        client.close()
        cluster.close()
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
