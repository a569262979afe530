"""nn layers and weight initialisers in PyNative mode, against numpy written here."""

from __future__ import annotations

import math

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.common.initializer import initializer

RNG = np.random.default_rng(1234)


def _x(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# --- Dense --------------------------------------------------------------------------------


def test_dense_matches_numpy_with_given_weights():
    w = _x(4, 3)
    b = _x(4)
    net = nn.Dense(3, 4, weight_init=ms.Tensor(w), bias_init=ms.Tensor(b))
    assert net.weight.shape == (4, 3) and net.bias.shape == (4,)
    assert [p.name for p in net.trainable_params()] == ["weight", "bias"]
    x = _x(5, 3)
    out = net(ms.Tensor(x))
    assert out.dtype == ms.float32 and out.shape == (5, 4)
    np.testing.assert_allclose(out.asnumpy(), x @ w.T + b, rtol=1e-5, atol=1e-6)


def test_dense_on_higher_rank_input_uses_last_axis():
    w = _x(2, 3)
    net = nn.Dense(3, 2, weight_init=ms.Tensor(w), has_bias=False)
    assert net.bias is None and [p.name for p in net.trainable_params()] == ["weight"]
    x = _x(2, 4, 3)
    out = net(ms.Tensor(x))
    assert out.shape == (2, 4, 2)
    np.testing.assert_allclose(out.asnumpy(), np.einsum("abi,oi->abo", x, w), rtol=1e-5,
                               atol=1e-6)


def test_dense_default_init_is_bounded_by_one_over_sqrt_fan_in():
    ms.set_seed(0)
    net = nn.Dense(16, 32)
    bound = 1 / math.sqrt(16)
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    assert w.dtype == np.float32 and b.dtype == np.float32
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.8 * bound  # uniform over the whole range, not tiny
    assert np.unique(w).size == w.size


@pytest.mark.parametrize("act, ref", [
    ("relu", lambda v: np.maximum(v, 0)),
    ("sigmoid", lambda v: 1 / (1 + np.exp(-v))),
    ("tanh", np.tanh),
])
def test_dense_activation_by_name(act, ref):
    w, b = _x(3, 2), _x(3)
    net = nn.Dense(2, 3, weight_init=ms.Tensor(w), bias_init=ms.Tensor(b), activation=act)
    x = _x(4, 2)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), ref(x @ w.T + b), rtol=1e-5,
                               atol=1e-6)


def test_dense_activation_cell_and_param_dtype():
    net = nn.Dense(2, 2, activation=nn.ReLU(), dtype=ms.float16)
    assert isinstance(net.activation, nn.ReLU)
    assert net.weight.dtype == ms.float16 and net.bias.dtype == ms.float16
    assert "activation=ReLU<>" in repr(net)


def test_dense_argument_errors():
    with pytest.raises(TypeError, match="in_channels"):
        nn.Dense(3.0, 4)
    with pytest.raises(TypeError, match="has_bias"):
        nn.Dense(3, 4, has_bias=1)
    with pytest.raises(TypeError, match="activation"):
        nn.Dense(3, 4, activation=3)
    with pytest.raises(KeyError, match="unknown activation"):
        nn.Dense(3, 4, activation="swishy")
    with pytest.raises(ValueError, match="weight_init"):
        nn.Dense(3, 4, weight_init=ms.Tensor(np.zeros((3, 4), np.float32)))
    with pytest.raises(ValueError, match="bias_init"):
        nn.Dense(3, 4, bias_init=ms.Tensor(np.zeros((3,), np.float32)))


# --- activations ------------------------------------------------------------------------


def _erf(v: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf)(v.astype(np.float64))


ACTIVATIONS = [
    (nn.ReLU(), lambda v: np.maximum(v, 0)),
    (nn.ReLU6(), lambda v: np.minimum(np.maximum(v, 0), 6)),
    (nn.Sigmoid(), lambda v: 1 / (1 + np.exp(-v))),
    (nn.Tanh(), np.tanh),
    (nn.GELU(), lambda v: 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v**3)))),
    (nn.GELU(approximate=False), lambda v: 0.5 * v * (1 + _erf(v / np.sqrt(2)))),
    (nn.HSwish(), lambda v: v * np.clip(v + 3, 0, 6) / 6),
    (nn.Identity(), lambda v: v),
]


