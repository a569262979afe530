"""``nn.Adam(use_lazy=True)`` and ``nn.LazyAdam``: the table of an ``nn.EmbeddingLookup``
(whose gradient MindSpore makes a RowTensor) updates only the rows each step's indices
touch; every other Parameter (and a table gathered densely, ``nn.Embedding``) takes the
dense step, written as MindSpore's CPU ``Adam`` kernel computes it. Three steps with
different indices, eagerly and compiled, against numpy, and against MindSpore itself
where ``.peers/ms`` is installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
rng = np.random.default_rng(0)
T0 = rng.standard_normal((6, 3)).astype(np.float32)
W0 = rng.standard_normal((3, 2)).astype(np.float32)
Y = rng.standard_normal((4, 2)).astype(np.float32)
IDS = [[0, 2, 3, 5], [1, 2, 4, 5], [0, 1, 3, 4]]  # each step leaves rows untouched
LR, B1, B2, EPS = 0.1, 0.9, 0.999, 1e-8


class Net(nn.Cell):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        if kind == "lookup":
            self.emb = nn.EmbeddingLookup(6, 3, param_init=Tensor(T0))
        else:
            self.emb = nn.Embedding(6, 3, embedding_table=Tensor(T0))
        self.w = Parameter(Tensor(W0), name="w")

    def construct(self, ids, y):
        return ((ops.matmul(self.emb(ids), self.w) - y) ** 2).mean()


def _numpy_adam(lazy_table):
    """Adam on (table, w) from hand-written gradients; ``lazy_table``: the table's
    untouched rows keep their moments and values."""
    p = [T0.astype(np.float64), W0.astype(np.float64)]
    m, v = [np.zeros_like(x) for x in p], [np.zeros_like(x) for x in p]
    losses = []
    for t, ids in enumerate(IDS, 1):
        e = p[0][ids]
        err = e @ p[1] - Y
        losses.append((err ** 2).mean())
        d_out = 2 * err / err.size
        g_table = np.zeros_like(p[0])
        np.add.at(g_table, ids, d_out @ p[1].T)
        grads = [g_table, e.T @ d_out]
        step = LR * np.sqrt(1 - B2 ** t) / (1 - B1 ** t)
        for k, g in enumerate(grads):
            rows = np.any(g != 0, axis=1, keepdims=True) if k == 0 and lazy_table else True
            new_m, new_v = B1 * m[k] + (1 - B1) * g, B2 * v[k] + (1 - B2) * g * g
            p[k] = np.where(rows, p[k] - step * new_m / (np.sqrt(new_v) + EPS), p[k])
            m[k], v[k] = np.where(rows, new_m, m[k]), np.where(rows, new_v, v[k])
    return losses, p


def _train(kind, make_optimizer, mode):
    net = Net(kind)
    step = nn.TrainOneStepCell(net, make_optimizer(net.trainable_params()))
    if mode != "eager":
        ms.set_context(mode=ms.GRAPH_MODE, jit_target=mode)
    try:
        losses = [float(step(Tensor(np.array(i, np.int32)), Tensor(Y)).asnumpy()) for i in IDS]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, [net.emb.embedding_table.asnumpy(), net.w.asnumpy()]


OPTIMIZERS = {
    "lazy": lambda p: nn.Adam(p, learning_rate=LR, use_lazy=True),
    "dense": lambda p: nn.Adam(p, learning_rate=LR),
    "LazyAdam": lambda p: nn.LazyAdam(p, learning_rate=LR),
}


@pytest.mark.parametrize("mode", ["eager", "numba", "python"])
@pytest.mark.parametrize("kind", ["lookup", "embedding"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_lazy_adam_updates_the_rows_a_sparse_gradient_touches(mode, kind, name):
    losses, params = _train(kind, OPTIMIZERS[name], mode)
    want_losses, want = _numpy_adam(lazy_table=name != "dense" and kind == "lookup")
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    for got, ref in zip(params, want):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_lazy_and_dense_steps_differ_where_rows_are_untouched():
    lazy = _train("lookup", OPTIMIZERS["lazy"], "eager")[1][0]
    dense = _train("lookup", OPTIMIZERS["dense"], "eager")[1][0]
    assert not np.allclose(lazy, dense)  # the moments move untouched rows in dense Adam


SCRIPT = r'''
import json, numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter
ms.set_context(mode=ms.GRAPH_MODE)
data = json.loads(open("data.json").read())
T0, W0, Y = (np.array(x, np.float32) for x in data[:3])
IDS = data[3]
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingLookup(6, 3, param_init=Tensor(T0))
        self.w = Parameter(Tensor(W0), name="w")
    def construct(self, ids, y):
        return ((ops.matmul(self.emb(ids), self.w) - y) ** 2).mean()
out = {}
for name in ("lazy", "dense", "LazyAdam"):
    net = Net()
    p = net.trainable_params()
    opt = nn.LazyAdam(p, learning_rate=0.1) if name == "LazyAdam" else \
        nn.Adam(p, learning_rate=0.1, use_lazy=name == "lazy")
    step = nn.TrainOneStepCell(net, opt)
    losses = [float(step(Tensor(np.array(i, np.int32)), Tensor(Y)).asnumpy()) for i in IDS]
    out[name] = {"losses": losses, "params": [net.emb.embedding_table.asnumpy().tolist(),
                                              net.w.asnumpy().tolist()]}
print(json.dumps(out))
'''


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "lazy Adam is checked against numpy above")
def test_lazy_adam_matches_mindspore_itself(tmp_path):
    (tmp_path / "data.json").write_text(json.dumps([T0.tolist(), W0.tolist(), Y.tolist(), IDS]))
    (tmp_path / "train.py").write_text(SCRIPT)  # MindSpore's graph mode reads the file
    proc = subprocess.run([str(MINDSPORE), "train.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, make in OPTIMIZERS.items():
        losses, params = _train("lookup", make, "numba")
        np.testing.assert_allclose(losses, theirs[name]["losses"], rtol=1e-6, err_msg=name)
        for got, ref in zip(params, theirs[name]["params"]):
            np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7, err_msg=name)
