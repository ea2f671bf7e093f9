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
                        "or arr_N for the N-th input")
    p.add_argument("--random", action="store_true",
                   help="fill inputs not given with random values; dynamic dims get sizes the model accepts "
                        "(--shape first, then the sizes the file records, then interval bounds, then the "
                        "smallest size shape inference accepts)")
    p.add_argument("--shape", "-s", action="append", default=[], metavar="NAME=SHAPE",
                   help="reshape an input before running, e.g. x=[2,32] (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed for --random (default 0)")
    p.add_argument("--output", "-o", metavar="OUT.npz", help="write every output to an .npz, keyed by output name")
    p.add_argument("--profile", action="store_true", help="also print time and output bytes per node")
    p.add_argument("--max-tensor-bytes", type=int, metavar="N",
                   help="the largest tensor the run may build (default: $GRAPHIR_MAX_TENSOR_BYTES or 4 GiB)")
    p.add_argument("--json", action="store_true", help="print the output summaries as JSON")


#: value ranges for element types narrower than their numpy container
_SUB_BYTE_RANGES = {"u1": (0, 1), "u2": (0, 3), "u3": (0, 7), "u4": (0, 7), "u6": (0, 7), "i4": (-8, 7)}


def random_value(param: "Node", shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Random data of a Parameter's element type and the given (static) shape."""
    from graphir.limits import check_tensor

    et = parameter_of(param).element_type
    name = str(et)
    check_tensor(shape, np.float64, f"random value for input '{param.name}'")  # drawn in f64 first
    if name == "boolean":
        return rng.random(shape) < 0.5
    if name == "string":
        return np.array(["graphir"], dtype=object).repeat(int(np.prod(shape, dtype=np.int64))).reshape(shape)
    if et.is_dynamic:
        return rng.standard_normal(shape).astype(np.float32)
    dtype = np.dtype(et.numpy_dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = _SUB_BYTE_RANGES.get(name, (max(int(info.min), -8), min(int(info.max), 8)))
        return rng.integers(low, high + 1, size=shape).astype(dtype)
    if name in _SUB_BYTE_RANGES:
        low, high = _SUB_BYTE_RANGES[name]
        return rng.integers(low, high + 1, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _target_dtype(param: "Node") -> np.dtype | None:
    et = parameter_of(param).element_type
    if et.is_dynamic or str(et) == "string":
        return None
    return np.dtype(et.numpy_dtype)


def gather_inputs(model: "Model", specs: list[str], fill_random: bool, seed: int, *, archives: Sequence[str] = (),
                  recorded: "dict[int, list[list[int]]] | None" = None) -> dict[int, Any]:
    """Parameter index -> value, from --input files, --inputs archives and (with --random) random
    data of sizes the model accepts."""
    from graphir.commands.arrays import load_npy, load_npz, read_member
    from graphir.errors import InputError
    from graphir.inference import find_parameter

    params = model.get_parameters()
    values: dict[int, Any] = {}
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
    "graphir run model.xml --random --profile"))
def run(args: argparse.Namespace) -> int:
    """Run a model on inputs from .npy files or random data; print and save the outputs."""
    from graphir.errors import InputError
    from graphir.interpreter import RunResult

    model = load_reshaped(args.model, args.shape)
    from graphir.limits import tensor_limit

    with tensor_limit(args.max_tensor_bytes):
        recorded = recorded_dims(args.model, model) if args.random else {}
        values = gather_inputs(model, args.input, args.random, args.seed, archives=args.inputs, recorded=recorded)
        try:
            result = model.run(values, profile=args.profile)
        except InputError as exc:
            raise UsageError(str(exc)) from None
    outputs = result.outputs if isinstance(result, RunResult) else result
    variables = model.variables
    if variables:  # on stderr: the JSON on stdout keeps its format
        print(f"stateful model: ran one step from the initial state of its {len(variables)} variable(s) "
              f"(each run starts afresh; carry state with model.create_infer_request())", file=sys.stderr)
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
    if args.profile and isinstance(result, RunResult):
        print()
        print(result.table())
    return EXIT_OK


def _storable(value: np.ndarray) -> np.ndarray:
    """An output as an .npz stores it without pickling: strings as a unicode array."""
    array = np.asarray(value)
    if array.dtype.kind == "O":
        return np.array([v.decode() if isinstance(v, bytes) else str(v) for v in array.reshape(-1)],
                        dtype=str).reshape(array.shape)
    return array


def write_npz(path: str, outputs: dict[str, Any]) -> None:
    """The outputs as an .npz at exactly ``path`` (numpy would append ``.npz`` to a name without
    it), written atomically; a directory or an unwritable place is a UsageError."""
    import io
    import zipfile

    from graphir.errors import SerializationError
    from graphir.serializers.atomic import atomic_write

    if Path(path).is_dir():
        raise UsageError(f"--output {path}: is a directory; give a file name such as {Path(path) / 'outputs.npz'}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # as np.savez writes it, for any output name (even "file")
        for key, value in outputs.items():
            with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, _storable(value), allow_pickle=False)
    try:
        atomic_write(path, buffer.getbuffer())
    except SerializationError as exc:
        raise UsageError(f"--output {exc}") from None


def _type_name(array: np.ndarray) -> str:
    from graphir.types import ElementType

    try:
        return str(ElementType.from_numpy(array.dtype))
    except Exception:  # noqa: BLE001 - an unusual dtype: show numpy's name
        return str(array.dtype)
