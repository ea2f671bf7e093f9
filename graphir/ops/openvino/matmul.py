"""OpenVINO ``MatMul-1`` and ``Einsum-7``: numpy-style batched products over partial shapes."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np

from graphir.broadcast import broadcast_merge
from graphir.kernels import blas_host
from graphir.kernels.once import once_per_key
from graphir.ops.base import NUMERIC, NodeSignature, Op, Port, TensorType, fresh_output
from graphir.ops.step_forms import inline
from graphir.shapes import Dimension, PartialShape
from graphir.types import ElementType


#: per-matrix multiply-accumulates from which a stack of f32 matrices times one 2-D B is one
#: product: OpenBLAS (0.3.31, SkylakeX) takes its small-matrix kernels up to 100^3, whose rounding
#: depends on the sizes; above them (with 2+ rows and columns: no gemv) the stacked and the
#: flattened products give the same bits (tests/ops/test_matmul_flat.py), the latter 1.5-4x faster.
#: With OpenBLAS's Haswell kernels (an AVX2 host) they do not: the flattening is used only on the BLAS
#: it was verified on (graphir.kernels.blas_host)
FLAT_MIN_MACS = 1 << 21


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b)``; a stack ``a [..., M, K]`` times a 2-D ``b [K, N]`` runs as one
    ``[prod(...) * M, K] @ [K, N]`` product when each of its matrices is past OpenBLAS's small sizes
    (numpy calls BLAS once per matrix of the stack: swin_t's [1,14,14,384] x [384,1536] 4.8 -> 1.3 ms)
    and numpy's BLAS is the one that was verified to give the stacked product's bits that way."""
    if (b.ndim == 2 and a.ndim >= 3 and a.dtype == np.float32 and b.dtype == np.float32
            and a.shape[-2] >= 2 and b.shape[1] >= 2 and a.shape[-2] * a.shape[-1] * b.shape[1] >= FLAT_MIN_MACS
            and blas_host.layouts_verified()):
        return np.matmul(a.reshape(-1, a.shape[-1]), b).reshape(a.shape[:-1] + (b.shape[1],))
    return np.matmul(a, b)


def never_flattened(a_shape: "Sequence[int] | None", b_shape: "Sequence[int] | None") -> bool:
    """Whether :func:`matmul` of arrays of these shapes is ``np.matmul`` itself (it flattens only
    a stack times a 2-D B past the small sizes): a prepared step then calls numpy directly."""
    if a_shape is None or b_shape is None:
        return False
    return not (len(b_shape) == 2 and len(a_shape) >= 3 and a_shape[-2] >= 2 and b_shape[1] >= 2
                and a_shape[-2] * a_shape[-1] * b_shape[1] >= FLAT_MIN_MACS)


_NUMERIC_TYPES = frozenset(NUMERIC)


#: constant B (weights) used transposed, up to this size, is copied once into its transposed layout
#: when that keeps the product's bits (:func:`contiguous_b_keeps_bits`): OpenBLAS packs a transposed
#: B per call at a cost (vit's [65,128] x [128,128]^T: ~20% of the product)
CONTIGUOUS_B_MAX_BYTES = 1 << 20
#: OpenBLAS (0.3.31, SkylakeX) takes its small-matrix kernels up to this many multiply-accumulates
SMALL_KERNEL_MAX_MACS = 100 ** 3
_layout_same: dict[tuple[tuple[int, ...], int, int], bool] = {}


def contiguous_b_keeps_bits(a_shape: Sequence[int], k: int, n: int) -> bool:
    """Does :func:`matmul` of an f32 ``a`` of ``a_shape`` by ``B [k, n]`` give the same bits when B
    is contiguous as when it is the transposed view of a contiguous ``[n, k]``? OpenBLAS's level-3
    driver packs both into the same panels, so their kernels see the same numbers; its
    small-matrix kernels (one per layout, up to 100^3 multiply-accumulates per matrix: not
    considered) differ, if only in the sign of zero sums. Checked once per shape: random values,
    then zeros of both signs, underflowing products, infinities and NaN."""
    key = (tuple(int(d) for d in a_shape), int(k), int(n))
    return once_per_key(_layout_same, key, lambda: _layouts_agree(*key))


