"""graphir's f32 convolutions against OpenVINO CPU on any x86-64 host (issue 33).

graphir computes a convolution with numpy's BLAS; its layouts keep the summation order of OpenBLAS's
SkylakeX kernels, which is oneDNN's with OpenVINO's avx512 kernels: there graphir gives OpenVINO's
bits (``graphir.numerics.openvino_cpu.host.convolution_bits_match``, in ``graphir.numerics.host_report``).
Elsewhere the order differs and the bits are compared within :data:`ROUNDING` units of
``eps * sum |x| |w|`` per output (``magnitude``: the same convolution of ``|x|`` and ``|w|``).

Measured 2026-11-29 (tests/test_conv_kernel.py, test_conv_banded.py and test_conv_columns.py's OpenVINO
cases: 17 layers, 1.7 M outputs): 0 with numpy on OpenBLAS SkylakeX whether OpenVINO runs its avx512_core
or (ONEDNN_MAX_CPU_ISA=AVX2) avx2 kernels; with OPENBLAS_CORETYPE=Haswell (numpy's kernels of an AVX2
host) up to 2.70 (a 256-channel transposed convolution), 0.9-1.7 on depthwise layers, 6-67% of
outputs differing in the last bits. ROUNDING is that worst case with a margin of 2.
"""
from __future__ import annotations

import numpy as np
import pytest

from graphir.kernels import blas_host
from graphir.kernels.conv import ConvKernel
from graphir.numerics.openvino_cpu import host

#: whether graphir's BLAS-order layouts (banded, phased, chunked skipping) are used on this host
LAYOUTS = blas_host.layouts_verified()
#: whether graphir's convolutions give OpenVINO CPU's bits on this host
BITS_MATCH = host.convolution_bits_match()
#: allowed difference per output, in units of ``eps(f32) * sum |x| |w|`` (measured worst: 2.70)
ROUNDING = 6.0


def assert_matches_openvino(got: np.ndarray, want: np.ndarray, magnitude: np.ndarray) -> None:
    """OpenVINO's bits on the host they were measured on; elsewhere within :data:`ROUNDING`."""
    assert got.shape == want.shape and got.dtype == want.dtype == np.float32
    if BITS_MATCH:
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        return
    bound = ROUNDING * np.finfo(np.float32).eps * magnitude.astype(np.float64)
    excess = np.abs(got.astype(np.float64) - want) - bound
    assert (excess <= 0).all(), f"{int((excess > 0).sum())} outputs beyond {ROUNDING} eps * sum|x||w|"


def built_kernels(monkeypatch: pytest.MonkeyPatch) -> list[ConvKernel]:
    """The list every :class:`ConvKernel` built from now on (in this test) is appended to."""
    built: list[ConvKernel] = []
    plain_init = ConvKernel.__init__

    def counting(self: ConvKernel, *args: object, **kwargs: object) -> None:
        plain_init(self, *args, **kwargs)  # type: ignore[arg-type]
        built.append(self)

    monkeypatch.setattr(ConvKernel, "__init__", counting)
    return built
