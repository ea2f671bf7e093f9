"""The ``openvino-cpu`` numerics profile: OpenVINO CPU plugin's arithmetic and orders, one module
per concern. ``overrides`` registers its per-op overrides (graphir.numerics.register), imported on first use:

* ``sigmoid``: Sigmoid f32/f16/bf16 with oneDNN's JIT exp (``exp``: the replayed algorithm);
* ``softmax``: Softmax f16 computed in f32, rounded once;
* ``topk``: TopK's heap, bitonic, bubble and horizontal orders among equal values and NaN
  (``topk_order``: the sorts);
* ``dft``: DFT/IDFT with the plugin's twiddle tables, lanes and FMAs (``dft_kernels``);

and holds the plan-level fusions a run plan applies under this profile:

* ``decompression``: weight decompression subgraphs computed in f32 (the plugin's fusion);
* ``linear_chains``: chains of constant Adds/Multiplies folded (LinOpSequenceFusion).

``host`` reads the CPU's flags for the replays that depend on the ISA; each says which host it
matches (:func:`host_report`) and computes the reference elsewhere.
"""
from __future__ import annotations

__all__ = ["host_report"]


def host_report() -> list[str]:
    """One line per ISA-dependent replay: the host it matches, and whether this host is one."""
    from graphir.numerics.openvino_cpu import dft, host, topk

    lines = []
    for module, active in ((dft, dft.replayed_here()), (topk, host.has_avx512_core())):
        lines.append(f"{module.HOST}: {'replayed on this host' if active else 'not this host: the reference is computed'}")
    return lines
