"""CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, CTCLoss-4 and GatherTree-1 against OpenVINO 2026:
shapes over grids (static, intervals, dynamic), rejected inputs, CPU values on random inputs."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.ov_diff import Const, Param, random_array
from tests.ops.test_shape_ops import agree_or_both_fail, same

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("data,mask", [("[5,3,4]", "[5,3]"), ("[?,3,4]", "[5,?]"), ("[1..6,2..4,4]", "[3..8,3]"),
                                       ("[...]", "[5,3]"), ("[...]", "[...]"), ("[5,3,4]", "[4,3]"),
                                       ("[5,3]", "[5,3]"), ("[5,3,4]", "[5,3,1]")])
def test_greedy_decoder_shapes(ov, data: str, mask: str) -> None:
    agree_or_both_fail(ov, "CTCGreedyDecoder", "opset1", {"ctc_merge_repeated": True}, [Param(data), Param(mask)])


@pytest.mark.parametrize("merge", [True, False])
def test_greedy_decoder_values_match_openvino_cpu(ov, merge: bool) -> None:
    data = RNG.integers(0, 3, (8, 3, 4)).astype(np.float32) + RNG.uniform(0, 0.1, (8, 3, 4)).astype(np.float32)
    mask = np.ones((8, 3), np.float32)
    mask[5:, 1] = 0
    mask[0:, 2] = 0
    same(ov, "CTCGreedyDecoder", "opset1", {"ctc_merge_repeated": merge}, [Param("[8,3,4]"), Param("[8,3]")],
         [data, mask])


@pytest.mark.parametrize("data,lens,blank", [("[3,5,4]", "[3]", None), ("[?,5,4]", "[3]", "[]"),
                                             ("[2..4,?,4]", "[1..3]", "[1]"), ("[...]", "[...]", None),
                                             ("[3,5,4]", "[2]", None), ("[3,5,4]", "[3]", "[2]")])
@pytest.mark.parametrize("types", [("i32", "i32"), ("i64", "i32")])
def test_greedy_decoder_seq_len_shapes(ov, data: str, lens: str, blank: str | None, types) -> None:
    attrs = {"merge_repeated": True, "classes_index_type": types[0], "sequence_length_type": types[1]}
    inputs = [Param(data), Param(lens, "i32")] + ([Param(blank, "i32")] if blank else [])
    agree_or_both_fail(ov, "CTCGreedyDecoderSeqLen", "opset6", attrs, inputs)


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("blank", [None, 0])
def test_greedy_decoder_seq_len_values_match_openvino_cpu(ov, merge: bool, blank: int | None) -> None:
    data = RNG.integers(0, 3, (3, 7, 4)).astype(np.float32) + RNG.uniform(0, 0.1, (3, 7, 4)).astype(np.float32)
    lens = np.array([7, 3, 0], np.int32)
    attrs = {"merge_repeated": merge, "classes_index_type": "i32", "sequence_length_type": "i32"}
    inputs = [Param("[3,7,4]"), Param("[3]", "i32")] + ([] if blank is None else [Const(np.int32(blank))])
    same(ov, "CTCGreedyDecoderSeqLen", "opset6", attrs, inputs, [data, lens])


@pytest.mark.parametrize("shapes", [("[2,6,5]", "[2]", "[2,6]", "[2]"), ("[?,6,5]", "[2]", "[?,?]", "[?]"),
                                    ("[1..3,4..8,5]", "[2..5]", "[?,6]", "[2]"), ("[...]", "[...]", "[...]", "[...]"),
                                    ("[2,6,5]", "[3]", "[2,6]", "[2]"), ("[2,6,5]", "[2]", "[2,5]", "[2]"),
                                    ("[2,6]", "[2]", "[2,6]", "[2]")])
def test_ctc_loss_shapes(ov, shapes) -> None:
    attrs = {"preprocess_collapse_repeated": False, "ctc_merge_repeated": True, "unique": False}
    inputs = [Param(shapes[0])] + [Param(s, "i32") for s in shapes[1:]]
    agree_or_both_fail(ov, "CTCLoss", "opset4", attrs, inputs)


@pytest.mark.parametrize("collapse,merge,unique", [(False, True, False), (False, False, False), (True, True, False),
                                                   (False, True, True), (True, False, False)])
@pytest.mark.parametrize("blank", [None, 1])
def test_ctc_loss_values_match_openvino_cpu(ov, collapse: bool, merge: bool, unique: bool, blank) -> None:
    logits = random_array((3, 8, 5), "f32", RNG, -2, 2)
    logit_length = np.array([8, 6, 5], np.int32)
    labels = np.array([[0, 2, 2, 3, 0, 0, 0, 0], [3, 3, 2, 0, 0, 0, 0, 0], [2, 0, 2, 1, 1, 1, 1, 1]], np.int32)
    label_length = np.array([4, 3, 2], np.int32)
    attrs = {"preprocess_collapse_repeated": collapse, "ctc_merge_repeated": merge, "unique": unique}
    inputs = [Param("[3,8,5]"), Param("[3]", "i32"), Param("[3,8]", "i32"), Param("[3]", "i32")]
    inputs += [] if blank is None else [Const(np.int32(blank))]
    # labels never name the blank class (a label equal to the blank is outside CTC's definition)
    same(ov, "CTCLoss", "opset4", attrs, inputs, [logits, logit_length, labels, label_length])


@pytest.mark.parametrize("shapes", [("[5,2,3]", "[5,2,3]", "[2]", "[]"), ("[?,2,3]", "[5,?,3]", "[?]", "[]"),
                                    ("[1..5,2,3]", "[4..8,2,?]", "[1..3]", "[]"), ("[...]", "[...]", "[...]", "[...]"),
                                    ("[5,2,3]", "[5,3,3]", "[2]", "[]"), ("[5,2,3]", "[5,2,3]", "[2]", "[1]")])
@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_gather_tree_shapes(ov, shapes, dtype: str) -> None:
    agree_or_both_fail(ov, "GatherTree", "opset1", {}, [Param(s, dtype) for s in shapes])


def test_gather_tree_type_mismatch_is_rejected(ov) -> None:
    assert agree_or_both_fail(ov, "GatherTree", "opset1", {}, [Param("[5,2,3]", "f32"), Param("[5,2,3]", "i32"),
                                                               Param("[2]", "f32"), Param("[]", "f32")])


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_gather_tree_values_match_openvino_cpu(ov, dtype: str) -> None:
    step = np.round(random_array((6, 2, 3), dtype, RNG, 0, 5))  # ids are whole numbers in any type
    parent = np.round(random_array((6, 2, 3), dtype, RNG, 0, 2))
    max_len = np.array([6, 4], step.dtype)
    same(ov, "GatherTree", "opset1", {}, [Param("[6,2,3]", dtype), Param("[6,2,3]", dtype), Param("[2]", dtype),
                                          Const(np.array(3, step.dtype))], [step, parent, max_len])


def test_ctc_loss_of_an_empty_target_is_zero() -> None:
    """OpenVINO's reference gives 0 for an empty target (its path search adds nothing); its CPU plugin
    agreed once in isolation but crashed the process (segmentation fault) inside a full test run,
    so the CPU is not asked here."""
    from graphir import opset

    logits = random_array((2, 4, 3), "f32", RNG, -2, 2)
    attrs = {"preprocess_collapse_repeated": False, "ctc_merge_repeated": True, "unique": False}
    got = opset.make("CTCLoss", logits, np.array([4, 3], np.int32), np.zeros((2, 4), np.int32),
                     np.array([0, 1], np.int32), **attrs).tensor_type.value
    assert got[0] == 0.0
    x = logits[1, :3].astype(np.float64)
    log_probs = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    # label [0] over 3 frames: sum over paths b*0+b* with repeats merged
    paths = [(a, b, c) for a in (0, 2) for b in (0, 2) for c in (0, 2)]
    total = sum(np.exp(log_probs[0, p[0]] + log_probs[1, p[1]] + log_probs[2, p[2]])
                for p in paths if [k for i, k in enumerate(p) if k != 2 and (i == 0 or p[i - 1] != k)] == [0])
    np.testing.assert_allclose(got[1], -np.log(total), rtol=1e-5)
