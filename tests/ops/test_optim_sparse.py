"""The optimizer primitives that write Parameters in place (``ops.SparseApplyFtrl``,
``ops.FusedSparseAdam``, ``ops.AdamWeightDecay``, ``ops.SGD``, ...): each update against
numpy written here, repeated indices included (a row named twice takes one step with the
sum of its gradients), eagerly and in a compiled Cell, the argument checks, and against
MindSpore itself where ``.peers/ms`` is installed."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
rng = np.random.default_rng(7)
N, D = 5, 3
VAR = rng.standard_normal((N, D)).astype(np.float32)
SLOT_A = (rng.random((N, D)) + 0.5).astype(np.float32)
SLOT_B = (rng.random((N, D)) + 0.5).astype(np.float32)
SLOT_C = (rng.random((N, D)) + 0.5).astype(np.float32)
IDX = np.array([0, 2, 0, 4], np.int32)          # row 0 twice, rows 1 and 3 untouched
GRAD = rng.standard_normal((4, D)).astype(np.float32)
GRAD_FULL = rng.standard_normal((N, D)).astype(np.float32)
IDX_FULL = np.array([3, 0, 3, 1, 4], np.int32)  # one index per row of var; row 2 untouched


def _params(*arrays):
    return [Parameter(Tensor(a.copy()), name=f"p{i}") for i, a in enumerate(arrays)]


def _merged(idx, grad, n=N):
    """The gradient rows summed per row (float64) and the rows named."""
    dense = np.zeros((n,) + grad.shape[1:])
    for i, row in zip(idx, grad.astype(np.float64)):
        dense[i] += row
    hit = np.zeros(n, bool)
    hit[idx] = True
    return dense, hit[:, None]


def _np_ftrl(var, accum, linear, g, lr, l1, l2, power, shrink=0.0):
    new_accum = accum + g * g
    new_linear = linear + g + 2 * shrink * var - (new_accum ** -power - accum ** -power) / lr \
        * var
    quadratic = new_accum ** -power / lr + 2 * l2
    new_var = np.where(np.abs(new_linear) > l1, (np.sign(new_linear) * l1 - new_linear) /
                       quadratic, 0.0)
    return new_var, new_accum, new_linear


def _np_proximal_adagrad(var, accum, lr, l1, l2, g):
    new_accum = accum + g * g
    rate = lr / np.sqrt(new_accum)
    prox = var - rate * g
    return np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0) / (1 + rate * l2), new_accum


def _rows(hit, new, old):
    return tuple(np.where(hit, n, o) for n, o in zip(new, old))


def _np_adam(var, m, v, g, b1p, b2p, lr, b1, b2, eps, nesterov=False):
    new_m, new_v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
    top = b1 * new_m + (1 - b1) * g if nesterov else new_m
    return var - lr * np.sqrt(1 - b2p) / (1 - b1p) * top / (np.sqrt(new_v) + eps), new_m, new_v


F64 = [a.astype(np.float64) for a in (VAR, SLOT_A, SLOT_B, SLOT_C)]
ADAM = (0.81, 0.998, 0.1, 0.9, 0.999, 1e-8)


def _sparse_cases():
    """name -> (make, args builder, numpy expectation of the written Parameters, outputs)."""
    var, a, b, c = F64
    g, hit = _merged(IDX, GRAD)
    gf, hit_f = _merged(IDX_FULL, GRAD_FULL)
    t1 = lambda x: Tensor(np.array([x], np.float32))  # noqa: E731
    cases = {}

    new_a = a + g * g
    cases["SparseApplyAdagrad"] = (
        lambda: ops.SparseApplyAdagrad(0.1), lambda p: (*p[:2], Tensor(GRAD), Tensor(IDX)),
        _rows(hit, (var - 0.1 * g / np.sqrt(new_a), new_a), (var, a)), "params")
    cases["SparseApplyAdagradV2"] = (
        lambda: ops.SparseApplyAdagradV2(0.1, 1e-3, update_slots=False),
        lambda p: (*p[:2], Tensor(GRAD), Tensor(IDX)),
        _rows(hit, (var - 0.1 * g / np.sqrt(a + 1e-3), a), (var, a)), "params")
    cases["SparseApplyProximalAdagrad"] = (
        ops.SparseApplyProximalAdagrad,
        lambda p: (*p[:2], 0.1, Tensor(np.float32(0.01)), 0.02, Tensor(GRAD), Tensor(IDX)),
        _rows(hit, _np_proximal_adagrad(var, a, 0.1, 0.01, 0.02, g), (var, a)), "params")
    cases["FusedSparseProximalAdagrad"] = (
        ops.FusedSparseProximalAdagrad,
        lambda p: (*p[:2], 0.1, 0.01, 0.02, Tensor(GRAD), Tensor(IDX)),
        _rows(hit, _np_proximal_adagrad(var, a, 0.1, 0.01, 0.02, g), (var, a)), "fused")
    for name, extra, shrink in (("SparseApplyFtrl", (), 0.0),
                                ("SparseApplyFtrlV2", (0.05,), 0.05),
                                ("FusedSparseFtrl", (), 0.0)):
        cases[name] = (
            lambda name=name, extra=extra: getattr(ops, name)(0.1, 0.01, 0.02, *extra, -0.5),
            lambda p: (*p[:3], Tensor(GRAD), Tensor(IDX)),
            _rows(hit, _np_ftrl(var, a, b, g, 0.1, 0.01, 0.02, -0.5, shrink), (var, a, b)),
            "fused" if name.startswith("Fused") else "params")
    ms_ = 0.9 * a + 0.1 * gf * gf
    mom = 0.5 * b + 0.1 * gf / np.sqrt(ms_ + 1e-3)
    cases["SparseApplyRMSProp"] = (
        lambda: ops.SparseApplyRMSProp(0.9, 0.5, 1e-3),
        lambda p: (*p[:3], Tensor(np.float32(0.1)), Tensor(GRAD_FULL), Tensor(IDX_FULL)),
        _rows(hit_f, (var - mom, ms_, mom), (var, a, b)), "params")
    acc = 0.9 * a + 0.1 * gf * gf
    upd = np.sqrt(b + 1e-6) / np.sqrt(acc + 1e-6) * gf
    cases["SparseApplyAdadelta"] = (
        lambda: ops.SparseApplyAdadelta(1e-6),
        lambda p: (*p[:3], 0.1, 0.9, Tensor(GRAD_FULL), Tensor(IDX_FULL)),
        _rows(hit_f, (var - 0.1 * upd, acc, 0.9 * b + 0.1 * upd * upd), (var, a, b)), "params")
    for nesterov in (False, True):
        new = _np_adam(var, a, b, g, *ADAM, nesterov=nesterov)
        dense_var = np.where(hit, new[0], var) if nesterov else new[0]
        cases[f"FusedSparseAdam{'Nesterov' * nesterov}"] = (
            lambda n=nesterov: ops.FusedSparseAdam(use_nesterov=n),
            lambda p: (*p[:3], *map(t1, ADAM), Tensor(GRAD), Tensor(IDX)),
            (dense_var, new[1], new[2]), "fused")
        cases[f"FusedSparseLazyAdam{'Nesterov' * nesterov}"] = (
            lambda n=nesterov: ops.FusedSparseLazyAdam(use_nesterov=n),
            lambda p: (*p[:3], *map(t1, ADAM), Tensor(GRAD), Tensor(IDX)),
            _rows(hit, new, (var, a, b)), "fused")
    return cases


def _dense_cases():
    var, a, b, c = F64
    gd = GRAD_FULL.astype(np.float64)
    cases = {}
    m, v = 0.9 * a + 0.1 * gd, 0.999 * b + 0.001 * gd * gd
    awd = var - 0.1 * (m / (np.sqrt(v) + 1e-6) + 0.01 * var)
    cases["AdamWeightDecay"] = (
        ops.AdamWeightDecay, lambda p: (*p[:3], 0.1, 0.9, 0.999, 1e-6, 0.01, Tensor(GRAD_FULL)),
        (awd, m, v), "params")
    g16 = GRAD_FULL.astype(np.float16).astype(np.float64) / 2.0
    m16, v16 = 0.9 * a + 0.1 * g16, 0.999 * b + 0.001 * g16 * g16
    cases["FusedCastAdamWeightDecay"] = (
        ops.FusedCastAdamWeightDecay,
        lambda p: (*p[:3], 0.1, 0.9, 0.999, 1e-6, 0.01, Tensor(GRAD_FULL.astype(np.float16)),
                   2.0),
        (var - 0.1 * (m16 / (np.sqrt(v16) + 1e-6) + 0.01 * var), m16, v16), "params")
    new = _np_adam(var, a, b, gd, *ADAM)
    cases["AdamNoUpdateParam"] = (
        ops.AdamNoUpdateParam,
        lambda p: (p[1], p[2], *(Tensor(np.array([x], np.float32)) for x in ADAM),
                   Tensor(GRAD_FULL)),
        (var, new[1], new[2]), ("delta", new[0] - var))
    stat = (SLOT_C > 1.0).astype(np.float32)  # some elements take their first step
    g_wd = gd + 0.01 * var
    accum = np.where(stat > 0, g_wd, 0.9 * a + 0.9 * g_wd)
    cases["SGD"] = (
        lambda: ops.SGD(0.1, 0.01, True),
        lambda p: (p[0], Tensor(GRAD_FULL), Tensor(np.float32(0.1)), p[1], Tensor(np.float32(0.9)),
                   p[2]),
        (var - 0.1 * (g_wd + 0.9 * accum), accum, np.zeros_like(stat)), "var", stat)
    ga, gs = a + gd, b + gd * gd
    shrunk = np.sign(ga) * np.maximum(np.abs(ga) - 0.5 * 3, 0)
    cases["ApplyAdagradDA"] = (
        ops.ApplyAdagradDA,
        lambda p: (*p[:3], Tensor(GRAD_FULL), 0.1, Tensor(np.float32(0.5)), 0.02,
                   Tensor(np.int32(3))),
        (-0.1 * shrunk / (0.02 * 3 * 0.1 + np.sqrt(gs)), ga, gs), "var")
    new = _np_adam(var, a, b, gd, *ADAM)
    vhat = np.maximum(c, new[2])
    lr_t = 0.1 * np.sqrt(1 - 0.998) / (1 - 0.81)
    cases["ApplyAdamWithAmsgradV2"] = (
        ops.ApplyAdamWithAmsgradV2,
        lambda p: (*p[:4], 0.81, 0.998, 0.1, Tensor(np.float32(0.9)), 0.999, 1e-8,
                   Tensor(GRAD_FULL)),
        (var - lr_t * new[1] / (np.sqrt(vhat) + 1e-8), new[1], new[2], vhat), "params")
    g_fw = (gd + 0.01 * var) * 2.0
    acc = 0.9 * a + g_fw
    cases["FusedWeightScaleApplyMomentum"] = (
        ops.FusedWeightScaleApplyMomentum,
        lambda p: (Tensor(np.float32(0.01)), Tensor(np.float32(2.0)), p[0], p[1], 0.1,
                   Tensor(GRAD_FULL), 0.9),
        (var - 0.1 * acc, acc), "var")
    return cases


CASES = {**_sparse_cases(), **_dense_cases()}


def _check(name, params, out):
    expected, kind = CASES[name][2], CASES[name][3]
    for p, want in zip(params, expected):
        assert p.dtype == ms.float32
        np.testing.assert_allclose(p.asnumpy(), want, rtol=2e-5, atol=2e-6, err_msg=name)
    if out is None:
        return
    if kind == "params":
        assert len(out) == len(expected)
        for o, want in zip(out, expected):
            np.testing.assert_allclose(o.asnumpy(), want, rtol=2e-5, atol=2e-6, err_msg=name)
    elif kind == "fused":  # var, then zeros of var's shape (MindSpore's CPU outputs)
        np.testing.assert_allclose(out[0].asnumpy(), expected[0], rtol=2e-5, atol=2e-6)
        assert all(o.shape == (N, D) and not o.asnumpy().any() for o in out[1:])
    elif kind == "var":
        np.testing.assert_allclose(out.asnumpy(), expected[0], rtol=2e-5, atol=2e-6)
    else:
        np.testing.assert_allclose(out.asnumpy(), kind[1], rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_update(name):
    make, args = CASES[name][:2]
    third = CASES[name][4] if len(CASES[name]) > 4 else SLOT_B  # SGD: its stat
    params = _params(VAR, SLOT_A, third, SLOT_C)
    out = make()(*args(params))
    _check(name, params, out)


def test_lars_update():
    w, g = VAR.astype(np.float64), GRAD_FULL.astype(np.float64)
    sw, sg = (w * w).sum(), (g * g).sum()
    args = (Tensor(VAR), Tensor(GRAD_FULL), Tensor(np.float32(sw)), Tensor(np.float32(sg)),
            0.01, Tensor(np.float32(0.1)))
    ratio = 0.001 * np.sqrt(sw) / (np.sqrt(sg) + 0.01 * np.sqrt(sw) + 1e-5)
    out = ops.LARSUpdate()(*args)
    assert out.dtype == ms.float32 and out.shape == (N, D)
    np.testing.assert_allclose(out.asnumpy(), (g + 0.01 * w) * ratio, rtol=1e-5)
    clipped = ops.LARSUpdate(1e-5, 0.5, True)(*args).asnumpy()
    ratio = min(0.5 * np.sqrt(sw) / (np.sqrt(sg) + 0.01 * np.sqrt(sw) + 1e-5) / 0.1, 1.0)
    np.testing.assert_allclose(clipped, (g + 0.01 * w) * ratio, rtol=1e-5)
    zero = ops.LARSUpdate()(Tensor(VAR), Tensor(GRAD_FULL), Tensor(np.float32(0)),
                            Tensor(np.float32(sg)), 0.0, 0.1)  # a zero norm: ratio 1
    np.testing.assert_allclose(zero.asnumpy(), GRAD_FULL, rtol=1e-6)


class SparseSteps(nn.Cell):
    """Two sparse updates in one graph, written in program order."""

    def __init__(self):
        super().__init__()
        self.var, self.m, self.v = _params(VAR, SLOT_A, SLOT_B)
        self.fvar, self.accum, self.linear = _params(VAR, SLOT_A, SLOT_B)
        self.adam = ops.FusedSparseLazyAdam()
        self.ftrl = ops.SparseApplyFtrl(0.1, 0.01, 0.02, -0.5)

    def construct(self, b1p, b2p, lr, b1, b2, eps, grad, indices):
        self.adam(self.var, self.m, self.v, b1p, b2p, lr, b1, b2, eps, grad, indices)
        return self.ftrl(self.fvar, self.accum, self.linear, grad, indices)


class DenseSteps(nn.Cell):
    def __init__(self, stat):
        super().__init__()
        self.var, self.accum, self.stat = _params(VAR, SLOT_A, stat)
        self.dvar, self.gacc, self.gsq = _params(VAR, SLOT_A, SLOT_B)
        self.sgd, self.da = ops.SGD(0.1, 0.01, True), ops.ApplyAdagradDA()

    def construct(self, grad, lr, momentum, l1, step):
        self.da(self.dvar, self.gacc, self.gsq, grad, 0.1, l1, 0.02, step)
        return self.sgd(self.var, grad, lr, self.accum, momentum, self.stat)


def test_compiled_matches_numpy():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = SparseSteps()
        t1 = [Tensor(np.array([x], np.float32)) for x in ADAM]
        out = net(*t1, Tensor(GRAD), Tensor(IDX))
        stat = CASES["SGD"][4]
        dense = DenseSteps(stat)
        var = dense(Tensor(GRAD_FULL), Tensor(np.float32(0.1)), Tensor(np.float32(0.9)),
                    Tensor(np.float32(0.5)), Tensor(np.int32(3)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _check("FusedSparseLazyAdam", [net.var, net.m, net.v], None)
    _check("SparseApplyFtrl", [net.fvar, net.accum, net.linear], out)
    _check("SGD", [dense.var, dense.accum, dense.stat], var)
    _check("ApplyAdagradDA", [dense.dvar, dense.gacc, dense.gsq], dense.dvar)


@pytest.mark.parametrize("make, args, error, words", [
    (lambda: ops.SparseApplyAdagrad(1), lambda p: (), TypeError, "'lr' must be a float"),
    (lambda: ops.SparseApplyFtrl(0.1, 0.0, 0.0, -0.5, use_locking=1), lambda p: (), TypeError,
     "'use_locking' must be a bool"),
    (lambda: ops.SparseApplyAdagrad(0.1),
     lambda p: (*p[:2], Tensor(GRAD), Tensor(IDX.astype(np.float32))), TypeError,
     "'indices' must be"),
    (ops.FusedSparseProximalAdagrad,
     lambda p: (*p[:2], 0.1, 0.0, 0.0, Tensor(GRAD), Tensor(IDX.astype(np.int64))), TypeError,
     "'indices' must be Int32"),
    (lambda: ops.SparseApplyAdagrad(0.1),
     lambda p: (*p[:2], Tensor(GRAD[:3]), Tensor(IDX)), ValueError, "'grad' of shape"),
    (lambda: ops.SparseApplyRMSProp(0.9, 0.5, 1e-3),
     lambda p: (*p[:3], 0.1, Tensor(GRAD), Tensor(IDX)), ValueError, "one entry per row"),
    (lambda: ops.SparseApplyAdadelta(-1.0), lambda p: (), ValueError, "at least 0"),
])
def test_checks(make, args, error, words):
    params = _params(VAR, SLOT_A, SLOT_B)
    with pytest.raises(error, match=words):
        make()(*args(params))


# One script, run by MindSpore in a subprocess and by msc here: every Parameter after the
# step and every output but placeholders. Repeated indices only where MindSpore's CPU
# kernel merges them
# (SparseApplyAdagradV2, SparseApplyFtrl and SparseApplyRMSProp step once per repeat
# there: see differences.md); AdamWeightDecay's and FusedCastAdamWeightDecay's outputs, and
# the fused sparse ones' slot outputs, are uninitialised memory there (msc gives the updated
# values, and zeros for the placeholders); ApplyAdagradDA with
# l1 = 0, where MindSpore's CPU kernel follows its documented formula.
SCRIPT = textwrap.dedent("""
    import numpy as np
    import {lib} as ms
    from {lib} import Parameter, Tensor, ops

    rng = np.random.default_rng(3)
    var = rng.standard_normal((5, 3)).astype(np.float32)
    a, b, c = ((rng.random((5, 3)) + 0.5).astype(np.float32) for _ in range(3))
    grad = rng.standard_normal((4, 3)).astype(np.float32)
    full = rng.standard_normal((5, 3)).astype(np.float32)
    dup, unique = np.array([0, 2, 0, 4], np.int32), np.array([3, 0, 2, 4], np.int32)
    perm = np.array([3, 0, 2, 4, 1], np.int32)
    t = lambda x: Tensor(np.float32(x))
    t1 = lambda x: Tensor(np.array([x], np.float32))
    adam = [t1(x) for x in (0.81, 0.998, 0.1, 0.9, 0.999, 1e-8)]
    results = {{}}

    def run(name, make, slots, *rest, outputs=4):
        params = [Parameter(Tensor(s.copy()), name=f"{{name}}{{i}}") for i, s in enumerate(slots)]
        out = make()(*params, *rest)
        for i, p in enumerate(params):
            results[f"{{name}}.param{{i}}"] = p.asnumpy()
        for i, o in enumerate(out if isinstance(out, tuple) else (out,)):
            if i < outputs:
                results[f"{{name}}.out{{i}}"] = o.asnumpy()

    run("adagrad", lambda: ops.SparseApplyAdagrad(0.1), (var, a), Tensor(grad), Tensor(dup))
    run("adagrad_v2", lambda: ops.SparseApplyAdagradV2(0.1, 1e-3), (var, a), Tensor(grad),
        Tensor(unique))
    run("ftrl", lambda: ops.SparseApplyFtrl(0.1, 0.01, 0.02, -0.5), (var, a, b), Tensor(grad),
        Tensor(unique))
    run("fused_ftrl", lambda: ops.FusedSparseFtrl(0.1, 0.01, 0.02, -0.5), (var, a, b),
        Tensor(grad), Tensor(dup), outputs=1)
    run("fused_proximal", ops.FusedSparseProximalAdagrad, (var, a), t(0.1), t(0.01), t(0.02),
        Tensor(grad), Tensor(dup), outputs=1)
    run("rmsprop", lambda: ops.SparseApplyRMSProp(0.9, 0.5, 1e-3), (var, a, b), t(0.1),
        Tensor(full), Tensor(perm))
    for nesterov in (False, True):
        for cls in (ops.FusedSparseAdam, ops.FusedSparseLazyAdam):
            run(f"{{cls.__name__}}{{nesterov}}", lambda: cls(use_nesterov=nesterov), (var, a, b),
                *adam, Tensor(grad), Tensor(dup), outputs=1)
    run("adam_weight_decay", ops.AdamWeightDecay, (var, a, b), 0.1, 0.9, 0.999, 1e-6, 0.01,
        Tensor(full), outputs=0)
    run("fused_cast", ops.FusedCastAdamWeightDecay, (var.astype(np.float16), a, b), 0.1, 0.9,
        0.999, 1e-6, 0.01, Tensor(full.astype(np.float16)), 2.0, outputs=0)
    run("no_update", ops.AdamNoUpdateParam, (a, b), *adam, Tensor(full))
    sgd_params = [Parameter(Tensor(x.copy()), name=f"sgd{{i}}")
                  for i, x in enumerate((var, a, (c > 1).astype(np.float32)))]
    out = ops.SGD(0.1, 0.01, False)(sgd_params[0], Tensor(full), t(0.1), sgd_params[1], t(0.9),
                                    sgd_params[2])
    results.update({{f"sgd.param{{i}}": p.asnumpy() for i, p in enumerate(sgd_params)}},
                   **{{"sgd.out0": out.asnumpy()}})
    run("adagrad_da", ops.ApplyAdagradDA, (var, a, b), Tensor(full), t(0.1), t(0.0), t(0.02),
        Tensor(np.int32(3)))
    run("amsgrad_v2", ops.ApplyAdamWithAmsgradV2, (var, a, b, c), t(0.81), t(0.998), t(0.1),
        t(0.9), t(0.999), t(1e-8), Tensor(full))
    np.savez("results.npz", **results)
""")


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore 2.10 is not installed in .peers/ms")
def test_matches_mindspore(tmp_path, monkeypatch):
    (tmp_path / "steps.py").write_text(SCRIPT.format(lib="mindspore"))
    run = subprocess.run([str(MINDSPORE), "steps.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    theirs = dict(np.load(tmp_path / "results.npz"))
    monkeypatch.chdir(tmp_path)
    exec(compile(SCRIPT.format(lib="msc"), "steps.py", "exec"), {})
    ours = dict(np.load(tmp_path / "results.npz"))
    assert sorted(ours) == sorted(theirs)
    for key, want in theirs.items():
        assert ours[key].dtype == want.dtype and ours[key].shape == want.shape, key
        np.testing.assert_allclose(ours[key], want, rtol=1e-5, atol=1e-6, err_msg=key)
