"""oneDNN Graph conformance graphs against the real OpenVINO: convert to the openvino dialect, write
IR, run on OpenVINO CPU (f32 precision), and compare with graphir running the oneDNN ops."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphir import read_model, save_model
from graphir.convert.base import convert_model
from tests.shared_data import SHARED, require_shared
from tests.tolerances import assert_close

DATA = SHARED / "conformance" / "onednn"

#: file -> input shapes to run at (small, so the test stays fast); None keeps the file's shapes
CASES: dict[str, dict[str, str] | None] = {
    "op/conv_2d": None,
    "op/conv_3d": {"0": "[1,3,8,9,7]"},
    "op/maxpool": {"0": "[1,4,13,12]"},
    "op/avgpool": {"0": "[1,4,13,12]"},
    "op/bnorm": {"0": "[2,192,5,4]"},
    "op/softmax": {"0": "[4,16,3,3]"},
    "op/logsoftmax": {"0": "[4,16,3,3]"},
    "op/gelu": None,
    "op/elu": None,
    "op/reducel2": {"0": "[1,16,5,5]"},
    "op/reduceprod": {"0": "[1,6,5,5]"},
    "op/lnorm_3d": {"0": "[2,3,1024]"},
    "op/matmul": {"0": "[2,3,5,384]"},
    "pattern/binary_post_ops_fusion": None,
    "pattern/conv_bias_post_ops_fusion": None,
    "pattern/matmul_post_ops_relu_add_fusion": None,
    "pattern/reduction_post_ops_sum_chain_fusion": None,
    "pattern/lnorm_gelu": None,
    "pattern/softmax_post_ops_binary_fusion": None,
}


@pytest.mark.openvino
@pytest.mark.parametrize("name", sorted(CASES))
def test_onednn_graph_matches_openvino_cpu(name: str, ov: Any, tmp_path: Path) -> None:
    model = read_model(require_shared(DATA / f"{name}.json"))
    if CASES[name]:
        model.reshape(CASES[name])
    rng = np.random.default_rng(3)
    inputs = [rng.uniform(0.2, 1.5, p.op.shape.to_shape()).astype(np.float32) for p in model.get_parameters()]
    expected = list(model.run(inputs).values())

    ir = convert_model(model, "openvino")
    save_model(ir, tmp_path / "m.xml")
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(tmp_path / "m.xml")), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer(inputs)
    for i, want in enumerate(expected):
        got = request.get_output_tensor(i).data
        assert_close(np.asarray(got), want)
