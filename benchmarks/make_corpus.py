"""Writes the benchmark corpus of real exports into a cache directory outside the repository.

    python benchmarks/make_corpus.py [--dir DIR] [--only PATTERN] [--list]

DIR defaults to ``$GRAPHIR_BENCH_DIR`` or ``~/.cache/graphir-bench``. Every file comes from a real
exporter: ``openvino.convert_model`` on torchvision models (weights=None, BatchNorm statistics
re-drawn so outputs are not flat) and on HF encoders built from tiny random configs (no hub),
an LSTM classifier, optimum-intel/nncf exports of tiny random LLM configs with compressed weights
(``tests/gen_llm_fixtures.py``), the torchvision detectors of ``tests/detectors`` and the
synthetic chains of ``benchmarks/synthetic_chains.py``. Needs the ``fixtures`` and ``bench`` extras.

Per entry NAME the directory gets ``NAME.xml``/``.bin`` (the IR), ``NAME.npz`` (the run inputs,
keyed by input name in the model's input order), ``NAME.onnx`` when the same torch module exports
to ONNX (torch's TorchScript exporter), and last ``NAME.json`` (family, the shapes the benchmark
reshapes to, the ONNX file or why there is none, the recipe version). An entry whose ``.json``
names the current recipe is skipped, so the command is idempotent and resumes where it stopped.
"""
from __future__ import annotations

import argparse
import fnmatch
import inspect
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]  # tests.* helpers and synthetic_chains

RECIPE = "2"  # bump when an entry's recipe changes: every entry is then rewritten


def default_dir() -> Path:
    return Path(os.environ.get("GRAPHIR_BENCH_DIR") or Path.home() / ".cache" / "graphir-bench")


@dataclass
class Written:
    """What one recipe produced besides the IR: run inputs, reshape targets, the ONNX outcome."""

    inputs: dict[str, np.ndarray]
    reshape: list[list[int]]  # the shapes to time reshape to, per input in the model's input order
    onnx_note: str  # "" when NAME.onnx was written, else why not
    note: str = ""
    slow_run: str = ""  # why the run comparison is left out unless asked for (benchmarks/real_files.py --slow)


@dataclass
class Entry:
    name: str
    family: str
    recipe: Callable[[Path], Written]  # writes the IR at the given .xml path
    default: bool = True  # False: made and measured only when --only names it


# --- torch modules -------------------------------------------------------------------------------

def _torchvision() -> Any:
    """torchvision 0.28.0 (a CUDA build) with CPU stubs for its compiled ops (tests/detectors)."""
    from tests.detectors.torchvision_cpu import import_torchvision

    return import_torchvision()


def _seeded_batchnorm(module: Any, seed: int) -> Any:
    from tests.gen_torchvision_fixtures import randomize

    return randomize(module, seed)


def _export_torch(module: Any, xml: Path, example: tuple[Any, ...], dims: list[list[int]],
                  run_shapes: list[list[int]], fp16: bool = False, int_inputs: dict[int, int] | None = None,
                  onnx: bool = True, run_inputs: list[np.ndarray] | None = None) -> Written:
    """Convert ``module`` with OpenVINO (inputs of the partial shapes ``dims``, -1 dynamic), save
    it, export the same module to ONNX with the same dynamic axes, and draw run inputs of
    ``run_shapes`` (input i in ``int_inputs``: integers below that bound, else standard normal) unless
    ``run_inputs`` gives them."""
    import openvino as ov
    import torch

    module = module.eval()
    with torch.no_grad():
        model = ov.convert_model(module, example_input=example, input=[ov.PartialShape(d) for d in dims])
    for port, d in zip(model.inputs, dims):
        if port.get_partial_shape() != ov.PartialShape(d):  # the converter fixed some dims
            model.reshape({port: ov.PartialShape(d)})
    ov.save_model(model, xml, compress_to_fp16=fp16)
    names = [port.get_any_name() for port in model.inputs]
    rng = np.random.default_rng(0)
    inputs: dict[str, np.ndarray] = {}
    for i, (name, shape) in enumerate(zip(names, run_shapes)):
        if run_inputs is not None:
            inputs[name] = run_inputs[i]
        elif int_inputs and i in int_inputs:
            inputs[name] = rng.integers(0, int_inputs[i], size=shape, dtype=np.int64)
        else:
            inputs[name] = rng.standard_normal(shape).astype(np.float32)
    # ONNX input names: the forward's parameters (OpenVINO may name an input by a number, e.g. '8')
    onnx_names = list(inspect.signature(module.forward).parameters)[:len(names)]
    onnx_note = _export_onnx(module, xml.with_suffix(".onnx"), example, onnx_names, dims) if onnx else ""
    return Written(inputs, run_shapes, onnx_note)


