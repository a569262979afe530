"""Transforms (``grad``, ``value_and_grad``, ``vmap``, ``jacfwd``) called inside a
``to_float(float16)`` Cell: the function they trace computes in float16 in both modes.

Graph mode builds the transform into the Cell's graph, where the Cell's mixed-precision
scope casts every op; eager mode compiles the transform into a graph of its own, which
now traces under the caller's scope too (and keeps one compile per scope). Before, the
eager compile opened no scope and computed in float32 (fuzz seed 16001, program 6).

What MindSpore 2.10 (CPU, ``.peers/ms``) did for a ``to_float(float16)`` Cell, float32
input ``x`` and a float32 constant ``c``:

- PyNative: ``ops.sin(x + c)`` is float16; ``ops.grad(lambda a: ops.sin(a * c))(x)`` is
  float32 holding float16 arithmetic's values (0.24926758, not float32's 0.2492972:
  its ops ran in float16, the gradient comes back in the input's type), as msc gives;
  ``value_and_grad``'s value is float16. ``vmap``'s and ``@jit``'s functions run without
  casts there (``a + c`` inside is float32), as in its GRAPH_MODE, which casts only a
  Cell's inputs; msc casts their ops too (``docs/mixed-precision.md``).
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops

F16, F32 = ms.float16, ms.float32
C32 = Tensor(np.full((3,), 0.25, np.float32))
X = np.array([0.3, 0.7, 1.1], np.float32)
H = np.float16


def _sin_scaled(a):
    return ops.sin(a * C32)


def _shifted(a):
    t = a + C32
    return ops.sin(t), t


def _pair(a, b):
    return a, ops.sin(a)


def _grad_of_pair(a):
    return ops.grad(_pair, 0)(a.max() + Tensor(np.zeros((2, 1), np.float32)),
                              ops.zeros((2,), ms.float64))


class Grads(nn.Cell):
    def construct(self, x):
        value, g = ops.value_and_grad(_sin_scaled)(x)
        return ops.grad(lambda a: ops.sin(a * C32))(x), value, g


class Vmapped(nn.Cell):
    def construct(self, x):
        return ops.vmap(_shifted, in_axes=0)(ops.broadcast_to(x, (2, 3)))


class Jacobian(nn.Cell):
    def construct(self, x):
        return ops.jacfwd(_sin_scaled)(x)


class VmapOfGrad(nn.Cell):
    """The fuzzer's program, shrunk: a Parameter moved by a vmap of a gradient."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([[0.0, 0.0, 1.0]], np.float32)), name="w")

    def construct(self, x):
        g = ops.vmap(_grad_of_pair, in_axes=(1,), out_axes=1)(
            ops.broadcast_to(self.w.max(), (2, 3)))
        ops.assign_sub(self.w, g[0, :, 0].reshape(1, 3))
        return g


def _run(cls, mode, *inputs):
    ms.set_context(mode=mode, jit_target="python")
    net = cls().to_float(F16)
    out = net(*[Tensor(x.copy()) for x in inputs])
    out = out if isinstance(out, tuple) else (out,)
    return net, out


def _both(cls, *inputs):
    """(eager outputs, graph outputs, eager net, graph net); the two agree exactly."""
    eager_net, eager = _run(cls, ms.PYNATIVE_MODE, *inputs)
    graph_net, graph = _run(cls, ms.GRAPH_MODE, *inputs)
    assert [o.dtype for o in eager] == [o.dtype for o in graph]
    for e, g in zip(eager, graph):
        np.testing.assert_array_equal(e.asnumpy(), g.asnumpy())
    return eager, graph, eager_net, graph_net


def test_grad_in_a_to_float_cell_computes_in_float16_in_both_modes():
    out, _, _, _ = _both(Grads, X)
    t = X.astype(H) * H(0.25)  # (numpy's float16 ops round each result to float16)
    g16 = (np.ones(3, H) * np.cos(t)) * H(0.25)
    assert [o.dtype for o in out] == [F32, F16, F32]  # a gradient has its input's type
    np.testing.assert_array_equal(out[0].asnumpy(), g16.astype(np.float32))
    np.testing.assert_array_equal(out[1].asnumpy(), np.sin(t))
    np.testing.assert_array_equal(out[2].asnumpy(), g16.astype(np.float32))
    # not float32 arithmetic's (what eager mode gave before)
    assert not np.array_equal(out[0].asnumpy(), np.cos(X * np.float32(0.25)) * 0.25)


