"""Import torchvision 0.28.0 (a CUDA build on PyPI) on the CPU-only torch 2.13.0.

Its compiled ops (``_C.so``: nms, roi_align) link against ``libc10_cuda.so`` and
``libtorch_cuda.so``, which the CPU torch lacks. ``import_torchvision()`` compiles one small stub
library defining the ``c10::cuda``/``at::cuda`` symbols ``_C.so`` needs and the CPU libraries do not
export (found with ``nm``; each stub returns 0 and is never called on CPU), loads it under both
names with RTLD_GLOBAL, and then imports torchvision. The stub is built once per machine in the
temp directory. Needs ``gcc`` and ``nm``.
"""
from __future__ import annotations

import ctypes
import importlib.util
import os
import subprocess
import tempfile
from pathlib import Path
from types import ModuleType

STUB_DIR = Path(tempfile.gettempdir()) / "graphir-torchvision-cuda-stubs"


def _missing_symbols(extension: Path, torch_lib: Path) -> list[str]:
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(extension)], capture_output=True,
                               text=True, check=True).stdout.split()
    libs = [ctypes.CDLL(str(torch_lib / n), mode=ctypes.RTLD_GLOBAL)
            for n in ("libc10.so", "libtorch_cpu.so", "libtorch.so")]
    wanted = [s for s in undefined if ("cuda" in s or s.startswith("_ZTH")) and "@" not in s]
    missing = []
    for symbol in wanted:
        if not any(hasattr(lib, symbol) for lib in libs):
            missing.append(symbol)
    return missing


def _build_stub(symbols: list[str]) -> Path:
    STUB_DIR.mkdir(exist_ok=True)
    lib = STUB_DIR / "libcuda_stub.so"
    source = STUB_DIR / "stub.c"
    lines = []
    for s in symbols:
        if s.endswith("allocatorE"):  # a data symbol (the caching allocator pointer)
            lines.append(f"void *{s} = 0;")
        else:
            lines.append(f"long {s}(void) {{ return 0; }}")
    text = "\n".join(lines) + "\n"
    if not lib.exists() or not source.exists() or source.read_text() != text:
        source.write_text(text)
        for name in ("libc10_cuda.so", "libtorch_cuda.so"):
            subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(STUB_DIR / name), f"-Wl,-soname,{name}", str(source)],
                           check=True)
        lib.write_text("built")
    return STUB_DIR


def import_torchvision() -> ModuleType:
    import torch

    spec = importlib.util.find_spec("torchvision")
    assert spec is not None and spec.submodule_search_locations, "torchvision is not installed"
    extension = Path(spec.submodule_search_locations[0]) / "_C.so"
    torch_lib = Path(torch.__file__).parent / "lib"
    stub_dir = _build_stub(_missing_symbols(extension, torch_lib))
    for name in ("libc10_cuda.so", "libtorch_cuda.so"):
        ctypes.CDLL(os.fspath(stub_dir / name), mode=ctypes.RTLD_GLOBAL)
    import torchvision

    return torchvision
