"""``graphir batch`` / graphir.batch.run: rows, resume, atomic rows, error rows, the process pool
(a worker killed mid-batch included) and a Dask LocalCluster of 2 worker processes (one killed)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
from graphir import batch, opset
from graphir.cli import main

ROOT = Path(__file__).resolve().parent.parent


def rows_of(path: Path) -> list[dict[str, Any]]:
    text = path.read_text()
    assert text == "" or text.endswith("\n"), "a torn last row"
    return [json.loads(line) for line in text.splitlines()]


def save(tmp_path: Path, name: str, shift: float = 0.0, dims: str = "[2,3]") -> Path:
    """y = relu(x) + shift, x: f32 of ``dims``."""
    x = opset.parameter(dims, "f32", name="x")
    y = opset.add(opset.relu(x), opset.constant(np.float32(shift)))
    y.names = {"y"}
    path = tmp_path / f"{name}.xml"
    graphir.save_model(graphir.Model([y], [x], name=name), path)
    return path


def samples(tmp_path: Path, count: int) -> tuple[Path, list[np.ndarray]]:
    folder = tmp_path / "samples"
    folder.mkdir()
    values = [np.random.default_rng(i).standard_normal((2, 3)).astype(np.float32) for i in range(count)]
    for i, value in enumerate(values):
        np.savez(folder / f"{i:03d}.npz", x=value)
    return folder, values


def kill_worker_at(row_number: int, killed: list[int]) -> Any:
    """An ``on_row`` callback that SIGKILLs the worker that ran the ``row_number``-th row, once
    that row is written: in the batch's own loop, so the kill lands mid-batch whatever the load
    (a thread polling the output for rows could wake after the batch had finished)."""
    seen: list[dict[str, Any]] = []

    def on_row(row: dict[str, Any]) -> None:
        seen.append(row)
        if len(seen) == row_number:
            pid = int(row["worker"].rsplit(":", 1)[1])
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    return on_row


# ---------------------------------------------------------------- rows, jobs, errors

def test_run_rows_hold_each_outputs_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = save(tmp_path, "m")
    folder, values = samples(tmp_path, 3)
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(model), "--inputs", str(folder), "-o", str(out), "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith("3 tasks: 3 ok, 0 failed")
    rows = rows_of(out)
    assert [r["sample"] for r in rows] == [str(folder / f"{i:03d}.npz") for i in range(3)]
    assert [r["read"] for r in rows] == [True, False, False]  # read once, not once per sample
    for row, value in zip(rows, values):
        expected = np.maximum(value, 0).astype(np.float64)
        (output,) = row["outputs"]
        assert (row["status"], output["name"], output["dtype"], output["shape"]) == ("ok", "y", "float32", [2, 3])
        assert output["min"] == expected.min() and output["max"] == expected.max()
        assert output["mean"] == pytest.approx(expected.mean()) and output["std"] == pytest.approx(expected.std())
        assert output["nonfinite"] == 0


def test_shapes_job_reshapes_to_each_sample(tmp_path: Path) -> None:
    model = save(tmp_path, "dyn", dims="[?,3]")
    folder = tmp_path / "s"
    folder.mkdir()
    np.savez(folder / "a.npz", x=np.zeros((4, 3), np.float32))
    np.savez(folder / "b.npz", arr_0=np.zeros((7, 3), np.float32))  # by position
    out = tmp_path / "shapes.jsonl"
    summary = batch.run(batch.make_tasks([str(model)], [None, str(folder / "a.npz"), str(folder / "b.npz")], "shapes"),
                        output=out, progress=False)
    assert (summary.ok, summary.failed) == (3, 0)
    shapes = [[(o["name"], o["type"], o["shape"]) for o in r["outputs"]] for r in rows_of(out)]
    assert shapes == [[("y", "f32", "[?,3]")], [("y", "f32", "[4,3]")], [("y", "f32", "[7,3]")]]
    assert {r["layers"] for r in rows_of(out)} == {5}  # Parameter, Relu, Constant, Add, Result


def test_compare_job_measures_the_difference_from_the_reference(tmp_path: Path) -> None:
    original, shifted = save(tmp_path, "orig"), save(tmp_path, "shifted", shift=0.25)
    out = tmp_path / "cmp.jsonl"
    code = main(["batch", str(shifted), "--reference", str(original), "--random", "4", "-o", str(out), "--no-progress"])
    assert code == 0
    rows = rows_of(out)
    assert [r["sample"] for r in rows] == [f"random:{i}" for i in range(4)]
    for row in rows:
        assert (row["job"], row["reference"]) == ("compare", str(original))
        assert row["max_abs"] == pytest.approx(0.25, abs=1e-6)  # f32 rounding of relu(x) + 0.25
        assert row["outputs"][0]["mean_abs"] == pytest.approx(0.25, abs=1e-6)
        assert row["outputs"][0]["finite_mismatch"] == 0


def test_figures_json_cannot_hold_are_null(tmp_path: Path) -> None:
    """inf/nan are counted, and a std that overflows float64 is null: every row stays JSON."""
    x = opset.parameter([4], "f64", name="x")
    huge = opset.multiply(x, opset.constant(np.array([1e200, 1e200, np.inf, np.nan])))
    huge.names = {"huge"}
    path = tmp_path / "huge.xml"
    graphir.save_model(graphir.Model([huge], [x], name="huge"), path)
    out = tmp_path / "out.jsonl"
    np.savez(tmp_path / "s.npz", x=np.array([3.0, -2.0, 1.0, 1.0]))
    assert batch.run([batch.Task(str(path), str(tmp_path / "s.npz"))], output=out, progress=False).ok == 1
    (output,) = rows_of(out)[0]["outputs"]
    assert (output["min"], output["max"], output["nonfinite"]) == (-2e200, 3e200, 2)
    assert output["mean"] == pytest.approx(0.5e200) and output["std"] is None


def test_a_failed_task_is_a_row_and_the_batch_goes_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = save(tmp_path, "good")
    wide = save(tmp_path, "wide", dims="[5,5]")  # the samples are [2,3]: the run refuses them
    (tmp_path / "broken.xml").write_text("<net><layers>")
    folder, _ = samples(tmp_path, 2)
    np.savez(folder / "zz_wrong_key.npz", nothing=np.zeros((2, 3), np.float32))
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(good), str(tmp_path / "missing.xml"), str(tmp_path / "broken.xml"), str(wide),
                 "--inputs", str(folder), "-o", str(out), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out.startswith("12 tasks: 2 ok, 10 failed")
    assert "10 task(s) failed" in captured.err
    rows = rows_of(out)
    assert len(rows) == 12
    errors = {(Path(r["model"]).name, Path(r["sample"]).name): r["error"] for r in rows if r["status"] == "error"}
    assert errors[("good.xml", "zz_wrong_key.npz")] == "InputError: model 'good' has no input 'nothing' (inputs: 'x')"
    assert errors[("missing.xml", "000.npz")] == f"BatchError: {tmp_path / 'missing.xml'}: no such file"
    assert errors[("broken.xml", "000.npz")].startswith("SerializationError: ")
    assert "broken.xml" in errors[("broken.xml", "000.npz")]
    assert errors[("wide.xml", "000.npz")] == "InputError: input 'x': expected shape [5,5], got [2, 3]"
    assert {r["status"] for r in rows if Path(r["model"]).name == "good.xml" and "wrong" not in r["sample"]} == {"ok"}


def test_model_lists_globs_and_directories(tmp_path: Path) -> None:
    zoo = tmp_path / "zoo"
    (zoo / "a").mkdir(parents=True)
    paths = [save(zoo / "a", "one"), save(zoo, "two")]
    (tmp_path / "list.txt").write_text("# the zoo\nzoo/a/one.xml\n\nzoo/two.xml\n")
    expected = [str(p) for p in paths]
    assert batch.expand_models([f"@{tmp_path / 'list.txt'}"]) == expected
    assert batch.expand_models([str(tmp_path / "list.txt")]) == expected
    assert batch.expand_models([str(zoo / "**" / "*.xml")]) == sorted(expected)
    assert batch.expand_models([str(zoo)]) == sorted(expected)
    with pytest.raises(batch.BatchError, match=r"nothing\*\.xml: matches no file"):
        batch.expand_models([str(tmp_path / "nothing*.xml")])
    assert batch.expand_samples([], random=2, seed=5) == ["random:5", "random:6"]
    assert batch.expand_samples([]) == [None]


def test_arguments_the_command_cannot_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = save(tmp_path, "m")
    out = tmp_path / "o.jsonl"
    assert main(["batch", str(model), "-o", str(out)]) == 2
    assert "--job run needs samples: --inputs DIR or --random" in capsys.readouterr().err
    assert main(["batch", str(model), "--random", "-o", str(out), "--workers", "0"]) == 2
    assert "--workers 0: give 1 or more" in capsys.readouterr().err
    out.write_text('{"status": "ok"}\n')
    assert main(["batch", str(model), "--random", "-o", str(out), "--no-progress"]) == 2
    assert "exists; resume it (--resume) or replace it (--overwrite)" in capsys.readouterr().err
    assert main(["batch", str(model), "--random", "-o", str(out), "--overwrite", "--no-progress"]) == 0
    assert len(rows_of(out)) == 1 and rows_of(out)[0]["sample"] == "random:0"
    out.write_text("not json\n")
    assert main(["batch", str(model), "--random", "-o", str(out), "--resume", "--no-progress"]) == 2
    assert "line 1 is not a JSON row; not a batch output?" in capsys.readouterr().err


def test_scheduler_without_the_extra_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    code = main(["batch", str(save(tmp_path, "m")), "--random", "-o", str(tmp_path / "o.jsonl"),
                 "--scheduler", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == ("graphir batch: error: a Dask scheduler needs the optional extra 'distributed': "
                   "pip install 'graphir[distributed]'\n")


# ---------------------------------------------------------------- atomic rows and resume

def test_a_short_write_is_cut_back_to_the_last_whole_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "rows.jsonl"
    writer = batch.RowWriter(out)
    writer.write({"status": "ok", "n": 1})
    real_write = os.write

    def half_then_full_disk(fd: int, data: bytes) -> int:
        if fd == writer._fd and len(data) > 20:
            real_write(fd, data[:10])
            monkeypatch.setattr(os, "write", lambda *_: (_ for _ in ()).throw(OSError(28, "No space left on device")))
            return 10
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", half_then_full_disk)
    with pytest.raises(OSError, match="No space left"):
        writer.write({"status": "ok", "n": 2, "padding": "x" * 40})
    monkeypatch.setattr(os, "write", real_write)
    writer.write({"status": "ok", "n": 3})
    writer.close()
    assert [r["n"] for r in rows_of(out)] == [1, 3]


def test_resume_cuts_a_torn_row_and_runs_only_what_is_missing(tmp_path: Path) -> None:
    model = save(tmp_path, "m")
    tasks = batch.make_tasks([str(model)], batch.expand_samples(random=6))
    out = tmp_path / "out.jsonl"
    assert batch.run(tasks[:4], output=out, progress=False).ok == 4
    whole = out.read_bytes()
    out.write_bytes(whole + b'{"job": "run", "model": "')  # a row torn by a kill mid-write
    summary = batch.run(tasks, output=out, resume=True, progress=False)
    assert (summary.total, summary.skipped, summary.ok, summary.failed) == (6, 4, 2, 0)
    rows = rows_of(out)
    assert out.read_bytes().startswith(whole)
    assert [r["sample"] for r in rows] == [f"random:{i}" for i in range(6)]
    assert batch.run(tasks, output=out, resume=True, progress=False).skipped == 6


#: ``graphir batch`` as the command runs it, except that it waits (on its stdin, which the test
#: never closes) before writing its last row: a kill chosen by time still lands mid-batch however
#: slowly the test's own polling gets to run
GATED_COMMAND = """
import sys
from graphir import batch
from graphir.cli import main

