"""Gradients equal JAX's: the same programs written in jax.numpy, differentiated by
``jax.grad`` in a separate interpreter (JAX installed in ``.peers/jax``; skipped where it
is not), against msc's compiled gradients: an MLP with softmax cross-entropy, a GPT-like
stack of attention blocks (plain and ``lazy_inline``), a tensor ``while`` loop, and a
branch that becomes ``select`` next to one that stays an ``If``."""

from __future__ import annotations

import inspect
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, ParameterTuple, Tensor, lazy_inline, nn, ops
from msc.ops import composite as C

JAX = Path(__file__).resolve().parents[2] / ".peers" / "jax" / "bin" / "python"
pytestmark = pytest.mark.skipif(not JAX.exists(), reason="JAX is not installed in .peers/jax "
                                "(python3 -m venv .peers/jax && .peers/jax/bin/pip install "
                                "jax jaxlib); msc's gradients are checked against numpy in "
                                "tests/ops/test_grad_func.py")

F32 = np.float32
D, T, H = 8, 4, 16
RNG = np.random.default_rng(7)


def weights(shapes):
    return {k: (RNG.standard_normal(s) * 0.4).astype(F32) for k, s in shapes.items()}


def param(arrays, name):
    return Parameter(Tensor(arrays[name]), name=name)