def _export_onnx(module: Any, path: Path, example: tuple[Any, ...], names: list[str], dims: list[list[int]]) -> str:
    """``module`` through torch's TorchScript ONNX exporter (torch 2.13's default exporter needs
    onnxscript); "" on success, else the reason."""
    import warnings

    import torch

    dynamic = {n: {i: f"{n}_{i}" for i, d in enumerate(ds) if d == -1} for n, ds in zip(names, dims)}
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(module, example, str(path), input_names=names, dynamic_axes=dynamic,
                              opset_version=17, dynamo=False)
        import onnxruntime

        onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - any exporter failure is reported, not fatal
        path.unlink(missing_ok=True)
        return f"torch.onnx.export failed: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
    return ""


def classifier(builder: str, size: int, fp16: bool, dynamic_spatial: bool = True, **kwargs: Any) -> Callable[[Path], Written]:
    def recipe(xml: Path) -> Written:
        import torch

        tv = _torchvision()
        torch.manual_seed(0)
        module = _seeded_batchnorm(getattr(tv.models, builder)(weights=None, **kwargs), 0)
        dims = [-1, 3, -1, -1] if dynamic_spatial else [-1, 3, size, size]
        return _export_torch(module, xml, (torch.randn(1, 3, size, size),), [dims], [[1, 3, size, size]], fp16)
    return recipe


def segmenter(builder: str, size: int) -> Callable[[Path], Written]:
    def recipe(xml: Path) -> Written:
        import torch

        tv = _torchvision()
        torch.manual_seed(0)
        inner = _seeded_batchnorm(getattr(tv.models.segmentation, builder)(weights=None, weights_backbone=None,
                                                                            num_classes=21), 0)

        class OutOnly(torch.nn.Module):  # convert_model and the ONNX exporter take tensors, not dicts
            def __init__(self) -> None:
                super().__init__()
                self.inner = inner

            def forward(self, x: Any) -> Any:
                return self.inner(x)["out"]

        return _export_torch(OutOnly(), xml, (torch.randn(1, 3, size, size),), [[-1, 3, -1, -1]],
                             [[1, 3, size, size]])
    return recipe


def detector(name: str) -> Callable[[Path], Written]:
    """A detector of tests/detectors (seeded weights, its input image), converted here together
    with its ONNX export so both come from the same module instance."""
    def recipe(xml: Path) -> Written:
        import torch

        _torchvision()
        from tests.detectors.convert import detector_module, image

        x = image(name)
        written = _export_torch(detector_module(name), xml, (torch.from_numpy(x),), [list(x.shape)], [list(x.shape)],
                                run_inputs=[x])
        n, c, h, w = x.shape  # the IR is static: reshape to an image 32 px taller and wider (OpenVINO
        written.reshape = [[n, c, h + 32, w + 32]]  # skips a reshape to the shape a model already has)
        return written
    return recipe


