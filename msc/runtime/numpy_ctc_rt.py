"""numpy runtime helpers of the CTC losses: MindSpore's ``CTCLoss`` (TensorFlow's layout:
logits, sparse labels, blank the last class) and ``CTCLossV2`` (PyTorch's: log
probabilities, padded targets, any blank) with its gradient. One forward-backward pass
in log space serves all three, vectorized over the batch and the label states, one time
step at a time, in float64. Copied into generated modules with ``numpy_rt.py``; eager
mode and the interpreter call them too. ``numba_ctc_rt.py`` has the same algorithm as
loops.
"""

import math

import numpy as np


def _rt_ctc_lse(*terms):
    """log(sum(exp(terms))) of equal-shaped arrays, -inf where every term is -inf."""
    top = np.maximum.reduce(terms)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return safe + np.log(sum(np.exp(t - safe) for t in terms))


def _rt_ctc_core(lp, ext, ulen, tlen, blank, merge):
    """The CTC forward-backward pass over log probabilities ``lp`` (T, B, C) in float64.

    ``ext`` (B, U) holds each sequence's labels with a blank before, between and after
    them (``ulen`` states of it used), ``tlen`` the time steps each sequence uses. A state
    may repeat when ``merge`` (or it is a blank) and skip the blank before it when its
    label differs from the one two back (any label, without ``merge``). Returns log
    p(labels) (B,), the forward variables alpha (T, B, U; -inf outside a sequence) and the
    posterior of each class at each step (T, B, C; 0 past a sequence's end)."""
    steps, batch, classes = lp.shape
    size = ext.shape[1]
    u = np.arange(size)
    inside = u[None, :] < ulen[:, None]
    emit = np.where(inside[None], lp[:, np.arange(batch)[:, None], ext], -np.inf)
    stay = merge | (ext == blank)
    back2 = np.concatenate([np.full((batch, 2), -1), ext[:, :-2]], axis=1)[:, :size]
    skip = (u[None, :] >= 2) & (ext != blank) & ~(merge & (ext == back2))
    alpha = np.full((steps, batch, size), -np.inf)
    beta = np.full((steps, batch, size), -np.inf)
    if steps == 0:
        return np.where(ulen == 1, 0.0, -np.inf), alpha, np.zeros(lp.shape)
    alpha[0, :, :2] = emit[0, :, :2]
    none = np.full((batch, 1), -np.inf)
    for t in range(1, steps):
        a = alpha[t - 1]
        one = np.concatenate([none, a[:, :-1]], axis=1)
        two = np.concatenate([none, none, a[:, :-2]], axis=1)[:, :size]
        alpha[t] = emit[t] + _rt_ctc_lse(np.where(stay, a, -np.inf), one,
                                        np.where(skip, two, -np.inf))
    last = tlen - 1
    rows = np.arange(batch)
    end = alpha[np.maximum(last, 0), rows]
    final = end[rows, np.maximum(ulen - 1, 0)]
    before = np.where(ulen > 1, end[rows, np.maximum(ulen - 2, 0)], -np.inf)
    logp = np.where(tlen > 0, _rt_ctc_lse(final, before), np.where(ulen == 1, 0.0, -np.inf))
    ends = (u[None, :] >= ulen[:, None] - 2) & inside
    skip_to = np.concatenate([skip[:, 2:], np.zeros((batch, 2), bool)], axis=1)[:, :size]
    for t in range(steps - 1, -1, -1):
        if t + 1 < steps:
            nb = beta[t + 1] + emit[t + 1]
            one = np.concatenate([nb[:, 1:], none], axis=1)
            two = np.concatenate([nb[:, 2:], none, none], axis=1)[:, :size]
            beta[t] = _rt_ctc_lse(np.where(stay, nb, -np.inf), one,
                                  np.where(skip_to, two, -np.inf))
        beta[t] = np.where((t == last)[:, None], np.where(ends, 0.0, -np.inf), beta[t])
    live = (np.arange(steps)[:, None] < tlen[None, :])[:, :, None]
    alpha = np.where(live & inside[None], alpha, -np.inf)
    with np.errstate(invalid="ignore"):
        share = np.exp(alpha + beta - logp[None, :, None])
    post = np.zeros((steps, batch, classes))
    for b in range(batch):
        for j in range(int(ulen[b])):
            post[:, b, ext[b, j]] += share[:, b, j]
    return logp, alpha, post


def _rt_ctc_states(labels, blank):
    """The extended label rows (B, 2 S + 1) of a list of label lists, and their lengths."""
    size = 2 * max((len(x) for x in labels), default=0) + 1
    ext = np.full((len(labels), size), blank, np.int64)
    for b, row in enumerate(labels):
        ext[b, 1:2 * len(row):2] = row
    return ext, np.array([2 * len(x) + 1 for x in labels], np.int64)


