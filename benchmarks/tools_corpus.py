"""The goals of issue 31 measured on every real export at hand: graphir.tools on the corpus.

    python benchmarks/tools_corpus.py [--bench-dir DIR] [--json OUT] [--only PATTERN]

Files: tests/fixtures/corpus and tests/fixtures/torchvision, and every IR in the benchmark corpus
directory (``benchmarks/make_corpus.py``; ``$GRAPHIR_BENCH_DIR`` or ``~/.cache/graphir-bench``)
when it has been made. Per file:

* compare: one weight changed (tests/tools/planted.py: the weight reaching the middle weighted
  layer) and compared against the unchanged file run by graphir and by OpenVINO CPU: does the
  first layer past tolerance name the changed layer?
* fold: outputs bit-identical to the unfolded model's, OpenVINO reads and compiles the folded IR;
  nodes and constant bytes before and after;
* stats: MACs and parameters.

Then: stats of torchvision's resnet18 at 224x224 (the corpus' copy, else one converted by
tests/tools/gen_models.py), reduce of a planted change in a 1,200-layer model, and the time of each
tool on the largest file (by weight bytes).
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402 - after the BLAS thread count

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import graphir  # noqa: E402
from graphir.tools import compare, diff, extract, fold, reduce, stats  # noqa: E402
from graphir.tools._common import model_inputs  # noqa: E402
from graphir.tools.reduce import layers_of  # noqa: E402
from tests.tools import gen_models  # noqa: E402
from tests.tools.planted import differs_from_clean, plant  # noqa: E402


def files(bench_dir: Path, only: str | None) -> list[Path]:
    found = sorted((ROOT / "tests/fixtures/corpus").glob("*.xml")) + sorted((ROOT / "tests/fixtures/torchvision").glob("*.xml"))
    if bench_dir.is_dir():
        found += sorted(p for p in bench_dir.glob("*.xml") if p.with_suffix(".json").exists())  # complete entries
    return [p for p in found if not only or fnmatch.fnmatch(p.stem, only)]


def stored_inputs(path: Path) -> Path | None:
    npz = path.with_name(path.stem.removesuffix("_fp16") + ".npz")
    return npz if npz.exists() else None


def timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def same_bits(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return list(a) == list(b) and all(
        a[k].dtype == b[k].dtype and np.ascontiguousarray(a[k]).tobytes() == np.ascontiguousarray(b[k]).tobytes()
        for k in a)


def per_file(path: Path) -> dict[str, Any]:
    import openvino

    model = graphir.read_model(path)
    feeds, records = model_inputs(model, stored_inputs(path))
    row: dict[str, Any] = {"file": path.name, "layers": len(layers_of(model)), "inputs": records}
    bad, layer = plant(model)
    row["planted"] = layer
    for engine in ("graphir", "openvino"):
        result, seconds = timed(compare, bad, path, engine=engine, inputs=feeds, progress=False)
        first = result.first_failure
        row[f"compare_{engine}"] = {"located": first is not None and first.name == layer,
                                    "first": None if first is None else first.layer, "seconds": round(seconds, 3)}
    (folded, report), seconds = timed(fold, model, progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        graphir.save_model(folded, Path(tmp) / "folded.xml")
        core = openvino.Core()
        compiled = core.compile_model(core.read_model(Path(tmp) / "folded.xml"), "CPU")
    row["fold"] = {**report.to_dict(), "bit_identical": same_bits(model.run(feeds), folded.run(feeds)),
                   "openvino_compiles": compiled is not None, "seconds": round(seconds, 3)}
    counted = stats(model, {k: v.shape for k, v in feeds.items()})
    row["stats"] = {"macs": counted.macs, "parameters": counted.parameters}
    return row


def resnet18_counts(bench_dir: Path, tmp: Path) -> dict[str, Any]:
    path = bench_dir / "resnet18.xml"
    if not path.with_suffix(".json").exists():
        path = gen_models.resnet18(tmp)
    counted = stats(path, {0: [1, 3, 224, 224]})
    return {"file": str(path), "macs": counted.macs, "parameters": counted.parameters,
            "goal": "1.8 GMACs, 11.7M parameters",
            "met": round(counted.macs / 1e9, 1) == 1.8 and round(counted.parameters / 1e6, 1) == 11.7}


def reduce_goal(tmp: Path) -> dict[str, Any]:
    model = graphir.read_model(gen_models.deep_residual(tmp))
    bad, layer = plant(model, which=0.7)
    result, seconds = timed(reduce, bad, differs_from_clean(model), log=None, progress=False)
    return {"layers_before": result.layers_before, "layers_after": len(result.layers), "left": result.layers,
            "planted": layer, "steps": len(result.steps), "seconds": round(seconds, 2),
            "met": len(result.layers) <= 3 and layer in result.layers}


def largest_file_times(path: Path) -> dict[str, Any]:
    """Each tool on one file, as its command would run it (reading the file included)."""
    model = graphir.read_model(path)
    inputs = stored_inputs(path)
    layers = layers_of(model)
    out: dict[str, Any] = {"file": path.name, "bytes": path.with_suffix(".bin").stat().st_size, "layers": len(layers)}
    _, out["compare_openvino"] = timed(lambda: compare(graphir.read_model(path), openvino_path=path, inputs=inputs,
                                                       progress=False))
    _, out["extract"] = timed(lambda: extract(graphir.read_model(path), [layers[3 * len(layers) // 4].name],
                                              [layers[len(layers) // 4].name]))
    folded, out["fold"] = timed(lambda: fold(graphir.read_model(path), progress=False)[0])
    _, out["stats"] = timed(lambda: stats(graphir.read_model(path)))
    _, out["diff"] = timed(lambda: diff(graphir.read_model(path), folded))
    bad, layer = plant(model)
    reduced, out["reduce"] = timed(reduce, bad, differs_from_clean(model), log=None, progress=False)
    out["reduce_left"] = reduced.layers
    out["reduce_planted"] = layer
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in out.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-dir", type=Path,
                        default=Path(os.environ.get("GRAPHIR_BENCH_DIR") or Path.home() / ".cache" / "graphir-bench"))
    parser.add_argument("--only", help="a glob of file stems")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write everything as JSON")
    args = parser.parse_args()
    report: dict[str, Any] = {"files": []}
    print(f"{'file':<36} {'layers':>6}  {'compare gir':>11} {'compare ov':>10}  {'fold bits':>9} {'ov reads':>8} "
          f"{'nodes':>11} {'const bytes':>21}  {'MACs':>12}")
    for path in files(args.bench_dir, args.only):
        try:
            row = per_file(path)
        except Exception as exc:  # noqa: BLE001 - one file's failure is reported, the sweep goes on
            row = {"file": path.name, "error": f"{type(exc).__name__}: {exc}"}
            print(f"{path.name:<36} ERROR {row['error'][:120]}")
            report["files"].append(row)
            continue
        report["files"].append(row)
        f = row["fold"]
        print(f"{row['file']:<36} {row['layers']:>6}  {str(row['compare_graphir']['located']):>11} "
              f"{str(row['compare_openvino']['located']):>10}  {str(f['bit_identical']):>9} {str(f['openvino_compiles']):>8} "
              f"{f['nodes_before']:>5}->{f['nodes_after']:<5} {f['constant_bytes_before']:>10}->{f['constant_bytes_after']:<10}"
              f"  {row['stats']['macs']:>12}", flush=True)
    good = [r for r in report["files"] if "error" not in r]
    located = sum(r["compare_graphir"]["located"] and r["compare_openvino"]["located"] for r in good)
    identical = sum(r["fold"]["bit_identical"] and r["fold"]["openvino_compiles"] for r in good)
    print(f"\ncompare located the planted layer (graphir and OpenVINO references) in {located}/{len(report['files'])} files")
    print(f"fold bit-identical and read by OpenVINO in {identical}/{len(report['files'])} files")
    with tempfile.TemporaryDirectory() as tmp:
        report["resnet18"] = resnet18_counts(args.bench_dir, Path(tmp))
        print(f"stats resnet18 224x224: {report['resnet18']['macs'] / 1e9:.3f} GMACs, "
              f"{report['resnet18']['parameters'] / 1e6:.3f}M parameters (goal met: {report['resnet18']['met']})")
        report["reduce"] = reduce_goal(Path(tmp))
        r = report["reduce"]
        print(f"reduce: {r['layers_before']} -> {r['layers_after']} layers {r['left']} in {r['steps']} steps, "
              f"{r['seconds']} s (planted at {r['planted']}; goal met: {r['met']})")
    biggest = max((Path(r["file"]) for r in good), key=lambda p: _bin_size(args.bench_dir, p), default=None)
    if biggest is not None:
        path = _locate(args.bench_dir, biggest.name)
        report["largest"] = largest_file_times(path)
        print("largest file:", json.dumps(report["largest"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return 0


def _locate(bench_dir: Path, name: str) -> Path:
    for folder in (ROOT / "tests/fixtures/corpus", ROOT / "tests/fixtures/torchvision", bench_dir):
        if (folder / name).exists():
            return folder / name
    raise FileNotFoundError(name)


def _bin_size(bench_dir: Path, name: Path) -> int:
    return _locate(bench_dir, name.name).with_suffix(".bin").stat().st_size


if __name__ == "__main__":
    sys.exit(main())
