"""Optimizers and train steps: msc's ``nn.TrainOneStepCell`` with each optimizer against
the update rules written out in numpy, eagerly and compiled on both targets, and against
MindSpore 2.10 itself where it is installed."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn

X = np.array([3.0, 4.0], np.float32)
W0, G0 = np.array([1.0, -2.0]), np.array([0.5])
STEPS = 3


class Net(nn.Cell):
    """loss = w . x + sum(gamma * x): d/dw = x, d/dgamma = sum(x); "gamma" is not decayed."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W0.astype(np.float32)), name="w")
        self.gamma = Parameter(Tensor(G0.astype(np.float32)), name="gamma")

    def construct(self, x):
        return (self.w * x).sum() + (self.gamma * x).sum()


OPTIMIZERS = {
    "Momentum": lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=0.01),
    "Momentum-nesterov": lambda p: nn.Momentum(p, 0.05, 0.8, use_nesterov=True, loss_scale=2.0),
    "SGD": lambda p: nn.SGD(p, 0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
    "SGD-plain": lambda p: nn.SGD(p, Tensor(np.float32(0.2))),
    "Adam": lambda p: nn.Adam(p, 0.1, weight_decay=0.01),
    "AdamWeightDecay": lambda p: nn.AdamWeightDecay(p, 0.1, weight_decay=0.01),
}


def numpy_steps(name):
    """The weights after each step, by the update rules (float64)."""
    ws, out = [W0.copy(), G0.copy()], []
    grads = [X.astype(np.float64), np.array([X.sum()], np.float64)]
    decays = [True, False]
    state = [[np.zeros_like(w) for w in ws] for _ in range(2)]
    for t in range(1, STEPS + 1):
        for i, (w, g, decay) in enumerate(zip(ws, grads, decays)):
            m, v = state[0][i], state[1][i]
            if name == "Momentum":
                g = g + 0.01 * w if decay else g
                m[:] = 0.9 * m + g
                w -= 0.1 * m
            elif name == "Momentum-nesterov":
                g = g / 2.0
                m[:] = 0.8 * m + g
                w -= 0.05 * (g + 0.8 * m)
            elif name == "SGD":
                g = g + 0.01 * w if decay else g
                m[:] = g if t == 1 else 0.9 * m + 0.9 * g
                w -= 0.1 * m
            elif name == "SGD-plain":
                w -= 0.2 * g
            elif name == "Adam":
                g = g + 0.01 * w if decay else g
                m[:] = 0.9 * m + 0.1 * g
                v[:] = 0.999 * v + 0.001 * g * g
                lr = 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
                w -= lr * m / (np.sqrt(v) + 1e-8)
            elif name == "AdamWeightDecay":
                m[:] = 0.9 * m + 0.1 * g
                v[:] = 0.999 * v + 0.001 * g * g
                w -= 0.1 * (m / (np.sqrt(v) + 1e-6) + (0.01 * w if decay else 0))
        out.append([w.copy() for w in ws])
    return out


def msc_steps(name):
    net = Net()
    step = nn.TrainOneStepCell(net, OPTIMIZERS[name](net.trainable_params()))
    out = []
    for _ in range(STEPS):
        loss = step(Tensor(X))
        assert loss.dtype == ms.float32 and loss.shape == ()
        out.append([net.w.asnumpy().copy(), net.gamma.asnumpy().copy()])
    return out


@pytest.mark.parametrize("mode, target", [(ms.PYNATIVE_MODE, "numba"),
                                          (ms.GRAPH_MODE, "numba"), (ms.GRAPH_MODE, "python")])
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_each_optimizer_follows_its_update_rule(name, mode, target):
    ms.set_context(mode=mode, jit_target=target)
    for got, want in zip(msc_steps(name), numpy_steps(name)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)


