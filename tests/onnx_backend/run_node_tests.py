"""ONNX's backend node tests through graphir and through OpenVINO's ONNX frontend, side by side.

    python tests/onnx_backend/run_node_tests.py            # both engines, every case (~5 min on 2 cores)
    python tests/onnx_backend/run_node_tests.py -k resize  # cases whose name holds 'resize'
    python tests/onnx_backend/run_node_tests.py --engine graphir --write-known-failures

Prints the pass counts of both per op type and in total, then the cases OpenVINO passes and graphir
does not (with graphir's reason). OpenVINO runs in a worker process of its own (read_model +
compile_model "CPU" with INFERENCE_PRECISION_HINT f32); a case that crashes it is counted a failure
and the worker restarts after it. A third column, "via IR", is OpenVINO running the IR graphir
writes for the case (``graphir convert m.onnx m.xml``), compared with the same expected outputs.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.onnx_backend import node_cases as nc  # noqa: E402


def _select(cases: list, pattern: str | None) -> list:
    return [c for c in cases if not pattern or pattern in c.name]


def run_graphir(cases: list) -> dict[str, nc.Outcome]:
    return {name: outcome for name, outcome in nc.iter_outcomes(cases, nc.graphir_engine)}


def _worker(pattern: str | None, skip: set[str], out: Path) -> None:
    """OpenVINO's side, one JSON line per case, flushed before the next case starts."""
    cases = [c for c in _select(nc.load_cases(), pattern) if c.name not in skip]
    with out.open("a") as fh:
        for case in cases:
            fh.write(json.dumps({"case": case.name, "started": True}) + "\n")
            fh.flush()
            outcome = nc.run_case(case, nc.openvino_engine)
            via_ir = nc.run_case(case, nc.converted_engine)
            fh.write(json.dumps({"case": case.name, "ok": outcome.ok, "reason": outcome.reason,
                                 "ir_ok": via_ir.ok, "ir_reason": via_ir.reason}) + "\n")
            fh.flush()


def run_openvino(pattern: str | None) -> tuple[dict[str, nc.Outcome], dict[str, nc.Outcome]]:
    """OpenVINO on each .onnx, and OpenVINO on the IR graphir converts it to."""
    results: dict[str, nc.Outcome] = {}
    via_ir: dict[str, nc.Outcome] = {}
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "openvino.jsonl"
        done: set[str] = set()
        while True:
            cmd = [sys.executable, __file__, "--worker", "--out", str(log), "--skip", json.dumps(sorted(done))]
            if pattern:
                cmd += ["-k", pattern]
            proc = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            started = None
            for line in log.read_text().splitlines() if log.exists() else []:
                entry = json.loads(line)
                if entry.get("started"):
                    started = entry["case"]
                    continue
                results[entry["case"]] = nc.Outcome(entry["ok"], entry["reason"])
                via_ir[entry["case"]] = nc.Outcome(entry["ir_ok"], entry["ir_reason"])
                done.add(entry["case"])
                started = None
            if proc.returncode == 0 or started is None:
                if proc.returncode != 0:
                    print(f"openvino worker failed: {proc.stderr[-2000:]}", file=sys.stderr)
                return results, via_ir
            results[started] = via_ir[started] = nc.Outcome(False, f"crashed the OpenVINO process (exit {proc.returncode})")
            done.add(started)


def report(cases: list, graphir: dict[str, nc.Outcome], openvino: dict[str, nc.Outcome] | None,
           via_ir: dict[str, nc.Outcome] | None = None) -> str:
    ops = nc.op_types(cases)
    per_op: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    missing = nc.Outcome(False)
    for case in cases:
        row = per_op[ops[case.name]]
        row[0] += 1
        row[1] += graphir[case.name].ok
        if openvino is not None and via_ir is not None:
            row[2] += openvino.get(case.name, missing).ok
            row[3] += via_ir.get(case.name, missing).ok
    width = max(len(op) for op in per_op) + 2
    shown = openvino is not None
    lines = [f"{'op type'.ljust(width)}{'cases':>6}{'graphir':>9}{'openvino':>10}{'via IR':>8}"]
    for op in sorted(per_op):
        n, g, o, r = per_op[op]
        lines.append(f"{op.ljust(width)}{n:>6}{g:>9}{(o if shown else '-'):>10}{(r if shown else '-'):>8}")
    total_g = sum(o.ok for o in graphir.values())
    total_o = sum(o.ok for o in openvino.values()) if openvino is not None else "-"
    total_r = sum(o.ok for o in via_ir.values()) if via_ir is not None else "-"
    lines.append(f"{'TOTAL'.ljust(width)}{len(cases):>6}{total_g:>9}{total_o:>10}{total_r:>8}")
    if openvino is not None:
        behind = [c.name for c in cases if openvino.get(c.name, nc.Outcome(False)).ok and not graphir[c.name].ok]
        lines.append("")
        lines.append(f"{len(behind)} case(s) OpenVINO passes and graphir does not:")
        lines += [f"  {name}: {graphir[name].reason}" for name in behind]
    if openvino is not None and via_ir is not None:
        lost = [c.name for c in cases if graphir[c.name].ok and openvino.get(c.name, nc.Outcome(False)).ok
                and not via_ir.get(c.name, nc.Outcome(False)).ok]
        lines.append("")
        lines.append(f"{len(lost)} case(s) graphir and OpenVINO pass whose graphir-written IR OpenVINO does not:")
        lines += [f"  {name}: {via_ir[name].reason}" for name in lost]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", dest="pattern", help="only cases whose name contains this")
    parser.add_argument("--engine", choices=["both", "graphir", "openvino"], default="both")
    parser.add_argument("--json", type=Path, help="also write every case's outcome here")
    parser.add_argument("--write-known-failures", action="store_true",
                        help=f"write graphir's failures with reasons to {nc.KNOWN_FAILURES.name}")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--skip", default="[]", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.pattern, set(json.loads(args.skip)), args.out)
        return 0
    cases = _select(nc.load_cases(), args.pattern)
    started = time.perf_counter()
    graphir = run_graphir(cases) if args.engine != "openvino" else {c.name: nc.Outcome(False, "not run") for c in cases}
    graphir_time = time.perf_counter() - started
    openvino, via_ir = run_openvino(args.pattern) if args.engine != "graphir" else (None, None)
    print(report(cases, graphir, openvino, via_ir))
    print(f"\ngraphir side: {graphir_time:.0f} s for {len(cases)} cases")
    if args.json:
        payload = {name: {"graphir": [o.ok, o.reason],
                          "openvino": None if openvino is None else [openvino[name].ok, openvino[name].reason],
                          "via_ir": None if via_ir is None else [via_ir[name].ok, via_ir[name].reason]}
                   for name, o in graphir.items()}
        args.json.write_text(json.dumps(payload, indent=1, sort_keys=True))
    if args.write_known_failures:
        failures = {name: o.reason for name, o in sorted(graphir.items()) if not o.ok}
        nc.KNOWN_FAILURES.write_text(json.dumps(failures, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(failures)} known failures to {nc.KNOWN_FAILURES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
