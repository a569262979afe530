"""The CTC ops: ``ops.CTCLoss`` (logits, sparse labels, blank last), ``ops.ctc_loss`` /
``nn.CTCLoss`` (log probabilities, padded targets) and ``ops.CTCGreedyDecoder``, eagerly
and compiled on both targets, against a reference that sums every alignment's
probability by enumeration (numpy, small sizes), finite differences for the gradients,
and MindSpore itself where ``.peers/ms`` is installed."""

from __future__ import annotations

import itertools
import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from msc.errors import GraphTypeError
from msc.ops import operations as P

TARGETS = ["numba", "python"]
MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


# --- the reference: every alignment enumerated ----------------------------------------------


def _collapse(path, blank, merge):
    """The labels an alignment reads as: repeats merged (when ``merge``), blanks dropped."""
    out, prev = [], None
    for c in path:
        if c != blank and not (merge and c == prev):
            out.append(c)
        prev = c
    return out


def _nll(logp, labels, blank, merge=True):
    """-log of the summed probability of the alignments of ``labels`` (float64), ``logp``
    (T, C) log probabilities."""
    total = 0.0
    for path in itertools.product(range(logp.shape[1]), repeat=logp.shape[0]):
        if _collapse(path, blank, merge) == list(labels):
            total += np.exp(sum(logp[t, c] for t, c in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


def _log_softmax(x):
    x = np.asarray(x, np.float64)
    return x - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)) \
        - x.max(-1, keepdims=True)


def _sparse_loss(x, labels, seq, merge):
    """MindSpore's CTCLoss semantics per sequence: softmax over the logits, blank last."""
    lp = _log_softmax(x)
    return np.array([_nll(lp[:seq[b], b], labels[b], x.shape[2] - 1, merge)
                     for b in range(x.shape[1])])


def _finite_differences(f, x, eps=1e-5):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def _run(fn, mode, *args):
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


# --- CTCLoss: sparse labels -----------------------------------------------------------------

X = np.random.default_rng(0).standard_normal((5, 3, 4)).astype(np.float32)
INDICES = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0]], np.int64)
VALUES = np.array([1, 1, 2, 0, 2, 1], np.int32)
SEQ = np.array([5, 4, 3], np.int32)
LABELS = [[1, 1, 2], [0, 2], [1]]


class SparseCTC(nn.Cell):
    def __init__(self, **flags):
        super().__init__()
        self.ctc = P.CTCLoss(**flags)

    def construct(self, x, indices, values, seq):
        return self.ctc(x, indices, values, seq)


class SparseCTCSum(SparseCTC):
    def construct(self, x, indices, values, seq):
        return self.ctc(x, indices, values, seq)[0].sum()


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
@pytest.mark.parametrize("merge", [True, False])
def test_ctc_loss_sums_every_alignment(mode, merge):
    loss, grad = _run(SparseCTC(ctc_merge_repeated=merge), mode, Tensor(X), Tensor(INDICES),
                      Tensor(VALUES), Tensor(SEQ))
    want = _sparse_loss(X, LABELS, SEQ, merge)
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-5)
    fd = _finite_differences(lambda v: _sparse_loss(v, LABELS, SEQ, merge).sum(),
                             X.astype(np.float64))
    np.testing.assert_allclose(grad.asnumpy(), fd, atol=2e-5)
    assert loss.dtype == ms.float32 and grad.shape == X.shape


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
def test_ctc_loss_collapses_labels_and_differentiates(mode):
    net = SparseCTCSum(preprocess_collapse_repeated=True)
    args = (Tensor(X), Tensor(INDICES), Tensor(VALUES), Tensor(SEQ))
    grad = _run(ms.grad(net), mode, *args)
    collapsed = [[1, 2], [0, 2], [1]]
    fd = _finite_differences(lambda v: _sparse_loss(v, collapsed, SEQ, True).sum(),
                             X.astype(np.float64))
    np.testing.assert_allclose(grad.asnumpy(), fd, atol=2e-5)


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
def test_ctc_loss_checks_lengths_at_run_time(mode):
    seq = np.array([2, 4, 3], np.int32)  # three labels in two steps
    with pytest.raises(RuntimeError, match="sequence length"):
        _run(SparseCTC(), mode, Tensor(X), Tensor(INDICES), Tensor(VALUES), Tensor(seq))
    loss, grad = _run(SparseCTC(ignore_longer_outputs_than_inputs=True), mode, Tensor(X),
                      Tensor(INDICES), Tensor(VALUES), Tensor(seq))
    assert np.isinf(loss.asnumpy()[0]) and not grad.asnumpy()[:, 0].any()
    with pytest.raises(RuntimeError, match="max_time"):
        _run(SparseCTC(), mode, Tensor(X), Tensor(INDICES), Tensor(VALUES),
             Tensor(np.array([6, 4, 3], np.int32)))


