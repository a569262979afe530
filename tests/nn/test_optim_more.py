"""The optimizers of ``ada_grad.py``, ``rmsprop.py``, ``adamax.py``, ``ftrl.py``,
``rprop.py``, ``asgd.py`` and Adam's keyword arguments (``adam.py``): three training steps
against numpy written from MindSpore 2.10's documented update rules, eagerly and
compiled, and against MindSpore itself where ``.peers/ms`` is installed.

Where MindSpore 2.10's CPU kernels and its documentation part (checked while writing):
ProximalAdagrad's kernel scales the L1/L2 terms by lr / sqrt(accum), as TensorFlow's
kernel does, and msc follows it; FTRL's kernel moves a weight *away* from zero by l1
(``(-u - l1 sign(u)) / q``) where the documentation (and TensorFlow) shrink it
(``(sign(u) l1 - u) / q``): msc follows the documentation, so the oracle case uses l1=0.
Its CPU build has no Lamb kernel (RuntimeError), so Lamb is checked against numpy only.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn

W0 = np.array([1., -2., 3.], np.float32)
X = np.array([0.5, 1., -1.], np.float32)
STEPS = 3


class Net(nn.Cell):
    """loss = w . x + 0.1 |w|^2: the gradient is x + 0.2 w."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W0.copy()), name="w")

    def construct(self, x):
        return (self.w * x).sum() + (self.w * self.w).sum() * 0.1


def grad(w):
    return X + 0.2 * w


def run_numpy(step, state):
    w = W0.astype(np.float64)
    for t in range(1, STEPS + 1):
        w = step(w, grad(w), state, t)
    return w


def adagrad(lr=0.001, accum=0.1):
    def step(w, g, s, t):
        s["a"] = s.get("a", accum) + g * g
        return w - lr * g / np.sqrt(s["a"])
    return step


def proximal_adagrad(lr=0.001, accum=0.1, l1=0.01, l2=0.01):
    def step(w, g, s, t):
        s["a"] = s.get("a", accum) + g * g
        rate = lr / np.sqrt(s["a"])
        prox = w - rate * g
        return np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0) / (1 + rate * l2)
    return step


def adadelta(lr=1.0, rho=0.9, eps=1e-6):
    def step(w, g, s, t):
        s["a"] = rho * s.get("a", 0) + (1 - rho) * g * g
        update = np.sqrt(s.get("u", 0) + eps) / np.sqrt(s["a"] + eps) * g
        s["u"] = rho * s.get("u", 0) + (1 - rho) * update * update
        return w - lr * update
    return step


def rmsprop(lr=0.1, decay=0.9, momentum=0.0, eps=1e-10, centered=False):
    def step(w, g, s, t):
        s["ms"] = decay * s.get("ms", 1.0) + (1 - decay) * g * g
        s["mg"] = decay * s.get("mg", 0) + (1 - decay) * g
        denom = s["ms"] - s["mg"] ** 2 if centered else s["ms"]
        s["mom"] = momentum * s.get("mom", 0) + lr * g / np.sqrt(denom + eps)
        return w - s["mom"]
    return step


def adamax(lr=0.001, b1=0.9, b2=0.999, eps=1e-8):
    def step(w, g, s, t):
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = np.maximum(b2 * s.get("v", 0), np.abs(g))
        return w - lr / (1 - b1 ** t) * s["m"] / (s["v"] + eps)
    return step


def ftrl(lr=0.001, accum=0.1, power=-0.5, l1=0.0, l2=0.0):
    def step(w, g, s, t):
        old = s.get("a", accum)
        s["a"] = old + g * g
        s["u"] = s.get("u", 0) + g - (s["a"] ** -power - old ** -power) / lr * w
        q = s["a"] ** -power / lr + 2 * l2
        return np.where(np.abs(s["u"]) > l1, (np.sign(s["u"]) * l1 - s["u"]) / q, 0)
    return step


def rprop(lr=0.1, etas=(0.5, 1.2), sizes=(1e-6, 50.)):
    def step(w, g, s, t):
        size = np.full_like(w, lr) if t == 1 else s["size"]
        sign = np.sign(g * s.get("prev", 0))
        size = np.clip(size * np.where(sign > 0, etas[1], np.where(sign < 0, etas[0], 1)),
                       *sizes)
        g = np.where(sign < 0, 0, g)
        s["prev"], s["size"] = g, size
        return w - np.sign(g) * size
    return step


def asgd(lr=0.1, lambd=1e-4, alpha=0.75, t0=1e6):
    def step(w, g, s, t):
        eta = lr if t == 1 else s["eta"]
        w = w * (1 - lambd * eta) - eta * g
        s["eta"] = lr / (1 + lambd * lr * t) ** alpha
        return w
    return step


def adam(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, amsgrad=False):
    def step(w, g, s, t):
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
        s["vhat"] = np.maximum(s.get("vhat", 0), s["v"]) if amsgrad else s["v"]
        return w - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * s["m"] / (np.sqrt(s["vhat"]) +
                                                                           eps)
    return step


def lamb(lr=0.1, b1=0.9, b2=0.999, eps=1e-6, wd=0.0):
    def step(w, g, s, t):
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
        r = s["m"] / (1 - b1 ** t) / (np.sqrt(s["v"] / (1 - b2 ** t)) + eps) + wd * w
        wn, rn = np.linalg.norm(w), np.linalg.norm(r)
        return w - lr * (wn / rn if wn > 0 and rn > 0 else 1.0) * r
    return step


