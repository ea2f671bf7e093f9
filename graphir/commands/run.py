"""``graphir run MODEL [--input NAME=FILE.npy ...] [--random] [--output OUT.npz]``."""
from __future__ import annotations

import argparse
import sys
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.cli import EXIT_OK, UsageError, command
from graphir.commands._common import load_reshaped, split_assignment, table
from graphir.numerics import PROFILES
from graphir.commands.run_inputs import input_arrays, report_random, split_steps
from graphir.input_sizes import random_value
from graphir.ops.openvino.core import parameter_of

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin), oneDNN Graph .json or ONNX .onnx")
    p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input's value from a .npy file (repeatable; a bare FILE.npy for a one-input model); "
                        "any element type, bf16/f8/int4 included (ml_dtypes)")
    p.add_argument("--inputs", metavar="FILE.npz", action="append", default=[],
                   help="input values from an .npz archive, keyed by input name (friendly or tensor name) "
                        "or arr_N for the N-th input; keys step<k>:<name> run steps 0, 1, ... in order, "
                        "the state carried (a stateful model's token-by-token run)")
    p.add_argument("--random", action="store_true",
                   help="fill inputs not given with random values; dynamic dims get sizes the model accepts "
                        "(--shape first, then the sizes the file records, then the defaults: 224 for an "
                        "image's height and width, 1 for a batch, 16 for other dims, then interval bounds, "
                        "then the smallest size shape inference accepts); the shapes chosen go to stderr")
    p.add_argument("--save-inputs", metavar="FILE.npz",
                   help="also write every input of the run (random ones included) to an .npz, keyed by input "
                        "name, for --inputs to read back")
    p.add_argument("--shape", "-s", action="append", default=[], metavar="NAME=SHAPE",
                   help="reshape an input before running, e.g. x=[2,32] (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed for --random (default 0)")
    p.add_argument("--output", "-o", metavar="OUT.npz", help="write every output to an .npz, keyed by output name")
    p.add_argument("--profile", action="store_true", help="also print time and output bytes per node")
    p.add_argument("--max-tensor-bytes", type=int, metavar="N",
                   help="the largest tensor the run may build (default: $GRAPHIR_MAX_TENSOR_BYTES or 4 GiB)")
    p.add_argument("--json", action="store_true", help="print the output summaries as JSON")
    p.add_argument("--numerics", choices=PROFILES, default="reference",
                   help="numerics profile: reference (spec semantics, the same bits on every host; default) or "
                        "openvino-cpu (OpenVINO CPU's arithmetic and orders, to compare with it; docs/numerics.md)")


def _target_dtype(param: "Node") -> np.dtype | None:
    et = parameter_of(param).element_type
    if et.is_dynamic or str(et) == "string":
        return None
    return np.dtype(et.numpy_dtype)


def gather_inputs(model: "Model", specs: list[str], fill_random: bool, seed: int, *, archives: Sequence[str] = (),
                  recorded: "dict[int, list[list[int]]] | None" = None, preset: "dict[int, Any] | None" = None,
                  chosen: "dict[int, tuple[int, ...]] | None" = None) -> dict[int, Any]:
    """Parameter index -> value, from ``preset``, --input files, --inputs archives and (with
    --random) random data of sizes the model accepts (their shapes also put in ``chosen``)."""
    from graphir.commands.arrays import load_npy, load_npz, read_member
    from graphir.errors import InputError
    from graphir.inference import find_parameter

    params = model.get_parameters()
    values: dict[int, Any] = dict(preset or {})
    for archive in archives:
        for key, data in load_npz(archive).items():
            index = _archive_key(model, key, archive)
            values[index] = read_member(data, _target_dtype(params[index]), f"--inputs {archive}: '{key}'")
    for text in specs:
        name, file = split_assignment(text, "FILE.npy")
        if name is None:
            if len(params) != 1:
                raise UsageError(f"--input {text!r}: the model has {len(params)} inputs; use NAME=FILE.npy")
            node = params[0]
        else:
            try:
                node = find_parameter(model, name)
            except InputError as exc:
                raise UsageError(str(exc)) from None
        values[params.index(node)] = load_npy(file, node.name, _target_dtype(node))
    missing = [i for i in range(len(params)) if i not in values]
    if missing and not fill_random:
        raise UsageError("no value for input(s) " + ", ".join(f"'{params[i].name}'" for i in missing)
                         + "; give --input NAME=FILE.npy, --inputs FILE.npz or --random")
    if missing:
        from graphir.input_sizes import choose_input_shapes

        shapes = choose_input_shapes(model, recorded)
        rng = np.random.default_rng(seed)
        for i in missing:
            values[i] = random_value(params[i], shapes[i], rng)
            if chosen is not None:
                chosen[i] = shapes[i]
    return values


