"""The hostile-input cases of ``tests/test_hostile.py`` and the runner that executes them.

Every case is a function that builds its input (files in its own directory) and does what an
attacker or a careless pipeline would do: read a file, run a model, save over a good file. It
returns a short summary of a good outcome, or raises. The runner (``python -m tests.hostile_cases
OUT.json``, started once by the test module) imports graphir once, then forks one worker per case,
a few at a time; each worker sets its own memory limit (``RLIMIT_AS``), CPU limit (``RLIMIT_CPU``)
and wall-clock alarm, so a hang, a blow-up or a crash is an outcome like any other: the test side
then asserts, per case, the outcome's class and message.
"""
from __future__ import annotations

import json
import math
import os
import resource
import signal
import struct
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
MiB = 1 << 20


@dataclass
class Case:
    name: str
    run: Callable[[Path], Any]
    #: "ok", or the exception class name the case must raise
    expect: str
    #: fragments the message (or, for "ok", the summary) must contain
    fragments: tuple[str, ...] = ()
    seconds: float = 20.0
    memory_mib: int = 2048


CASES: dict[str, Case] = {}


def case(expect: str, *fragments: str, seconds: float = 20.0, memory_mib: int = 2048,
         name: str | None = None) -> Callable[[Callable[[Path], Any]], Callable[[Path], Any]]:
    def register(fn: Callable[[Path], Any]) -> Callable[[Path], Any]:
        key = name or fn.__name__
        CASES[key] = Case(key, fn, expect, fragments, seconds, memory_mib)
        return fn
    return register


# ============================================================================== helpers ==
def base_ir(directory: Path, name: str = "base") -> tuple[Path, str]:
    """A small valid IR (Parameter a[2,3] + Const -> Add -> Result); its path and XML text."""
    import numpy as np

    import graphir
    from graphir import opset
    from graphir.serializers.openvino_xml import write_ir

    a = opset.parameter([2, 3], "f32", name="a")
    k = opset.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="k")
    y = opset.add(a, k, name="add")
    path = directory / f"{name}.xml"
    write_ir(graphir.Model([y], [a], name=name), path)
    return path, path.read_text()


def write_variant(directory: Path, name: str, text: "str | bytes", blob: "bytes | None" = None) -> Path:
    path = directory / f"{name}.xml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    if blob is None:
        blob = (directory / "base.bin").read_bytes()
    path.with_suffix(".bin").write_bytes(blob)
    return path


def read(path: Path) -> str:
    import graphir

    model = graphir.read_model(path)
    return repr(model)


def mutated_ir(directory: Path, text: str, old: str, new: str, name: str = "bad") -> Path:
    assert old in text, old
    return write_variant(directory, name, text.replace(old, new, 1))


# ============================================================ XML: DTDs in any encoding ==
BILLION_LAUGHS = ('<!DOCTYPE net [<!ENTITY lol "lol">'
                  + "".join(f'<!ENTITY lol{i} "{("&lol;" if i == 1 else f"&lol{i - 1};") * 10}">' for i in range(1, 10))
                  + "]>")
XXE = '<!DOCTYPE net [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
XXE_REMOTE = '<!DOCTYPE net [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd"> %remote;]>'
ENCODINGS = {"utf8": "utf-8", "utf16": "utf-16", "utf16be": "utf-16-be", "utf32": "utf-32"}


def _with_doctype(directory: Path, doctype: str, encoding: str, use: str) -> Path:
    _, text = base_ir(directory)
    declared = encoding.replace("-be", "").replace("-le", "")
    text = text.replace('<?xml version="1.0"?>', f'<?xml version="1.0" encoding="{declared}"?>\n{doctype}')
    text = text.replace('name="add"', f'name="{use}"')
    return write_variant(directory, "dtd", text.encode(encoding))


def _register_dtd_cases() -> None:
    for label, encoding in ENCODINGS.items():
        for kind, doctype, use in (("billion_laughs", BILLION_LAUGHS, "&lol9;"), ("xxe", XXE, "&xxe;"),
                                   ("xxe_parameter_entity", XXE_REMOTE, "add")):
            def run(directory: Path, doctype: str = doctype, encoding: str = encoding, use: str = use) -> str:
                return read(_with_doctype(directory, doctype, encoding, use))
            case("SerializationError", "dtd.xml", "DOCTYPE", seconds=10, memory_mib=1024,
                 name=f"{kind}_{label}")(run)

        def valid(directory: Path, encoding: str = encoding) -> str:
            _, text = base_ir(directory)
            declared = encoding.replace("-be", "").replace("-le", "")
            text = text.replace('<?xml version="1.0"?>', f'<?xml version="1.0" encoding="{declared}"?>')
            return read(write_variant(directory, "enc", text.encode(encoding)))
        case("ok", "(a: f32[2,3]) -> (f32[2,3])", name=f"valid_ir_in_{label}")(valid)


_register_dtd_cases()


@case("ok", "(a: f32[2,3]) -> (f32[2,3])")
def doctype_inside_a_comment(directory: Path) -> str:
    _, text = base_ir(directory)
    text = text.replace("<net ", f"<!-- {XXE} <!ENTITY x 'y'> -->\n<net ", 1)
    text = text.replace("<layers>", "<layers><!-- <!DOCTYPE net> -->", 1)
    return read(write_variant(directory, "comment", text))


@case("ok", "<!DOCTYPE x>")
def doctype_text_in_an_attribute_value(directory: Path) -> str:
    import graphir

    _, text = base_ir(directory)
    model = graphir.read_model(mutated_ir(directory, text, 'name="add"', 'name="&lt;!DOCTYPE x&gt;"'))
    return [n.name for n in model.nodes() if n.type_name == "Add"][0]


@case("SerializationError", "bad.xml", "malformed XML", "lol")
def undeclared_entity(directory: Path) -> str:
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, 'name="add"', 'name="&lol;"'))


# ============================================================== huge counts and nesting ==
@case("ok", "300000 unknown attributes", seconds=60)
def attributes_300000_on_one_data_element(directory: Path) -> str:
    import graphir

    _, text = base_ir(directory)
    attrs = " ".join(f'x{i}="{i}"' for i in range(300_000))
    path = mutated_ir(directory, text, '<data auto_broadcast="numpy" />', f'<data auto_broadcast="numpy" {attrs} />')
    start = time.perf_counter()
    model = graphir.read_model(path)
    elapsed = time.perf_counter() - start
    add = [n for n in model.nodes() if n.type_name == "Add"][0]
    unknown = add.extra["ir_unknown_attributes"]
    assert unknown["x299999"] == "299999"
    return f"{len(unknown)} unknown attributes read in {elapsed:.1f} s"


def _nested_rt_info(depth: int) -> str:
    return ("".join(f"<k{i}>" for i in range(depth)) + '<leaf value="deep"/>'
            + "".join(f"</k{i}>" for i in reversed(range(depth))))


@case("ok", "depth 1500", "written and read back")
def rt_info_nested_1500_deep(directory: Path) -> str:
    """OpenVINO 2026.4 reads it (its rt_info is a map of maps); so does graphir, and writes it."""
    import graphir

    _, text = base_ir(directory)
    model = graphir.read_model(mutated_ir(directory, text, "<rt_info />", f"<rt_info>{_nested_rt_info(1500)}</rt_info>"))

    def depth(info: Any) -> int:
        d = 0
        while isinstance(info, dict) and "leaf" not in info:
            info = next(iter(info.values()))
            d += 1
        return d

    assert depth(model.rt_info) == 1500
    graphir.save_model(model, directory / "again.xml")
    again = graphir.read_model(directory / "again.xml")
    assert depth(again.rt_info) == 1500
    return "depth 1500, written and read back"


@case("SerializationError", "bad.xml", "malformed XML", "depth")
def elements_nested_100000_deep(directory: Path) -> str:
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, "<rt_info />", f"<rt_info>{_nested_rt_info(100_000)}</rt_info>"))


@case("SerializationError", "bad.xml", "name='a' type=Parameter", 'attribute shape="1,1,1',
      "100,000,001 characters", "more than graphir decodes in one attribute")
def parameter_shape_attribute_of_100_mb(directory: Path) -> str:
    """Refused by its length before it is split (it took 8-23 s and ~3 GB when decoded)."""
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, 'shape="2,3"', 'shape="' + "1," * 50_000_000 + '1"'))


@case("SerializationError", "bad.xml", "name='k' type=Const", 'attribute shape="1, 1, 1', "60,000,001 characters")
def const_shape_attribute_of_60_mb(directory: Path) -> str:
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, 'element_type="f32" shape="2, 3"',
                           'element_type="f32" shape="' + "1, " * 20_000_000 + '1"'))


@case("SerializationError", "bad.xml", "name='a' type=Parameter", "port 0 holds 1,000,001 elements",
      "largest rank graphir reads (65,536)")
def port_of_a_million_dims(directory: Path) -> str:
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, "<dim>2</dim>", "<dim>1</dim>" * 1_000_000))


@case("SerializationError", "bad.xml", "shape", "20,000,000 characters", seconds=30, memory_mib=2048)
def parameter_shape_of_one_20_mb_number(directory: Path) -> str:
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, 'shape="2,3"', 'shape="' + "7" * 20_000_000 + '"'))


@case("SerializationError", "bad.xml", "shape=", "more characters")
def attribute_value_of_10_mb_is_clipped(directory: Path) -> str:
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, 'shape="2,3"', 'shape="' + "q" * 10_000_000 + '"'))


@case("SerializationError", "bad.xml", "port 0", "2^63-1")
def port_dim_of_2_63(directory: Path) -> str:
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, "<dim>2</dim>", f"<dim>{1 << 63}</dim>"))


@case("SerializationError", "bad.xml", "shape", "2^63")
def parameter_shape_of_2_63(directory: Path) -> str:
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, 'shape="2,3"', f'shape="{1 << 63},3"'))


@case("SerializationError", "bad.xml", "is not an integer", "more characters")
def dim_of_5000_digits(directory: Path) -> str:
    _, text = base_ir(directory)
    return read(mutated_ir(directory, text, "<dim>2</dim>", "<dim>" + "9" * 5000 + "</dim>"))