def _rt_ctc_loss(x, indices, values, seq_len, collapse, merge, ignore_longer):
    """MindSpore's ``CTCLoss``: the loss (B,) and its gradient with respect to the logits
    ``x`` (T, B, C), each sequence's labels ``values`` in order of ``indices[:, 0]``."""
    steps, batch, classes = x.shape
    seq = np.asarray(seq_len).astype(np.int64)
    for b in range(batch):
        if seq[b] <= 0:
            raise RuntimeError(f"For 'CTCLoss', the 'sequence_length' must be greater than "
                               f"0, but got {seq[b]}.")
        if seq[b] > steps:
            raise RuntimeError(f"For 'CTCLoss', the 'max_time'(the 1st dimension value of "
                               f"'probs') must be greater than or equal to "
                               f"'sequence_length', but got 'max_time': {steps} and "
                               f"'sequence_length': {seq[b]}")
    counts = [0] * batch
    for i in np.asarray(indices)[:, 0].astype(np.int64):
        if not 0 <= i < batch:
            raise RuntimeError(f"For 'CTCLoss', 'index' must be less than the length of "
                               f"'label', but got 'index': {i} and the length of 'label': "
                               f"{batch}")
        counts[i] += 1
    flat = np.asarray(values).astype(np.int64)
    labels, start = [], 0
    for b in range(batch):
        raw, kept, ended = flat[start:start + counts[b]], [], False
        start += counts[b]
        for i, v in enumerate(raw):
            if i > 0 and collapse and v == raw[i - 1]:
                continue
            if v < 0 or v >= classes - 1:
                ended = True
            elif ended:
                raise RuntimeError(f"For 'CTCLoss', the value of labels_values[{i}] must be "
                                   f"in the range of [0, num_classes), but got {v}")
            else:
                kept.append(int(v))
        if not ignore_longer and len(kept) > seq[b]:
            raise RuntimeError(f"For 'CTCLoss, input time(sequence length) must be greater "
                               f"than output size(label length), but got sequence length: "
                               f"{seq[b]} and label length: {len(kept)}")
        labels.append(kept)
    ext, ulen = _rt_ctc_states(labels, classes - 1)
    wide = np.asarray(x, np.float64)
    lp = wide - wide.max(axis=2, keepdims=True)
    lp = lp - np.log(np.exp(lp).sum(axis=2, keepdims=True))
    logp, _, post = _rt_ctc_core(lp, ext, ulen, seq, classes - 1, bool(merge))
    live = (np.arange(steps)[:, None] < seq[None, :]) & np.isfinite(logp)[None, :]
    grad = np.where(live[:, :, None], np.exp(lp) - post, 0.0)
    return (-logp).astype(x.dtype), grad.astype(x.dtype)


def _rt_ctc_v2_inputs(log_probs, targets, input_lengths, target_lengths):
    """The lengths as int64 arrays and the target rows, checked as MindSpore's kernel
    checks them."""
    steps, batch, _ = log_probs.shape
    ilen = np.asarray(input_lengths).astype(np.int64).reshape(-1)
    tl = np.asarray(target_lengths).astype(np.int64).reshape(-1)
    tg = np.asarray(targets).astype(np.int64)
    for b in range(batch):
        if not 0 <= tl[b] <= tg.shape[1]:
            raise RuntimeError(f"For 'CTCLossV2', the target_lengths[{b}] = {tl[b]} is "
                               f"negative or larger than target.shape[1] = {tg.shape[1]}.")
        if ilen[b] > steps:
            raise RuntimeError(f"For 'CTCLossV2', the input_lengths[{b}] = {ilen[b]} should "
                               f"be not greater than probs.shape[0] = {steps}")
        if ilen[b] < tl[b]:
            raise RuntimeError(f"For 'CTCLossV2', the input_lengths[{b}] = {ilen[b]} should "
                               f"be non-negative and not smaller than tar_len_p[{b}] = "
                               f"{tl[b]}")
    return ilen, [list(tg[b, :tl[b]]) for b in range(batch)], tg.shape[1]


def _rt_ctc_loss_v2(log_probs, targets, input_lengths, target_lengths, blank):
    """MindSpore's ``CTCLossV2``: the negative log likelihood (N,) and log alpha
    (N, T, 2 S + 1), -inf outside each sequence."""
    ilen, labels, width = _rt_ctc_v2_inputs(log_probs, targets, input_lengths,
                                            target_lengths)
    ext, ulen = _rt_ctc_states(labels, blank)
    lp = np.asarray(log_probs, np.float64)
    logp, alpha, _ = _rt_ctc_core(lp, ext, ulen, ilen, blank, True)
    out = np.full((lp.shape[1], lp.shape[0], 2 * width + 1), -np.inf)
    out[:, :, :ext.shape[1]] = alpha.transpose(1, 0, 2)
    return (-logp).astype(log_probs.dtype), out.astype(log_probs.dtype)


def _rt_ctc_loss_v2_grad(grad_out, log_probs, targets, input_lengths, target_lengths,
                         blank, zero_infinity):
    """``CTCLossV2Grad``: ``grad_out[n] * (exp(log_probs) - posterior)`` within each
    sequence (PyTorch's form, the gradient through a log_softmax); a sequence no
    alignment fits gets zeros with ``zero_infinity``, else NaN."""
    ilen, labels, _ = _rt_ctc_v2_inputs(log_probs, targets, input_lengths, target_lengths)
    ext, ulen = _rt_ctc_states(labels, blank)
    lp = np.asarray(log_probs, np.float64)
    logp, _, post = _rt_ctc_core(lp, ext, ulen, ilen, blank, True)
    live = np.arange(lp.shape[0])[:, None] < ilen[None, :]
    grad = (np.exp(lp) - post) * np.asarray(grad_out, np.float64).reshape(1, -1, 1)
    grad = np.where(np.isfinite(logp)[None, :, None], grad,
                    0.0 if zero_infinity else math.nan)
    return np.where(live[:, :, None], grad, 0.0).astype(log_probs.dtype)
