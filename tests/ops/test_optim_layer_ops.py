"""The primitive classes of ``operations/optim_ops.py`` (``P.ApplyMomentum``, ...) and
``operations/layer_ops.py`` (``P.Dropout``, ``P.AvgPool3D``, ``P.SpaceToBatchND``,
``P.BatchToSpaceND``) against numpy written from MindSpore 2.10's documentation, eagerly
and inside a compiled Cell (the Apply* ops write their Parameters in place and return
them).

Checked against MindSpore 2.10 while writing: ``P.Dropout`` returns the mask in the
input's type; AvgPool3D's 'same' mode divides by the whole window (its padding counts);
SpaceToBatchND orders the output batch (o1 b2 + o2) N + n; ApplyProximalAdagrad scales
its L1/L2 terms by lr / sqrt(accum).
"""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops

rng = np.random.default_rng(1)
V, A, B, C = (rng.standard_normal(4).astype(np.float32) for _ in range(4))
POS = (np.abs(rng.standard_normal(4)) + 0.1).astype(np.float32)
G = rng.standard_normal(4).astype(np.float32)


def momentum(v, a, lr, g, mom, nesterov=False):
    a = a * mom + g
    return [v - (g + a * mom) * lr if nesterov else v - a * lr, a]


def rmsprop(v, ms_, mom, lr, g, decay, m, eps):
    ms_ = decay * ms_ + (1 - decay) * g * g
    mom = m * mom + lr * g / np.sqrt(ms_ + eps)
    return [v - mom, ms_, mom]


def centered(v, mg, ms_, mom, g, lr, decay, m, eps):
    mg = decay * mg + (1 - decay) * g
    ms_ = decay * ms_ + (1 - decay) * g * g
    mom = m * mom + lr * g / np.sqrt(ms_ - mg * mg + eps)
    return [v - mom, mg, ms_, mom]


def prox(p, lr, l1, l2):
    return np.sign(p) * np.maximum(np.abs(p) - lr * l1, 0) / (1 + lr * l2)


def adamax(v, m, u, b1p, lr, b1, b2, eps, g):
    m = b1 * m + (1 - b1) * g
    u = np.maximum(b2 * u, np.abs(g))
    return [v - lr / (1 - b1p) * m / (u + eps), m, u]


def adadelta(v, a, au, lr, rho, eps, g):
    a = rho * a + (1 - rho) * g * g
    upd = np.sqrt(au + eps) / np.sqrt(a + eps) * g
    return [v - lr * upd, a, rho * au + (1 - rho) * upd * upd]


def ftrl(v, a, lin, g, lr, l1, l2, p):
    new = a + g * g
    lin = lin + g - (new ** -p - a ** -p) / lr * v
    q = new ** -p / lr + 2 * l2
    return [np.where(np.abs(lin) > l1, (np.sign(lin) * l1 - lin) / q, 0), new, lin]


def adam(v, m, u, b1p, b2p, lr, b1, b2, eps, g):
    m = b1 * m + (1 - b1) * g
    u = b2 * u + (1 - b2) * g * g
    return [v - lr * np.sqrt(1 - b2p) / (1 - b1p) * m / (np.sqrt(u) + eps), m, u]


