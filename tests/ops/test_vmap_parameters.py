"""``vmap`` over Parameters passed as arguments with a batch axis, as MindSpore's tests of
the ``Apply*`` optimizer primitives write it: each example reads and updates its own
slice of the stacked Parameter. Results against MindSpore 2.10's recorded outputs,
against the primitive applied eagerly example by example (one Parameter each), and
against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.ops import operations as P
from msc.ops.functional import vmap


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def proximal_gd(var, alpha, l1, l2, delta):
    return P.ApplyProximalGradientDescent()(var, alpha, l1, l2, delta)


def numpy_proximal_gd(var, alpha, l1, l2, delta):
    prox = var - alpha * delta
    return np.sign(prox) * np.maximum(np.abs(prox) - alpha * l1, 0) / (1 + alpha * l2)


class ProximalVmap(nn.Cell):
    """MindSpore's test: the stacked var batched with alpha and delta."""

    def __init__(self, fn):
        super().__init__()
        self.var = Parameter(Tensor(np.array([[[0.6, 0.4], [0.1, 0.5]],
                                              [[0.6, 0.4], [0.1, 0.5]]], np.float32)), name="var")
        self.vmapped = vmap(fn, in_axes=(0, 0, None, None, 0), out_axes=0)

    def construct(self, alpha, l1, l2, delta):
        return self.vmapped(self.var, alpha, l1, l2, delta)


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_mindspores_proximal_gradient_descent_vmap(mode):
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    delta = np.array([[[0.3, 0.7], [0.1, 0.8]], [[0.3, 0.7], [0.1, 0.8]]], np.float32)
    alpha = np.array([0.01, 0.01], np.float32)
    net = ProximalVmap(proximal_gd)
    var0 = net.var.asnumpy().copy()
    out = net(Tensor(alpha), 0.0, 0.0, Tensor(delta))
    assert isinstance(out, Tensor) and out.shape == (2, 2, 2) and out.dtype == ms.float32
    recorded = np.array([[0.597, 0.393], [0.099, 0.492]], np.float32)  # MindSpore 2.10
    np.testing.assert_allclose(out.asnumpy()[0], recorded, rtol=1e-3)
    want = numpy_proximal_gd(var0, alpha[:, None, None], 0.0, 0.0, delta)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(net.var.asnumpy(), want, rtol=1e-6)  # written in place