@pytest.mark.parametrize("cell, ref", ACTIVATIONS, ids=lambda c: type(c).__name__)
def test_activation_matches_numpy(cell, ref):
    x = np.array([[-7.0, -3.0, -0.5, 0.0], [0.25, 1.5, 3.0, 8.0]], np.float32)
    out = cell(ms.Tensor(x))
    assert out.dtype == ms.float32 and out.shape == x.shape
    np.testing.assert_allclose(out.asnumpy(), ref(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_and_log_softmax(axis):
    x = _x(3, 4) * 4
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    soft = e / e.sum(axis=axis, keepdims=True)
    out = nn.Softmax(axis)(ms.Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), soft, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(out.asnumpy().sum(axis=axis), 1.0, rtol=1e-5)
    log_out = nn.LogSoftmax(axis)(ms.Tensor(x))
    assert log_out.dtype == ms.float32
    np.testing.assert_allclose(log_out.asnumpy(), np.log(soft), rtol=1e-5, atol=1e-5)


def test_get_activation():
    assert isinstance(nn.get_activation("gelu"), nn.GELU)
    assert nn.get_activation(None) is None
    with pytest.raises(KeyError):
        nn.get_activation("nope")


# --- LayerNorm ----------------------------------------------------------------------------


def _layer_norm(x: np.ndarray, axes: tuple[int, ...], g: np.ndarray, b: np.ndarray,
                eps: float) -> np.ndarray:
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def test_layer_norm_last_axis_with_gamma_beta():
    g, b = _x(5), _x(5)
    ln = nn.LayerNorm((5,), gamma_init=ms.Tensor(g), beta_init=ms.Tensor(b))
    assert [p.name for p in ln.trainable_params()] == ["gamma", "beta"]
    assert ln.epsilon == 1e-7
    x = _x(3, 5) * 3 + 1
    out = ln(ms.Tensor(x))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), _layer_norm(x, (1,), g, b, 1e-7), rtol=1e-4,
                               atol=1e-5)


def test_layer_norm_default_params_and_two_trailing_axes():
    ln = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)
    np.testing.assert_array_equal(ln.gamma.asnumpy(), np.ones((3, 4), np.float32))
    np.testing.assert_array_equal(ln.beta.asnumpy(), np.zeros((3, 4), np.float32))
    x = _x(2, 3, 4)
    out = ln(ms.Tensor(x))
    ref = _layer_norm(x, (1, 2), np.ones((3, 4)), np.zeros((3, 4)), 1e-5)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-4, atol=1e-5)


def test_layer_norm_errors():
    with pytest.raises(TypeError, match="normalized_shape"):
        nn.LayerNorm(5)
    with pytest.raises(TypeError, match="epsilon"):
        nn.LayerNorm((5,), epsilon=1)
    with pytest.raises(ValueError, match="normalized_shape"):
        nn.LayerNorm((4,))(ms.Tensor(_x(2, 5)))


# --- Dropout ------------------------------------------------------------------------------


def test_dropout_is_identity_in_inference():
    x = _x(4, 6)
    drop = nn.Dropout(p=0.5)
    assert not drop.training
    np.testing.assert_array_equal(drop(ms.Tensor(x)).asnumpy(), x)


def test_dropout_in_training_zeroes_and_scales():
    x = np.abs(_x(200, 50)) + 0.1  # no zeros in the input
    drop = nn.Dropout(keep_prob=0.8).set_train()
    out = drop(ms.Tensor(x)).asnumpy()
    assert out.dtype == np.float32
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / 0.8, rtol=1e-6)
    assert abs(kept.mean() - 0.8) < 0.02


def test_dropout_masks_follow_the_seed():
    x = ms.Tensor(np.ones((64,), np.float32))
    drop = nn.Dropout(p=0.5).set_train()
    ms.set_seed(7)
    a = drop(x).asnumpy()
    b = drop(x).asnumpy()
    ms.set_seed(7)
    assert np.array_equal(drop(x).asnumpy(), a)
    assert not np.array_equal(a, b)
    assert set(np.unique(a).tolist()) == {0.0, 2.0}


def test_dropout_arguments():
    assert nn.Dropout(keep_prob=0.9, p=0.25).keep_prob == 0.75  # p wins
    assert nn.Dropout().keep_prob == 0.5
    x = _x(3, 3)
    np.testing.assert_array_equal(nn.Dropout(keep_prob=1.0).set_train()(ms.Tensor(x)).asnumpy(),
                                  x)
    with pytest.raises(ValueError):
        nn.Dropout(p=1.0)
    with pytest.raises(ValueError):
        nn.Dropout(keep_prob=0.0)
    with pytest.raises(TypeError):
        nn.Dropout(keep_prob=1)
    with pytest.raises(TypeError, match="float16 or float32"):
        nn.Dropout(p=0.5).set_train()(ms.Tensor(np.ones(3, np.int32)))


# --- Flatten ------------------------------------------------------------------------------


def test_flatten_default_and_ranges():
    x = _x(2, 3, 4, 5)
    assert nn.Flatten()(ms.Tensor(x)).shape == (2, 60)
    out = nn.Flatten(1, 2)(ms.Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), x.reshape(2, 12, 5))
    assert nn.Flatten(0, -1)(ms.Tensor(x)).shape == (120,)
    with pytest.raises(ValueError):
        nn.Flatten(3, 1)(ms.Tensor(x))


