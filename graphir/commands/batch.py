"""``graphir batch MODEL... [--inputs DIR] [--random [N]] --output OUT.jsonl [--workers N | --scheduler ADDR]``."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from graphir.cli import EXIT_INCONSISTENT, EXIT_OK, UsageError, command


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("models", nargs="+", metavar="MODEL",
                   help="IR .xml / oneDNN .json files, globs ('zoo/**/*.xml'), directories (every .xml below) "
                        "or list files (@models.txt or a .txt: one path a line)")
    p.add_argument("--inputs", "-i", action="append", default=[], metavar="DIR|FILE.npz|GLOB",
                   help="samples: a directory of .npz files (one sample each), .npz files or globs (repeatable); "
                        "keys are input names or arr_N")
    p.add_argument("--random", type=int, nargs="?", const=1, default=0, metavar="N",
                   help="also N samples of random inputs (default 1), seeds --seed, --seed+1...")
    p.add_argument("--seed", type=int, default=0, help="first seed of --random (default 0)")
    p.add_argument("--job", choices=["run", "shapes", "compare"], default=None,
                   help="run: output summaries (default); shapes: output types and shapes (reshaped to each "
                        "sample's shapes); compare: differences from --reference")
    p.add_argument("--reference", metavar="REF.xml", help="the model each MODEL is compared with (implies --job compare)")
    p.add_argument("--output", "-o", required=True, metavar="OUT.jsonl", help="the JSON Lines file of rows, one per task")
    p.add_argument("--resume", action="store_true", help="skip the tasks OUT.jsonl already has a row for")
    p.add_argument("--overwrite", action="store_true", help="replace an existing OUT.jsonl")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", "-w", type=int, metavar="N", help="a local pool of N worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a Dask distributed scheduler, e.g. tcp://10.0.0.5:8786 (needs graphir[distributed]; "
                            "workers read the models and samples from the same paths)")
    p.add_argument("--chunk-size", type=int, metavar="K", help="tasks sent to a worker at once (default: by count)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


@command("batch", configure, examples=(
    "graphir batch 'zoo/**/*.xml' --job shapes -o zoo.jsonl --workers 2",
    "graphir batch model.xml --inputs samples/ -o runs.jsonl --workers 4",
    "graphir batch small.xml --reference model.xml --inputs samples/ -o diff.jsonl --resume",
    "graphir batch @models.txt --random 10 -o runs.jsonl --scheduler tcp://10.0.0.5:8786"))
def batch(args: argparse.Namespace) -> int:
    """Run, shape-infer or compare many models on many samples; one JSON row per (model, sample).

    Exit status 0 when every task succeeded, 1 when some failed (their rows hold the errors)."""
    from graphir import batch as batching

    job = args.job or ("compare" if args.reference else "run")
    if args.reference and job != "compare":
        raise UsageError(f"--reference is for --job compare, not --job {job}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: give 1 or more")
    if args.chunk_size is not None and args.chunk_size < 1:
        raise UsageError(f"--chunk-size {args.chunk_size}: give 1 or more")
    if args.random < 0:
        raise UsageError(f"--random {args.random}: give 1 or more")
    if job != "shapes" and not args.inputs and not args.random:
        raise UsageError(f"--job {job} needs samples: --inputs DIR or --random")
    try:
        models = batching.expand_models(args.models)
        samples = batching.expand_samples(args.inputs, args.random, args.seed)
        tasks = batching.make_tasks(models, samples, job, args.reference)
    except batching.BatchError as exc:
        raise UsageError(str(exc)) from None
    client = _client(args.scheduler) if args.scheduler else None
    try:
        summary = batching.run(tasks, workers=args.workers, client=client, output=args.output, resume=args.resume,
                               overwrite=args.overwrite, progress=not args.no_progress, chunk_size=args.chunk_size)
    except batching.BatchError as exc:
        raise UsageError(str(exc)) from None
    finally:
        if client is not None:
            client.close()
    print(summary)
    if summary.failed:
        print(f"graphir batch: {summary.failed} task(s) failed; their rows hold the errors "
              f"(status \"error\")", file=sys.stderr)
    return EXIT_INCONSISTENT if summary.failed else EXIT_OK


def _client(address: str) -> Any:
    from graphir.batch import DISTRIBUTED_MISSING

    try:
        from distributed import Client
    except ImportError:
        raise UsageError(DISTRIBUTED_MISSING) from None
    try:
        return Client(address, timeout="30s")
    except OSError as exc:
        raise UsageError(f"--scheduler {address}: cannot connect: {exc}") from None