def _layouts_agree(a_shape: tuple[int, ...], k: int, n: int) -> bool:
    """The check behind :func:`contiguous_b_keeps_bits` (no check where the small kernels decide)."""
    rows = a_shape[-2] if len(a_shape) >= 2 else 1
    same = rows >= 2 and n >= 2 and rows * k * n > SMALL_KERNEL_MAX_MACS
    rng = np.random.default_rng(20261124)
    for trial in range(4 if same else 0):
        a = rng.standard_normal(a_shape, dtype=np.float32)
        w = rng.standard_normal((n, k), dtype=np.float32)
        if trial == 1:
            a.reshape(-1)[::7] = 0.0
            a.reshape(-1)[1::7] = -0.0
            a.reshape(-1)[3::11] = np.inf
            w.reshape(-1)[5::13] = np.nan
            w.reshape(-1)[1::17] = -np.inf
        elif trial == 2:  # every product underflows: zero sums whose sign depends on the order
            a *= np.float32(1e-30)
            w *= np.float32(-1e-30)
        elif trial == 3:
            a[...] = -0.0
        with np.errstate(all="ignore"):
            same = np.array_equal(matmul(a, w.T).view(np.uint32), matmul(a, np.ascontiguousarray(w.T)).view(np.uint32))
        if not same:
            break
    return same


