"""Batch, group and layer normalisation and embeddings: eagerly and compiled on both
targets against numpy written here, training-mode statistics and their moving averages,
a train step through BatchNorm against a hand-written backward pass, and (optionally)
against MindSpore 2.10 itself."""

from __future__ import annotations

import json
import re
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, ParameterTuple, Tensor, nn, ops
from msc.compiler import build
from msc.ir import dtypes
from msc.ir.printer import print_module
from msc.ir.types import TensorType

RNG = np.random.default_rng(7)
MODES = [(ms.PYNATIVE_MODE, "numba"), (ms.GRAPH_MODE, "numba"), (ms.GRAPH_MODE, "python")]
MODE_IDS = ["pynative", "graph-numba", "graph-python"]


def _x(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _close(got, want, rtol=2e-5, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


class Wrap(nn.Cell):
    """Calls ``fn`` on the inputs inside a construct (compiled in GRAPH_MODE)."""

    def __init__(self, fn, *cells):
        super().__init__()
        self.fn = fn
        self.cells = nn.CellList(list(cells))

    def construct(self, *xs):
        return self.fn(*xs)


# --- numpy references ---------------------------------------------------------------------


def _per_channel(v, ndim):
    return np.reshape(v, (1, -1) + (1,) * (ndim - 2))


def np_batch_norm(x, gamma, beta, mean, var, eps):
    x64 = x.astype(np.float64)
    return (x64 - _per_channel(mean, x.ndim)) / np.sqrt(_per_channel(var, x.ndim) + eps) \
        * _per_channel(gamma, x.ndim) + _per_channel(beta, x.ndim)


def np_batch_stats(x):
    axes = (0,) + tuple(range(2, x.ndim))
    n = x.size // x.shape[1]
    return x.mean(axes, dtype=np.float64), x.var(axes, dtype=np.float64), \
        x.var(axes, dtype=np.float64) * n / (n - 1)


# --- BatchNorm layers ------------------------------------------------------------------------


class BNNet(nn.Cell):
    def __init__(self, bn):
        super().__init__()
        self.bn = bn

    def construct(self, x):
        return self.bn(x)


BN_CASES = [(nn.BatchNorm1d, (6, 3)), (nn.BatchNorm1d, (4, 3, 5)), (nn.BatchNorm2d, (2, 3, 4, 2)),
            (nn.BatchNorm3d, (2, 3, 2, 3, 2))]


def _moving(bn):
    inner = bn.bn2d if isinstance(bn, nn.BatchNorm3d) else bn
    return inner.moving_mean.asnumpy(), inner.moving_variance.asnumpy()


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("cls, shape", BN_CASES, ids=lambda c: getattr(c, "__name__", str(c)))
def test_batch_norm_training_moves_statistics_and_eval_uses_them(cls, shape, mode, target):
    ms.set_context(mode=mode, jit_target=target)
    gamma, beta = _x(3) + 1, _x(3)
    net = BNNet(cls(3, eps=1e-3, momentum=0.8, gamma_init=Tensor(gamma),
                    beta_init=Tensor(beta))).set_train()
    mean, var = np.zeros(3), np.ones(3)
    for _ in range(3):
        x = _x(*shape) * 2 + 0.5
        out = net(Tensor(x))
        assert out.dtype == ms.float32 and out.shape == shape
        batch_mean, batch_var, unbiased = np_batch_stats(x)
        _close(out.asnumpy(), np_batch_norm(x, gamma, beta, batch_mean, batch_var, 1e-3),
               rtol=1e-4, atol=1e-4)
        mean, var = 0.8 * mean + 0.2 * batch_mean, 0.8 * var + 0.2 * unbiased
        _close(_moving(net.bn)[0], mean)
        _close(_moving(net.bn)[1], var)
    net.set_train(False)  # the training flag is a constant of the graph: this recompiles
    x = _x(*shape)
    _close(net(Tensor(x)).asnumpy(), np_batch_norm(x, gamma, beta, mean, var, 1e-3),
           rtol=1e-4, atol=1e-4)
    _close(_moving(net.bn)[0], mean)  # inference leaves the statistics alone


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
def test_use_batch_statistics_overrides_the_training_flag(mode, target):
    ms.set_context(mode=mode, jit_target=target)
    x = _x(5, 2)
    always = BNNet(nn.BatchNorm1d(2, use_batch_statistics=True))  # not in training mode
    m, v, unbiased = np_batch_stats(x)
    _close(always(Tensor(x)).asnumpy(), np_batch_norm(x, 1, 0, m, v, 1e-5), atol=1e-4)
    _close(_moving(always.bn)[1], 0.9 + 0.1 * unbiased)
    never = BNNet(nn.BatchNorm1d(2, use_batch_statistics=False,
                                 moving_mean_init=Tensor(np.float32([1, 2])))).set_train()
    _close(never(Tensor(x)).asnumpy(), np_batch_norm(x, 1, 0, [1, 2], [1, 1], 1e-5),
           atol=1e-4)
    _close(_moving(never.bn)[0], [1, 2])


def test_batch_norm_float16_input_and_float16_parameters():
    x = _x(4, 3)
    out = nn.BatchNorm1d(3).set_train()(Tensor(x.astype(np.float16)))
    assert out.dtype == ms.float16
    m, v, _ = np_batch_stats(x.astype(np.float16).astype(np.float32))
    _close(out.asnumpy().astype(np.float32),
           np_batch_norm(x.astype(np.float16), 1, 0, m, v, 1e-5), rtol=3e-3, atol=3e-3)
    bn = nn.BatchNorm1d(3, dtype=ms.float16).set_train()
    assert bn.gamma.dtype == ms.float16 and bn(Tensor(x)).dtype == ms.float32
    assert bn.moving_mean.dtype == ms.float16


def test_batch_norm_parameter_names_and_defaults():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(4, affine=False)
            self.seq = nn.SequentialCell([nn.BatchNorm3d(2)])

        def construct(self, x):
            return x

    net = Net()
    assert [(p.name, p.requires_grad) for p in net.get_parameters()] == [
        ("bn.moving_mean", False), ("bn.moving_variance", False), ("bn.gamma", False),
        ("bn.beta", False), ("seq.0.bn2d.moving_mean", False),
        ("seq.0.bn2d.moving_variance", False), ("seq.0.bn2d.gamma", True),
        ("seq.0.bn2d.beta", True)]
    assert not net.training and net.set_train().training and net.bn.training
    bn = nn.BatchNorm1d(3)
    assert (bn.gamma.asnumpy() == 1).all() and (bn.beta.asnumpy() == 0).all()
    assert (bn.moving_mean.asnumpy() == 0).all() and (bn.moving_variance.asnumpy() == 1).all()
    assert abs(bn.momentum - 0.1) < 1e-12  # MindSpore keeps 1 - momentum here
    assert "momentum=0.9" in repr(bn)


def test_batch_norm_argument_errors():
    with pytest.raises(TypeError, match="num_features"):
        nn.BatchNorm1d(3.0)
    with pytest.raises(TypeError, match="num_features"):
        nn.BatchNorm1d(True)
    with pytest.raises(ValueError, match="num_features"):
        nn.BatchNorm1d(0)
    with pytest.raises(ValueError, match="momentum"):
        nn.BatchNorm1d(3, momentum=1.5)
    with pytest.raises(TypeError, match="momentum"):
        nn.BatchNorm1d(3, momentum="a")
    with pytest.raises(ValueError, match="use_batch_statistics"):
        nn.BatchNorm1d(3, use_batch_statistics=1)
    with pytest.raises(ValueError, match="NHWC"):
        nn.BatchNorm2d(3, data_format="NHWC")
    with pytest.raises(ValueError, match="format"):
        nn.BatchNorm2d(3, data_format="NCW")
    with pytest.raises(TypeError, match="eps"):
        nn.BatchNorm1d(3, eps=0)
    with pytest.raises(ValueError, match="eps"):
        nn.BatchNorm1d(3, eps=2.0)
    with pytest.raises(ValueError, match="gamma_init"):
        nn.BatchNorm1d(3, gamma_init=Tensor(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="2 or 3 dims"):
        nn.BatchNorm1d(3)(Tensor(_x(2, 3, 4, 4)))
    with pytest.raises(ValueError, match="4 dims"):
        nn.BatchNorm2d(3)(Tensor(_x(2, 3)))
    with pytest.raises(ValueError, match="5 dims"):
        nn.BatchNorm3d(3)(Tensor(_x(2, 3, 4, 4)))
    with pytest.raises(ValueError, match="channel"):
        nn.BatchNorm1d(4)(Tensor(_x(2, 3)))
    with pytest.raises(TypeError, match="Float16"):
        nn.BatchNorm1d(3)(Tensor(np.zeros((2, 3), np.int32)))


def test_batch_norm_errors_in_a_graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match="4 dims"):
        BNNet(nn.BatchNorm2d(3))(Tensor(_x(2, 3)))


# --- ops.batch_norm and ops.BatchNorm -----------------------------------------------------


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
def test_ops_batch_norm_inference_and_training(mode, target):
    ms.set_context(mode=mode, jit_target=target)
    x, g, b = _x(4, 3, 2), _x(3), _x(3)
    rm, rv = _x(3), np.abs(_x(3)) + 0.5
    fn = Wrap(lambda x, m, v, g, b: ops.batch_norm(x, m, v, g, b, eps=1e-4))
    _close(fn(Tensor(x), Tensor(rm), Tensor(rv), Tensor(g), Tensor(b)).asnumpy(),
           np_batch_norm(x, g, b, rm, rv, 1e-4), atol=1e-4)

    class Train(nn.Cell):
        def __init__(self):
            super().__init__()
            self.m, self.v = Parameter(Tensor(rm), name="m"), Parameter(Tensor(rv), name="v")
            self.g, self.b = Parameter(Tensor(g), name="g"), Parameter(Tensor(b), name="b")

        def construct(self, x):
            return ops.batch_norm(x, self.m, self.v, self.g, self.b, True, 0.25, 1e-4)

    net = Train()
    out = net(Tensor(x))
    mean, var, unbiased = np_batch_stats(x)
    _close(out.asnumpy(), np_batch_norm(x, g, b, mean, var, 1e-4), atol=1e-4)
    _close(net.m.asnumpy(), 0.75 * rm + 0.25 * mean)
    _close(net.v.asnumpy(), 0.75 * rv + 0.25 * unbiased)


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
def test_batch_norm_primitive_returns_five_outputs(mode, target):
    ms.set_context(mode=mode, jit_target=target)
    x, g, b = _x(5, 2), _x(2), _x(2)
    params = [Parameter(Tensor(v), name=n) for v, n in
              ((g, "g"), (b, "b"), (np.zeros(2, np.float32), "m"), (np.ones(2, np.float32), "v"))]
    train = Wrap(lambda x: ops.BatchNorm(is_training=True, epsilon=1e-3, momentum=0.2)(
        x, *params))
    outs = train(Tensor(x))
    assert len(outs) == 5 and all(o.dtype == ms.float32 for o in outs)
    mean, var, unbiased = np_batch_stats(x)
    _close(outs[0].asnumpy(), np_batch_norm(x, g, b, mean, var, 1e-3), atol=1e-4)
    _close(outs[3].asnumpy(), mean)  # reserve spaces: batch mean and biased variance
    _close(outs[4].asnumpy(), var)
    assert not outs[1].asnumpy().any() and not outs[2].asnumpy().any()  # as on CPU
    _close(params[2].asnumpy(), 0.2 * mean)
    _close(params[3].asnumpy(), 0.8 + 0.2 * unbiased)
    infer = Wrap(lambda x: ops.BatchNorm()(x, *params))
    outs = infer(Tensor(x))
    _close(outs[0].asnumpy(), np_batch_norm(x, g, b, 0.2 * mean, 0.8 + 0.2 * unbiased, 1e-5),
           atol=1e-4)
    assert all(not o.asnumpy().any() for o in outs[1:])


def test_batch_norm_primitive_errors():
    t = Tensor(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="epsilon"):
        ops.BatchNorm(epsilon=0.0)
    with pytest.raises(TypeError, match="epsilon"):
        ops.BatchNorm(epsilon=1)
    with pytest.raises(ValueError, match="momentum"):
        ops.BatchNorm(momentum=1.5)
    with pytest.raises(TypeError, match="is_training"):
        ops.BatchNorm(is_training=1)
    with pytest.raises(ValueError, match="data_format"):
        ops.BatchNorm(data_format="xx")
    with pytest.raises(TypeError, match="Float32"):
        ops.BatchNorm()(Tensor(np.ones((2, 3))), t, t, t, t)  # float64
    with pytest.raises(ValueError, match="rank"):
        ops.BatchNorm()(Tensor(np.ones((2, 3, 1, 1, 1), np.float32)), t, t, t, t)
    with pytest.raises(ValueError, match="variance"):
        ops.BatchNorm()(Tensor(np.ones((2, 3), np.float32)), t, t, t, t[:2])
    with pytest.raises(TypeError, match="training"):
        ops.batch_norm(Tensor(np.ones((2, 3), np.float32)), t, t, t, t, training=1)


# --- a train step through BatchNorm1d --------------------------------------------------------


class MLP(nn.Cell):
    def __init__(self, w1, b1, w2):
        super().__init__()
        self.fc1 = nn.Dense(3, 4, weight_init=Tensor(w1), bias_init=Tensor(b1))
        self.bn = nn.BatchNorm1d(4, momentum=0.7)
        self.fc2 = nn.Dense(4, 1, weight_init=Tensor(w2), bias_init="zeros")

    def construct(self, x):
        return self.fc2(self.bn(self.fc1(x)))


def numpy_train(x, t, w1, b1, w2, steps, lr, eps=1e-5):
    """SGD on mean((fc2(bn(fc1(x))) - t)**2), the backward pass written out."""
    w1, b1, w2 = w1.astype(np.float64), b1.astype(np.float64), w2.astype(np.float64)
    b2, gamma, beta = np.zeros(1), np.ones(4), np.zeros(4)
    mm, mv = np.zeros(4), np.ones(4)
    n = x.shape[0]
    for _ in range(steps):
        h = x @ w1.T + b1
        mu, var = h.mean(0), h.var(0)
        r = 1 / np.sqrt(var + eps)
        hn = (h - mu) * r
        z = gamma * hn + beta
        out = z @ w2.T + b2
        dout = 2 * (out - t) / out.size
        dw2, db2 = dout.T @ z, dout.sum(0)
        dz = dout @ w2
        dgamma, dbeta = (dz * hn).sum(0), dz.sum(0)
        dhn = dz * gamma
        dh = r * (dhn - dhn.mean(0) - hn * (dhn * hn).mean(0))
        dw1, db1 = dh.T @ x, dh.sum(0)
        mm, mv = 0.7 * mm + 0.3 * mu, 0.7 * mv + 0.3 * var * n / (n - 1)
        w1, b1, w2, b2 = w1 - lr * dw1, b1 - lr * db1, w2 - lr * dw2, b2 - lr * db2
        gamma, beta = gamma - lr * dgamma, beta - lr * dbeta
    return {"fc1.weight": w1, "fc1.bias": b1, "fc2.weight": w2, "fc2.bias": b2,
            "bn.gamma": gamma, "bn.beta": beta, "bn.moving_mean": mm, "bn.moving_variance": mv}


TRAIN_DATA = {"x": _x(8, 3), "t": _x(8, 1), "w1": _x(4, 3), "b1": _x(4), "w2": _x(1, 4)}


def msc_train(steps, lr):
    d = TRAIN_DATA
    net = MLP(d["w1"], d["b1"], d["w2"]).set_train()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), lr))
    for _ in range(steps):
        step(Tensor(d["x"]), Tensor(d["t"]))
    return {p.name: p.asnumpy() for p in net.get_parameters()}


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
def test_train_step_through_batch_norm_matches_numpy_backprop(mode, target):
    ms.set_context(mode=mode, jit_target=target)
    d = TRAIN_DATA
    want = numpy_train(d["x"], d["t"], d["w1"], d["b1"], d["w2"], 3, 0.1)
    got = msc_train(3, 0.1)
    assert set(got) == set(want)
    for name, value in want.items():
        _close(got[name], value, rtol=1e-4, atol=1e-5)


MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "msc is checked against numpy above")
def test_train_step_matches_mindspore_itself(tmp_path):
    data = {k: v.tolist() for k, v in TRAIN_DATA.items()}
    script = textwrap.dedent(f"""
        import json, numpy as np, mindspore as ms
        from mindspore import nn, Tensor
        d = {{k: np.array(v, np.float32) for k, v in json.loads({json.dumps(data)!r}).items()}}
        class MLP(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(3, 4, weight_init=Tensor(d["w1"]), bias_init=Tensor(d["b1"]))
                self.bn = nn.BatchNorm1d(4, momentum=0.7)
                self.fc2 = nn.Dense(4, 1, weight_init=Tensor(d["w2"]), bias_init="zeros")
            def construct(self, x):
                return self.fc2(self.bn(self.fc1(x)))
        net = MLP()
        net.set_train()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                   nn.SGD(net.trainable_params(), 0.1))
        for _ in range(3):
            step(Tensor(d["x"]), Tensor(d["t"]))
        print(json.dumps({{p.name: p.asnumpy().tolist() for p in net.get_parameters()}}))
    """)
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    ms.set_context(mode=ms.GRAPH_MODE)
    ours = msc_train(3, 0.1)
    assert set(ours) == set(theirs)
    for name, value in theirs.items():
        _close(ours[name], np.array(value, np.float32), rtol=1e-4, atol=1e-5)