class NestedProximalVmap(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        var = [[[[0.6, 0.4], [0.1, 0.5]], [[0.7, 0.4], [0.1, 0.5]]],
               [[[0.8, 0.4], [0.1, 0.5]], [[0.9, 0.4], [0.1, 0.5]]]]
        self.var = Parameter(Tensor(np.array(var, np.float32)), name="var")
        inner = vmap(fn, in_axes=(0, None, None, None, 0), out_axes=0)
        self.vmapped = vmap(inner, in_axes=(0, None, None, None, 0), out_axes=0)

    def construct(self, alpha, l1, l2, delta):
        return self.vmapped(self.var, alpha, l1, l2, delta)


def test_nested_vmap_of_proximal_gradient_descent():
    delta = np.tile(np.array([[0.3, 0.7], [0.1, 0.8]], np.float32), (2, 2, 1, 1))
    net = NestedProximalVmap(proximal_gd)
    var0 = net.var.asnumpy().copy()
    out = net(Tensor(0.2), Tensor(0.1), Tensor(0.0), Tensor(delta))
    recorded = np.array([[[0.52, 0.24], [0.06, 0.32]], [[0.62, 0.24], [0.06, 0.32]]])
    np.testing.assert_allclose(out.asnumpy()[0], recorded, rtol=1e-3, atol=1e-6)
    want = numpy_proximal_gd(var0, 0.2, 0.1, 0.0, delta)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(net.var.asnumpy(), want, rtol=1e-5, atol=1e-7)


# --- every Apply* primitive: vmap against the examples one by one ----------------------------

N = 3


def _rows(rng, positive=False):
    a = rng.standard_normal((N, 2, 3)).astype(np.float32)
    return np.abs(a) + 0.1 if positive else a


def _full(value):
    return np.full((N,), value, np.float32)


# name: (primitive, slots (positive or not) then hyper-parameters: an array with a batch
# axis, or a number shared by every example)
CASES = {
    "ApplyGradientDescent": (P.ApplyGradientDescent, (False,), (_full(0.1), "g")),
    "ApplyProximalGradientDescent": (P.ApplyProximalGradientDescent, (False,),
                                     (_full(0.1), 0.05, 0.02, "g")),
    "ApplyAdagrad": (P.ApplyAdagrad, (False, True), (0.1, "g")),
    "ApplyAdagradV2": (lambda: P.ApplyAdagradV2(epsilon=1e-6), (False, True), (0.1, "g")),
    "ApplyMomentum": (P.ApplyMomentum, (False, False), (0.1, "g", 0.9)),
    "ApplyRMSProp": (P.ApplyRMSProp, (False, True, False), (0.1, "g", 0.9, 0.5, 1e-6)),
    "ApplyAdadelta": (P.ApplyAdadelta, (False, True, True),
                      (_full(0.1), _full(0.9), _full(1e-6), "g")),
    "ApplyProximalAdagrad": (P.ApplyProximalAdagrad, (False, True),
                             (_full(0.1), _full(0.01), _full(0.02), "g")),
    "ApplyPowerSign": (P.ApplyPowerSign, (False, False),
                       (_full(0.1), _full(2.7), _full(0.9), _full(0.8), "g")),
    "ApplyAddSign": (P.ApplyAddSign, (False, False),
                     (_full(0.1), _full(1.0), _full(0.9), _full(0.8), "g")),
    "ApplyAdaMax": (P.ApplyAdaMax, (False, False, True),
                    (_full(0.9), _full(0.1), _full(0.9), _full(0.99), _full(1e-6), "g")),
    "ApplyFtrl": (P.ApplyFtrl, (False, True, False), ("g", 0.1, 0.01, 0.02, -0.5)),
}


def _inputs(name):
    make, slots, hypers = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name))
    params = [_rows(rng, positive) for positive in slots]
    values = [_rows(rng) if isinstance(h, str) else h for h in hypers]
    return make, params, values


class Stacked(nn.Cell):
    def __init__(self, op, params, axes):
        super().__init__()
        self.params = ms.ParameterTuple(Parameter(Tensor(p), name=f"p{i}")
                                        for i, p in enumerate(params))

        def update(*args):
            return op(*args)

        self.vmapped = vmap(update, in_axes=axes, out_axes=0)

    def construct(self, *hypers):
        return self.vmapped(*self.params, *hypers)


def _parts(out):
    return [o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_of_apply_primitives_updates_each_examples_slice(name):
    make, params, values = _inputs(name)
    axes = (0,) * len(params) + tuple(None if isinstance(v, float) else 0 for v in values)
    net = Stacked(make(), params, axes)
    got = _parts(net(*(v if isinstance(v, float) else Tensor(v) for v in values)))

    ms.set_context(mode=ms.PYNATIVE_MODE)  # each example eagerly, with Parameters of its own
    rows, slots = [], []
    for k in range(N):
        own = [Parameter(Tensor(p[k]), name=f"q{i}") for i, p in enumerate(params)]
        rows.append(_parts(make()(*own, *(v if isinstance(v, float) else Tensor(v[k])
                                          for v in values))))
        slots.append([p.asnumpy() for p in own])
    for i, part in enumerate(got):
        np.testing.assert_allclose(part, np.stack([r[i] for r in rows]), rtol=1e-5, atol=1e-6)
    for i, p in enumerate(net.params):
        np.testing.assert_allclose(p.asnumpy(), np.stack([s[i] for s in slots]),
                                   rtol=1e-5, atol=1e-6)


def test_vmap_of_adagrad_against_numpy():
    make, (var, accum), (lr, grad) = _inputs("ApplyAdagrad")
    net = Stacked(make(), [var, accum], (0, 0, None, 0))
    out_var, out_accum = net(lr, Tensor(grad))
    accum_want = accum + grad * grad
    var_want = var - lr * grad / np.sqrt(accum_want)
    np.testing.assert_allclose(out_var.asnumpy(), var_want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out_accum.asnumpy(), accum_want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.params[0].asnumpy(), var_want, rtol=1e-5, atol=1e-6)


# --- writes through other axes and shared values -------------------------------------------


class AxisOne(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), name="p")
        self.vmapped = vmap(self.step, in_axes=(1, 0), out_axes=0)

    def step(self, p, x):
        P.Assign()(p, p * 2 + x)
        return p + 1

    def construct(self, x):
        return self.vmapped(self.p, x)


