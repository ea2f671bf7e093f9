"""Writes the IR fixtures under tests/fixtures/ir/ with the real OpenVINO (run: python tests/gen_ir_fixtures.py).

Every file here is written by OpenVINO 2026.4's own serializer, so that the reader is tested on
what OpenVINO really writes and the writer can be compared with it (canonical XML equality):

* ``consts.xml``: a Const of every element type feeding a Result (values in ``consts.json``);
* ``dynamic.xml``: Parameter intervals ``?,1..10,2..,..6,3`` and a dynamic-rank input;
* ``names.xml``: tensor names with commas, several names per tensor, named Results;
* ``rt_info.xml``: layouts on ports, custom net rt_info (nested keys, lists);
* ``select_v10.xml`` / ``select_v11.xml`` and ``select_pdpd.xml``: the same nets as IR v10 and v11;
* ``if.xml``: an If with then/else bodies (subgraphs); ``unknown_op.xml``: an op graphir lacks (an
  extension op: OpenVINO's ExtractImagePatches written under another type name and opset, since
  graphir now has every op of OpenVINO's own opsets);
* ``torch_cnn.xml`` / ``torch_mlp.xml``: small PyTorch modules via ``openvino.convert_model``.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as op1
import openvino.opset8 as op8

OUT = Path(__file__).resolve().parent / "fixtures" / "ir"

#: element type -> values written as a Const (also what the tests expect to read back)
CONST_VALUES: dict[str, list] = {
    "boolean": [True, False, True],
    "bf16": [1.5, -2.0, 0.0078125],
    "f16": [1.5, -65504.0, 6.1035156e-05],
    "f32": [1.5, -2.25, 3.0e-3, 1.0e30],
    "f64": [1.5, -2.25, 1.0e-300, 1.0e300],
    "i4": [-1, 2, -8, 7, 0],
    "i8": [-128, 127, 0],
    "i16": [-32768, 32767, 1],
    "i32": [-2147483648, 2147483647, 5],
    "i64": [-9223372036854775808, 9223372036854775807, 7],
    "u1": [1, 0, 0, 0, 0, 0, 0, 0, 1, 1],
    "u2": [0, 1, 2, 3, 1],
    "u3": [7, 6, 5, 4, 3, 2, 1, 0, 5],
    "u6": [63, 1, 2, 3, 40],
    "u4": [1, 2, 3, 4, 5],
    "u8": [0, 255, 7],
    "u16": [0, 65535, 9],
    "u32": [0, 4294967295, 11],
    "u64": [0, 18446744073709551615, 13],
    "f8e4m3": [1.0, 448.0, -2.0, 0.5],
    "f8e5m2": [1.0, -57344.0, 0.25],
    "f8e8m0": [1.0, 2.0, 0.5],
    "f4e2m1": [0.5, 1.0, -6.0, 6.0, 0.0],
    "nf4": [-1.0, 0.0, 1.0],
}
NUMPY_TYPES = {"boolean": np.bool_, "f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8,
               "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16,
               "u32": np.uint32, "u64": np.uint64}
STRINGS = ["ab", "", "c,d", "ünï"]


def _save(model: ov.Model, name: str, version: str = "IR_V11") -> None:
    ov.serialize(model, str(OUT / f"{name}.xml"), str(OUT / f"{name}.bin"), version=version)


def consts() -> None:
    results = []
    for name, values in CONST_VALUES.items():
        if name in NUMPY_TYPES:  # exact values (the list constructor goes through f32)
            c = ov.op.Constant(np.array(values, dtype=NUMPY_TYPES[name]))
        else:
            c = ov.op.Constant(getattr(ov.Type, name), ov.Shape([len(values)]), values)
        c.set_friendly_name(f"const_{name}")
        c.output(0).get_tensor().set_names({f"const_{name}"})
        results.append(op1.result(c))
    s = ov.op.Constant(ov.Tensor(np.array(STRINGS)))
    s.set_friendly_name("const_string")
    results.append(op1.result(s))
    dup = ov.op.Constant(ov.Type.f32, ov.Shape([4]), CONST_VALUES["f32"])  # deduplicated blob
    dup.set_friendly_name("const_f32_again")
    results.append(op1.result(dup))
    _save(ov.Model(results, [], "consts"), "consts")
    (OUT / "consts.json").write_text(json.dumps({**CONST_VALUES, "string": STRINGS}, indent=1))


def dynamic() -> None:
    x = op1.parameter(ov.PartialShape("?,1..10,2..,..6,3"), np.float32, name="x")
    y = op1.parameter(ov.PartialShape.dynamic(), np.float32, name="y")
    c = op1.parameter(ov.PartialShape("?,1..10,2..,..6,3"), np.bool_, name="c")
    s = op1.select(c, x, x, name="sel")
    a = op1.add(y, op1.constant(np.float32(2.0)), name="add")
    _save(ov.Model([op1.result(s, name="r0"), op1.result(a, name="r1")], [x, y, c], "dynamic"), "dynamic")


def names() -> None:
    a = op1.parameter([2, 3], np.float32, name="a")
    a.output(0).get_tensor().set_names({"a,b", "plain", "x\\y"})
    c = op1.parameter([2, 3], np.bool_, name="cond")
    s = op1.select(c, a, op1.constant(np.zeros([2, 3], np.float32)), name="sel,ect")
    s.output(0).get_tensor().set_names({"out,1", "out 2"})
    r = op1.result(s, name="res")
    _save(ov.Model([r], [a, c], "names, with & <xml>"), "names")


def rt_info() -> None:
    x = op1.parameter([1, 3, 4, 4], np.float32, name="x")
    x.set_layout(ov.Layout("NCHW"))
    c = op1.parameter([1, 3, 4, 4], np.bool_, name="c")
    s = op1.select(c, x, x, name="sel")
    r = op1.result(s, name="out")
    r.set_layout(ov.Layout("NCHW"))
    m = ov.Model([r], [x, c], "rt")
    m.set_rt_info("custom_value", ["custom", "key"])
    m.set_rt_info(["a", "b", "c"], ["custom", "list"])
    m.set_rt_info("1.5", ["top"])
    _save(m, "rt_info")


def selects() -> None:
    for version, name in (("IR_V10", "select_v10"), ("IR_V11", "select_v11")):
        c = op1.parameter([3, 2], np.bool_, name="cond")
        a = op1.parameter([3, 2], np.int32, name="then")
        b = op1.parameter([3, 2], np.int32, name="else")
        s = op1.select(c, a, b, name="sel")
        _save(ov.Model([op1.result(s, name="out")], [c, a, b], "select"), name, version)
    c = op1.parameter([2, 3], np.bool_, name="cond")
    a = op1.parameter([2, 3, 4], np.float32, name="then")
    b = op1.parameter([2, 3], np.float32, name="else")
    s = op1.select(c, a, b, auto_broadcast="pdpd", name="sel")
    _save(ov.Model([op1.result(s, name="out")], [c, a, b], "pdpd"), "select_pdpd")


def if_op() -> None:
    x = op1.parameter([2, 2], np.float32, name="x")
    cond = op1.parameter([], np.bool_, name="cond")
    tx = op1.parameter([2, 2], np.float32, name="tx")
    then_body = ov.Model([op1.result(op1.add(tx, op1.constant(np.float32(1.0))))], [tx], "then")
    ex = op1.parameter([2, 2], np.float32, name="ex")
    else_body = ov.Model([op1.result(op1.multiply(ex, op1.constant(np.float32(3.0))))], [ex], "else")
    node = op8.if_op(cond)
    node.set_then_body(then_body)
    node.set_else_body(else_body)
    node.set_input(x.output(0), tx, ex)
    out = node.set_output(then_body.get_results()[0], else_body.get_results()[0])
    _save(ov.Model([op1.result(out, name="out")], [x, cond], "if"), "if")


def unknown_op() -> None:
    x = op1.parameter([1, 1, 4, 4], np.float32, name="x")
    y = ov.opset3.extract_image_patches(x, [2, 2], [2, 2], [1, 1], "valid")
    y.set_friendly_name("CustomImagePatches_111")
    z = op1.select(op1.constant(np.array(True)), y, y)
    _save(ov.Model([op1.result(z, name="out")], [x], "unknown"), "unknown_op")
    xml = OUT / "unknown_op.xml"  # as an extension op would be written: a type and opset graphir does not know
    xml.write_text(xml.read_text().replace('type="ExtractImagePatches" version="opset3"',
                                           'type="CustomImagePatches" version="extension"'))


def torch_nets() -> None:
    import torch

    torch.manual_seed(0)
    cnn = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                              torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 5), torch.nn.Softmax(dim=1)).eval()
    mlp = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2)).eval()
    for module, example, name in ((cnn, torch.randn(1, 3, 8, 8), "torch_cnn"), (mlp, torch.randn(2, 6), "torch_mlp")):
        model = ov.convert_model(module, example_input=example)
        ov.save_model(model, OUT / f"{name}.xml", compress_to_fp16=False)
        np.save(OUT / f"{name}_input.npy", example.numpy())


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for make in (consts, dynamic, names, rt_info, selects, if_op, unknown_op, torch_nets):
        make()
    print(f"wrote {len(list(OUT.glob('*.xml')))} IR files to {OUT}")


if __name__ == "__main__":
    main()
