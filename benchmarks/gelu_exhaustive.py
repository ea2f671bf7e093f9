"""Compare graphir's table Gelu (graphir.kernels.gelu) with its former f64 formulation on every f32
number in the table's range [V_LOW, V_HIGH] (about 2.2e9 values, a few minutes on one core).

    python benchmarks/gelu_exhaustive.py            # the whole range
    python benchmarks/gelu_exhaustive.py --stride 97  # every 97th chunk (a quick look)

Prints the number of values compared, how many the table decided (the rest take the f64 formula
itself), and every value whose bits differ (there must be none); exits 1 on a difference.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from graphir.kernels import gelu
from graphir.ops.openvino.activations import _gelu_erf_reference

CHUNK = 1 << 20


def _ranges() -> list[tuple[int, int]]:
    """uint32 bit patterns [start, stop) of the f32 numbers in [V_LOW, V_HIGH] (both signs' zero)."""
    high = int(np.float32(gelu.V_HIGH).view(np.uint32))
    low = int(np.float32(gelu.V_LOW).view(np.uint32))
    return [(0, high + 1), (0x80000000, low + 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stride", type=int, default=1, help="compare every n-th chunk of 2^20 values")
    args = parser.parse_args(argv)
    compared = fallback = differing = 0
    start_time = time.perf_counter()
    for start, stop in _ranges():
        for chunk_start in range(start, stop, CHUNK * args.stride):
            bits = np.arange(chunk_start, min(chunk_start + CHUNK, stop), dtype=np.uint32)
            v = bits.view(np.float32)
            fast = np.empty_like(v)
            fallback += gelu.gelu_erf_f32_fallbacks(v, fast, _gelu_erf_reference)
            reference = _gelu_erf_reference(v)
            diff = fast.view(np.uint32) != reference.view(np.uint32)
            compared += v.size
            if diff.any():
                for value in v[diff][:20]:
                    print(f"DIFFERS at {value!r} (bits {value.view(np.uint32):#010x}): "
                          f"table {fast[v == value][0]!r}, formula {reference[v == value][0]!r}")
                differing += int(np.count_nonzero(diff))
    seconds = time.perf_counter() - start_time
    print(f"compared {compared} f32 values in [{gelu.V_LOW}, {gelu.V_HIGH}] in {seconds:.0f} s: "
          f"{differing} differ; {fallback} ({fallback / max(compared, 1):.3%}) took the f64 formula")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
