"""The host facts the ISA-dependent replays depend on, read once per process (``/proc/cpuinfo``).

Only the ``openvino-cpu`` profile reads them, and only when a replay that depends on the ISA runs
(the reference profile never does: tests/test_numerics_profiles.py)."""
from __future__ import annotations

import functools
from pathlib import Path

#: oneDNN's ``avx512_core``: what OpenVINO's CPU plugin needs for its AVX-512 JIT kernels
AVX512_CORE = frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq"})


@functools.lru_cache(maxsize=1)
def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags (empty where /proc/cpuinfo cannot be read: not Linux, not x86)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def has_avx512_core() -> bool:
    """Whether OpenVINO's CPU plugin runs its AVX-512 kernels here (the hosts the ISA-dependent
    replays were measured on)."""
    return AVX512_CORE <= cpu_flags()