@case("InferenceError", "Reshape", "2^63-1")
def reshape_to_a_dim_beyond_int64(directory: Path) -> str:
    import numpy as np

    from graphir import opset

    x = opset.parameter([1 << 32, 1 << 32, 4], "f32", name="x")
    return repr(opset.reshape(x, opset.constant(np.array([-1], np.int64)), special_zero=False))


# ======================================================================== bad .bin files ==
def _const_variant(directory: Path, new_data: str, blob: "bytes | None" = None) -> str:
    _, text = base_ir(directory)
    old = '<data element_type="f32" shape="2, 3" offset="0" size="24" />'
    return read(write_variant(directory, "bad", text.replace(old, new_data, 1), blob))


@case("SerializationError", "bad.xml", "'k'", "offset")
def bin_offset_beyond_the_file(directory: Path) -> str:
    return _const_variant(directory, '<data element_type="f32" shape="2, 3" offset="1000" size="24" />')


@case("SerializationError", "bad.xml", "'k'", "offset")
def bin_offset_near_2_63(directory: Path) -> str:
    return _const_variant(directory, f'<data element_type="f32" shape="2, 3" offset="{(1 << 63) - 8}" size="24" />')


@case("SerializationError", "bad.xml", "'k'", "negative")
def bin_offset_negative(directory: Path) -> str:
    return _const_variant(directory, '<data element_type="f32" shape="2, 3" offset="-8" size="24" />')


@case("SerializationError", "bad.xml", "'k'", "size")
def bin_size_not_the_shape(directory: Path) -> str:
    return _const_variant(directory, '<data element_type="f32" shape="2, 3" offset="0" size="20" />')


@case("SerializationError", "bad.xml", "'k'")
def bin_shape_of_2_62_elements(directory: Path) -> str:
    return _const_variant(directory, f'<data element_type="f32" shape="{1 << 31}, {1 << 31}" offset="0" size="24" />')


@case("SerializationError", "bad.xml", "'k'")
def bin_file_empty(directory: Path) -> str:
    return _const_variant(directory, '<data element_type="f32" shape="2, 3" offset="0" size="24" />', b"")


@case("SerializationError", "bad.xml", "bad.bin")
def bin_file_missing(directory: Path) -> str:
    _, text = base_ir(directory)
    path = write_variant(directory, "bad", text)
    path.with_suffix(".bin").unlink()
    return read(path)


# ======================================================== runs that would allocate terabytes ==
def _run_with(build: Callable[[], tuple[Any, dict[str, Any]]], limit: "int | None" = None) -> str:
    model, inputs = build()
    out = model.run(inputs, max_tensor_bytes=limit)
    return str({k: getattr(v, "shape", v) for k, v in out.items()})


def _dynamic(op_name: str) -> tuple[Any, dict[str, Any]]:
    import numpy as np

    import graphir
    from graphir import opset

    i64 = np.int64
    if op_name == "Broadcast":
        x = opset.parameter([1], "f32", name="x")
        s = opset.parameter([2], "i64", name="s")
        return graphir.Model([opset.broadcast(x, s)], [x, s]), {"x": np.ones(1, np.float32),
                                                                  "s": np.array([10**6, 10**6], i64)}
    if op_name == "Tile":
        x = opset.parameter([2], "f32", name="x")
        r = opset.parameter([1], "i64", name="r")
        return graphir.Model([opset.tile(x, r)], [x, r]), {"x": np.ones(2, np.float32), "r": np.array([10**12], i64)}
    if op_name == "Range":
        stop = opset.parameter([], "f32", name="stop")
        node = opset.range(opset.constant(np.float32(0)), stop, opset.constant(np.float32(1)), output_type="f32")
        return graphir.Model([node], [stop]), {"stop": np.float32(1e12)}
    if op_name == "Pad":
        x = opset.parameter([2], "f32", name="x")
        p = opset.parameter([1], "i64", name="p")
        node = opset.pad(x, p, opset.constant(np.array([0], i64)), pad_mode="constant")
        return graphir.Model([node], [x, p]), {"x": np.ones(2, np.float32), "p": np.array([10**12], i64)}
    if op_name == "OneHot":
        idx = opset.parameter([4], "i64", name="idx")
        d = opset.parameter([], "i64", name="d")
        node = opset.one_hot(idx, d, opset.constant(np.float32(1)), opset.constant(np.float32(0)), axis=-1)
        return graphir.Model([node], [idx, d]), {"idx": np.arange(4, dtype=i64), "d": np.int64(10**12)}
    if op_name == "RandomUniform":
        shape = opset.parameter([2], "i64", name="shape")
        node = opset.random_uniform(shape, opset.constant(np.float32(0)), opset.constant(np.float32(1)),
                                    output_type="f32", global_seed=1, op_seed=2)
        return graphir.Model([node], [shape]), {"shape": np.array([10**6, 10**6], i64)}
    if op_name == "Eye":
        n = opset.parameter([], "i64", name="n")
        node = opset.eye(n, n, opset.constant(np.int64(0)), output_type="f32")
        return graphir.Model([node], [n]), {"n": np.int64(10**6)}
    if op_name == "SegmentMax":
        x = opset.parameter([2], "f32", name="x")
        count = opset.parameter([], "i64", name="count")
        node = opset.segment_max(x, opset.constant(np.array([0, 1], i64)), count, fill_mode="ZERO")
        return graphir.Model([node], [x, count]), {"x": np.ones(2, np.float32), "count": np.int64(10**12)}
    raise AssertionError(op_name)


for _op in ("Broadcast", "Tile", "Range", "Pad", "OneHot", "RandomUniform", "Eye", "SegmentMax"):
    case("ResourceLimitError", _op, "bytes, over the tensor size limit of 4,294,967,296 bytes",
         "GRAPHIR_MAX_TENSOR_BYTES", name=f"run_{_op.lower()}_to_10_12_elements")(
        lambda directory, op=_op: _run_with(lambda: _dynamic(op)))


@case("ResourceLimitError", "Broadcast", "4,000,000,000,000 bytes", "limit of 1,048,576 bytes")
def run_static_broadcast_checked_before_the_run(directory: Path) -> str:
    """The target shape is a constant: shape inference knows the output, the run refuses at once."""
    import numpy as np

    import graphir
    from graphir import opset

    x = opset.parameter([1], "f32", name="x")
    y = opset.broadcast(x, opset.constant(np.array([10**6, 10**6], np.int64)))
    return _run_with(lambda: (graphir.Model([y], [x]), {"x": np.ones(1, np.float32)}), 1 << 20)


@case("ResourceLimitError", "MatMul", "output 0 (f32[1000000,1000000])", "4,000,000,000,000 bytes",
      "limit of 4,294,967,296 bytes")
def run_dynamic_signature_checked_before_the_run(directory: Path) -> str:
    """Dynamic input dims: the output sizes are known once the run's input shapes are; the plan
    specialized for them refuses the outer product x^T x before any node runs (no op checks it)."""
    import numpy as np

    import graphir
    from graphir import opset

    x = opset.parameter([-1, -1], "f32", name="x")
    y = opset.matmul(x, x, transpose_a=True, transpose_b=False)
    return _run_with(lambda: (graphir.Model([y], [x]), {"x": np.ones((1, 10**6), np.float32)}))


@case("ResourceLimitError", "Loop", "concatenated output", "1000000000000 iterations")
def loop_of_10_12_iterations_with_a_concatenated_output(directory: Path) -> str:
    import numpy as np

    import graphir

    src = FIXTURES / "ir" / "control_flow" / "loop_counted"
    blob = bytearray(src.with_suffix(".bin").read_bytes())
    blob[0:8] = struct.pack("<q", 10**12)   # the trip count
    blob[17:25] = struct.pack("<q", 1 << 62)  # the body's early-exit bound
    path = write_variant(directory, "loop", src.with_suffix(".xml").read_bytes(), bytes(blob))
    inputs = dict(np.load(str(src) + "_inputs.npz"))
    return str(graphir.read_model(path).run(inputs))


@case("ResourceLimitError", "limit of 65,536 bytes")
def tensor_limit_from_the_environment(directory: Path) -> str:
    os.environ["GRAPHIR_MAX_TENSOR_BYTES"] = "65536"
    return _run_with(lambda: _dynamic("Tile"))


@case("InputError", "inputs must be a dict", "got int")
def run_with_an_int(directory: Path) -> str:
    import graphir

    return str(graphir.read_model(base_ir(directory)[0]).run(5))


@case("ok", "['a'] ['a_1']")
def two_parameters_with_one_tensor_name(directory: Path) -> str:
    """OpenVINO 2026.4 renames the second (measured: a, a -> a, a_1)."""
    import numpy as np

    import graphir
    from graphir import opset
    from graphir.serializers.openvino_xml import write_ir

    a, b = opset.parameter([2], "f32", name="a"), opset.parameter([2], "f32", name="b")
    write_ir(graphir.Model([opset.subtract(a, b)], [a, b]), directory / "dup.xml")
    text = (directory / "dup.xml").read_text().replace('names="b"', 'names="a"')
    (directory / "dup.xml").write_text(text)
    model = graphir.read_model(directory / "dup.xml")
    out = model.run({"a": np.array([5, 5], np.float32), "a_1": np.array([1, 2], np.float32)})
    assert next(iter(out.values())).tolist() == [4, 3]
    return " ".join(str(sorted(p.output_names[0])) for p in model.get_parameters())


def _nested_ifs(directory: Path, depth: int, size: int = 2, innermost: Any = None) -> Path:
    """If-8 nested ``depth`` deep in then-bodies, written by OpenVINO (which reads 400 levels); the
    innermost body computes Relu (or ``innermost(x)``) of an f32[size] input."""
    import numpy as np
    import openvino as ov
    import openvino.opset8 as ops

    model = None
    for level in range(depth + 1):
        x = ops.parameter([size], np.float32, name=f"x{level}")
        if model is None:
            out = ops.relu(x) if innermost is None else innermost(x)
        else:
            xe = ops.parameter([size], np.float32)
            other = ov.Model([ops.result(ops.negative(xe))], [xe])
            branch = ops.if_op(ops.constant(True))
            branch.set_then_body(model)
            branch.set_else_body(other)
            branch.set_input(x.output(0), model.get_parameters()[0], other.get_parameters()[0])
            out = branch.set_output(model.get_results()[0], other.get_results()[0])
        model = ov.Model([ops.result(out)], [x], f"m{level}")
    path = directory / f"nested{depth}.xml"
    ov.save_model(model, str(path))
    return path