write = batch.RowWriter.write
def gated(self, row):
    self.rows = getattr(self, "rows", 0) + 1
    if self.rows == LAST:
        sys.stdin.read()
    write(self, row)
batch.RowWriter.write = gated
sys.exit(main(sys.argv[1:]))
"""


def test_a_killed_batch_keeps_whole_rows_and_resumes(tmp_path: Path) -> None:
    """The command killed (SIGKILL) mid-batch: every line is a whole row; --resume completes it,
    each task exactly once."""
    model = save(tmp_path, "m")
    out = tmp_path / "out.jsonl"
    args = ["batch", str(model), "--random", "3000", "-o", str(out), "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = GATED_COMMAND.replace("LAST", "3000")
    with subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as process:
        try:
            deadline = time.monotonic() + 300  # only a bound on a hang; the gate keeps the batch unfinished
            while process.poll() is None and (not out.exists() or out.stat().st_size < 20_000):
                assert time.monotonic() < deadline, "the batch wrote under 20,000 bytes in 300 s"
                time.sleep(0.005)
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        finally:
            process.kill()
            process.wait()
    assert process.returncode == -signal.SIGKILL
    before = rows_of(out)
    assert 0 < len(before) < 3000
    done = subprocess.run([sys.executable, "-m", "graphir", *args, "--resume"], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"3000 tasks: {3000 - len(before)} ok, 0 failed, {len(before)} already done")
    rows = rows_of(out)
    assert sorted(int(r["sample"].split(":")[1]) for r in rows) == list(range(3000))


def test_ten_thousand_samples_of_one_model(tmp_path: Path) -> None:
    model = save(tmp_path, "m")
    out = tmp_path / "out.jsonl"
    summary = batch.run(batch.make_tasks([str(model)], batch.expand_samples(random=10_000)), output=out, progress=False)
    assert (summary.total, summary.ok, summary.failed) == (10_000, 10_000, 0)
    rows = rows_of(out)
    assert len(rows) == 10_000 and len({r["sample"] for r in rows}) == 10_000
    assert sum(r["read"] for r in rows) == 1


# ---------------------------------------------------------------- the local process pool

def test_a_thousand_models_on_a_pool_of_two(tmp_path: Path) -> None:
    first = save(tmp_path, "m0000")
    for i in range(1, 1000):
        shutil.copyfile(first, tmp_path / f"m{i:04d}.xml")
        shutil.copyfile(first.with_suffix(".bin"), tmp_path / f"m{i:04d}.bin")
    models = batch.expand_models([str(tmp_path / "m*.xml")])
    out = tmp_path / "out.jsonl"
    summary = batch.run(batch.make_tasks(models, ["random:0"]), workers=2, output=out, progress=False)
    assert (summary.total, summary.ok, summary.failed) == (1000, 1000, 0)
    rows = rows_of(out)
    assert sorted(r["model"] for r in rows) == models
    assert all(r["read"] for r in rows)
    assert len({r["worker"] for r in rows}) == 2
    assert len({json.dumps(r["outputs"]) for r in rows}) == 1  # the same model and sample everywhere


def test_pool_reads_a_model_once_per_worker_and_survives_a_killed_worker(tmp_path: Path) -> None:
    model = save(tmp_path, "m")
    out = tmp_path / "out.jsonl"
    tasks = batch.make_tasks([str(model)], batch.expand_samples(random=400))
    killed: list[int] = []
    summary = batch.run(tasks, workers=2, output=out, progress=False, chunk_size=5,
                        on_row=kill_worker_at(20, killed))
    assert killed, "no worker was killed"
    rows = rows_of(out)
    assert (summary.ok, summary.failed) == (400, 0)
    assert Counter(r["sample"] for r in rows) == Counter(t.sample for t in tasks)  # each exactly once
    reads = Counter(r["worker"] for r in rows if r["read"])
    assert set(reads.values()) == {1}  # once per worker process (the killed one's replacement too)
    assert f"{os.uname().nodename}:{killed[0]}" in reads


def test_pool_that_breaks_before_a_submit_reruns_what_was_in_flight(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker dies between two submits: the pool raises at the next submit (not at a result),
    the batch rebuilds it and every task still gets exactly one row (CI saw this race)."""
    import concurrent.futures as cf
    from concurrent.futures.process import BrokenProcessPool

    submits: list[int] = []

    class BreaksAtThirdSubmit(cf.ProcessPoolExecutor):
        def submit(self, *args: Any, **kwargs: Any) -> Any:
            submits.append(1)
            if len(submits) == 3:  # what submit does once the pool has seen a worker die
                for process in list(self._processes.values()):
                    os.kill(process.pid, signal.SIGKILL)
                raise BrokenProcessPool("A child process terminated abruptly (simulated at submit)")
            return super().submit(*args, **kwargs)

    monkeypatch.setattr(cf, "ProcessPoolExecutor", BreaksAtThirdSubmit)
    model = save(tmp_path, "m")
    out = tmp_path / "out.jsonl"
    tasks = batch.make_tasks([str(model)], batch.expand_samples(random=40))
    summary = batch.run(tasks, workers=2, output=out, progress=False, chunk_size=5)
    assert (summary.ok, summary.failed) == (40, 0)
    assert len(submits) > 8  # the pool was rebuilt and took the rest
    assert Counter(r["sample"] for r in rows_of(out)) == Counter(t.sample for t in tasks)  # each exactly once


