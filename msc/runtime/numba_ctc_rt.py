"""numba runtime helpers of the CTC losses: ``numpy_ctc_rt.py``'s forward-backward pass
as jitted loops, one sequence at a time, in float64. Copied into generated modules with
``numba_rt.py``. Errors name the check that failed; Numba's messages are constants, so
they do not show the offending value.
"""

import math

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def _rt_ctc_lse2(a, b):
    """log(exp(a) + exp(b)) of two float64 numbers, -inf when both are."""
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a > b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@njit(cache=True, error_model="numpy")
def _rt_ctc_core(lp, ext, ulen, tlen, blank, merge):
    """See ``numpy_ctc_rt._rt_ctc_core``: log p(labels) (B,), alpha (T, B, U) and the
    posterior of each class (T, B, C)."""
    steps, batch, classes = lp.shape
    size = ext.shape[1]
    alpha = np.full((steps, batch, size), -np.inf)
    post = np.zeros((steps, batch, classes))
    logp = np.full(batch, -np.inf)
    beta = np.empty((steps, size))
    for b in range(batch):
        n, tb = ulen[b], tlen[b]
        if tb == 0:
            logp[b] = 0.0 if n == 1 else -np.inf
            continue
        alpha[0, b, 0] = lp[0, b, ext[b, 0]]
        if n > 1:
            alpha[0, b, 1] = lp[0, b, ext[b, 1]]
        for t in range(1, tb):
            for u in range(n):
                s = alpha[t - 1, b, u] if merge or ext[b, u] == blank else -np.inf
                if u > 0:
                    s = _rt_ctc_lse2(s, alpha[t - 1, b, u - 1])
                if u > 1 and ext[b, u] != blank and not (merge and ext[b, u] == ext[b, u - 2]):
                    s = _rt_ctc_lse2(s, alpha[t - 1, b, u - 2])
                alpha[t, b, u] = s + lp[t, b, ext[b, u]] if s != -np.inf else -np.inf
        last = alpha[tb - 1, b, n - 1]
        logp[b] = _rt_ctc_lse2(last, alpha[tb - 1, b, n - 2]) if n > 1 else last
        beta[:, :] = -np.inf
        beta[tb - 1, n - 1] = 0.0
        if n > 1:
            beta[tb - 1, n - 2] = 0.0
        for t in range(tb - 2, -1, -1):
            for u in range(n):
                s = -np.inf
                if merge or ext[b, u] == blank:
                    s = beta[t + 1, u] + lp[t + 1, b, ext[b, u]]
                if u + 1 < n:
                    s = _rt_ctc_lse2(s, beta[t + 1, u + 1] + lp[t + 1, b, ext[b, u + 1]])
                if u + 2 < n and ext[b, u + 2] != blank and not (
                        merge and ext[b, u + 2] == ext[b, u]):
                    s = _rt_ctc_lse2(s, beta[t + 1, u + 2] + lp[t + 1, b, ext[b, u + 2]])
                beta[t, u] = s
        if logp[b] == -np.inf:
            continue
        for t in range(tb):
            for u in range(n):
                ab = alpha[t, b, u] + beta[t, u]
                if ab != -np.inf:
                    post[t, b, ext[b, u]] += math.exp(ab - logp[b])
    return logp, alpha, post


@njit(cache=True, error_model="numpy")
def _rt_ctc_states(labels, lengths, blank):
    """The extended label rows (B, 2 S + 1) of the rows of ``labels`` (B, S, the first
    ``lengths[b]`` used) and their lengths."""
    batch = labels.shape[0]
    ext = np.full((batch, 2 * labels.shape[1] + 1), blank, np.int64)
    ulen = np.empty(batch, np.int64)
    for b in range(batch):
        for i in range(lengths[b]):
            ext[b, 2 * i + 1] = labels[b, i]
        ulen[b] = 2 * lengths[b] + 1
    return ext, ulen


