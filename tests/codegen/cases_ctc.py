"""Codegen case of the CTC primitives (``ctc.py``): ``CTCLoss`` (logits, sparse labels,
blank the last class; the loss and its gradient), ``CTCLossV2`` (log probabilities,
padded targets; the loss and log alpha) and ``CTCLossV2Grad`` (reached through a
gradient), against numpy that enumerates every alignment, written independently of the
runtime's forward-backward pass; ``cases.CASES`` includes ``CTC_CASES``. Import this
module through ``tests.codegen.cases``, which it extends."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from msc import ops
from msc.ops import operations as P
from tests.codegen.cases import Case, f32

STEPS, BATCH, CLASSES = 5, 3, 4

# CTCLoss: labels [1, 1, 2], [0, 2] and [1], sparse, sequence by sequence
INDICES = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0]], np.int64)
VALUES = np.array([1, 1, 2, 0, 2, 1], np.int32)
SEQ = np.array([5, 4, 3], np.int32)
# CTCLossV2: padded targets; the third sequence has none
TARGETS = np.array([[1, 2, 2], [2, 1, 0], [1, 0, 0]], np.int32)
IN_LEN = np.array([5, 4, 3], np.int32)
TGT_LEN = np.array([3, 2, 0], np.int32)


def _weighted_loss(lp: Any, targets: Any, il: Any, tl: Any, w: Any) -> Any:
    """Blank 3 (the targets never hold it); the gradient output is ``w``."""
    return (ops.ctc_loss(lp, targets, il, tl, 3, "none")[0] * w).sum()


def ctc(x: Any, indices: Any, values: Any, seq: Any, lp: Any, targets: Any, il: Any, tl: Any,
        w: Any) -> Any:
    """CTCLoss with repeats merged, and with the labels collapsed but the alignments'
    repeats kept; ops.ctc_loss's loss and log alpha (blank 0) and its gradient."""
    loss, grad = P.CTCLoss()(x, indices, values, seq)
    loss2, grad2 = P.CTCLoss(preprocess_collapse_repeated=True,
                             ctc_merge_repeated=False)(x, indices, values, seq)
    nll, log_alpha = ops.ctc_loss(lp, targets, il, tl, 0, "none")
    return (loss, grad, loss2, grad2, nll, log_alpha,
            ops.grad(_weighted_loss)(lp, targets, il, tl, w))


def ctc_inputs(r: np.random.Generator) -> list[np.ndarray]:
    z = r.normal(0, 1, (STEPS, BATCH, CLASSES))
    lp = z - np.log(np.exp(z).sum(-1, keepdims=True))  # log probabilities
    return [f32(r, STEPS, BATCH, CLASSES), INDICES, VALUES, SEQ, lp.astype(np.float32),
            TARGETS, IN_LEN, TGT_LEN, f32(r, BATCH, lo=0.5, hi=2.0)]


# --- the reference: alignments enumerated ------------------------------------------------


def _reads(path: tuple[int, ...], blank: int, merge: bool) -> list[int]:
    """The labels an alignment reads as: repeats merged (when ``merge``), blanks dropped."""
    out: list[int] = []
    prev = None
    for c in path:
        if c != blank and not (merge and c == prev):
            out.append(c)
        prev = c
    return out


def _posterior(logp: np.ndarray, labels: list[int], blank: int,
               merge: bool) -> tuple[float, np.ndarray]:
    """-log p(labels) over ``logp`` (T, C) and the probability of each class at each step
    given the labels (T, C), by summing the alignments that read as ``labels``."""
    steps, classes = logp.shape
    paths = np.array(list(itertools.product(range(classes), repeat=steps)))
    reads = np.array([_reads(tuple(p), blank, merge) == labels for p in paths])
    weight = np.exp(logp[np.arange(steps), paths].sum(1)) * reads
    total = weight.sum()
    post = np.stack([np.bincount(paths[:, t], weight, classes) for t in range(steps)])
    return -np.log(total), post / total


def _log_alpha(logp: np.ndarray, labels: list[int], blank: int, size: int) -> np.ndarray:
    """log of the summed probability of the prefixes that end in each state of the labels
    with blanks around them (state 2k: k labels read, then a blank; 2k - 1: the k-th
    label being emitted); (T, size), -inf where no prefix ends."""
    steps, classes = logp.shape
    out = np.full((steps, size), -np.inf)
    for t in range(steps):
        sums = np.zeros(size)
        for prefix in itertools.product(range(classes), repeat=t + 1):
            seen = _reads(prefix, blank, True)
            if seen != labels[:len(seen)]:
                continue
            state = 2 * len(seen) - (prefix[-1] != blank)
            sums[state] += np.exp(sum(logp[s, c] for s, c in enumerate(prefix)))
        with np.errstate(divide="ignore"):
            out[t] = np.log(sums)
    return out


def _sparse(x: np.ndarray, labels: list[list[int]], seq: np.ndarray,
            merge: bool) -> tuple[np.ndarray, np.ndarray]:
    """CTCLoss: a softmax over the logits, blank the last class; the gradient with
    respect to the logits is softmax - posterior, zero past a sequence's end."""
    wide = x.astype(np.float64)
    logp = wide - np.log(np.exp(wide).sum(-1, keepdims=True))
    loss, grad = np.zeros(x.shape[1]), np.zeros(x.shape)
    for b, row in enumerate(labels):
        n = int(seq[b])
        loss[b], post = _posterior(logp[:n, b], row, x.shape[2] - 1, merge)
        grad[:n, b] = np.exp(logp[:n, b]) - post
    return loss.astype(x.dtype), grad.astype(x.dtype)


def ctc_expect(x: np.ndarray, indices: np.ndarray, values: np.ndarray, seq: np.ndarray,
               lp: np.ndarray, targets: np.ndarray, il: np.ndarray, tl: np.ndarray,
               w: np.ndarray) -> tuple[np.ndarray, ...]:
    labels: list[list[int]] = [[] for _ in range(x.shape[1])]
    for (b, _), v in zip(indices, values):
        labels[b].append(int(v))
    collapsed = [[v for i, v in enumerate(row) if i == 0 or v != row[i - 1]] for row in labels]
    wide = lp.astype(np.float64)
    rows = [[int(v) for v in targets[b, :tl[b]]] for b in range(lp.shape[1])]
    nll = np.array([_posterior(wide[:il[b], b], rows[b], 0, True)[0]
                    for b in range(lp.shape[1])])
    alpha = np.full((lp.shape[1], lp.shape[0], 2 * targets.shape[1] + 1), -np.inf)
    grad = np.zeros(lp.shape)
    for b in range(lp.shape[1]):
        n = int(il[b])
        alpha[b, :n] = _log_alpha(wide[:n, b], rows[b], 0, alpha.shape[2])
        # MindSpore's (PyTorch's) gradient: exp(lp) - posterior, times the loss's cotangent
        grad[:n, b] = (np.exp(wide[:n, b]) - _posterior(wide[:n, b], rows[b], 3, True)[1]) \
            * w[b]
    f = lp.dtype
    return (*_sparse(x, labels, seq, True), *_sparse(x, collapsed, seq, False), nll.astype(f),
            alpha.astype(f), grad.astype(f))


CTC_CASES = (
    Case("ctc", ctc, ctc_inputs, frozenset({"CTCLoss", "CTCLossV2", "CTCLossV2Grad"}),
         ctc_expect),
)
