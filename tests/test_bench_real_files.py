"""benchmarks/real_files.py (the corpus benchmark of issue 17) on its one tiny synthetic file, so the
command cannot rot: it makes the file, measures every stage once and reports figures and goals."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np

from tests.script_modules import load_script

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "real_files.py"


def _bench_module() -> ModuleType:
    return load_script(BENCH, "real_files", search=BENCH.parent)


def test_benchmark_measures_every_stage_of_the_tiny_chain(ov, tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(BENCH), "--dir", str(tmp_path / "corpus"), "--only", "tiny_add_chain",
                           "--repeat", "1", "--clock", "cpu", "--json", str(out)], check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "corpus" / "tiny_add_chain.xml").exists()  # made on demand
    figures = json.loads(out.read_text())
    assert figures["clock"] == "cpu"
    [row] = figures["files"]
    assert row["file"] == "tiny_add_chain" and row["errors"] == {}
    assert row["layers"] == 12 and row["layers_graphir"] == 12  # Parameter, 5 x (Constant, Add), Result
    for stage in ("read", "reshape", "save", "run"):
        assert row[f"{stage}_ov"] > 0 and row[f"{stage}_graphir"] > 0
        assert row[f"{stage}_ratio"] == row[f"{stage}_graphir"] / row[f"{stage}_ov"]
    assert row["run_outputs_ok"] is True and row["run_max_abs_diff"] < 1e-5
    assert row["run_class"] == "small"
    assert "not exported" in row["onnx_note"]
    assert len(figures["load_average"]["start"]) == 3 and len(figures["load_average"]["end"]) == 3
    assert [g["goal"] for g in figures["goals"]] == ["read <= 1.0x", "reshape <= 1.0x", "save <= 1.0x",
                                                    "run (small nets) <= 2.0x", "run (large nets) <= 3.0x"]
    assert figures["goals"][4]["met"] is None  # no large net among the files measured
    lines = done.stdout.splitlines()
    assert any(line.startswith("tiny_add_chain ") for line in lines)
    assert any(line.startswith("worst ") for line in lines)
    assert any(line.startswith("load average (1/5/15 min): start [") for line in lines)
    assert any(line.strip().startswith("run (small nets) <= 2.0x") for line in lines)


def test_wrong_outputs_fail_the_comparison() -> None:
    compare = _bench_module().compare
    expected = [np.array([1.0, 2.0, np.inf], np.float32)]
    assert compare([np.array([1.0, 2.0, np.inf], np.float32)], expected) == (0.0, True, "")
    diff, ok, why = compare([np.array([1.0, 2.5, np.inf], np.float32)], expected)
    assert (diff, ok, why) == (0.5, False, "output 0: max abs diff 0.5 (scale 2)")
    assert compare([np.array([1.0, 2.0, np.nan], np.float32)], expected)[1:] == (False, "output 0: non-finite values differ")
    assert compare([np.zeros(2, np.float32)], expected)[1:] == (False, "output 0: shape [2] vs [3]")
    assert compare([], expected)[1:] == (False, "0 outputs, reference has 1")


def test_short_calls_are_timed_more_often() -> None:
    """A call under SHORT_CALL_S gets at least SHORT_SAMPLES timed calls (a cold 0.1 ms reshape's
    best of 5 is noise); a slow one gets ``repeat``; ``before`` runs once per call, untimed."""
    bench = _bench_module()
    ticks = [0.0]

    def clock() -> float:  # 1 us a reading: a wall clock could make all 3 first calls "slow" on a loaded machine
        ticks[0] += 1e-6
        return ticks[0]

    bench.time = SimpleNamespace(perf_counter=clock, process_time=clock)
    calls: list[str] = []
    best, out = bench.best_time(lambda: calls.append("call") or 7, 3, lambda: calls.append("before"))
    assert out == 7 and 0 <= best < bench.SHORT_CALL_S
    assert calls == ["before", "call"] * bench.SHORT_SAMPLES
    slow: list[int] = []
    bench.SHORT_CALL_S = 0.0  # every call counts as slow: repeat decides
    bench.best_time(lambda: slow.append(1), 3)
    assert len(slow) == 3


def test_graphir_run_worker_reports_a_bad_file_as_an_error(tmp_path: Path) -> None:
    """The run workers (each engine in a fresh process of its own) return what stopped them, not a traceback."""
    bench = _bench_module()
    bad = tmp_path / "bad.xml"
    bad.write_text("<net name='x' version='11'><layers><layer id='0' type='Nope'")
    side = bench.graphir_run_worker(str(bad), [np.zeros(2, np.float32)], 1, (10.0, "wall", "reference"))
    assert set(side) == {"error"} and "bad.xml" in side["error"]