# --- ctc_loss / nn.CTCLoss: padded targets --------------------------------------------------

LP = np.random.default_rng(1).standard_normal((5, 3, 4)).astype(np.float32)
TARGETS_PADDED = np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]], np.int32)
IN_LEN = np.array([5, 4, 3], np.int32)
TGT_LEN = np.array([3, 2, 0], np.int32)


def _padded_loss(lp, blank=0):
    return np.array([_nll(np.asarray(lp, np.float64)[:IN_LEN[b], b],
                          TARGETS_PADDED[b, :TGT_LEN[b]], blank) for b in range(3)])


class Padded(nn.Cell):
    def __init__(self, blank, reduction):
        super().__init__()
        self.blank, self.reduction = blank, reduction

    def construct(self, lp, targets, il, tl):
        return ops.ctc_loss(lp, targets, il, tl, self.blank, self.reduction)


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
@pytest.mark.parametrize("blank", [0, 3])
def test_ctc_loss_function_and_log_alpha(mode, blank):
    targets = np.where(TARGETS_PADDED == blank, 3 - blank, TARGETS_PADDED).astype(np.int32)
    loss, log_alpha = _run(Padded(blank, "none"), mode, Tensor(LP), Tensor(targets),
                           Tensor(IN_LEN), Tensor(TGT_LEN))
    want = np.array([_nll(LP[:IN_LEN[b], b].astype(np.float64), targets[b, :TGT_LEN[b]],
                          blank) for b in range(3)])
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-5)
    assert log_alpha.shape == (3, 5, 7)
    alpha = log_alpha.asnumpy()
    assert np.isneginf(alpha[1, 4]).all() and np.isneginf(alpha[2, :, 1:]).all()
    # the first step: the blank, then the first label
    np.testing.assert_allclose(alpha[0, 0, :2], LP[0, 0, [blank, targets[0, 0]]])


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nn_ctc_loss_reductions_and_gradient(mode, reduction):
    def reduce(lp):
        per = _padded_loss(lp)
        return (per / np.maximum(TGT_LEN, 1)).mean() if reduction == "mean" else per.sum()

    loss_fn = nn.CTCLoss(blank=0, reduction=reduction)
    args = (Tensor(LP), Tensor(TARGETS_PADDED), Tensor(IN_LEN), Tensor(TGT_LEN))
    np.testing.assert_allclose(_run(loss_fn, mode, *args).asnumpy(), reduce(LP), rtol=1e-5)
    grad = _run(ms.grad(loss_fn), mode, *args).asnumpy()
    # MindSpore's (and PyTorch's) gradient is that through a log_softmax: exp(lp) - posterior,
    # which the true gradient (-posterior) becomes after the log_softmax's own rule
    fd = _finite_differences(reduce, LP.astype(np.float64))
    weights = np.array([1.0, 1.0, 1.0]) / (np.maximum(TGT_LEN, 1) * 3 if reduction == "mean"
                                           else 1.0)
    live = (np.arange(5)[:, None] < IN_LEN[None, :])[:, :, None]
    np.testing.assert_allclose(grad, fd + np.exp(LP) * live * weights[None, :, None], atol=2e-5)


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ctc_gradient_of_a_function_of_the_summed_loss(mode, dtype):
    """sin of the summed loss: the loss's gradient, a value computed at run time, reaches
    CTCLossV2Grad as a strided view (one value repeated per sequence), which the numba
    runtime read by ``reshape`` (contiguous arrays only: msc's InternalCompilerError).
    Found by the fuzzer (seed 9101, program 16)."""
    def loss(lp):
        return ops.sin(ops.ctc_loss(lp, Tensor(TARGETS_PADDED), Tensor(IN_LEN), Tensor(TGT_LEN),
                                    0, "sum")[0])

    lp = LP.astype(dtype)
    grad = _run(ms.grad(loss), mode, Tensor(lp)).asnumpy()
    total = _padded_loss(lp).sum()
    live = (np.arange(5)[:, None] < IN_LEN[None, :])[:, :, None]
    fd = _finite_differences(lambda x: _padded_loss(x).sum(), lp.astype(np.float64))
    assert grad.dtype == dtype
    np.testing.assert_allclose(grad, np.cos(total) * (fd + np.exp(lp) * live), atol=2e-5)


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
def test_nn_ctc_loss_of_one_unbatched_sequence(mode):
    loss = _run(nn.CTCLoss(reduction="none"), mode, Tensor(LP[:, 0]),
                Tensor(TARGETS_PADDED[0]), Tensor(IN_LEN[:1]), Tensor(TGT_LEN[:1]))
    np.testing.assert_allclose(loss.asnumpy(), _padded_loss(LP)[0], rtol=1e-5)


