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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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


def temp_copy(path: Path, data: Payload, *, sync: bool = True) -> str:
    """``data`` in a temporary file beside ``path`` (fsynced unless ``sync`` is False: the caller
    then syncs it, see :class:`_Flush`); its name. On failure nothing is left."""
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
            if sync:
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


def refuse_overwriting(targets: Sequence[tuple[str, "str | Path"]], sources: Sequence[tuple[str, "str | Path"]]) -> None:
    """A SerializationError naming both before anything is written, when an output path
    (``targets``: (what, path)) is a file the call reads (``sources``: (what, path))."""
    for what, target in targets:
        for role, source in sources:
            if same_file(Path(target), Path(source)):
                raise SerializationError(f"{target}: the {what} would overwrite {role} {source}, which this reads; "
                                         f"give another path")


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


#: from this many bytes of weights a pair save flushes the .bin to disk on a second thread while
#: it makes the XML (below it, the thread's start and hand-over, ~0.1-0.4 ms, cost more than the
#: overlap gains)
BIN_THREAD_FROM = 1 << 20


class _Flush:
    """``os.fsync`` of one file, on a second thread or on the caller's.

    The thread does nothing but the one call, which releases the GIL for its whole wait: it needs
    the GIL only to start and to finish. (A thread that runs Python between its I/O calls, as
    comparing or writing the .bin did, waits for a slice of the GIL after each call while the caller
    makes the XML, up to the 5 ms switch interval every time: the overlap was lost, and ResNet-18's
    save over its own files took 32 ms instead of 15.) The file is opened and closed on the caller's
    thread; an error is raised by :meth:`wait`, naming ``shown``."""

    def __init__(self, path: "str | Path", shown: Path, threaded: bool) -> None:
        self.shown = shown
        self.error: "OSError | None" = None
        try:
            self.fd = os.open(path, os.O_RDONLY)
        except OSError as exc:
            raise SerializationError(f"{shown}: cannot write: {exc.strerror or exc}") from None
        self.worker: threading.Thread | None = None
        if threaded:
            self.worker = threading.Thread(target=self._sync, name="graphir-save-fsync", daemon=True)
            try:
                self.worker.start()
            except BaseException:
                os.close(self.fd)
                raise
        else:
            self._sync()

    def _sync(self) -> None:
        try:
            os.fsync(self.fd)
        except OSError as exc:
            self.error = exc

    def wait(self) -> None:
        """Wait for the flush (also through an interrupt, re-raised after it), close the file and
        raise a SerializationError if the flush failed."""
        try:
            _finish(self.worker)
        finally:
            os.close(self.fd)
        if self.error is not None:
            raise SerializationError(f"{self.shown}: cannot write: {self.error.strerror or self.error}") from None


@contextmanager
def pair_lock(xml_path: Path, *, exclusive: bool) -> Iterator[None]:
    """Hold the advisory lock of the directory an IR pair lies in: a save holds it exclusively from
    its first comparison to its last rename, a read shared while it opens the .xml and the .bin.
    So a read sees one save's pair, and of concurrent saves one whole pair is left.

    ``flock(2)`` on the directory itself (no lock file is left beside the model), blocking (the
    kernel queues the waiters, so a reader is not starved by a loop of saves, as it was by a
    polling lock): held per open file, so threads of one process exclude each other as processes
    do; released by the kernel when a holder dies, so a wait lasts at most as long as the save
    holding the lock. Saves of different models in one directory take turns. Where the directory
    cannot be locked (Windows; NFS, whose client emulates flock with byte-range locks that need a
    file open for writing; a file system without locks) saves and reads go on unlocked, as before."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no advisory locks
        yield
        return
    try:
        fd = os.open(_directory(xml_path), os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:  # no such directory (the save or read reports it) or no access: unlocked
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        except OSError:  # EBADF (NFS), ENOLCK and the like: unlocked, as before
            pass
        yield
    finally:
        os.close(fd)  # releases the lock


def atomic_write_pair(xml_path: Path, xml: "Payload | Callable[[], Payload]", bin_path: Path, blob: Payload) -> None:
    """:func:`write_pair_unlocked` under :func:`pair_lock` (concurrent saves leave one save's pair)."""
    with pair_lock(xml_path, exclusive=True):
        write_pair_unlocked(xml_path, xml, bin_path, blob)


def write_pair_unlocked(xml_path: Path, xml: "Payload | Callable[[], Payload]", bin_path: Path, blob: Payload) -> None:
    """Replace both files by renames (.bin first, then .xml). If the second rename fails, the old
    .bin is put back, so a failed save leaves the previous model (both files) in place and no
    temporary files behind. A kill between the two renames leaves the old .xml with the new .bin,
    and the old .bin (hard-linked to ``.NAME.bin.*.tmp.old``) and new .xml (``.NAME.xml.*.tmp``)
    on disk (see the README). A file that already holds its new bytes is not replaced (it is
    fsynced): when one of the two is unchanged the save is one rename, atomic as a whole, and when
    both are, nothing is written.

    The .bin is compared with the existing file, else written to its temporary copy, first; its
    fsync (the wait for the disk) then runs on a second thread from :data:`BIN_THREAD_FROM` bytes
    (see :class:`_Flush`) while this one makes the XML (``xml`` may be a function giving its bytes)
    and compares or writes it. An error on either side removes both temporary files; the first is
    raised."""
    if same_file(xml_path, bin_path):
        raise SerializationError(f"{xml_path}: the weights file is the .xml itself; give another path for the .bin")
    bin_same = holds(bin_path, blob)  # the weights did not change: the .bin is kept (and made durable)
    tmp_bin = None if bin_same else temp_copy(bin_path, blob, sync=False)
    try:
        flush = _Flush(bin_path if tmp_bin is None else tmp_bin, bin_path,  # a kept .bin flushes at once
                       threaded=not bin_same and sum(memoryview(b).nbytes for b in _buffers(blob)) >= BIN_THREAD_FROM)
    except BaseException:
        unlink_quietly(tmp_bin)
        raise
    tmp_xml = None
    try:
        data = xml() if callable(xml) else xml
        if holds(xml_path, data):
            _sync_file(xml_path)
        else:
            tmp_xml = temp_copy(xml_path, data)
    except BaseException:
        try:
            flush.wait()
        except SerializationError:
            pass  # the XML side's error is the one raised
        finally:
            unlink_quietly(tmp_bin)
        raise
    try:
        flush.wait()
    except BaseException:
        unlink_quietly(tmp_bin)
        unlink_quietly(tmp_xml)
        raise
    if tmp_bin is None or tmp_xml is None:  # one file changed (one rename) or none
        for tmp, path in ((tmp_xml, xml_path), (tmp_bin, bin_path)):
            if tmp is not None:
                _rename(tmp, path)
        _sync_directory(xml_path)  # also when nothing was renamed: the files' names are made durable
        if _directory(bin_path) != _directory(xml_path):
            _sync_directory(bin_path)
        return
    _replace_pair(tmp_bin, bin_path, tmp_xml, xml_path)


def _sync_file(path: Path) -> None:
    """fsync a file kept as it is (cheap when nothing of it is waiting to be written)."""
    _Flush(path, path, threaded=False).wait()


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
