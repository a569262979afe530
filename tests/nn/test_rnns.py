"""Recurrent layers and cells: eager == graph (python target; numba on one case) == a
per-sequence numpy implementation written here; MindSpore 2.10's Parameter names; the
time loop stays one While node whatever the sequence length; a training step's
gradients against central differences."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import nn
from msc.compiler import arg_spec, compile_entry

RNG = np.random.default_rng(7)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


# --- numpy reference: one sequence at a time, each step written out ------------------------


def ref_step(kind, x, h, c, w_ih, w_hh, b_ih, b_hh):
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    if kind == "tanh":
        return np.tanh(gi + gh), c
    if kind == "relu":
        return np.maximum(gi + gh, 0), c
    if kind == "gru":
        (ir, iz, i_n), (hr, hz, hn) = np.split(gi, 3, -1), np.split(gh, 3, -1)
        r, z = sigmoid(ir + hr), sigmoid(iz + hz)
        n = np.tanh(i_n + r * hn)
        return (1 - z) * n + z * h, c
    i, f, g, o = np.split(gi + gh, 4, -1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    return sigmoid(o) * np.tanh(c), c


def ref_layers(kind, params, x, h0, c0, layers, directions, lengths):
    """Time-major ``x`` (T, B, F); sequence b runs for ``lengths[b]`` steps (forwards, or
    backwards from its own end) and its outputs past that stay zero."""
    steps, batch, _ = x.shape
    hidden = h0.shape[-1]
    hn, cn = np.zeros_like(h0), np.zeros_like(c0)
    layer_in = x
    for layer in range(layers):
        out = np.zeros((steps, batch, directions * hidden))
        for d in range(directions):
            k, sfx = layer * directions + d, f"_l{layer}" + ("_reverse" if d else "")
            w = [params.get(f"{n}{sfx}", 0.0) for n in ("weight_ih", "weight_hh", "bias_ih",
                                                        "bias_hh")]
            for b in range(batch):
                h, c = h0[k, b], c0[k, b]
                order = range(lengths[b]) if d == 0 else reversed(range(lengths[b]))
                for t in order:
                    h, c = ref_step(kind, layer_in[t, b], h, c, *w)
                    out[t, b, d * hidden:(d + 1) * hidden] = h
                hn[k, b], cn[k, b] = h, c
        layer_in = out
    return layer_in, hn, cn


# --- the layers: configurations ------------------------------------------------------------

LAYERS = {"tanh": nn.RNN, "relu": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}

# kind, num_layers, bidirectional, batch_first, has_bias, given state, seq_length
CONFIGS = [
    ("tanh", 1, False, False, True, False, False),
    ("relu", 2, False, True, False, True, False),
    ("gru", 1, True, False, True, True, False),
    ("gru", 2, False, True, True, False, True),
    ("lstm", 1, False, False, True, False, False),
    ("lstm", 2, True, True, True, True, False),
    ("lstm", 2, True, False, False, False, True),
    ("tanh", 1, True, True, True, False, True),
]
T, B, F, H = 5, 3, 3, 4


def make(kind, layers, bidir, batch_first, has_bias):
    ms.set_seed(11)
    kwargs = {"nonlinearity": kind} if LAYERS[kind] is nn.RNN else {}
    return LAYERS[kind](F, H, layers, has_bias, batch_first, 0.0, bidir, **kwargs)


def inputs_for(kind, layers, bidir, batch_first, given, lengths):
    x = rand(B, T, F) if batch_first else rand(T, B, F)
    shape = (layers * (2 if bidir else 1), B, H)
    args = [x]
    if given:
        args.append((rand(*shape), rand(*shape)) if kind == "lstm" else rand(*shape))
    elif lengths:
        args.append(None)
    if lengths:
        args.append(np.array([T, 2, 4], np.int64)[:B])
    return args


def expected(net, kind, layers, bidir, batch_first, args):
    x = args[0].astype(np.float64)
    x = x.transpose(1, 0, 2) if batch_first else x
    shape = (layers * (2 if bidir else 1), B, H)
    state = args[1] if len(args) > 1 and args[1] is not None else None
    h0, c0 = (np.zeros(shape), np.zeros(shape)) if state is None else \
        state if kind == "lstm" else (state, np.zeros(shape))
    lengths = args[2] if len(args) > 2 else [T] * B
    params = {p.name: p.asnumpy().astype(np.float64) for p in net.get_parameters()}
    out, hn, cn = ref_layers(kind, params, x, np.asarray(h0, np.float64),
                             np.asarray(c0, np.float64), layers, 2 if bidir else 1, lengths)
    out = out.transpose(1, 0, 2) if batch_first else out
    return (out, (hn, cn)) if kind == "lstm" else (out, hn)


def to_msc(value):
    if isinstance(value, tuple):
        return tuple(to_msc(v) for v in value)
    return None if value is None else ms.Tensor(value)


def assert_close(got, want, rtol=1e-5, atol=1e-5):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_close(g, w, rtol, atol)
        return
    assert got.dtype == ms.float32 and got.shape == want.shape
    np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_layer_eager_and_graph_equal_numpy(config):
    kind, layers, bidir, batch_first, has_bias, given, lengths = config
    net = make(kind, layers, bidir, batch_first, has_bias)
    args = inputs_for(kind, layers, bidir, batch_first, given, lengths)
    want = expected(net, kind, layers, bidir, batch_first, args)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode, jit_target="python")
        assert_close(net(*to_msc(tuple(args))), want)


def test_lstm_on_the_numba_target():
    net = make("lstm", 1, False, False, True)
    args = inputs_for("lstm", 1, False, False, True, False)
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba")
    assert_close(net(*to_msc(tuple(args))), expected(net, "lstm", 1, False, False, args))


def test_float16_input_computes_and_returns_float16():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = make("gru", 1, False, False, True)
    x = rand(T, B, F).astype(np.float16)
    out, h = net(ms.Tensor(x))
    assert out.dtype == ms.float16 and h.dtype == ms.float16
    want, hn = expected(net, "gru", 1, False, False, [x])
    np.testing.assert_allclose(out.asnumpy(), want, atol=5e-3)


def test_the_graph_does_not_grow_with_the_sequence():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = make("lstm", 1, True, False, True)
    counts = []
    for steps in (5, 50):
        x = rand(steps, 2, F)
        compiled = compile_entry(net, [arg_spec(x)], store=None, target="python")
        names = [n.op.name for n in compiled.module.entry_graph.nodes]
        assert names.count("While") == 2  # one loop per direction
        counts.append(compiled.module.node_count())
        got = compiled.run([x])
        np.testing.assert_allclose(got[0], net(ms.Tensor(x))[0].asnumpy(), rtol=1e-5,
                                   atol=1e-6)
    assert counts[0] == counts[1]


# --- the cells -----------------------------------------------------------------------------

CELLS = {"tanh": nn.RNNCell, "relu": nn.RNNCell, "gru": nn.GRUCell, "lstm": nn.LSTMCell}


@pytest.mark.parametrize("kind", CELLS)
def test_cell_eager_and_graph_equal_numpy(kind):
    ms.set_seed(3)
    net = CELLS[kind](F, H, nonlinearity=kind) if CELLS[kind] is nn.RNNCell \
        else CELLS[kind](F, H)
    x, h, c = rand(B, F), rand(B, H), rand(B, H)
    w = [p.asnumpy().astype(np.float64) for p in (net.weight_ih, net.weight_hh, net.bias_ih,
                                                  net.bias_hh)]
    h1, c1 = ref_step(kind, x.astype(np.float64), h.astype(np.float64),
                      c.astype(np.float64), *w)
    state, want = ((ms.Tensor(h), ms.Tensor(c)), (h1, c1)) if kind == "lstm" \
        else (ms.Tensor(h), h1)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode, jit_target="python")
        assert_close(net(ms.Tensor(x), state), want)


# --- parameters ----------------------------------------------------------------------------

# printed by MindSpore 2.10's parameters_and_names() (name, shape)
MINDSPORE_NAMES = {
    "RNN(3, 4, 2, bidirectional=True)": [
        ("weight_ih_l0", (4, 3)), ("weight_ih_l0_reverse", (4, 3)), ("weight_ih_l1", (4, 8)),
        ("weight_ih_l1_reverse", (4, 8)), ("weight_hh_l0", (4, 4)),
        ("weight_hh_l0_reverse", (4, 4)), ("weight_hh_l1", (4, 4)),
        ("weight_hh_l1_reverse", (4, 4)), ("bias_ih_l0", (4,)), ("bias_ih_l0_reverse", (4,)),
        ("bias_ih_l1", (4,)), ("bias_ih_l1_reverse", (4,)), ("bias_hh_l0", (4,)),
        ("bias_hh_l0_reverse", (4,)), ("bias_hh_l1", (4,)), ("bias_hh_l1_reverse", (4,))],
    "GRU(3, 4)": [("weight_ih_l0", (12, 3)), ("weight_hh_l0", (12, 4)), ("bias_ih_l0", (12,)),
                  ("bias_hh_l0", (12,))],
    "LSTM(3, 4, has_bias=False)": [("weight_ih_l0", (16, 3)), ("weight_hh_l0", (16, 4))],
    "RNNCell(3, 4)": [("weight_ih", (4, 3)), ("weight_hh", (4, 4)), ("bias_ih", (4,)),
                      ("bias_hh", (4,))],
    "GRUCell(3, 4)": [("weight_ih", (12, 3)), ("weight_hh", (12, 4)), ("bias_ih", (12,)),
                      ("bias_hh", (12,))],
    "LSTMCell(3, 4)": [("weight_ih", (16, 3)), ("weight_hh", (16, 4)), ("bias_ih", (16,)),
                       ("bias_hh", (16,))],
}


@pytest.mark.parametrize("spec", MINDSPORE_NAMES)
def test_parameter_names_shapes_and_init_are_mindspores(spec):
    net = eval(f"nn.{spec}")  # noqa: S307 - the table's own constructor calls
    got = [(path, p.name, p.shape) for path, p in net.parameters_and_names()]
    assert got == [(n, n, s) for n, s in MINDSPORE_NAMES[spec]]
    bound = 1 / math.sqrt(4)
    values = np.concatenate([p.asnumpy().ravel() for p in net.get_parameters()])
    assert values.dtype == np.float32 and np.abs(values).max() <= bound
    assert np.abs(values).max() > 0.8 * bound and np.unique(values).size == values.size


def test_nested_names_and_parameter_dtype():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(2, 3, dtype=ms.float16)

    names = [(p.name, p.dtype) for p in Net().trainable_params()]
    assert names[0] == ("rnn.weight_ih_l0", ms.float16) and len(names) == 4


# --- training: gradients through the loop against central differences ----------------------


class Classifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(2, 3, batch_first=True)
        self.head = nn.Dense(3, 2)

    def construct(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out[:, 1] + c[0])


def ref_loss(p, x, y):
    lstm = {name.removeprefix("lstm."): value for name, value in p.items()}
    out, hn, cn = ref_layers("lstm", lstm, x.transpose(1, 0, 2), np.zeros((1, 2, 3)),
                             np.zeros((1, 2, 3)), 1, 1, [x.shape[1]] * 2)
    logits = (out[1] + cn[0]) @ p["head.weight"].T + p["head.bias"]
    shifted = logits - logits.max(-1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    return -logp[np.arange(len(y)), y].mean()


def central_differences(p, x, y, eps=1e-6):
    grads = {}
    for name, value in p.items():
        g = np.zeros_like(value)
        for i in np.ndindex(value.shape):
            plus, minus = dict(p), dict(p)
            plus[name], minus[name] = value.copy(), value.copy()
            plus[name][i] += eps
            minus[name][i] -= eps
            g[i] = (ref_loss(plus, x, y) - ref_loss(minus, x, y)) / (2 * eps)
        grads[name] = g
    return grads


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_one_training_step_has_the_bptt_gradients(mode):
    ms.set_context(mode=mode, jit_target="python")
    ms.set_seed(5)
    net = Classifier()
    x, y = rand(2, 4, 2), np.array([1, 0], np.int32)
    before = {p.name: p.asnumpy().astype(np.float64) for p in net.trainable_params()}
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                               nn.SGD(net.trainable_params(), learning_rate=1.0))
    loss = step(ms.Tensor(x), ms.Tensor(y))
    np.testing.assert_allclose(float(loss.asnumpy()), ref_loss(before, x, y), rtol=1e-5)
    want = central_differences(before, x.astype(np.float64), y)
    for p in net.trainable_params():
        np.testing.assert_allclose(before[p.name] - p.asnumpy(), want[p.name], rtol=1e-3,
                                   atol=2e-6, err_msg=p.name)


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("build, kind, message", [
    (lambda: nn.RNN(3, 4, dropout=1), TypeError, "type of 'dropout' must be 'float'"),
    (lambda: nn.LSTM(3, 4, dropout=1.0), ValueError, r"'dropout' must be a number in range"),
    (lambda: nn.RNN(3, 4, nonlinearity="gelu"), ValueError, "'nonlinearity' must be in"),
    (lambda: nn.GRU(3.0, 4), TypeError, "'input_size' must be int"),
    (lambda: nn.GRU(3, 0), ValueError, "'hidden_size' must be a positive int"),
    (lambda: nn.LSTM(3, 4, has_bias=1), TypeError, "'has_bias' must be bool"),
    (lambda: nn.RNNCell(3, 4, nonlinearity="x"), ValueError, "'nonlinearity' must be in"),
    (lambda: nn.GRUCell(3, 4, has_bias=1), TypeError, "'has_bias' must be bool"),
])
def test_constructor_errors(build, kind, message):
    with pytest.raises(kind, match=message):
        build()


@pytest.mark.parametrize("call, kind, message", [
    (lambda: nn.GRUCell(3, 4)(ms.Tensor(rand(2, 3).astype(np.float64)), ms.Tensor(rand(2, 4))),
     TypeError, "'x' should be one of"),
    (lambda: nn.LSTMCell(3, 4)(ms.Tensor(rand(2, 3)), ms.Tensor(rand(2, 4))), TypeError,
     "'hx' must be 'Tuple'"),
    (lambda: nn.GRU(3, 4)(ms.Tensor(rand(5, 2, 3)),
                          ms.Tensor(rand(1, 2, 4).astype(np.float16))),
     TypeError, "type of 'hx' should be same as 'x'"),
    (lambda: nn.RNN(3, 4)(ms.Tensor(rand(5, 2, 3)), None, ms.Tensor(np.ones(2, np.float32))),
     TypeError, "'seq_length' should be one of"),
    (lambda: nn.RNN(3, 4)(ms.Tensor(rand(5, 2, 3)), None, ms.Tensor(np.ones(3, np.int32))),
     ValueError, "batch size of x and seq_length must be equal"),
])
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_input_errors(call, kind, message, mode):
    ms.set_context(mode=mode, jit_target="python")
    with pytest.raises(kind, match=message):
        call()


# --- MindSpore itself, where it is installed -----------------------------------------------

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"

ORACLE = """
import sys, numpy as np, mindspore as ms
from mindspore import nn
d = dict(np.load("in.npz"))
out = {}
for kind in ("RNN", "GRU", "LSTM"):
    net = getattr(nn, kind)(3, 4, 2, True, True, 0.0, True)
    for p in net.get_parameters():
        p.set_data(ms.Tensor(d[kind + "." + p.name]))
    h0 = ms.Tensor(d["h0"])
    hx = (h0, ms.Tensor(d["c0"])) if kind == "LSTM" else h0
    for tag, seq in (("all", None), ("seq", ms.Tensor(d["seq"]))):
        o, h = net(ms.Tensor(d["x"]), hx, seq)
        out[kind + tag] = o.asnumpy()
        out[kind + tag + "h"] = (h[1] if kind == "LSTM" else h).asnumpy()
