"""Writes the stateful-model fixtures under tests/fixtures/llm/ with the real exporters
(run: ``python tests/gen_llm_fixtures.py [ARCH ...] [FORMAT ...] [variables]``; needs the
``fixtures`` extra; about 10 minutes on 2 cores).

* ``<arch>-<format>/openvino_model.xml``: tiny random decoders (2 layers, hidden 64, vocab 256) made
  from a config saved with ``save_pretrained`` into a temp folder (no hub) and exported by
  optimum-intel as ``text-generation-with-past`` (stateful: ReadValue-6/Assign-6 per KV tensor and a
  ``beam_idx`` input). Formats: ``fp32``, ``fp16``, and through nncf ``int8`` (u8 with zero points, per
  channel), ``int8sym`` (i8), ``int4sym``/``int4asym`` (group 32), ``nf4`` (group 32), ``mxfp4`` (group 32). ``<arch>-stateless``
  is a non-stateful fp32 export. The Whisper decoder comes from an
  ``automatic-speech-recognition-with-past`` export (its encoder file is dropped).
* ``variables/*.xml``: ReadValue/Assign models built with OpenVINO's Python API (with and without
  init subgraphs, variables of dynamic shape, ReadValue-3/Assign-3).
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "fixtures" / "llm"


def _hide_broken_torchvision() -> None:
    """The PyPI torchvision is a CUDA build whose import fails beside the CPU torch ("operator
    torchvision::nms does not exist"); transformers imports it when present. None is needed here."""
    try:
        import torchvision  # noqa: F401
    except Exception:  # noqa: BLE001 - any failure: make transformers see no torchvision
        for name in [m for m in sys.modules if m.startswith("torchvision")]:
            del sys.modules[name]
        import importlib.util

        real_find_spec = importlib.util.find_spec
        importlib.util.find_spec = lambda name, *a: None if name.split(".")[0] == "torchvision" else real_find_spec(name, *a)

GROUP = 32
#: weight format -> optimum-intel quantization config keyword arguments (None: no nncf)
FORMATS: dict[str, dict | None] = {
    "fp32": None,
    "fp16": None,
    "int8": {"bits": 8, "sym": False},
    "int8sym": {"bits": 8, "sym": True},
    "int4sym": {"bits": 4, "sym": True, "group_size": GROUP, "ratio": 1.0},
    "int4asym": {"bits": 4, "sym": False, "group_size": GROUP, "ratio": 1.0},
    "nf4": {"bits": 4, "dtype": "nf4", "group_size": GROUP, "ratio": 1.0},
    "mxfp4": {"bits": 4, "dtype": "mxfp4", "group_size": GROUP, "ratio": 1.0},
}
ARCHS = ("llama", "qwen2", "gpt2", "mistral", "phi3", "whisper")
STATELESS = ("llama", "gpt2")


def _config(arch: str):  # noqa: ANN202 - transformers config
    import transformers as tf

    common = dict(vocab_size=256, max_position_embeddings=128)
    if arch == "gpt2":
        return tf.GPT2Config(n_layer=2, n_embd=64, n_head=4, n_positions=128, vocab_size=256)
    if arch == "whisper":
        return tf.WhisperConfig(vocab_size=256, d_model=64, encoder_layers=1, decoder_layers=2,
                                encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
                                decoder_ffn_dim=128, num_mel_bins=16, max_source_positions=1500,
                                max_target_positions=64, decoder_start_token_id=1, pad_token_id=0,
                                bos_token_id=1, eos_token_id=2, suppress_tokens=[], begin_suppress_tokens=[])
    cls = {"llama": tf.LlamaConfig, "qwen2": tf.Qwen2Config, "mistral": tf.MistralConfig,
           "phi3": tf.Phi3Config}[arch]
    extra = {"sliding_window": None} if arch in ("mistral", "qwen2") else {}
    if arch == "phi3":
        extra["pad_token_id"] = 0
    return cls(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
               num_key_value_heads=2, **common, **extra)


def _save_pretrained(arch: str, folder: Path) -> None:
    import torch
    import transformers as tf

    torch.manual_seed(0)
    config = _config(arch)
    if arch == "whisper":
        model = tf.WhisperForConditionalGeneration(config)
        tf.WhisperFeatureExtractor(feature_size=16).save_pretrained(folder)
    else:
        model = tf.AutoModelForCausalLM.from_config(config)
    with torch.no_grad():  # random init gives tiny logits: widen so token choices differ
        for p in model.parameters():
            if p.dim() >= 2:
                p.mul_(4.0)
    model.eval().save_pretrained(folder)


def _export(arch: str, src: Path, fmt: str, stateful: bool, dst: Path) -> None:
    from optimum.intel import OVModelForCausalLM, OVModelForSpeechSeq2Seq, OVWeightQuantizationConfig

    q = FORMATS[fmt]
    kwargs: dict = {"export": True, "compile": False, "stateful": stateful}
    if q is not None:
        if arch == "whisper" and fmt == "mxfp4":  # nncf 3.4.0: "Group-wise quantization expects a single
            q = {**q, "ignored_scope": {"types": ["Convolution"], "validate": False}}  # reduction axis" on the encoder's Conv1d
        kwargs["quantization_config"] = OVWeightQuantizationConfig(**q)
    else:
        kwargs["load_in_8bit"] = False
    cls = OVModelForSpeechSeq2Seq if arch == "whisper" else OVModelForCausalLM
    model = cls.from_pretrained(src, **kwargs)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        name = "openvino_decoder_model" if arch == "whisper" else "openvino_model"
        if fmt == "fp16":
            import openvino as ov

            ov.save_model(ov.Core().read_model(Path(tmp) / f"{name}.xml"), dst / "openvino_model.xml",
                          compress_to_fp16=True)
        else:
            dst.mkdir(parents=True, exist_ok=True)
            for suffix in (".xml", ".bin"):
                shutil.copy(Path(tmp) / f"{name}{suffix}", dst / f"openvino_model{suffix}")


def gen_llms(only: list[str], only_formats: list[str] = ()) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for arch in ARCHS:
            if only and arch not in only:
                continue
            src = Path(tmp) / arch
            _save_pretrained(arch, src)
            for fmt in FORMATS:
                if only_formats and fmt not in only_formats:
                    continue
                dst = OUT / f"{arch}-{fmt}"
                dst.mkdir(parents=True, exist_ok=True)
                _export(arch, src, fmt, True, dst)
                print("wrote", dst, flush=True)
            if arch in STATELESS:
                dst = OUT / f"{arch}-stateless"
                dst.mkdir(parents=True, exist_ok=True)
                _export(arch, src, "fp32", False, dst)
                print("wrote", dst, flush=True)


def gen_variables() -> None:
    """Small ReadValue/Assign models from OpenVINO's Python API."""
    import openvino as ov
    import openvino.opset3 as op3
    import openvino.opset6 as op6
    from openvino.op.util import Variable, VariableInfo

    out = OUT / "variables"
    out.mkdir(parents=True, exist_ok=True)

    def variable(vid: str, shape: list[int] | str, et: ov.Type = ov.Type.f32) -> Variable:
        info = VariableInfo()
        info.data_shape = ov.PartialShape(shape)
        info.data_type = et
        info.variable_id = vid
        return Variable(info)

    # accumulator without init (zeros of a static shape)
    y = op6.parameter([2, 3], np.float32, name="y")
    v = variable("acc", [2, 3])
    s = op6.add(op6.read_value(v), y)
    ov.save_model(ov.Model([op6.result(s)], [op6.assign(s, v)], [y], "accumulate"), out / "accumulate.xml")

    # init subgraph (0.5 broadcast to x's shape), variable of dynamic batch
    x = op6.parameter([-1, 4], np.float32, name="x")
    v = variable("run", [-1, 4])
    init = op6.broadcast(op6.constant(np.float32(0.5)), op6.shape_of(x))
    s = op6.multiply(op6.read_value(init, v), x)
    ov.save_model(ov.Model([op6.result(s)], [op6.assign(s, v)], [x], "init_subgraph"), out / "init_subgraph.xml",
                  compress_to_fp16=False)

    # growing cache: a dynamic dim read empty the first time, concatenated each step (two variables)
    z = op6.parameter([-1, 3], np.float32, name="z")
    k = variable("k", [-1, 3])
    w = variable("w", [-1, 3], ov.Type.i32)
    cat = op6.concat([op6.read_value(k), z], 0)
    ints = op6.concat([op6.read_value(w), op6.convert(z, "i32")], 0)
    model = ov.Model([op6.result(cat), op6.result(op6.reduce_sum(ints, op6.constant(np.int64(0)), True))],
                     [op6.assign(cat, k), op6.assign(ints, w)], [z], "grow")
    ov.save_model(model, out / "grow.xml")

    # opset3: ReadValue-3 (init input required) / Assign-3
    p = op3.parameter([1, 5], np.float32, name="p")
    rv = op3.read_value(op3.constant(np.full((1, 5), 2.0, np.float32)), "counter")
    s = op3.add(rv, p)
    ov.save_model(ov.Model([op3.result(s)], [op3.assign(s, "counter")], [p], "opset3"), out / "opset3.xml")


if __name__ == "__main__":
    _hide_broken_torchvision()
    args = sys.argv[1:]
    if not args or "variables" in args:
        gen_variables()
    if not args or any(a in ARCHS for a in args):
        gen_llms([a for a in args if a in ARCHS], [a for a in args if a in FORMATS])