def _nesting_depth(model: Any, type_name: str = "If", body: str = "then_body") -> int:
    """How many ``type_name`` ops nest in one another, following the first one's ``body``."""
    depth = 0
    while True:
        found = [n for n in model.nodes() if n.type_name == type_name]
        if not found:
            return depth
        depth, model = depth + 1, getattr(found[0].op, body)


@case("ok", "[1.0, 0.0]", seconds=40)
def if_bodies_nested_150_deep(directory: Path) -> str:
    import numpy as np

    import graphir

    model = graphir.read_model(_nested_ifs(directory, 150))
    return str(next(iter(model.run({"x150": np.array([1, -2], np.float32)}).values())).tolist())


@case("ok", "400 Ifs", "f32[2]", seconds=60)
def if_bodies_nested_400_deep(directory: Path) -> str:
    """OpenVINO reads it; so does graphir (bodies are read innermost first, without recursion)."""
    import graphir

    model = graphir.read_model(_nested_ifs(directory, 400))
    return f"{_nesting_depth(model)} Ifs, output {model.get_results()[0].output_types[0]}"


@case("ok", "run [1.0, 0.0]", "reshaped [1.0, 0.0, 3.0]", "re-read [1.0, 0.0, 3.0]", "clone [1.0, 0.0, 3.0]",
      "590 Ifs", seconds=90)
def if_bodies_nested_590_deep_run_reshape_save_clone(directory: Path) -> str:
    """Bodies nested just under MAX_BODY_NESTING run, reshape, save, re-read and clone: each walks
    the bodies as tasks or with an explicit stack (graphir.trampoline), never by nested calls (a
    run hit Python's recursion limit at 328 levels, a save at ~200, a clone at ~150)."""
    import numpy as np

    import graphir

    model = graphir.read_model(_nested_ifs(directory, 590))
    first = model.run({"x590": np.array([1, -2], np.float32)})
    model.reshape({"x590": [3]})
    x = np.array([1, -2, 3], np.float32)
    reshaped = model.run({"x590": x})
    graphir.save_model(model, directory / "saved.xml")
    again = graphir.read_model(directory / "saved.xml").run({"x590": x})
    copy = model.clone().run({"x590": x})
    depth = _nesting_depth(model.clone())
    values = [next(iter(out.values())).tolist() for out in (first, reshaped, again, copy)]
    return (f"run {values[0]}, reshaped {values[1]}, re-read {values[2]}, clone {values[3]}, "
            f"{depth} Ifs in the clone")


@case("EvaluationError", "node 2 'If_", "(If-opset8) failed on inputs (bool[], float32[3]): 300 nested bodies down: ",
      "(Divide-opset1) failed on inputs (int32[3], int32[3]): ", "integer division by zero", seconds=60)
def if_bodies_nested_300_deep_failing_inside(directory: Path) -> str:
    """A failure 300 bodies down names the outermost node, the depth and the innermost node, not
    every level between."""
    import numpy as np
    import openvino.opset8 as ops

    import graphir

    def integer_division(x: Any) -> Any:  # f32 -> i32 x // x -> f32: fails where x holds a zero
        as_int = ops.convert(x, "i32")
        return ops.convert(ops.divide(as_int, as_int), "f32")

    path = _nested_ifs(directory, 300, size=3, innermost=integer_division)
    return str(graphir.read_model(path).run({"x300": np.array([1, 0, 2], np.float32)}))


@case("ok", "30 Loops", "[1.0, 0.0, 4.0]", seconds=40)
def loops_nested_30_deep(directory: Path) -> str:
    """Loop inference infers its body several times (relaxing merged inputs, then with the known
    trip count): bodies nested n deep took 4^n body inferences (10 levels: 32 s) before a body
    remembered its last inference; now reading and reshaping are linear in the depth."""
    import numpy as np
    import openvino as ov
    import openvino.opset8 as ops

    body = None
    for level in range(31):
        x = ops.parameter([2], np.float32, name=f"x{level}")
        if body is None:
            out = ops.relu(x)
        else:
            loop = ops.loop(ops.constant(np.int64(1)), ops.constant(True))
            loop.set_function(body)
            loop.set_merged_input(body.get_parameters()[0], x.output(0), body.get_results()[0].output(0))
            loop.set_special_body_ports([-1, 1])
            out = loop.get_iter_value(body.get_results()[0].output(0), -1)
        body = ov.Model([ops.result(out), ops.result(ops.constant(True))], [x], f"m{level}")
    ov.save_model(ov.Model([body.get_results()[0]], body.get_parameters(), "top"), str(directory / "loops.xml"))
    import graphir

    model = graphir.read_model(directory / "loops.xml")
    model.reshape({"x30": [3]})
    out = next(iter(model.run({"x30": np.array([1, -2, 4], np.float32)}).values()))
    return f"{_nesting_depth(model, 'Loop', 'body')} Loops, {out.tolist()}"


@case("SerializationError", "nested8.xml", "nested more than 5 levels deep", "graphir reads at most 5")
def if_bodies_nested_beyond_the_limit(directory: Path) -> str:
    """Past MAX_BODY_NESTING (600; lowered here to keep the case small) a named error, before any body is read."""
    from graphir.serializers import ir_reader

    ir_reader.MAX_BODY_NESTING = 5
    return read(_nested_ifs(directory, 8))


@case("ok", "a_19999", seconds=30)
def parameters_20000_with_one_tensor_name(directory: Path) -> str:
    """The renaming stays linear (a search from name_1 for each would take 2*10^8 steps)."""
    import re

    import graphir
    from graphir import opset
    from graphir.serializers.openvino_xml import write_ir

    params = [opset.parameter([1], "f32", name=f"p{i}") for i in range(20_000)]
    write_ir(graphir.Model([opset.make("Concat", *params, axis=0)], params), directory / "many.xml")  # type: ignore[list-item]
    text = re.sub(r'names="p\d+"', 'names="a"', (directory / "many.xml").read_text())
    (directory / "many.xml").write_text(text)
    names = [sorted(p.output_names[0]) for p in graphir.read_model(directory / "many.xml").get_parameters()]
    assert names[:3] == [["a"], ["a_1"], ["a_2"]] and len({n[0] for n in names}) == 20_000
    return names[-1][0]


@case("ok", "[2.0, 3.0]", seconds=30)
def decompression_chain_5000_long_and_shared(directory: Path) -> str:
    """An f16 constant squared 5,000 times (each Multiply reading one node twice), converted to f32
    and added to the input: a weight-decompression subgraph to the run plan, which computes it in
    f32. It was walked by recursion, once per path: 2^5000 paths (and past the recursion limit);
    now once per node, with an explicit stack."""
    import numpy as np

    import graphir
    from graphir import opset

    x = opset.parameter([2], "f32", name="x")
    c = opset.constant(np.ones(2, np.float16))
    for _ in range(5_000):
        c = opset.multiply(c, c)
    model = graphir.Model([opset.add(x, opset.convert(c, destination_type="f32"))], [x])
    return str(next(iter(model.run({"x": np.array([1, 2], np.float32)}).values())).tolist())


# ============================================================== real files, mutated ==
def _ir_fixture_files() -> list[Path]:
    names = ["corpus/cnn_bn_pool.xml", "corpus/lstm.xml", "corpus/masked_attention.xml",
             "ir/control_flow/loop_counted.xml", "ir/control_flow/ti_rnn.xml"]
    return [FIXTURES / n for n in names]


def _mutations(directory: Path, source: Path, seed: int) -> str:
    """40 truncations and 40 byte flips of the .xml, 20 of the .bin: each reads to a model (then
    inferred and written again) or raises a GraphirError; anything else fails the case."""
    import random

    from graphir.errors import GraphirError
    from graphir.serializers.openvino_xml import read_ir, write_ir_string

    xml, blob = source.read_bytes(), source.with_suffix(".bin").read_bytes()
    rng = random.Random(seed)
    variants: list[tuple[bytes, bytes]] = []
    for _ in range(40):
        variants.append((xml[:rng.randrange(len(xml))], blob))
    for _ in range(40):
        i = rng.randrange(len(xml))
        variants.append((xml[:i] + bytes([xml[i] ^ rng.randrange(1, 256)]) + xml[i + 1:], blob))
    for _ in range(10):
        variants.append((xml, blob[:rng.randrange(len(blob) + 1)]))
    for _ in range(10):
        i = rng.randrange(max(len(blob), 1))
        variants.append((xml, blob[:i] + bytes([blob[i] ^ 0xFF]) + blob[i + 1:] if blob else b"\x01"))
    models = errors = 0
    for k, (x, b) in enumerate(variants):
        path = directory / f"m{k}.xml"
        path.write_bytes(x)
        path.with_suffix(".bin").write_bytes(b)
        try:
            model = read_ir(path)
            model.infer_shapes()
            write_ir_string(model)
            models += 1
        except GraphirError as exc:
            assert str(path) in str(exc) or "node" in str(exc) or "model" in str(exc), str(exc)
            errors += 1
    return f"{models} models, {errors} named errors"


for _k, _src in enumerate(_ir_fixture_files()):
    case("ok", "named errors", seconds=60, name=f"mutated_{_src.stem}")(
        lambda directory, src=_src, seed=_k: _mutations(directory, src, seed))


# ================================================================== hostile oneDNN JSON ==
def onednn_graph() -> dict[str, Any]:
    def lt(ident: int, shape: list[int]) -> dict[str, Any]:
        strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
        return {"id": ident, "dtype": "f32", "shape": shape, "stride": strides, "layout_type": "strided",
                "property_type": "undef"}
    return {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "input_ports": [0, 1],
            "output_ports": [3],
            "graph": [{"id": 7, "name": "add", "kind": "Add",
                       "attrs": {"auto_broadcast": {"type": "string", "value": "numpy"}},
                       "inputs": [lt(0, [2, 3]), lt(1, [1, 3])], "outputs": [lt(2, [2, 3])]},
                      {"id": 8, "name": "relu", "kind": "ReLU", "attrs": {},
                       "inputs": [lt(2, [2, 3])], "outputs": [lt(3, [2, 3])]}]}