def test_ctc_loss_zero_infinity_zeroes_the_gradient_only():
    lp = LP.copy()
    il = np.array([2, 4, 3], np.int32)  # three labels, two of them equal, in two steps: no fit
    tl = np.array([2, 2, 0], np.int32)
    targets = np.array([[2, 2, 0], [3, 1, 0], [2, 0, 0]], np.int32)

    def total(x, zero):
        return ops.ctc_loss(x, Tensor(targets), Tensor(il), Tensor(tl), 0, "none", zero)[0].sum()

    assert np.isinf(total(Tensor(lp), True).asnumpy())
    g = ms.grad(lambda x: total(x, True))(Tensor(lp)).asnumpy()
    assert not g[:, 0].any() and np.isfinite(g).all()
    assert np.isnan(ms.grad(lambda x: total(x, False))(Tensor(lp)).asnumpy()[:2, 0]).all()


# --- CTCGreedyDecoder -----------------------------------------------------------------------


def test_greedy_decoder_reads_the_best_path():
    for merge in (True, False):
        indices, values, shape, logp = P.CTCGreedyDecoder(merge)(Tensor(X), Tensor(SEQ))
        rows = [_collapse(X[:SEQ[b], b].argmax(-1), 3, merge) for b in range(3)]
        assert values.asnumpy().tolist() == [c for r in rows for c in r]
        assert indices.asnumpy().tolist() == [[b, i] for b, r in enumerate(rows)
                                              for i in range(len(r))]
        assert shape.asnumpy().tolist() == [3, max(map(len, rows))]
        np.testing.assert_allclose(logp.asnumpy()[:, 0],
                                   [-X[:SEQ[b], b].max(-1).sum() for b in range(3)], rtol=1e-6)


class Decode(nn.Cell):
    def construct(self, x, seq):
        return P.CTCGreedyDecoder()(x, seq)


def test_greedy_decoder_in_a_graph_is_a_clear_error():
    with pytest.raises(GraphTypeError, match="depends on the data") as info:
        _run(Decode(), "python", Tensor(X), Tensor(SEQ))
    assert "test_ctc.py" in str(info.value)


