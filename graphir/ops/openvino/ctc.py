"""OpenVINO CTC ops: CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6 and CTCLoss-4."""
from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from graphir.ops.base import INDEX, REAL, Op, Port, TensorType
from graphir.ops.openvino.binary import fold
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


def merged(op: Op, what: str, *dims: Dimension) -> Dimension:
    """The intersection of dims that must agree; an error naming ``what`` when they cannot."""
    result = Dimension.dynamic()
    for d in dims:
        m = result.merge(d)
        if m is None:
            raise op.fail(f"The {what} dimensions do not match ({', '.join(str(x) for x in dims)}).")
        result = m
    return result


def ranked(op: Op, t: TensorType, rank: int, name: str) -> list[Dimension]:
    """The dims of ``t`` (rank checked), or ``rank`` dynamic dims when its rank is dynamic."""
    if t.shape.rank_is_dynamic:
        return [Dimension.dynamic()] * rank
    if len(t.shape) != rank:
        raise op.fail(f"The rank of {name} is expected to be {rank}. Got: {len(t.shape)} ({t.shape}).")
    return list(t.shape.dims)


class CTCGreedyDecoder(Op):
    """CTCGreedyDecoder-1: ``data [T, N, C]`` and ``seq_mask [T, N]`` to ``[N, T, 1, 1]`` class
    indices (as data's type; -1 pads), blank = C - 1; a 0 in the mask ends the sequence."""

    type_name: ClassVar[str] = "CTCGreedyDecoder"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL), Port("seq_mask", REAL))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    ctc_merge_repeated: bool = True

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, mask = inputs
        d = ranked(self, data, 3, "input tensor")
        m = ranked(self, mask, 2, "sequence mask")
        t = merged(self, "time", d[0], m[0])
        n = merged(self, "batch", d[1], m[1])
        shape = PartialShape([n, t, 1, 1])
        return [TensorType(data.element_type, shape, fold(self, inputs, shape, data.element_type))]

    def evaluate(self, data: np.ndarray, mask: np.ndarray) -> list[np.ndarray]:
        data, mask = np.asarray(data), np.asarray(mask)
        steps, batch, classes = data.shape
        out = np.full((batch, steps, 1, 1), -1, dtype=data.dtype)
        best = np.argmax(data, axis=2) if data.size else np.zeros((steps, batch), np.int64)
        for b in range(batch):
            previous, k = -1, 0
            for t in range(steps):
                if mask[t, b] == 0:
                    break
                c = int(best[t, b])
                if not (self.ctc_merge_repeated and c == previous) and c < classes - 1:
                    out[b, k, 0, 0] = c
                    k += 1
                previous = c
        return [out]


