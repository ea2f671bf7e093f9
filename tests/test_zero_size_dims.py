"""Zero-size dims run, or are refused by name, in every op (issue 26, "The API boundary").

For every op class the registry holds (OpenVINO's opsets, oneDNN, DirectML), a one-node model is
built from the op's example in tests/fixtures/zero_size/examples.pkl (recorded from the tests that
already run or infer the op: tests/gen_zero_size_examples.py; for a class no test builds, the
op with default attributes on f32[2,3,4,5] inputs) with one dim of its data input set to 0: the
batch (axis 0) and the last axis. Inputs that must agree in that dim are zeroed with it (the first
of these that shape inference accepts: the same axis of every other input of the same size there,
numpy's right-aligned way, first without then with dims of 1; else the first dim of that size in
each other input, as a MatMul's K; else the data input alone). The model then runs under both
numerics profiles and must give

* outputs of the element types and shapes that shape inference predicted, or
* a GraphirError whose message names the node, raised on purpose: an EmptyInputError (a kernel
  that cannot compute outputs with elements from an empty input) or an error of graphir's own,
  never a numpy or Python error wrapped by the run (an EvaluationError caused by a ValueError is
  a crash in disguise and fails here),

within a time limit and without a numpy warning. Ops that the sweep cannot build are listed in
:data:`EXCLUDED` with the reason as a code the test recomputes, so an exclusion that is no longer
needed fails and the list only shrinks. Every OpenVINO-opset case is also run by OpenVINO CPU
(tests/zero_size_openvino.py): where it runs, graphir runs with the same output shapes, except the
listed refusals (OpenVINO returns uninitialized memory there) and departures. Reductions over an
empty axis give OpenVINO's reference values (its constant folding) under the reference profile and
OpenVINO CPU's under openvino-cpu (ReduceSum/L1/L2 0, ReduceProd 1, ReduceMax the lowest finite
value, ReduceMin +inf, on the CPU f32 the highest finite; ReduceMean 0 under both); TopK asked for more
elements than an axis holds is refused by name.
"""
from __future__ import annotations

import functools
import pickle
import signal
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphir
import graphir.numerics
from graphir import opset
from graphir.errors import EmptyInputError, GraphirError
from graphir.model import Model
from graphir.node import Node
from graphir.ops.registry import all_ops, lookup
from graphir.types import ElementType

EXAMPLES_FILE = Path(__file__).resolve().parent / "fixtures" / "zero_size" / "examples.pkl"
Key = tuple[str, str, str]
#: seconds one case may take (build, infer, two runs)
CASE_SECONDS = 30

#: why an op cannot be swept; each code is recomputed by :func:`unsweepable`
NO_EXAMPLE = ("no test runs the op or infers it on static shapes, and it does not build on f32[2,3,4,5] inputs with "
              "its default attributes: no example to derive a zero-size variant from")
NO_DATA_INPUT = "no input of rank >= 1 to give a zero dim (the output size comes from input values or attributes)"

_SHAPE_INPUT = "an input is a shape given as a value, which the generic example cannot give; no test builds the op"
#: (dialect, type, version) -> (the reason code :func:`unsweepable` recomputes, why in words)
EXCLUDED: dict[Key, tuple[str, str]] = {
    ("onednn", "AvgPoolBackward", "1"): (NO_EXAMPLE, _SHAPE_INPUT + " (src_shape)"),
    ("onednn", "ConvolutionBackwardData", "1"): (NO_EXAMPLE, _SHAPE_INPUT + " (dst_shape; weights of rank 4)"),
    ("onednn", "ConvolutionBackwardWeights", "1"): (NO_EXAMPLE, _SHAPE_INPUT + " (weights_shape)"),
    ("onednn", "ConvTransposeBackwardWeights", "1"): (NO_EXAMPLE, _SHAPE_INPUT + " (weights_shape)"),
    ("onednn", "BatchNormForwardTraining", "1"): (NO_EXAMPLE, "mean, variance, gamma and beta are 1-D (the channels), "
                                                              "not the data's shape; no test builds the op"),
    ("onednn", "BiasAdd", "1"): (NO_EXAMPLE, "the bias is 1-D (the channels), not the data's shape; no test builds it"),
    ("openvino", "Parameter", "opset1"): (NO_EXAMPLE, "no input: a zero-size Parameter is what every case here feeds"),
    ("openvino", "Constant", "opset1"): (NO_DATA_INPUT, "no input: zero-size Constants feed the cases whose constant "
                                                        "inputs are zeroed with the data (weights, updates)"),
    ("openvino", "Range", "opset1"): (NO_DATA_INPUT, "scalar inputs: its zero-size case is an empty range, "
                                                     "test_an_empty_range_runs"),
    ("openvino", "Range", "opset4"): (NO_DATA_INPUT, "scalar inputs: its zero-size case is an empty range, "
                                                     "test_an_empty_range_runs"),
}