def test_vmap_in_a_to_float_cell_computes_in_float16_in_both_modes():
    out, _, _, _ = _both(Vmapped, X)
    t = X.astype(H) + H(0.25)
    assert [o.dtype for o in out] == [F16, F16]
    np.testing.assert_array_equal(out[0].asnumpy(), np.broadcast_to(np.sin(t), (2, 3)))
    np.testing.assert_array_equal(out[1].asnumpy(), np.broadcast_to(t, (2, 3)))


def test_jacobian_in_a_to_float_cell_computes_in_float16_in_both_modes():
    out, _, _, _ = _both(Jacobian, X)
    t = X.astype(H) * H(0.25)
    assert out[0].dtype == F16  # (its reshapes run in the Cell's type too)
    np.testing.assert_array_equal(out[0].asnumpy(), np.diag(np.cos(t) * H(0.25)))


def test_vmap_of_grad_updates_a_parameter_alike_in_both_modes():
    out, _, eager_net, graph_net = _both(VmapOfGrad, X)
    g16 = H(1) + np.cos(H(1.0))  # d/da (a + sin(a)) at a = max(w) = 1, in float16
    assert out[0].dtype == F16 and out[0].shape == (2, 3, 1)
    np.testing.assert_array_equal(out[0].asnumpy(), np.full((2, 3, 1), g16))
    want = np.array([[0.0, 0.0, 1.0]], np.float32) - np.float32(g16)
    np.testing.assert_array_equal(eager_net.w.asnumpy(), want)
    np.testing.assert_array_equal(graph_net.w.asnumpy(), want)


GRAD = ops.grad(_sin_scaled)


class CallsGrad(nn.Cell):
    def construct(self, x):
        return GRAD(x)


def test_one_eager_gradient_compiles_once_per_scope():
    """The same gradient function called in a float16 Cell and outside any: each call
    gets its scope's arithmetic, whichever compiled first."""
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_target="python")
    x = Tensor(X.copy())
    t = X.astype(H) * H(0.25)
    half = ((np.ones(3, H) * np.cos(t)) * H(0.25)).astype(np.float32)
    full = GRAD(x).asnumpy()
    np.testing.assert_allclose(full, np.cos(X * np.float32(0.25)) * 0.25, rtol=1e-6)
    np.testing.assert_array_equal(CallsGrad().to_float(F16)(x).asnumpy(), half)
    np.testing.assert_array_equal(GRAD(x).asnumpy(), full)
    np.testing.assert_array_equal(CallsGrad()(x).asnumpy(), full)
    np.testing.assert_array_equal(CallsGrad().to_float(F16)(x).asnumpy(), half)


MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "what it printed is in this file's notes")
def test_gradients_match_mindspores_pynative_mode(tmp_path):
    script = textwrap.dedent("""
        import json, numpy as np, mindspore as ms
        from mindspore import nn, ops, Tensor
        C32 = Tensor(np.full((3,), 0.25, np.float32))
        def f(a):
            return ops.sin(a * C32)
        class Grads(nn.Cell):
            def construct(self, x):
                value, g = ops.value_and_grad(f)(x)
                return ops.grad(lambda a: ops.sin(a * C32))(x), value, g
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
        out = Grads().to_float(ms.float16)(Tensor(np.array([0.3, 0.7, 1.1], np.float32)))
        print(json.dumps([[str(o.dtype), o.asnumpy().astype(np.float64).tolist()]
                          for o in out]))
    """)
    proc = subprocess.run([str(MINDSPORE), "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        _, out = _run(Grads, mode, X)
        assert [str(o.dtype) for o in out] == [d for d, _ in theirs]
        for o, (_, values) in zip(out, theirs):
            np.testing.assert_array_equal(o.asnumpy().astype(np.float64), values)
