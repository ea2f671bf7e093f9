"""ONNX's backend node test cases (``onnx.backend.test.loader.load_model_tests(kind="node")``) run through
graphir's ONNX reader and through OpenVINO's ONNX frontend, compared with the cases' expected outputs
as ONNX's backend runner compares them (rtol 1e-3, atol 1e-7 unless the case states its own; NaN equals
NaN; the element type must match)."""
from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

KNOWN_FAILURES = Path(__file__).with_name("known_failures.json")


@dataclass(frozen=True)
class Outcome:
    ok: bool
    reason: str = ""


def load_cases() -> list[Any]:
    """Every node test case, sorted by name (ONNX builds them in memory: ~15 s)."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            cases = load_model_tests(kind="node")
    return sorted(cases, key=lambda c: c.name)


def op_types(cases: list[Any]) -> dict[str, str]:
    """case name -> the op type it tests (an ``_expanded`` case is filed under its op, '(expanded)')."""
    by_name = {c.name: c for c in cases}
    out: dict[str, str] = {}
    for c in cases:
        base, _, _ = c.name.partition("_expanded")
        source = by_name.get(base, c)
        kinds = [n.op_type for n in source.model.graph.node]
        op = kinds[-1] if len(set(kinds)) != 1 else kinds[0]
        out[c.name] = op + (" (expanded)" if "_expanded" in c.name else "")
    return out


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def compare(case: Any, expected: list[np.ndarray], got: list[Any]) -> Outcome:
    if len(got) != len(expected):
        return Outcome(False, f"{len(got)} outputs, {len(expected)} expected")
    for i, (ref, out) in enumerate(zip(expected, got)):
        if not isinstance(ref, (np.ndarray, np.generic)):
            return Outcome(False, f"output {i} is a sequence/optional (not a tensor)")
        ref = np.asarray(ref)
        out = np.asarray(out)
        if ref.dtype == object or ref.dtype.kind in "US":
            if out.shape != ref.shape or not all(str(a) == str(b) for a, b in zip(out.flat, ref.flat)):
                return Outcome(False, f"output {i}: strings differ")
            continue
        if out.dtype != ref.dtype:
            return Outcome(False, f"output {i}: element type {out.dtype}, expected {ref.dtype}")
        if out.shape != ref.shape:
            return Outcome(False, f"output {i}: shape {out.shape}, expected {ref.shape}")
        try:
            if ref.dtype.kind in "fc" or ref.dtype.name.startswith(("bfloat", "float")):
                np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=case.rtol,
                                           atol=case.atol, equal_nan=True)
            else:
                np.testing.assert_array_equal(out, ref)
        except AssertionError as exc:
            lines = [ln for ln in str(exc).splitlines() if ln.strip()]
            return Outcome(False, f"output {i}: values differ ({lines[1].strip() if len(lines) > 1 else 'mismatch'})")
    return Outcome(True)


def _tensor(x: Any) -> Any:
    """A case's input or expected output as an array: ONNX keeps bfloat16, float8 and 4-bit ones as
    TensorProto (numpy_helper makes them ml_dtypes arrays); sequences and optionals stay as they are."""
    if type(x).__name__ == "TensorProto":
        from onnx import numpy_helper

        return numpy_helper.to_array(x)
    return x


def _inputs(case: Any, names: list[str], data: list[Any]) -> dict[str, Any] | None:
    data = [_tensor(x) for x in data]
    if any(not isinstance(x, (np.ndarray, np.generic)) for x in data):
        return None
    return {name: np.asarray(x) for name, x in zip(names, data)}


def _input_names(model: Any) -> list[str]:
    init = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in init]


def run_case(case: Any, engine: Callable[[Path, list[str]], Callable[[dict[str, Any]], list[Any]]]) -> Outcome:
    """Read the case's model with ``engine`` (path, output names -> a runner), run every data set, compare."""
    import onnx

    names = _input_names(case.model)
    outputs = [o.name for o in case.model.graph.output]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        onnx.save(case.model, str(path))
        try:
            runner = engine(path, outputs)
        except Exception as exc:  # noqa: BLE001 - the runner reports every failure as a reason
            return Outcome(False, "read: " + _short(exc).replace(str(path) + ": ", "").replace(str(path), "model.onnx"))
        for inputs, expected in case.data_sets:
            feed = _inputs(case, names, list(inputs))
            if feed is None:
                return Outcome(False, "inputs are sequences/optionals (not tensors)")
            try:
                with np.errstate(all="ignore"):
                    got = runner(feed)
            except Exception as exc:  # noqa: BLE001
                return Outcome(False, "run: " + _short(exc))
            outcome = compare(case, [_tensor(x) for x in expected], got)
            if not outcome.ok:
                return outcome
    return Outcome(True)


def graphir_engine(path: Path, outputs: list[str]) -> Callable[[dict[str, Any]], list[Any]]:
    import graphir

    model = graphir.read_model(path)
    results = model.get_results()

    def run(feed: dict[str, Any]) -> list[Any]:
        got = model.run(feed)
        by_name = list(got.values())
        if len(by_name) != len(results):
            raise RuntimeError(f"{len(by_name)} results for {len(results)} outputs")
        return by_name

    return run


def openvino_engine(path: Path, outputs: list[str]) -> Callable[[dict[str, Any]], list[Any]]:
    import openvino as ov

    core = ov.Core()
    model = core.read_model(str(path))
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()

    def run(feed: dict[str, Any]) -> list[Any]:
        # by position: the ONNX inputs' order is the model's Parameters' order (a Parameter read
        # through an Identity also carries that output's name, so get_any_name may not be the input's)
        result = request.infer(list(feed.values()))
        return [np.array(result[o]) for o in compiled.outputs]

    return run


def converted_engine(path: Path, outputs: list[str]) -> Callable[[dict[str, Any]], list[Any]]:
    """graphir reads the .onnx and writes IR (what ``graphir convert m.onnx m.xml`` does); OpenVINO runs the IR."""
    import graphir

    xml = path.with_suffix(".xml")
    graphir.save_model(graphir.read_model(path), xml)
    return openvino_engine(xml, outputs)


def iter_outcomes(cases: list[Any], engine: Callable[..., Any]) -> Iterator[tuple[str, Outcome]]:
    for case in cases:
        yield case.name, run_case(case, engine)
