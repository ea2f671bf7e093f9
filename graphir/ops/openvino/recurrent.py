"""OpenVINO recurrent ops: ``RNNCell-1``, ``GRUCell-3``, ``LSTMCell-4`` and ``RNNSequence-5``,
``GRUSequence-5``, ``LSTMSequence-5``.

Gate layouts are OpenVINO's: LSTM weights stack ``f, i, c, o``; GRU weights ``z, r, h``. A
sequence runs its cell over time per direction; steps past a batch entry's ``sequence_lengths``
give zeros in ``Y`` and leave its state as it was, and the reverse direction walks each entry's
valid prefix backwards.

bf16 and f16 cells compute as OpenVINO's reference kernels do in those types (``TypeRounding``: every
op of the cell, each matmul product and running sum included, is rounded to the type), which gives
its op_reference tests' bf16 values bit for bit; OpenVINO 2026.4's own reference accumulates matmuls
in f32 and its CPU plugin computes in f32, and both miss those values by more than the tests' 1%.
f32 and f64 compute in their own type.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import NUMERIC, REAL, NodeSignature, Op, Port, TensorType
from graphir.ops.openvino.narrow_float import TypeRounding
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType

def _with_params(x: np.ndarray, fn: Callable[[np.ndarray, float, float], np.ndarray], alpha: float,
                 beta: float) -> np.ndarray:
    return fn(x, alpha, beta)


_ACTIVATIONS: dict[str, Callable[[np.ndarray, float, float], np.ndarray]] = {
    "sigmoid": lambda x, a, b: 1.0 / (1.0 + np.exp(-x)),
    "tanh": lambda x, a, b: np.tanh(x),
    "relu": lambda x, a, b: np.maximum(x, 0),
    "hardsigmoid": lambda x, a, b: np.clip(a * x + b, 0, 1),
    "affine": lambda x, a, b: a * x + b,
    "softsign": lambda x, a, b: x / (1 + np.abs(x)),
    "softplus": lambda x, a, b: np.log1p(np.exp(x)),
    "elu": lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1)),
    "leakyrelu": lambda x, a, b: np.where(x >= 0, x, a * x),
    "thresholdedrelu": lambda x, a, b: np.where(x > a, x, 0),
    "scaledtanh": lambda x, a, b: a * np.tanh(b * x),
}


class _RecurrentAttrs(Op):
    hidden_size: int
    activations: list[str] = []  # concrete ops default to their standard functions
    activations_alpha: list[float] = []
    activations_beta: list[float] = []
    clip: float = 0.0

    default_activations: ClassVar[tuple[str, ...]] = ()
    gates: ClassVar[int] = 1

    def _fns(self) -> list[Callable[[np.ndarray], np.ndarray]]:
        names = self.activations or list(self.default_activations)
        fns: list[Callable[[np.ndarray], np.ndarray]] = []
        for i, name in enumerate(names):
            fn = _ACTIVATIONS.get(name.lower())
            if fn is None:
                raise self.fail(f"unknown activation '{name}' (known: {', '.join(_ACTIVATIONS)})")
            a = self.activations_alpha[i] if i < len(self.activations_alpha) else 0.0
            b = self.activations_beta[i] if i < len(self.activations_beta) else 0.0
            fns.append(partial(_with_params, fn=fn, alpha=a, beta=b))
        return fns

    def _clip(self, x: np.ndarray, rounding: TypeRounding | None = None) -> np.ndarray:
        """Clamp to [-clip, clip], the bound taken in the element type (OpenVINO's ``T(clip)``)."""
        if self.clip <= 0:
            return x
        bound = float(rounding(np.float32(self.clip))) if rounding is not None and rounding.narrow else self.clip
        return np.clip(x, -bound, bound)

    def _check_activations(self) -> None:
        names = self.activations or list(self.default_activations)
        if len(names) != len(self.default_activations):
            raise self.fail(f"activations {names} must name {len(self.default_activations)} functions")
        self._fns()

    # --- one step of the cell; arrays are [batch, ...] -------------------------------------
    def step(self, x: np.ndarray, h: np.ndarray, c: np.ndarray | None, w: np.ndarray, r: np.ndarray,
             b: np.ndarray, q: TypeRounding,
             fns: list[Callable[[np.ndarray], np.ndarray]] | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """One step in the arithmetic of ``q``; ``fns``: the activations (``_fns()``, decoded once by a sequence)."""
        raise NotImplementedError

    def _merge_dim(self, what: str, current: Dimension, new: Dimension, shapes: "_InputShapes") -> Dimension:
        merged = current.merge(new)
        if merged is None:
            raise self.fail(f"{what} mismatch: {current} vs {new} ({shapes})")
        return merged


class _InputShapes:
    """The input shapes as an error message lists them, worded only when one is raised."""

    __slots__ = ("inputs",)

    def __init__(self, inputs: list[TensorType]) -> None:
        self.inputs = inputs

    def __str__(self) -> str:
        return ", ".join(str(t.shape) for t in self.inputs)


class _RNNStep:
    """H = f(X W^T + (H R^T + B))."""

    def step(self, x, h, c, w, r, b, q, fns=None):  # type: ignore[no-untyped-def]
        (f,) = fns or self._fns()  # type: ignore[attr-defined]
        gate = q(q.matmul_t(x, w) + q(q.matmul_t(h, r) + b))
        return q(f(self._clip(gate, q))), None  # type: ignore[attr-defined]


class _GRUStep:
    """GRU with z, r, h gates; ``linear_before_reset`` applies r after the recurrent product
    (and adds a fourth bias block). Shared by GRUCell and GRUSequence."""

    gates: ClassVar[int] = 3
    default_activations: ClassVar[tuple[str, ...]] = ("sigmoid", "tanh")

    def _bias_rows(self) -> int:
        return (4 if self.linear_before_reset else 3) * self.hidden_size  # type: ignore[attr-defined]

    def step(self, x, h, c, w, r, b, q, fns=None):  # type: ignore[no-untyped-def]
        f, g = fns or self._fns()  # type: ignore[attr-defined]
        n = self.hidden_size  # type: ignore[attr-defined]

        def act(fn, v):  # type: ignore[no-untyped-def]
            return q(fn(self._clip(v, q)))  # type: ignore[attr-defined]

        xw, hr = q.matmul_t(x, w), q.matmul_t(h, r)
        z = act(f, q(xw[:, :n] + q(hr[:, :n] + b[:n])))
        rt = act(f, q(xw[:, n:2 * n] + q(hr[:, n:2 * n] + b[n:2 * n])))
        if self.linear_before_reset:  # type: ignore[attr-defined]
            reset = q(q(rt * q(hr[:, 2 * n:] + b[3 * n:4 * n])) + b[2 * n:3 * n])
        else:
            reset = q(q.matmul_t(q(rt * h), r[2 * n:]) + b[2 * n:3 * n])
        ht = act(g, q(xw[:, 2 * n:] + reset))
        return q(q(q(1 - z) * ht) + q(z * h)), None


class _LSTMStep:
    """LSTM with f, i, c, o gates. Shared by LSTMCell and LSTMSequence."""

    gates: ClassVar[int] = 4
    default_activations: ClassVar[tuple[str, ...]] = ("sigmoid", "tanh", "tanh")
    has_cell_state: ClassVar[bool] = True

    def step(self, x, h, c, w, r, b, q, fns=None):  # type: ignore[no-untyped-def]
        f, g, hfn = fns or self._fns()  # type: ignore[attr-defined]
        n = self.hidden_size  # type: ignore[attr-defined]
        gates = q(self._clip(q(q.matmul_t(x, w) + q(q.matmul_t(h, r) + b)), q))  # type: ignore[attr-defined]
        ft, it, ct, ot = (gates[:, k * n:(k + 1) * n] for k in range(4))
        c_new = q(q(q(f(ft)) * c) + q(q(f(it)) * q(g(ct))))
        return q(q(f(ot)) * q(hfn(c_new))), c_new


def _work(*arrays: np.ndarray) -> list[np.ndarray]:
    ct = np.float64 if arrays[0].dtype == np.float64 else np.float32
    return [a.astype(ct) for a in arrays]


def _check_input_size(op: Op, x: PartialShape, w: PartialShape, inputs: list[TensorType]) -> None:
    """X's input_size (its last dim) must equal W's columns for a run (OpenVINO's shape inference
    leaves it unchecked; its CPU plugin and our evaluate need it)."""
    if not (x.rank_is_static and w.rank_is_static and x.dims and w.dims):
        return
    size, cols = x.dims[-1], w.dims[-1]
    if size.is_static and cols.is_static and size.min != cols.min:
        shapes = _InputShapes(inputs)  # worded only in an error
        raise op.fail(f"X's input_size {size.min} does not match W's columns {cols.min} ({shapes})")


# --- cells -------------------------------------------------------------------------------------
class _Cell(_RecurrentAttrs):
    has_cell_state: ClassVar[bool] = False

    def _bias_rows(self) -> int:
        return self.gates * self.hidden_size

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        et = self.merge_types(inputs, tuple(range(len(inputs))))
        self._check_activations()
        k = 3 if self.has_cell_state else 2
        x, h = inputs[0].shape, inputs[1].shape
        w, r = inputs[k].shape, inputs[k + 1].shape
        shapes = _InputShapes(inputs)  # worded only in an error
        batch, hidden = Dimension.dynamic(), Dimension.static(self.hidden_size)
        g = self.gates
        for name, s, rank in (("X", x, 2), ("initial_hidden_state", h, 2), ("W", w, 2), ("R", r, 2)):
            if s.rank_is_static and len(s) != rank:
                raise self.fail(f"input '{name}' must have rank {rank}, got {s} ({shapes})")
        if x.rank_is_static:
            batch = x.dims[0]
        if h.rank_is_static:
            batch = self._merge_dim("batch size", batch, h.dims[0], shapes)
            self._merge_dim("hidden size", hidden, h.dims[1], shapes)
        if self.has_cell_state and inputs[2].shape.rank_is_static:
            batch = self._merge_dim("batch size", batch, inputs[2].shape.dims[0], shapes)
            self._merge_dim("hidden size", hidden, inputs[2].shape.dims[1], shapes)
        if w.rank_is_static:
            self._merge_dim(f"W rows ({g} * hidden_size)", Dimension.static(g * self.hidden_size), w.dims[0], shapes)
            # OpenVINO does not check X's input_size against W's columns (measured); neither do we
        if r.rank_is_static:
            self._merge_dim(f"R rows ({g} * hidden_size)", Dimension.static(g * self.hidden_size), r.dims[0], shapes)
            self._merge_dim("R columns (hidden_size)", hidden, r.dims[1], shapes)
        if len(inputs) > k + 2 and inputs[k + 2].shape.rank_is_static:
            b = inputs[k + 2].shape
            self._merge_dim("B length", Dimension.static(self._bias_rows()), b.dims[0], shapes)
        out = TensorType(et, PartialShape([batch, hidden]))
        return [out, out] if self.has_cell_state else [out]

    def check_run(self, inputs: list[TensorType]) -> None:
        k = 3 if self.has_cell_state else 2
        _check_input_size(self, inputs[0].shape, inputs[k].shape, inputs)

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        dtype = arrays[0].dtype
        k = 3 if self.has_cell_state else 2
        x, h = _work(arrays[0], arrays[1])
        c = _work(arrays[2])[0] if self.has_cell_state else None
        w, r = _work(arrays[k], arrays[k + 1])
        b = _work(arrays[k + 2])[0] if len(arrays) > k + 2 else np.zeros(self._bias_rows(), x.dtype)
        h_new, c_new = self.step(x, h, c, w, r, b, TypeRounding(dtype))
        return [h_new.astype(dtype)] + ([c_new.astype(dtype)] if c_new is not None else [])


class RNNCell(_RNNStep, _Cell):
    type_name: ClassVar[str] = "RNNCell"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("X", REAL), Port("initial_hidden_state", REAL), Port("W", REAL), Port("R", REAL),
        Port("B", REAL, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("Ho"),)
    default_activations: ClassVar[tuple[str, ...]] = ("tanh",)

    activations: list[str] = ["tanh"]


class GRUCell(_GRUStep, _Cell):
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "linear_before_reset", "hidden_size", "activations", "activations_alpha", "activations_beta", "clip"
    )
    type_name: ClassVar[str] = "GRUCell"
    version: ClassVar[str] = "opset3"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("X", REAL), Port("initial_hidden_state", REAL), Port("W", REAL), Port("R", REAL),
        Port("B", REAL, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("Ho"),)

    activations: list[str] = ["sigmoid", "tanh"]
    linear_before_reset: bool = False


class LSTMCell(_LSTMStep, _Cell):
    type_name: ClassVar[str] = "LSTMCell"
    version: ClassVar[str] = "opset4"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("X", REAL), Port("initial_hidden_state", REAL), Port("initial_cell_state", REAL),
        Port("W", REAL), Port("R", REAL), Port("B", REAL, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("Ho"), Port("Co"))

    activations: list[str] = ["sigmoid", "tanh", "tanh"]


# --- sequences ---------------------------------------------------------------------------------
class _Sequence(_RecurrentAttrs):
    #: the order OpenVINO 2026.4 writes them in (measured)
    ir_attribute_order: ClassVar[tuple[str, ...]] = (
        "direction", "linear_before_reset", "hidden_size", "activations", "activations_alpha",
        "activations_beta", "clip"
    )
    direction: Literal["forward", "reverse", "bidirectional"] = "forward"  # OpenVINO reads a missing one as forward
    has_cell_state: ClassVar[bool] = False

    def _bias_rows(self) -> int:
        return self.gates * self.hidden_size

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        k = 3 if self.has_cell_state else 2  # index of sequence_lengths
        et = self.merge_types(inputs, tuple(i for i in range(len(inputs)) if i != k))
        self._check_activations()
        shapes = _InputShapes(inputs)  # worded only in an error
        nd = Dimension.static(2 if self.direction == "bidirectional" else 1)
        hidden = Dimension.static(self.hidden_size)
        batch, seq = Dimension.dynamic(), Dimension.dynamic()
        x = inputs[0].shape
        if x.rank_is_static:
            if len(x) != 3:
                raise self.fail(f"X must be [batch, seq_length, input_size], got {x} ({shapes})")
            batch, seq = x.dims[0], x.dims[1]
        states = [1, 2] if self.has_cell_state else [1]
        for i in states:
            s = inputs[i].shape
            if s.rank_is_static:
                if len(s) != 3:
                    raise self.fail(f"input {i} ('{self.inputs[i].name}') must be [batch, num_directions, "
                                    f"hidden_size], got {s} ({shapes})")
                batch = self._merge_dim("batch size", batch, s.dims[0], shapes)
                self._merge_dim("num_directions", nd, s.dims[1], shapes)
                self._merge_dim("hidden size", hidden, s.dims[2], shapes)
        lengths = inputs[k].shape
        if lengths.rank_is_static:
            if len(lengths) != 1:
                raise self.fail(f"sequence_lengths must be 1-D, got {lengths} ({shapes})")
            batch = self._merge_dim("batch size", batch, lengths.dims[0], shapes)
        g = self.gates
        w, r, b = inputs[k + 1].shape, inputs[k + 2].shape, inputs[k + 3].shape
        for name, s, cols in (("W", w, None), ("R", r, hidden)):
            if s.rank_is_static:
                if len(s) != 3:
                    raise self.fail(f"{name} must have rank 3, got {s} ({shapes})")
                self._merge_dim("num_directions", nd, s.dims[0], shapes)
                self._merge_dim(f"{name} rows ({g} * hidden_size)", Dimension.static(g * self.hidden_size),
                                s.dims[1], shapes)
                if cols is not None:  # X's input_size vs W's columns: unchecked, as in OpenVINO
                    self._merge_dim(f"{name} columns", cols, s.dims[2], shapes)
        if b.rank_is_static:
            if len(b) != 2:
                raise self.fail(f"B must have rank 2, got {b} ({shapes})")
            self._merge_dim("num_directions", nd, b.dims[0], shapes)
            self._merge_dim("B length", Dimension.static(self._bias_rows()), b.dims[1], shapes)
        y = TensorType(et, PartialShape([batch, nd, seq, hidden]))
        state = TensorType(et, PartialShape([batch, nd, hidden]))
        return [y, state, state] if self.has_cell_state else [y, state]

    def check_run(self, inputs: list[TensorType]) -> None:
        k = 3 if self.has_cell_state else 2
        _check_input_size(self, inputs[0].shape, inputs[k + 1].shape, inputs)

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        dtype = arrays[0].dtype
        k = 3 if self.has_cell_state else 2
        x, h0 = _work(arrays[0], arrays[1])
        c0 = _work(arrays[2])[0] if self.has_cell_state else None
        lengths = np.asarray(arrays[k]).astype(np.int64)
        w_all, r_all, b_all = _work(arrays[k + 1], arrays[k + 2], arrays[k + 3])
        batch, seq = x.shape[:2]
        dirs = ["forward", "reverse"] if self.direction == "bidirectional" else [self.direction]
        y = np.zeros((batch, len(dirs), seq, self.hidden_size), dtype=x.dtype)
        h_out = np.zeros((batch, len(dirs), self.hidden_size), dtype=x.dtype)
        c_out = np.zeros_like(h_out)
        lengths = np.clip(lengths, 0, seq)
        fns = self._fns()
        rounding = TypeRounding(dtype)
        whole = bool((lengths == seq).all())  # every sequence runs every step: plain slices
        for d, direction in enumerate(dirs):
            h = h0[:, d].copy()
            c = c0[:, d].copy() if c0 is not None else None
            if whole:
                for t in range(seq):
                    at = t if direction == "forward" else seq - 1 - t
                    h, c = self.step(x[:, at], h, c, w_all[d], r_all[d], b_all[d], rounding, fns)
                    y[:, d, at] = h
                h_out[:, d] = h
                if c is not None:
                    c_out[:, d] = c
                continue
            for t in range(seq):
                active = t < lengths
                if not active.any():
                    break
                if direction == "forward":
                    idx = np.full(batch, t)
                else:
                    idx = np.where(active, lengths - 1 - t, 0)
                xt = x[np.arange(batch), idx]
                h_new, c_new = self.step(xt, h, c, w_all[d], r_all[d], b_all[d], rounding, fns)
                h = np.where(active[:, None], h_new, h)
                if c is not None:
                    c = np.where(active[:, None], c_new, c)
                y[np.arange(batch)[active], d, idx[active]] = h_new[active]
            h_out[:, d] = h
            if c is not None:
                c_out[:, d] = c
        outs = [y.astype(dtype), h_out.astype(dtype)]
        return outs + [c_out.astype(dtype)] if self.has_cell_state else outs


class RNNSequence(_RNNStep, _Sequence):
    type_name: ClassVar[str] = "RNNSequence"
    version: ClassVar[str] = "opset5"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("X", REAL), Port("initial_hidden_state", REAL), Port("sequence_lengths", NUMERIC),
        Port("W", REAL), Port("R", REAL), Port("B", REAL),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("Y"), Port("Ho"))
    default_activations: ClassVar[tuple[str, ...]] = ("tanh",)

    activations: list[str] = ["tanh"]


