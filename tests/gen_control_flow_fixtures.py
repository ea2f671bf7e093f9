"""Writes the control-flow IR fixtures (tests/fixtures/ir/control_flow/) with the real OpenVINO.

Run: ``python tests/gen_control_flow_fixtures.py``. Each fixture is saved by ``openvino.save_model``
(uncompressed) together with ``<name>_inputs.npz``: seeded inputs for the differential tests.

* ``ti_rnn``: TensorIterator, a tanh RNN cell: x sliced along axis 1 forwards, a second input sliced
  backwards (stride -1), hidden state merged through a back edge, an invariant weight input;
  outputs: last hidden state and all hidden states concatenated along axis 1.
* ``ti_parts``: TensorIterator slicing part_size 2 along axis 0 of a dynamic-batch input, concat
  output in reverse order (stride -1).
* ``loop_counted``: Loop-5 with a constant trip count, the current-iteration body input, a merged
  accumulator, an early-exit body condition and a concatenated output.
* ``loop_unbounded``: Loop-5 with trip count -1; the body condition stops it (dynamic concat).
* ``if_shapes``: If-8 whose branches give different shapes (output [?,3]) and take different inputs.
* ``torch_loop`` / ``torch_if``: torch.jit.script modules with a loop / a data-dependent branch,
  converted by ``openvino.convert_model``.
* ``onnx_scan``: an ONNX Scan (running sum, tanh per step) that OpenVINO's ONNX frontend turns into a
  TensorIterator.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as op1
import openvino.opset8 as op8

OUT = Path(__file__).resolve().parent / "fixtures" / "ir" / "control_flow"
RNG = np.random.default_rng(1234)


def _save(model: ov.Model, name: str, inputs: dict[str, np.ndarray]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    ov.save_model(model, str(OUT / f"{name}.xml"), compress_to_fp16=False)
    np.savez(OUT / f"{name}_inputs.npz", **inputs)


def _f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def ti_rnn() -> None:
    x = op1.parameter([2, 5, 3], np.float32, name="x")
    r = op1.parameter([2, 5, 4], np.float32, name="r")
    h0 = op1.parameter([2, 4], np.float32, name="h0")
    w = op1.parameter([3, 4], np.float32, name="w")
    xt = op1.parameter([2, 1, 3], np.float32, name="xt")
    rt = op1.parameter([2, 1, 4], np.float32, name="rt")
    ht = op1.parameter([2, 4], np.float32, name="ht")
    wt = op1.parameter([3, 4], np.float32, name="wt")
    axis = op1.constant(np.array([1], np.int64))
    u = op1.constant(_f32(4, 4) * 0.5)
    pre = op1.add(op1.matmul(op1.squeeze(xt, axis), wt, False, False), op1.matmul(ht, u, False, False))
    h_new = op1.tanh(op1.add(pre, op1.squeeze(rt, axis)))
    res_h = op1.result(h_new)
    res_seq = op1.result(op1.unsqueeze(h_new, axis))
    body = ov.Model([res_h, res_seq], [xt, rt, ht, wt], "rnn_body")
    ti = op8.tensor_iterator()
    ti.set_body(body)
    ti.set_sliced_input(xt, x.output(0), 0, 1, 1, -1, 1)
    ti.set_sliced_input(rt, r.output(0), -1, -1, 1, 0, 1)
    ti.set_merged_input(ht, h0.output(0), res_h.output(0))
    ti.set_invariant_input(wt, w.output(0))
    last = ti.get_iter_value(res_h.output(0), -1)
    seq = ti.get_concatenated_slices(res_seq.output(0), 0, 1, 1, -1, 1)
    model = ov.Model([op1.result(last, name="h_last"), op1.result(seq, name="h_seq")], [x, r, h0, w], "ti_rnn")
    _save(model, "ti_rnn", {"x": _f32(2, 5, 3), "r": _f32(2, 5, 4), "h0": _f32(2, 4), "w": _f32(3, 4)})


def ti_parts() -> None:
    x = op1.parameter([6, -1], np.float32, name="x")
    xt = op1.parameter([2, -1], np.float32, name="xt")
    acc0 = op1.parameter([1, -1], np.float32, name="acc0")
    acct = op1.parameter([1, -1], np.float32, name="acct")
    s = op1.reduce_sum(xt, op1.constant(np.array([0], np.int64)), True)
    acc_new = op1.add(acct, s)
    res_acc = op1.result(acc_new)
    res_part = op1.result(op1.multiply(xt, op1.constant(np.float32(2.0))))
    body = ov.Model([res_acc, res_part], [xt, acct], "parts_body")
    ti = op8.tensor_iterator()
    ti.set_body(body)
    ti.set_sliced_input(xt, x.output(0), 0, 2, 2, -1, 0)
    ti.set_merged_input(acct, acc0.output(0), res_acc.output(0))
    total = ti.get_iter_value(res_acc.output(0), -1)
    parts = ti.get_concatenated_slices(res_part.output(0), -1, -2, 2, 0, 0)
    model = ov.Model([op1.result(total, name="total"), op1.result(parts, name="parts")], [x, acc0], "ti_parts")
    _save(model, "ti_parts", {"x": _f32(6, 3), "acc0": _f32(1, 3)})


def loop_counted() -> None:
    x = op1.parameter([3], np.float32, name="x")
    acc0 = op1.parameter([3], np.float32, name="acc0")
    trip = op1.constant(np.int64(6))
    cond = op1.constant(True)
    it = op1.parameter([1], np.int64, name="it")
    xb = op1.parameter([3], np.float32, name="xb")
    accb = op1.parameter([3], np.float32, name="accb")
    itf = op1.convert(it, "f32")
    acc_new = op1.add(accb, op1.multiply(xb, itf))
    go_on = op1.less(it, op1.constant(np.array([3], np.int64)))
    res_cond = op1.result(op1.squeeze(go_on, op1.constant(np.array([0], np.int64))))
    res_acc = op1.result(acc_new)
    res_seq = op1.result(op1.unsqueeze(acc_new, op1.constant(np.array([0], np.int64))))
    body = ov.Model([res_cond, res_acc, res_seq], [it, xb, accb], "loop_body")
    loop = op8.loop(trip, cond)
    loop.set_function(body)
    loop.set_special_body_ports([0, 0])
    loop.set_invariant_input(xb, x.output(0))
    loop.set_merged_input(accb, acc0.output(0), res_acc.output(0))
    last = loop.get_iter_value(res_acc.output(0), -1)
    seq = loop.get_concatenated_slices(res_seq.output(0), 0, 1, 1, -1, 0)
    model = ov.Model([op1.result(last, name="acc"), op1.result(seq, name="steps")], [x, acc0], "loop_counted")
    _save(model, "loop_counted", {"x": _f32(3), "acc0": _f32(3)})


def loop_unbounded() -> None:
    x = op1.parameter([2], np.float32, name="x")
    limit = op1.parameter([], np.float32, name="limit")
    trip = op1.constant(np.int64(-1))
    cond = op1.constant(True)
    xb = op1.parameter([2], np.float32, name="xb")
    lb = op1.parameter([], np.float32, name="lb")
    doubled = op1.multiply(xb, op1.constant(np.float32(2.0)))
    go_on = op1.less(op1.reduce_sum(doubled, op1.constant(np.array([0], np.int64)), False), lb)
    res_cond = op1.result(go_on)
    res_x = op1.result(doubled)
    res_seq = op1.result(op1.unsqueeze(doubled, op1.constant(np.array([0], np.int64))))
    body = ov.Model([res_cond, res_x, res_seq], [xb, lb], "grow_body")
    loop = op8.loop(trip, cond)
    loop.set_function(body)
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(xb, x.output(0), res_x.output(0))
    loop.set_invariant_input(lb, limit.output(0))
    last = loop.get_iter_value(res_x.output(0), -1)
    seq = loop.get_concatenated_slices(res_seq.output(0), 0, 1, 1, -1, 0)
    model = ov.Model([op1.result(last, name="last"), op1.result(seq, name="trace")], [x, limit], "loop_unbounded")
    _save(model, "loop_unbounded", {"x": np.array([0.5, 0.75], np.float32), "limit": np.float32(40.0)})


def if_shapes() -> None:
    x = op1.parameter([2, 3], np.float32, name="x")
    y = op1.parameter([2, 3], np.float32, name="y")
    cond = op1.parameter([1], np.bool_, name="cond")
    tx = op1.parameter([2, 3], np.float32, name="tx")
    then_body = ov.Model([op1.result(op1.add(tx, op1.constant(np.float32(1.0))))], [tx], "then")
    ex = op1.parameter([2, 3], np.float32, name="ex")
    ey = op1.parameter([2, 3], np.float32, name="ey")
    else_body = ov.Model([op1.result(op1.concat([ex, ey], 0))], [ex, ey], "else")
    node = op8.if_op(cond)
    node.set_then_body(then_body)
    node.set_else_body(else_body)
    node.set_input(x.output(0), tx, ex)
    node.set_input(y.output(0), None, ey)
    out = node.set_output(then_body.get_results()[0], else_body.get_results()[0])
    model = ov.Model([op1.result(out, name="out")], [x, y, cond], "if_shapes")
    _save(model, "if_shapes", {"x": _f32(2, 3), "y": _f32(2, 3), "cond": np.array([False])})


def torch_fixtures() -> None:
    import torch

    class Repeat(torch.nn.Module):
        def forward(self, x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
            y = x
            for _ in range(int(n)):
                y = torch.tanh(y * 1.5 + 0.25)
            return y

    class Branch(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if bool(x.sum() > 0):
                return torch.relu(x) * 2.0
            return torch.sigmoid(x) - 1.0

    torch.manual_seed(0)
    x = torch.randn(2, 4)
    n = torch.tensor(3)
    loop = ov.convert_model(torch.jit.script(Repeat()), example_input=(x, n))
    _save(loop, "torch_loop", {"x": x.numpy(), "n": n.numpy()})
    branch = ov.convert_model(torch.jit.script(Branch()), example_input=(x,))
    _save(branch, "torch_if", {"x": x.numpy()})


def onnx_scan() -> None:
    import tempfile

    import onnx
    from onnx import TensorProto, helper

    def value(name: str, shape: list[int]) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)

    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"]), helper.make_node("Tanh", ["s_out"], ["y_t"])],
        "scan_body", [value("s_in", [3]), value("x_t", [3])], [value("s_out", [3]), value("y_t", [3])])
    scan = helper.make_node("Scan", ["init", "xs"], ["final", "ys"], num_scan_inputs=1, body=body)
    graph = helper.make_graph([scan], "scan", [value("init", [3]), value("xs", [4, 3])],
                              [value("final", [3]), value("ys", [4, 3])])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scan.onnx"
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]), str(path))
        model = ov.convert_model(str(path))
    _save(model, "onnx_scan", {"init": _f32(3), "xs": _f32(4, 3)})


def main() -> None:
    ti_rnn()
    ti_parts()
    loop_counted()
    loop_unbounded()
    if_shapes()
    torch_fixtures()
    onnx_scan()


if __name__ == "__main__":
    main()