def jax_grads(tmp_path, program: str, arrays: dict, names: list[str]) -> list[np.ndarray]:
    """Run ``program`` (defining ``loss(params, *inputs)``) under JAX; the gradients with
    respect to ``names`` in that order."""
    np.savez(tmp_path / "in.npz", **arrays)
    script = textwrap.dedent("""
        import numpy as np, jax, jax.numpy as jnp
        jax.config.update("jax_enable_x64", False)
        a = dict(np.load("in.npz"))
    """) + textwrap.dedent(program) + textwrap.dedent(f"""
        names = {names!r}
        params = {{k: jnp.asarray(a[k]) for k in names}}
        inputs = [jnp.asarray(a[k]) for k in sorted(a) if k.startswith("input")]
        g = jax.grad(loss)(params, *inputs)
        np.savez("out.npz", **{{k: np.asarray(g[k]) for k in names}})
    """)
    proc = subprocess.run([str(JAX), "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = np.load(tmp_path / "out.npz")
    return [out[k] for k in names]


def msc_grads(net, inputs, names):
    ms.set_context(mode=ms.GRAPH_MODE)
    params = ParameterTuple(p for p in net.trainable_params() if p.name in names)
    order = {p.name: i for i, p in enumerate(params)}
    grads = C.GradOperation(get_by_list=True)(net, params)(*[Tensor(x) for x in inputs])
    return [grads[order[n]].asnumpy() for n in names]


def assert_close(ours, theirs, names):
    for n, a, b in zip(names, ours, theirs):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5, err_msg=n)


# --- MLP with softmax cross-entropy ---------------------------------------------------------


class MLP(nn.Cell):
    def __init__(self, a):
        super().__init__()
        self.w1, self.b1, self.w2, self.b2 = (param(a, n) for n in ("w1", "b1", "w2", "b2"))

    def construct(self, x, labels):
        h = ops.relu(ops.dense(x, self.w1, self.b1))
        logits = ops.dense(h, self.w2, self.b2)
        return -(labels * ops.log_softmax(logits, -1)).sum(-1).mean()


def test_mlp_with_softmax_cross_entropy(tmp_path):
    a = weights({"w1": (H, D), "b1": (H,), "w2": (4, H), "b2": (4,)})
    x = RNG.standard_normal((6, D)).astype(F32)
    labels = np.eye(4, dtype=F32)[RNG.integers(0, 4, 6)]
    names = ["w1", "b1", "w2", "b2"]
    ours = msc_grads(MLP(a), [x, labels], names)
    theirs = jax_grads(tmp_path, """
        def loss(p, x, labels):
            h = jax.nn.relu(x @ p["w1"].T + p["b1"])
            logits = h @ p["w2"].T + p["b2"]
            return -(labels * jax.nn.log_softmax(logits, -1)).sum(-1).mean()
    """, {**a, "input0": x, "input1": labels}, names)
    assert_close(ours, theirs, names)


# --- a GPT-like stack --------------------------------------------------------------------------


BLOCK = ("g1", "be1", "wq", "wk", "wv", "wo", "g2", "be2", "wf1", "bf1", "wf2", "bf2")


def block_shapes(i):
    return {f"{n}{i}": s for n, s in zip(BLOCK, [(D,), (D,), (D, D), (D, D), (D, D), (D, D),
                                                  (D,), (D,), (H, D), (H,), (D, H), (D,)])}


def block_forward(ops_, p, x, mask, ln):
    q, k, v = (x2 @ ops_.T(p[2 + i]) for i, x2 in enumerate([ln(x, p[0], p[1])] * 3))
    att = ops_.softmax(ops_.where(mask, q @ ops_.T(k) / np.sqrt(D).astype(F32), -1e9))
    x = x + (att @ v) @ ops_.T(p[5])
    h = ops_.gelu(ln(x, p[6], p[7]) @ ops_.T(p[8]) + p[9])
    return x + h @ ops_.T(p[10]) + p[11]


class _MscOps:
    T = staticmethod(lambda w: ops.transpose(w, (1, 0)))
    softmax = staticmethod(lambda x: ops.softmax(x, -1))
    where = staticmethod(lambda c, x, y: ops.select(c, x, y))
    gelu = staticmethod(lambda x: ops.gelu(x, approximate="tanh"))


def msc_layer_norm(x, g, b):
    mean = x.mean(-1, keep_dims=True)
    var = ((x - mean) ** 2).mean(-1, keep_dims=True)
    return (x - mean) / ops.sqrt(var + 1e-5) * g + b


class Block(nn.Cell):
    def __init__(self, a, i):
        super().__init__()
        self.p = ParameterTuple(param(a, f"{n}{i}") for n in BLOCK)

    def construct(self, x, mask):
        return block_forward(_MscOps, self.p, x, mask, msc_layer_norm)


class SharedBlock(Block):
    @lazy_inline
    def __init__(self, a, i):
        super().__init__(a, i)


class Stack(nn.Cell):
    def __init__(self, a, block):
        super().__init__()
        self.blocks = nn.CellList([block(a, i) for i in range(2)])

    def construct(self, x, mask):
        for b in self.blocks:
            x = b(x, mask)
        return (x * x).mean()


@pytest.mark.parametrize("block", [Block, SharedBlock], ids=["plain", "lazy_inline"])
def test_a_gpt_like_stack(block, tmp_path):
    a = weights({**block_shapes(0), **block_shapes(1)})
    x = RNG.standard_normal((T, D)).astype(F32)
    mask = np.tril(np.ones((T, T), bool))
    names = list(a)
    ours = msc_grads(Stack(a, block), [x, mask], names)
    header = textwrap.dedent(f"""
        BLOCK = {BLOCK!r}
        D, F32 = {D}, np.float32
        class JOps:
            T = staticmethod(lambda w: w.T)
            softmax = staticmethod(lambda x: jax.nn.softmax(x, -1))
            where = staticmethod(jnp.where)
            gelu = staticmethod(lambda x: jax.nn.gelu(x, approximate=True))
        def ln(x, g, b):
            mean = x.mean(-1, keepdims=True)
            var = ((x - mean) ** 2).mean(-1, keepdims=True)
            return (x - mean) / jnp.sqrt(var + 1e-5) * g + b
    """)
    footer = textwrap.dedent("""
        def loss(p, x, mask):
            for i in range(2):
                x = block_forward(JOps, [p[f"{n}{i}"] for n in BLOCK], x, mask.astype(bool), ln)
            return (x * x).mean()
    """)
    program = header + inspect.getsource(block_forward) + footer
    theirs = jax_grads(tmp_path, program, {**a, "input0": x, "input1": mask}, names)
    assert_close(ours, theirs, names)


# --- a tensor while, and branches ------------------------------------------------------------


class Loop(nn.Cell):
    def __init__(self, a):
        super().__init__()
        self.w = param(a, "w")

    def construct(self, x):
        while x.sum() < 20:
            x = x * 1.5 + ops.tanh(self.w)
        return (x * x).sum()


def test_a_tensor_while(tmp_path):
    a = weights({"w": (3,)})
    x = np.array([0.5, 1.0, 0.2], F32)
    ours = msc_grads(Loop(a), [x], ["w"])
    theirs = jax_grads(tmp_path, """
        def trips(w, x):  # the trip count is locally constant: JAX loops that many times
            n = 0
            while x.sum() < 20:
                x, n = x * 1.5 + np.tanh(w), n + 1
            return n
        def loss(p, x):
            n = trips(np.asarray(a["w"]), np.asarray(a["input0"]))
            x = jax.lax.fori_loop(0, n, lambda i, x: x * 1.5 + jnp.tanh(p["w"]), x)
            return (x * x).sum()
    """, {**a, "input0": x}, ["w"])
    assert_close(ours, theirs, ["w"])


class Branches(nn.Cell):
    def __init__(self, a):
        super().__init__()
        self.w = param(a, "w")

    def construct(self, x):
        if x.sum() > 0:  # cheap: becomes select
            y = x * self.w
        else:
            y = x - self.w
        if y.max() > 0.5:  # heavy: stays an If
            z = ops.exp(ops.sin(y * self.w)) * ops.tanh(y) + ops.log(ops.abs(y) + 1) * y
        else:
            z = ops.sigmoid(y) * self.w * y
        return (z * z).sum()


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_select_and_if_branches(sign, tmp_path):
    a = weights({"w": (3,)})
    x = np.array([0.5, 1.0, 0.2], F32) * F32(sign)
    ours = msc_grads(Branches(a), [x], ["w"])
    theirs = jax_grads(tmp_path, """
        def loss(p, x):
            w = p["w"]
            y = jnp.where(x.sum() > 0, x * w, x - w)
            z = jax.lax.cond(y.max() > 0.5,
                             lambda y: jnp.exp(jnp.sin(y * w)) * jnp.tanh(y)
                             + jnp.log(jnp.abs(y) + 1) * y,
                             lambda y: jax.nn.sigmoid(y) * w * y, y)
            return (z * z).sum()
    """, {**a, "input0": x}, ["w"])
    assert_close(ours, theirs, ["w"])
