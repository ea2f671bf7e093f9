"""ElementType: names, widths, classification, numpy dtypes, packed sizes, IR/oneDNN/DirectML names."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from graphir.errors import ElementTypeError, GraphirError
from graphir.types import ElementType, as_element_type

ISSUE_NAMES = ["boolean", "bf16", "f16", "f32", "f64", "i4", "i8", "i16", "i32", "i64", "u1", "u4",
               "u8", "u16", "u32", "u64", "f8e4m3", "f8e5m2", "nf4", "string", "dynamic"]

BITS = {"boolean": 8, "bf16": 16, "f16": 16, "f32": 32, "f64": 64, "i4": 4, "i8": 8, "i16": 16,
        "i32": 32, "i64": 64, "u1": 1, "u2": 2, "u3": 3, "u4": 4, "u6": 6, "u8": 8, "u16": 16,
        "u32": 32, "u64": 64, "f8e4m3": 8, "f8e5m2": 8, "f8e8m0": 8, "f4e2m1": 4, "nf4": 4,
        "string": 0, "dynamic": 0}

IR_PRECISION = {"boolean": "BOOL", "f16": "FP16", "bf16": "BF16", "f32": "FP32", "f64": "FP64",
                "i4": "I4", "i8": "I8", "i16": "I16", "i32": "I32", "i64": "I64", "u1": "BIN",
                "u2": "U2", "u3": "U3", "u4": "U4", "u6": "U6", "u8": "U8", "u16": "U16",
                "u32": "U32", "u64": "U64", "f8e4m3": "F8E4M3", "f8e5m2": "F8E5M2",
                "f8e8m0": "F8E8M0", "f4e2m1": "F4E2M1", "nf4": "NF4", "string": "STRING",
                "dynamic": "UNSPECIFIED"}

ONEDNN = {"f32": "f32", "bf16": "bf16", "f16": "f16", "i8": "s8", "u8": "u8", "i32": "s32",
          "boolean": "boolean", "f8e4m3": "f8_e4m3", "f8e5m2": "f8_e5m2", "i4": "s4", "u4": "u4",
          "dynamic": "undef"}

DIRECTML = {"f16": "FLOAT16", "f32": "FLOAT32", "f64": "FLOAT64", "i8": "INT8", "i16": "INT16",
            "i32": "INT32", "i64": "INT64", "u8": "UINT8", "u16": "UINT16", "u32": "UINT32",
            "u64": "UINT64"}

NUMPY = {"boolean": np.bool_, "f16": np.float16, "f32": np.float32, "f64": np.float64,
         "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
         "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "bf16": ml_dtypes.bfloat16,
         "f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2,
         "i4": ml_dtypes.int4, "u4": ml_dtypes.uint4}


def test_every_issue_name_parses_and_prints_back() -> None:
    for name in ISSUE_NAMES:
        et = ElementType.parse(name)
        assert str(et) == name
        assert f"{et}" == name
        assert ElementType.parse(str(et)) is et
        assert repr(et) == f"ElementType.{name}"
    assert {t.value for t in ElementType} == set(BITS)


@pytest.mark.parametrize("name", sorted(BITS))
def test_bit_width(name: str) -> None:
    assert ElementType.parse(name).bitwidth == BITS[name]


def test_classification() -> None:
    real = {"bf16", "f16", "f32", "f64", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1"}
    integral = {"boolean", "i4", "i8", "i16", "i32", "i64", "u1", "u2", "u3", "u4", "u6", "u8",
                "u16", "u32", "u64", "nf4"}
    signed = real | {"boolean", "i4", "i8", "i16", "i32", "i64"}
    for et in ElementType:
        assert et.is_real == (et.value in real), et
        assert et.is_integral == (et.value in integral), et
        assert et.is_integral_number == (et.value in integral - {"boolean"}), et
        assert et.is_signed == (et.value in signed), et
        assert et.is_sub_byte == (et.value in {"u1", "u2", "u3", "u4", "u6", "i4", "nf4", "f4e2m1"})
    assert ElementType.dynamic.is_dynamic and not ElementType.dynamic.is_static
    assert ElementType.f32.is_static and not ElementType.f32.is_dynamic
    assert not ElementType.boolean.is_numeric and ElementType.u4.is_numeric


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_numpy_dtype_both_ways(name: str) -> None:
    et = ElementType.parse(name)
    assert et.numpy_dtype == np.dtype(NUMPY[name])
    assert ElementType.from_numpy(NUMPY[name]) is et
    assert as_element_type(np.dtype(NUMPY[name])) is et


def test_numpy_dtype_of_packed_and_odd_types() -> None:
    assert ElementType.u1.numpy_dtype == np.uint8  # unpacked: one element per byte
    assert ElementType.nf4.numpy_dtype == np.uint8
    assert ElementType.string.numpy_dtype == np.dtype(object)
    assert ElementType.from_numpy(np.dtype("U5")) is ElementType.string
    with pytest.raises(ElementTypeError, match="'dynamic' has no numpy dtype"):
        ElementType.dynamic.numpy_dtype
    with pytest.raises(ElementTypeError, match="numpy dtype 'complex64' has no graphir element type"):
        ElementType.from_numpy(np.complex64)


@pytest.mark.parametrize(
    "name,count,size",
    [("u1", 10, 2), ("u1", 8, 1), ("u1", 0, 0), ("u2", 4, 1), ("u2", 5, 2), ("u3", 8, 3),
     ("u3", 9, 6), ("u4", 5, 3), ("i4", 5, 3), ("nf4", 3, 2), ("f4e2m1", 2, 1), ("u6", 4, 3),
     ("u6", 5, 6), ("f32", 3, 12), ("bf16", 3, 6), ("boolean", 5, 5), ("f8e4m3", 7, 7),
     ("i64", 2, 16)],
)
def test_packed_size(name: str, count: int, size: int) -> None:
    assert ElementType.parse(name).packed_size(count) == size


def test_packed_size_has_no_answer_for_string_and_dynamic() -> None:
    for et in (ElementType.string, ElementType.dynamic):
        with pytest.raises(ElementTypeError, match=f"'{et}' has no fixed packed size"):
            et.packed_size(3)


@pytest.mark.parametrize("name", sorted(IR_PRECISION))
def test_ir_precision_both_ways(name: str) -> None:
    et = ElementType.parse(name)
    assert et.ir_precision == IR_PRECISION[name]
    assert ElementType.from_ir_precision(IR_PRECISION[name]) is et
    assert ElementType.from_ir_precision(IR_PRECISION[name].lower()) is et


def test_ir_precision_aliases_and_errors() -> None:
    assert ElementType.from_ir_precision("U1") is ElementType.u1
    assert ElementType.from_ir_precision("BOOLEAN") is ElementType.boolean
    assert ElementType.from_ir_precision("UNDEFINED") is ElementType.dynamic
    with pytest.raises(ElementTypeError, match="unknown IR port precision 'FP31'"):
        ElementType.from_ir_precision("FP31")


def test_onednn_names_both_ways() -> None:
    for et in ElementType:
        if et.value in ONEDNN:
            assert et.onednn_name == et.to_onednn() == ONEDNN[et.value]
            assert ElementType.from_onednn(ONEDNN[et.value]) is et
        else:
            assert et.onednn_name is None
            with pytest.raises(ElementTypeError, match=f"'{et}' has no oneDNN Graph data type"):
                et.to_onednn()
    with pytest.raises(ElementTypeError, match="unknown oneDNN Graph data type 's64'"):
        ElementType.from_onednn("s64")


def test_directml_names_both_ways() -> None:
    for et in ElementType:
        if et.value in DIRECTML:
            full = "DML_TENSOR_DATA_TYPE_" + DIRECTML[et.value]
            assert et.directml_name == et.to_directml() == full
            assert ElementType.from_directml(full) is et
            assert ElementType.from_directml(DIRECTML[et.value]) is et
        else:
            assert et.directml_name is None
            with pytest.raises(ElementTypeError, match=f"'{et}' has no DirectML data type"):
                et.to_directml()
    with pytest.raises(ElementTypeError, match="DirectML has no boolean; use UINT8"):
        ElementType.boolean.to_directml()
    with pytest.raises(ElementTypeError, match="unknown DirectML tensor data type 'BOOL'"):
        ElementType.from_directml("BOOL")


def test_parse_aliases_and_errors() -> None:
    assert ElementType.parse("undefined") is ElementType.dynamic
    assert ElementType.parse("bool") is ElementType.boolean
    assert ElementType.parse(" F32 ") is ElementType.f32
    assert ElementType.parse(ElementType.i8) is ElementType.i8
    assert as_element_type("u8") is ElementType.u8 and as_element_type(np.int16) is ElementType.i16
    with pytest.raises(ElementTypeError) as info:
        ElementType.parse("float33")
    assert "unknown element type 'float33'" in str(info.value)
    assert "f32" in str(info.value) and "boolean" in str(info.value)
    assert isinstance(info.value, GraphirError) and isinstance(info.value, ValueError)


def test_merge_rules() -> None:
    d, f32, i32 = ElementType.dynamic, ElementType.f32, ElementType.i32
    assert d.merge(f32) is f32 and f32.merge(d) is f32 and d.merge(d) is d
    assert f32.merge(f32) is f32
    assert f32.merge(i32) is None
    assert f32.compatible(d) and not f32.compatible(i32)


# --- differential: the real openvino.Type ------------------------------------------------------

def _ov_types(ov):  # type: ignore[no-untyped-def]
    return {n: getattr(ov.Type, n) for n in dir(ov.Type) if isinstance(getattr(ov.Type, n), ov.Type)}


def test_every_openvino_type_is_known_with_the_same_name_and_width(ov) -> None:  # type: ignore[no-untyped-def]
    ov_types = _ov_types(ov)
    assert set(ov_types) == {t.value for t in ElementType}
    for name, t in ov_types.items():
        ours = ElementType.parse(t.get_type_name())
        assert ours.value == name == t.to_string()
        if name == "string":
            # OpenVINO reports sizeof(std::string) * 8; a string has no element width here.
            assert t.bitwidth == 256 and ours.bitwidth == 0
            continue
        assert ours.bitwidth == t.bitwidth, name


def test_classification_matches_openvino(ov) -> None:  # type: ignore[no-untyped-def]
    for name, t in _ov_types(ov).items():
        ours = ElementType.parse(name)
        assert ours.is_real == t.is_real(), name
        assert ours.is_signed == t.is_signed(), name
        assert ours.is_static == t.is_static(), name
        if name not in ("dynamic", "string"):  # OpenVINO's is_integral is !is_real: it counts these
            assert ours.is_integral == t.is_integral(), name
            assert ours.is_integral_number == t.is_integral_number(), name


def test_merge_matches_openvino_for_every_pair(ov) -> None:  # type: ignore[no-untyped-def]
    ov_types = _ov_types(ov)
    for a, ta in ov_types.items():
        for b, tb in ov_types.items():
            merged = ElementType.parse(a).merge(ElementType.parse(b))
            expected = ta.merge(tb)
            assert (merged is None) == (expected is None), (a, b)
            if merged is not None:
                assert merged.value == expected.get_type_name(), (a, b)
            assert ElementType.parse(a).compatible(ElementType.parse(b)) == ta.compatible(tb)


def test_numpy_dtypes_match_openvino_where_numpy_has_the_type(ov) -> None:  # type: ignore[no-untyped-def]
    standard = ["boolean", "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
    for name in standard:
        t = getattr(ov.Type, name)
        assert ElementType.parse(name).numpy_dtype == np.dtype(t.to_dtype()), name
        assert ov.Type(ElementType.parse(name).numpy_dtype).get_type_name() == name


def test_ir_names_match_what_openvino_writes(ov, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Save a Parameter of every type with openvino; read back element_type and port precision."""
    from lxml import etree

    ops = ov.opset13
    names = sorted(_ov_types(ov))
    params = [ops.parameter([2], getattr(ov.Type, n), name=f"p_{n}") for n in names]
    ov.save_model(ov.Model([ops.result(p) for p in params], params, "types"), str(tmp_path / "types.xml"))
    root = etree.parse(str(tmp_path / "types.xml")).getroot()
    seen = 0
    for layer in root.iter("layer"):
        if layer.get("type") != "Parameter":
            continue
        ours = ElementType.parse(layer.get("name").removeprefix("p_"))
        assert layer.find("data").get("element_type") == str(ours)
        assert layer.find("output/port").get("precision") == ours.ir_precision
        assert ElementType.from_ir_precision(layer.find("output/port").get("precision")) is ours
        seen += 1
    assert seen == len(names) == len(ElementType)


def test_pydantic_fields_typed_element_type() -> None:
    from pydantic import BaseModel

    class Holder(BaseModel):
        et: ElementType = ElementType.dynamic

    assert Holder(et="F32").et is ElementType.f32 and Holder(et="undefined").et is ElementType.dynamic
    assert Holder(et=np.int8).et is ElementType.i8
    assert Holder(et="bf16").model_dump() == {"et": ElementType.bf16}
    assert Holder(et="bf16").model_dump_json() == '{"et":"bf16"}'
    assert Holder.model_json_schema()["properties"]["et"]["enum"][:3] == ["dynamic", "boolean", "bf16"]
    with pytest.raises(ValueError, match="unknown element type 'float33'"):
        Holder(et="float33")
    with pytest.raises(ValueError, match="3.5 is neither an element type name nor a numpy dtype"):
        Holder(et=3.5)
