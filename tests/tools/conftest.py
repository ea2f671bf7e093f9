"""Fixtures of the tools' tests: the corpus files and the exports written at test time."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from graphir.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CORPUS = FIXTURES / "corpus"
TORCHVISION = FIXTURES / "torchvision"
#: the real exports of tests/fixtures/corpus (f32 and compress_to_fp16 copies)
CORPUS_FILES = sorted(p.name for p in CORPUS.glob("*.xml"))
TORCHVISION_FILES = sorted(p.name for p in TORCHVISION.glob("*.xml"))


def corpus_inputs(path: Path) -> dict[str, np.ndarray] | None:
    """The seeded inputs the corpus stores beside a file (the f32 and fp16 copies share them)."""
    npz = path.with_name(path.stem.removesuffix("_fp16") + ".npz")
    if not npz.exists():
        return None
    import graphir

    params = graphir.read_model(path).get_parameters()
    with np.load(npz) as data:
        return {p.name: data[f"arr_{i}"] for i, p in enumerate(params)}


def _generated_dir(factory: pytest.TempPathFactory) -> Path:
    """GRAPHIR_TOOLS_MODELS, a directory that keeps the generated exports between sessions, or a
    fresh temporary one."""
    where = os.environ.get("GRAPHIR_TOOLS_MODELS")
    out = Path(where) if where else factory.getbasetemp() / "tools-models"
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="session")
def resnet18_ir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """torchvision's resnet18 converted by ``openvino.convert_model`` (tests/tools/gen_models.py)."""
    pytest.importorskip("torch", reason="torch is not installed: pip install -e '.[test]'")
    pytest.importorskip("openvino", reason="openvino is not installed: pip install -e '.[test]'")
    from tests.tools import gen_models

    return gen_models.resnet18(_generated_dir(tmp_path_factory))


@pytest.fixture(scope="session")
def deep_ir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1,200-layer residual chain written by OpenVINO (tests/tools/gen_models.py)."""
    pytest.importorskip("openvino", reason="openvino is not installed: pip install -e '.[test]'")
    from tests.tools import gen_models

    return gen_models.deep_residual(_generated_dir(tmp_path_factory))


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``graphir ARGV``: exit status, stdout, stderr."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err
