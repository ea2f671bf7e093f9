"""Saving IR: the text writer's output is stable (a re-save is byte-identical), escapes what XML
needs escaped (OpenVINO reads the names back exactly), deduplicates blobs only when they are equal,
and the atomic pair save leaves exactly the documented files when killed at each of its steps."""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

import graphir
from graphir import opset
from graphir.errors import SerializationError
from graphir.serializers import atomic
from graphir.serializers.ir_bin_writer import SMALL_BLOB, BinWriter
from graphir.serializers.openvino_xml import read_ir, read_ir_string, write_ir_string

from tests.ir_helpers import EXAMPLES, model_summary

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAVED = sorted(p for d in ("ir", "llm", "torchvision", "corpus") for p in (FIXTURES / d).rglob("*.xml")) + [
    EXAMPLES / "select.xml"]


@pytest.mark.parametrize("xml", SAVED, ids=[str(p.relative_to(p.parents[1])) for p in SAVED])
def test_a_resave_is_byte_identical(xml: Path, tmp_path: Path) -> None:
    """read -> save -> read -> save gives the same .xml and .bin bytes; saving one model twice too."""
    model = graphir.read_model(xml)
    graphir.save_model(model, tmp_path / "a.xml")
    first = (tmp_path / "a.xml").read_bytes(), (tmp_path / "a.bin").read_bytes()
    assert write_ir_string(model) == first
    graphir.save_model(graphir.read_model(tmp_path / "a.xml"), tmp_path / "b.xml")
    assert ((tmp_path / "b.xml").read_bytes(), (tmp_path / "b.bin").read_bytes()) == first
    assert first[0].startswith(b'<?xml version="1.0"?>\n<net ') and first[0].endswith(b"</net>\n")


def test_layout_is_pugixml_like() -> None:
    """Tabs, one element a line, dims inline, empty elements closed ' />'."""
    a = opset.parameter([2, 3], "f32", name="a")
    xml, _ = write_ir_string(graphir.Model([opset.relu(a, name="r")], [a], name="m"))
    text = xml.decode()
    assert f'\t\t<layer id="{a.node.id}" name="a" type="Parameter" version="opset1">\n\t\t\t<data shape="2,3" element_type="f32" />\n' \
        '\t\t\t<output>\n\t\t\t\t<port id="0" precision="FP32" names="a">\n\t\t\t\t\t<dim>2</dim>\n\t\t\t\t\t<dim>3</dim>\n' \
        '\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>\n' in text
    assert text.endswith("\t<rt_info />\n</net>\n")
    assert "/>" not in text.replace(" />", "")


NASTY = 'a&b<c>d"e\'f\tg\nh\ri é€😀 \x7f,x'


def test_names_are_escaped_and_openvino_reads_them_back(ov, tmp_path: Path) -> None:
    a = opset.parameter([2], "f32", name=NASTY)
    r = opset.relu(a, name="r" + NASTY)
    r.node.output_names = [{"t" + NASTY}]
    model = graphir.Model([r], [a], name="m" + NASTY)
    model.rt_info = {"key": NASTY, "not a name": {"x&y": NASTY}}
    graphir.save_model(model, tmp_path / "m.xml")
    text = (tmp_path / "m.xml").read_text(encoding="utf-8")
    assert 'name="a&amp;b&lt;c&gt;d&quot;e\'f&#9;g&#10;h&#13;i é€😀 \x7f,x"' in text
    assert 'names="ta&amp;b&lt;c&gt;d&quot;e\'f&#9;g&#10;h&#13;i é€😀 \x7f\\,x"' in text
    assert '<info name="not a name">' in text and '<info name="x&amp;y" value="a&amp;b' in text
    back = graphir.read_model(tmp_path / "m.xml")
    assert back.name == "m" + NASTY and back.rt_info == model.rt_info
    assert {n.name for n in back.nodes()} >= {NASTY, "r" + NASTY}
    ov_model = ov.Core().read_model(str(tmp_path / "m.xml"))
    assert ov_model.get_friendly_name() == "m" + NASTY
    assert [o.get_friendly_name() for o in ov_model.get_ops() if o.get_type_name() != "Result"] == [NASTY, "r" + NASTY]
    assert ov_model.output(0).get_names() == {"t" + NASTY}


@pytest.mark.parametrize("bad", ["a\x01b", "a\x00", "a\udcffb", "a\ufffe", "a\x0b"])
def test_characters_xml_cannot_carry_are_refused_naming_the_node(bad: str, tmp_path: Path) -> None:
    a = opset.parameter([2], "f32", name="a")
    r = opset.relu(a, name=bad)
    model = graphir.Model([r], [a], name="m")
    code = f"U\\+{ord(bad[1]):04X} at position 1 of {re.escape(repr(bad))}"
    with pytest.raises(SerializationError, match=rf"^node {r.node.id} .*\(Relu\): cannot be written as XML .*: the character {code}"):
        graphir.save_model(model, tmp_path / "m.xml")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("key", ["{ns}x", "1x", "a b", ""])