def _read_json_bytes(directory: Path, data: bytes) -> str:
    from graphir.serializers.onednn_json import read_json

    path = directory / "bad.json"
    path.write_bytes(data)
    return repr(read_json(path))


def _json_text() -> str:
    return json.dumps(onednn_graph())


@case("ok", "-> (f32[2,3])")
def json_valid(directory: Path) -> str:
    return _read_json_bytes(directory, _json_text().encode())


@case("SerializationError", "bad.json", "nested too deep")
def json_nested_100000_deep(directory: Path) -> str:
    text = _json_text().replace('"attrs": {}', '"attrs": {}, "deep": ' + "[" * 100_000 + "]" * 100_000)
    return _read_json_bytes(directory, text.encode())


@case("SerializationError", "bad.json", "not UTF-8", "offset")
def json_in_latin1(directory: Path) -> str:
    return _read_json_bytes(directory, _json_text().replace('"relu"', '"r\u00e9lu"').encode("latin-1"))


@case("SerializationError", "bad.json", "UTF-16")
def json_in_utf16(directory: Path) -> str:
    return _read_json_bytes(directory, _json_text().encode("utf-16"))


@case("SerializationError", "bad.json", "UTF-32")
def json_in_utf32_le(directory: Path) -> str:
    return _read_json_bytes(directory, _json_text().encode("utf-32-le"))


@case("SerializationError", "bad.json", "5,000 characters", "int64")
def json_number_of_5000_digits(directory: Path) -> str:
    return _read_json_bytes(directory, _json_text().replace('"id": 8', '"id": ' + "9" * 5000).encode())


@case("SerializationError", "bad.json", "op 7", "inputs[0].id", "int64")
def json_tensor_id_beyond_int64(directory: Path) -> str:
    data = onednn_graph()
    data["graph"][0]["inputs"][0]["id"] = 1 << 64
    return _read_json_bytes(directory, json.dumps(data).encode())


@case("SerializationError", "bad.json", "op id", "int64")
def json_op_id_beyond_int64(directory: Path) -> str:
    data = onednn_graph()
    data["graph"][1]["id"] = -(1 << 63) - 1
    return _read_json_bytes(directory, json.dumps(data).encode())


@case("ok", "(0: f32[2,3], 1: f32[1,3]) -> (f32[2,3])", "written back [0, 1, 99]")
def json_input_port_nothing_reads(directory: Path) -> str:
    """oneDNN's benchdnn runs dumps whose input_ports list tensors no op reads (its own
    sdpa-compressed-k-int8-gs32.json lists 6, 7 and 8): they are left out of the graph and the list is
    written back as the file had it."""
    from graphir.serializers.onednn_json import read_json, write_json

    data = onednn_graph()
    data["input_ports"] = [0, 1, 99]
    path = directory / "ports.json"
    path.write_text(json.dumps(data))
    model = read_json(path)
    write_json(model, directory / "back.json")
    return f"{model!r} written back {json.loads((directory / 'back.json').read_text())['input_ports']}"


@case("SerializationError", "bad.json", "input_ports", "logical tensor 2", "output of op 7 'add'")
def json_input_port_an_op_produces(directory: Path) -> str:
    data = onednn_graph()
    data["input_ports"] = [0, 1, 2]
    return _read_json_bytes(directory, json.dumps(data).encode())


@case("ok", "named errors", seconds=40)
def json_mutated(directory: Path) -> str:
    """Truncations and byte flips of a valid file: a model or a GraphirError each."""
    import random

    from graphir.errors import GraphirError
    from graphir.serializers.onednn_json import read_json

    text = json.dumps(onednn_graph(), indent=1).encode()
    rng = random.Random(7)
    models = errors = 0
    path = directory / "m.json"
    for k in range(300):
        if k % 2:
            data = text[:rng.randrange(len(text))]
        else:
            i = rng.randrange(len(text))
            data = text[:i] + bytes([text[i] ^ rng.randrange(1, 256)]) + text[i + 1:]
        path.write_bytes(data)
        try:
            read_json(path)
            models += 1
        except GraphirError:
            errors += 1
    return f"{models} models, {errors} named errors"


# ================================================================= saves that fail or die ==
def _models() -> tuple[Any, Any]:
    """An OpenVINO-dialect model (saved as IR) and a oneDNN one (saved as JSON), a few MB each."""
    import numpy as np

    import graphir
    from graphir import opset
    from graphir.serializers.onednn_json import loads

    a = opset.parameter([512, 1024], "f32", name="a")
    k = opset.constant(np.random.default_rng(0).standard_normal((512, 1024)).astype(np.float32), name="k")
    ir_model = graphir.Model([opset.add(a, k, name="add")], [a], name="big")
    data = onednn_graph()
    data["graph"][1]["name"] = "relu" + "x" * 3_000_000  # a large file, so a kill lands mid-write
    return ir_model, loads(json.dumps(data))


def _old_files(directory: Path) -> dict[Path, bytes]:
    """A good saved model of each kind: the files a failed save must leave byte for byte."""
    import graphir

    path, _ = base_ir(directory, "m")
    graphir.save_model(graphir.read_model(directory / "m.xml"), path)
    from graphir.serializers.onednn_json import write_json, loads

    write_json(loads(_json_text()), directory / "m.json")
    return {p: p.read_bytes() for p in (directory / "m.xml", directory / "m.bin", directory / "m.json")}


def _intact(old: dict[Path, bytes]) -> str:
    damaged = [p.name for p, data in old.items() if not p.exists() or p.read_bytes() != data]
    leftovers = sorted(p.name for p in next(iter(old)).parent.iterdir() if p.name.endswith(".tmp"))
    assert not damaged, f"damaged: {damaged}"
    assert not leftovers, f"temporary files left: {leftovers}"
    return "old files intact"


def _failing_saves(directory: Path, how: Callable[[Callable[[], None]], None]) -> str:
    import graphir

    old = _old_files(directory)
    ir_model, json_model = _models()
    errors = []
    for save in (lambda: graphir.save_model(ir_model, directory / "m.xml"),
                 lambda: graphir.save_model(json_model, directory / "m.json")):
        try:
            how(save)
        except Exception as exc:  # noqa: BLE001 - the class is checked below
            errors.append(f"{type(exc).__name__}: {exc}")
    assert len(errors) == 2, errors
    return _intact(old) + "; " + " | ".join(e[:400] for e in errors)


@case("ok", "old files intact", "SerializationError", "File too large")
def save_over_the_file_size_limit(directory: Path) -> str:
    def how(save: Callable[[], None]) -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel kills the process
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, hard))
        try:
            save()
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    return _failing_saves(directory, how)


@case("ok", "old files intact", "RuntimeError: injected")
def save_with_an_exception_mid_write(directory: Path) -> str:
    real_fsync = os.fsync

    def how(save: Callable[[], None]) -> None:
        def failing(fd: int) -> None:
            raise RuntimeError("injected failure after the data was written")
        os.fsync = failing  # type: ignore[assignment]
        try:
            save()
        finally:
            os.fsync = real_fsync  # type: ignore[assignment]
    return _failing_saves(directory, how)


@case("ok", "the .bin was kept", "one rename")
def save_again_with_the_same_weights_replaces_only_the_xml(directory: Path) -> str:
    """The .bin already holds the weights: it is not rewritten (same inode), so the save is a single
    atomic rename; the model written is still the new one."""
    import graphir

    path, _ = base_ir(directory, "m")
    model = graphir.read_model(path)
    inode = (directory / "m.bin").stat().st_ino
    [n for n in model.nodes() if n.type_name == "Add"][0].name = "renamed"
    graphir.save_model(model, path)
    assert (directory / "m.bin").stat().st_ino == inode
    assert "renamed" in path.read_text()
    assert sorted(p.name for p in directory.iterdir()) == ["m.bin", "m.xml"]
    return "the .bin was kept, the .xml replaced: one rename"


@case("ok", "old files intact", "SerializationError", "Permission denied")
def save_into_a_read_only_directory(directory: Path) -> str:
    """A directory the process may not write to (as root, the save runs in a child that dropped to
    uid/gid 65534, since root writes anywhere)."""
    import shutil
    import tempfile

    import graphir

    place = Path(tempfile.mkdtemp(prefix="graphir-readonly-"))  # outside pytest's 0700 tree
    try:
        os.chmod(place, 0o755)
        old = _old_files(place)
        for path in old:
            os.chmod(path, 0o644)
        ir_model, json_model = _models()
        os.chmod(place, 0o555)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read_end)
                if os.geteuid() == 0:
                    os.setgid(65534)
                    os.setuid(65534)
                errors = []
                for save in (lambda: graphir.save_model(ir_model, place / "m.xml"),
                             lambda: graphir.save_model(json_model, place / "m.json")):
                    try:
                        save()
                    except Exception as exc:  # noqa: BLE001 - reported to the parent
                        errors.append(f"{type(exc).__name__}: {exc}")
                os.write(write_end, json.dumps(errors).encode())
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end) as pipe:
            errors = json.loads(pipe.read() or "[]")
        os.waitpid(pid, 0)
        assert len(errors) == 2, errors
        os.chmod(place, 0o755)
        return _intact(old) + "; " + " | ".join(e[:400] for e in errors)
    finally:
        os.chmod(place, 0o755)
        shutil.rmtree(place, ignore_errors=True)


@case("ok", "old files intact", "SerializationError", "is a directory")
def save_over_a_directory(directory: Path) -> str:
    import graphir

    (directory / "d.xml").mkdir()
    (directory / "d.json").mkdir()
    ir_model, json_model = _models()
    errors = []
    for target, model in ((directory / "d.xml", ir_model), (directory / "d.json", json_model)):
        try:
            graphir.save_model(model, target)
        except Exception as exc:  # noqa: BLE001
            errors.append(f"{type(exc).__name__}: {exc}")
    assert len(errors) == 2 and all(e.startswith("SerializationError") for e in errors), errors
    assert (directory / "d.xml").is_dir() and not any((directory / "d.xml").iterdir())
    return "old files intact; " + errors[0]