# --- MindSpore itself -----------------------------------------------------------------------


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the CTC ops are checked against enumerated alignments above")
def test_ctc_matches_mindspore_itself(tmp_path):
    script = textwrap.dedent(f"""
        import json, numpy as np, mindspore as ms
        from mindspore import ops, Tensor, nn
        from mindspore.ops import operations as P
        x = np.array({X.tolist()}, np.float32)
        lp = np.array({LP.tolist()}, np.float32)
        out = {{}}
        for merge in (True, False):
            loss, grad = P.CTCLoss(ctc_merge_repeated=merge)(
                Tensor(x), Tensor(np.array({INDICES.tolist()}, np.int64)),
                Tensor(np.array({VALUES.tolist()}, np.int32)),
                Tensor(np.array({SEQ.tolist()}, np.int32)))
            out[f"loss{{merge}}"] = loss.asnumpy()[:2].tolist()
            out[f"grad{{merge}}"] = grad.asnumpy()[:, :2].tolist()
        args = (Tensor(np.array({TARGETS_PADDED.tolist()}, np.int32)),
                Tensor(np.array({IN_LEN.tolist()}, np.int32)),
                Tensor(np.array({TGT_LEN.tolist()}, np.int32)))
        loss_fn = nn.CTCLoss(blank=0, reduction="mean")
        out["v2"] = loss_fn(Tensor(lp), *args).asnumpy().tolist()
        out["v2grad"] = ms.grad(loss_fn)(Tensor(lp), *args).asnumpy().tolist()
        out["alpha"] = ops.ctc_loss(Tensor(lp), *args, 0, "none")[1].asnumpy().tolist()
        print(json.dumps(out))
    """)
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    args = (Tensor(INDICES), Tensor(VALUES), Tensor(SEQ))
    for merge in (True, False):  # the third sequence has no labels: see docs/differences.md
        loss, grad = P.CTCLoss(ctc_merge_repeated=merge)(Tensor(X), *args)
        np.testing.assert_allclose(loss.asnumpy()[:2], theirs[f"loss{merge}"], rtol=1e-5)
        np.testing.assert_allclose(grad.asnumpy()[:, :2], theirs[f"grad{merge}"], atol=1e-5)
    padded = (Tensor(TARGETS_PADDED), Tensor(IN_LEN), Tensor(TGT_LEN))
    loss_fn = nn.CTCLoss(blank=0, reduction="mean")
    np.testing.assert_allclose(loss_fn(Tensor(LP), *padded).asnumpy(), theirs["v2"], rtol=1e-5)
    np.testing.assert_allclose(ms.grad(loss_fn)(Tensor(LP), *padded).asnumpy(),
                               theirs["v2grad"], atol=1e-5)
    np.testing.assert_allclose(ops.ctc_loss(Tensor(LP), *padded, 0, "none")[1].asnumpy(),
                               np.array(theirs["alpha"]), rtol=1e-5)


# --- vmap -----------------------------------------------------------------------------------


def _padded(x, targets):
    return ops.ctc_loss(ops.log_softmax(x, -1), targets, Tensor(IN_LEN), Tensor(TGT_LEN), 0,
                        "none")


@pytest.mark.parametrize("mode", ["eager", *TARGETS])
def test_vmap_folds_examples_into_the_batch(mode):
    """Examples along axis 2 of the values and axis 0 of the targets: the losses, log
    alphas and gradients of a loop over them."""
    xs = np.random.default_rng(2).standard_normal((5, 3, 2, 4)).astype(np.float32)
    targets = np.stack([TARGETS_PADDED, np.where(TARGETS_PADDED == 2, 3, TARGETS_PADDED)])
    targets = targets.astype(np.int32)

    def total(x, t):
        return _padded(x, t)[0].sum()

    batched = ms.vmap(_padded, in_axes=(2, 0))
    batched_grad = ms.vmap(ms.grad(total), in_axes=(2, 0))
    (loss, alpha), grad = _run(lambda a, b: (batched(a, b), batched_grad(a, b)), mode,
                               Tensor(xs), Tensor(targets))
    for v in range(2):
        want_loss, want_alpha = _padded(Tensor(xs[:, :, v]), Tensor(targets[v]))
        np.testing.assert_allclose(loss.asnumpy()[v], want_loss.asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(alpha.asnumpy()[v], want_alpha.asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(grad.asnumpy()[v], ms.grad(total)(
            Tensor(xs[:, :, v]), Tensor(targets[v])).asnumpy(), rtol=1e-5, atol=1e-6)
