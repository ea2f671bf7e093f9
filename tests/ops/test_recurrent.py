"""Recurrent cells and sequences against the real OpenVINO runtime."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from graphir import opset
from graphir.errors import InferenceError
from tests.ops.test_nn_oracle import diff, rand

HIDDEN, INPUT, BATCH, SEQ = 4, 3, 3, 5


def _weights(gates: int, dirs: int | None, bias_gates: int | None = None, seed: int = 10) -> tuple:
    lead = [] if dirs is None else [dirs]
    w = rand(lead + [gates * HIDDEN, INPUT], seed=seed, low=-0.8, high=0.8)
    r = rand(lead + [gates * HIDDEN, HIDDEN], seed=seed + 1, low=-0.8, high=0.8)
    b = rand(lead + [(bias_gates or gates) * HIDDEN], seed=seed + 2, low=-0.5, high=0.5)
    return w, r, b


@pytest.mark.parametrize("clip", [0.0, 0.5])
def test_lstm_cell_matches_openvino(ov, clip: float) -> None:
    from openvino import opset4

    w, r, b = _weights(4, None)
    diff(ov, lambda x, h, c: opset.lstm_cell(x, h, c, w, r, b, hidden_size=HIDDEN, clip=clip),
         lambda x, h, c: opset4.lstm_cell(x, h, c, w, r, b, HIDDEN, clip=clip),
         [(f"[{BATCH},{INPUT}]", "f32"), (f"[{BATCH},{HIDDEN}]", "f32"), (f"[{BATCH},{HIDDEN}]", "f32")],
         [rand([BATCH, INPUT]), rand([BATCH, HIDDEN], seed=1), rand([BATCH, HIDDEN], seed=2)])


@pytest.mark.parametrize("lbr,activations", [(False, None), (True, None), (False, ["relu", "tanh"])])
def test_gru_cell_matches_openvino(ov, lbr: bool, activations) -> None:
    from openvino import opset3

    w, r, b = _weights(3, None, 4 if lbr else 3)
    extra = {"activations": activations} if activations else {}
    diff(ov, lambda x, h: opset.gru_cell(x, h, w, r, b, hidden_size=HIDDEN, linear_before_reset=lbr, **extra),
         lambda x, h: opset3.gru_cell(x, h, w, r, b, HIDDEN, linear_before_reset=lbr, **extra),
         [(f"[{BATCH},{INPUT}]", "f32"), (f"[{BATCH},{HIDDEN}]", "f32")],
         [rand([BATCH, INPUT]), rand([BATCH, HIDDEN], seed=1)])


@pytest.mark.parametrize("activation", ["tanh", "relu", "sigmoid"])
def test_rnn_cell_matches_openvino(ov, activation: str) -> None:
    from openvino import opset3

    w, r, b = _weights(1, None)
    diff(ov, lambda x, h: opset.rnn_cell(x, h, w, r, b, hidden_size=HIDDEN, activations=[activation],
                                                activations_alpha=[], activations_beta=[]),
         lambda x, h: opset3.rnn_cell(x, h, w, r, b, HIDDEN, [activation], [], []),
         [(f"[{BATCH},{INPUT}]", "f32"), (f"[{BATCH},{HIDDEN}]", "f32")],
         [rand([BATCH, INPUT]), rand([BATCH, HIDDEN], seed=1)])


SEQ_GRID = list(itertools.product(["forward", "reverse", "bidirectional"], ["full", "ragged"]))


def _lengths(kind: str) -> np.ndarray:
    return np.array([SEQ] * BATCH if kind == "full" else [SEQ, 2, 4][:BATCH], dtype=np.int32)


@pytest.mark.parametrize("direction,kind", SEQ_GRID)
def test_lstm_sequence_matches_openvino(ov, direction: str, kind: str) -> None:
    from openvino import opset5

    nd = 2 if direction == "bidirectional" else 1
    w, r, b = _weights(4, nd)
    lengths = _lengths(kind)
    state = f"[{BATCH},{nd},{HIDDEN}]"
    diff(ov, lambda x, h, c: opset.lstm_sequence(x, h, c, lengths, w, r, b, hidden_size=HIDDEN, direction=direction),
         lambda x, h, c: opset5.lstm_sequence(x, h, c, lengths, w, r, b, HIDDEN, direction),
         [(f"[{BATCH},{SEQ},{INPUT}]", "f32"), (state, "f32"), (state, "f32")],
         [rand([BATCH, SEQ, INPUT]), rand([BATCH, nd, HIDDEN], seed=1), rand([BATCH, nd, HIDDEN], seed=2)])


@pytest.mark.parametrize("direction,kind", SEQ_GRID)
@pytest.mark.parametrize("lbr", [False, True])
def test_gru_sequence_matches_openvino(ov, direction: str, kind: str, lbr: bool) -> None:
    from openvino import opset5

    nd = 2 if direction == "bidirectional" else 1
    w, r, b = _weights(3, nd, 4 if lbr else 3)
    lengths = _lengths(kind)
    diff(ov, lambda x, h: opset.gru_sequence(x, h, lengths, w, r, b, hidden_size=HIDDEN, direction=direction,
                                             linear_before_reset=lbr),
         lambda x, h: opset5.gru_sequence(x, h, lengths, w, r, b, HIDDEN, direction, linear_before_reset=lbr),
         [(f"[{BATCH},{SEQ},{INPUT}]", "f32"), (f"[{BATCH},{nd},{HIDDEN}]", "f32")],
         [rand([BATCH, SEQ, INPUT]), rand([BATCH, nd, HIDDEN], seed=1)])


@pytest.mark.parametrize("direction,kind", SEQ_GRID)
def test_rnn_sequence_matches_openvino(ov, direction: str, kind: str) -> None:
    from openvino import opset5

    nd = 2 if direction == "bidirectional" else 1
    w, r, b = _weights(1, nd)
    lengths = _lengths(kind)
    diff(ov, lambda x, h: opset.rnn_sequence(x, h, lengths, w, r, b, hidden_size=HIDDEN, direction=direction),
         lambda x, h: opset5.rnn_sequence(x, h, lengths, w, r, b, HIDDEN, direction),
         [(f"[{BATCH},{SEQ},{INPUT}]", "f32"), (f"[{BATCH},{nd},{HIDDEN}]", "f32")],
         [rand([BATCH, SEQ, INPUT]), rand([BATCH, nd, HIDDEN], seed=1)])


def test_sequence_dynamic_shapes_match_openvino(ov) -> None:
    from openvino import opset5

    w, r, b = _weights(4, 2)
    diff(ov, lambda x, h, c, s: opset.lstm_sequence(x, h, c, s, w, r, b, hidden_size=HIDDEN, direction="bidirectional"),
         lambda x, h, c, s: opset5.lstm_sequence(x, h, c, s, w, r, b, HIDDEN, "bidirectional"),
         [("[?,?,3]", "f32"), ("[?,2,4]", "f32"), ("[...]", "f32"), ("[?]", "i32")])


def test_sequence_hidden_size_mismatch_is_an_error() -> None:
    w, r, b = _weights(3, 1)
    with pytest.raises(InferenceError, match=r"hidden size mismatch: 4 vs 5"):
        opset.gru_sequence(opset.parameter("[2,5,3]"), opset.parameter("[2,1,5]"), np.array([5, 5]), w, r, b,
                           hidden_size=HIDDEN, direction="forward")


def test_lstm_cell_1_matches_openvino(ov) -> None:
    from openvino import opset1

    w, r, b = _weights(4, None)
    diff(ov, lambda x, h, c: opset.make("LSTMCell", x, h, c, w, r, b, version="opset1", hidden_size=HIDDEN),
         lambda x, h, c: opset1.lstm_cell(x, h, c, w, r, b, HIDDEN),
         [(f"[{BATCH},{INPUT}]", "f32"), (f"[{BATCH},{HIDDEN}]", "f32"), (f"[{BATCH},{HIDDEN}]", "f32")],
         [rand([BATCH, INPUT]), rand([BATCH, HIDDEN], seed=1), rand([BATCH, HIDDEN], seed=2)])


@pytest.mark.parametrize("peepholes,input_forget,weights_format", [
    (True, False, "fico"), (False, True, "fico"), (False, False, "ifco"), (True, True, "iofc"),
])
def test_lstm_cell_1_peepholes_input_forget_and_weights_format_follow_the_spec(
        peepholes: bool, input_forget: bool, weights_format: str) -> None:
    """Spec formulas, written out here. (OpenVINO 2026.4's CPU plugin ignores P, input_forget and
    weights_format: measured, it gives the plain fico LSTMCell-4 result for all of them.)"""
    from graphir.model import Model

    w, r, b = _weights(4, None)
    p = rand([3 * HIDDEN], seed=20) if peepholes else np.zeros(3 * HIDDEN, np.float32)
    x0, h0, c0 = rand([BATCH, INPUT]), rand([BATCH, HIDDEN], seed=1), rand([BATCH, HIDDEN], seed=2)
    params = [opset.parameter(f"[{BATCH},{n}]") for n in (INPUT, HIDDEN, HIDDEN)]
    outs = opset.make("LSTMCell", *params, w, r, b, p, version="opset1", hidden_size=HIDDEN,
                      input_forget=input_forget, weights_format=weights_format)
    got = list(Model(outs, params).run([x0, h0, c0]).values())

    def sigmoid(v: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-v))

    n = HIDDEN
    gates = x0 @ w.T + h0 @ r.T + b
    block = {name: gates[:, k * n:(k + 1) * n] for k, name in enumerate(weights_format)}
    i = sigmoid(block["i"] + p[:n] * c0)
    f = 1 - i if input_forget else sigmoid(block["f"] + p[n:2 * n] * c0)
    c = f * c0 + i * np.tanh(block["c"])
    o = sigmoid(block["o"] + p[2 * n:] * c)
    np.testing.assert_allclose(got[0], o * np.tanh(c), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], c, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype,big,want", [("bf16", 256.0, 256.0), ("f16", 2048.0, 2048.0), ("f32", 256.0, 258.0)])
def test_narrow_cells_round_every_product_and_running_sum_to_their_type(dtype: str, big: float, want: float) -> None:
    """bf16/f16 cells compute in their type as OpenVINO's reference kernels do (the values its
    op_reference bf16 RNN/GRU/LSTM sequence tests hard-code): x . w = big*1 + 1*1 + 1*1 accumulates
    term by term, and big + 1 rounds back to big in bf16 (256) and f16 (2048), so the sum stays big;
    f32 sums exactly. (OpenVINO 2026.4's CPU plugin computes in f32: 258 in bf16 too.)"""
    import ml_dtypes

    from graphir.model import Model

    np_type = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32}[dtype]
    w_, r_, b_ = np.array([[big, 1, 1]], dtype=np_type), np.zeros((1, 1), np_type), np.zeros(1, np_type)
    w, r, b = opset.constant(w_), opset.constant(r_), opset.constant(b_)
    x, h = opset.parameter("[1,3]", dtype), opset.parameter("[1,1]", dtype)
    cell = opset.rnn_cell(x, h, w, r, b, hidden_size=1, activations=["relu"], activations_alpha=[],
                          activations_beta=[])
    (got,) = Model([cell], [x, h]).run([np.ones((1, 3), np_type), np.zeros((1, 1), np_type)]).values()
    assert got.dtype == np_type and float(got[0, 0]) == want

    seq_w, seq_r, seq_b = (opset.constant(a[None]) for a in (w_, r_, b_))
    xs, hs = opset.parameter("[1,2,3]", dtype), opset.parameter("[1,1,1]", dtype)
    lengths = opset.constant(np.array([2], dtype=np.int32))
    y, _ = opset.rnn_sequence(xs, hs, lengths, seq_w, seq_r, seq_b, hidden_size=1, direction="forward",
                              activations=["relu"]).outputs()
    (got_y,) = Model([y], [xs, hs]).run([np.ones((1, 2, 3), np_type), np.zeros((1, 1, 1), np_type)]).values()
    assert got_y.reshape(-1).astype(np.float32).tolist() == [want, want]