def hf_encoder(kind: str) -> Callable[[Path], Written]:
    """A tiny random HF encoder (built from a config object, no hub), last_hidden_state out."""
    def recipe(xml: Path) -> Written:
        import torch

        _torchvision()  # transformers imports torchvision when it is installed
        import transformers as tf

        torch.manual_seed(0)
        seq = 32
        if kind == "bert":
            inner = tf.BertModel(tf.BertConfig(vocab_size=1000, hidden_size=128, num_hidden_layers=2,
                                               num_attention_heads=4, intermediate_size=512,
                                               attn_implementation="eager"), add_pooling_layer=False)
        elif kind == "t5":
            inner = tf.T5EncoderModel(tf.T5Config(vocab_size=1000, d_model=128, d_kv=32, d_ff=512, num_layers=2,
                                                  num_heads=4, attn_implementation="eager"))
        else:
            inner = tf.ViTModel(tf.ViTConfig(image_size=64, patch_size=8, num_channels=3, hidden_size=128,
                                             num_hidden_layers=2, num_attention_heads=4, intermediate_size=512,
                                             attn_implementation="eager"), add_pooling_layer=False)
        inner.eval()

        if kind == "vit":
            class Pixels(torch.nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.inner = inner

                def forward(self, pixel_values: Any) -> Any:
                    return self.inner(pixel_values=pixel_values).last_hidden_state

            return _export_torch(Pixels(), xml, (torch.randn(1, 3, 64, 64),), [[-1, 3, 64, 64]], [[1, 3, 64, 64]])

        class Tokens(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.inner = inner

            def forward(self, input_ids: Any, attention_mask: Any) -> Any:
                # the additive mask made here: transformers 5.5's own mask builder does not trace
                # ("tuple index out of range" in sdpa_mask), which optimum-intel patches around
                additive = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
                return self.inner(input_ids=input_ids, attention_mask=additive).last_hidden_state

        ids = torch.randint(0, 1000, (1, seq))
        written = _export_torch(Tokens(), xml, (ids, torch.ones(1, seq, dtype=torch.int64)), [[-1, -1], [-1, -1]],
                                [[1, seq], [1, seq]], int_inputs={0: 1000, 1: 2})
        mask = written.inputs[list(written.inputs)[1]]
        mask[:] = 1
        mask[:, -4:] = 0  # a padded tail
        return written
    return recipe


def lstm_classifier(xml: Path) -> Written:
    import torch

    class LstmClassifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = torch.nn.LSTM(32, 64, num_layers=2, batch_first=True)
            self.head = torch.nn.Linear(64, 10)

        def forward(self, x: Any) -> Any:
            out, _ = self.lstm(x)
            return self.head(out[:, -1])

    torch.manual_seed(0)
    return _export_torch(LstmClassifier(), xml, (torch.randn(1, 20, 32),), [[-1, -1, 32]], [[1, 20, 32]])


# --- optimum-intel LLMs ----------------------------------------------------------------------------

def llm(arch: str, fmt: str) -> Callable[[Path], Written]:
    """A tiny random decoder exported by optimum-intel (nncf for compressed formats), stateful,
    with the recipe of tests/gen_llm_fixtures.py; run inputs: one 16-token prefill step."""
    def recipe(xml: Path) -> Written:
        _torchvision()
        from tests import gen_llm_fixtures as gen
        from tests.llm_fixtures import step_inputs

        with tempfile.TemporaryDirectory() as tmp:
            src, dst = Path(tmp) / "src", Path(tmp) / "out"
            gen._save_pretrained(arch, src)
            dst.mkdir()
            gen._export(arch, src, fmt, True, dst)
            for suffix in (".xml", ".bin"):
                shutil.move(dst / f"openvino_model{suffix}", xml.with_suffix(suffix))
        import openvino as ov

        names = [p.get_any_name() for p in ov.Core().read_model(str(xml)).inputs]
        inputs = step_inputs(names, 1, 0, 16, np.random.default_rng(0))
        return Written(inputs, [list(v.shape) for v in inputs.values()],
                       "not exported: a stateful optimum-intel export (KV cache in ReadValue/Assign) "
                       "has no single torch module to give the ONNX exporter")
    return recipe


# --- synthetic chains ------------------------------------------------------------------------------

def synthetic(kind: str) -> Callable[[Path], Written]:
    def recipe(xml: Path) -> Written:
        import synthetic_chains as chains

        rng = np.random.default_rng(0)
        no_onnx = "not exported: built with OpenVINO's Python API, no torch module"
        if kind == "add_chain":
            chains.make_add_chain(xml, 10_000, 8192)
            x = rng.standard_normal(8192).astype(np.float32)
            return Written({"x": x}, [[8192]], no_onnx, "the same shape: a re-validation")
        if kind == "tiny_add_chain":
            chains.make_add_chain(xml, 12, 16)
            return Written({"x": rng.standard_normal(16).astype(np.float32)}, [[16]], no_onnx,
                           "the same shape: a re-validation")
        if kind == "shared_const_chain":
            chains.make_shared_constant_chain(xml, 10_000)
            x = rng.standard_normal((4, 16)).astype(np.float32)
            return Written({"x": x}, [[4, 16]], no_onnx, slow_run="OpenVINO's compile_model takes ~10 minutes on this "
                           "chain (566 s measured at load average ~12; compile is not timed, but the benchmark waits)")
        chains.make_varied_chain(xml, 1500)
        # zeros: from any other input the values overflow f32 within the 1,500 random layers, and
        # where inf and NaN land then depends on each engine's summation order
        x = np.zeros((1, 8), np.float32)
        return Written({"x": x}, [[3, 8]], no_onnx)  # reshaped to batch 3, run at batch 1
    return recipe


CORPUS: list[Entry] = [
    Entry("tiny_add_chain", "synthetic", synthetic("tiny_add_chain"), default=False),  # for tests
    Entry("add_chain", "synthetic", synthetic("add_chain")),
    Entry("shared_const_chain", "synthetic", synthetic("shared_const_chain")),
    Entry("varied_matmul_chain", "synthetic", synthetic("varied_matmul_chain")),
    Entry("resnet18", "classifier", classifier("resnet18", 224, fp16=False)),
    Entry("mobilenet_v3_small", "classifier", classifier("mobilenet_v3_small", 224, fp16=True)),
    Entry("squeezenet1_0", "classifier", classifier("squeezenet1_0", 224, fp16=False)),
    Entry("densenet121", "classifier", classifier("densenet121", 224, fp16=True)),
    Entry("efficientnet_b0", "classifier", classifier("efficientnet_b0", 224, fp16=True)),
    Entry("swin_t", "classifier", classifier("swin_t", 224, fp16=True, dynamic_spatial=False)),
    Entry("lraspp_mobilenet_v3_large", "segmenter", segmenter("lraspp_mobilenet_v3_large", 256)),
    Entry("deeplabv3_mobilenet_v3_large", "segmenter", segmenter("deeplabv3_mobilenet_v3_large", 256)),
    Entry("bert", "encoder", hf_encoder("bert")),
    Entry("t5_encoder", "encoder", hf_encoder("t5")),
    Entry("vit", "encoder", hf_encoder("vit")),
    Entry("lstm_classifier", "rnn", lstm_classifier),
    Entry("llama-int4sym", "llm", llm("llama", "int4sym")),
    Entry("qwen2-int8", "llm", llm("qwen2", "int8")),
    Entry("phi3-fp16", "llm", llm("phi3", "fp16")),
    Entry("ssdlite", "detector", detector("ssdlite")),
    Entry("fasterrcnn", "detector", detector("fasterrcnn")),
    Entry("retinanet", "detector", detector("retinanet")),
    Entry("fcos", "detector", detector("fcos")),
    Entry("maskrcnn", "detector", detector("maskrcnn")),
]


def selected(only: str | None) -> list[Entry]:
    """The entries whose name matches ``only`` (a glob, or a substring when it has no wildcard);
    an entry outside the default corpus only when ``only`` is its exact name."""
    if not only:
        return [e for e in CORPUS if e.default]
    pattern = only if any(c in only for c in "*?[") else f"*{only}*"
    return [e for e in CORPUS if e.name == only or (e.default and fnmatch.fnmatch(e.name, pattern))]


def meta_path(folder: Path, name: str) -> Path:
    return folder / f"{name}.json"


def is_current(folder: Path, name: str) -> bool:
    meta = meta_path(folder, name)
    if not meta.exists() or not (folder / f"{name}.xml").exists():
        return False
    return json.loads(meta.read_text()).get("recipe") == RECIPE


def make(entry: Entry, folder: Path) -> None:
    """Write one entry (IR, inputs, ONNX, metadata last so a half-written entry is redone)."""
    folder.mkdir(parents=True, exist_ok=True)
    xml = folder / f"{entry.name}.xml"
    meta_path(folder, entry.name).unlink(missing_ok=True)
    written = entry.recipe(xml)
    np.savez(folder / f"{entry.name}.npz", **written.inputs)
    onnx = xml.with_suffix(".onnx")
    meta = {"name": entry.name, "family": entry.family, "recipe": RECIPE, "input_order": list(written.inputs),
            "reshape": written.reshape, "onnx": onnx.name if onnx.exists() and not written.onnx_note else None,
            "onnx_note": written.onnx_note, "note": written.note, "slow_run": written.slow_run}
    meta_path(folder, entry.name).write_text(json.dumps(meta, indent=1))


def ensure(folder: Path, only: str | None = None, log: Callable[[str], None] = print) -> list[Entry]:
    """Make every selected entry that is missing; returns the selected entries."""
    entries = selected(only)
    for entry in entries:
        if is_current(folder, entry.name):
            continue
        start = time.perf_counter()
        log(f"making {entry.name} ...")
        make(entry, folder)
        log(f"made {entry.name} in {time.perf_counter() - start:.1f} s")
    return entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=default_dir(), help="the cache directory (default: %(default)s)")
    parser.add_argument("--only", help="entries whose name matches this glob or substring")
    parser.add_argument("--list", action="store_true", help="list the entries and whether each is made")
    args = parser.parse_args()
    if args.list:
        for e in selected(args.only):
            print(f"{e.name:32} {e.family:11} {'made' if is_current(args.dir, e.name) else 'missing'}")
        return
    ensure(args.dir, args.only, lambda s: print(s, flush=True))


if __name__ == "__main__":
    main()