@case("SerializationError", "m.xml", "weights file is the .xml itself")
def save_with_weights_equal_to_the_xml(directory: Path) -> str:
    import graphir

    old = _old_files(directory)
    try:
        graphir.save_model(graphir.read_model(directory / "m.xml"), directory / "m.xml", weights=directory / "m.xml")
    finally:
        _intact(old)
    return "saved"


@case("ok", "old files intact after", "kills")
def save_killed_mid_write(directory: Path) -> str:
    """SIGKILL a child at staggered moments of an IR save and of a JSON save; the files must be the
    old ones or the new ones byte for byte (never a mix within one file, never a truncated file).
    An IR save renames two files; a kill between the renames (microseconds) leaves the new .bin
    beside the old .xml (documented in the README): counted, reported, checked to be that state."""
    import graphir

    old = _old_files(directory)
    ir_model, json_model = _models()
    new_dir = directory / "new"
    new_dir.mkdir()
    graphir.save_model(ir_model, new_dir / "m.xml")
    graphir.save_model(json_model, new_dir / "m.json")
    new = {p: (new_dir / p.name).read_bytes() for p in old}
    kills = mixed = 0
    for attempt in range(12):
        target = "m.xml" if attempt % 2 == 0 else "m.json"
        model = ir_model if target == "m.xml" else json_model
        for p, data in old.items():  # start each attempt from the old files
            p.write_bytes(data)
        for p in directory.glob(".m.*"):
            p.unlink()
        pid = os.fork()
        if pid == 0:
            try:
                graphir.save_model(model, directory / target)
            finally:
                os._exit(0)
        time.sleep(0.002 * attempt)
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        kills += os.WIFSIGNALED(status)
        states = {p.name: ("old" if p.read_bytes() == old[p] else "new" if p.read_bytes() == new[p] else "DAMAGED")
                  for p in old}
        assert "DAMAGED" not in states.values(), (attempt, states)
        if target == "m.xml" and states["m.xml"] != states["m.bin"]:
            mixed += 1
            assert states == {"m.xml": "old", "m.bin": "new", "m.json": "old"}, states
    # not asserted to be 0: a kill may (rarely) land in the documented window; the state it leaves
    # is checked above to be exactly the documented one
    return f"old files intact after {kills} kills (of 12 attempts), {mixed} between renames"


@case("ok", "old files intact", "node", "'a\\x01b'", "'a\\udcffb'", "cannot be written as XML", "JSON keeps")
def save_names_xml_cannot_carry(directory: Path) -> str:
    """IR: a named error (lxml cannot write them) and the old files untouched. JSON escapes them
    (\\u0001, \\udcff) and reads them back unchanged."""
    import graphir
    from graphir import opset
    from graphir.errors import SerializationError
    from graphir.serializers.onednn_json import dumps, loads

    old = _old_files(directory)
    errors = []
    for name in ("a\x01b", "a\udcffb"):
        a = opset.parameter([2], "f32", name=name)
        try:
            graphir.save_model(graphir.Model([opset.relu(a)], [a], name="m"), directory / "m.xml")
        except SerializationError as exc:
            errors.append(str(exc))
    assert len(errors) == 2, errors
    _intact(old)
    model = loads(_json_text())
    [n for n in model.get_ordered_ops() if n.type_name == "ReLU"][0].name = "r\x01\udcff"
    back = loads(dumps(model))
    assert [n.name for n in back.get_ordered_ops() if n.type_name == "ReLU"] == ["r\x01\udcff"]
    return "old files intact; " + " | ".join(errors) + "; JSON keeps them"