# op, number of Parameters first in the call, the other arguments, numpy, returned count
CASES = {
    "ApplyMomentum": (ops.ApplyMomentum(), 2, [0.1, G, 0.9], momentum, 1),
    "ApplyMomentum_nesterov": (ops.ApplyMomentum(use_nesterov=True), 2, [0.1, G, 0.9],
                               lambda *a: momentum(*a, nesterov=True), 1),
    "ApplyGradientDescent": (ops.ApplyGradientDescent(), 1, [0.2, G],
                             lambda v, lr, g: [v - lr * g], 1),
    "ApplyProximalGradientDescent": (ops.ApplyProximalGradientDescent(), 1, [0.2, 0.1, 0.3, G],
                                     lambda v, lr, l1, l2, g: [prox(v - lr * g, lr, l1, l2)], 1),
    "ApplyAdagrad": (ops.ApplyAdagrad(), 2, [0.1, G],
                     lambda v, a, lr, g: [v - lr * g / np.sqrt(a + g * g), a + g * g], 2),
    "ApplyAdagradV2": (ops.ApplyAdagradV2(epsilon=1e-3), 2, [0.1, G],
                       lambda v, a, lr, g: [v - lr * g / (np.sqrt(a + g * g) + 1e-3), a + g * g],
                       2),
    "ApplyRMSProp": (ops.ApplyRMSProp(), 3, [0.01, G, 0.9, 0.5, 1e-6], rmsprop, 1),
    "ApplyCenteredRMSProp": (ops.ApplyCenteredRMSProp(), 4, [G, 0.01, 0.9, 0.5, 1e-6],
                             centered, 1),
    "ApplyAdaMax": (ops.ApplyAdaMax(), 3, [0.5, 0.01, 0.9, 0.99, 1e-7, G], adamax, 3),
    "ApplyAdadelta": (ops.ApplyAdadelta(), 3, [1.0, 0.9, 1e-6, G], adadelta, 3),
    "ApplyFtrl": (ops.ApplyFtrl(), 3, [G, 0.01, 0.05, 0.1, -0.5], ftrl, 1),
    "ApplyProximalAdagrad": (
        ops.ApplyProximalAdagrad(), 2, [0.1, 0.05, 0.1, G],
        lambda v, a, lr, l1, l2, g: [prox(v - lr / np.sqrt(a + g * g) * g,
                                          lr / np.sqrt(a + g * g), l1, l2), a + g * g], 2),
    "ApplyPowerSign": (
        ops.ApplyPowerSign(), 2, [0.1, np.e, 0.5, 0.9, G],
        lambda v, m, lr, lb, sd, b, g: [v - lr * np.exp(lb * sd * np.sign(g) *
                                                         np.sign(b * m + (1 - b) * g)) * g,
                                        b * m + (1 - b) * g], 2),
    "ApplyAddSign": (
        ops.ApplyAddSign(), 2, [0.1, 1.0, 0.5, 0.9, G],
        lambda v, m, lr, al, sd, b, g: [v - lr * (al + sd * np.sign(g) *
                                                  np.sign(b * m + (1 - b) * g)) * g,
                                        b * m + (1 - b) * g], 2),
    "Adam": (ops.Adam(), 3, [0.5, 0.3, 0.01, 0.9, 0.99, 1e-8, G], adam, 3),
}
INITIAL = [V, POS, np.abs(C) + 0.5, np.abs(B)]  # accumulators start positive


def arguments(name):
    op, n, rest, reference, returned = CASES[name]
    if name == "ApplyCenteredRMSProp":  # mean_gradient may be negative; the square dominates
        start = [V, B * 0.1, POS + 1.0, C]
    else:
        start = INITIAL[:n]
    return op, start, rest, reference, returned


@pytest.mark.parametrize("name", sorted(CASES))
def test_apply_op_updates_in_place_as_documented(name):
    op, start, rest, reference, returned = arguments(name)
    params = [Parameter(Tensor(s.copy()), name=f"p{i}") for i, s in enumerate(start)]
    out = op(*params, *[Tensor(r) if isinstance(r, np.ndarray) else r for r in rest])
    want = reference(*[s.astype(np.float64) for s in start], *rest)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == returned
    for o, w in zip(outs, want):
        np.testing.assert_allclose(o.asnumpy(), w, rtol=1e-5, atol=1e-6)


class Step(nn.Cell):
    def __init__(self, op, start, rest):
        super().__init__()
        self.op, self.rest = op, rest
        self.slots = ms.ParameterTuple(Parameter(Tensor(s.copy()), name=f"s{i}")
                                       for i, s in enumerate(start))

    def construct(self, g):
        rest = [g if isinstance(r, np.ndarray) else r for r in self.rest]
        return self.op(*self.slots, *rest)


@pytest.mark.parametrize("name", ["ApplyMomentum_nesterov", "ApplyAdagrad", "ApplyFtrl",
                                  "ApplyCenteredRMSProp", "Adam"])
