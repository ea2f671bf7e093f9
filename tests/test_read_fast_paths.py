"""The shortcuts the IR reader's speed work (issue 17) added give what the general code gives.

* Concat's shape without a shape per input (``Concat._uniform_shape``: equal dims off the axis,
  static or not) against OpenVINO 2026.4 and against the general rule on random shapes;
* MatMul of two matrices (no batch dims to broadcast) against OpenVINO;
* a Convert that widens (f16 -> f32 weights, i32 -> i64 shapes) folded in one ``astype``: the same
  bits as the general fold for every pair of 12 types;
* a Const's blob as a slice of one uint8 array over the whole .bin (``BinSource.byte_array``):
  the same values, dtype and read-only flag as ``np.frombuffer``, and no memoryview per blob;
* ``benchmarks/read_phases.py`` (the per-phase profile of a read) on a fixture file.
"""
from __future__ import annotations

import gc
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from graphir import opset
from graphir.ops.base import TensorType
from graphir.ops.openvino.shape_ops import Concat
from graphir.serializers.ir_constants import BinSource, BlobLoader
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType
from tests.ops.ov_diff import Param, check
from tests.script_modules import load_script

ROOT = Path(__file__).resolve().parent.parent


# --- Concat ------------------------------------------------------------------------------------
CONCAT_CASES = [
    # DenseNet's: many inputs with a dynamic batch and spatial dims, concatenated on channels
    ([f"[?,{c},?,?]" for c in (64, 32, 32, 32, 32, 32, 32)], 1),
    (["[1..4,3]", "[2..6,3]"], 0),              # intervals add up on the axis
    (["[1..4,3]", "[2..6,3]", "[5,3]"], -2),    # negative axis
    (["[?,3]", "[2,3]"], 0),                    # an unbounded length on the axis
    (["[2..5,7]", "[2..5,1]", "[2..5,?]"], 1),  # equal intervals off the axis
    (["[?,3]", "[4,3]"], 1),                    # unequal off the axis: the general rule merges them
    (["[...]", "[2,3]"], 0),                    # a dynamic rank among the inputs
    (["[2,3]", "[...]"], 1),
    (["[?,?,8]", "[?,?,8]"], 2),                # the same dynamic dims everywhere
]


@pytest.mark.parametrize("shapes,axis", CONCAT_CASES)
def test_concat_shapes_as_openvino(ov: Any, shapes: list[str], axis: int) -> None:
    check(ov, lambda *xs: opset.concat(list(xs), axis=axis), lambda *xs: _ov_ops().concat(list(xs), axis),
          [Param(s, "f32") for s in shapes])


def test_concat_values_of_a_static_concatenation_as_openvino(ov: Any) -> None:
    rng = np.random.default_rng(3)
    values = [rng.standard_normal((2, n, 3)).astype(np.float32) for n in (1, 4, 2)]
    out = check(ov, lambda *xs: opset.concat(list(xs), axis=1), lambda *xs: _ov_ops().concat(list(xs), 1),
                [Param(f"[2,{n},3]", "f32") for n in (1, 4, 2)], values)
    assert np.array_equal(out[0], np.concatenate(values, axis=1))


def _random_dim(rng: random.Random) -> Dimension:
    low = rng.randint(0, 4)
    return rng.choice([Dimension(low, low), Dimension(low, low + rng.randint(1, 3)), Dimension(low, None)])


def test_concat_uniform_shape_is_the_general_rule() -> None:
    """On 3,000 random input lists (shared, equal and different dims, ranks 1-3, dynamic ranks,
    axes in and out of range) the shortcut gives None or exactly the general rule's shape."""
    rng = random.Random(17)
    taken = 0
    for _ in range(3000):
        rank = rng.randint(1, 3)
        base = [_random_dim(rng) for _ in range(rank)]
        shapes = []
        for _ in range(rng.randint(1, 6)):
            roll = rng.random()
            if roll < 0.05:
                shapes.append(PartialShape.dynamic())
            elif roll < 0.1:
                shapes.append(PartialShape([_random_dim(rng) for _ in range(rng.randint(1, 3))]))
            else:
                dims = list(base)
                if rng.random() < 0.2:
                    dims[rng.randrange(rank)] = _random_dim(rng)
                dims[rng.randrange(rank)] = _random_dim(rng)
                shapes.append(PartialShape(dims))
        op = Concat(axis=rng.randint(-rank - 1, rank))
        inputs = [TensorType(ElementType.f32, s) for s in shapes]
        fast = op._uniform_shape(inputs)
        if fast is None:
            continue
        taken += 1
        assert str(fast) == str(op._partial_shape(inputs)), (shapes, op.axis)
    assert taken > 500  # the shortcut is taken often enough for this to test it


