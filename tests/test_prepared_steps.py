"""Prepared evaluates added for the small nets of issue 17 give the generic evaluate's bits.

Each case builds a small model, runs it through the specialized plan (``Op.prepare``) and through
every op's generic ``evaluate`` (``specialize=False``) on the same random inputs, asserts the same
bytes, and asserts that the prepared path was really taken (the step's evaluate is not the
generic one), so a silent fall-back cannot pass for the fast path."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from graphir import opset
from graphir.errors import GraphirError
from graphir.interpreter import get_plan, _run_unspecialized, specialization
from graphir.model import Model


def assert_same_bits(model: Model, values: list[np.ndarray]) -> dict[str, np.ndarray]:
    got, want = _run_unspecialized(model, values), model.run(values)
    assert list(got) == list(want)
    for key in want:
        assert (got[key].dtype, got[key].shape) == (want[key].dtype, want[key].shape), key
        assert got[key].tobytes() == want[key].tobytes(), f"output {key!r} differs from the generic evaluate"
    return got


def step_names(model: Model, values: list[np.ndarray]) -> dict[str, set[str]]:
    """Op type -> the names of the functions its steps run."""
    spec = specialization(model, get_plan(model), values)
    out: dict[str, set[str]] = {}
    for step in spec.steps:
        out.setdefault(step[-1].op.type_name, set()).add(getattr(step[0], "__name__", ""))
    return out


def prepared_types(model: Model, values: list[np.ndarray]) -> dict[str, bool]:
    """Op type -> whether every step of that type runs a prepared evaluate (not ``evaluate``)."""
    return {k: not names & {"evaluate", "evaluate_state"} for k, names in step_names(model, values).items()}


def _lstm(rng: np.random.Generator, batch: int, seq: int, direction: str, lengths: list[int] | None = None,
          clip: float = 0.0, n: int = 24, size: int = 12) -> tuple[Model, list[np.ndarray]]:
    dirs = 2 if direction == "bidirectional" else 1
    x = opset.parameter([batch, seq, size], "f32", name="x")
    h0 = opset.parameter([batch, dirs, n], "f32", name="h0")
    c0 = opset.parameter([batch, dirs, n], "f32", name="c0")
    w = (rng.standard_normal((dirs, 4 * n, size)) * 0.4).astype(np.float32)
    r = (rng.standard_normal((dirs, 4 * n, n)) * 0.4).astype(np.float32)
    b = rng.standard_normal((dirs, 4 * n)).astype(np.float32)
    lens = opset.constant(np.array(lengths if lengths is not None else [seq] * batch, np.int32))
    out = opset.lstm_sequence(x, h0, c0, lens, opset.constant(w), opset.constant(r), opset.constant(b),
                              hidden_size=n, direction=direction, clip=clip)
    model = Model(out.outputs(), [x.node, h0.node, c0.node])
    values = [(rng.standard_normal((batch, seq, size)) * 2).astype(np.float32),
              rng.standard_normal((batch, dirs, n)).astype(np.float32),
              rng.standard_normal((batch, dirs, n)).astype(np.float32)]
    return model, values


@pytest.mark.parametrize("batch,seq,direction", [(1, 20, "forward"), (3, 7, "forward"), (2, 5, "reverse"),
                                                 (3, 9, "bidirectional")])
def test_lstm_sequence_f32_prepared_gives_the_generic_bits(batch: int, seq: int, direction: str) -> None:
    model, values = _lstm(np.random.default_rng(batch * seq), batch, seq, direction)
    assert prepared_types(model, values)["LSTMSequence"]
    got = assert_same_bits(model, values)
    y = next(iter(got.values()))
    assert y.shape == (batch, 2 if direction == "bidirectional" else 1, seq, 24)
    assert np.isfinite(y).all() and np.abs(y).max() > 0.1  # the cell ran, not a zero output


@pytest.mark.parametrize("case", ["short-lengths", "clip"])
def test_lstm_sequence_cases_outside_the_fast_path_keep_the_generic_bits(case: str) -> None:
    """Sequences shorter than the input (masked steps) and clipped gates take the generic step."""
    rng = np.random.default_rng(11)
    if case == "short-lengths":
        model, values = _lstm(rng, 3, 6, "bidirectional", lengths=[6, 2, 0])
    else:
        model, values = _lstm(rng, 2, 6, "forward", clip=0.5)
        assert not prepared_types(model, values)["LSTMSequence"]
    assert_same_bits(model, values)


def test_lstm_sequence_f32_prepared_with_a_lengths_input_per_call() -> None:
    """Lengths given at run time: full ones take the fast path, short ones the generic one; both exact."""
    rng = np.random.default_rng(12)
    n, size, batch, seq = 16, 8, 2, 5
    x = opset.parameter([batch, seq, size], "f32", name="x")
    h0 = opset.parameter([batch, 1, n], "f32", name="h0")
    c0 = opset.parameter([batch, 1, n], "f32", name="c0")
    lens = opset.parameter([batch], "i32", name="lens")
    w, r, b = ((rng.standard_normal(s) * 0.4).astype(np.float32) for s in ((1, 4 * n, size), (1, 4 * n, n), (1, 4 * n)))
    out = opset.lstm_sequence(x, h0, c0, lens, opset.constant(w), opset.constant(r), opset.constant(b), hidden_size=n,
                              direction="forward")
    model = Model(out.outputs(), [x.node, h0.node, c0.node, lens.node])
    base: list[Any] = [rng.standard_normal((batch, seq, size)).astype(np.float32),
                       rng.standard_normal((batch, 1, n)).astype(np.float32),
                       rng.standard_normal((batch, 1, n)).astype(np.float32)]
    full = assert_same_bits(model, base + [np.array([seq, seq], np.int32)])
    short = assert_same_bits(model, base + [np.array([seq, 3], np.int32)])
    first = next(iter(full))
    assert full[first][0].tobytes() == short[first][0].tobytes()  # entry 0 ran full length both times
    assert not np.array_equal(full[first][1], short[first][1])


@pytest.mark.parametrize("shape,axes,keep", [((1, 16, 56, 56), [2, 3], True), ((1, 96, 7, 7), [-1, -2], True),
                                             ((2, 17, 64), [2], True), ((2, 17, 64), [-1], False),
                                             ((3, 5, 7, 11), [0, 2], False), ((4, 33, 5), [1, 0], True)])
def test_reduce_mean_f32_prepared_gives_the_generic_bits(shape: tuple[int, ...], axes: list[int], keep: bool) -> None:
    rng = np.random.default_rng(len(shape) * 7 + len(axes))
    x = opset.parameter(list(shape), "f32", name="x")
    model = Model([opset.reduce_mean(x, opset.constant(np.array(axes, np.int64)), keep_dims=keep)], [x.node])
    values = [(rng.standard_normal(shape) * rng.uniform(1, 1e4, shape)).astype(np.float32)]
    assert step_names(model, values)["ReduceMean"] == {"mean"}
    got = assert_same_bits(model, values)
    out = next(iter(got.values()))
    want = np.mean(values[0], axis=tuple(axes), keepdims=keep)
    assert out.dtype == np.float32 and out.tobytes() == want.tobytes()


def test_reduce_mean_over_every_axis_and_f16_keep_the_generic_path() -> None:
    rng = np.random.default_rng(3)
    for dtype, axes in (("f32", [0, 1]), ("f16", [1])):
        x = opset.parameter([3, 10], dtype, name="x")
        model = Model([opset.reduce_mean(x, opset.constant(np.array(axes, np.int64)))], [x.node])
        values = [rng.standard_normal((3, 10)).astype(np.float32 if dtype == "f32" else np.float16)]
        assert "mean" not in step_names(model, values)["ReduceMean"]
        assert_same_bits(model, values)


BIG = np.iinfo(np.int64).max
SLICES = [  # start, stop, step, axes (None: the leading axes)
    ([0], [8], [1], [2]),
    ([1, -BIG], [BIG, 5], [2, 1], [-1, 1]),
    ([-1], [-BIG], [-1], [0]),
    ([5, 0, 3], [1, 4, BIG], [-2, 3, 1], None),
    ([2], [2], [1], [1]),  # empty
]


@pytest.mark.parametrize("start,stop,step,axes", SLICES)
def test_slice_prepared_gives_the_generic_bits(start: list[int], stop: list[int], step: list[int],
                                               axes: list[int] | None) -> None:
    rng = np.random.default_rng(len(start))
    x = opset.parameter([6, 7, 16], "f32", name="x")
    args = [opset.constant(np.array(v, np.int64)) for v in (start, stop, step)]
    if axes is not None:
        args.append(opset.constant(np.array(axes, np.int64)))
    y = opset.slice(x, *args)
    model = Model([opset.add(y, opset.constant(np.float32(1)))], [x.node])  # writes into the Slice's copy
    values = [rng.standard_normal((6, 7, 16)).astype(np.float32)]
    before = values[0].copy()
    if y.tensor_type.shape.to_shape().count(0):  # an empty output is not computed at all (graphir.specialize)
        assert prepared_types(model, values) == {}
    else:
        assert prepared_types(model, values)["Slice"]
    (got,) = assert_same_bits(model, values).values()
    index = [slice(None)] * 3
    for i, a in enumerate(axes if axes is not None else range(len(start))):
        index[a] = slice(start[i], stop[i], step[i])
    assert got.tobytes() == (before[tuple(index)] + np.float32(1)).tobytes()
    assert values[0].tobytes() == before.tobytes()  # the input itself is never written


def test_slice_with_a_run_time_stop_keeps_the_generic_path() -> None:
    x = opset.parameter([4, 5], "f32", name="x")
    stop = opset.parameter([1], "i64", name="stop")
    model = Model([opset.slice(x, opset.constant(np.array([1])), stop, opset.constant(np.array([1])))],
                  [x.node, stop.node])
    values = [np.arange(20, dtype=np.float32).reshape(4, 5), np.array([3])]
    assert not prepared_types(model, values)["Slice"]
    assert next(iter(assert_same_bits(model, values).values())).tobytes() == values[0][1:3].tobytes()


def _kv_like(pattern: list[int], dtype: str = "f32") -> tuple[Model, Any]:
    """Dims known only at run time (a Slice to a stop given per call, as a KV cache's length):
    Unsqueeze -> Broadcast (bidirectional, target per call) -> Reshape -> Gather (indices per call)."""
    x = opset.parameter([6, 4, 8], dtype, name="x")
    stop = opset.parameter([1], "i64", name="stop")
    target = opset.parameter([4], "i64", name="target")
    index = opset.parameter([-1], "i32", name="index")
    part = opset.slice(x, opset.constant(np.array([0])), stop, opset.constant(np.array([1])), opset.constant(np.array([0])))
    grown = opset.unsqueeze(part, opset.constant(np.array([-3])))
    spread = opset.broadcast(grown, target, broadcast_spec="bidirectional")
    flat = opset.reshape(spread, opset.constant(np.array(pattern)), special_zero=True)
    picked = opset.gather(flat, index, opset.constant(np.array(0)))
    return Model([picked, spread], [x.node, stop.node, target.node, index.node]), dtype


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_shape_steps_with_dims_known_only_per_call_give_the_generic_bits(dtype: str) -> None:
    model, _ = _kv_like([0, -1, 8], dtype)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 4, 8)).astype(np.float32 if dtype == "f32" else np.float16)
    x.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
    for stop, target, index in (([5], [1, 3, 1, 1], [4, 0, 2]), ([2], [1, 1, 4, 8], [1, 1]), ([6], [6, 2, 1, 8], [])):
        values = [x, np.array(stop), np.array(target), np.array(index, np.int32)]
        names = step_names(model, values)
        assert (names["Unsqueeze"], names["Broadcast"], names["Reshape"], names["Gather"]) == (
            {"unsqueeze"}, {"broadcast"}, {"reshape"}, {"gather"})
        picked, spread = assert_same_bits(model, values).values()
        want = np.broadcast_to(x[:stop[0], None], np.broadcast_shapes((stop[0], 1, 4, 8), tuple(target)))
        assert spread.tobytes() == want.tobytes()
        assert picked.tobytes() == want.reshape(want.shape[0], -1, 8)[index].tobytes()


def test_shape_steps_outside_their_fast_path_report_as_evaluate_does() -> None:
    """A pattern the data cannot take, an index out of range: the prepared steps hand over to
    ``evaluate``, so the error is the generic path's."""
    from graphir.errors import GraphirError

    model, _ = _kv_like([0, 5, -1])
    x = np.zeros((6, 4, 8), np.float32)
    bad_reshape = [x, np.array([3]), np.array([1, 1, 4, 8]), np.array([0], np.int32)]  # 3*32 into [3, 5, -1]
    bad_index = [x, np.array([3]), np.array([1, 1, 4, 8]), np.array([7], np.int32)]
    for values in (bad_reshape, bad_index):
        messages = []
        for specialize in (True, False):
            with pytest.raises(GraphirError) as caught:
                model.run(values) if specialize else _run_unspecialized(model, values)
            messages.append(str(caught.value))
        assert messages[0] == messages[1]


@pytest.mark.parametrize("mask_kind", ["none", "bool", "float", "causal", "scale"])
def test_attention_f32_prepared_gives_the_generic_bits(mask_kind: str) -> None:
    """Query/key/value as transposed views (as a model's Transpose steps give them)."""
    rng = np.random.default_rng(len(mask_kind))
    q, k, v = (opset.parameter([1, 9, 3, 16], "f32", name=n) for n in "qkv")
    order = opset.constant(np.array([0, 2, 1, 3]))
    args: list[Any] = [opset.transpose(t, order) for t in (q, k, v)]
    params = [q.node, k.node, v.node]
    values = [rng.standard_normal((1, 9, 3, 16)).astype(np.float32) * 3 for _ in range(3)]
    causal = mask_kind == "causal"
    if mask_kind in ("bool", "float", "scale"):
        m = opset.parameter([1, 1, 9, 9], "boolean" if mask_kind == "bool" else "f32", name="mask")
        params.append(m.node)
        args.append(m)
        values.append(rng.random((1, 1, 9, 9)) > 0.3 if mask_kind == "bool" else rng.standard_normal((1, 1, 9, 9)).astype(np.float32))
        if mask_kind == "scale":
            args.append(opset.constant(np.float32(0.37)))
    if mask_kind == "bool":
        values[-1][..., 0] = False  # a fully masked row: the peak is -inf
        values[-1][0, 0, 1] = False
    out = opset.scaled_dot_product_attention(*args, causal=causal)
    model = Model([out], params)
    assert step_names(model, values)["ScaledDotProductAttention"] == {"attention"}
    (got,) = assert_same_bits(model, values).values()
    assert got.shape == (1, 3, 9, 16) and (np.isfinite(got).all() or mask_kind == "bool")


def test_variadic_split_prepared_gives_the_generic_bits() -> None:
    x = opset.parameter([2, 10, 3], "f32", name="x")
    stop = opset.parameter([1], "i64", name="stop")
    part = opset.slice(x, opset.constant(np.array([0])), stop, opset.constant(np.array([1])), opset.constant(np.array([1])))
    pieces = opset.variadic_split(part, opset.constant(np.array(-2)), opset.constant(np.array([2, -1, 1])))
    model = Model(pieces.outputs(), [x.node, stop.node])
    data = np.random.default_rng(2).standard_normal((2, 10, 3)).astype(np.float32)
    for n in (10, 3):
        values = [data, np.array([n])]
        assert step_names(model, values)["VariadicSplit"] == {"split"}
        got = list(assert_same_bits(model, values).values())
        assert [g.tobytes() for g in got] == [data[:, :2].tobytes(), data[:, 2:n - 1].tobytes(), data[:, n - 1:n].tobytes()]
    from graphir.errors import GraphirError

    with pytest.raises(GraphirError, match="exceeds the length"):  # 3 + the -1 part cannot fit 2
        model.run([data, np.array([2])])


UNARY = [("exp", {}), ("log", {}), ("sqrt", {}), ("tanh", {}), ("sin", {}), ("cos", {}), ("sigmoid", {}), ("erf", {}),
         ("gelu", {"approximation_mode": "erf"}), ("gelu", {"approximation_mode": "tanh"}), ("hswish", {}), ("hsigmoid", {}),
         ("swish", {}),
         ("swish-beta", {})]


def _special(dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Random values over a wide range and every special kind (NaN payloads, +-0, +-inf, subnormals)."""
    np_type = np.float32 if dtype == "f32" else np.float64
    x = (rng.standard_normal(4096) * np.exp(rng.uniform(-8, 4, 4096))).astype(np_type)
    with np.errstate(invalid="ignore"):  # signalling NaNs widened to f64
        bits = rng.integers(0, 2**32, 512, dtype=np.uint64).astype(np.uint32).view(np.float32).astype(np_type)
    special = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1e-40, -1e-40, 3.0, -3.0], np_type)
    return np.concatenate([x, bits, special]).reshape(2, -1)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("name,attrs", UNARY, ids=[f"{n}-{a.get('approximation_mode', '')}" for n, a in UNARY])
def test_unary_prepared_gives_the_generic_bits(name: str, attrs: dict[str, Any], dtype: str) -> None:
    x = opset.parameter([2, 2309], dtype, name="x")
    if name == "swish-beta":
        y = opset.swish(x, opset.constant(np.asarray(0.75, np.float32 if dtype == "f32" else np.float64)))
    else:
        y = getattr(opset, name)(x, **attrs)
    model = Model([y], [x.node])
    values = [_special(dtype, np.random.default_rng(len(name)))]
    names = next(iter(step_names(model, values).values()))
    fast = dtype == "f32" or name not in ("hswish", "hsigmoid")  # those use their f64 formulas
    # f32 HSwish/HSigmoid/Swish run in cache-sized blocks, into a fresh input (tests/test_activation_into.py)
    blocked = dtype == "f32" and (name in ("hswish", "hsigmoid") or name.startswith("swish"))
    expected = {"blocked_f32"} if blocked else {"swish"} if name.startswith("swish") else {"unary"}
    if dtype == "f32" and name == "gelu" and attrs["approximation_mode"] == "erf":  # the table kernel (tests/test_gelu_kernel.py)
        expected = {"gelu"}
    assert names == expected if fast else names == {"evaluate"}
    with np.errstate(all="ignore"):
        assert_same_bits(model, values)


def test_power_f32_prepared_gives_the_generic_bits_and_integers_keep_evaluate() -> None:
    rng = np.random.default_rng(9)
    for dtype, exponent in (("f32", np.float32(2.0)), ("f32", np.float32(-0.5)), ("i32", np.int32(-1))):
        x = opset.parameter([3, 50], dtype, name="x")
        model = Model([opset.power(x, opset.constant(exponent))], [x.node])
        value = _special("f32", rng).reshape(-1)[-150:].reshape(3, 50) if dtype == "f32" else \
            rng.integers(-3, 4, (3, 50)).astype(np.int32)
        names = step_names(model, [value])["Power"]
        assert (names == {"evaluate"}) == (dtype == "i32")
        with np.errstate(all="ignore"):
            assert_same_bits(model, [value])


@pytest.mark.parametrize("variance,mode,axes", [(True, "inside_sqrt", [-1]), (True, "outside_sqrt", [1, 2]),
                                                (False, "inside_sqrt", [2])])
def test_mvn_f32_prepared_gives_the_generic_bits(variance: bool, mode: str, axes: list[int]) -> None:
    rng = np.random.default_rng(len(axes))
    x = opset.parameter([2, 65, 48], "f32", name="x")
    t = opset.transpose(x, opset.constant(np.array([0, 1, 2])))  # a view in: MVN must not write it
    y = opset.mvn(t, opset.constant(np.array(axes)), normalize_variance=variance, eps=1e-5, eps_mode=mode)
    model = Model([y, t], [x.node])
    values = [(rng.standard_normal((2, 65, 48)) * 7 + 3).astype(np.float32)]
    before = values[0].copy()
    assert "<lambda>" in step_names(model, values)["MVN"]
    got = assert_same_bits(model, values)
    assert values[0].tobytes() == before.tobytes() and list(got.values())[1].tobytes() == before.tobytes()


@pytest.mark.parametrize("rows,axes", [((4, 3, 7), [2]), ((2, 5, 13), [1, 2]), ((3, 4, 1), [2]), ((2, 4, 97), [-1])])
def test_mvn_f32_prepared_divides_by_the_count_as_np_mean_does(rows: tuple[int, ...], axes: list[int]) -> None:
    """The prepared MVN divides its f32 sums by an f32 count (np.mean divides by an intp count in
    f64, then rounds): the same bits over wide values, subnormals, infinities and NaN payloads."""
    rng = np.random.default_rng(sum(rows))
    size = int(np.prod(rows))
    special = _special("f32", rng).reshape(-1)
    for variance in (True, False):
        x = opset.parameter(list(rows), "f32", name="x")
        model = Model([opset.mvn(x, opset.constant(np.array(axes)), normalize_variance=variance, eps=1e-9,
                                 eps_mode="inside_sqrt")], [x.node])
        for start in range(0, special.size - size, max(size, special.size // 6)):
            with np.errstate(all="ignore"):
                assert_same_bits(model, [special[start:start + size].reshape(rows).copy()])


@pytest.mark.parametrize("second_reader", [False, True])
def test_unary_steps_write_into_fresh_inputs_only_they_read(second_reader: bool) -> None:
    """Add -> Relu -> Sqrt -> Tanh: each writes into the previous fresh result when it alone reads
    it; a second reader (a Result) of the Add keeps the Relu out of its buffer."""
    rng = np.random.default_rng(8)
    x = opset.parameter([4, 300], "f32", name="x")
    bias = rng.standard_normal(300).astype(np.float32)
    added = opset.add(x, opset.constant(bias))
    out = opset.tanh(opset.sqrt(opset.relu(added)))
    model = Model([out, added] if second_reader else [out], [x.node])
    values = [rng.standard_normal((4, 300)).astype(np.float32)]
    before = values[0].copy()
    names = step_names(model, values)
    assert names["Relu"] == ({"relu"} if second_reader else {"relu_into"})
    assert names["Sqrt"] == names["Tanh"] == {"into_input"}
    got = assert_same_bits(model, values)
    assert values[0].tobytes() == before.tobytes()
    want = np.tanh(np.sqrt(np.maximum(before + bias, np.float32(0))))
    assert next(iter(got.values())).tobytes() == want.tobytes()


CONVERTS = [("f32", "f16"), ("f16", "f32"), ("i64", "i32"), ("i32", "f32"), ("boolean", "f32"), ("u8", "i8"),
            ("f64", "f32"), ("f32", "i32"), ("f32", "boolean"), ("i32", "u4")]


@pytest.mark.parametrize("source,target", CONVERTS)
def test_convert_prepared_gives_the_generic_bits(source: str, target: str) -> None:
    """Plain casts take one astype; real to integer, to boolean and sub-byte types keep evaluate."""
    from graphir.types import ElementType

    rng = np.random.default_rng(len(source) + len(target))
    x = opset.parameter([3, 40], source, name="x")
    model = Model([opset.convert(x, destination_type=target)], [x.node])
    raw = rng.standard_normal((3, 40)) * 2e4
    if source == "boolean":
        value = raw > 0
    else:
        dtype = np.dtype(ElementType.parse(source).numpy_dtype)
        value = raw.astype(dtype) if dtype.kind == "f" else rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max,
                                                                           (3, 40), dtype=dtype, endpoint=True)
        if dtype.kind == "f":
            value.reshape(-1)[:4] = [np.nan, np.inf, -0.0, 6e4]
    fast = (source, target) not in (("f32", "i32"), ("f32", "boolean"), ("i32", "u4"))
    assert (step_names(model, [value])["Convert"] == {"convert"}) == fast
    with np.errstate(all="ignore"):
        assert_same_bits(model, [value])


@pytest.mark.parametrize("name", ["Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual"])
@pytest.mark.parametrize("dtype", ["f32", "i64"])
def test_comparisons_prepared_give_the_generic_bits(name: str, dtype: str) -> None:
    """One ufunc into a new boolean array (never into an input of another type); NaN compares
    as evaluate compares it."""
    rng = np.random.default_rng(41)
    a = opset.parameter([5, 7], dtype, name="a")
    b = opset.parameter([1, 7], dtype, name="b")
    model = Model([opset.make(name, a, b)], [a.node, b.node])
    np_type = np.float32 if dtype == "f32" else np.int64
    x = rng.integers(-3, 4, (5, 7)).astype(np_type)
    y = rng.integers(-3, 4, (1, 7)).astype(np_type)
    if dtype == "f32":
        x[0, :3] = np.nan
        y[0, 5] = np.nan
    assert prepared_types(model, [x, y])[name]
    got = assert_same_bits(model, [x, y])
    assert next(iter(got.values())).dtype == np.bool_


def test_shape_of_non_zero_and_numpy_broadcast_prepared_give_the_generic_bits() -> None:
    """SSDlite's per-class steps: scores above a threshold (NonZero of a Greater), the count's
    shape (ShapeOf of a run-time length) and a scalar broadcast to it (Broadcast-3 numpy mode)."""
    x = opset.parameter([-1], "f32", name="scores")
    keep = opset.make("Greater", x, opset.constant(np.array([0.5], np.float32)))
    idx = opset.make("NonZero", keep, output_type="i64")
    count = opset.make("ShapeOf", idx, output_type="i32")
    fill = opset.make("Broadcast", opset.constant(np.array(7, np.int64)), count, mode="numpy")
    model = Model([idx, count, fill], [x.node])
    scores = np.random.default_rng(42).uniform(0, 1, 301).astype(np.float32)
    kinds = prepared_types(model, [scores])
    assert kinds["NonZero"] and kinds["ShapeOf"] and kinds["Broadcast"] and kinds["Greater"]
    got = list(assert_same_bits(model, [scores]).values())
    kept = int((scores > 0.5).sum())
    assert got[0].shape == (1, kept) and got[1].tolist() == [1, kept] and got[2].tolist() == [[7] * kept]


@pytest.mark.parametrize("index", [np.array(3, np.int64), np.array([0, 4, 4, 1], np.int32), np.array(-1, np.int64)])
def test_gather_with_constant_indices_prepared_gives_the_generic_bits(index: np.ndarray) -> None:
    """SSDlite's per-class score columns: constant indices checked (and wrapped) once."""
    data = opset.parameter([9, 6], "f32", name="scores")
    out = opset.make("Gather", data, opset.constant(index), opset.constant(np.array(1, np.int64)), batch_dims=0)
    model = Model([out], [data.node])
    x = np.random.default_rng(43).standard_normal((9, 6)).astype(np.float32)
    assert step_names(model, [x])["Gather"] == {"gather_constant"}
    assert_same_bits(model, [x])


@pytest.mark.parametrize("rows", [[[0], [3], [3], [1]], [[-1], [2]], [[5], [0]]])
def test_gather_nd_single_index_prepared_gives_the_generic_bits(rows: list[list[int]]) -> None:
    """One index per row: in range, the take without the wrap; negative ones wrap as evaluate does;
    out of range fails as evaluate fails."""
    data = opset.parameter([5, 4], "f32", name="boxes")
    idx = opset.parameter([-1, 1], "i64", name="idx")
    model = Model([opset.make("GatherND", data, idx, batch_dims=0)], [data.node, idx.node])
    x = np.random.default_rng(44).standard_normal((5, 4)).astype(np.float32)
    values = [x, np.array(rows, np.int64)]
    assert prepared_types(model, values)["GatherND"]
    if max(r[0] for r in rows) >= 5:
        with pytest.raises(Exception) as prepared:
            model.run(values)
        with pytest.raises(type(prepared.value)) as generic:
            _run_unspecialized(model, values)
        assert str(generic.value) == str(prepared.value)
        return
    assert_same_bits(model, values)


@pytest.mark.parametrize("version, axis", [("opset8", -1), ("opset8", 1), ("opset1", 2), ("opset1", 0)])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_softmax_prepared_gives_the_generic_bits(version: str, axis: int, dtype: str) -> None:
    """One exp pass (the generic form makes two), the quotient into the exponentials; -inf and
    equal rows included."""
    x = opset.parameter([2, 7, 5], dtype, name="x")
    model = Model([opset.make("Softmax", x, axis=axis, version=version)], [x.node])
    values = (np.random.default_rng(45).standard_normal((2, 7, 5)) * 6).astype(np.float32 if dtype == "f32" else np.float64)
    values[0, 0] = -np.inf
    values[0, 0, 1] = 0.5
    values[1, 2] = 3.0
    assert prepared_types(model, [values])["Softmax"]
    assert_same_bits(model, [values])


def _writes_in_place(step: Any) -> bool:
    """Is this prepared step a ``writes_into`` variant (its ufunc call passes ``out=``)?"""
    return ("out",) in step[0].__code__.co_consts


def _elementwise_after_reduce(view_reader: bool) -> tuple[Model, list[np.ndarray]]:
    rng = np.random.default_rng(46)
    x = opset.parameter([2, 8, 5, 5], "f32", name="x")
    added = opset.add(x, opset.constant(rng.standard_normal((1, 8, 1, 1)).astype(np.float32)))
    mean = opset.make("ReduceMean", added, opset.constant(np.array([2, 3], np.int64)), keep_dims=True)
    outputs = [opset.multiply(added, opset.sigmoid(mean))]
    if view_reader:  # an earlier reader whose output is a view of the Add's array, returned to the caller
        outputs.append(opset.make("Reshape", added, opset.constant(np.array([2, -1], np.int64)), special_zero=False))
    model = Model(outputs, [x.node])
    return model, [rng.standard_normal((2, 8, 5, 5)).astype(np.float32)]


@pytest.mark.parametrize("view_reader", [False, True])
def test_last_reader_writes_into_an_input_earlier_readers_copied(view_reader: bool) -> None:
    """Squeeze-excite: Add -> ReduceMean -> gate, then Multiply(Add, gate). The Multiply reads the
    Add's array last and the ReduceMean made its own array from it, so the Multiply writes into
    it. An earlier reader handing out a view of it (a Reshape returned as an output) keeps it out."""
    model, values = _elementwise_after_reduce(view_reader)
    spec = specialization(model, get_plan(model), values)
    multiply = next(step for step in spec.steps if step[-1].op.type_name == "Multiply")
    assert _writes_in_place(multiply) != view_reader
    assert_same_bits(model, values)  # with a view reader: its output is the Add's values, untouched


def _post_processing_steps(pads: tuple[list[int], list[int]], k: int, sort: str) -> tuple[Model, list[np.ndarray]]:
    """The ops of an ONNX detection head's tail (tests/fixtures/onnx/misc.onnx), each with the
    constant inputs its prepared step decodes once."""
    x = opset.parameter([3, 9], "f32", name="x")
    padded = opset.make("Pad", x, opset.constant(np.array(pads[0], np.int64)), opset.constant(np.array(pads[1], np.int64)),
                        opset.constant(np.array(-2.5, np.float32)), pad_mode="constant")
    top = opset.make("TopK", x, opset.constant(np.array(k, np.int64)), axis=-1, mode="max", sort=sort,
                     index_element_type="i32")
    low = opset.make("TopK", x, opset.constant(np.array(min(k, 3), np.int64)), axis=0, mode="min", sort=sort,
                     index_element_type="i64")
    biggest = opset.make("ReduceMax", x, opset.constant(np.array([1], np.int64)), keep_dims=True)
    smallest = opset.make("ReduceMin", x, opset.constant(np.array([0, -1], np.int64)), keep_dims=False)
    column = opset.make("ReduceMax", x, opset.constant(np.array([1], np.int64)), keep_dims=True)
    spread = opset.make("Broadcast", column, opset.constant(np.array([2, 3, 4], np.int64)), mode="bidirectional")
    gate = opset.make("HardSigmoid", x, opset.constant(np.array(0.2, np.float32)), opset.constant(np.array(0.5, np.float32)))
    model = Model([padded, *top, *low, biggest, smallest, spread, gate], [x.node])
    data = (np.random.default_rng(k).standard_normal((3, 9)) * 4).astype(np.float32)
    data[0, :4] = [np.nan, 1.0, 1.0, -np.inf]  # ties and NaN: the sort's order
    data[2, 5] = -0.0
    return model, [data]


@pytest.mark.parametrize("pads", [([1, 2], [0, 3]), ([0, -2], [2, -3]), ([2, 4], [-3, -7]), ([0, 0], [0, 0])])
@pytest.mark.parametrize("k,sort", [(3, "value"), (9, "index"), (0, "none"), (8, "value")])
def test_post_processing_steps_prepared_give_the_generic_bits(pads: tuple[list[int], list[int]], k: int,
                                                               sort: str) -> None:
    """Pad (constant pads, crops included), TopK (constant k), ReduceMax/Min (constant axes),
    Broadcast (bidirectional to a constant shape) and HardSigmoid (constant alpha, beta)."""
    model, values = _post_processing_steps(pads, k, sort)
    kinds = prepared_types(model, values)
    # with k = 0 the TopKs' outputs are empty: shape inference gives them and no step runs
    required = ("Pad", "TopK", "ReduceMax", "ReduceMin", "Broadcast", "HardSigmoid") if k else \
        ("Pad", "ReduceMax", "ReduceMin", "Broadcast", "HardSigmoid")
    assert all(kinds[t] for t in required) and ("TopK" in kinds) == (k > 0), kinds
    got = list(assert_same_bits(model, values).values())
    x = values[0]
    assert got[0].shape == (3 + pads[0][0] + pads[1][0], 9 + pads[0][1] + pads[1][1])
    assert got[1].shape == (3, k) and got[3].shape == (min(k, 3), 9) and got[7].shape == (2, 3, 4)
    if sort == "value":  # rows without NaN: the k largest, largest first
        assert got[1][1:].tolist() == np.sort(x[1:], axis=1)[:, ::-1][:, :k].tolist()
    assert got[5].reshape(-1)[1:].tolist() == x[1:].max(axis=1).tolist()


@pytest.mark.parametrize("prepared", [True, False])
def test_topk_k_above_the_axis_size_is_refused_prepared_or_not(prepared: bool) -> None:
    """k above the axis's size is refused by name, as OpenVINO CPU refuses it; the prepared step
    (static shape, constant k) hands such a k to the generic evaluate, which refuses it."""
    x = opset.parameter([3, 9] if prepared else "[3,?]", "f32", name="x")
    top = opset.make("TopK", x, opset.constant(np.array(12, np.int64)), axis=-1, mode="max", sort="value",
                     index_element_type="i32", name="top12")
    model = Model([top[0]], [x.node])
    with pytest.raises(GraphirError, match=r"top12.*K \(12\) exceeds the axis dimension \(9\)"):
        model.run([np.zeros((3, 9), np.float32)])


@pytest.mark.parametrize("dtype", ["f32", "f16", "i32", "i64"])
def test_cumsum_prepared_gives_the_generic_bits(dtype: str) -> None:
    """A plain running sum over a constant axis runs one cumsum; exclusive and reverse keep evaluate."""
    rng = np.random.default_rng(13)
    np_type = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i64": np.int64}[dtype]
    for shape, axis in (([3, 5], 0), ([3, 5], -1), ([2, 3, 4], -2), ([6], 0)):
        for exclusive, reverse in ((False, False), (True, False), (False, True)):
            x = opset.parameter(shape, dtype, name="x")
            model = Model([opset.cum_sum(x, opset.constant(np.array(axis, np.int64)), exclusive, reverse)], [x.node])
            value = (rng.standard_normal(shape) * 100).astype(np_type)
            names = step_names(model, [value])["CumSum"]
            assert names == ({"cumsum"} if not (exclusive or reverse) else {"evaluate"})
            with np.errstate(all="ignore"):
                assert_same_bits(model, [value])
