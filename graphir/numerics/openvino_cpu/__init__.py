"""The ``openvino-cpu`` numerics profile: OpenVINO CPU plugin's arithmetic and orders, one module
per concern. ``overrides`` registers its per-op overrides (graphir.numerics.register), imported on first use:

* ``sigmoid``: Sigmoid f32/f16/bf16 with oneDNN's JIT exp (``exp``: the replayed algorithm);
* ``softmax``: Softmax f16 computed in f32, rounded once;
* ``topk``: TopK's heap, bitonic, bubble and horizontal orders among equal values and NaN
  (``topk_order``: the sorts);
* ``dft``: DFT/IDFT with the plugin's twiddle tables, lanes and FMAs (``dft_kernels``);
* ``depthwise``: GroupConvolution's depthwise layers of every size as BLAS products (the reference
  sums small ones tap by tap without FMAs: graphir.kernels.taps);

and holds the plan-level fusions a run plan applies under this profile:

* ``decompression``: weight decompression subgraphs computed in f32 (the plugin's fusion);
* ``linear_chains``: chains of constant Adds/Multiplies folded (LinOpSequenceFusion).

``host`` reads the CPU's flags for the replays that depend on the ISA; each says which host it
matches (:func:`host_report`) and computes the reference elsewhere. Convolutions are computed alike
under both profiles (graphir.kernels.conv) but for small depthwise layers; their bits equal OpenVINO
CPU's only where numpy's BLAS sums as oneDNN's kernels do (OpenBLAS SkylakeX with OpenVINO's avx512 kernels:
graphir.kernels.blas_host, :func:`host.convolution_bits_match`), which the report says too.
"""
from __future__ import annotations

__all__ = ["host_report", "CONVOLUTION_HOST"]

#: the host where graphir's convolutions give OpenVINO CPU's bits (measured; tests/test_conv_*.py)
CONVOLUTION_HOST = ("x86-64 with AVX-512 (F, BW, VL, DQ) and numpy on OpenBLAS's SkylakeX kernels: Convolution/"
                    "GroupConvolution/ConvolutionBackpropData in OpenVINO CPU's summation order")


def host_report() -> list[str]:
    """One line per ISA-dependent replay: the host it matches, and whether this host is one."""
    from graphir.kernels import blas_host
    from graphir.numerics.openvino_cpu import dft, host, topk

    lines = []
    for module, active in ((dft, dft.replayed_here()), (topk, host.has_avx512_core())):
        lines.append(f"{module.HOST}: {'replayed on this host' if active else 'not this host: the reference is computed'}")
    conv = host.convolution_bits_match()
    lines.append(f"{CONVOLUTION_HOST}: {'replayed on this host' if conv else 'not this host: rounding differs'} "
                 f"({blas_host.describe()})")
    return lines