# --- MatMul ------------------------------------------------------------------------------------
@pytest.mark.parametrize("a,b,ta,tb", [
    ("[1,8]", "[8,9]", False, False),
    ("[?,8]", "[9,8]", False, True),
    ("[8,2..5]", "[8,7]", True, False),
    ("[4,?]", "[3,4]", True, True),
    ("[8]", "[8,9]", False, False),       # 1-D A
    ("[2,8]", "[8]", False, False),       # 1-D B
    ("[3,2,8]", "[8,9]", False, False),   # batch dims: the broadcasting path
    ("[2,8]", "[5,8,9]", False, False),
])
def test_matmul_shapes_as_openvino(ov: Any, a: str, b: str, ta: bool, tb: bool) -> None:
    check(ov, lambda x, y: opset.matmul(x, y, transpose_a=ta, transpose_b=tb),
          lambda x, y: _ov_ops().matmul(x, y, ta, tb), [Param(a, "f32"), Param(b, "f32")])


# --- Convert folds ----------------------------------------------------------------------------
CONVERT_TYPES = ["boolean", "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]


@pytest.mark.parametrize("source", CONVERT_TYPES)
def test_convert_fold_shortcut_gives_the_general_fold(source: str) -> None:
    """Every conversion between these types folds to the same bits, dtype and shape as through
    ``fold`` and ``convert_array`` (the widening ones take the one-astype shortcut): values with
    NaN, infinities, -0.0 and each type's extremes."""
    from graphir.ops.openvino.binary import fold
    from graphir.ops.openvino.conversion import Convert, _Bound, _widened

    src = ElementType.parse(source)
    dtype = np.dtype(src.numpy_dtype)
    if dtype.kind == "f":
        value = np.array([np.nan, np.inf, -np.inf, -0.0, 0.5, -3.25, np.finfo(dtype).max, np.finfo(dtype).min], dtype)
    elif dtype.kind == "b":
        value = np.array([True, False, True, True, False, False, True, False])
    else:
        info = np.iinfo(dtype)
        value = np.array([info.min, info.max, 0, 1, info.max // 3, info.min // 3, 7, 100 % (info.max + 1)], dtype)
    value = value.reshape(2, 4)
    value.setflags(write=False)
    x = TensorType(src, PartialShape([2, 4]), value)
    taken = 0
    for target in CONVERT_TYPES:
        et = ElementType.parse(target)
        general = fold(_Bound(Convert(destination_type=et), et, src), [x], x.shape, et)
        out = Convert(destination_type=et).infer([x])[0]
        taken += _widened(x, et) is not None
        assert out.value.dtype == general.dtype and out.value.shape == general.shape, (source, target)
        assert out.value.tobytes() == general.tobytes(), (source, target)
    widening = {"f16": 2, "f32": 1, "i8": 3, "i16": 2, "i32": 1, "u8": 6, "u16": 4, "u32": 2}
    assert taken == widening.get(source, 0)


# --- Const blobs -------------------------------------------------------------------------------
def test_blobs_are_typed_read_only_slices_of_one_array(tmp_path: Path) -> None:
    data = np.arange(64, dtype=np.uint8).tobytes()
    path = tmp_path / "w.bin"
    path.write_bytes(data)
    source = BinSource("w.bin", path=path)
    cases = [(ElementType.f32, [2, 3], 4), (ElementType.i64, [2], 3), (ElementType.f16, [5], 1),
             (ElementType.u8, [0, 4], 7), (ElementType.i32, [], 12)]
    for et, shape, offset in cases:
        size = int(np.prod(shape, dtype=np.int64)) * np.dtype(et.numpy_dtype).itemsize
        value = BlobLoader(source, offset, size, et, shape, "layer")()
        expected = np.frombuffer(data, dtype=np.dtype(et.numpy_dtype).newbyteorder("<"),
                                 count=int(np.prod(shape, dtype=np.int64)), offset=offset).reshape(shape)
        assert value.dtype == expected.dtype and value.shape == tuple(shape)
        assert value.tobytes() == expected.tobytes()
        assert not value.flags.writeable  # a read-only map of the file, as before
    assert source.byte_array() is source.byte_array()  # one array per .bin


def test_blobs_leave_no_memoryview_each(tmp_path: Path) -> None:
    path = tmp_path / "w.bin"
    path.write_bytes(bytes(4096))
    source = BinSource("w.bin", path=path)
    source.byte_array()
    gc.collect()
    before = sum(type(o) is memoryview for o in gc.get_objects())
    values = [BlobLoader(source, 8 * i, 8, ElementType.f32, [2], "layer")() for i in range(200)]
    gc.collect()
    after = sum(type(o) is memoryview for o in gc.get_objects())
    assert len(values) == 200 and after == before  # (np.frombuffer left one per blob: 200 more)


# --- the per-phase profile ---------------------------------------------------------------------
def _phases_module() -> ModuleType:
    return load_script(ROOT / "benchmarks" / "read_phases.py", "read_phases")


def test_read_phases_profiles_a_fixture(capsys: pytest.CaptureFixture[str]) -> None:
    from graphir.serializers import ir_reader

    original = ir_reader._Reader._infer
    fixture = ROOT / "tests" / "fixtures" / "ir" / "names.xml"
    assert _phases_module().main([str(fixture), "--repeat", "2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("== names: plain read ")
    for phase in ("libxml2 parse (lxml tree)", "layer records (_parse_layer)", "shape inference (memo + ops)",
                  "(of which the cyclic GC)", "tree free + rest"):
        assert phase in text
    assert ir_reader._Reader._infer is original  # the reader is left as it was


def _ov_ops() -> Any:
    from openvino import opset13

    return opset13


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