#: the shape of every input of the generic example (:func:`generic_example`), and values for the
#: attributes an op requires (a 1x1 window for the 2 spatial dims of the shape)
GENERIC_SHAPE = (2, 3, 4, 5)
GENERIC_ATTRIBUTES: dict[str, Any] = {"alpha": 0.5, "beta": 1.0, "min": 0.0, "max": 1.0, "epsilon": 1e-5,
                                      "strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0],
                                      "dilations": [1, 1], "kernel": [1, 1], "exclude_pad": False}


@functools.lru_cache(maxsize=1)
def examples() -> dict[Key, dict[str, Any]]:
    """The harvested examples, and for an op class without one, the generic example if it builds."""
    with EXAMPLES_FILE.open("rb") as f:
        found: dict[Key, dict[str, Any]] = pickle.load(f)
    for key in registered():
        if key not in found:
            generic = generic_example(key)
            if generic is not None:
                found[key] = generic
    return found


def generic_example(key: Key) -> dict[str, Any] | None:
    """The op with its default attributes on as many f32 ``GENERIC_SHAPE`` inputs as it needs at
    least (one or more), when shape inference accepts that: most oneDNN ops (elementwise, their
    backward forms) take same-shaped tensors and have defaults for every attribute."""
    cls = lookup(*key)
    try:
        op = cls(**{name: GENERIC_ATTRIBUTES[name] for name, field in cls.model_fields.items()
                    if field.is_required() and name in GENERIC_ATTRIBUTES})
    except GraphirError:
        return None
    count = max(cls.input_count_range()[0], 1)
    try:
        Node(op, [opset.parameter(list(GENERIC_SHAPE), "f32") for _ in range(count)])
    except GraphirError:
        return None
    inputs = [{"value": None, "shape": GENERIC_SHAPE, "constant": False, "type": "f32"} for _ in range(count)]
    return {"op": op, "inputs": inputs, "source": "generic", "tier": 4}


def registered() -> list[Key]:
    """graphir's own op classes: classes other test modules register (a test's extension op) are
    not graphir's, and would make the case list depend on which tests were collected."""
    return [(c.dialect, c.type_name, c.version) for c in all_ops() if c.__module__.startswith("graphir.")]


def data_index(inputs: list[dict[str, Any]]) -> int | None:
    """The input given a zero dim: the first non-constant input of rank >= 1, else the first
    floating-point input of rank >= 1 (an op whose tests feed constants only)."""
    for i, inp in enumerate(inputs):
        if not inp["constant"] and len(inp["shape"]) > 0:
            return i
    for i, inp in enumerate(inputs):
        if len(inp["shape"]) > 0 and ElementType.parse(inp["type"]).is_real:
            return i
    return None


def example_value(inp: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """The recorded value of an input; for one recorded by type only, small values of its type
    (0 or 1 for integers: valid as indices, counts and sizes of most ops)."""
    if inp["value"] is not None:
        return np.asarray(inp["value"])
    dtype = np.dtype(ElementType.parse(inp["type"]).numpy_dtype)
    shape = inp["shape"]
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 2, size=shape).astype(dtype)
    return rng.uniform(-1, 1, size=shape).astype(dtype)


def unsweepable(key: Key) -> str | None:
    """Why the sweep cannot build ``key`` (one of the codes above), or None."""
    example = examples().get(key)
    if example is None:
        return NO_EXAMPLE
    if data_index(example["inputs"]) is None:
        return NO_DATA_INPUT
    return None


def swept() -> list[Key]:
    return [k for k in registered() if k not in EXCLUDED]


