"""Reading a 10,000-layer IR: graphir.read_model against openvino.Core().read_model, same file, same run.

    python benchmarks/read_ir.py [--layers 10000] [--elems 8192] [--repeat 5]

The net is a chain x -> Add(const_i) -> ... written by OpenVINO itself; each Const has ``--elems``
f32 values (above graphir's constant-folding size, so reading never touches them). Prints the best
time of each reader, their ratio (goal: graphir within 1.5x), graphir's peak Python allocation during
the read, and the .bin size, so it is plain whether memory grows with the weights before use.

Also printed, for reference: the cyclic GC's passes during the reads (graphir leaves the collector alone: a read
makes ~8 container objects per layer, and the collector's full passes over the grown heap are
part of the read's time), the same chain saved with
``compress_to_fp16`` (f16 Consts and Converts carrying rt_info), and a net closer to a real one, a
chain of MatMul + ReLU whose shapes change from layer to layer (small constants, folded and
shape-inferred as OpenVINO does).
"""
from __future__ import annotations

import argparse
import gc
import tempfile
import time
import tracemalloc
from pathlib import Path

from synthetic_chains import make_add_chain as make_ir
from synthetic_chains import make_varied_chain as make_varied_ir


def gc_during(fn) -> tuple[list[int], float]:
    """The cyclic GC's passes per generation while ``fn()`` runs, and their total seconds."""
    passes, spent, started = [0, 0, 0], [0.0], [0.0]

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            passes[info["generation"]] += 1
            spent[0] += time.perf_counter() - started[0]

    gc.collect()
    gc.callbacks.append(watch)
    try:
        out = fn()
    finally:
        gc.callbacks.remove(watch)
    del out
    return passes, spent[0]


def compare_readers(core, xml: Path, repeat: int, label: str) -> None:
    """One line: OpenVINO and graphir on ``xml`` (``label`` gets the layer count)."""
    import graphir

    t_ov, _ = best_time(lambda: core.read_model(str(xml)), repeat)
    t_gir, model = best_time(lambda: graphir.read_model(xml), repeat)
    print(f"{label.format(len(model))}: openvino {t_ov * 1000:.1f} ms, graphir {t_gir * 1000:.1f} ms "
          f"({t_gir / t_ov:.2f}x)")


def best_time(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        out = None  # free the previous result outside the timed region
        gc.collect()
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=10_000)
    parser.add_argument("--elems", type=int, default=8192)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--varied-pairs", type=int, default=1500, help="MatMul+ReLU pairs of the second net")
    args = parser.parse_args()

    import openvino as ov

    import graphir

    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "chain.xml"
        make_ir(xml, args.layers, args.elems)
        bin_mb = xml.with_suffix(".bin").stat().st_size / 2**20
        core = ov.Core()
        t_ov, ov_model = best_time(lambda: core.read_model(str(xml)), args.repeat)
        t_gir, model = best_time(lambda: graphir.read_model(xml), args.repeat)
        gc_passes, t_gc = gc_during(lambda: graphir.read_model(xml))
        del model
        gc.collect()
        tracemalloc.start()
        model = graphir.read_model(xml)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        loaded = sum(1 for n in model.nodes() if n.type_name == "Constant" and n.op.is_loaded)
        constants = sum(1 for n in model.nodes() if n.type_name == "Constant")
        print(f"layers: {len(model)} (openvino: {len(ov_model.get_ops())}), .bin: {bin_mb:.1f} MiB")
        print(f"openvino Core().read_model: {t_ov * 1000:.1f} ms")
        print(f"graphir.read_model:         {t_gir * 1000:.1f} ms")
        print(f"ratio graphir/openvino:     {t_gir / t_ov:.2f}x (goal <= 1.5x)")
        print(f"graphir peak Python allocation during read: {peak / 2**20:.1f} MiB "
              f"({constants} constants, {loaded} loaded before use)")
        print(f"for reference: GC passes during one read (generations 0/1/2): {'/'.join(map(str, gc_passes))}, "
              f"{t_gc * 1000:.1f} ms")
        del model, ov_model

        compressed = Path(tmp) / "chain_fp16.xml"
        make_ir(compressed, args.layers, args.elems, compress_to_fp16=True)
        compare_readers(core, compressed, args.repeat,
                        "the chain saved with compress_to_fp16 ({} layers, f16 Const + Convert with rt_info)")
        varied = Path(tmp) / "varied.xml"
        make_varied_ir(varied, args.varied_pairs)
        compare_readers(core, varied, args.repeat, "varied shapes ({} layers, MatMul + ReLU)")


if __name__ == "__main__":
    main()
