"""Greedy decoding with a stateful LLM IR: the KV cache lives in the request's variables.

Reads a tiny random Llama exported by optimum-intel (tests/fixtures/llm/llama-int4asym: int4
weights, ReadValue/Assign per KV tensor, a ``beam_idx`` input), decodes a few tokens for a batch of
two prompts, and between steps swaps the two rows with ``beam_idx`` (what beam search does when
beams change places: the model gathers its cached keys/values by it). Prints the tokens; when the
``openvino`` package is installed, decodes with OpenVINO CPU too and checks the tokens are equal.

    python examples/generate.py [MODEL.xml] [--tokens N]
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

import graphir

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent / "tests" / "fixtures" / "llm" / "llama-int4asym" / "openvino_model.xml"
PROMPTS = np.array([[11, 42, 7, 99], [5, 200, 31, 64]], np.int64)


def generate(request: Any, prompts: np.ndarray, tokens: int) -> np.ndarray:
    """Greedy decoding on an infer request (graphir's or OpenVINO's: both take a dict of inputs and
    return outputs by name); rows swap places after every step. Returns the generated tokens."""
    request.reset_state()
    batch, length = prompts.shape
    ids, past = prompts, 0
    order = np.arange(batch)  # which original prompt each row holds now
    beam_idx = np.arange(batch, dtype=np.int32)
    out = np.zeros((batch, tokens), np.int64)
    for step in range(tokens):
        new = ids.shape[1]
        logits = request.infer({
            "input_ids": ids,
            "attention_mask": np.ones((batch, past + new), np.int64),
            "position_ids": np.tile(np.arange(past, past + new, dtype=np.int64), (batch, 1)),
            "beam_idx": beam_idx,
        })["logits"]
        past += new
        next_ids = np.asarray(logits)[:, -1, :].argmax(-1)
        out[order, step] = next_ids
        beam_idx = np.arange(batch, dtype=np.int32)[::-1].copy()  # the rows trade places...
        order = order[beam_idx]
        ids = next_ids[beam_idx][:, None]  # ...and so do their last tokens
    return out


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    tokens = int(argv[argv.index("--tokens") + 1]) if "--tokens" in argv else 5
    path = Path(args[0]) if args and not args[0].isdigit() else DEFAULT
    model = graphir.read_model(path)
    print(f"{path.parent.name}: {len(model.variables)} variables, inputs {[p.name for p in model.parameters]}")
    ours = generate(model.create_infer_request(), PROMPTS, tokens)
    for prompt, row in zip(PROMPTS, ours):
        print(f"prompt {prompt.tolist()} -> {row.tolist()}")
    try:
        import openvino as ov
    except ImportError:
        return 0
    compiled = ov.Core().compile_model(ov.Core().read_model(path), "CPU", {
        "INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"})
    theirs = generate(compiled.create_infer_request(), PROMPTS, tokens)
    assert (ours == theirs).all(), f"OpenVINO decoded {theirs.tolist()}"
    print("OpenVINO CPU decodes the same tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