def test_attribute_names_that_are_not_xml_names_are_refused(key: str, tmp_path: Path) -> None:
    a = opset.parameter([2], "f32", name="a")
    r = opset.relu(a, name="r")
    r.node.rt_info = {"layout": {key: "v"}}
    with pytest.raises(SerializationError, match=rf"^node {r.node.id} 'r' \(Relu\): cannot be written as XML"):
        graphir.save_model(graphir.Model([r], [a], name="m"), tmp_path / "m.xml")


def test_deep_rt_info_is_written_without_recursion() -> None:
    """Nested 5,000 deep (more than Python's recursion limit): written as nested elements."""
    a = opset.parameter([1], "f32", name="a")
    model = graphir.Model([opset.relu(a)], [a], name="m")
    deep: dict = {"leaf": "x"}
    for i in range(5000):
        deep = {f"k{i % 7}": deep}
    model.rt_info = {"deep": deep}
    xml, _ = write_ir_string(model)
    assert xml.count(b"</k") == 5000 and b'<leaf value="x" />' in xml


def test_large_blobs_alike_at_both_ends_are_kept_apart() -> None:
    """Blobs grouped by size and first/last bytes are compared in full: equal ones share an offset,
    ones differing only in the middle do not (also past the point where CRCs sort a group)."""
    size = 4 * SMALL_BLOB
    base = np.zeros(size, np.uint8)
    variants = []
    for i in range(12):
        v = base.copy()
        v[size // 2] = i  # same first and last bytes, a different middle
        variants.append(v.tobytes())
    writer = BinWriter()
    offsets = [writer.add(v) for v in variants] + [writer.add(memoryview(v)) for v in variants]
    assert offsets[:12] == [i * size for i in range(12)]
    assert offsets[12:] == offsets[:12]
    assert writer.tobytes() == b"".join(variants)


def test_deduplication_across_element_types_and_sources(tmp_path: Path) -> None:
    """A model read back (blobs from the memory-mapped .bin) and one built in memory dedup alike."""
    big = np.arange(1024, dtype=np.float32)
    model = graphir.Model([opset.constant(big, name="a"), opset.constant(big.view(np.int32), name="b"),
                           opset.constant(big + 1, name="c")], [], name="m")
    graphir.save_model(model, tmp_path / "m.xml")
    assert (tmp_path / "m.bin").stat().st_size == 2 * big.nbytes
    back = graphir.read_model(tmp_path / "m.xml")
    assert write_ir_string(back) == ((tmp_path / "m.xml").read_bytes(), (tmp_path / "m.bin").read_bytes())


def test_holds_compares_buffers_without_joining(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    parts = [b"abc", memoryview(b"defgh"), np.arange(3, dtype=np.int64).tobytes()]
    path.write_bytes(b"".join(bytes(p) for p in parts))
    assert atomic.holds(path, parts)
    assert not atomic.holds(path, parts[:2])
    assert not atomic.holds(path, [b"abd", parts[1], parts[2]])
    assert not atomic.holds(path, [parts[0], parts[1], np.arange(1, 4, dtype=np.int64).tobytes()])
    assert not atomic.holds(tmp_path / "missing.bin", parts)


def _models() -> tuple[graphir.Model, graphir.Model]:
    def model(values: np.ndarray, name: str) -> graphir.Model:
        a = opset.parameter([values.size], "f32", name="a")
        return graphir.Model([opset.add(a, opset.constant(values, name="k"), name="y")], [a], name=name)
    return (model(np.arange(1000, dtype=np.float32), "old"), model(np.arange(1000, dtype=np.float32) * 2, "new"))


@pytest.mark.parametrize("bin_thread_from", [0, 1 << 40], ids=["bin-on-a-thread", "bin-first"])
@pytest.mark.parametrize("failing", [".bin", ".xml"])
def test_a_failed_temporary_file_leaves_nothing(failing: str, bin_thread_from: int, tmp_path: Path,
                                                monkeypatch) -> None:
    """The two temporary files are written in parallel (from BIN_THREAD_FROM bytes of weights; one
    after the other below); either failing removes the other."""
    monkeypatch.setattr(atomic, "BIN_THREAD_FROM", bin_thread_from)
    old, new = _models()
    target = tmp_path / "m.xml"
    graphir.save_model(old, target)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if re.search(rf"\.m\{failing}\.\w+\.tmp$", os.readlink(f"/proc/self/fd/{fd}")):
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(SerializationError, match=rf"m\{failing}: cannot write: No space left on device"):
        graphir.save_model(new, target)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def _killed_save(model: graphir.Model, target: Path, replaces_done: int) -> None:
    """Save in a forked child that dies (os._exit: no cleanup, as under SIGKILL) just before its
    rename number ``replaces_done + 1`` (2: after both renames, before the backup is removed)."""
    pid = os.fork()
    if pid == 0:
        try:
            real_replace, real_unlink = os.replace, os.unlink
            calls = [0]

            def replace(src, dst):
                if calls[0] == replaces_done:
                    os._exit(9)
                calls[0] += 1
                return real_replace(src, dst)

            def unlink(path):
                if calls[0] == replaces_done == 2:
                    os._exit(9)
                return real_unlink(path)

            os.replace, os.unlink = replace, unlink  # type: ignore[assignment]
            graphir.save_model(model, target)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 9


@pytest.mark.parametrize("replaces_done", [0, 1, 2], ids=["before-renames", "between-renames", "after-renames"])
def test_a_killed_save_leaves_a_readable_pair_and_loses_nothing(replaces_done: int, tmp_path: Path) -> None:
    """What the README promises: killed before the renames, the old pair is in place; between them
    (a window of two system calls), the old .xml is beside the new .bin, and both the old .bin (a
    hard link ``.m.bin.*.tmp.old``) and the new .xml (``.m.xml.*.tmp``) are on disk, so either pair
    can be put back by one rename; after them, the new pair."""
    old, new = _models()
    target, weights = tmp_path / "m.xml", tmp_path / "m.bin"
    graphir.save_model(old, target)
    old_files = target.read_bytes(), weights.read_bytes()
    new_files = write_ir_string(new)
    _killed_save(new, target, replaces_done)
    now = target.read_bytes(), weights.read_bytes()
    backups = list(tmp_path.glob(".m.bin.*.tmp.old"))
    new_xml = list(tmp_path.glob(".m.xml.*.tmp"))
    assert len(backups) == 1 and backups[0].read_bytes() == old_files[1]
    if replaces_done == 0:
        assert now == old_files
        assert new_xml[0].read_bytes() == new_files[0]
    elif replaces_done == 1:
        assert now == (old_files[0], new_files[1])
        assert [p.read_bytes() for p in new_xml] == [new_files[0]]
        assert model_summary(read_ir(target, weights=backups[0])) == model_summary(read_ir_string(*old_files))
        assert model_summary(read_ir(new_xml[0], weights=weights)) == model_summary(read_ir_string(*new_files))
    else:
        assert now == new_files and not new_xml


def test_file_modes_follow_the_umask_or_the_old_file_without_touching_the_umask(tmp_path: Path, monkeypatch) -> None:
    """New files get 0o666 less the umask (applied by the system), replaced files keep their mode;
    the process's umask is never set (setting it is the only way to read it: process-wide state)."""
    old, new = _models()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.umask(0o027)

            def no_umask(mask: int) -> int:
                raise AssertionError("os.umask called")

            os.umask = no_umask  # type: ignore[assignment]
            graphir.save_model(old, tmp_path / "a.xml")
            if {p.stat().st_mode & 0o777 for p in tmp_path.iterdir()} != {0o640}:
                os._exit(2)
            os.chmod(tmp_path / "a.xml", 0o600)
            os.chmod(tmp_path / "a.bin", 0o604)
            graphir.save_model(new, tmp_path / "a.xml")
            status = 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert modes == {"a.xml": 0o600, "a.bin": 0o604}
    graphir.save_model(old, tmp_path / "b.xml")
    mask = os.umask(0o022)
    os.umask(mask)
    assert (tmp_path / "b.xml").stat().st_mode & 0o777 == 0o666 & ~mask


def test_files_that_already_hold_their_bytes_are_kept(tmp_path: Path, monkeypatch) -> None:
    """A file already holding what the save would write is kept (and fsynced), not replaced: saving
    an unchanged model writes nothing; new weights of the same size and layout (the .xml is the
    same) replace the .bin alone, and new names alone the .xml: one rename, atomic as a whole."""
    old, _ = _models()
    target, weights = tmp_path / "m.xml", tmp_path / "m.bin"
    graphir.save_model(old, target)
    inodes = target.stat().st_ino, weights.stat().st_ino
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    graphir.save_model(old, target)
    assert (target.stat().st_ino, weights.stat().st_ino) == inodes
    assert sorted(synced) == sorted(["m.xml", "m.bin", tmp_path.name])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin", "m.xml"]

    other = tmp_path.parent / f"{tmp_path.name}-other.bin"  # the same layout, other values
    other.write_bytes((np.frombuffer(weights.read_bytes(), np.float32) * 7).tobytes())
    graphir.save_model(read_ir(target, weights=other), target)
    assert target.stat().st_ino == inodes[0] and weights.stat().st_ino != inodes[1]
    assert weights.read_bytes() == other.read_bytes()

    renamed = graphir.read_model(target)
    renamed.node("y").name = "sum"
    graphir.save_model(renamed, target)
    assert target.stat().st_ino != inodes[0]
    assert [n.name for n in graphir.read_model(target).nodes() if n.type_name == "Add"] == ["sum"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin", "m.xml"]