class GRUSequence(_GRUStep, _Sequence):
    type_name: ClassVar[str] = "GRUSequence"
    version: ClassVar[str] = "opset5"
    inputs: ClassVar[tuple[Port, ...]] = RNNSequence.inputs
    outputs: ClassVar[tuple[Port, ...]] = (Port("Y"), Port("Ho"))

    activations: list[str] = ["sigmoid", "tanh"]
    linear_before_reset: bool = False


class LSTMSequence(_LSTMStep, _Sequence):
    type_name: ClassVar[str] = "LSTMSequence"
    version: ClassVar[str] = "opset5"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("X", REAL), Port("initial_hidden_state", REAL), Port("initial_cell_state", REAL),
        Port("sequence_lengths", NUMERIC), Port("W", REAL), Port("R", REAL), Port("B", REAL),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("Y"), Port("Ho"), Port("Co"))

    activations: list[str] = ["sigmoid", "tanh", "tanh"]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """f32 with the standard activations and no clip: :func:`_lstm_f32`, the generic step's
        ufuncs on the same operands with the Python layers (rounding hooks, activation wrappers)
        taken out and the three sigmoid gates in one call (elementwise: the same bits); a run
        whose sequence lengths are not all full takes ``evaluate``."""
        names = [a.lower() for a in (self.activations or self.default_activations)]
        if (node.inputs[0].element_type != ElementType.f32 or names != ["sigmoid", "tanh", "tanh"]
                or self.clip > 0):
            return self.evaluate
        generic = self.evaluate
        dirs = ["forward", "reverse"] if self.direction == "bidirectional" else [self.direction]
        n = self.hidden_size

        def run(x: np.ndarray, h0: np.ndarray, c0: np.ndarray, lengths: np.ndarray, w: np.ndarray,
                r: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
            arrays = (x, h0, c0, lengths, w, r, b)
            if any(np.asarray(a).dtype != np.float32 for a in (x, h0, c0, w, r, b)):
                return generic(*arrays)
            seq = x.shape[1]
            if not bool((np.clip(np.asarray(lengths).astype(np.int64), 0, seq) == seq).all()):
                return generic(*arrays)
            x, h0, c0, w, r, b = (np.ascontiguousarray(a) for a in (x, h0, c0, w, r, b))
            return _lstm_f32(x, h0, c0, w, r, b, dirs, n)

        return run


def _lstm_f32_plain(x: np.ndarray, h0: np.ndarray, c0: np.ndarray, w_all: np.ndarray, r_all: np.ndarray,
              b_all: np.ndarray, dirs: Sequence[str], n: int) -> list[np.ndarray]:
    """LSTMSequence in f32, every sequence full length: what ``_Sequence.evaluate`` computes with
    ``_LSTMStep.step`` (``x W^T + (h R^T + B)``, ``1 / (1 + exp(-g))``, ``tanh``), bit for bit
    (NaNs included: :func:`_lstm_f32` falls back to it when a NaN arises)."""
    batch, seq = x.shape[:2]
    y = np.zeros((batch, len(dirs), seq, n), dtype=np.float32)
    h_out = np.zeros((batch, len(dirs), n), dtype=np.float32)
    c_out = np.zeros_like(h_out)
    one = np.float32(1.0)
    for d, direction in enumerate(dirs):
        h, c = h0[:, d].copy(), c0[:, d].copy()
        w_t, r_t, b = w_all[d].T, r_all[d].T, b_all[d]
        for t in range(seq):
            at = t if direction == "forward" else seq - 1 - t
            gates = x[:, at] @ w_t + (h @ r_t + b)
            gate = np.negative(gates)
            np.exp(gate, out=gate)
            np.add(one, gate, out=gate)
            np.divide(one, gate, out=gate)  # sigmoid of all four blocks; the cell block is unused
            c = gate[:, :n] * c + gate[:, n:2 * n] * np.tanh(gates[:, 2 * n:3 * n])
            h = gate[:, 3 * n:] * np.tanh(c)
            y[:, d, at] = h
        h_out[:, d] = h
        c_out[:, d] = c
    return [y, h_out, c_out]


def _lstm_f32(x: np.ndarray, h0: np.ndarray, c0: np.ndarray, w_all: np.ndarray, r_all: np.ndarray,
              b_all: np.ndarray, dirs: Sequence[str], n: int) -> list[np.ndarray]:
    """LSTMSequence in f32, every sequence full length: what ``_Sequence.evaluate`` computes with
    ``_LSTMStep.step`` (``x W^T + (h R^T + B)``, ``1 / (1 + exp(-g))``, ``tanh``), bit for bit.

    The rows of W, R and B of the three sigmoid gates (f, i, o) are negated once, so the step's
    product gives ``-g`` for them directly (negation is exact and rounding symmetric: the same
    magnitudes; a zero may change sign, which ``exp`` maps to 1 alike) and ``exp`` runs on it
    without a ``negative`` pass; the cell block keeps its sign for ``tanh``. Results go into their
    buffers (``out=``): the same ufuncs on the same operands. A NaN's sign would follow the other
    path (numpy keeps one NaN operand's sign): a run whose outputs hold a NaN (any NaN spreads to
    them) is computed again by :func:`_lstm_f32_plain`."""
    batch, seq = x.shape[:2]
    y = np.zeros((batch, len(dirs), seq, n), dtype=np.float32)
    h_out = np.zeros((batch, len(dirs), n), dtype=np.float32)
    c_out = np.zeros_like(h_out)
    one = np.float32(1.0)
    sign = np.ones(4 * n, np.float32)
    sign[:2 * n] = -1.0
    sign[3 * n:] = -1.0
    exp, add, divide, multiply, tanh = np.exp, np.add, np.divide, np.multiply, np.tanh
    for d, direction in enumerate(dirs):
        h, c = h0[:, d].copy(), c0[:, d].copy()
        w_t = (w_all[d] * sign[:, None]).T
        r_t = (r_all[d] * sign[:, None]).T
        b = b_all[d] * sign
        for t in range(seq):
            at = t if direction == "forward" else seq - 1 - t
            gates = h @ r_t
            add(gates, b, out=gates)
            add(x[:, at] @ w_t, gates, out=gates)  # -f, -i, g, -o
            cell = tanh(gates[:, 2 * n:3 * n])
            gate = exp(gates, out=gates)
            add(one, gate, out=gate)
            divide(one, gate, out=gate)  # sigmoid of f, i, o (the cell block's values are unused)
            multiply(gate[:, :n], c, out=c)
            multiply(gate[:, n:2 * n], cell, out=cell)
            add(c, cell, out=c)
            h = y[:, d, at]
            multiply(gate[:, 3 * n:], tanh(c), out=h)
        h_out[:, d] = h
        c_out[:, d] = c
    if np.isnan(y).any() or np.isnan(c_out).any():
        return _lstm_f32_plain(x, h0, c0, w_all, r_all, b_all, dirs, n)
    return [y, h_out, c_out]


class LSTMCell1(_Cell):
    """LSTMCell-1: LSTMCell-4 plus optional peepholes ``P [3*hidden]`` (order i, f, o),
    ``input_forget`` (forget gate = 1 - input gate) and a ``weights_format`` naming the gate
    order of W, R and B (``fico`` as OpenVINO writes it)."""

    type_name: ClassVar[str] = "LSTMCell"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (
        Port("X", REAL), Port("initial_hidden_state", REAL), Port("initial_cell_state", REAL),
        Port("W", REAL), Port("R", REAL), Port("B", REAL, optional=True), Port("P", REAL, optional=True),
    )
    outputs: ClassVar[tuple[Port, ...]] = (Port("Ho"), Port("Co"))
    default_activations: ClassVar[tuple[str, ...]] = ("sigmoid", "tanh", "tanh")

    activations: list[str] = ["sigmoid", "tanh", "tanh"]
    gates: ClassVar[int] = 4
    has_cell_state: ClassVar[bool] = True

    input_forget: bool = False
    weights_format: Literal["fico", "icof", "ifco", "ifoc", "iofc"] = "fico"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        if len(inputs) > 6 and inputs[6].shape.rank_is_static:
            p = inputs[6].shape
            if len(p) != 1 or p.dims[0].merge(Dimension.static(3 * self.hidden_size)) is None:
                raise self.fail(f"P (peepholes) must be [{3 * self.hidden_size}], got {p}")
        return super().infer(inputs[:6])

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        dtype = arrays[0].dtype
        x, h, c, w, r = _work(*arrays[:5])
        n = self.hidden_size
        b = _work(arrays[5])[0] if len(arrays) > 5 else np.zeros(4 * n, x.dtype)
        p = _work(arrays[6])[0] if len(arrays) > 6 else np.zeros(3 * n, x.dtype)
        f, g, hfn = self._fns()
        gates = x @ w.T + h @ r.T + b
        block = {name: gates[:, k * n:(k + 1) * n] for k, name in enumerate(self.weights_format)}
        pi, pf, po = p[:n], p[n:2 * n], p[2 * n:]
        it = f(self._clip(block["i"] + pi * c))
        ft = 1 - it if self.input_forget else f(self._clip(block["f"] + pf * c))
        c_new = ft * c + it * g(self._clip(block["c"]))
        ot = f(self._clip(block["o"] + po * c_new))
        return [(ot * hfn(c_new)).astype(dtype), c_new.astype(dtype)]
