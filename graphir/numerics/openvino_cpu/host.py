"""The host facts the ISA-dependent replays depend on, read once per process (``/proc/cpuinfo``).

Only the ``openvino-cpu`` profile reads them, and only when a replay that depends on the ISA runs
(the reference profile never does: tests/test_numerics_profiles.py)."""
from __future__ import annotations

import functools
import os
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


#: oneDNN's ISA caps (``ONEDNN_MAX_CPU_ISA``, which OpenVINO's CPU plugin honours) below avx512_core
_BELOW_AVX512_CORE = frozenset({"sse41", "avx", "avx2", "avx2_vnni", "avx2_vnni_2"})


def onednn_isa_cap() -> str | None:
    """The ISA oneDNN (in OpenVINO's CPU plugin) is capped at by the environment, lower case, or None."""
    for name in ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"):
        value = os.environ.get(name)
        if value:
            return value.strip().lower()
    return None


def has_avx512_core() -> bool:
    """Whether OpenVINO's CPU plugin runs its AVX-512 kernels here (the hosts the ISA-dependent
    replays were measured on): the CPU has them and ``ONEDNN_MAX_CPU_ISA`` does not cap them off."""
    return AVX512_CORE <= cpu_flags() and onednn_isa_cap() not in _BELOW_AVX512_CORE


def convolution_bits_match() -> bool:
    """Whether graphir's f32 convolutions give OpenVINO CPU's bits here (the host they were measured
    on): OpenVINO runs its avx512 kernels and numpy's BLAS is the one whose summation order graphir's
    layouts keep (graphir.kernels.blas_host). Elsewhere they agree within rounding only."""
    from graphir.kernels import blas_host

    return has_avx512_core() and blas_host.layouts_verified()
