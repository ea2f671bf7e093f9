"""Many models x many inputs: one task per (model, sample), rows streamed to a JSON Lines file.

``run(tasks, output=...)`` runs every :class:`Task` in this process (``workers=None``), on a local
process pool (``workers=N``) or on a Dask distributed cluster (``client=``), with the same task
function :func:`execute_chunk` everywhere. Only the calling process writes the output: one row per
task, each appended with one ``write`` and cut back if the write is short, so a killed batch keeps
every finished row and never a torn one; ``resume=True`` skips the tasks the file already holds.
A task that fails is a row with ``"status": "error"`` and the error's message; a worker process
that dies is retried (the pool alone, Dask by rescheduling) and a task that kills it again is an
error row. Workers read models and samples from their paths (a cluster's workers must reach
them) and keep the last few models they read, so a model is read once per worker, not per sample.

Jobs: ``run`` (per output: type, shape, min/max/mean/std, non-finite count), ``shapes`` (output
types and shapes, after reshaping to the sample's input shapes when there is one) and
``compare`` (run the model and ``reference`` on the same sample; per output the largest and mean
absolute difference). See docs/batch.md.
"""
from __future__ import annotations

import glob
import json
import os
import socket
import sys
import threading
import time
import warnings
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.errors import GraphirError

if TYPE_CHECKING:
    from graphir.model import Model

JOBS = ("run", "shapes", "compare")
#: a sample that is not a file: random inputs drawn with this seed
RANDOM_PREFIX = "random:"
#: the line a user without the extra gets
DISTRIBUTED_MISSING = ("a Dask scheduler needs the optional extra 'distributed': "
                       "pip install 'graphir[distributed]'")


class BatchError(GraphirError, ValueError):
    """Unusable batch arguments: no models, a glob matching nothing, an output that is not a batch's."""


@dataclass(frozen=True)
class Task:
    """One row of a batch: ``job`` on ``model`` with ``sample`` (an .npz path, ``random:SEED`` or
    None for the model's own input shapes), against ``reference`` for the compare job."""
    model: str
    sample: str | None = None
    job: str = "run"
    reference: str | None = None

    @property
    def key(self) -> str:
        return row_key({"job": self.job, "model": self.model, "sample": self.sample, "reference": self.reference})


def row_key(row: dict[str, Any]) -> str:
    """What identifies a task in a row (resume matches on it)."""
    return json.dumps([row.get("job"), row.get("model"), row.get("sample"), row.get("reference")])


# ---------------------------------------------------------------- building the task list

def expand_models(specs: Sequence[str]) -> list[str]:
    """Model paths from paths, globs (``zoo/**/*.xml``), directories (every .xml below) and list
    files (``@models.txt`` or a ``.txt``: one path per line, ``#`` comments, relative to the list)."""
    found: list[str] = []
    for spec in specs:
        if spec.startswith("@") or spec.endswith((".txt", ".lst")):
            found.extend(_list_file(spec.removeprefix("@")))
        elif os.path.isdir(spec):
            found.extend(_matching(os.path.join(spec, "**", "*.xml"), spec))
        elif glob.has_magic(spec):
            found.extend(_matching(spec, spec))
        else:
            found.append(os.path.abspath(spec))  # a missing file becomes the task's error row
    if not found:
        raise BatchError("no models given")
    return list(dict.fromkeys(found))


def expand_samples(specs: Sequence[str] = (), random: int = 0, seed: int = 0) -> list[str | None]:
    """Sample paths from .npz files, globs and directories (every .npz in it, sorted), then
    ``random`` samples ``random:SEED`` (seeds ``seed``, ``seed+1``...); ``[None]`` when none."""
    found: list[str | None] = []
    for spec in specs:
        if os.path.isdir(spec):
            found.extend(_matching(os.path.join(spec, "*.npz"), spec))
        elif glob.has_magic(spec):
            found.extend(_matching(spec, spec))
        else:
            found.append(os.path.abspath(spec))
    found.extend(f"{RANDOM_PREFIX}{seed + i}" for i in range(random))
    return list(dict.fromkeys(found)) or [None]