# --- GroupNorm and LayerNorm -----------------------------------------------------------------


def np_group_norm(x, groups, gamma, beta, eps):
    rows = x.reshape(x.shape[0], groups, -1).astype(np.float64)
    normed = (rows - rows.mean(-1, keepdims=True)) / np.sqrt(rows.var(-1, keepdims=True) + eps)
    return normed.reshape(x.shape) * _per_channel(gamma, x.ndim) + _per_channel(beta, x.ndim)


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("shape", [(2, 4), (2, 4, 3), (3, 4, 2, 2)])
def test_group_norm(shape, mode, target):
    ms.set_context(mode=mode, jit_target=target)
    x, g, b = _x(*shape), _x(4), _x(4)
    net = nn.GroupNorm(2, 4, eps=1e-4, gamma_init=Tensor(g), beta_init=Tensor(b))
    _close(BNNet(net)(Tensor(x)).asnumpy(), np_group_norm(x, 2, g, b, 1e-4), atol=1e-4)
    fn = Wrap(lambda x: ops.group_norm(x, 4))
    _close(fn(Tensor(x)).asnumpy(), np_group_norm(x, 4, np.ones(4), np.zeros(4), 1e-5),
           atol=1e-4)


def test_group_norm_dtypes_names_and_errors():
    x = _x(2, 4, 3)
    assert ops.group_norm(Tensor(x.astype(np.float64)), 2).dtype == ms.float64
    assert nn.GroupNorm(2, 4, dtype=ms.float16)(Tensor(x)).dtype == ms.float32
    assert [(p.name, p.requires_grad) for p in nn.GroupNorm(2, 4, affine=False)
            .get_parameters()] == [("gamma", False), ("beta", False)]
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm<num_groups=2, num_channels=4>"
    with pytest.raises(ValueError, match="divided"):
        nn.GroupNorm(3, 4)
    with pytest.raises(ValueError, match="num_groups"):
        nn.GroupNorm(0, 4)
    with pytest.raises(TypeError, match="eps"):
        nn.GroupNorm(2, 4, eps=1)
    with pytest.raises(TypeError, match="affine"):
        nn.GroupNorm(2, 4, affine=1)
    with pytest.raises(ValueError, match="num_channels"):
        nn.GroupNorm(2, 6)(Tensor(x))
    with pytest.raises(ValueError, match="divided"):
        ops.group_norm(Tensor(x), 3)
    with pytest.raises(TypeError, match="num_groups"):
        ops.group_norm(Tensor(x), 2.0)
    with pytest.raises(TypeError):
        ops.group_norm(Tensor(np.ones((2, 4), np.int32)), 2)


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
def test_layer_norm_axes_are_independent(mode, target):
    ms.set_context(mode=mode, jit_target=target)
    x, g = _x(2, 3, 4), _x(4)
    net = nn.LayerNorm((4,), begin_norm_axis=1, begin_params_axis=-1, gamma_init=Tensor(g),
                       epsilon=1e-5)
    m, v = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    _close(BNNet(net)(Tensor(x)).asnumpy(), (x - m) / np.sqrt(v + 1e-5) * g, atol=1e-4)
    net = nn.LayerNorm((3, 4), begin_norm_axis=-1, begin_params_axis=1)
    m, v = x.mean(2, keepdims=True), x.var(2, keepdims=True)
    _close(BNNet(net)(Tensor(x)).asnumpy(), (x - m) / np.sqrt(v + 1e-7), atol=1e-4)
    with pytest.raises(ValueError, match="gamma or beta shape"):
        nn.LayerNorm((3,))(Tensor(x))
    with pytest.raises(ValueError, match="at least 1-dimensional"):
        nn.LayerNorm(())
    assert nn.LayerNorm((4,), dtype=ms.float16)(Tensor(x)).dtype == ms.float32