def _archive_key(model: "Model", key: str, archive: str) -> int:
    """The Parameter index an .npz key names: an input's friendly or tensor name, or arr_N."""
    from graphir.errors import InputError
    from graphir.inference import find_parameter

    params = model.get_parameters()
    try:
        return params.index(find_parameter(model, key))
    except InputError:
        pass
    match = re.fullmatch(r"arr_(\d+)", key)
    if match and int(match.group(1)) < len(params):
        return int(match.group(1))
    known = ", ".join(f"'{p.name}'" for p in params) or "none"
    raise UsageError(f"--inputs {archive}: key '{key}' names no input of model '{model.name}' (inputs: {known}; "
                     f"or arr_0..arr_{len(params) - 1} by position)")


def recorded_dims(path: str, model: "Model") -> dict[int, list[list[int]]]:
    """Parameter id -> the dim lists an IR file records for it: its output port and the input
    ports of its consumers (-1: dynamic). Empty for other formats or an unreadable file."""
    if not path.endswith(".xml"):
        return {}
    from lxml import etree

    ids = {str(p.id): p.id for p in model.get_parameters()}
    try:
        root = etree.parse(path, etree.XMLParser(huge_tree=True, resolve_entities=False)).getroot()
    except (OSError, etree.XMLSyntaxError):
        return {}
    layers = {el.get("id"): el for el in root.iterfind("layers/layer")}
    found: dict[int, list[list[int]]] = {}

    def dims(layer: Any, kind: str, port: str | None) -> list[int] | None:
        for el in layer.iterfind(f"{kind}/port"):
            if port is None or el.get("id") == port:
                try:
                    return [int(d.text) for d in el.iterfind("dim")]
                except (TypeError, ValueError):
                    return None
        return None

    for lid, pid in ids.items():
        layer = layers.get(lid)
        if layer is not None and (own := dims(layer, "output", None)) is not None:
            found.setdefault(pid, []).append(own)
    for edge in root.iterfind("edges/edge"):
        source = ids.get(edge.get("from-layer", ""))
        consumer = layers.get(edge.get("to-layer", ""))
        if source is not None and consumer is not None:
            seen = dims(consumer, "input", edge.get("to-port"))
            if seen is not None:
                found.setdefault(source, []).append(seen)
    return found


def summarize(array: np.ndarray) -> str:
    """A short summary: min/max/mean for numbers, the first values otherwise."""
    if array.size == 0:
        return "empty"
    flat = array.reshape(-1)
    if array.dtype.kind in "fiu" or array.dtype.kind == "V":
        values = flat.astype(np.float64)
        finite = values[np.isfinite(values)]
        head = np.array2string(flat[:4].astype(np.float64), precision=4, separator=", ")
        if finite.size == 0:
            return f"no finite values; first {head}"
        stats = f"min {finite.min():.6g}  max {finite.max():.6g}  mean {finite.mean():.6g}"
        return stats + ("" if finite.size == values.size else f"  ({values.size - finite.size} non-finite)")
    if array.dtype.kind == "b":
        return f"{int(flat.sum())} of {flat.size} true"
    return "first " + ", ".join(repr(v) for v in flat[:4].tolist())


@command("run", configure, examples=(
    "graphir run model.xml --random",
    "graphir run model.xml --random --shape x=[2,3,224,224] --seed 1",
    "graphir run model.xml --input x=x.npy --output out.npz",
    "graphir run model.xml --inputs inputs.npz --json",
    "graphir run model.xml --random --profile",
    "graphir run model.xml --random --numerics openvino-cpu"))
def run(args: argparse.Namespace) -> int:
    """Run a model on inputs from .npy files or random data; print and save the outputs."""
    from graphir.errors import InputError
    from graphir.interpreter import RunResult

    if args.output:
        _refuse_overwriting_inputs(args)
    model = load_reshaped(args.model, args.shape)
    from graphir.limits import tensor_limit

    with tensor_limit(args.max_tensor_bytes):
        recorded = recorded_dims(args.model, model) if args.random else {}
        steps = _steps(args.inputs)
        if steps is not None:
            return _run_steps(model, args, steps, recorded)
        chosen: dict[int, tuple[int, ...]] = {}
        values = gather_inputs(model, args.input, args.random, args.seed, archives=args.inputs, recorded=recorded,
                               chosen=chosen)
        report_random(model, values, chosen, args.seed)
        if args.save_inputs:
            write_npz(args.save_inputs, input_arrays(model, values), what="--save-inputs")
        try:
            result = model.profile(values, numerics=args.numerics) if args.profile else model.run(values, numerics=args.numerics)
        except InputError as exc:
            raise UsageError(str(exc)) from None
    outputs = result.outputs if isinstance(result, RunResult) else result
    variables = model.variables
    if variables:  # on stderr: the JSON on stdout keeps its format
        print(f"stateful model: ran one step from the initial state of its {len(variables)} variable(s) "
              f"(each run starts afresh; an --inputs archive keyed step<k>:<name> runs steps in order, or carry state with model.create_infer_request())", file=sys.stderr)
    return _report(args, outputs, result if isinstance(result, RunResult) else None)