class CTCGreedyDecoderSeqLen(Op):
    """CTCGreedyDecoderSeqLen-6: ``data [N, T, C]``, ``sequence_length [N]`` and an optional
    ``blank_index`` (default C - 1) to the decoded classes ``[N, T]`` (-1 pads) and their lengths ``[N]``."""

    type_name: ClassVar[str] = "CTCGreedyDecoderSeqLen"
    version: ClassVar[str] = "opset6"
    inputs: ClassVar[tuple[Port, ...]] = (Port("data", REAL), Port("sequence_length", INDEX),
                                          Port("blank_index", INDEX, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("decoded"), Port("sequence_length"))

    merge_repeated: bool = True
    classes_index_type: Literal["i32", "i64"] = "i32"
    sequence_length_type: Literal["i32", "i64"] = "i32"

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        data, lengths = inputs[:2]
        self.check_input_types(inputs)
        d = ranked(self, data, 3, "input tensor")
        s = ranked(self, lengths, 1, "sequence length")
        if len(inputs) > 2 and inputs[2].shape.rank_is_static:
            shape = inputs[2].shape
            if not (len(shape) == 0 or (len(shape) == 1 and shape[0].compatible(Dimension.static(1)))):
                raise self.fail(f"Expected 0D or 1D tensor for the 'blank_index' input. Got: {shape}")
        n = merged(self, "batch", d[0], s[0])
        classes, lens = ElementType.parse(self.classes_index_type), ElementType.parse(self.sequence_length_type)
        decoded, count = PartialShape([n, d[1]]), PartialShape([n])
        values = self._fold(inputs) if all(t.value is not None for t in inputs) else None
        return [TensorType(classes, decoded, None if values is None else values[0]),
                TensorType(lens, count, None if values is None else values[1])]

    def _fold(self, inputs: list[TensorType]) -> list[np.ndarray] | None:
        try:
            return self.evaluate(*(np.asarray(t.value) for t in inputs))
        except (ValueError, IndexError):
            return None

    def evaluate(self, data: np.ndarray, lengths: np.ndarray, blank: np.ndarray | None = None) -> list[np.ndarray]:
        data = np.asarray(data)
        batch, steps, classes = data.shape
        blank_index = classes - 1 if blank is None else int(np.asarray(blank).reshape(-1)[0])
        out = np.full((batch, steps), -1, dtype=ElementType.parse(self.classes_index_type).numpy_dtype)
        count = np.zeros(batch, dtype=ElementType.parse(self.sequence_length_type).numpy_dtype)
        best = np.argmax(data, axis=2) if data.size else np.zeros((batch, steps), np.int64)
        for b in range(batch):
            previous, k = -1, 0
            for t in range(min(int(lengths[b]), steps)):
                c = int(best[b, t])
                if c != blank_index and not (self.merge_repeated and previous == c):
                    out[b, k] = c
                    k += 1
                previous = c
            count[b] = k
        return [out, count]


def _log_sum(a: float, b: float) -> float:
    return float(np.logaddexp(a, b))


def ctc_log_likelihood(log_probs: np.ndarray, target: list[int], blank: int, merge_repeated: bool) -> float:
    """log P(target | frames) summed over CTC alignments, in float64. ``merge_repeated``: a label may
    span several frames (consecutive equal labels need a blank between them); else each label
    takes exactly one frame, with blanks anywhere between."""
    steps = log_probs.shape[0]
    neg = -np.inf
    if not merge_repeated:
        alpha = np.full(len(target) + 1, neg)
        alpha[0] = 0.0
        for t in range(steps):
            nxt = alpha + log_probs[t, blank]
            for k, label in enumerate(target):
                nxt[k + 1] = _log_sum(nxt[k + 1], alpha[k] + log_probs[t, label])
            alpha = nxt
        return float(alpha[len(target)])
    ext = [blank]
    for label in target:
        ext += [label, blank]
    alpha = np.full(len(ext), neg)
    alpha[0] = log_probs[0, blank] if steps else neg
    if len(ext) > 1 and steps:
        alpha[1] = log_probs[0, ext[1]]
    for t in range(1, steps):
        nxt = np.full(len(ext), neg)
        for s, label in enumerate(ext):
            total = alpha[s]
            if s >= 1:
                total = _log_sum(total, alpha[s - 1])
            if s >= 2 and label != blank and label != ext[s - 2]:
                total = _log_sum(total, alpha[s - 2])
            nxt[s] = total + log_probs[t, label]
        alpha = nxt
    if len(ext) == 1:
        return float(alpha[0])
    return _log_sum(alpha[-1], alpha[-2])


class CTCLoss(Op):
    """CTCLoss-4: ``logits [N, T, C]``, ``logit_length [N]``, ``labels [N, T]``, ``label_length [N]``
    and an optional ``blank_index`` (default C - 1) to the negative log likelihood ``[N]``.

    An empty target (after ``unique``/``preprocess_collapse_repeated``) gives 0, as OpenVINO's
    reference computes it (not the log probability of the all-blank path)."""

    type_name: ClassVar[str] = "CTCLoss"
    version: ClassVar[str] = "opset4"
    inputs: ClassVar[tuple[Port, ...]] = (Port("logits", REAL), Port("logit_length", INDEX), Port("labels", INDEX),
                                          Port("label_length", INDEX), Port("blank_index", INDEX, optional=True))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    preprocess_collapse_repeated: bool = False
    ctc_merge_repeated: bool = True
    unique: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        self.check_input_types(inputs)
        logits = ranked(self, inputs[0], 3, "logits")
        logit_length = ranked(self, inputs[1], 1, "logit length")
        labels = ranked(self, inputs[2], 2, "labels")
        label_length = ranked(self, inputs[3], 1, "label length")
        if len(inputs) > 4 and inputs[4].shape.rank_is_static and len(inputs[4].shape) != 0:
            raise self.fail(f"Expected a scalar for blank index. Got: {inputs[4].shape}")
        n = merged(self, "batch", logits[0], logit_length[0], labels[0], label_length[0])
        merged(self, "time", logits[1], labels[1])
        shape = PartialShape([n])
        et = inputs[0].element_type
        return [TensorType(et, shape, fold(self, inputs, shape, et))]

    def evaluate(self, logits: np.ndarray, logit_length: np.ndarray, labels: np.ndarray,
                 label_length: np.ndarray, blank: np.ndarray | None = None) -> list[np.ndarray]:
        logits = np.asarray(logits)
        batch, steps, classes = logits.shape
        blank_index = classes - 1 if blank is None else int(np.asarray(blank).reshape(-1)[0])
        out = np.zeros(batch, dtype=np.float64)
        for b in range(batch):
            frames, count = int(logit_length[b]), int(label_length[b])
            if frames > steps or count > steps or count > frames:
                raise ValueError(f"CTCLoss-4: logit or label length cannot be greater than the max sequence "
                                 f"length, nor a label length greater than a logit length (batch {b}: max "
                                 f"{steps}, logit length {frames}, label length {count})")
            target = [int(v) for v in labels[b, :count]]
            if self.unique:
                target = list(dict.fromkeys(target))
            elif self.preprocess_collapse_repeated:
                target = [v for i, v in enumerate(target) if i == 0 or v != target[i - 1]]
            if not target:
                continue
            x = logits[b, :frames].astype(np.float64)
            log_probs = x - np.log(np.sum(np.exp(x), axis=1, keepdims=True))
            out[b] = -ctc_log_likelihood(log_probs, target, blank_index, self.ctc_merge_repeated)
        return [out.astype(logits.dtype)]