class MatMul(Op):
    """``A @ B`` with optional transposes of the two innermost dims; 1-D inputs are promoted
    (A to ``[1,K]``, B to ``[K,1]``) and the added dim is dropped again, as numpy does."""

    type_name: ClassVar[str] = "MatMul"
    version: ClassVar[str] = "opset1"
    inputs: ClassVar[tuple[Port, ...]] = (Port("A", NUMERIC), Port("B", NUMERIC))
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    transpose_a: bool = False
    transpose_b: bool = False

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = inputs[0].element_type
        if et is not inputs[1].element_type or et not in _NUMERIC_TYPES:  # (the common case needs no more)
            self.check_input_types(inputs)
            et = self.merge_types(inputs, (0, 1))
        a, b = inputs[0].shape, inputs[1].shape
        if a.rank_is_dynamic or b.rank_is_dynamic:
            return [TensorType(et, PartialShape.dynamic())]
        if len(a) == 0 or len(b) == 0:
            raise self.fail(f"inputs must not be scalars: A {a}, B {b}")
        ad, bd = list(a.dims), list(b.dims)
        a1, b1 = len(ad) == 1, len(bd) == 1
        if a1:
            ad = [Dimension.static(1)] + ad
        elif self.transpose_a:
            ad[-2], ad[-1] = ad[-1], ad[-2]
        if b1:
            bd = bd + [Dimension.static(1)]
        elif self.transpose_b:
            bd[-2], bd[-1] = bd[-1], bd[-2]
        if ad[-1].merge(bd[-2]) is None:
            raise self.fail(
                f"incompatible MatMul matrix dimension: K of A ({ad[-1]}) != K of B ({bd[-2]}); "
                f"A {a} (transpose_a={self.transpose_a}), B {b} (transpose_b={self.transpose_b})"
            )
        out: list[Dimension] = []
        if len(ad) > 2 or len(bd) > 2:  # (two matrices have no batch dims to broadcast)
            batch = broadcast_merge(PartialShape.of(tuple(ad[:-2])), PartialShape.of(tuple(bd[:-2])), "numpy")
            if batch is None:
                raise self.fail(f"batch dimensions do not broadcast: A {a}, B {b}")
            out = list(batch.dims)
        if not a1:
            out.append(ad[-2])
        if not b1:
            out.append(bd[-1])
        return [TensorType(et, PartialShape.of(tuple(out)))]

    def evaluate(self, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
        if self.transpose_a and a.ndim > 1:
            a = np.swapaxes(a, -1, -2)
        if self.transpose_b and b.ndim > 1:
            b = np.swapaxes(b, -1, -2)
        return [np.asarray(matmul(a, b), dtype=np.result_type(a.dtype, b.dtype))]

    def prepare(self, node: NodeSignature) -> Callable[..., list[np.ndarray]]:
        """For inputs of one type and an output of rank >= 1: the transposes decided once, a
        constant B (weights) transposed once (a view), then one ``np.matmul`` per call."""
        a_t, b_t = node.inputs
        if (a_t.element_type != b_t.element_type or a_t.element_type.is_dynamic or not a_t.shape.rank_is_static
                or not b_t.shape.rank_is_static or not node.outputs[0].shape.rank_is_static
                or len(node.outputs[0].shape) == 0):
            return self.evaluate
        swap_a = self.transpose_a and len(a_t.shape) > 1
        swap_b = self.transpose_b and len(b_t.shape) > 1
        weights = node.constants[1]
        if weights is not None:
            b = np.swapaxes(weights, -1, -2) if swap_b else weights
            a_shape = node.static_shape(a_t)
            if (swap_b and not swap_a and b.ndim == 2 and a_shape is not None and len(a_shape) >= 2
                    and a_t.element_type == ElementType.f32 and b.dtype == np.float32
                    and b.nbytes <= CONTIGUOUS_B_MAX_BYTES and b.flags.f_contiguous
                    and contiguous_b_keeps_bits(a_shape, b.shape[0], b.shape[1])):
                b = np.ascontiguousarray(b)
            if swap_a:
                return fresh_output(lambda a, _: [matmul(np.swapaxes(a, -1, -2), b)])
            if never_flattened(a_shape, b.shape):
                product = np.matmul
                step = fresh_output(lambda a, _: [product(a, b) if a.shape == a_shape else matmul(a, b)])
                # a compiled run may call numpy itself when B is the weights as they are (not laid out
                # anew); for another A shape np.matmul differs from matmul() only where the flattened
                # product was verified to give its bits (graphir.kernels.blas_host)
                return inline(step, "call", product) if b is weights else step
            return fresh_output(lambda a, _: [matmul(a, b)])
        if not swap_a and not swap_b and (len(b_t.shape) != 2 or len(a_t.shape) < 3):
            # what matmul does for these ranks
            return fresh_output(inline(lambda a, b: [np.matmul(a, b)], "call", np.matmul))
        if swap_a or swap_b:
            return fresh_output(lambda a, b: [matmul(np.swapaxes(a, -1, -2) if swap_a else a,
                                                     np.swapaxes(b, -1, -2) if swap_b else b)])
        return fresh_output(lambda a, b: [matmul(a, b)])


_LABELS = re.compile(r"\.\.\.|[A-Za-z]")


def _parse_term(term: str) -> list[str]:
    labels = _LABELS.findall(term)
    if "".join(labels) != term or labels.count("...") > 1:
        raise ValueError(term)
    return labels


class Einsum(Op):
    """Einstein summation over an ``equation`` such as ``"ij,jk->ik"`` (explicit or implicit mode)."""

    type_name: ClassVar[str] = "Einsum"
    version: ClassVar[str] = "opset7"
    inputs: ClassVar[tuple[Port, ...]] = (Port("inputs", NUMERIC, variadic=True),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("output"),)

    equation: str

    def _terms(self, count: int) -> tuple[list[list[str]], list[str]]:
        eq = self.equation.replace(" ", "")
        try:
            lhs, arrow, rhs = eq.partition("->")
            ins = [_parse_term(t) for t in lhs.split(",")]
            if arrow:
                out = _parse_term(rhs)
            else:
                flat = [x for t in ins for x in t if x != "..."]
                out = (["..."] if any("..." in t for t in ins) else []) + sorted(
                    x for x in set(flat) if flat.count(x) == 1
                )
        except ValueError:
            raise self.fail(f"invalid equation '{self.equation}'") from None
        if len(ins) != count:
            raise self.fail(f"equation '{self.equation}' has {len(ins)} operands but {count} inputs are given")
        return ins, out

    def infer(self, inputs: list[TensorType]) -> list[TensorType]:
        et = self.merge_types(inputs, tuple(range(len(inputs))))
        terms, out = self._terms(len(inputs))
        dims: dict[str, Dimension] = {}
        ellipsis: PartialShape | None = PartialShape([])
        for i, (term, t) in enumerate(zip(terms, inputs)):
            if t.shape.rank_is_dynamic:
                if "..." in term:
                    ellipsis = None
                continue
            n_named = len(term) - (1 if "..." in term else 0)
            rank = len(t.shape)
            if ("..." in term and rank < n_named) or ("..." not in term and rank != n_named):
                raise self.fail(f"input {i} shape {t.shape} does not match term '{''.join(term)}' of '{self.equation}'")
            pos = 0
            for label in term:
                if label == "...":
                    width = rank - n_named
                    if ellipsis is not None:
                        ellipsis = broadcast_merge(ellipsis, PartialShape(t.shape.dims[pos:pos + width]),
                                                   "numpy")
                        if ellipsis is None:
                            raise self.fail(f"ellipsis dimensions of input {i} {t.shape} do not broadcast")
                    pos += width
                    continue
                d = t.shape.dims[pos]
                merged = dims[label].merge(d) if label in dims else d
                if merged is None:
                    raise self.fail(f"label '{label}' has dimension {dims[label]} and {d} (input {i} {t.shape})")
                dims[label] = merged
                pos += 1
        if ellipsis is None and "..." in out:
            return [TensorType(et, PartialShape.dynamic())]
        shape: list[Dimension] = []
        for label in out:
            if label == "...":
                shape.extend(ellipsis.dims)  # type: ignore[union-attr]
            elif label in dims:
                shape.append(dims[label])
            else:
                if any(t.shape.rank_is_dynamic for t in inputs):
                    shape.append(Dimension.dynamic())
                else:
                    raise self.fail(f"output label '{label}' of '{self.equation}' is on no input")
        return [TensorType(et, PartialShape(shape))]

    def evaluate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        dtype = np.result_type(*arrays)
        if dtype.kind == "V":  # bf16/f8 (ml_dtypes), which np.einsum refuses: summed in f32, rounded once
            wide = [np.asarray(a, dtype=np.float32) for a in arrays]
            return [np.einsum(self.equation.replace(" ", ""), *wide).astype(dtype)]
        return [np.asarray(np.einsum(self.equation.replace(" ", ""), *arrays), dtype=dtype)]