def test_a_parameter_batched_along_axis_one_is_written_column_by_column():
    net = AxisOne()
    out = net(Tensor(np.array([10.0, 20.0, 30.0], np.float32)))
    p = np.arange(6, dtype=np.float32).reshape(2, 3) * 2 + np.array([10.0, 20.0, 30.0])
    np.testing.assert_allclose(net.p.asnumpy(), p)  # recorded from MindSpore 2.10 too
    np.testing.assert_allclose(out.asnumpy(), p.T + 1)


class SharedValue(nn.Cell):
    def __init__(self, axis):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="p")
        self.vmapped = vmap(self.fill, in_axes=(axis, None), out_axes=0)

    def fill(self, p, row):
        ops.assign(p, row)
        return p

    def construct(self, row):
        return self.vmapped(self.p, row)


@pytest.mark.parametrize("axis", [0, 1])
def test_a_value_shared_by_every_example_fills_each_slice(axis):
    net = SharedValue(axis)
    row = np.array([1.0, 2.0], np.float32) if axis == 0 else np.array([1.0, 2.0, 3.0], np.float32)
    out = net(Tensor(row))
    np.testing.assert_allclose(out.asnumpy(), np.broadcast_to(row, out.shape))
    np.testing.assert_allclose(net.p.asnumpy(), np.broadcast_to(row, (3, 2)) if axis == 0
                               else np.broadcast_to(row[:, None], (3, 2)))


class UnbatchedArgument(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros(2, np.float32)), name="p")
        self.vmapped = vmap(self.write, in_axes=(None, 0), out_axes=0)

    def write(self, p, x):
        ops.assign(p, x)
        return x

    def construct(self, x):
        return self.vmapped(self.p, x)


def test_writing_a_batched_value_into_an_unbatched_parameter_argument_is_an_error():
    with pytest.raises(ValueError, match="batched value into a Parameter"):
        UnbatchedArgument()(Tensor(np.ones((4, 2), np.float32)))


class MaskedWrite(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros((4, 2), np.float32)), name="p")
        self.vmapped = vmap(self.write, in_axes=(0, 0), out_axes=0)

    def write(self, p, x):
        if x.sum() > 0:
            ops.assign(p, x)
        return x

    def construct(self, x):
        return self.vmapped(self.p, x)


def test_a_write_under_a_condition_that_differs_between_examples_is_an_error():
    with pytest.raises(ValueError, match="under a condition that differs"):
        MaskedWrite()(Tensor(np.ones((4, 2), np.float32)))


class AssignNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.assign = P.Assign()
        self.value = Tensor([3, 4], ms.int32)

    def construct(self, x):
        return self.assign(x, self.value)


def test_mindspores_auto_monad_vmap_test():
    """tests/st/auto_monad/test_auto_monad_vmap.py: a shared value assigned to each row of
    a Parameter argument, then a write after the vmap sees it."""
    batched = ops.vmap(AssignNet())

    @ms.jit
    def program(a):
        c = Tensor([[1, 2], [3, 4], [5, 6]], ms.int32)
        out = batched(a)
        c = a + c
        P.AssignAdd()(a, c)
        return out, a

    a = Parameter(Tensor([[1, 2], [3, 4], [5, 6]], ms.int32), name="param_a")
    out, after = program(a)
    np.testing.assert_array_equal(out.asnumpy(), [[3, 4], [3, 4], [3, 4]])
    np.testing.assert_array_equal(after.asnumpy(), [[7, 10], [9, 12], [11, 14]])
    np.testing.assert_array_equal(a.asnumpy(), [[7, 10], [9, 12], [11, 14]])
