"""Constants beside a oneDNN Graph JSON file. The JSON holds no tensor data, so ``write_json``
writes each Constant as a graph input of ``property_type: "constant"`` (as oneDNN Graph takes
weights) and keeps its data in ``<stem>.constants.npz`` beside the file, one member per logical
tensor id (its raw bytes: bf16, f8 and int4 included). ``read_json`` turns those inputs back into
Constants when the file is there, so weights survive the round trip; without it they are inputs."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

from graphir.errors import SerializationError
from graphir.types import ElementType


def sidecar(path: Path) -> Path:
    """``graph.json`` -> ``graph.constants.npz``."""
    return path.with_name(path.stem + ".constants.npz")


def constants_bytes(values: dict[int, np.ndarray]) -> bytes:
    """An .npz of each value's raw bytes (uint8), keyed by logical tensor id."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for lt, value in values.items():
            raw = np.frombuffer(np.ascontiguousarray(value).tobytes(), np.uint8)
            with archive.open(f"{lt}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, raw, allow_pickle=False)
    return buffer.getvalue()


def read_constants(path: Path) -> dict[int, bytes] | None:
    """Logical tensor id -> raw bytes from the sidecar of ``path``; None when there is none."""
    side = sidecar(path)
    if not side.is_file():
        return None
    try:
        with np.load(side, allow_pickle=False) as archive:
            return {int(key): archive[key].tobytes() for key in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise SerializationError(f"{side}: not a readable constants file ({exc})") from None


def constant_value(raw: bytes, element_type: ElementType, shape: list[int], where: str) -> np.ndarray:
    """The array a Constant of ``element_type`` and ``shape`` holds, from its raw bytes."""
    dtype = np.dtype(element_type.numpy_dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if len(raw) != count * dtype.itemsize:
        raise SerializationError(f"{where}: {len(raw)} bytes for a {element_type}{shape} constant "
                                 f"({count * dtype.itemsize} expected)")
    return np.frombuffer(raw, dtype).reshape(shape).copy()