CASES = {
    "Adagrad": ("nn.Adagrad(p)", adagrad()),
    "Adagrad_accum": ("nn.Adagrad(p, accum=0.5, learning_rate=0.01)", adagrad(0.01, 0.5)),
    "ProximalAdagrad": ("nn.ProximalAdagrad(p, l1=0.01, l2=0.01)", proximal_adagrad()),
    "Adadelta": ("nn.Adadelta(p)", adadelta()),
    "RMSProp_momentum": ("nn.RMSProp(p, momentum=0.5)", rmsprop(momentum=0.5)),
    "RMSProp_centered": ("nn.RMSProp(p, centered=True)", rmsprop(centered=True)),
    "AdaMax": ("nn.AdaMax(p)", adamax()),
    "FTRL": ("nn.FTRL(p)", ftrl()),
    "FTRL_l1_l2": ("nn.FTRL(p, l1=0.01, l2=0.1)", ftrl(l1=0.01, l2=0.1)),
    "Rprop": ("nn.Rprop(p)", rprop()),
    "ASGD": ("nn.ASGD(p)", asgd()),
    "Adam_amsgrad": ("nn.Adam(p, use_amsgrad=True)", adam(amsgrad=True)),
    "Adam_lazy": ("nn.Adam(p, use_lazy=True)", adam()),
    "Adam_offload": ("nn.Adam(p, use_offload=True)", adam()),
    "LazyAdam": ("nn.LazyAdam(p)", adam()),
    "AdamOffload": ("nn.AdamOffload(p)", adam()),
    "Lamb": ("nn.Lamb(p, 0.1)", lamb()),
    "Lamb_decay": ("nn.Lamb(p, 0.05, beta1=0.8, eps=1e-4, weight_decay=0.1)",
                   lamb(0.05, 0.8, eps=1e-4, wd=0.1)),
}


def run_msc(source):
    net = Net()
    step = nn.TrainOneStepCell(net, eval(source, dict(nn=nn, p=net.trainable_params())))
    for _ in range(STEPS):
        step(Tensor(X))
    return net.w.asnumpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_optimizer_follows_its_rule(name):
    source, rule = CASES[name]
    np.testing.assert_allclose(run_msc(source), run_numpy(rule, {}), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["ProximalAdagrad", "RMSProp_centered", "AdaMax", "FTRL_l1_l2",
                                  "Rprop", "ASGD", "Adam_amsgrad", "Lamb_decay"])
def test_compiled_step_is_the_eager_one(name):
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    source, rule = CASES[name]
    np.testing.assert_allclose(run_msc(source), run_numpy(rule, {}), rtol=1e-5, atol=1e-6)


def test_state_names():
    net = Net()
    p = net.trainable_params()
    opt = nn.RMSProp(p, centered=True)
    assert [q.name for q in (*opt.mg, *opt.ms, *opt.moment)] == \
        ["mean_grad.w", "mean_square.w", "moment.w"]
    assert [q.name for q in nn.Adam(p, use_amsgrad=True).vhat] == ["vhat.w"]
    assert [q.name for q in nn.FTRL(p).moments] == ["moments.w"]
    assert float(nn.Adagrad(p, accum=0.5).accum[0].asnumpy()[0]) == 0.5
    assert [q.name for q in nn.ASGD(p).mu] == ["mu_w"]


def test_argument_errors():
    p = Net().trainable_params()
    with pytest.raises(KeyError, match="use_lazy"):
        nn.Adam(p, use_fast=True)
    with pytest.raises(ValueError, match="use_lazy"):
        nn.Adam(p, use_lazy=True, use_offload=True)
    with pytest.raises(ValueError, match="use_amsgrad"):
        nn.Adam(p, use_amsgrad=True, use_lazy=True)
    with pytest.raises(TypeError, match="etas must be a tuple"):
        nn.Rprop(p, etas=[0.5, 1.2])
    with pytest.raises(ValueError, match="dynamic learning rate"):
        nn.FTRL(p, learning_rate=[0.1, 0.01])


MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the optimizers are checked against numpy above")
def test_optimizers_match_mindspore_itself(tmp_path):
    cases = {k: v[0] for k, v in CASES.items()
             if k != "FTRL_l1_l2" and not k.startswith("Lamb")}  # no Lamb kernel on its CPU
    script = textwrap.dedent(f"""
        import json, numpy as np
        from mindspore import nn, Tensor, Parameter
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor(np.array({W0.tolist()}, np.float32)), name="w")
            def construct(self, x):
                return (self.w * x).sum() + (self.w * self.w).sum() * 0.1
        out = {{}}
        for name, source in {json.dumps(cases)}.items():
            net = Net()
            step = nn.TrainOneStepCell(net, eval(source, dict(nn=nn, p=net.trainable_params())))
            for _ in range({STEPS}):
                step(Tensor(np.array({X.tolist()}, np.float32)))
            out[name] = net.w.asnumpy().tolist()
        print(json.dumps(out))
    """)
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, source in cases.items():
        np.testing.assert_allclose(run_msc(source), theirs[name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)