# --- embeddings -------------------------------------------------------------------------------


TABLE = (np.arange(15, dtype=np.float32).reshape(5, 3) - 4) / 3


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("one_hot", [False, True])
@pytest.mark.parametrize("ids_shape", [(), (4,), (2, 3, 2)])
def test_embedding_any_index_shape(ids_shape, one_hot, mode, target):
    ms.set_context(mode=mode, jit_target=target)
    ids = RNG.integers(0, 5, ids_shape).astype(np.int32)
    net = BNNet(nn.Embedding(5, 3, use_one_hot=one_hot, embedding_table=Tensor(TABLE)))
    out = net(Tensor(ids))
    assert out.shape == ids_shape + (3,) and out.dtype == ms.float32
    _close(out.asnumpy(), TABLE[ids])


class _EmbeddingLoss(nn.Cell):
    """sum(emb(ids) * w): the table's gradient is w's rows added into the ids' rows."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 3, embedding_table=Tensor(TABLE))

    def construct(self, ids, w):
        return (self.emb(ids) * w).sum()


class _TableGrad(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net, self.params = net, ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True)

    def construct(self, ids, w):
        return self.grad(self.net, self.params)(ids, w)


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
def test_embedding_gradient_adds_rows_at_repeated_ids(mode, target):
    """The table's gradient adds each id's row of the output's gradient into that row of
    zeros, repeated ids summed (numpy's add.at), by one TensorScatterAdd of the rows: no
    product with a (vocabulary, ids) one-hot matrix, which costs vocabulary x ids per
    element of a row (BERT's table: 3.2 GFLOP a step)."""
    ms.set_context(mode=mode, jit_target=target)
    ids = np.array([[4, 1, 4], [0, 4, 1]], np.int32)
    w = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    got = _TableGrad(_EmbeddingLoss())(Tensor(ids), Tensor(w))[0]
    want = np.zeros((5, 3))
    np.add.at(want, ids.ravel(), w.reshape(-1, 3).astype(np.float64))
    assert got.dtype == ms.float32
    _close(got.asnumpy(), want)
    built = build(_TableGrad(_EmbeddingLoss()), (TensorType(dtypes.int32, ids.shape),
                                                 TensorType(dtypes.float32, w.shape)))
    ops_used = set(re.findall(r"= (\w+)\(", print_module(built.module)))
    assert "TensorScatterAdd" in ops_used and not ops_used & {"MatMul", "BatchMatMul"}


def test_embedding_init_padding_and_errors():
    ms.set_seed(0)
    emb = nn.Embedding(50, 20)
    table = emb.embedding_table
    assert table.name == "embedding_table" and table.dtype == ms.float32
    assert table.shape == (50, 20) and 0.005 < table.asnumpy().std() < 0.02  # N(0, 0.01)
    padded = nn.Embedding(5, 3, embedding_table=Tensor(TABLE), padding_idx=1)
    want = TABLE.copy()
    want[1] = 0
    _close(padded.embedding_table.asnumpy(), want)
    one_hot = nn.Embedding(5, 3, use_one_hot=True, embedding_table=Tensor(TABLE))
    _close(one_hot(Tensor(np.array([7, 2], np.int32))).asnumpy(), [[0, 0, 0], TABLE[2]])
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(5, 3, padding_idx=5)
    with pytest.raises(TypeError, match="padding_idx"):
        nn.Embedding(5, 3, padding_idx=1.0)
    with pytest.raises(TypeError, match="vocab_size"):
        nn.Embedding(5.0, 3)
    with pytest.raises(TypeError, match="use_one_hot"):
        nn.Embedding(5, 3, use_one_hot=1)
    with pytest.raises(TypeError, match="dtype"):
        nn.Embedding(5, 3, dtype=ms.bool_)
    with pytest.raises(TypeError, match="Int32"):
        nn.Embedding(5, 3)(Tensor(np.array([1.0], np.float32)))
    with pytest.raises(TypeError, match="MatMul"):
        nn.Embedding(5, 3, use_one_hot=True, dtype=ms.int32)(Tensor(np.array([1], np.int32)))


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
def test_embedding_lookup_cpu_zero_rows_and_max_norm(mode, target):
    ms.set_context(mode=mode, jit_target=target)
    ids = np.array([[1, 7], [0, -1]], np.int32)
    rows = np.where((ids >= 0) & (ids < 5), ids, 0)
    want = np.where(((ids >= 0) & (ids < 5))[..., None], TABLE[rows], 0)
    net = BNNet(nn.EmbeddingLookup(5, 3, param_init=Tensor(TABLE)))
    _close(net(Tensor(ids)).asnumpy(), want)
    clipped = BNNet(nn.EmbeddingLookup(5, 3, param_init=Tensor(TABLE), max_norm=1.5))
    norms = np.linalg.norm(want, axis=-1, keepdims=True)
    _close(clipped(Tensor(ids)).asnumpy(), want * 1.5 / np.maximum(norms, 1.5))
    device = BNNet(nn.EmbeddingLookup(5, 3, param_init=Tensor(TABLE), target="DEVICE",
                                      sparse=False))
    _close(device(Tensor(np.array([4, 0], np.int32))).asnumpy(), TABLE[[4, 0]])
    prim = Wrap(lambda t, i: ops.EmbeddingLookup()(t, i, 4))
    ids = np.array([[5, 2], [8, 5]], np.int32)
    _close(prim(Tensor(TABLE), Tensor(ids)).asnumpy(),
           [[TABLE[1], [0, 0, 0]], [TABLE[4], TABLE[1]]])


def test_embedding_lookup_errors():
    with pytest.raises(ValueError, match="sparse"):
        nn.EmbeddingLookup(5, 3, sparse=False)
    with pytest.raises(ValueError, match="target"):
        nn.EmbeddingLookup(5, 3, target="GPU")
    with pytest.raises(TypeError, match="sparse"):
        nn.EmbeddingLookup(5, 3, sparse=1)
    with pytest.raises(ValueError, match="vocab_size"):
        nn.EmbeddingLookup(0, 3)
    with pytest.raises(TypeError, match="max_norm"):
        nn.EmbeddingLookup(5, 3, max_norm=1)
    with pytest.raises(ValueError, match="max_norm"):
        nn.EmbeddingLookup(5, 3, max_norm=-1.0)
    with pytest.raises(ValueError, match="dimension of indices"):
        nn.EmbeddingLookup(5, 3)(Tensor(np.array(1, np.int32)))
    with pytest.raises(ValueError, match="dimension of params"):
        ops.EmbeddingLookup()(Tensor(np.ones((2, 2, 2), np.float32)),
                              Tensor(np.array([1], np.int32)), 0)
    with pytest.raises(TypeError, match="Int32"):
        ops.EmbeddingLookup()(Tensor(TABLE), Tensor(np.array([1.0], np.float32)), 0)
    assert [p.name for p in nn.EmbeddingLookup(5, 3).get_parameters()] == ["embedding_table"]


class Lookups(nn.Cell):
    def __init__(self, with_embedding):
        super().__init__()
        self.with_embedding = with_embedding
        self.emb = nn.Embedding(5, 3, embedding_table=Tensor(TABLE))
        self.lookup = nn.EmbeddingLookup(5, 3, param_init=Tensor(TABLE))

    def construct(self, ids):
        out = self.lookup(ids).sum()
        if self.with_embedding:
            out = out + (self.emb(ids) * 2).sum()
        return out


@pytest.mark.parametrize("mode, target", MODES, ids=MODE_IDS)
def test_embedding_gradient_adds_into_the_looked_up_rows(mode, target):
    ms.set_context(mode=mode, jit_target=target)
    ids = np.array([[1, 1], [3, 4]], np.int32)
    counts = np.bincount(ids.ravel(), minlength=5)[:, None]
    net = Lookups(True)
    nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.5))(Tensor(ids))
    _close(net.emb.embedding_table.asnumpy(), TABLE - 0.5 * 2 * counts)
    _close(net.lookup.embedding_table.asnumpy(), TABLE - 0.5 * counts)
    ids[1, 1] = 7  # outside the table: a zero row, no gradient
    net = Lookups(False)
    nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.5))(Tensor(ids))
    counts = np.bincount(ids[ids < 5].ravel(), minlength=5)[:, None]
    _close(net.lookup.embedding_table.asnumpy(), TABLE - 0.5 * counts)
