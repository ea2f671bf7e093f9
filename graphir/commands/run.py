"""``graphir run MODEL [--input NAME=FILE.npy ...] [--random] [--output OUT.npz]``."""
from __future__ import annotations

import argparse
import sys
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphir.cli import EXIT_OK, UsageError, command
from graphir.commands._common import load_model, split_assignment, table
from graphir.ops.openvino.core import parameter_of

if TYPE_CHECKING:
    from graphir.model import Model
    from graphir.node import Node


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="OpenVINO IR .xml (with its .bin) or oneDNN Graph .json")
    p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input's value from a .npy file (repeatable; a bare FILE.npy for a one-input model)")
    p.add_argument("--random", action="store_true",
                   help="fill inputs not given with random values (dynamic dims: 1, or an interval's minimum)")
    p.add_argument("--shape", "-s", action="append", default=[], metavar="NAME=SHAPE",
                   help="reshape an input before running, e.g. x=[2,32] (repeatable): fixes the dims "
                        "--random would otherwise set to 1")
    p.add_argument("--seed", type=int, default=0, help="seed for --random (default 0)")
    p.add_argument("--output", "-o", metavar="OUT.npz", help="write every output to an .npz, keyed by output name")
    p.add_argument("--profile", action="store_true", help="also print time and output bytes per node")
    p.add_argument("--max-tensor-bytes", type=int, metavar="N",
                   help="the largest tensor the run may build (default: $GRAPHIR_MAX_TENSOR_BYTES or 4 GiB)")
    p.add_argument("--json", action="store_true", help="print the output summaries as JSON")


def concrete_shape(param: "Node") -> tuple[int, ...]:
    """A Parameter's shape for random data: static dims as they are, ``?`` -> 1, ``a..b`` -> max(a, 1)
    capped at b (so ``0..0`` stays 0)."""
    shape = parameter_of(param).shape
    if not shape.rank_is_static:
        return ()
    dims = []
    for d in shape.dims:
        if d.is_static:
            dims.append(d.min)
        else:
            length = max(d.min, 1)
            dims.append(length if d.max is None else min(length, d.max))
    return tuple(dims)


#: value ranges for element types narrower than their numpy container
_SUB_BYTE_RANGES = {"u1": (0, 1), "u2": (0, 3), "u3": (0, 7), "u4": (0, 7), "u6": (0, 7), "i4": (-8, 7)}


def random_value(param: "Node", rng: np.random.Generator) -> np.ndarray:
    """Random data matching a Parameter's element type and (concretised) shape."""
    from graphir.limits import check_tensor

    et = parameter_of(param).element_type
    shape = concrete_shape(param)
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
    return rng.standard_normal(shape).astype(dtype)


def gather_inputs(model: "Model", specs: list[str], fill_random: bool, seed: int) -> dict[int, Any]:
    """Parameter index -> value, from --input files and (with --random) random data."""
    from graphir.inference import find_parameter
    from graphir.errors import InputError

    params = model.get_parameters()
    values: dict[int, Any] = {}
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
        values[params.index(node)] = load_array(file, node.name)
    missing = [p for i, p in enumerate(params) if i not in values]
    if missing and not fill_random:
        raise UsageError("no value for input(s) " + ", ".join(f"'{p.name}'" for p in missing)
                         + "; give --input NAME=FILE.npy or --random")
    rng = np.random.default_rng(seed)
    for p in missing:
        values[params.index(p)] = random_value(p, rng)
    return values


def load_array(file: str, name: str) -> np.ndarray:
    path = Path(file)
    if not path.is_file():
        raise UsageError(f"input '{name}': {file}: no such file")
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise UsageError(f"input '{name}': {file}: not a readable .npy file ({exc})") from None
    if not isinstance(data, np.ndarray):
        data.close()
        raise UsageError(f"input '{name}': {file}: expected one array (.npy), got an archive")
    return data


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


@command("run", configure)
def run(args: argparse.Namespace) -> int:
    """Run a model on inputs from .npy files or random data; print and save the outputs."""
    from graphir.errors import InputError
    from graphir.interpreter import RunResult

    model = load_model(args.model)
    if args.shape:
        from graphir.commands.shapes import reshape_arguments

        try:
            model.reshape(reshape_arguments(model, args.shape))
        except InputError as exc:
            raise UsageError(str(exc)) from None
    from graphir.limits import tensor_limit

    with tensor_limit(args.max_tensor_bytes):
        values = gather_inputs(model, args.input, args.random, args.seed)
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
                np.lib.format.write_array(member, np.asarray(value), allow_pickle=True)
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