def make_tasks(models: Sequence[str], samples: Sequence[str | None], job: str = "run",
               reference: str | None = None) -> list[Task]:
    """Every (model, sample) pair, model by model (a worker then meets a model's samples together)."""
    if job not in JOBS:
        raise BatchError(f"unknown job '{job}' (jobs: {', '.join(JOBS)})")
    if job == "compare" and not reference:
        raise BatchError("the compare job needs a reference model")
    ref = os.path.abspath(reference) if reference else None
    return [Task(m, s, job, ref) for m in models for s in samples]


def _matching(pattern: str, spec: str) -> list[str]:
    paths = sorted(os.path.abspath(p) for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
    if not paths:
        raise BatchError(f"{spec}: matches no file")
    return paths


def _list_file(path: str) -> list[str]:
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise BatchError(f"{path}: cannot read the list: {exc.strerror or exc}") from None
    base = os.path.dirname(os.path.abspath(path))
    return [os.path.join(base, line.strip()) for line in lines if line.strip() and not line.lstrip().startswith("#")]


# ---------------------------------------------------------------- the task function (any process)

@dataclass
class _Entry:
    """A model read by this process, the lock its runs take (one Model is not run from two
    threads at once; Dask workers may have several) and its random inputs' shapes, once chosen."""
    model: "Model"
    lock: threading.Lock
    random_shapes: list[tuple[int, ...]] | None = None


class _ModelCache:
    """The last few models this process read, keyed by path, modification time and size."""

    def __init__(self, capacity: int = 8) -> None:
        self.capacity = capacity
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[str, int, int], _Entry] = OrderedDict()

    def get(self, path: str) -> tuple[_Entry, bool]:
        """The model's entry, and whether the model was read now (False: from the cache)."""
        import graphir

        stat = os.stat(path)
        key = (path, stat.st_mtime_ns, stat.st_size)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return entry, False
        model = graphir.read_model(path)  # outside the lock: other threads read other models meanwhile
        with self._lock:
            entry = self._entries.setdefault(key, _Entry(model, threading.Lock()))
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return entry, True


_MODELS = _ModelCache()


