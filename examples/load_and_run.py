"""Load an OpenVINO IR and run it with graphir.

Reads examples/select.xml (the Select-1 specification's example: cond boolean[3,2], then and else
i32[3,2]), runs it on the specification's inputs, checks the documented result and prints it.
Also shows a profiled run and what a bad input looks like.

    python examples/load_and_run.py [MODEL.xml]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import graphir

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else HERE / "select.xml"
    model = graphir.read_model(path)
    print(f"loaded {path.name}: {model}")

    inputs = {
        "cond": np.array([[False, False], [True, False], [True, True]]),
        "then": np.array([[-1, 0], [1, 2], [3, 4]], np.int32),
        "else": np.array([[11, 10], [9, 8], [7, 6]], np.int32),
    }
    outputs = model.run(inputs)  # keyed by the Result's tensor name
    for name, value in outputs.items():
        print(f"{name}: {value.dtype} {list(value.shape)}\n{value}")
    expected = np.array([[11, 10], [1, 8], [3, 4]], np.int32)  # the specification's output
    result = next(iter(outputs.values()))
    assert np.array_equal(result, expected), f"expected {expected.tolist()}, got {result.tolist()}"

    profiled = model.profile(inputs)
    print("\nper-node profile:\n" + profiled.table())

    try:  # inputs are checked against the Parameters before anything runs
        model.run({**inputs, "then": inputs["then"].astype(np.float32)})
    except graphir.errors.InputError as exc:
        print(f"\nrejected as expected: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
