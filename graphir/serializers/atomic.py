"""Atomic file replacement for every save (IR .xml/.bin, oneDNN JSON, ``graphir run --output``).

A save writes a temporary file in the target's directory, flushes and fsyncs it, renames it over
the target and fsyncs the directory. Until the rename the target is untouched, so a save that
fails (disk full, a file-size limit, a read-only directory, an exception while writing) or a
process killed at any moment leaves the previous file byte for byte; after the rename the new file
is complete. A failed save removes its temporary file (a killed one may leave a ``.NAME.*.tmp``
beside the target, never a damaged target).
"""
from __future__ import annotations

import mmap
import os
import secrets
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Union

from graphir.errors import SerializationError

#: what a save writes: one buffer, or buffers written one after the other (no join)
Payload = Union[bytes, bytearray, memoryview, Sequence[Any]]


def _directory(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _refuse_directory(path: Path) -> None:
    if path.is_dir():
        raise SerializationError(f"{path}: cannot write: it is a directory")


def _buffers(data: Payload) -> Sequence[Any]:
    return [data] if isinstance(data, (bytes, bytearray, memoryview)) else data


def _create_temp(path: Path) -> tuple[int, str]:
    """A new file ``.NAME.XXXXXXXX.tmp`` beside ``path``, opened for writing: with the old file's
    mode when there is one, else 0o666 less the umask (applied by the system: the process's umask
    is never read or set here, as reading it means setting it)."""
    mode = 0o666
    try:
        mode = path.stat().st_mode & 0o7777
        keep_mode = True
    except OSError:
        keep_mode = False
    for _ in range(tempfile.TMP_MAX):
        name = os.path.join(_directory(path), f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600 if keep_mode else 0o666)
        except FileExistsError:
            continue
        if keep_mode:
            try:
                os.fchmod(fd, mode)
            except BaseException:
                os.close(fd)
                unlink_quietly(name)
                raise
        return fd, name
    raise FileExistsError(f"no free temporary name beside {path}")


def temp_copy(path: Path, data: Payload) -> str:
    """``data`` in a synced temporary file beside ``path``; its name. On failure nothing is left."""
    _refuse_directory(path)
    try:
        fd, tmp = _create_temp(path)
    except OSError as exc:
        raise SerializationError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as fh:
            for chunk in _buffers(data):
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        unlink_quietly(tmp)
        raise SerializationError(f"{path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:  # an interrupt or a bug while writing: no temp file left behind
        unlink_quietly(tmp)
        raise
    return tmp


def unlink_quietly(path: "str | None") -> None:
    if path is None:
        return
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_directory(path: Path) -> None:
    """Make a rename in ``path``'s directory durable (best effort: not every system allows it)."""
    try:
        fd = os.open(_directory(path), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: "str | Path", data: Payload) -> None:
    """Replace ``path`` by ``data`` atomically (see the module docstring)."""
    path = Path(path)
    _rename(temp_copy(path, data), path)
    _sync_directory(path)


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (also when it does not exist yet)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.abspath(a) == os.path.abspath(b)


def holds(path: Path, data: Payload) -> bool:
    """Whether the file at ``path`` holds exactly ``data`` (compared without copies, stopping at the
    first difference; False when unreadable)."""
    from graphir.serializers.ir_bin_writer import same_bytes

    buffers = [memoryview(b).cast("B") for b in _buffers(data)]
    total = sum(len(b) for b in buffers)
    try:
        if not path.is_file() or path.stat().st_size != total:
            return False
        if total == 0:
            return True
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            old = memoryview(mapped)
            try:
                start = 0
                for b in buffers:
                    if not same_bytes(old[start:start + len(b)], b):
                        return False
                    start += len(b)
            finally:
                old.release()
    except (OSError, ValueError):
        return False
    return True


#: from this many bytes of weights a pair save handles the .bin on a second thread (below it, the
#: thread's start and hand-over, ~0.1-0.4 ms, cost more than the overlap gains)
BIN_THREAD_FROM = 1 << 20


def atomic_write_pair(xml_path: Path, xml: "Payload | Callable[[], Payload]", bin_path: Path, blob: Payload) -> None:
    """Replace both files by renames (.bin first, then .xml). If the second rename fails, the old
    .bin is put back, so a failed save leaves the previous model (both files) in place and no
    temporary files behind. A kill between the two renames leaves the old .xml with the new .bin,
    and the old .bin (hard-linked to ``.NAME.bin.*.tmp.old``) and new .xml (``.NAME.xml.*.tmp``)
    on disk (see the README). A file that already holds its new bytes is not replaced (it is
    fsynced): when one of the two is unchanged the save is one rename, atomic as a whole, and when
    both are, nothing is written.

    The .bin side (comparing with the existing file, else writing and fsyncing its temporary
    copy) runs first when it is smaller than :data:`BIN_THREAD_FROM` bytes, else on a second
    thread while this one makes the XML (``xml`` may be a function giving
    its bytes) and compares or writes it: file I/O and fsync release the GIL. An error on either
    side removes both temporary files; the first is raised."""
    if same_file(xml_path, bin_path):
        raise SerializationError(f"{xml_path}: the weights file is the .xml itself; give another path for the .bin")
    done: dict[str, Any] = {}

    def bin_side() -> None:
        try:
            if holds(bin_path, blob):  # the weights did not change: the .bin is kept
                _sync_file(bin_path)  # made durable, as a written file would be
                done["same"] = True
            else:
                done["tmp"] = temp_copy(bin_path, blob)
        except BaseException as exc:  # re-raised on the caller's thread
            done["error"] = exc

    worker: threading.Thread | None = None
    if sum(memoryview(b).nbytes for b in _buffers(blob)) >= BIN_THREAD_FROM:
        worker = threading.Thread(target=bin_side, name="graphir-save-bin", daemon=True)
        worker.start()
    else:  # a small .bin: a thread's start and hand-over cost more than the overlap saves
        bin_side()
        if "error" in done:
            raise done["error"]
    tmp_xml = None
    try:
        data = xml() if callable(xml) else xml
        if holds(xml_path, data):
            _sync_file(xml_path)
        else:
            tmp_xml = temp_copy(xml_path, data)
    except BaseException:
        _finish(worker)
        unlink_quietly(done.get("tmp"))
        raise
    try:
        _finish(worker)
    except BaseException:
        unlink_quietly(done.get("tmp"))
        unlink_quietly(tmp_xml)
        raise
    if "error" in done:
        unlink_quietly(tmp_xml)
        raise done["error"]
    if done.get("same") or tmp_xml is None:  # one file changed (one rename) or none
        for tmp, path in ((tmp_xml, xml_path), (done.get("tmp"), bin_path)):
            if tmp is not None:
                _rename(tmp, path)
        _sync_directory(xml_path)  # also when nothing was renamed: the files' names are made durable
        if _directory(bin_path) != _directory(xml_path):
            _sync_directory(bin_path)
        return
    _replace_pair(done["tmp"], bin_path, tmp_xml, xml_path)


def _sync_file(path: Path) -> None:
    """fsync a file kept as it is (cheap when nothing of it is waiting to be written)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise SerializationError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        os.fsync(fd)
    except OSError as exc:
        raise SerializationError(f"{path}: cannot write: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _finish(worker: "threading.Thread | None") -> None:
    """Wait for ``worker``, also when an interrupt arrives meanwhile (then re-raised after it)."""
    if worker is None:
        return
    try:
        worker.join()
    except BaseException:
        worker.join()
        raise


def _rename(tmp: str, path: Path) -> None:
    """Rename ``tmp`` over ``path``; on failure ``tmp`` is removed (a SerializationError)."""
    try:
        os.replace(tmp, path)
    except OSError as exc:
        unlink_quietly(tmp)
        raise SerializationError(f"{path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        unlink_quietly(tmp)
        raise


def _replace_pair(tmp_bin: str, bin_path: Path, tmp_xml: str, xml_path: Path) -> None:
    """The renames of a pair save (see atomic_write_pair)."""
    backup = None
    try:
        if bin_path.exists():
            backup = tmp_bin + ".old"
            os.link(bin_path, backup)
    except OSError:
        backup = None  # no hard links here: the old .bin cannot be restored, still try
    try:
        os.replace(tmp_bin, bin_path)
    except OSError as exc:
        for leftover in (tmp_bin, tmp_xml, backup):
            unlink_quietly(leftover)
        raise SerializationError(f"{bin_path}: cannot write: {exc.strerror or exc}") from None
    try:
        os.replace(tmp_xml, xml_path)
    except OSError as exc:
        if backup is not None:
            try:
                os.replace(backup, bin_path)
                backup = None
            except OSError:
                pass
        unlink_quietly(tmp_xml)
        unlink_quietly(backup)
        raise SerializationError(f"{xml_path}: cannot write: {exc.strerror or exc}") from None
    unlink_quietly(backup)
    _sync_directory(xml_path)
    if _directory(bin_path) != _directory(xml_path):
        _sync_directory(bin_path)
