"""How long `graphir draw` takes on large models: a 2,059-layer Swin-like and a 568-layer Llama-like net.

    python benchmarks/draw.py [--models DIR] [--repeat 3]

The models come from tests/gen_draw_models.py (openvino.convert_model of torch modules; needs the
test extra); without --models they are generated into a temporary directory first. Prints, per
model, the best wall time of each step: reading the IR, building the scene, the dot layout
(graphviz-pure), and the whole `graphir draw -o OUT.svg` / `OUT.html` as a user runs it (goal for
the 2,000-layer model: under 10 s).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(path: Path, repeat: int, out: Path) -> None:
    import graphir
    from graphir.drawing import build_scene, to_dot
    from graphir.drawing.layout import render_svg

    model = graphir.read_model(path)
    scene = build_scene(model)
    dot = to_dot(scene)
    layers = len(model.get_ordered_ops())
    read = best(lambda: graphir.read_model(path), repeat)
    build = best(lambda: to_dot(build_scene(model)), repeat)
    layout = best(lambda: render_svg(dot), repeat)
    commands = {}
    for suffix in ("svg", "html"):
        target = out / f"{path.stem}.{suffix}"
        command = [sys.executable, "-m", "graphir.cli", "draw", str(path), "-o", str(target)]
        commands[suffix] = best(lambda: subprocess.run(command, check=True, capture_output=True), repeat)
    size = (out / f"{path.stem}.html").stat().st_size / 1e6
    print(f"{path.stem}: {layers} layers, {len(scene.boxes)} boxes, {len(scene.edges)} edges | read {read:.2f} s, "
          f"scene+dot {build:.2f} s, layout {layout:.2f} s | `graphir draw` .svg {commands['svg']:.2f} s, "
          f".html {commands['html']:.2f} s ({size:.1f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, help="directory with swin.xml and llm.xml (default: generate them)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        models = args.models
        if models is None:
            sys.path.insert(0, str(ROOT / "tests"))
            from gen_draw_models import write

            models = Path(tmp) / "models"
            write(models)
        for name in ("swin", "llm"):
            measure(models / f"{name}.xml", args.repeat, Path(tmp))


if __name__ == "__main__":
    main()
