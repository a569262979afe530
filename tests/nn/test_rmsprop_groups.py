"""``nn.RMSProp`` as MindCV's EfficientNet recipe builds it: parameter groups with and
without weight decay, ``centered=False``, ``epsilon=1e-3``, a loss scale (the gradients
arrive scaled by ``sens``), trained three steps eagerly and compiled, against numpy
written from MindSpore's source (``nn/optim/rmsprop.py``, ``Optimizer.decay_weight``
before ``scale_grad``, and the CPU kernel ``nnacl/fp32/rmsprop_fp32.c``, whose 8-wide
loop adds epsilon outside the square root and whose scalar tail inside it), and against
MindSpore itself where ``.peers/ms`` is installed."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
rng = np.random.default_rng(3)
SHAPES = {"w1": (4, 4), "b1": (4,), "w2": (4, 5), "b2": (5,)}  # 16, 4, 20 and 5 elements
INIT = {k: (rng.standard_normal(s) * 0.5).astype(np.float32) for k, s in SHAPES.items()}
X = rng.standard_normal((6, 4)).astype(np.float32)
Y = rng.standard_normal((6, 5)).astype(np.float32)
LR, DECAY, MOMENTUM, EPS, WD, SCALE, STEPS = 0.01, 0.9, 0.9, 1e-3, 1e-2, 1024.0, 3


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        for k, v in INIT.items():
            setattr(self, k, Parameter(Tensor(v.copy()), name=k))

    def construct(self, x, y):
        h = ops.tanh(ops.matmul(x, self.w1) + self.b1)
        return ((ops.matmul(h, self.w2) + self.b2 - y) ** 2).mean()


def _optimizer(net):
    groups = [{"params": [net.w1, net.w2], "weight_decay": WD},
              {"params": [net.b1, net.b2]}]
    return nn.RMSProp(groups, learning_rate=LR, decay=DECAY, momentum=MOMENTUM, epsilon=EPS,
                      centered=False, loss_scale=SCALE)


def _numpy_grads(p):
    """The loss and its gradients, by hand (float64)."""
    pre = X @ p["w1"] + p["b1"]
    h = np.tanh(pre)
    err = h @ p["w2"] + p["b2"] - Y
    d_out = 2 * err / err.size
    d_pre = d_out @ p["w2"].T * (1 - h * h)
    return (err ** 2).mean(), {"w2": h.T @ d_out, "b2": d_out.sum(0), "w1": X.T @ d_pre,
                               "b1": d_pre.sum(0)}


def _denominator(ms_):
    """sqrt(ms) + eps on the leading multiple of 8 elements, sqrt(ms + eps) on the rest."""
    flat = ms_.reshape(-1)
    whole = flat.size // 8 * 8
    out = np.sqrt(flat + EPS)
    out[:whole] = np.sqrt(flat[:whole]) + EPS
    return out.reshape(ms_.shape)


def _numpy_training():
    p = {k: v.astype(np.float64) for k, v in INIT.items()}
    mean_sq = {k: np.ones_like(v) for k, v in p.items()}
    mom = {k: np.zeros_like(v) for k, v in p.items()}
    losses = []
    for _ in range(STEPS):
        loss, grads = _numpy_grads(p)
        losses.append(loss)
        for k in p:
            g = grads[k] * SCALE  # what the train step's sens gives
            if k.startswith("w"):
                g = g + WD * SCALE * p[k]  # the decay, scaled, before the unscaling
            g = g / SCALE
            mean_sq[k] = mean_sq[k] + (g * g - mean_sq[k]) * (1 - DECAY)
            mom[k] = mom[k] * MOMENTUM + g * LR / _denominator(mean_sq[k])
            p[k] = p[k] - mom[k]
    return losses, p


@pytest.mark.parametrize("mode", ["eager", "numba", "python"])
def test_grouped_rmsprop_with_loss_scale_follows_mindspore_source(mode):
    net = Net()
    step = nn.TrainOneStepCell(net, _optimizer(net), sens=SCALE)
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        losses = [float(step(Tensor(X), Tensor(Y)).asnumpy()) for _ in range(STEPS)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    want_losses, want = _numpy_training()
    np.testing.assert_allclose(losses, want_losses, rtol=2e-6)
    for k in SHAPES:
        np.testing.assert_allclose(getattr(net, k).asnumpy(), want[k], rtol=1e-5, atol=1e-6,
                                   err_msg=k)


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "RMSProp is checked against numpy from its source above")
def test_grouped_rmsprop_matches_mindspore_itself(tmp_path):
    script = textwrap.dedent(f"""
        import json, numpy as np
        import mindspore as ms
        from mindspore import nn, ops, Tensor, Parameter
        ms.set_context(mode=ms.GRAPH_MODE)
        init = {json.dumps({k: v.tolist() for k, v in INIT.items()})}
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                for k, v in init.items():
                    setattr(self, k, Parameter(Tensor(np.array(v, np.float32)), name=k))
            def construct(self, x, y):
                h = ops.tanh(ops.matmul(x, self.w1) + self.b1)
                return ((ops.matmul(h, self.w2) + self.b2 - y) ** 2).mean()
        net = Net()
        groups = [{{"params": [net.w1, net.w2], "weight_decay": {WD}}},
                  {{"params": [net.b1, net.b2]}}]
        opt = nn.RMSProp(groups, learning_rate={LR}, decay={DECAY}, momentum={MOMENTUM},
                         epsilon={EPS}, centered=False, loss_scale={SCALE})
        step = nn.TrainOneStepCell(net, opt, sens={SCALE})
        x = Tensor(np.array({X.tolist()}, np.float32))
        y = Tensor(np.array({Y.tolist()}, np.float32))
        losses = [float(step(x, y).asnumpy()) for _ in range({STEPS})]
        print(json.dumps({{"losses": losses,
                           "params": {{k: getattr(net, k).asnumpy().tolist() for k in init}}}}))
    """)
    (tmp_path / "train.py").write_text(script)  # MindSpore's graph mode reads the file
    proc = subprocess.run([str(MINDSPORE), "train.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    net = Net()
    step = nn.TrainOneStepCell(net, _optimizer(net), sens=SCALE)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        losses = [float(step(Tensor(X), Tensor(Y)).asnumpy()) for _ in range(STEPS)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(losses, theirs["losses"], rtol=1e-6)
    for k in SHAPES:
        np.testing.assert_allclose(getattr(net, k).asnumpy(), theirs["params"][k], rtol=1e-5,
                                   atol=1e-6, err_msg=k)
