"""Compare every layer of a model against OpenVINO CPU or against another model.

graphir's side is streamed: each layer's output is compared as the run computes it (the
interpreter's ``observe`` hook) and dropped after its last use, so memory stays at the run's live
set plus the reference values of one chunk of layers. The reference side (OpenVINO with an extra
Result on every layer output, or a second graphir model whose matching outputs are copied as it
runs) produces one chunk of layers at a time, the chunks sized by ``chunk_bytes``.

Layers are matched by friendly name and output port. Per layer: max absolute and relative error,
the number of elements past the tolerance (``|a - b| > atol + rtol * |b|``, b the reference), and
cosine similarity. The first layer past the tolerance, in graphir's execution order, is where the
model goes wrong; the errors of its inputs show whether it was fed good values.
"""
from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.errors import GraphirError, InputError
from graphir.tools._common import (ModelLike, Shapes, as_model, constant_only, is_layer, layer_key, model_inputs,
                                   progress_bar, table, tensor_bytes)

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node

#: OpenVINO CPU settings for a comparison: f32 everywhere (no bf16/f16 inference on capable CPUs)
OPENVINO_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32",
                   "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
#: reference values held at once, by default (the OpenVINO side adds Results per chunk this size)
DEFAULT_CHUNK_BYTES = 1 << 30
#: elements compared at a time within one layer output
_BLOCK = 1 << 14


class MissingPackageError(GraphirError, ImportError):
    """An optional package a tool needs is not installed."""


@dataclass
class LayerError:
    """How one layer output differs from the reference."""

    layer: str  # name, or name:port for a layer with several outputs
    name: str  # the layer's friendly name
    port: int
    type: str
    shape: list[int]
    element_type: str
    max_abs: float
    max_rel: float
    mismatches: int
    size: int
    cosine: float
    note: str = ""  # e.g. the shapes differ
    #: why it differs, where the comparison can tell: TIE_ORDER for indices whose values agree
    cause: str = ""

    @property
    def passed(self) -> bool:
        return self.mismatches == 0 and not self.note


@dataclass
class Comparison:
    """The result of :func:`compare`: one record per compared layer output, in execution order."""

    reference: str
    rtol: float
    atol: float
    inputs: list[dict[str, Any]]
    layers: list[LayerError] = field(default_factory=list)
    #: layer outputs graphir computed that the reference has no output of the same name and port for
    unmatched: list[str] = field(default_factory=list)
    #: layer key -> the keys of the layers feeding it (constants and parameters left out)
    feeds: dict[str, list[str]] = field(default_factory=dict)

    @property
    def first_failure(self) -> LayerError | None:
        return next((e for e in self.layers if not e.passed), None)

    @property
    def failed(self) -> bool:
        return self.first_failure is not None

    @property
    def roots(self) -> list[LayerError]:
        """The layers past tolerance fed only by layers within it (or not compared): where a
        difference starts; every other failure is downstream of one of them."""
        by_key = {e.layer: e for e in self.layers}
        return [e for e in self.layers if not e.passed
                and all(k not in by_key or by_key[k].passed for k in self.feeds.get(e.layer, []))]

    def errors_of_inputs(self, layer: LayerError) -> list[LayerError | str]:
        """The records of the layers feeding ``layer`` (the key alone when not compared)."""
        by_key = {e.layer: e for e in self.layers}
        return [by_key.get(k, k) for k in self.feeds.get(layer.layer, [])]

    def to_dict(self) -> dict[str, Any]:
        first = self.first_failure
        return {
            "reference": self.reference, "rtol": self.rtol, "atol": self.atol, "inputs": self.inputs,
            "compared": len(self.layers), "failed": sum(not e.passed for e in self.layers),
            "first_failure": None if first is None else {
                **_record(first),
                "inputs": [_record(e) if isinstance(e, LayerError) else {"layer": e, "compared": False}
                           for e in self.errors_of_inputs(first)]},
            "roots": [e.layer for e in self.roots],
            "layers": [_record(e) for e in self.layers],
            "unmatched": self.unmatched,
        }

    def table(self, only_failed: bool = False, limit: int | None = None) -> str:
        rows = [e for e in self.layers if not (only_failed and e.passed)]
        if limit is not None:
            rows = rows[:limit]
        return table(["layer", "type", "shape", "max abs", "max rel", "mismatch", "cosine", ""],
                     [_row(e) for e in rows])

    def summary(self) -> str:
        """A few lines: inputs, counts, the first failure and its inputs."""
        lines = [f"reference: {self.reference}; tolerance |a-b| <= {self.atol:g} + {self.rtol:g}*|ref|"]
        for i in self.inputs:
            lines.append(f"input {i['name']}: {i['type']}{i['shape']} ({i['source']})")
        bad = sum(not e.passed for e in self.layers)
        lines.append(f"{len(self.layers)} layer outputs compared, {bad} past tolerance"
                     + (f", {len(self.unmatched)} without a reference" if self.unmatched else ""))
        first = self.first_failure
        if first is None:
            lines.append("no layer past tolerance")
            return "\n".join(lines)
        lines.append(f"first past tolerance: {first.layer} ({first.type}) max abs {first.max_abs:.3g}, "
                     f"{first.mismatches}/{first.size} elements, cosine {first.cosine:.6f}"
                     + (f" [{first.note}]" if first.note else ""))
        if first.cause:
            lines.append(f"  {_CAUSES[first.cause]}")
        for e in self.errors_of_inputs(first):
            if isinstance(e, LayerError):
                lines.append(f"  fed by {e.layer} ({e.type}): max abs {e.max_abs:.3g}, "
                             f"{'ok' if e.passed else 'past tolerance'}")
            else:
                lines.append(f"  fed by {e} (not compared)")
        roots = self.roots
        if len(roots) > 1 or roots and roots[0] is not first:
            shown = ", ".join(f"{e.layer} ({e.type}{', ' + e.cause if e.cause else ''})" for e in roots[:5])
            lines.append(f"{len(roots)} layers start a difference (fed only by layers within tolerance): {shown}"
                         + (", ..." if len(roots) > 5 else ""))
        if roots and all(e.cause == TIE_ORDER for e in roots):
            lines.append("every difference is downstream of an order among tied values: no layer computes values "
                         "past tolerance from inputs within it (layers after a tie cannot be judged on these inputs)")
        return "\n".join(lines)