def test_apply_op_in_a_compiled_cell(name):
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    op, start, rest, reference, returned = arguments(name)
    step = Step(op, start, rest)
    out = step(Tensor(G))
    want = reference(*[s.astype(np.float64) for s in start], *rest)
    for p, w in zip(step.slots, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    first = out[0] if isinstance(out, tuple) else out
    np.testing.assert_allclose(first.asnumpy(), want[0], rtol=1e-5, atol=1e-6)


# --- layer primitives ----------------------------------------------------------------------


def test_dropout_returns_the_scaled_input_and_its_mask():
    x = rng.standard_normal((50, 40)).astype(np.float32)
    out, mask = ops.Dropout(keep_prob=0.7)(Tensor(x))
    m = mask.asnumpy()
    assert mask.dtype == ms.float32 and set(np.unique(m)) <= {0.0, 1.0}
    assert 0.6 < m.mean() < 0.8
    np.testing.assert_allclose(out.asnumpy(), x * m / 0.7, rtol=1e-6)
    out, mask = ops.Dropout(keep_prob=1.0)(Tensor(x.astype(np.float16)))
    assert mask.dtype == ms.float16 and (mask.asnumpy() == 1).all()
    with pytest.raises(ValueError, match="keep_prob"):
        ops.Dropout(keep_prob=0.0)


def space_to_batch(x, blocks, pads):
    """Loops over the definition: out[(i b2 + j) N + n, c, h, w] = padded[n, c, h b1 + i,
    w b2 + j]."""
    p = np.pad(x, [(0, 0), (0, 0)] + [tuple(q) for q in pads])
    n, c, hh, ww = p.shape
    b1, b2 = blocks
    out = np.zeros((n * b1 * b2, c, hh // b1, ww // b2), x.dtype)
    for i in range(b1):
        for j in range(b2):
            for k in range(n):
                out[(i * b2 + j) * n + k] = p[k, :, i::b1, j::b2]
    return out


@pytest.mark.parametrize("blocks,pads", [([2, 2], [[0, 0], [0, 2]]), ([3, 1], [[1, 1], [0, 0]])])
def test_space_to_batch_nd_and_back(blocks, pads):
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    y = ops.SpaceToBatchND(blocks, pads)(Tensor(x))
    np.testing.assert_array_equal(y.asnumpy(), space_to_batch(x, blocks, pads))
    back = ops.BatchToSpaceND(blocks, pads)(y)
    np.testing.assert_array_equal(back.asnumpy(), x)
    np.testing.assert_array_equal(ops.space_to_batch_nd(Tensor(x), blocks, pads).asnumpy(),
                                  y.asnumpy())


def avg_pool3d(x, k, s, pads, include=True, divisor=0):
    """Loops over the windows of the padded input."""
    p = np.pad(x, [(0, 0), (0, 0)] + [(pads[2 * d], pads[2 * d + 1]) for d in range(3)])
    real = np.pad(np.ones(x.shape[2:]), [(pads[2 * d], pads[2 * d + 1]) for d in range(3)])
    out_shape = [(p.shape[2 + d] - k[d]) // s[d] + 1 for d in range(3)]
    out = np.zeros(x.shape[:2] + tuple(out_shape))
    for i, j, m in np.ndindex(*out_shape):
        sl = (slice(i * s[0], i * s[0] + k[0]), slice(j * s[1], j * s[1] + k[1]),
              slice(m * s[2], m * s[2] + k[2]))
        total = p[(..., *sl)].sum(axis=(2, 3, 4))
        count = divisor or (np.prod(k) if include else real[sl].sum())
        out[:, :, i, j, m] = total / count
    return out


@pytest.mark.parametrize("kwargs,pads", [
    (dict(kernel_size=2, strides=2), (0,) * 6),
    (dict(kernel_size=3, strides=2, pad_mode="same"), (0, 1, 1, 1, 1, 1)),
    (dict(kernel_size=3, strides=2, pad_mode="pad", pad=1, count_include_pad=False), (1,) * 6),
    (dict(kernel_size=(2, 3, 3), strides=1, pad_mode="pad", pad=(1, 0, 1, 1, 0, 1),
          divisor_override=2), (1, 0, 1, 1, 0, 1)),
])
def test_avg_pool3d(kwargs, pads):
    x = (np.arange(2 * 4 * 5 * 5, dtype=np.float32).reshape(1, 2, 4, 5, 5) % 7)
    k = kwargs["kernel_size"]
    k = (k,) * 3 if isinstance(k, int) else k
    s = (kwargs["strides"],) * 3
    want = avg_pool3d(x, k, s, pads, kwargs.get("count_include_pad", True),
                      kwargs.get("divisor_override", 0))
    np.testing.assert_allclose(ops.AvgPool3D(**kwargs)(Tensor(x)).asnumpy(), want, rtol=1e-6)