def _report(args: argparse.Namespace, outputs: dict[str, Any], result: Any) -> int:
    """Print the outputs (a table or JSON), write --output, print --profile's table."""
    records = [{"name": key, "type": _type_name(array), "shape": list(array.shape), "summary": summarize(array)}
               for key, array in outputs.items()]
    if args.output:
        write_npz(args.output, outputs)
    if args.json:
        print(json.dumps(records, indent=2))
    else:
        print(table(["output", "type", "shape", "summary"],
                    [[r["name"], r["type"], str(r["shape"]).replace(" ", ""), r["summary"]] for r in records]))
        if args.output:
            print(f"wrote {len(records)} output(s) to {args.output}")
    if args.profile and result is not None:
        print()
        print(result.table())
    return EXIT_OK


def _refuse_overwriting_inputs(args: argparse.Namespace) -> None:
    """A UsageError naming both when ``--output`` is a file the run reads (the model, its weights,
    an input), before anything is read or written."""
    from graphir.errors import SerializationError
    from graphir.serializers.atomic import refuse_overwriting

    sources: list[tuple[str, str | Path]] = [("the model", args.model)]
    if args.model.lower().endswith(".xml"):
        sources.append(("the model's weights", Path(args.model).with_suffix(".bin")))
    sources += [("the input", split_assignment(text, "FILE.npy")[1]) for text in args.input]
    sources += [("the inputs", archive) for archive in args.inputs]
    try:
        refuse_overwriting([("--output", args.output)], sources)
    except SerializationError as exc:
        raise UsageError(str(exc)) from None
def _steps(archives: Sequence[str]) -> "dict[int, dict[str, Any]] | None":
    """The steps of a multi-step --inputs archive (``step<k>:<name>`` keys), or None."""
    from graphir.commands.arrays import load_npz

    if len(archives) != 1:
        for archive in archives:
            if split_steps(load_npz(archive), archive) is not None:
                raise UsageError(f"--inputs {archive}: a multi-step archive is the only --inputs of a run")
        return None
    return split_steps(load_npz(archives[0]), archives[0])


def _run_steps(model: "Model", args: argparse.Namespace, steps: "dict[int, dict[str, Any]]",
               recorded: "dict[int, list[list[int]]]") -> int:
    """Each step's inputs run in turn through one infer request (the state carried); the outputs
    keyed ``step<k>:<name>``."""
    from graphir.commands.arrays import read_member
    from graphir.errors import InputError

    if args.profile:
        raise UsageError("--profile times one run; it does not take a multi-step --inputs archive")
    params = model.get_parameters()
    request = model.create_infer_request(numerics=args.numerics)
    outputs: dict[str, Any] = {}
    saved: dict[str, Any] = {}
    for k, members in steps.items():
        preset = {}
        for name, data in members.items():
            index = _archive_key(model, name, f"{args.inputs[0]} (step{k})")
            preset[index] = read_member(data, _target_dtype(params[index]), f"--inputs {args.inputs[0]}: 'step{k}:{name}'")
        chosen: dict[int, tuple[int, ...]] = {}
        values = gather_inputs(model, args.input, args.random, args.seed + k, recorded=recorded, preset=preset,
                               chosen=chosen)
        report_random(model, values, chosen, args.seed + k, step=k)
        saved.update(input_arrays(model, values, prefix=f"step{k}:"))
        try:
            result = request.infer(values)
        except InputError as exc:
            raise UsageError(f"step {k}: {exc}") from None
        outputs.update({f"step{k}:{key}": value for key, value in result.items()})
    if args.save_inputs:
        write_npz(args.save_inputs, saved, what="--save-inputs")
    return _report(args, outputs, None)


def _storable(value: np.ndarray) -> np.ndarray:
    """An output as an .npz stores it without pickling: strings as a unicode array."""
    array = np.asarray(value)
    if array.dtype.kind == "O":
        return np.array([v.decode() if isinstance(v, bytes) else str(v) for v in array.reshape(-1)],
                        dtype=str).reshape(array.shape)
    return array


def write_npz(path: str, outputs: dict[str, Any], what: str = "--output") -> None:
    """The outputs as an .npz at exactly ``path`` (numpy would append ``.npz`` to a name without
    it), written atomically; a directory or an unwritable place is a UsageError."""
    import io
    import zipfile

    from graphir.errors import SerializationError
    from graphir.serializers.atomic import atomic_write

    if Path(path).is_dir():
        raise UsageError(f"{what} {path}: is a directory; give a file name such as {Path(path) / 'outputs.npz'}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # as np.savez writes it, for any output name (even "file")
        for key, value in outputs.items():
            with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, _storable(value), allow_pickle=False)
    try:
        atomic_write(path, buffer.getbuffer())
    except SerializationError as exc:
        raise UsageError(f"{what} {exc}") from None


def _type_name(array: np.ndarray) -> str:
    from graphir.types import ElementType

    try:
        return str(ElementType.from_numpy(array.dtype))
    except Exception:  # noqa: BLE001 - an unusual dtype: show numpy's name
        return str(array.dtype)