#: LayerError.cause of an index output (TopK's port 1) whose values output is within tolerance
TIE_ORDER = "tie order"
_CAUSES = {TIE_ORDER: "its values (port 0) are within tolerance: the indices of equal or near-equal values are "
                      "in another order (a tie; near-ties depend on summation order), not a wrong computation"}
#: op types whose output 1 holds the indices of the values on output 0
_INDEX_OUTPUTS = {"TopK"}


def _mark_tie_order(layers: Sequence[LayerError]) -> None:
    """Mark index outputs that differ while the values they index agree: an order among ties."""
    values = {(e.name, e.port): e for e in layers}
    for e in layers:
        if e.type in _INDEX_OUTPUTS and e.port == 1 and not e.passed and not e.note:
            sibling = values.get((e.name, 0))
            if sibling is not None and sibling.passed:
                e.cause = TIE_ORDER


def _record(e: LayerError) -> dict[str, Any]:
    out = asdict(e)
    out["passed"] = e.passed
    for k in ("max_abs", "max_rel", "cosine"):
        out[k] = None if math.isnan(out[k]) else out[k]
    return out


def _row(e: LayerError) -> list[Any]:
    return [e.layer, e.type, "x".join(map(str, e.shape)) or "scalar", f"{e.max_abs:.3g}", f"{e.max_rel:.3g}",
            f"{e.mismatches}/{e.size}", f"{e.cosine:.6f}",
            e.note or ("" if e.passed else "FAIL (tie order)" if e.cause == TIE_ORDER else "FAIL")]


def layer_error(key: str, node: "Node", actual: Any, expected: Any, rtol: float, atol: float) -> LayerError:
    """Compare one output (``actual``, graphir's) with the reference (``expected``)."""
    a, b = np.asarray(actual), np.asarray(expected)
    port = int(key.rpartition(":")[2]) if key != node.name else 0

    def record(max_abs: float, max_rel: float, mismatches: int, cosine: float, note: str = "") -> LayerError:
        return LayerError(key, node.name, port, node.type_name, list(a.shape), str(a.dtype), max_abs, max_rel,
                          mismatches, int(a.size), cosine, note)

    if a.shape != b.shape:
        return record(math.nan, math.nan, int(a.size), math.nan, f"shape {list(a.shape)} vs reference {list(b.shape)}")
    if a.dtype.kind not in "fciub" or b.dtype.kind not in "fciub":
        same = int(np.count_nonzero(a != b))
        return record(float(same > 0), float(same > 0), same, 1.0 if same == 0 else math.nan)
    exact = a.dtype.kind in "iub" and b.dtype.kind in "iub"
    work = np.float64 if exact else np.float32
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    max_abs = max_rel = 0.0
    mismatches = 0
    dot = norm_a = norm_b = 0.0
    floor = max(atol, float(np.finfo(np.float32).tiny))
    with np.errstate(all="ignore"):
        for start in range(0, flat_a.size, _BLOCK):  # blocks: temporaries stay small beside big layers
            x = flat_a[start:start + _BLOCK].astype(work)
            y = flat_b[start:start + _BLOCK].astype(work)
            diff = np.abs(x - y)
            agree = (np.isnan(x) & np.isnan(y)) | (np.isinf(x) & (x == y))
            diff[agree] = 0.0
            scale = np.abs(y)
            scale[agree] = 1.0
            mismatches += int(np.count_nonzero(~(diff <= (0.0 if exact else atol + rtol * scale))))
            if diff.size:
                max_abs = max(max_abs, float(np.max(diff)))
                max_rel = max(max_rel, float(np.max(diff / np.maximum(scale, floor))))
            xf, yf = np.nan_to_num(x.astype(np.float64)), np.nan_to_num(y.astype(np.float64))
            dot += float(xf @ yf)
            norm_a += float(xf @ xf)
            norm_b += float(yf @ yf)
    if norm_a == 0 and norm_b == 0:
        cosine = 1.0
    else:
        cosine = dot / math.sqrt(norm_a * norm_b) if norm_a and norm_b else 0.0
    return record(max_abs, max_rel, mismatches, cosine)


