"""Saving real IR files: graphir.save_model against openvino.save_model, side by side, one process.

    python benchmarks/save_ir.py [XML ...] [--dir DIR] [--repeat 5] [--no-fsync]

Each file is read once by each library (graphir.read_model, openvino.Core().read_model); then the
two saves alternate ``--repeat`` times into the same directory (``--dir``, default the system temp
directory: say whether it is tmpfs or a disk when quoting figures), and the best time of each is
kept, in two ways: to a fresh path (the previous output deleted, untimed, before each save) and
over the previous output (graphir then finds the .bin already holds the weights and replaces only
the .xml: compared, not rewritten). OpenVINO saves with
``compress_to_fp16=False`` (the weights as they are, as graphir writes them). graphir's save is
atomic (temporary files, fsync, renames, directory fsync); OpenVINO's is not and does not fsync.
``--no-fsync`` replaces os.fsync by a no-op during graphir's saves, to show what the fsyncs cost.
``--cpu`` times CPU seconds of the process (time.process_time) instead of wall time: steadier when
other processes load the machine, but blind to waiting for the disk (fsync).
With no XML given: every .xml under tests/fixtures/{llm,torchvision,corpus} (the repository's real
exports). Prints one line per file (ms, ratio graphir/OpenVINO) and the worst ratio.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIRS = ["tests/fixtures/llm", "tests/fixtures/torchvision", "tests/fixtures/corpus"]


@contextmanager
def fsync_disabled(enabled: bool) -> Iterator[None]:
    if not enabled:
        yield
        return
    real = os.fsync
    os.fsync = lambda fd: None  # type: ignore[assignment]
    try:
        yield
    finally:
        os.fsync = real  # type: ignore[assignment]


def timed(fn: Callable[[], Any], clock: Callable[[], float]) -> float:
    start = clock()
    fn()
    return clock() - start


def remove(directory: Path) -> None:
    for f in directory.iterdir():
        f.unlink()


def files(args: list[str]) -> list[Path]:
    if args:
        return [Path(a) for a in args]
    out: list[Path] = []
    for d in DEFAULT_DIRS:
        out += sorted((ROOT / d).rglob("*.xml"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("xml", nargs="*")
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-fsync", action="store_true")
    parser.add_argument("--cpu", action="store_true", help="CPU time instead of wall time")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    sys.path.insert(0, str(ROOT))
    import openvino as ov

    import graphir

    core = ov.Core()
    out_dir = Path(tempfile.mkdtemp(prefix="graphir-save-bench-", dir=args.dir))
    print(f"load average {os.getloadavg()}; saving into {out_dir}; fsync {'off' if args.no_fsync else 'on'}; "
          f"{'CPU' if args.cpu else 'wall'} time")
    worst = (0.0, "")
    try:
        for xml in files(args.xml):
            ov_model = core.read_model(str(xml))
            g_model = graphir.read_model(xml)
            ov_out, g_out = str(out_dir / "ov.xml"), out_dir / "g.xml"

            def ov_save() -> None:
                ov.save_model(ov_model, ov_out, compress_to_fp16=False)

            def g_save() -> None:
                with fsync_disabled(args.no_fsync):
                    graphir.save_model(g_model, g_out)

            ov_save(), g_save()  # warm: first writes of the output files
            figures = []
            for fresh in (True, False):
                t_ov = t_g = float("inf")
                for _ in range(args.repeat):  # alternate, so both see the same load
                    if fresh:
                        remove(out_dir)
                    t_ov = min(t_ov, timed(ov_save, clock))
                    t_g = min(t_g, timed(g_save, clock))
                figures.append((t_g, t_ov))
            size = xml.with_suffix(".bin").stat().st_size if xml.with_suffix(".bin").exists() else 0
            name = str(xml.relative_to(ROOT) if xml.is_relative_to(ROOT) else xml)
            print(f"{name[-48:]:48s} bin {size / 1e6:7.2f} MB  " + "  ".join(
                f"{label} graphir {g * 1e3:7.2f} ms openvino {o * 1e3:7.2f} ms {g / o:5.2f}x"
                for label, (g, o) in zip(("fresh", "over"), figures)), flush=True)
            worst = max(worst, (max(g / o for g, o in figures), name))
    finally:
        remove(out_dir)
        out_dir.rmdir()
    print(f"worst: {worst[0]:.2f}x ({worst[1]}); load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
