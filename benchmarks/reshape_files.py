"""graphir ``Model.reshape`` vs openvino ``Model.reshape`` on real IR files, side by side in one process.

Each file is read by both libraries; its inputs get two sets of static shapes (batch 1 and batch 2,
other dynamic dims filled per input name: token ids ``[b,7]``, images ``[b,3,224,224]`` or the
file's own static sizes, the corpus manifest's shapes where there is one) and each library
reshapes alternately to one and the other (so every reshape really re-infers every layer), best of
``--repeat``. Prints one row per file with both times and graphir/OpenVINO, then the worst ratio.

Usage: ``python benchmarks/reshape_files.py [FILE.xml | DIR ...] [--repeat N] [--json]``
(default: the real files under tests/fixtures: LLM exports, torchvision nets, the corpus).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import graphir

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIRS = ("tests/fixtures/llm", "tests/fixtures/torchvision", "tests/fixtures/torchvision_shapes",
                "tests/fixtures/corpus")
#: fills for dynamic dims by input name (the batch dim is set separately)
_TOKENS = {"input_ids", "attention_mask", "position_ids", "token_type_ids", "decoder_input_ids",
           "decoder_attention_mask"}


def _manifest_shapes(path: Path) -> list[list[int]] | None:
    manifest = path.parent / "manifest.json"
    if not manifest.exists():
        return None
    entry = json.loads(manifest.read_text()).get(path.stem.removesuffix("_fp16"))
    return None if entry is None else [list(s) for s in entry["inputs"]]


def input_shapes(path: Path, ov_model: Any, batch: int) -> dict[str, list[int]]:
    """Static shapes for every input of ``ov_model`` with batch ``batch``."""
    listed = _manifest_shapes(path)
    shapes: dict[str, list[int]] = {}
    for i, port in enumerate(ov_model.inputs):
        name = port.get_any_name()
        pshape = port.get_partial_shape()
        if listed is not None:
            dims = list(listed[i])
        else:
            dims = [d.get_length() if d.is_static else -1 for d in pshape]
            if name in _TOKENS:
                dims = [-1, 7]
            elif name == "beam_idx":
                dims = [-1]
            elif name == "encoder_hidden_states":
                dims = [-1, 30, dims[2] if dims[2] > 0 else 64]
            elif len(dims) == 4:
                dims = [-1, 3, dims[2] if dims[2] > 0 else 224, dims[3] if dims[3] > 0 else 224]
            dims = [d if d >= 0 else 5 for d in dims[:1]] + [d if d >= 0 else 5 for d in dims[1:]]
        if dims and not pshape.is_static:
            dims[0] = dims[0] * batch if listed is not None else batch
        elif dims and pshape.is_static and batch == 2:
            dims[0] = dims[0] * 2
        shapes[name] = dims
    return shapes


def best_alternating(fn: Callable[[dict[str, list[int]]], None], a: dict[str, list[int]],
                     b: dict[str, list[int]], repeat: int) -> float:
    fn(a)
    times = []
    for i in range(repeat):
        target = b if i % 2 == 0 else a
        start = time.perf_counter()
        fn(target)
        times.append(time.perf_counter() - start)
    return min(times)


def measure(path: Path, repeat: int) -> dict[str, Any]:
    import openvino as ov

    ov_model = ov.Core().read_model(str(path))
    model = graphir.read_model(path)
    a, b = input_shapes(path, ov_model, 1), input_shapes(path, ov_model, 2)

    def ov_reshape(shapes: dict[str, list[int]]) -> None:
        ov_model.reshape({k: ov.PartialShape(v) for k, v in shapes.items()})

    def gr_reshape(shapes: dict[str, list[int]]) -> None:
        model.reshape(shapes)

    gr = best_alternating(gr_reshape, a, b, repeat)
    ovt = best_alternating(ov_reshape, a, b, repeat)
    return {"file": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path), "layers": len(model),
            "graphir_ms": gr * 1e3, "openvino_ms": ovt * 1e3, "ratio": gr / ovt}


def files(args: list[str]) -> list[Path]:
    found: list[Path] = []
    for arg in args or [str(ROOT / d) for d in DEFAULT_DIRS]:
        p = Path(arg)
        if p.is_dir():
            found += sorted(x for x in p.rglob("*.xml") if x.with_suffix(".bin").exists() or True)
        else:
            found.append(p)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for path in files(args.paths):
        try:
            rows.append(measure(path.resolve(), args.repeat))
        except Exception as exc:  # noqa: BLE001 - a file one library cannot reshape is reported, not fatal
            rows.append({"file": str(path), "error": f"{type(exc).__name__}: {str(exc)[:200]}"})
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"load_average_1min": load, "rows": rows}, indent=1))
        return
    for r in rows:
        if "error" in r:
            print(f"{r['file']:<60} ERROR {r['error']}")
        else:
            print(f"{r['file']:<60} {r['layers']:6d} {r['graphir_ms']:9.2f} ms {r['openvino_ms']:9.2f} ms "
                  f"{r['ratio']:6.2f}x")
    ok = [r for r in rows if "ratio" in r]
    if ok:
        worst = max(ok, key=lambda r: r["ratio"])
        print(f"worst: {worst['file']} {worst['ratio']:.2f}x; load average {load:.2f}")


if __name__ == "__main__":
    main()