def compare(model: ModelLike, reference: "ModelLike | None" = None, *, engine: str | None = None,
            inputs: "Mapping[str, Any] | str | Path | None" = None, shapes: "Shapes | None" = None,
            rtol: float = 1e-3, atol: float = 1e-4, seed: int = 0, chunk_bytes: int = DEFAULT_CHUNK_BYTES,
            layers: "Sequence[str] | None" = None, progress: bool | None = None,
            openvino_config: "Mapping[str, str] | None" = None, openvino_path: "str | Path | None" = None
            ) -> Comparison:
    """Run ``model`` in graphir and the reference on the same inputs; compare every layer output.

    ``reference``: None compares against OpenVINO CPU on the same model (its file, or the IR
    graphir writes of it); a model or path compares against that model, run by graphir, or by
    OpenVINO with ``engine="openvino"`` (a path, or a model graphir writes to a temporary IR).
    ``inputs``: a dict by input name or an .npz file; missing inputs are random (``seed``) with the
    shapes in ``shapes`` or sizes the model accepts; ``Comparison.inputs`` says which.
    ``layers``: compare only these layer names (default: all). ``chunk_bytes``: reference values
    held at once (more layers run the reference once per chunk). ``openvino_path``: the file
    OpenVINO reads when ``model`` is given as a Model read from it (instead of graphir writing it).
    """
    source = model
    model = as_model(model)
    if engine is None:
        engine = "openvino" if reference is None else "graphir"
    if engine not in ("openvino", "graphir"):
        raise InputError(f"compare: engine must be 'openvino' or 'graphir', got {engine!r}")
    feeds, values = model_inputs(model, inputs, shapes, seed)
    typed = model.clone()
    typed.reshape({name: list(v.shape) for name, v in feeds.items()})
    order = [n for n in typed.get_ordered_ops()]
    folded = constant_only(order)
    wanted = None if layers is None else set(layers)
    keys: list[tuple[str, int, int]] = []  # (name, port, bytes)
    for node in order:
        if is_layer(node) and node.id not in folded and (wanted is None or node.name in wanted):
            read = [bool(typed.consumers(node.output(i))) for i in range(len(node.output_types))]
            if node.type_name in _INDEX_OUTPUTS and len(read) > 1 and read[1]:
                read[0] = True  # the values tell an order among ties from a wrong index
            for i, t in enumerate(node.output_types):
                if read[i]:  # an output nothing reads may not be computed
                    keys.append((node.name, i, tensor_bytes(t)))
    result = Comparison(reference="", rtol=rtol, atol=atol, inputs=values)
    result.feeds = _feeds(order, folded)
    if reference is None:
        ref_source: ModelLike = openvino_path if openvino_path is not None else source
        engine = "openvino"
    else:
        ref_source = reference
    if engine == "openvino":
        with tempfile.TemporaryDirectory(prefix="graphir-compare-") as tmp:
            path = _ir_path(ref_source, Path(tmp))
            result.reference = f"OpenVINO CPU ({path if not str(path).startswith(tmp) else 'IR written by graphir'})"
            produce = _openvino_producer(path, feeds, openvino_config)
            _compare_chunks(model, feeds, keys, produce, result, chunk_bytes, progress, openvino_numerics=True)
    else:
        other = as_model(ref_source)
        result.reference = f"graphir ({ref_source if isinstance(ref_source, (str, Path)) else other.name})"
        _compare_chunks(model, feeds, keys, _graphir_producer(other, feeds), result, chunk_bytes, progress)
    return result


