"""Shared helpers for the stateful LLM fixtures (tests/fixtures/llm, written by gen_llm_fixtures.py):
their paths, the inputs of one decoding step, and OpenVINO CPU requests configured for exact f32
references (KV cache in f32, no dynamic activation quantization)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

LLM_DIR = Path(__file__).resolve().parent / "fixtures" / "llm"
#: CPU config giving f32 references: by default the plugin keeps the KV cache in f16 and quantizes
#: activations for compressed weights (values move by ~2e-4)
OV_F32_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32",
                 "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
ARCHS = ("llama", "qwen2", "gpt2", "mistral", "phi3", "whisper")
FORMATS = ("fp32", "fp16", "int8", "int8sym", "int4sym", "int4asym", "nf4", "mxfp4")


def llm_path(name: str) -> Path:
    return LLM_DIR / name / "openvino_model.xml"


def decoder_names() -> list[str]:
    """Every exported decoder folder present (stateful formats and stateless variants)."""
    return sorted(p.parent.name for p in LLM_DIR.glob("*/openvino_model.xml"))


def step_inputs(input_names: list[str], batch: int, past: int, new: int, rng: np.random.Generator,
                vocab: int = 256, beam_idx: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Inputs of one decoding step: ``new`` tokens after ``past`` cached ones, for each input the
    export declares (input_ids, attention_mask, position_ids, beam_idx, encoder_hidden_states...)."""
    values: dict[str, np.ndarray] = {}
    for name in input_names:
        if name in ("input_ids", "decoder_input_ids"):
            values[name] = rng.integers(3, vocab, size=(batch, new), dtype=np.int64)
        elif name == "attention_mask":
            values[name] = np.ones((batch, past + new), np.int64)
        elif name == "position_ids":
            values[name] = np.tile(np.arange(past, past + new, dtype=np.int64), (batch, 1))
        elif name == "cache_position":
            values[name] = np.arange(past, past + new, dtype=np.int64)
        elif name == "beam_idx":
            values[name] = np.arange(batch, dtype=np.int32) if beam_idx is None else beam_idx.astype(np.int32)
        elif name == "encoder_hidden_states":
            values[name] = np.random.default_rng(7).standard_normal((batch, 8, 64)).astype(np.float32)
        else:
            raise KeyError(f"no generator for decoder input '{name}'")
    return values


def ov_request(path: Path) -> tuple[Any, Any]:
    """(openvino model, infer request) compiled on CPU for f32 references."""
    import openvino as ov

    core = ov.Core()
    model = core.read_model(path)
    return model, core.compile_model(model, "CPU", OV_F32_CONFIG).create_infer_request()