np.savez("out.npz", **out)
"""


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "msc is checked against numpy above")
def test_msc_matches_mindspore_itself(tmp_path):
    """Two bidirectional batch-first layers of each kind, with and without seq_length."""
    data = {"x": rand(3, 5, 3), "h0": rand(4, 3, 4), "c0": rand(4, 3, 4),
            "seq": np.array([5, 2, 4], np.int32)}
    nets = {kind: getattr(nn, kind)(3, 4, 2, True, True, 0.0, True)
            for kind in ("RNN", "GRU", "LSTM")}
    for kind, net in nets.items():
        data.update({f"{kind}.{p.name}": p.asnumpy() for p in net.get_parameters()})
    np.savez(tmp_path / "in.npz", **data)
    proc = subprocess.run([str(MINDSPORE), "-c", ORACLE], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = np.load(tmp_path / "out.npz")
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    for kind, net in nets.items():
        h0 = ms.Tensor(data["h0"])
        hx = (h0, ms.Tensor(data["c0"])) if kind == "LSTM" else h0
        for tag, seq in (("all", None), ("seq", ms.Tensor(data["seq"]))):
            out, h = net(ms.Tensor(data["x"]), hx, seq)
            last = h[1] if kind == "LSTM" else h
            np.testing.assert_allclose(out.asnumpy(), theirs[kind + tag], atol=1e-5)
            np.testing.assert_allclose(last.asnumpy(), theirs[kind + tag + "h"], atol=1e-5)