def execute_chunk(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """The rows of ``tasks``, run one after the other in this process (the unit sent to a worker)."""
    return [execute(task) for task in tasks]


def execute(task: Task) -> dict[str, Any]:
    """One task's row: ``status`` "ok" with its figures, or "error" with the error's message."""
    row: dict[str, Any] = {"job": task.job, "model": task.model, "sample": task.sample, "reference": task.reference}
    start = time.perf_counter()
    try:
        row.update(_JOB_FUNCTIONS[task.job](task))
        row["status"] = "ok"
    except Exception as exc:  # noqa: BLE001 - a failed task is a row, never the end of the batch
        row["status"] = "error"
        row["error"] = error_text(exc)
    row["seconds"] = round(time.perf_counter() - start, 6)
    row["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return row


def error_text(exc: BaseException) -> str:
    """``Type: message`` on one line."""
    message = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _job_run(task: Task) -> dict[str, Any]:
    entry, read = _model(task.model)
    with entry.lock:
        outputs = entry.model.run(_inputs(entry, task.sample), progress=False)
    return {"read": read, "outputs": [summary(name, value) for name, value in outputs.items()]}


def _job_shapes(task: Task) -> dict[str, Any]:
    entry, read = _model(task.model)
    with entry.lock:
        model = entry.model
        if task.sample is not None:
            shapes = {i: list(np.shape(v)) for i, v in _indexed(model, _inputs(entry, task.sample)).items()}
            model = model.clone()
            model.reshape(shapes)
        results = [{"name": _output_name(node), "type": str(node.input_value(0).tensor_type.element_type),
                    "shape": str(node.input_value(0).tensor_type.shape)} for node in model.get_results()]
        layers = len(model.get_ordered_ops())
    return {"read": read, "layers": layers, "outputs": results}


def _job_compare(task: Task) -> dict[str, Any]:
    assert task.reference is not None
    entry, read = _model(task.model)
    with entry.lock:
        inputs = _inputs(entry, task.sample)
        got = list(entry.model.run(inputs, progress=False).items())
    reference, _ = _model(task.reference)
    with reference.lock:
        want = list(reference.model.run(inputs, progress=False).values())
    if len(got) != len(want):
        raise BatchError(f"the model has {len(got)} outputs, the reference {len(want)}")
    rows = [difference(name, value, expected) for (name, value), expected in zip(got, want)]
    worst = max((r["max_abs"] for r in rows if r["max_abs"] is not None), default=None)
    return {"read": read, "max_abs": worst, "outputs": rows}


_JOB_FUNCTIONS: dict[str, Callable[[Task], dict[str, Any]]] = {
    "run": _job_run, "shapes": _job_shapes, "compare": _job_compare}


def _model(path: str) -> tuple[_Entry, bool]:
    if not os.path.isfile(path):
        raise BatchError(f"{path}: no such file")
    return _MODELS.get(path)


def _inputs(entry: _Entry, sample: str | None) -> dict[Any, np.ndarray] | None:
    """``sample_inputs``, the random shapes chosen once per model (the caller holds its lock)."""
    if sample is not None and sample.startswith(RANDOM_PREFIX):
        if entry.random_shapes is None:
            entry.random_shapes = random_shapes(entry.model)
        return random_inputs(entry.model, int(sample[len(RANDOM_PREFIX):]), entry.random_shapes)
    return sample_inputs(entry.model, sample)


def _output_name(result: Any) -> str:
    """The key ``model.run`` returns a Result's value under: a tensor name, else the friendly name."""
    names = result.outputs()[0].names or result.input_value(0).names
    return sorted(names)[0] if names else str(result.name)


# ---------------------------------------------------------------- samples and figures

def sample_inputs(model: "Model", sample: str | None) -> dict[Any, np.ndarray] | None:
    """A sample's inputs for ``model.run``: an .npz keyed by input name (or ``arr_N`` for the N-th
    input), or random values for ``random:SEED``; None for no sample."""
    if sample is None:
        return None
    if sample.startswith(RANDOM_PREFIX):
        return random_inputs(model, int(sample[len(RANDOM_PREFIX):]))
    if not os.path.isfile(sample):
        raise BatchError(f"{sample}: no such file")
    names = {p.name for p in model.get_parameters()} | {n for p in model.get_parameters() for n in p.outputs()[0].names}
    with np.load(sample, allow_pickle=False) as archive:
        return {_archive_key(key, names): archive[key] for key in archive.files}


def _archive_key(key: str, names: set[str]) -> Any:
    if key not in names and key.startswith("arr_") and key[4:].isdigit():
        return int(key[4:])
    return key


def _indexed(model: "Model", inputs: dict[Any, np.ndarray] | None) -> dict[int, np.ndarray]:
    """Inputs keyed by Parameter index."""
    params = model.get_parameters()
    by_name: dict[str, int] = {}
    for i, p in enumerate(params):
        by_name[p.name] = i
        by_name.update((n, i) for n in p.outputs()[0].names)
    indexed: dict[int, np.ndarray] = {}
    for key, value in (inputs or {}).items():
        if isinstance(key, int) and 0 <= key < len(params):
            indexed[key] = value
        elif key in by_name:
            indexed[by_name[key]] = value
        else:
            raise BatchError(f"sample key '{key}' names no input of model '{model.name}'")
    return indexed


def random_shapes(model: "Model") -> list[tuple[int, ...]]:
    """A static shape per input that the model accepts (graphir.input_sizes: each dynamic dim from
    its interval's lower bound, the model's static dims and powers of two, the first that infers)."""
    from graphir.input_sizes import choose_input_shapes

    return choose_input_shapes(model, advice="a sample .npz of the sizes")


def random_inputs(model: "Model", seed: int, shapes: Sequence[tuple[int, ...]] | None = None) -> dict[Any, np.ndarray]:
    """Random values for every input, of ``shapes`` (default: :func:`random_shapes`)."""
    rng = np.random.default_rng(seed)
    values: dict[Any, np.ndarray] = {}
    params = model.get_parameters()
    for index, (param, shape) in enumerate(zip(params, shapes if shapes is not None else random_shapes(model))):
        et = param.outputs()[0].tensor_type.element_type
        dtype = np.dtype(np.float32) if et.is_dynamic else np.dtype(et.numpy_dtype)
        if dtype.kind == "b":
            values[index] = rng.random(shape) < 0.5
        elif dtype.kind in "iu":
            values[index] = rng.integers(0, 8, size=shape).astype(dtype)
        else:
            values[index] = rng.standard_normal(shape).astype(dtype)
    return values


def _finite(value: Any) -> float | None:
    """A figure for JSON: None for inf/nan (JSON has no such numbers)."""
    return float(value) if np.isfinite(value) else None


def summary(name: str, value: Any) -> dict[str, Any]:
    """An output's figures: type, shape and, for numbers, min/max/mean/std of the finite values."""
    array = np.asarray(value)
    row: dict[str, Any] = {"name": name, "dtype": str(array.dtype), "shape": list(array.shape)}
    if array.dtype.kind == "b":
        row["true"] = int(array.sum())
    elif array.dtype.kind in "iuf" or array.dtype.kind == "V":
        values = array.astype(np.float64).reshape(-1)
        finite = values[np.isfinite(values)]
        row["nonfinite"] = int(values.size - finite.size)
        if finite.size:
            with np.errstate(over="ignore", invalid="ignore"):  # a huge output's std overflows: None
                row.update(min=_finite(finite.min()), max=_finite(finite.max()), mean=_finite(finite.mean()),
                           std=_finite(finite.std()))
    return row


def difference(name: str, value: Any, expected: Any) -> dict[str, Any]:
    """How far an output is from the reference's: largest and mean absolute difference (over the
    places both are finite), the reference's largest magnitude, and places finite in only one."""
    got, want = np.asarray(value), np.asarray(expected)
    if got.shape != want.shape:
        raise BatchError(f"output '{name}': shape {list(got.shape)}, the reference's {list(want.shape)}")
    a, b = got.astype(np.float64).reshape(-1), want.astype(np.float64).reshape(-1)
    both = np.isfinite(a) & np.isfinite(b)
    with np.errstate(over="ignore", invalid="ignore"):
        diff = np.abs(a[both] - b[both])
        return {"name": name, "shape": list(got.shape),
                "max_abs": _finite(diff.max()) if diff.size else None,
                "mean_abs": _finite(diff.mean()) if diff.size else None,
                "ref_max_abs": _finite(np.abs(b[both]).max()) if diff.size else None,
                "finite_mismatch": int((np.isfinite(a) != np.isfinite(b)).sum())}


# ---------------------------------------------------------------- the output file

class RowWriter:
    """Appends rows to a JSON Lines file, each with one ``write``; a short write (a full disk) is
    cut back to the last whole row. Synced to disk at most every ``sync_seconds`` and on close."""

    def __init__(self, path: str | os.PathLike[str], sync_seconds: float = 2.0) -> None:
        self.path = os.fspath(path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        self._sync_seconds = sync_seconds
        self._synced = time.monotonic()

    def write(self, row: dict[str, Any]) -> None:
        data = (json.dumps(row, allow_nan=False, default=str) + "\n").encode()
        start = os.fstat(self._fd).st_size
        try:
            written = os.write(self._fd, data)
            while written < len(data):
                written += os.write(self._fd, data[written:])
        except BaseException:
            os.ftruncate(self._fd, start)  # never a torn row
            raise
        if time.monotonic() - self._synced > self._sync_seconds:
            os.fsync(self._fd)
            self._synced = time.monotonic()

    def close(self) -> None:
        if self._fd >= 0:
            try:
                os.fsync(self._fd)
            finally:
                os.close(self._fd)
                self._fd = -1


def finished_rows(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of a batch output; a last line without its newline (a torn row) is cut off the file."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    whole = data.rfind(b"\n") + 1
    if whole < len(data):
        os.truncate(path, whole)
    rows = []
    for number, line in enumerate(data[:whole].splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise BatchError(f"{path}: line {number} is not a JSON row; not a batch output?") from None
        if not isinstance(row, dict) or "status" not in row:
            raise BatchError(f"{path}: line {number} is not a batch row; not a batch output?")
        rows.append(row)
    return rows


# ---------------------------------------------------------------- running a batch

@dataclass
class Summary:
    """What a batch did: tasks given, skipped (already in the output), ok and failed rows written."""
    total: int
    skipped: int
    ok: int
    failed: int
    seconds: float
    output: str

    def __str__(self) -> str:
        done = self.ok + self.failed
        rate = f" ({done / self.seconds:.1f} tasks/s)" if self.seconds > 0 and done else ""
        skipped = f", {self.skipped} already done" if self.skipped else ""
        return (f"{self.total} tasks: {self.ok} ok, {self.failed} failed{skipped} in {self.seconds:.2f} s{rate}"
                f" -> {self.output}")


def run(tasks: Iterable[Task], *, workers: int | None = None, client: Any = None,
        output: str | os.PathLike[str], resume: bool = False, overwrite: bool = False,
        progress: bool = True, chunk_size: int | None = None,
        on_row: Callable[[dict[str, Any]], None] | None = None) -> Summary:
    """Run ``tasks`` and append one row per task to ``output`` (JSON Lines).

    ``workers=None``: in this process; ``workers=N``: a pool of N processes (forkserver/spawn);
    ``client``: a ``distributed.Client`` (workers read the paths themselves). ``resume``: skip the
    tasks ``output`` already has a row for. An existing output is refused unless ``resume`` or
    ``overwrite``. ``chunk_size``: tasks sent to a worker at once (default: by the task count).
    ``on_row``: called in this process with each row once it is written.
    """
    out = os.fspath(output)
    if os.path.isdir(out):
        raise BatchError(f"{out}: is a directory; give a file name such as {os.path.join(out, 'batch.jsonl')}")
    unique = list(dict.fromkeys(tasks))
    done: set[str] = set()
    if resume:
        done = {row_key(r) for r in finished_rows(out)}
    elif os.path.exists(out) and os.path.getsize(out) > 0:
        if not overwrite:
            raise BatchError(f"{out}: exists; resume it (--resume) or replace it (--overwrite)")
        os.truncate(out, 0)
    todo = [t for t in unique if t.key not in done]
    start = time.perf_counter()
    counts = {"ok": 0, "error": 0}
    writer = RowWriter(out)
    bar = _progress_bar(len(todo), progress)

    def take(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            try:
                writer.write(row)
            except (TypeError, ValueError) as exc:  # not JSON (nothing was written): the task's error row
                row = _failed_rows([Task(row["model"], row["sample"], row["job"], row["reference"])],
                                   f"RowError: the row cannot be written as JSON: {exc}")[0]
                writer.write(row)
            counts["ok" if row["status"] == "ok" else "error"] += 1
            if on_row is not None:
                on_row(row)
        bar.update(len(rows))
        if counts["error"]:
            bar.set_postfix(failed=counts["error"], refresh=False)

    try:
        if client is not None:
            _on_dask(client, todo, take, chunk_size)
        elif workers:
            _on_pool(workers, todo, take, chunk_size)
        else:
            for task in todo:
                take([execute(task)])
    finally:
        bar.close()
        writer.close()
    return Summary(len(unique), len(unique) - len(todo), counts["ok"], counts["error"],
                   time.perf_counter() - start, out)


def _progress_bar(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="task", disable=not enabled, file=sys.stderr, dynamic_ncols=True, smoothing=0.1)


def _chunks(tasks: Sequence[Task], workers: int, size: int | None) -> deque[list[Task]]:
    """Tasks in chunks: about 8 per worker, at most 64 tasks each (a row is written when its
    chunk returns, so smaller chunks mean fresher output)."""
    if size is None:
        size = max(1, min(64, len(tasks) // (8 * max(workers, 1))))
    return deque(list(tasks[i:i + size]) for i in range(0, len(tasks), size))


def _failed_rows(tasks: Sequence[Task], message: str) -> list[dict[str, Any]]:
    return [{"job": t.job, "model": t.model, "sample": t.sample, "reference": t.reference,
             "status": "error", "error": message} for t in tasks]


#: the BLAS thread limit of a pool worker process (kept referenced for the worker's lifetime)
_BLAS_LIMIT: list[Any] = []


def _pool_worker_started() -> None:
    """A pool worker's set-up: one BLAS thread. N workers each with a BLAS thread per core would
    oversubscribe the cores, and OpenBLAS's waiting threads then cost 10-100x on a busy machine
    (a 32x256 @ 256x256 MatMul chain: 0.9 ms a run with one thread, 159 ms with two at load 10
    on 2 cores). The process is the pool's own; without threadpoolctl it keeps numpy's default."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    _BLAS_LIMIT.append(threadpool_limits(limits=1, user_api="blas"))


def _on_pool(workers: int, tasks: Sequence[Task], take: Callable[[list[dict[str, Any]]], None],
             chunk_size: int | None) -> None:
    """Chunks on a process pool, at most 4 per worker in flight. When a worker process dies the
    pool is rebuilt and the chunks it had are rerun one task at a time, alone: a task that kills
    a worker again is an error row and the batch goes on."""
    import concurrent.futures as cf
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    pending = _chunks(tasks, workers, chunk_size)
    suspects: deque[list[Task]] = deque()  # tasks that were in flight when a worker died
    if find_spec("threadpoolctl") is None:
        warnings.warn("graphir.batch: pool workers keep numpy's default BLAS threads (one per core each); "
                      "install threadpoolctl (pip install 'graphir[batch]') or set OPENBLAS_NUM_THREADS=1",
                      RuntimeWarning, stacklevel=3)

    def new_pool() -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_pool_worker_started)

    pool = new_pool()
    running: dict[cf.Future[list[dict[str, Any]]], tuple[list[Task], bool]] = {}

    def submit(chunk: list[Task], alone: bool) -> bool:
        """Submit ``chunk``; False (the chunk back at the front of its queue) when the pool broke
        before it took it: submit raises as soon as the pool knows a worker died."""
        try:
            running[pool.submit(execute_chunk, chunk)] = (chunk, alone)
        except BrokenProcessPool:
            (suspects if alone else pending).appendleft(chunk)
            return False
        return True

    try:
        while pending or suspects or running:
            broken = False
            while not broken and suspects and not running:  # one suspect at a time, nothing beside it
                broken = not submit(suspects.popleft(), True)
            while (not broken and pending and not suspects and len(running) < 4 * workers
                   and not any(alone for _chunk, alone in running.values())):
                broken = not submit(pending.popleft(), False)
            if not broken:
                finished, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                for future in finished:
                    chunk, alone = running.pop(future)
                    try:
                        take(future.result())
                    except BrokenProcessPool:
                        broken = True
                        if alone:
                            take(_failed_rows(chunk, "WorkerDied: the worker process died running this task"))
                        else:
                            suspects.extend([t] for t in chunk)
            if broken:
                for future, (chunk, alone) in running.items():  # the pool is gone: all in flight are suspects
                    if future.done() and future.exception() is None:
                        take(future.result())  # finished before the break: its rows stand
                    elif alone:
                        take(_failed_rows(chunk, "WorkerDied: the worker process died running this task"))
                    else:
                        suspects.extend([t] for t in chunk)
                running.clear()
                pool.shutdown(wait=True, cancel_futures=True)
                pool = new_pool()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _on_dask(client: Any, tasks: Sequence[Task], take: Callable[[list[dict[str, Any]]], None],
             chunk_size: int | None) -> None:
    """Chunks on a Dask cluster, at most 4 per worker thread in flight. Dask reruns a chunk whose
    worker died; one that killed its workers too often (KilledWorker) becomes error rows."""
    try:
        from distributed import wait
    except ImportError:
        raise BatchError(DISTRIBUTED_MISSING) from None
    threads = max(1, sum(client.nthreads().values()))
    pending = _chunks(tasks, threads, chunk_size)
    running: dict[Any, list[Task]] = {}
    try:
        while pending or running:
            while pending and len(running) < 4 * threads:
                chunk = pending.popleft()
                running[client.submit(execute_chunk, chunk, pure=False)] = chunk
            finished = wait(list(running), return_when="FIRST_COMPLETED").done
            for future in finished:
                chunk = running.pop(future)
                try:
                    take(future.result())
                except Exception as exc:  # noqa: BLE001 - KilledWorker, an unimportable graphir on a worker...
                    take(_failed_rows(chunk, error_text(exc)))
                future.release()
    finally:
        for future in running:
            future.cancel()