def test_state_names_are_mindspores():
    net = Net()
    names = {n: sorted(p.name for p in make(net.trainable_params()).get_parameters())
             for n, make in OPTIMIZERS.items()}
    assert names["Momentum"] == ["gamma", "global_step", "learning_rate", "moments.gamma",
                                 "moments.w", "momentum", "w"]
    assert names["Adam"] == ["beta1_power", "beta2_power", "gamma", "global_step",
                             "learning_rate", "moment1.gamma", "moment1.w", "moment2.gamma",
                             "moment2.w", "w"]
    assert "adam_m.w" in names["AdamWeightDecay"] and "stat.w" in names["SGD"]


def test_bad_optimizer_arguments():
    net = Net()
    with pytest.raises(ValueError):
        nn.Momentum([], 0.1, 0.9)
    with pytest.raises(ValueError):
        nn.Adam(net.trainable_params(), beta1=1.5)
    with pytest.raises(ValueError):
        nn.SGD(net.trainable_params(), nesterov=True)
    with pytest.raises(TypeError):
        nn.Momentum(net.trainable_params(), "fast", 0.9)


class Regression(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([[0.1], [-0.2], [0.3]], np.float32)), name="w")
        self.b = Parameter(Tensor(np.zeros(1, np.float32)), name="b")

    def construct(self, x):
        return ops_matmul(x, self.w) + self.b


def ops_matmul(x, w):
    return (x[:, :, None] * w[None, :, :]).sum(1)  # element-wise ops only


def mse(out, label):
    return ((out - label) ** 2).mean()


def test_a_with_loss_cell_trains_and_eager_equals_compiled():
    """The same loss curve eagerly and compiled; the loss falls."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)
    curves = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = Regression()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, mse),
                                   nn.Momentum(net.trainable_params(), 0.05, 0.9))
        curves[mode] = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(20)]
    np.testing.assert_allclose(curves[ms.GRAPH_MODE], curves[ms.PYNATIVE_MODE], rtol=1e-4)
    assert curves[ms.GRAPH_MODE][-1] < 0.2 * curves[ms.GRAPH_MODE][0]


def test_forward_value_and_grad():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    loss, grads = nn.ForwardValueAndGrad(net, net.trainable_params(),
                                         get_by_list=True)(Tensor(X))
    np.testing.assert_allclose(loss.asnumpy(), W0 @ X + G0[0] * X.sum(), rtol=1e-6)
    np.testing.assert_allclose(grads[0].asnumpy(), X)
    np.testing.assert_allclose(grads[1].asnumpy(), [X.sum()])


MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms "
                    "(see the notes on peers); msc is checked against numpy above")
def test_msc_matches_mindspore_itself(tmp_path):
    script = textwrap.dedent(f"""
        import json, numpy as np, mindspore as ms
        from mindspore import nn, Tensor, Parameter
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor(np.array({W0.tolist()}, np.float32)), name="w")
                self.gamma = Parameter(Tensor(np.array({G0.tolist()}, np.float32)), name="gamma")
            def construct(self, x):
                return (self.w * x).sum() + (self.gamma * x).sum()
        makers = {{
            "Momentum": lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=0.01),
            "SGD": lambda p: nn.SGD(p, 0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
            "Adam": lambda p: nn.Adam(p, 0.1, weight_decay=0.01),
            "AdamWeightDecay": lambda p: nn.AdamWeightDecay(p, 0.1, weight_decay=0.01)}}
        out = {{}}
        for name, make in makers.items():
            net = Net()
            step = nn.TrainOneStepCell(net, make(net.trainable_params()))
            out[name] = []
            for _ in range({STEPS}):
                step(Tensor(np.array({X.tolist()}, np.float32)))
                out[name].append([net.w.asnumpy().tolist(), net.gamma.asnumpy().tolist()])
        print(json.dumps(out))
    """)
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    ms.set_context(mode=ms.GRAPH_MODE)
    for name, steps in theirs.items():
        for got, want in zip(msc_steps(name), steps):
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=5e-5, atol=1e-6, err_msg=name)