def _feeds(order: Sequence["Node"], folded: set[int]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node in order:
        if is_layer(node) and node.id not in folded:
            srcs = [layer_key(s.node, s.index) for s in node.inputs
                    if s is not None and is_layer(s.node) and s.node.id not in folded]
            for i in range(len(node.output_types)):
                out[layer_key(node, i)] = srcs
    return out


def _ir_path(model: ModelLike, tmp: Path) -> Path:
    if isinstance(model, (str, Path)) and str(model).lower().endswith(".xml"):
        return Path(model)
    import graphir

    path = tmp / "reference.xml"
    graphir.save_model(as_model(model), path)
    return path


Producer = Callable[[Sequence[tuple[str, int]]], "dict[tuple[str, int], np.ndarray]"]


def _chunks(keys: Sequence[tuple[str, int, int]], budget: int) -> list[list[tuple[str, int]]]:
    chunks: list[list[tuple[str, int]]] = [[]]
    held = 0
    for name, port, nbytes in keys:
        if chunks[-1] and held + nbytes > budget:
            chunks.append([])
            held = 0
        chunks[-1].append((name, port))
        held += nbytes
    return chunks


def _compare_chunks(model: "Model", feeds: dict[str, np.ndarray], keys: Sequence[tuple[str, int, int]],
                    produce: Producer, result: Comparison, chunk_bytes: int, progress: bool | None,
                    openvino_numerics: bool = False) -> None:
    from graphir.interpreter import execute

    # against OpenVINO, graphir computes as OpenVINO's CPU plugin does (the openvino-cpu numerics profile)
    numerics = "openvino-cpu" if openvino_numerics else "reference"
    chunks = _chunks(keys, chunk_bytes)
    bar = progress_bar(len(keys), "compare", progress)
    found: list[LayerError] = []
    missing: list[str] = []
    try:
        for chunk in chunks:
            expected = produce(chunk)
            wanted = set(chunk)

            def observe(node: "Node", outs: list[Any]) -> None:
                for i, value in enumerate(outs):
                    ref = expected.pop((node.name, i), None)
                    if ref is not None:
                        found.append(layer_error(layer_key(node, i), node, value, ref, result.rtol, result.atol))
                        bar.update(1)
                    elif (node.name, i) in wanted:  # computed here, not by the reference
                        missing.append(layer_key(node, i))

            execute(model, feeds, None, observe=observe, numerics=numerics)
            expected.clear()
    finally:
        bar.close()
    _mark_tie_order(found)
    result.layers = found
    result.unmatched = missing


def _graphir_producer(other: "Model", feeds: dict[str, np.ndarray]) -> Producer:
    from graphir.interpreter import execute

    def produce(chunk: Sequence[tuple[str, int]]) -> dict[tuple[str, int], np.ndarray]:
        wanted = set(chunk)
        got: dict[tuple[str, int], np.ndarray] = {}

        def keep(node: "Node", outs: list[Any]) -> None:
            for i, value in enumerate(outs):
                if (node.name, i) in wanted:
                    got[(node.name, i)] = np.array(value, copy=True)  # later steps may write into it

        execute(other, feeds, None, observe=keep)
        return got

    return produce


def _openvino_producer(path: Path, feeds: dict[str, np.ndarray], config: "Mapping[str, str] | None") -> Producer:
    try:
        import openvino as ov
    except ImportError:
        raise MissingPackageError("comparing against OpenVINO needs the 'openvino' package "
                                  "(pip install openvino)") from None
    core = ov.Core()

    def produce(chunk: Sequence[tuple[str, int]]) -> dict[tuple[str, int], np.ndarray]:
        ov_model = core.read_model(str(path))
        ops = {op.get_friendly_name(): op for op in ov_model.get_ordered_ops()}
        extra = [ops[name].output(port) for name, port in chunk
                 if name in ops and port < ops[name].get_output_size()
                 and ops[name].get_type_name() not in ("Parameter", "Constant", "Result")]
        if extra:
            ov_model.add_outputs(extra)
        compiled = core.compile_model(ov_model, "CPU", dict(config or OPENVINO_CONFIG))
        by_name = {}
        for port in compiled.inputs:
            by_name[port.get_node().get_friendly_name()] = port
        request = compiled.create_infer_request()
        args = {}
        for name, value in feeds.items():
            if name not in by_name:
                raise GraphirError(f"OpenVINO's model {path} has no input named '{name}'")
            args[by_name[name]] = value
        request.infer(args)
        wanted = set(chunk)
        got: dict[tuple[str, int], np.ndarray] = {}
        for i, res in enumerate(ov_model.get_results()):
            src = res.input_value(0)
            key = (src.get_node().get_friendly_name(), src.get_index())
            if key in wanted and key not in got:
                got[key] = np.array(request.get_output_tensor(i).data, copy=True)
        return got

    return produce
