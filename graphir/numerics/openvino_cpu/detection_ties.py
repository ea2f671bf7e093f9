"""The detection ops under ``openvino-cpu``: equal scores in the order OpenVINO 2026.4's CPU plugin
gives them, libstdc++'s ``std::sort``/``std::partial_sort`` (:mod:`.stl_sort`; measured against the
plugin in tests/ops/test_detection_*.py): MatrixNms's per-class top-k, DetectionOutput's keep_top_k
cut, Proposal's pre-NMS top-n and ExperimentalDetectronDetectionOutput's cut. The reference profile
orders equal scores by index (graphir.ops.openvino.tie_order.STABLE). Plain Python: the same order on
every host."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphir.numerics import Evaluate, register
from graphir.numerics.openvino_cpu.stl_sort import LIBSTDCXX
from graphir.ops.base import Op, TensorType
from graphir.ops.openvino.detection_nms import MatrixNms
from graphir.ops.openvino.detection_output import DetectionOutput
from graphir.ops.openvino.experimental_detectron import ExperimentalDetectronDetectionOutput
from graphir.ops.openvino.proposal import Proposal

_REAL = ("f32", "f16", "bf16", "f64")


def _with_cpu_ties(op: Op, inputs: Sequence[TensorType] | None) -> Evaluate:
    evaluate_with = getattr(op, "evaluate_with")

    def evaluate(arrays: list[np.ndarray]) -> list[np.ndarray]:
        return evaluate_with(LIBSTDCXX, *arrays)  # type: ignore[no-any-return]

    return evaluate


for _op_class in (MatrixNms, DetectionOutput, Proposal, ExperimentalDetectronDetectionOutput):
    register("openvino-cpu", _op_class, _REAL)(_with_cpu_ties)