@njit(cache=True, error_model="numpy")
def _rt_ctc_loss(x, indices, values, seq_len, collapse, merge, ignore_longer):
    """MindSpore's ``CTCLoss``: see ``numpy_ctc_rt._rt_ctc_loss``."""
    steps, batch, classes = x.shape
    seq = seq_len.astype(np.int64)
    for b in range(batch):
        if seq[b] <= 0:
            raise RuntimeError("For 'CTCLoss', the 'sequence_length' must be greater than 0")
        if seq[b] > steps:
            raise RuntimeError("For 'CTCLoss', the 'max_time'(the 1st dimension value of "
                               "'probs') must be greater than or equal to 'sequence_length'")
    counts = np.zeros(batch, np.int64)
    for i in range(indices.shape[0]):
        k = indices[i, 0]
        if k < 0 or k >= batch:
            raise RuntimeError("For 'CTCLoss', 'index' must be less than the length of 'label'")
        counts[k] += 1
    labels = np.zeros((batch, max(values.shape[0], 1)), np.int64)
    kept = np.zeros(batch, np.int64)
    start = 0
    for b in range(batch):
        ended = False
        for i in range(counts[b]):
            v = np.int64(values[start + i])
            if i > 0 and collapse and v == values[start + i - 1]:
                continue
            if v < 0 or v >= classes - 1:
                ended = True
            elif ended:
                raise RuntimeError("For 'CTCLoss', the value of labels_values must be in the "
                                   "range of [0, num_classes)")
            else:
                labels[b, kept[b]] = v
                kept[b] += 1
        start += counts[b]
        if not ignore_longer and kept[b] > seq[b]:
            raise RuntimeError("For 'CTCLoss, input time(sequence length) must be greater "
                               "than output size(label length)")
    ext, ulen = _rt_ctc_states(labels, kept, classes - 1)
    lp = np.empty((steps, batch, classes))
    for t in range(steps):
        for b in range(batch):
            top = -np.inf
            for c in range(classes):
                top = max(top, np.float64(x[t, b, c]))
            total = 0.0
            for c in range(classes):
                total += math.exp(np.float64(x[t, b, c]) - top)
            for c in range(classes):
                lp[t, b, c] = np.float64(x[t, b, c]) - top - math.log(total)
    logp, _, post = _rt_ctc_core(lp, ext, ulen, seq, classes - 1, merge)
    loss = np.empty(batch, x.dtype)
    grad = np.zeros(x.shape, x.dtype)
    for b in range(batch):
        loss[b] = -logp[b]
        if logp[b] != -np.inf:
            for t in range(seq[b]):
                for c in range(classes):
                    grad[t, b, c] = math.exp(lp[t, b, c]) - post[t, b, c]
    return loss, grad


@njit(cache=True, error_model="numpy")
def _rt_ctc_v2_inputs(log_probs, targets, input_lengths, target_lengths):
    """The lengths as int64 arrays, checked as MindSpore's kernel checks them."""
    steps, batch = log_probs.shape[0], log_probs.shape[1]
    ilen = input_lengths.astype(np.int64).reshape(-1)
    tl = target_lengths.astype(np.int64).reshape(-1)
    for b in range(batch):
        if tl[b] < 0 or tl[b] > targets.shape[1]:
            raise RuntimeError("For 'CTCLossV2', a target_lengths is negative or larger than "
                               "target.shape[1].")
        if ilen[b] > steps:
            raise RuntimeError("For 'CTCLossV2', an input_lengths should be not greater than "
                               "probs.shape[0]")
        if ilen[b] < tl[b]:
            raise RuntimeError("For 'CTCLossV2', an input_lengths should be non-negative and "
                               "not smaller than its target length")
    return ilen, tl


@njit(cache=True, error_model="numpy")
def _rt_ctc_loss_v2(log_probs, targets, input_lengths, target_lengths, blank):
    """MindSpore's ``CTCLossV2``: see ``numpy_ctc_rt._rt_ctc_loss_v2``."""
    ilen, tl = _rt_ctc_v2_inputs(log_probs, targets, input_lengths, target_lengths)
    ext, ulen = _rt_ctc_states(targets.astype(np.int64), tl, blank)
    lp = log_probs.astype(np.float64)
    logp, alpha, _ = _rt_ctc_core(lp, ext, ulen, ilen, blank, True)
    steps, batch = lp.shape[0], lp.shape[1]
    nll = np.empty(batch, log_probs.dtype)
    out = np.full((batch, steps, ext.shape[1]), -np.inf, log_probs.dtype)
    for b in range(batch):
        nll[b] = -logp[b]
        for t in range(ilen[b]):
            for u in range(ulen[b]):
                out[b, t, u] = alpha[t, b, u]
    return nll, out


@njit(cache=True, error_model="numpy")
def _rt_ctc_loss_v2_grad(grad_out, log_probs, targets, input_lengths, target_lengths,
                         blank, zero_infinity):
    """``CTCLossV2Grad``: see ``numpy_ctc_rt._rt_ctc_loss_v2_grad``."""
    ilen, tl = _rt_ctc_v2_inputs(log_probs, targets, input_lengths, target_lengths)
    ext, ulen = _rt_ctc_states(targets.astype(np.int64), tl, blank)
    lp = log_probs.astype(np.float64)
    logp, _, post = _rt_ctc_core(lp, ext, ulen, ilen, blank, True)
    grad = np.zeros(log_probs.shape, log_probs.dtype)
    scales = np.ascontiguousarray(grad_out).reshape(-1)  # (a strided view too: one per sequence)
    for b in range(lp.shape[1]):
        scale = np.float64(scales[b])
        for t in range(ilen[b]):
            for c in range(lp.shape[2]):
                if logp[b] == -np.inf:
                    grad[t, b, c] = 0.0 if zero_infinity else np.nan
                else:
                    grad[t, b, c] = (math.exp(lp[t, b, c]) - post[t, b, c]) * scale
    return grad