# --- a model ------------------------------------------------------------------------------


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8, activation="relu")
        self.fc2 = nn.Dense(8, 3)
        self.softmax = nn.Softmax()

    def construct(self, x):
        return self.softmax(self.fc2(self.fc1(x)))


def test_two_layer_mlp_matches_numpy():
    net = MLP()
    w1, b1 = net.fc1.weight.asnumpy(), net.fc1.bias.asnumpy()
    w2, b2 = net.fc2.weight.asnumpy(), net.fc2.bias.asnumpy()
    x = _x(6, 4)
    h = np.maximum(x @ w1.T + b1, 0)
    z = h @ w2.T + b2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    out = net(ms.Tensor(x))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-5,
                               atol=1e-6)
    assert [p.name for p in net.trainable_params()] == [
        "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


# --- initializer ------------------------------------------------------------------------


def test_initializer_constants_and_values():
    np.testing.assert_array_equal(initializer("zeros", (2, 3)).asnumpy(), np.zeros((2, 3)))
    ones = initializer("ones", (4,), ms.float16)
    assert ones.dtype == ms.float16 and ones.asnumpy().tolist() == [1.0] * 4
    assert initializer(2.5, (2,)).asnumpy().tolist() == [2.5, 2.5]
    data = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = initializer(data, (2, 3))
    assert t.dtype == ms.float64 and np.array_equal(t.asnumpy(), data)
    data[0, 0] = 99  # the initial value is copied
    assert t.asnumpy()[0, 0] == 0
    with pytest.raises(ValueError):
        initializer(ms.Tensor(np.zeros((2, 2), np.float32)), (3, 2))
    with pytest.raises(ValueError, match="Unknown initializer"):
        initializer("bogus", (2,))


def test_random_initializers_have_their_documented_ranges():
    ms.set_seed(3)
    normal = initializer("normal", (200, 100)).asnumpy()
    assert abs(normal.std() - 0.01) < 0.001 and abs(normal.mean()) < 0.001
    uniform = initializer("uniform", (200, 100)).asnumpy()
    assert np.abs(uniform).max() <= 0.07 and np.abs(uniform).max() > 0.069
    he = initializer("he_uniform", (50, 24)).asnumpy()
    assert np.abs(he).max() <= math.sqrt(6 / 24) and np.abs(he).max() > 0.9 * math.sqrt(6 / 24)
    xavier = initializer("xavier_uniform", (50, 30)).asnumpy()
    bound = math.sqrt(6 / 80)
    assert np.abs(xavier).max() <= bound and np.abs(xavier).max() > 0.9 * bound
    with pytest.raises(ValueError):
        initializer("he_uniform", (5,))  # fan_in needs at least 2 dims


def test_set_seed_makes_weights_reproducible():
    ms.set_seed(11)
    a = nn.Dense(3, 3).weight.asnumpy().copy()
    ms.set_seed(11)
    b = nn.Dense(3, 3).weight.asnumpy()
    c = nn.Dense(3, 3).weight.asnumpy()
    assert np.array_equal(a, b) and not np.array_equal(b, c)
    with pytest.raises(TypeError):
        ms.set_seed(1.5)
    with pytest.raises(ValueError):
        ms.set_seed(-1)


# --- the same layers inside a compiled graph ------------------------------------------


class EveryLayer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.seq = nn.SequentialCell([nn.Dense(4, 8, activation="gelu"), nn.LayerNorm((8,)),
                                      nn.Dropout(p=0.3)])
        self.blocks = nn.CellList([nn.Dense(8, 8, activation=nn.HSwish()) for _ in range(2)])
        self.head = nn.Dense(8, 3, has_bias=False)
        self.acts = nn.CellList([nn.ReLU6(), nn.Sigmoid(), nn.Tanh(), nn.GELU(False),
                                 nn.Softmax(), nn.LogSoftmax(), nn.Identity()])
        self.flat = nn.Flatten()

    def construct(self, x):
        x = self.seq(x)
        for block in self.blocks:
            x = block(x)
        outs = ()
        for act in self.acts:
            outs = outs + (act(x),)
        return (self.head(x), self.flat(x.reshape(2, 2, 4))) + outs


def test_layers_compile_to_the_same_results_as_eager():
    net = EveryLayer()
    x = ms.Tensor(_x(2, 4))
    eager = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = net(x)
    assert len(graph) == len(eager) == 9
    for e, g in zip(eager, graph, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


def test_training_mode_dropout_runs_in_a_graph():
    net = nn.Dropout(p=0.5).set_train()
    ms.set_context(mode=ms.GRAPH_MODE)
    out = net(ms.Tensor(np.ones(256, np.float32))).asnumpy()
    assert set(np.unique(out)) == {0.0, 2.0}  # dropped, or kept and scaled by 1 / keep
