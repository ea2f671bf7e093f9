"""Fuzzing the oneDNN Graph JSON reader (the twin of tests/test_ir_fuzz.py): mutated files give a
model or a graphir error, nothing else.

Mutations: a value anywhere in the document replaced by a hostile one (huge or negative integers,
floats, strings, null, deep lists, objects), a key removed, an op duplicated or dropped, a tensor
id re-pointed, the text truncated or given stray bytes, the encoding changed. A model that reads is
also exercised (shapes re-inferred, written back, and run when every input is static), since a wrong
model that fails later would be a silent error at read time.
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphir.errors import GraphirError
from graphir.serializers.onednn_json import dumps, loads


def _lt(ident: int, shape: list[int], dtype: str = "f32") -> dict[str, Any]:
    return {"id": ident, "dtype": dtype, "shape": shape, "stride": [math.prod(shape[i + 1:]) for i in range(len(shape))],
            "layout_type": "strided", "property_type": "undef"}


def _source() -> dict[str, Any]:
    return {
        "version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "input_ports": [0, 1, 4],
        "output_ports": [5],
        "graph": [
            {"id": 7, "name": "add", "kind": "Add", "attrs": {"auto_broadcast": {"type": "string", "value": "numpy"}},
             "inputs": [_lt(0, [2, 3]), _lt(1, [1, 3])], "outputs": [_lt(2, [2, 3])]},
            {"id": 8, "name": "relu", "kind": "ReLU", "attrs": {}, "inputs": [_lt(2, [2, 3])], "outputs": [_lt(3, [2, 3])]},
            {"id": 9, "name": "mm", "kind": "MatMul",
             "attrs": {"transpose_a": {"type": "bool", "value": 0}, "transpose_b": {"type": "bool", "value": 1}},
             "inputs": [_lt(3, [2, 3]), _lt(4, [4, 3])], "outputs": [_lt(5, [2, 4])]},
        ],
    }


SOURCE = _source()
HOSTILE = st.one_of(
    st.sampled_from([None, True, False, 0, -1, 1, 2, 3, -2, 1 << 63, -(1 << 63), 1 << 64, 10**30, 1.5, -0.0,
                     "", "f32", "bf16", "s8", "u8", "boolean", "strided", "any", "opaque", "constant", "variable",
                     "Add", "ReLU", "End", "Wildcard", "numpy", "none", "\u00e9", "\x00", [], {}, [[]],
                     [2, 3], [-1], [-(1 << 63)], [1 << 40, 1 << 40], {"type": "s64", "value": 1}]),
    st.integers(), st.text(max_size=6), st.lists(st.integers(-3, 8), max_size=5),
)


def _containers(node: Any, out: list[Any]) -> list[Any]:
    """Every dict and list in the document (iteratively)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            out.append(item)
            stack.extend(item.values() if isinstance(item, dict) else item)
    return out


def _mutate(data: st.DataObject, doc: Any) -> Any:
    containers = _containers(doc, [])
    kind = data.draw(st.sampled_from(["value", "remove", "duplicate", "drop", "repoint", "nest"]))
    target = data.draw(st.sampled_from(containers))
    if kind == "value" and target:
        key = data.draw(st.sampled_from(list(target) if isinstance(target, dict) else list(range(len(target)))))
        target[key] = copy.deepcopy(data.draw(HOSTILE))  # sampled lists/dicts are shared: never edit them
    elif kind == "remove" and target:
        if isinstance(target, dict):
            del target[data.draw(st.sampled_from(list(target)))]
        else:
            del target[data.draw(st.integers(0, len(target) - 1))]
    elif kind in ("duplicate", "drop") and isinstance(doc, dict) and isinstance(doc.get("graph"), list) and doc["graph"]:
        i = data.draw(st.integers(0, len(doc["graph"]) - 1))
        if kind == "duplicate":
            doc["graph"].append(copy.deepcopy(doc["graph"][i]))
        else:
            del doc["graph"][i]
    elif kind == "repoint":
        tensors = [c for c in containers if isinstance(c, dict) and "layout_type" in c]
        if tensors:
            data.draw(st.sampled_from(tensors))["id"] = data.draw(st.integers(-2, 9))
    elif kind == "nest" and target:
        key = data.draw(st.sampled_from(list(target) if isinstance(target, dict) else list(range(len(target)))))
        value = target[key]
        for _ in range(data.draw(st.integers(1, 40))):
            value = [value]
        target[key] = value
    return doc


def _text_damage(data: st.DataObject, text: bytes) -> bytes:
    kind = data.draw(st.sampled_from(["none", "none", "truncate", "insert", "encoding"]))
    if kind == "truncate":
        return text[:data.draw(st.integers(0, len(text)))]
    if kind == "insert":
        cut = data.draw(st.integers(0, len(text)))
        return text[:cut] + data.draw(st.binary(max_size=8)) + text[cut:]
    if kind == "encoding":
        return text.decode().encode(data.draw(st.sampled_from(["utf-16", "utf-32", "utf-8-sig", "latin-1"])))
    return text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rounds=st.integers(1, 3))
def test_mutated_json_gives_a_model_or_a_graphir_error(data: st.DataObject, rounds: int) -> None:
    doc: Any = copy.deepcopy(SOURCE)
    for _ in range(rounds):
        doc = _mutate(data, doc)
    text = _text_damage(data, json.dumps(doc).encode())
    try:
        model = loads(text, Path("fuzz.json"))
        model.infer_shapes()
        dumps(model)
        params = model.get_parameters()
        if all(p.op.shape.is_static and not p.op.element_type.is_dynamic for p in params):
            model.run([np.zeros(p.op.shape.to_shape(), p.op.element_type.numpy_dtype) for p in params])
    except GraphirError as exc:
        assert "fuzz.json" in str(exc) or "node" in str(exc) or "model" in str(exc) or "input" in str(exc), str(exc)


def test_the_source_is_valid_and_runs() -> None:
    model = loads(json.dumps(SOURCE), Path("fuzz.json"))
    a = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    b = np.ones((1, 3), np.float32)
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    (y,) = model.run({"0": a, "1": b, "4": w}).values()
    np.testing.assert_allclose(y, np.maximum(a + b, 0) @ w.T)