# ===================================================================== the CLI ==
@case("ok", "usage error", "is a directory")
def cli_run_output_to_a_directory(directory: Path) -> str:
    import subprocess

    path, _ = base_ir(directory)
    (directory / "out").mkdir()
    proc = subprocess.run([sys.executable, "-m", "graphir.cli", "run", str(path), "--random", "--output",
                           str(directory / "out")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc
    assert not (directory / "out.npz").exists()
    return "usage error: " + proc.stderr.strip()


@case("ok", "wrote 1 output(s) to", "outputs.bin")
def cli_run_output_without_npz_suffix(directory: Path) -> str:
    import subprocess

    import numpy as np

    path, _ = base_ir(directory)
    target = directory / "outputs.bin"
    proc = subprocess.run([sys.executable, "-m", "graphir.cli", "run", str(path), "--random", "--output", str(target)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc
    with np.load(target) as archive:
        assert len(archive.files) == 1 and archive[archive.files[0]].shape == (2, 3), archive.files
    assert not Path(str(target) + ".npz").exists()
    return proc.stdout.strip().splitlines()[-1]


@case("ok", "random value for input 'a'", "8,000,000,000,000 bytes", "limit of 4,096 bytes")
def cli_run_random_input_over_the_limit(directory: Path) -> str:
    import subprocess

    import graphir
    from graphir import opset

    a = opset.parameter([10**6, 10**6], "f32", name="a")
    graphir.save_model(graphir.Model([opset.relu(a)], [a]), directory / "huge.xml")
    proc = subprocess.run([sys.executable, "-m", "graphir.cli", "run", str(directory / "huge.xml"), "--random",
                           "--max-tensor-bytes", "4096"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc
    return proc.stderr.strip()


# ============================================ issue 26: outputs never overwrite inputs ==
def _cli(*argv: str) -> tuple[int, str]:
    """``graphir`` in this process: (exit status, stderr and stdout)."""
    import contextlib
    import io

    from graphir.cli import main

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        status = main(list(argv))
    return status, err.getvalue() + out.getvalue()


@case("ok", "4 refused", "--output", "would overwrite the model", "the model's weights", "the input", "the inputs")
def cli_run_output_over_what_it_reads(directory: Path) -> str:
    import numpy as np

    path, _ = base_ir(directory, "m")
    np.save(directory / "a.npy", np.ones((2, 3), np.float32))
    np.savez(directory / "i.npz", a=np.ones((2, 3), np.float32))
    before = {p: p.read_bytes() for p in directory.iterdir()}
    messages = []
    for extra in (["--random", "-o", "m.xml"], ["--random", "-o", "m.bin"], ["-i", "a=a.npy", "-o", "a.npy"],
                  ["--inputs", "i.npz", "-o", "i.npz"]):
        status, text = _cli("run", "m.xml", *extra)
        assert status == 2, (extra, status, text)
        messages.append(text.strip())
    after = {p: p.read_bytes() for p in directory.iterdir()}
    assert after == before, "a file changed"
    return f"{len(messages)} refused, files unchanged: " + " | ".join(messages)


@case("ok", "2 refused", "would overwrite the weights file", "would overwrite the model file")
def save_over_the_files_the_model_was_read_from(directory: Path) -> str:
    import graphir
    from graphir.errors import SerializationError

    base_ir(directory, "m")
    before = {p: p.read_bytes() for p in directory.iterdir()}
    model = graphir.read_model(directory / "m.xml")
    messages = []
    for xml, weights in (("m.bin.xml", None), ("other.xml", "m.xml")):
        target = directory / xml
        if weights is None:  # the .xml written over the .bin the model reads
            target = directory / "m.bin"
            try:
                graphir.serializers.openvino_xml.write_ir(model, target, weights=directory / "w.bin")
            except SerializationError as exc:
                messages.append(str(exc))
            continue
        try:
            graphir.save_model(model, target, weights=directory / weights)
        except SerializationError as exc:
            messages.append(str(exc))
    assert {p: p.read_bytes() for p in directory.iterdir() if p in before} == before
    graphir.save_model(model, directory / "m.xml")  # over its own pair, role for role: allowed
    return f"{len(messages)} refused: " + " | ".join(messages)


# ======================================= issue 26: a model keeps the weights it was read with ==
def _weights_model(directory: Path, name: str, scale: float, elements: int) -> Path:
    import numpy as np

    import graphir
    from graphir import opset

    a = opset.parameter([elements], "f32", name="a")
    k = opset.constant(np.full(elements, scale, np.float32), name="k")
    path = directory / f"{name}.xml"
    graphir.save_model(graphir.Model([opset.add(a, k, name="add")], [a], name=name), path)
    return path


def _only(outputs: dict[str, Any]) -> Any:
    (value,) = outputs.values()
    return value


def _file_changes(directory: Path, elements: int) -> str:
    """After read_model: the .bin renamed over, saved over by another model, rewritten in place,
    truncated (cp of a shorter file): each run gives the weights read, or a named error."""
    import shutil

    import numpy as np

    import graphir
    from graphir.errors import GraphirError

    x = {"a": np.zeros(elements, np.float32)}
    outcomes = []
    for change in ("rename", "save over", "rewrite in place", "truncate"):
        path = _weights_model(directory, "m", 1.0, elements)
        other = _weights_model(directory, "o", 2.0, elements)
        model = graphir.read_model(path)
        first = _only(model.run(x)).copy()
        if change == "rename":
            os.replace(other.with_suffix(".bin"), path.with_suffix(".bin"))
        elif change == "save over":
            graphir.save_model(graphir.read_model(other), path)
        elif change == "rewrite in place":
            shutil.copyfile(other.with_suffix(".bin"), path.with_suffix(".bin"))
        else:
            path.with_suffix(".bin").write_bytes(b"\0" * 16)
        results = []
        for call in (lambda: _only(model.run(x)), lambda: _only(model.clone().run(x)),
                     lambda: graphir.save_model(model, directory / "copy.xml")):
            try:
                got = call()
                assert got is None or np.array_equal(got, first), f"{change}: other weights {got[:3]}"
                results.append("same")
            except GraphirError as exc:
                assert "m.bin" in str(exc), exc
                results.append(type(exc).__name__)
        from graphir.serializers.ir_constants import COPY_UP_TO

        if elements * 4 > COPY_UP_TO and change in ("rewrite in place", "truncate"):
            assert all(r == "SerializationError" for r in results), results
        else:
            assert all(r == "same" for r in results), (change, results)
        outcomes.append(f"{change}: {'/'.join(results)}")
    return "; ".join(outcomes)


@case("ok", "rename: same/same/same", "truncate: same/same/same")
def weights_file_changed_after_read_small(directory: Path) -> str:
    return "copied: " + _file_changes(directory, 1000)


@case("ok", "rename: same/same/same", "truncate: SerializationError", seconds=40, memory_mib=3072)
def weights_file_changed_after_read_mapped(directory: Path) -> str:
    return "mapped: " + _file_changes(directory, (20 << 20) // 4)


@case("ok", "empty .bin", "SerializationError")
def weights_file_empty(directory: Path) -> str:
    import graphir
    from graphir.errors import SerializationError

    path, _ = base_ir(directory, "m")
    path.with_suffix(".bin").write_bytes(b"")
    try:
        graphir.read_model(path)
    except SerializationError as exc:
        return f"empty .bin: SerializationError: {exc}"
    raise AssertionError("read")


# ============================================================= issue 26: the allocation guard ==
def _value_sized_models() -> dict[str, Any]:
    """Ops whose output size comes from an input value (fed by a Parameter): model, inputs."""
    import numpy as np

    import graphir
    from graphir import opset

    p = opset.parameter
    big = np.array([100000, 100000], np.int64)
    found: dict[str, Any] = {}
    for kind in ("adaptive_avg_pool", "adaptive_max_pool"):
        x, s = p([1, 1, 4, 4], "f32", name="x"), p([2], "i64", name="s")
        out = getattr(opset, kind)(x, s)
        found[kind] = (graphir.Model([out.output(0) if isinstance(out, graphir.Node) else out], [x, s]),
                       {"x": np.ones((1, 1, 4, 4), np.float32), "s": big})
    for kind, shape in (("dft", [4, 4, 2]), ("rdft", [4, 4]), ("irdft", [4, 3, 2])):
        x, s = p(shape, "f32", name="x"), p([2], "i64", name="s")
        out = getattr(opset, kind)(x, opset.constant(np.array([0, 1], np.int64)), s)
        found[kind] = (graphir.Model([out], [x, s]), {"x": np.ones(shape, np.float32), "s": big})
    x, s = p([1, 1, 4, 4], "f32", name="x"), p([2], "i64", name="s")
    out = opset.convolution_backprop_data(x, opset.constant(np.ones((1, 1, 3, 3), np.float32)), [1, 1], s,
                                          pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1])
    found["convolution_backprop_data"] = (graphir.Model([out], [x, s]), {"x": np.ones((1, 1, 4, 4), np.float32), "s": big})
    x, s = p([1, 4, 1], "f32", name="x"), p([2], "i64", name="s")
    out = opset.col2im(x, s, opset.constant(np.array([1, 1], np.int64)), strides=[100000, 100000])
    found["col2im"] = (graphir.Model([out], [x, s]), {"x": np.ones((1, 4, 1), np.float32), "s": big})
    d, n = p([5, 3, 2], "f32", name="d"), p([], "i64", name="n")
    out = opset.istft(d, opset.constant(np.ones(8, np.float32)), opset.constant(np.array(8, np.int64)),
                      opset.constant(np.array(4, np.int64)), False, False, n)
    found["istft"] = (graphir.Model([out], [d, n]), {"d": np.ones((5, 3, 2), np.float32), "n": np.array(10**10)})
    d, i, g, n = p([5, 2], "f32", name="d"), p([3], "i32", name="i"), p([3], "i32", name="g"), p([], "i32", name="n")
    found["embedding_segments_sum"] = (graphir.Model([opset.embedding_segments_sum(d, i, g, n)], [d, i, g, n]),
                                       {"d": np.ones((5, 2), np.float32), "i": np.arange(3, dtype=np.int32),
                                        "g": np.array([0, 0, 1], np.int32), "n": np.array(10**9, np.int32)})
    return found


@case("ok", "9 ops refused", "AdaptiveAvgPool", "ISTFT", "EmbeddingSegmentsSum", "Col2Im", "ConvolutionBackpropData",
      memory_mib=1024)
def value_sized_outputs_over_the_limit(directory: Path) -> str:
    """Asked for ~10^10 elements by an input value: refused by name, under the default limit and
    under max_tensor_bytes=10**6, before anything is allocated (1 GiB of address space)."""
    from graphir.errors import ResourceLimitError

    refused = []
    for kind, (model, inputs) in _value_sized_models().items():
        for limit in (None, 10**6):
            try:
                model.run(inputs, max_tensor_bytes=limit)
            except ResourceLimitError as exc:
                assert "over the tensor size limit" in str(exc), exc
                if limit is None:
                    refused.append(str(exc).split(" failed")[0])
                continue
            raise AssertionError(f"{kind} ran with limit {limit}")
    return f"{len(refused)} ops refused: " + " | ".join(refused)


@case("ok", "ran", "small sizes")
def value_sized_outputs_within_the_limit(directory: Path) -> str:
    """The same ops with small sizes run (the guard lets through what fits)."""
    import numpy as np

    shapes = []
    small = {"s": np.array([3, 3], np.int64), "n": np.array(8)}
    for kind, (model, inputs) in _value_sized_models().items():
        given = {k: (small[k] if k in small else v) for k, v in inputs.items()}
        if kind == "col2im":
            given["s"] = np.array([1, 1], np.int64)
        if kind == "embedding_segments_sum":
            given["n"] = np.array(2, np.int32)
        shapes.append(str(list(model.run(given, max_tensor_bytes=10**6).values())[0].shape))
    return "ran with small sizes: " + ", ".join(shapes)


@case("ok", "'k'", "constant", "over the tensor size limit")
def constant_over_the_limit(directory: Path) -> str:
    """A 1 MiB constant (read from a file) of which the run gathers one element: the constant
    counts against the limit like any tensor of the run."""
    import numpy as np

    import graphir
    from graphir import opset
    from graphir.errors import ResourceLimitError

    i = opset.parameter([1], "i64", name="i")
    k = opset.constant(np.ones(1 << 18, np.float32), name="k")
    graphir.save_model(graphir.Model([opset.gather(k, i, opset.constant(np.array(0, np.int64)))], [i]),
                       directory / "m.xml")
    model = graphir.read_model(directory / "m.xml")
    assert _only(model.run({"i": np.array([3])})).tolist() == [1.0]
    try:
        model.run({"i": np.array([3])}, max_tensor_bytes=1 << 19)
    except ResourceLimitError as exc:
        return str(exc)
    raise AssertionError("ran")


# ======================================================= issue 26: saves that race are whole ==
def _named_models(elements: int = 4096) -> dict[str, Any]:
    """Two models of one structure and .bin size, told apart by name and weights (1.0 vs 2.0)."""
    import numpy as np

    import graphir
    from graphir import opset

    found = {}
    for name, scale in (("A", 1.0), ("B", 2.0)):
        a = opset.parameter([elements], "f32", name="a")
        k = opset.constant(np.full(elements, scale, np.float32), name="k")
        found[name] = graphir.Model([opset.add(a, k, name="add")], [a], name=name)
    return found


def _which(path: Path) -> str:
    """'A' or 'B' when the pair at ``path`` is one save's, 'mixed' when its .xml is one model's
    and the weights the other's (what a reader would get silently)."""
    import numpy as np

    import graphir

    model = graphir.read_model(path)
    value = float(_only(model.run({"a": np.zeros(4096, np.float32)}))[0])
    weights = {1.0: "A", 2.0: "B"}.get(value, f"weights {value}")
    return model.name if weights == model.name else "mixed"


@case("ok", "40 rounds", "0 mixed", "0 unreadable", seconds=60)
def concurrent_saves_processes(directory: Path) -> str:
    """Two processes save two models to one path, 10 saves each, 40 rounds: the pair left is
    always one save's (main 95a81cd+: 3 of 40 mixed, read silently with the other's weights)."""
    import graphir
    from graphir.errors import GraphirError

    models = _named_models()
    counts = {"A": 0, "B": 0, "mixed": 0, "unreadable": 0}
    for round_ in range(40):
        target = directory / f"r{round_}.xml"
        pids = []
        for name in models:
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    for _ in range(10):
                        graphir.save_model(models[name], target)
                except BaseException:  # noqa: BLE001 - reported through the exit status
                    code = 3
                os._exit(code)
            pids.append(pid)
        statuses = [os.waitpid(pid, 0)[1] for pid in pids]
        assert all(st == 0 for st in statuses), statuses
        try:
            counts[_which(target)] += 1
        except GraphirError:
            counts["unreadable"] += 1
    assert counts["mixed"] == 0 and counts["unreadable"] == 0, counts
    return f"40 rounds: {counts['A']} A, {counts['B']} B, {counts['mixed']} mixed, {counts['unreadable']} unreadable"


@case("ok", "30 rounds", "0 mixed", "0 unreadable", seconds=60)
def concurrent_saves_threads(directory: Path) -> str:
    """Two threads of one process save two models to one path, 10 saves each, 30 rounds (main: 2 of
    30 mixed)."""
    import threading

    import graphir
    from graphir.errors import GraphirError

    models = _named_models()
    counts = {"A": 0, "B": 0, "mixed": 0, "unreadable": 0}
    failures: list[BaseException] = []

    def save(name: str, target: Path) -> None:
        try:
            for _ in range(10):
                graphir.save_model(models[name], target)
        except BaseException as exc:  # noqa: BLE001 - checked below
            failures.append(exc)

    for round_ in range(30):
        target = directory / f"r{round_}.xml"
        threads = [threading.Thread(target=save, args=(name, target)) for name in models]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        try:
            counts[_which(target)] += 1
        except GraphirError:
            counts["unreadable"] += 1
    assert not failures, failures
    assert counts["mixed"] == 0 and counts["unreadable"] == 0, counts
    return f"30 rounds: {counts['A']} A, {counts['B']} B, {counts['mixed']} mixed, {counts['unreadable']} unreadable"


@case("ok", "20 rounds", "20 B", "0 mixed", seconds=30)
def concurrent_saves_interleaved(directory: Path) -> str:
    """The interleaving that mixes a pair, made certain: a save of A over its own pair finds its
    .bin unchanged (kept), then is slowed 20 ms before it compares the .xml, and a save of B starts
    once A is there (an event, not a sleep: on a loaded machine A's thread could otherwise reach
    the lock after B and the pair left would rightly be A's). Unlocked (main), B's pair is written
    whole in between and A's .xml then lands beside B's .bin (main: 13 of 20 rounds mixed); with
    the lock B waits for A and the pair is B's."""
    import threading
    import time as clock

    import graphir
    from graphir.serializers import atomic

    models = _named_models()
    real_holds = atomic.holds
    slowed = threading.local()
    comparing = threading.Event()  # A is comparing its .xml (under the lock, when there is one)

    def slow_holds(path: Path, data: Any) -> bool:
        if getattr(slowed, "on", False) and path.suffix == ".xml":
            comparing.set()
            clock.sleep(0.02)
        return real_holds(path, data)

    def save_slowly(target: Path) -> None:
        slowed.on = True
        graphir.save_model(models["A"], target)

    counts = {"A": 0, "B": 0, "mixed": 0}
    atomic.holds = slow_holds  # type: ignore[assignment]
    try:
        for round_ in range(20):
            target = directory / f"r{round_}.xml"
            graphir.save_model(models["A"], target)
            comparing.clear()
            first = threading.Thread(target=save_slowly, args=(target,))
            first.start()
            assert comparing.wait(10), "the slowed save of A never compared its .xml"
            second = threading.Thread(target=graphir.save_model, args=(models["B"], target))
            second.start()
            first.join()
            second.join()
            counts[_which(target)] += 1
    finally:
        atomic.holds = real_holds  # type: ignore[assignment]
    assert counts["mixed"] == 0, counts
    return f"20 rounds: {counts['A']} A, {counts['B']} B, {counts['mixed']} mixed"


@case("ok", "reads", "0 mixed", seconds=60)
def read_during_saves(directory: Path) -> str:
    """A reader loops on read_model + run for 4 s while another process alternately saves A and B
    to the path (main: 42 of 2,508 reads were a mixed pair, run silently with the other's weights)."""
    import time as clock

    import graphir
    from graphir.errors import GraphirError

    models = _named_models()
    target = directory / "m.xml"
    graphir.save_model(models["A"], target)
    pid = os.fork()
    if pid == 0:
        end = clock.monotonic() + 4.0
        while clock.monotonic() < end:
            for name in ("B", "A"):
                graphir.save_model(models[name], target)
        os._exit(0)
    counts = {"A": 0, "B": 0, "mixed": 0, "error": 0}
    try:
        end = clock.monotonic() + 4.0
        while clock.monotonic() < end:
            try:
                counts[_which(target)] += 1
            except GraphirError:
                counts["error"] += 1
    finally:
        os.waitpid(pid, 0)
    total = sum(counts.values())
    assert counts["mixed"] == 0, counts
    assert counts["A"] and counts["B"], counts
    return f"{total} reads: {counts['A']} A, {counts['B']} B, {counts['mixed']} mixed, {counts['error']} named errors"


# ================================================================ issue 26: the API boundary ==
@case("ok", "4 refused", "must be a str, got int", "names must be text (str); got 7", "(ReLU)")
def names_that_are_not_text(directory: Path) -> str:
    import graphir
    from graphir import opset
    from graphir.errors import GraphirError

    x = opset.parameter([2], "f32", name="x")
    messages = []
    for attempt in (lambda: opset.relu(x, name=7),  # type: ignore[arg-type]
                    lambda: opset.relu(x).node.set_friendly_name(7)):  # type: ignore[arg-type]
        try:
            attempt()
        except GraphirError as exc:
            messages.append(str(exc))
    y = opset.relu(x)
    y.node.name = 7  # type: ignore[assignment]  # set directly: the writer names it
    try:
        graphir.save_model(graphir.Model([y], [x]), directory / "m.xml")
    except GraphirError as exc:
        messages.append(str(exc))
    from graphir.convert import convert_model

    z = opset.parameter([2], "f32", name="z")
    onednn = convert_model(graphir.Model([opset.relu(z)], [z]), "onednn")
    for node in onednn.get_ordered_ops():
        if node.op.type_name not in ("Parameter", "Result"):
            node.name = 7  # type: ignore[assignment]
    try:
        graphir.save_model(onednn, directory / "m.json")
    except GraphirError as exc:
        messages.append(str(exc))
    assert len(messages) == 4 and not (directory / "m.xml").exists() and not (directory / "m.json").exists(), messages
    return f"{len(messages)} refused: " + " | ".join(messages)


@case("ok", "TypeError", "argument 'model' must be a graphir Model, got str")
def save_model_of_a_string(directory: Path) -> str:
    import graphir

    try:
        graphir.save_model("hello", directory / "m.xml")  # type: ignore[arg-type]
    except TypeError as exc:
        assert not list(directory.iterdir())
        return f"TypeError: {exc}"
    raise AssertionError("saved")


@case("ok", "2,000 Relus", "from IR", "DirectML refused", "cannot be pickled")
def pickle_models(directory: Path) -> str:
    """A 2,000-node chain pickles (pickle's recursion failed at ~200 on main), a model read from IR
    pickles with its weights (main: 'cannot pickle memoryview'), a DirectML one is refused by name."""
    import pickle

    import numpy as np

    import graphir
    from graphir import opset
    from graphir.convert import convert_model
    from graphir.errors import SerializationError

    x = opset.parameter([2], "f32", name="x")
    y = x
    for _ in range(2000):
        y = opset.relu(y)
    chain = pickle.loads(pickle.dumps(graphir.Model([y], [x])))
    assert _only(chain.run({"x": np.array([-1, 2], np.float32)})).tolist() == [0, 2]
    path = _weights_model(directory, "m", 3.0, 1000)
    read = graphir.read_model(path)
    path.with_suffix(".bin").write_bytes(b"")  # the pickle holds the weights read, not the path
    again = pickle.loads(pickle.dumps(read))
    assert float(_only(again.run({"a": np.zeros(1000, np.float32)}))[0]) == 3.0
    c, a, b = opset.parameter([2], "boolean"), opset.parameter([2], "f32"), opset.parameter([2], "f32")
    directml = convert_model(graphir.Model([opset.select(c, a, b)], [c, a, b]), "directml")
    try:
        pickle.dumps(directml)
    except SerializationError as exc:
        return f"2,000 Relus and a model from IR round trip; DirectML refused: {exc}"
    raise AssertionError("a DirectML model pickled")


@case("ok", "DirectML ops have no OpenVINO IR form", "ElementWiseIf")
def save_directml_as_ir(directory: Path) -> str:
    import graphir
    from graphir import opset
    from graphir.convert import convert_model
    from graphir.errors import SerializationError

    c, a, b = opset.parameter([2], "boolean"), opset.parameter([2], "f32"), opset.parameter([2], "f32")
    directml = convert_model(graphir.Model([opset.select(c, a, b)], [c, a, b]), "directml")
    try:
        graphir.save_model(directml, directory / "m.xml")
    except SerializationError as exc:
        assert not list(directory.iterdir())
        return str(exc)
    raise AssertionError("saved")


@case("ok", "6 refused", "'int' (1000000000000000000000000000000)", "None is not a tensor value", "'dict'",
      "'object'", "no element type given (None)")
def values_without_an_element_type(directory: Path) -> str:
    import numpy as np

    from graphir import opset
    from graphir.errors import GraphirError

    messages = []
    for value in (10**30, None, {"a": 1}, np.array([object()]), [1, None]):
        try:
            opset.constant(value)
        except GraphirError as exc:
            messages.append(str(exc))
    try:
        opset.parameter([2], None)  # type: ignore[arg-type]
    except GraphirError as exc:
        messages.append(str(exc))
    assert opset.constant(["a", "b"]).node.op.element_type.value == "string"  # text stays a string tensor
    return f"{len(messages)} refused: " + " | ".join(messages)


@case("ok", "constant copied", "outputs read-only", "reshape target copied")
def results_do_not_alias_the_model(directory: Path) -> str:
    """Issue 27: the caller's array, a returned constant output and a Reshape target array never
    change the model afterwards."""
    import numpy as np

    import graphir
    from graphir import opset

    given = np.array([1.0, 2.0], np.float32)
    x = opset.parameter([2], "f32", name="x")
    k = opset.constant(given, name="k")
    given[0] = 100  # after building
    target = np.array([2, 3], np.int64)
    p = opset.parameter([6], "f32", name="p")
    reshaped = opset.reshape(p, opset.constant(target), special_zero=False)
    target[:] = [3, 2]
    model = graphir.Model([opset.add(x, k, name="y"), k.node.output(0), opset.add(k, k, name="folded"), reshaped],
                          [x, p])
    inputs = {"x": np.zeros(2, np.float32), "p": np.arange(6, dtype=np.float32)}
    first = model.run(inputs)
    refused = 0
    for value in first.values():
        try:
            value[0] = 100
        except ValueError:
            refused += 1
    assert refused == 2, refused  # the constant and the folded one; y and the reshape are fresh per run
    again = model.run(inputs)
    values = list(again.values())
    assert values[0].tolist() == [1, 2] and values[1].tolist() == [1, 2] and values[2].tolist() == [2, 4], values
    assert values[3].shape == (2, 3), values[3].shape
    graphir.save_model(model, directory / "m.xml")
    assert _only({"r": list(graphir.read_model(directory / "m.xml").run(inputs).values())[3]}).shape == (2, 3)
    return f"constant copied, outputs read-only ({refused} of 4 refused writes), reshape target copied"


# =========================================== issue 26: unknown ops, names, values, limits ==
def _ir_with(directory: Path, old: str, new: str, name: str = "x") -> Path:
    """base.xml (Parameter a + Const k -> Add) with ``old`` replaced by ``new`` in its text."""
    path, text = base_ir(directory, "base")
    assert old in text, old
    return write_variant(directory, name, text.replace(old, new))


@case("SerializationError", "x.xml", "Opset opset1 doesn't contain the operation with type: Ad",
      "(did you mean Add", "type=Ad")
def layer_type_misspelled_in_a_standard_opset(directory: Path) -> str:
    import graphir

    graphir.read_model(_ir_with(directory, 'type="Add" version="opset1"', 'type="Ad" version="opset1"'))
    return "read"


@case("ok", "opaque", "my_extension", "not implemented in graphir")
def layer_of_an_extension_opset_loads_opaque(directory: Path) -> str:
    path = _ir_with(directory, 'type="Add" version="opset1"', 'type="Ad" version="my_extension"')
    status, text = _cli("info", str(path))
    assert status == 0, text
    return "opaque: " + " ".join(line.strip() for line in text.splitlines() if "Ad" in line)


@case("ok", "[' a ', 'b']", "kept on save and re-read")
def tensor_names_with_spaces(directory: Path) -> str:
    import graphir

    path = _ir_with(directory, 'names="a"', 'names=" a ,b"')
    names = sorted(graphir.read_model(path).get_parameters()[0].output(0).names)
    graphir.save_model(graphir.read_model(path), directory / "again.xml")
    again = sorted(graphir.read_model(directory / "again.xml").get_parameters()[0].output(0).names)
    assert names == again == [" a ", "b"], (names, again)  # as OpenVINO 2026.4 reads them
    return f"{names} kept on save and re-read"


@case("ok", "k = -3 refused", "The value of 'K' must be greater or equal to zero. (got -3)")
def topk_negative_k_from_an_input(directory: Path) -> str:
    import numpy as np

    import graphir
    from graphir import opset
    from graphir.errors import GraphirError

    x, k = opset.parameter([5], "f32", name="x"), opset.parameter([], "i64", name="k")
    values = opset.make("TopK", x, k, version="opset11", axis=0, mode="max", sort="value")
    model = graphir.Model([values[0] if isinstance(values, list) else values], [x, k])
    assert _only(model.run({"x": np.arange(5, dtype=np.float32), "k": np.array(2)})).tolist() == [4, 3]
    try:
        model.run({"x": np.arange(5, dtype=np.float32), "k": np.array(-3)})
    except GraphirError as exc:
        return f"k = -3 refused: {exc}"
    raise AssertionError("ran with k = -3")


@case("ok", "built: ", "read: ", "less than or equal to 9223372036854775807")
def random_uniform_seed_out_of_range(directory: Path) -> str:
    import numpy as np

    import graphir
    from graphir import opset
    from graphir.errors import GraphirError

    shape = opset.constant(np.array([2], np.int64))
    lo, hi = opset.constant(np.float32(0)), opset.constant(np.float32(1))
    messages = []
    try:
        opset.make("RandomUniform", shape, lo, hi, output_type="f32", global_seed=2**63, op_seed=1)
    except GraphirError as exc:
        messages.append(f"built: {exc}")
    made = opset.make("RandomUniform", shape, lo, hi, output_type="f32", global_seed=5, op_seed=1)
    graphir.save_model(graphir.Model([made], []), directory / "r.xml")  # type: ignore[list-item]
    text = (directory / "r.xml").read_text()
    assert 'global_seed="5"' in text
    (directory / "r.xml").write_text(text.replace('global_seed="5"', f'global_seed="{2**64 - 1}"'))
    try:
        graphir.read_model(directory / "r.xml")
    except GraphirError as exc:
        messages.append(f"read: {exc}")
    assert len(messages) == 2, messages
    return " | ".join(messages)


@case("ok", "f64 array refused", "expected element type f32", "expected shape")
def variable_state_checked_as_inputs_are(directory: Path) -> str:
    import numpy as np

    import graphir
    from graphir import opset
    from graphir.errors import InputError

    x = opset.parameter([2], "f32", name="x")
    read = opset.make("ReadValue", x, version="opset6", variable_id="v")
    assign = opset.make("Assign", read, version="opset6", variable_id="v")
    model = graphir.Model([opset.add(read, x)], [x], sinks=[assign.node if hasattr(assign, "node") else assign])
    request = model.create_infer_request()
    state = request.query_state()[0]
    messages = []
    for value in (np.array([1e40, 1.0]), np.zeros((3,), np.float32)):
        try:
            state.state = value
        except InputError as exc:
            messages.append(str(exc))
    state.state = [1.0, 2.0]  # a list converts, as run's inputs do
    assert state.state.dtype == np.float32 and len(messages) == 2, messages
    return "f64 array refused: " + " | ".join(messages)


@case("ok", "batch 0", "(0, 2, 2, 2)", "(0, 2)")
def zero_size_batch(directory: Path) -> str:
    import numpy as np

    import graphir
    from graphir import opset

    x = opset.parameter([-1, 1, 4, 4], "f32", name="x")
    conv = opset.convolution(x, opset.constant(np.ones((2, 1, 3, 3), np.float32)), strides=[1, 1], pads_begin=[0, 0],
                             pads_end=[0, 0], dilations=[1, 1])
    pooled = opset.reduce_mean(opset.relu(conv), opset.constant(np.array([2, 3], np.int64)), keep_dims=False)
    model = graphir.Model([conv, pooled], [x])
    outs = model.run({"x": np.zeros((0, 1, 4, 4), np.float32)})
    shapes = [v.shape for v in outs.values()]
    assert shapes == [(0, 2, 2, 2), (0, 2)], shapes
    assert list(model.run({"x": np.ones((1, 1, 4, 4), np.float32)}).values())[1].tolist() == [[9.0, 9.0]]
    return f"batch 0 runs: {shapes}"


@case("SerializationError", "x.xml", "layer id=", "name='k'", "more bytes than an array can address")
def const_shape_numpy_cannot_hold(directory: Path) -> str:
    import graphir

    graphir.read_model(_ir_with(directory, 'shape="2, 3" offset="0" size="24"',
                                'shape="0, 4611686018427387904" offset="0" size="0"'))
    return "read"


@case("SerializationError", "big.xml", "cannot read the weights file", memory_mib=1024)
def weights_beyond_the_address_space(directory: Path) -> str:
    """A 4 GiB (sparse) .bin read under a 1 GiB address-space limit: mapping it fails with ENOMEM,
    which is a named error (main: OSError [Errno 12])."""
    import graphir

    path, text = base_ir(directory, "big")
    with open(path.with_suffix(".bin"), "r+b") as fh:
        fh.truncate(4 << 30)
    graphir.read_model(path).run({"a": [[0.0] * 3] * 2})
    return "read"


@case("ok", "2 refused before reading data", "4,000,000,000,000 bytes", "member 'a'")
def cli_npy_and_npz_headers_checked_first(directory: Path) -> str:
    import zipfile

    path, _ = base_ir(directory, "m")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }"
    header += " " * (64 - (len(header) + 11) % 64) + "\n"
    (directory / "big.npy").write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    with zipfile.ZipFile(directory / "big.npz", "w", zipfile.ZIP_DEFLATED) as archive:  # inflates to 64 MiB
        with archive.open("a.npy", "w", force_zip64=True) as member:
            for _ in range(64):
                member.write(b"\0" * MiB)
    messages = []
    for extra in (["-i", "a=big.npy"], ["--inputs", "big.npz", "--max-tensor-bytes", "1000000"]):
        status, text = _cli("run", str(path), *extra)
        assert status == 2, (status, text)
        messages.append(text.strip())
    return "2 refused before reading data: " + " | ".join(messages)


# ====================================================================== the runner ==
def _limit(case_: Case) -> None:
    memory = case_.memory_mib * MiB
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(math.ceil(case_.seconds)) + 5
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    signal.alarm(int(math.ceil(case_.seconds)))


def _work(case_: Case, directory: Path, result_file: Path) -> None:
    """In the forked worker: run the case under its limits, write its outcome as JSON."""
    from graphir.errors import GraphirError

    directory.mkdir(parents=True, exist_ok=True)
    os.chdir(directory)
    _limit(case_)
    start = time.perf_counter()
    try:
        outcome = {"class": "ok", "message": str(case_.run(directory)), "graphir": False}
    except BaseException as exc:  # noqa: BLE001 - every outcome is recorded
        outcome = {"class": type(exc).__name__, "message": str(exc)[:100_000] or repr(exc),
                   "message_length": len(str(exc)), "graphir": isinstance(exc, GraphirError),
                   "traceback": "" if isinstance(exc, GraphirError) else traceback.format_exc()[-3000:]}
    outcome["seconds"] = round(time.perf_counter() - start, 3)
    result_file.write_text(json.dumps(outcome))


def _warm_up(directory: Path) -> None:
    """Import what the cases use once, before forking (op classes load lazily, pydantic builds
    their schemas on first use: ~1.5 s a worker would otherwise pay each)."""
    import numpy as np

    import graphir
    from graphir.ops.registry import all_ops

    directory.mkdir(parents=True, exist_ok=True)
    path, _ = base_ir(directory)
    graphir.read_model(path).run({"a": np.ones((2, 3), np.float32)})
    for _ in all_ops():
        pass
    json_valid(directory)


def run_all(out: Path, workdir: Path, names: "list[str] | None" = None, parallel: int = 3) -> None:
    import graphir  # noqa: F401 - imported once, shared by every forked worker
    import graphir.serializers.onednn_json  # noqa: F401
    import graphir.serializers.openvino_xml  # noqa: F401

    _warm_up(workdir / "warm-up")
    todo = [CASES[n] for n in (names or list(CASES))]
    todo.sort(key=lambda c: -c.seconds)  # the long ones first
    running: dict[int, tuple[Case, Path, float]] = {}
    results: dict[str, Any] = {}
    while todo or running:
        while todo and len(running) < parallel:
            case_ = todo.pop(0)
            result_file = workdir / f"{case_.name}.result.json"
            pid = os.fork()
            if pid == 0:
                try:
                    _work(case_, workdir / case_.name, result_file)
                finally:
                    os._exit(0)
            running[pid] = (case_, result_file, time.perf_counter())
        pid, status = os.wait()
        case_, result_file, started = running.pop(pid)
        if result_file.exists():
            results[case_.name] = json.loads(result_file.read_text())
        else:
            reason = (f"killed by signal {signal.Signals(os.WTERMSIG(status)).name}" if os.WIFSIGNALED(status)
                      else f"exited with status {os.WEXITSTATUS(status)}")
            results[case_.name] = {"class": "died", "message": f"{reason} after {time.perf_counter() - started:.1f} s "
                                                               f"(limits: {case_.seconds} s, {case_.memory_mib} MiB)"}
    out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run_all(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:] or None)