# ---------------------------------------------------------------- Dask

@pytest.fixture(scope="module")
def dask_client() -> Any:
    distributed = pytest.importorskip("distributed", reason="needs the optional extra graphir[distributed]")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       worker_dashboard_address=None, silence_logs=50,
                                       env={"PYTHONPATH": path})  # the workers import this checkout's graphir
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_dask_cluster_runs_the_batch(tmp_path: Path, dask_client: Any) -> None:
    good = save(tmp_path, "good")
    folder, values = samples(tmp_path, 4)
    out = tmp_path / "out.jsonl"
    tasks = batch.make_tasks([str(good), str(tmp_path / "missing.xml")], batch.expand_samples([str(folder)]))
    summary = batch.run(tasks, client=dask_client, output=out, progress=False, chunk_size=1)
    assert (summary.ok, summary.failed) == (4, 4)
    rows = {(Path(r["model"]).name, r["sample"]): r for r in rows_of(out)}
    for i, value in enumerate(values):
        row = rows[("good.xml", str(folder / f"{i:03d}.npz"))]
        assert row["outputs"][0]["max"] == float(np.maximum(value, 0).max())
        assert rows[("missing.xml", str(folder / f"{i:03d}.npz"))]["error"].endswith("missing.xml: no such file")
    assert {r["worker"].rsplit(":", 1)[1] for r in rows.values()} <= {str(p) for p in dask_client.run(os.getpid).values()}


