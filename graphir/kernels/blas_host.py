"""Which BLAS numpy runs on, for the convolution layouts (and MatMul's flattened stacks) whose bits
depend on it.

The phased and banded depthwise layouts and the chunked product that leaves out padding taps give
the plain columns layout's bits only where numpy's BLAS sums a product's inner dimension in the order
they assume: OpenBLAS's SkylakeX kernels (0.3.31, the ones numpy 2 wheels pick on AVX-512 hosts;
there the layouts were verified and, with OpenVINO's avx512 kernels, give OpenVINO CPU's bits:
tests/test_conv_*.py). On OpenBLAS's Haswell kernels (an AVX2 host, or ``OPENBLAS_CORETYPE=Haswell``)
the banded layout matched on 0 of the corpus shapes and the phased one differed from the plain
layout in the last bits of random layers (and a stack of matrices flattened into one product
differed from numpy's stacked product: graphir.ops.openvino.matmul), so elsewhere the plain layout is computed (the same
arithmetic, the BLAS's own order). The kernel's name comes from threadpoolctl (what
``numpy.show_runtime`` reports); without it the BLAS counts as unknown."""
from __future__ import annotations

import functools
from importlib.util import find_spec

#: numpy's BLAS (threadpoolctl's internal_api, architecture) the layouts were verified on
VERIFIED_KERNELS = frozenset({("openblas", "SkylakeX")})


@functools.lru_cache(maxsize=1)
def numpy_blas() -> tuple[str, str] | None:
    """numpy's BLAS as (library, kernel), e.g. ("openblas", "SkylakeX"); None when it cannot be told."""
    if find_spec("threadpoolctl") is None:
        return None
    import numpy  # noqa: F401  (its BLAS is loaded, so threadpoolctl finds it)
    from threadpoolctl import threadpool_info

    try:
        found = [info for info in threadpool_info() if info.get("user_api") == "blas"]
    except Exception:  # noqa: BLE001 (a library it cannot inspect: the BLAS is unknown)
        return None
    for info in found:
        if "numpy" in str(info.get("filepath", "")) or len(found) == 1:
            return str(info.get("internal_api")), str(info.get("architecture"))
    return None


def layouts_verified() -> bool:
    """Whether the BLAS-order-dependent convolution layouts give the plain layout's bits here."""
    return numpy_blas() in VERIFIED_KERNELS


def describe() -> str:
    """numpy's BLAS in words, and whether the layouts that depend on its order are used."""
    blas = numpy_blas()
    name = "an unknown BLAS" if blas is None else f"numpy on {blas[0]} {blas[1]}"
    return f"{name}: {'banded/phased/skipping layouts used' if layouts_verified() else 'the plain layouts'}"