def _zeroed(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return shape[:axis] + (0,) + shape[axis + 1:]


def zero_plans(shapes: list[tuple[int, ...]], d: int, axis: int) -> Iterator[dict[int, int]]:
    """Ways to zero ``axis`` of input ``d``: {input index: axis to zero}, most consistent first."""
    shape = shapes[d]
    size = shape[axis]
    same_axis, same_axis_or_one, any_axis = {d: axis}, {d: axis}, {d: axis}
    for i, other in enumerate(shapes):
        if i == d or len(other) == 0:
            continue
        at = axis - (len(shape) - len(other))  # the same dim, numpy's right-aligned way
        if 0 <= at < len(other) and other[at] == size:
            same_axis_or_one[i] = at
            if size != 1:
                same_axis[i] = at
        if size in other and size != 1:
            any_axis[i] = other.index(size)
    seen: list[dict[int, int]] = []
    for plan in (same_axis, same_axis_or_one, any_axis, {d: axis}):
        if plan not in seen:
            seen.append(plan)
            yield plan


def build(key: Key, axis: int) -> tuple[Model, list[np.ndarray], Node] | GraphirError:
    """The one-node model with ``axis`` of the data input zeroed, its input values and the node;
    or the GraphirError shape inference raised for every plan (the last one)."""
    example = examples()[key]
    inputs: list[dict[str, Any]] = example["inputs"]
    d = data_index(inputs)
    assert d is not None
    rng = np.random.default_rng(0)
    arrays = [example_value(inp, rng) for inp in inputs]
    refused: GraphirError | None = None
    for plan in zero_plans([tuple(inp["shape"]) for inp in inputs], d, axis):
        params, values, sources = [], [], []
        for i, (inp, array) in enumerate(zip(inputs, arrays)):
            if i in plan:
                array = np.zeros(_zeroed(array.shape, plan[i]), array.dtype)
            if inp["constant"] and i != d:
                sources.append(opset.constant(array, inp["type"]))
                continue
            param = opset.parameter(list(array.shape), inp["type"], name=f"in{i}")
            params.append(param.node)
            values.append(array)
            sources.append(param)
        try:
            node = Node(example["op"], sources, name=f"zero_{key[1]}")
        except GraphirError as exc:
            refused = exc
            continue
        return Model(node.outputs(), params), values, node
    assert refused is not None
    return refused


def _alarm(signum: int, frame: Any) -> None:
    raise TimeoutError(f"a zero-size case ran over {CASE_SECONDS} s")


def _compatible(array: Any, predicted: Any) -> str | None:
    """What is wrong with an output against its predicted type, or None."""
    if not isinstance(array, np.ndarray):
        return f"not an array: {type(array).__name__}"
    et, shape = predicted.element_type, predicted.shape
    if not et.is_dynamic and et.name != "string" and array.dtype != np.dtype(et.numpy_dtype):
        return f"dtype {array.dtype}, predicted {et}"
    if shape.rank.is_static:
        dims = list(shape)
        if array.ndim != len(dims):
            return f"shape {array.shape}, predicted {shape}"
        for got, want in zip(array.shape, dims):
            if want.is_static and got != want.get_length():
                return f"shape {array.shape}, predicted {shape}"
    return None


def outcome(key: Key, axis: int) -> tuple[str, str]:
    """("runs" | "refused", detail) for one case; asserts the rules of the module docstring."""
    built = build(key, axis)
    if isinstance(built, GraphirError):
        message = str(built)
        assert f"zero_{key[1]}" in message, f"shape inference refused without naming the node: {message}"
        return "refused", f"at shape inference: {message}"
    model, values, node = built
    model.infer_shapes()
    predicted = [o.tensor_type for o in node.outputs()]
    results: dict[str, str] = {}
    for profile in graphir.numerics.PROFILES:
        try:
            outs = list(model.run(values, numerics=profile).values())
        except GraphirError as exc:
            message = str(exc)
            cause = exc.__cause__
            assert cause is None or isinstance(cause, GraphirError) or isinstance(exc, EmptyInputError), \
                f"{profile}: a kernel failed on the zero-size input: {type(cause).__name__}: {message}"
            assert node.name in message, f"{profile}: refused without naming the node: {message}"
            results[profile] = f"refused: {message}"
            continue
        assert len(outs) == len(predicted), profile
        for i, (array, want) in enumerate(zip(outs, predicted)):
            wrong = _compatible(array, want)
            assert wrong is None, f"{profile}: output {i}: {wrong}"
        results[profile] = "runs"
    if all(r == "runs" for r in results.values()):
        return "runs", ""
    return "refused", "; ".join(f"{p}: {r}" for p, r in results.items())


def _axes(key: Key) -> list[tuple[str, int]]:
    example = examples().get(key)
    if example is None or data_index(example["inputs"]) is None:
        return []
    shape = example["inputs"][data_index(example["inputs"])]["shape"]
    axes = [("batch", 0)]
    if len(shape) > 1:
        axes.append(("last", len(shape) - 1))
    return axes


CASES = [(key, name, axis) for key in swept() for name, axis in _axes(key)]


def test_every_registered_op_is_swept_or_excluded_for_a_reason_that_still_holds() -> None:
    keys = registered()
    assert len(keys) >= 330 and {k[0] for k in keys} == {"openvino", "onednn", "directml"}
    stale = sorted(k for k in EXCLUDED if k not in keys)
    assert not stale, f"excluded but no longer registered: {stale}"
    for key, (reason, _) in EXCLUDED.items():
        assert unsweepable(key) == reason, f"{key}: excluded as {reason!r}, but now: {unsweepable(key)!r}"
    unexplained = sorted(k for k in swept() if unsweepable(k) is not None)
    assert not unexplained, ("ops the sweep cannot build and that are not in EXCLUDED (regenerate the examples: "
                             f"python tests/gen_zero_size_examples.py): {unexplained}")
    assert {k for k, _, _ in CASES} == set(swept())


@pytest.mark.parametrize("key,variant,axis", CASES, ids=[f"{k[0]}-{k[1]}-{k[2]}-{v}" for k, v, _ in CASES])
def test_zero_size_dim_runs_or_is_refused_by_name(key: Key, variant: str, axis: int) -> None:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome(key, axis)
        leaked = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        assert not leaked, f"numpy warnings leaked from a kernel: {leaked}"  # ("Mean of empty slice")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# --- against OpenVINO CPU --------------------------------------------------------------------
#: cases where OpenVINO CPU runs but graphir refuses by name: the outputs hold elements that would be
#: computed from an input with none, and OpenVINO CPU returns uninitialized memory there (measured
#: on 2026.4: values such as 3.07e-41 and 1.5e12 from GridSample, ROIAlign, GatherElements,
#: EmbeddingBag*, Multinomial, CTCLoss, AdaptiveMaxPool over empty data), or refuses to compile.
#: (type, version, variant) -> the reason; the test checks each is still refused, so it only shrinks.
_FROM_NOTHING = "outputs with elements from an empty input (OpenVINO CPU: uninitialized memory)"
_INDEX_OUT = "indices into an axis of 0 (out of range; OpenVINO CPU: uninitialized memory)"
_TOPK = "k above an axis of 0 (OpenVINO CPU refuses k above the axis size, not when it is 0)"
OPENVINO_RUNS_GRAPHIR_REFUSES: dict[tuple[str, str, str], str] = {
    **{(t, v, variant): _FROM_NOTHING for t, v, variant in [
        ("AdaptiveAvgPool", "opset8", "last"), ("AdaptiveMaxPool", "opset8", "last"), ("CTCLoss", "opset4", "last"),
        ("DeformablePSROIPooling", "opset1", "batch"), ("DeformablePSROIPooling", "opset1", "last"),
        ("EmbeddingBagOffsets", "opset15", "batch"), ("EmbeddingBagOffsetsSum", "opset3", "batch"),
        ("EmbeddingBagPacked", "opset15", "batch"), ("EmbeddingBagPackedSum", "opset3", "batch"),
        ("EmbeddingSegmentsSum", "opset3", "batch"), ("GridSample", "opset9", "last"), ("ISTFT", "opset16", "last"),
        ("Interpolate", "opset1", "last"), ("Interpolate", "opset11", "last"), ("Multinomial", "opset13", "last"),
        ("PSROIPooling", "opset1", "batch"), ("ROIAlign", "opset3", "batch"), ("ROIAlign", "opset3", "last"),
        ("ROIAlign", "opset9", "batch"), ("ROIAlign", "opset9", "last"), ("ROIAlignRotated", "opset15", "batch"),
        ("ROIAlignRotated", "opset15", "last"), ("ROIPooling", "opset2", "batch")]},
    **{(t, v, variant): _INDEX_OUT for t, v, variant in [
        ("Gather", "opset1", "batch"), ("GatherElements", "opset6", "batch"), ("GatherND", "opset5", "last"),
        ("GatherND", "opset8", "last")]},
    **{("TopK", v, "last"): _TOPK for v in ("opset1", "opset3", "opset11")},
}
#: cases where both run and the shapes differ: graphir gives what shape inference (OpenVINO's and
#: graphir's alike) predicts, OpenVINO CPU's plugin another shape
OPENVINO_CPU_SHAPE_DEPARTURES: dict[tuple[str, str, str], str] = {
    ("NonMaxSuppression", v, "batch"): "a batch of 0 boxes: OpenVINO infers [4,3] (padded with -1, as graphir "
                                       "gives), its CPU plugin returns [0,3]" for v in ("opset1", "opset3")}
OPENVINO_CASES = [c for c in CASES if c[0][0] == "openvino"]


@pytest.fixture(scope="module")
def openvino_outcomes(ov: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[int, Any]:
    """OpenVINO CPU's outcome per case (tests/zero_size_openvino.py: in a child process, since
    OpenVINO dies with SIGFPE compiling some of these models)."""
    from tests.zero_size_openvino import outcomes

    return outcomes(tmp_path_factory.mktemp("zero-size-openvino"), len(OPENVINO_CASES))


@pytest.mark.parametrize("index", range(len(OPENVINO_CASES)),
                         ids=[f"{k[1]}-{k[2]}-{v}" for k, v, _ in OPENVINO_CASES])
def test_where_openvino_cpu_runs_a_zero_size_dim_graphir_runs_it_with_the_same_shapes(
        openvino_outcomes: dict[int, Any], index: int) -> None:
    key, variant, axis = OPENVINO_CASES[index]
    theirs = openvino_outcomes[index]
    built = build(key, axis)
    if isinstance(built, GraphirError) or not isinstance(theirs, list):
        return  # refused by graphir's shape inference (named: the sweep checks it), or OpenVINO refuses / dies
    model, values, _ = built
    try:
        ours: list[list[int]] | str = [list(a.shape) for a in model.run(values, numerics="openvino-cpu").values()]
    except GraphirError as exc:
        ours = str(exc)
    listed = OPENVINO_RUNS_GRAPHIR_REFUSES.get((key[1], key[2], variant))
    if listed is not None:
        assert isinstance(ours, str), f"no longer refused while OpenVINO runs it: {ours}, {theirs}"
        return
    assert not isinstance(ours, str), f"OpenVINO CPU runs it ({theirs}); graphir refuses: {ours}"
    if (key[1], key[2], variant) in OPENVINO_CPU_SHAPE_DEPARTURES:
        assert ours != theirs, f"no longer a departure: {ours}"
        assert ours == [list(o.tensor_type.shape.to_shape()) for o in built[2].outputs()]
        return
    assert ours == theirs, f"output shapes: graphir {ours}, OpenVINO CPU {theirs}"


# --- the rules, one by one ---------------------------------------------------------------------
def _one(build_node: Any, shape: list[int], dtype: str = "f32") -> tuple[Model, np.ndarray]:
    x = opset.parameter(shape, dtype, name="x")
    return Model([build_node(x)], [x.node]), np.zeros(shape, ElementType.parse(dtype).numpy_dtype)


def test_an_empty_output_is_not_computed_and_a_zero_batch_convolution_runs() -> None:
    """The issue's case: a Convolution of a batch of 0 ("cannot reshape array of size 0" on 95a81cd)."""
    from graphir.interpreter import get_plan, specialization

    weights = np.ones((4, 3, 3, 3), np.float32)
    model, x = _one(lambda p: opset.convolution(p, weights, [1, 1], [0, 0], [0, 0], [1, 1]), [0, 3, 8, 8])
    for profile in graphir.numerics.PROFILES:
        (y,) = model.run([x], numerics=profile).values()
        assert y.shape == (0, 4, 6, 6) and y.dtype == np.float32
    assert specialization(model, get_plan(model), [x]).steps == []  # no kernel was asked


def _openvino_folded(ov: Any, builder: Any, x: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """OpenVINO's reference value: the reduction of a Constant, folded by its ConstantFolding pass."""
    from openvino.passes import ConstantFolding, Manager

    model = ov.Model([builder(ov.opset13.constant(x), axes)], [])
    manager = Manager()
    manager.register_pass(ConstantFolding())
    manager.run_passes(model)
    folded = model.get_results()[0].input_value(0).get_node()
    assert folded.get_type_name() == "Constant", folded
    return np.asarray(folded.get_data())


@pytest.mark.parametrize("dtype", ["f32", "f16", "i32"])
def test_reductions_over_an_empty_axis_give_openvinos_values(ov: Any, dtype: str) -> None:
    """The reference profile gives OpenVINO's reference values (its constant folding: ReduceSum/L1/L2
    0, ReduceProd 1, ReduceMax the lowest finite value, ReduceMin +inf for floats, the highest
    integer otherwise), the openvino-cpu profile OpenVINO CPU's (run here: f32 ReduceMin 3.4028235e38,
    f16 ReduceMax -inf). ReduceMean: 0 under both (OpenVINO 2026.4's folding and CPU alike: its
    reference returns the empty sum undivided)."""
    ops = ov.opset13
    names = ["ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean"] + (["ReduceL1", "ReduceL2"] if dtype != "i32" else [])
    axes = np.array([1], np.int64)
    np_type = np.dtype(ElementType.parse(dtype).numpy_dtype)
    x = np.zeros((2, 0, 3), np_type)
    param = opset.parameter([2, 0, 3], dtype, name="x")
    model = Model([opset.make(n, param, axes) for n in names], [param.node])
    ov_param = ops.parameter([2, 0, 3], np_type)
    builders = {"ReduceSum": ops.reduce_sum, "ReduceProd": ops.reduce_prod, "ReduceMax": ops.reduce_max,
                "ReduceMin": ops.reduce_min, "ReduceMean": ops.reduce_mean, "ReduceL1": ops.reduce_l1,
                "ReduceL2": ops.reduce_l2}
    compiled = ov.Core().compile_model(ov.Model([builders[n](ov_param, axes) for n in names], [ov_param]), "CPU")
    expected = {"openvino-cpu": list(compiled([x]).values()),
                "reference": [_openvino_folded(ov, builders[n], x, axes) for n in names]}
    for profile in graphir.numerics.PROFILES:
        ours = list(model.run([x], numerics=profile).values())
        for name, a, b in zip(names, ours, expected[profile]):
            assert a.dtype == np_type and a.shape == (2, 3), name
            np.testing.assert_array_equal(a, b.astype(np_type), err_msg=f"{profile}: {name}")
        assert (ours[names.index("ReduceMean")] == 0).all()
    reference = list(model.run([x]).values())
    if dtype != "i32":  # f16 is folded in f32, whose lowest value is -inf in f16
        lowest = np.finfo(np_type).min if dtype == "f32" else -np.inf
        assert (reference[names.index("ReduceMax")] == lowest).all()
        assert (reference[names.index("ReduceMin")] == np.inf).all()


def test_topk_over_an_empty_axis_is_refused_by_name_and_k_0_runs() -> None:
    for profile in graphir.numerics.PROFILES:
        model, x = _one(lambda p: opset.make("TopK", p, opset.constant(np.int64(1)), version="opset11", axis=1,
                                             mode="max", sort="value", name="top")[0], [2, 0])
        with pytest.raises(GraphirError, match=r"'top' \(TopK-opset11\).*K \(1\) exceeds the axis dimension \(0\)"):
            model.run([x], numerics=profile)
        model, x = _one(lambda p: opset.make("TopK", p, opset.constant(np.int64(0)), version="opset11", axis=1,
                                             mode="max", sort="value")[0], [2, 0])
        assert next(iter(model.run([x], numerics=profile).values())).shape == (2, 0)


def test_topk_k_above_a_nonempty_axis_is_refused_as_openvino_cpu_refuses_it() -> None:
    """Shape inference says k elements; a run gave min(k, n) before (a shape other than predicted)."""
    x = opset.parameter([2, 3], "f32", name="x")
    k = opset.parameter([], "i64", name="k")
    model = Model([opset.make("TopK", x, k, version="opset11", axis=1, mode="max", sort="value")[0]],
                  [x.node, k.node])
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert next(iter(model.run([data, np.int64(3)]).values())).tolist() == [[2, 1, 0], [5, 4, 3]]
    for profile in graphir.numerics.PROFILES:
        with pytest.raises(GraphirError, match=r"K \(5\) exceeds the axis dimension \(3\)"):
            model.run([data, np.int64(5)], numerics=profile)


def test_elements_from_an_empty_input_are_an_empty_input_error_naming_node_and_input() -> None:
    x = opset.parameter([0, 4], "f32", name="x")
    gather = opset.make("GatherElements", x, opset.constant(np.zeros((2, 4), np.int32)), axis=0, name="pick")
    model = Model([gather], [x.node])
    with pytest.raises(EmptyInputError) as caught:
        model.run([np.zeros((0, 4), np.float32)])
    message = str(caught.value)
    assert "'pick' (GatherElements-opset6)" in message
    assert "input 0 ('data') float32[0, 4] holds no elements, and the op cannot compute its outputs (f32[2,4])" in message


def test_convolution_backprop_of_a_width_of_0_infers_as_openvino_and_gives_zeros(ov: Any) -> None:
    """OpenVINO's (n - 1) stops at 0: a width of 0 gives the kernel's extent (it gave 1 here, 2 in OpenVINO)."""
    weights = np.ones((3, 2, 3, 2), np.float32)
    model, x = _one(lambda p: opset.convolution_backprop_data(p, weights, [1, 1], None, [0, 0], [0, 0], [1, 1]),
                    [1, 3, 5, 0])
    ops = ov.opset1
    p = ops.parameter([1, 3, 5, 0], np.float32)
    theirs = ops.convolution_backprop_data(p, weights, [1, 1], None, [0, 0], [0, 0], [1, 1])
    assert str(model.get_results()[0].inputs[0].tensor_type.shape) == str(theirs.get_output_partial_shape(0)) == "[1,2,7,2]"
    for profile in graphir.numerics.PROFILES:
        (y,) = model.run([x], numerics=profile).values()
        assert y.shape == (1, 2, 7, 2) and not y.any()


@pytest.mark.parametrize("version", ["opset1", "opset4"])
def test_an_empty_range_runs(version: str) -> None:
    start = opset.parameter([], "f32", name="start")
    model = Model([opset.make("Range", start, np.float32(2), np.float32(1), version=version,
                              **({"output_type": "f32"} if version == "opset4" else {}))], [start.node])
    for profile in graphir.numerics.PROFILES:
        for first, size in [(np.float32(2), 0), (np.float32(5), 0), (np.float32(0), 2)]:
            (y,) = model.run([first], numerics=profile).values()
            assert y.shape == (size,) and y.dtype == np.float32


def test_a_batch_of_0_sequences_runs_through_the_recurrent_sequences() -> None:
    """The sweep zeroes the batch of an RNN's inputs but not of its sequence lengths (a constant),
    so shape inference refuses those cases; built whole, a batch of 0 runs."""
    rng = np.random.default_rng(1)

    def weights(*shape: int) -> np.ndarray:
        return rng.uniform(-1, 1, shape).astype(np.float32)

    x = opset.parameter([0, 5, 4], "f32", name="x")
    h = opset.parameter([0, 1, 6], "f32", name="h")
    lengths = opset.constant(np.zeros(0, np.int32))
    outs = [*opset.lstm_sequence(x, h, h, lengths, weights(1, 24, 4), weights(1, 24, 6), weights(1, 24),
                                 hidden_size=6, direction="forward").outputs(),
            *opset.gru_sequence(x, h, lengths, weights(1, 18, 4), weights(1, 18, 6), weights(1, 18),
                                hidden_size=6, direction="forward").outputs(),
            *opset.rnn_sequence(x, h, lengths, weights(1, 6, 4), weights(1, 6, 6), weights(1, 6),
                                hidden_size=6, direction="forward").outputs()]
    model = Model(outs, [x.node, h.node])
    for profile in graphir.numerics.PROFILES:
        got = [a.shape for a in model.run([np.zeros((0, 5, 4), np.float32), np.zeros((0, 1, 6), np.float32)],
                                          numerics=profile).values()]
        assert got == [(0, 1, 5, 6), (0, 1, 6), (0, 1, 6)] + [(0, 1, 5, 6), (0, 1, 6)] * 2  # LSTM, GRU, RNN