def test_dask_worker_killed_mid_batch(tmp_path: Path, dask_client: Any) -> None:
    model = save(tmp_path, "m")
    out = tmp_path / "out.jsonl"
    tasks = batch.make_tasks([str(model)], batch.expand_samples(random=300))
    pids = dask_client.run(os.getpid)
    killed: list[int] = []
    summary = batch.run(tasks, client=dask_client, output=out, progress=False, chunk_size=1,
                        on_row=kill_worker_at(10, killed))
    assert killed and killed[0] in pids.values()
    rows = rows_of(out)
    assert (summary.ok, summary.failed) == (300, 0)
    assert Counter(r["sample"] for r in rows) == Counter(t.sample for t in tasks)  # every row exactly once
    dask_client.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker


def test_pool_workers_use_one_blas_thread() -> None:
    """N workers with a BLAS thread per core each would oversubscribe the cores."""
    import concurrent.futures as cf
    import multiprocessing

    pytest.importorskip("threadpoolctl", reason="needs the optional extra graphir[batch]")
    with cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver"),
                                initializer=batch._pool_worker_started) as pool:
        info = pool.submit(_blas_threads).result()
    assert info and {threads for _api, threads in info} == {1}


def _blas_threads() -> list[tuple[str, int]]:
    import numpy  # noqa: F401 - loads the BLAS library
    from threadpoolctl import threadpool_info

    return [(i["internal_api"], i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"]


def test_scheduler_address_on_the_command_line(tmp_path: Path, dask_client: Any,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    model = save(tmp_path, "m")
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(model), "--random", "6", "-o", str(out), "--no-progress",
                 "--scheduler", dask_client.scheduler.address])
    assert code == 0 and capsys.readouterr().out.startswith("6 tasks: 6 ok, 0 failed")
    workers = {str(p) for p in dask_client.run(os.getpid).values()}
    assert {r["worker"].rsplit(":", 1)[1] for r in rows_of(out)} <= workers
    assert sorted(r["sample"] for r in rows_of(out)) == [f"random:{i}" for i in range(6)]
