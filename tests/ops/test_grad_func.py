"""Gradients (``GradOperation``, ``ms.grad``, ``ms.value_and_grad``) in graphs and
eagerly, on both targets, against derivatives written out by hand in numpy."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, ParameterTuple, Tensor, nn, ops
from msc.ir.rewrite import all_graphs
from msc.ops import composite as C
from msc.ops import functional as F

TARGETS = ["numba", "python"]


@pytest.fixture(params=TARGETS)
def graph_mode(request):
    ms.set_context(mode=ms.GRAPH_MODE, jit_target=request.param)
    yield request.param
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba")


# --- the tutorial's ForwardNet / BackwardNet -----------------------------------------------


class ForwardNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.array(0), ms.int32), name="param")

    def construct(self, x):
        out = 0
        i = 0
        while i < 3:
            F.assign(self.weight, i)
            out = x * self.weight + out
            i = i + 1
        return out


class BackwardNet(nn.Cell):
    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.forward_net = net
        self.grad = C.GradOperation(get_all=True)

    def construct(self, *inputs):
        return self.grad(self.forward_net)(*inputs)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_the_tutorials_backward_net_gives_three(mode, graph_mode):
    """Each Load sees the value the Assign before it wrote: d/dx = 0 + 1 + 2."""
    ms.set_context(mode=mode)
    forward = ForwardNet()
    grads = BackwardNet(forward)(Tensor(np.array(1), ms.int32))
    assert isinstance(grads, tuple) and len(grads) == 1
    assert grads[0].dtype == ms.int32 and grads[0].asnumpy() == 3
    assert forward.weight.asnumpy() == 2  # the writes happened, once each


# --- a tensor if, weights, and every GradOperation form ------------------------------------


W, B = np.array([0.5, -1.0], np.float32), np.array([0.1, 0.2], np.float32)


class Branchy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W), name="w")
        self.b = Parameter(Tensor(B), name="b")
        self.unused = Parameter(Tensor(np.array([7.0], np.float32)), name="unused")

    def construct(self, x, n):
        if x.sum() > 0:
            y = ops.tanh(x * self.w) + self.b
        else:
            y = ops.exp(x) * self.w
        return (y * y).sum() + n * 0


def branchy_grads(x):
    """(dx, dw, db) of sum(y * y) by hand."""
    x, w, b = x.astype(np.float64), W.astype(np.float64), B.astype(np.float64)
    if x.sum() > 0:
        t = np.tanh(x * w)
        dt = 2 * (t + b) * (1 - t * t)
        return dt * w, dt * x, 2 * (t + b)
    e = np.exp(x)
    return 2 * e * w * e * w, 2 * e * w * e, np.zeros(2)


@pytest.mark.parametrize("x", [[1.0, 2.0], [-1.0, -2.0]])
def test_grad_operation_forms_through_a_tensor_if(x, graph_mode):
    net = Branchy()
    params = ParameterTuple(net.trainable_params())
    xt, n = Tensor(np.array(x, np.float32)), Tensor(np.array(3, np.int32))
    dx, dw, db = branchy_grads(np.array(x))
    first = C.GradOperation()(net)(xt, n)
    np.testing.assert_allclose(first.asnumpy(), dx, rtol=1e-5)
    every = C.GradOperation(get_all=True)(net)(xt, n)
    assert len(every) == 2 and every[1].dtype == ms.int32 and every[1].asnumpy() == 0
    by_list = C.GradOperation(get_by_list=True)(net, params)(xt, n)
    assert [g.shape for g in by_list] == [(2,), (2,), (1,)]
    np.testing.assert_allclose(by_list[0].asnumpy(), dw, rtol=1e-5)
    np.testing.assert_allclose(by_list[1].asnumpy(), db, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(by_list[2].asnumpy(), [0.0])  # never read: zeros
    both = C.GradOperation(get_all=True, get_by_list=True)(net, params)(xt, n)
    np.testing.assert_allclose(both[0][0].asnumpy(), dx, rtol=1e-5)
    np.testing.assert_allclose(both[1][0].asnumpy(), dw, rtol=1e-5)
    sens = C.GradOperation(sens_param=True)(net)(xt, n, Tensor(np.float32(2.0)))
    np.testing.assert_allclose(sens.asnumpy(), 2 * dx, rtol=1e-5)


class TrainStep(nn.Cell):
    """A gradient inside construct, then an update: the grad's forward and the update
    write Parameters in program order."""

    def __init__(self):
        super().__init__()
        self.net = Branchy()
        self.calls = Parameter(Tensor(np.array(0, np.int32)), name="calls")
        self.grad = C.GradOperation(get_by_list=True)
        self.params = ParameterTuple(self.net.trainable_params())

    def construct(self, x, n):
        grads = self.grad(self.net, self.params)(x, n)
        ops.assign_add(self.calls, 1)
        ops.assign(self.net.w, self.net.w - 0.1 * grads[0])
        return grads[0]


def test_a_gradient_and_an_update_inside_construct(graph_mode):
    step = TrainStep()
    x = np.array([1.0, 2.0], np.float32)
    dw = branchy_grads(x)[1]
    got = step(Tensor(x), Tensor(np.array(1, np.int32)))
    np.testing.assert_allclose(got.asnumpy(), dw, rtol=1e-5)
    np.testing.assert_allclose(step.net.w.asnumpy(), W - 0.1 * dw, rtol=1e-5)
    assert step.calls.asnumpy() == 1


# --- ms.grad and ms.value_and_grad ---------------------------------------------------------


def loss(x, y):
    return (ops.sin(x) * y).sum(), x * 2


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_grad_positions_aux_and_value(mode, graph_mode):
    ms.set_context(mode=mode)
    x, y = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    dx, dy = np.cos(x) * y, np.sin(x)
    xt, yt = Tensor(x), Tensor(y)
    g = ms.grad(loss, grad_position=(0, 1), has_aux=True)(xt, yt)
    (gx, gy), aux = g
    np.testing.assert_allclose(gx.asnumpy(), dx, rtol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), dy, rtol=1e-5)
    np.testing.assert_allclose(aux[0].asnumpy(), x * 2)
    value, grads = ms.value_and_grad(loss, 1, has_aux=True)(xt, yt)
    np.testing.assert_allclose(value[0].asnumpy(), (np.sin(x) * y).sum(), rtol=1e-5)
    np.testing.assert_allclose(grads.asnumpy(), dy, rtol=1e-5)


def doubling(x, y):
    i = 0
    while x.sum() < 10:
        x = x * 2 + ops.sin(y)
        i = i + 1
    return (x * x).sum()


def doubling_numpy(x, y):
    while x.sum() < 10:
        x = x * 2 + np.sin(y)
    return (x * x).sum()


@pytest.mark.parametrize("x", [[1.0, 2.0], [0.1, 0.2], [20.0, 1.0]])
def test_gradients_through_a_tensor_while(x, graph_mode):
    """0, a few and many iterations; against central differences of the numpy loop."""
    x, y = np.array(x, np.float64), np.array([0.5, -0.3], np.float64)
    gx, gy = ms.grad(doubling, (0, 1))(Tensor(x.astype(np.float32)),
                                       Tensor(y.astype(np.float32)))
    eps, eye = 1e-6, np.eye(2)
    want_x = [(doubling_numpy(x + eps * e, y) - doubling_numpy(x - eps * e, y)) / (2 * eps)
              for e in eye]
    want_y = [(doubling_numpy(x, y + eps * e) - doubling_numpy(x, y - eps * e)) / (2 * eps)
              for e in eye]
    np.testing.assert_allclose(gx.asnumpy(), want_x, rtol=1e-4)
    np.testing.assert_allclose(gy.asnumpy(), want_y, rtol=1e-4, atol=1e-6)


class WritesInLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.float32(0)), name="count")

    def construct(self, x):
        while x.sum() < 10:
            x = x * 2
            ops.assign_add(self.count, 1.0)
        return x.sum()


def test_a_while_that_writes_runs_its_writes_once_and_differentiates(graph_mode):
    """The loop doubles [1, 2] twice (sum 3, 6, then 12): the gradient is 4 per element,
    as plain Python's chain rule gives, and the count is written once per iteration of
    the one forward run, as MindSpore does."""
    net = WritesInLoop()
    grad = C.GradOperation()(net)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(grad.asnumpy(), [4.0, 4.0])
    assert float(net.count.asnumpy()) == 2.0


def test_bad_arguments_are_mindspores_errors():
    with pytest.raises(ValueError):
        ms.grad(loss, grad_position=None)
    with pytest.raises(TypeError):
        ms.grad(loss, grad_position="x")
    with pytest.raises(TypeError):
        C.GradOperation(get_by_list=True)(loss)


class ReadsInLoopThenWrites(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, 0.5], np.float32)), name="w")

    def construct(self, x):
        while x.sum() < 10:
            x = x * 2 + self.w
        ops.assign(self.w, self.w * 0)
        return x.sum()


def test_a_loop_reading_a_weight_the_function_later_writes_sees_its_old_value(graph_mode):
    """The backward recomputes the loop from the weight's value at the loop's entry, not
    the value written after it: [1, 2] -> [2.5, 4.5] -> [5.5, 9.5] (sum 15), two
    doublings, so the gradient is 4 per element (plain Python's chain rule), and the
    weight ends zero."""
    net = ReadsInLoopThenWrites()
    grad = C.GradOperation()(net)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(grad.asnumpy(), [4.0, 4.0])
    np.testing.assert_array_equal(net.w.asnumpy(), [0.0, 0.0])


def stopped(x, y):
    return (x * ops.stop_gradient(x * y)).sum()


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_stop_gradient_ends_the_path(mode, graph_mode):
    ms.set_context(mode=mode)
    x, y = np.array([1.0, 2.0], np.float32), np.array([3.0, -1.0], np.float32)
    gx, gy = ms.grad(stopped, (0, 1))(Tensor(x), Tensor(y))
    np.testing.assert_allclose(gx.asnumpy(), x * y)  # d/dx of x * c, c = x * y held fixed
    np.testing.assert_array_equal(gy.asnumpy(), np.zeros(2, np.float32))


class Scaled(nn.Cell):
    @ms.lazy_inline
    def __init__(self, k):
        super().__init__()
        self.w = Parameter(Tensor(np.full(3, 0.5 + 0.1 * k, np.float32)), name="w")

    def construct(self, x):
        if x.sum() > 0:
            x = ops.tanh(x * self.w) + x
        else:
            x = ops.sin(x) - self.w
        return x


class Stack(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.blocks = nn.CellList([Scaled(k) for k in range(n)])

    def construct(self, x):
        for b in self.blocks:
            x = b(x)
        return (x * x).sum()


def stack_module(n, reuse):
    from msc.compiler import arg_spec, compile_entry

    ms.set_context(reuse=reuse)
    net = Stack(n)
    grad = C.GradOperation(get_by_list=True)(net, ParameterTuple(net.trainable_params()))

    @ms.jit
    def step(x):
        return grad(x)

    x = Tensor(np.array([0.3, -0.2, 0.4], np.float32))
    compiled = compile_entry(step, [arg_spec(x)], store=None, target="python")
    return compiled.module, [g.asnumpy() for g in compiled.run([x])]


def test_a_lazy_inline_blocks_backward_is_one_shared_graph():
    """Two and six blocks: one forward and one backward graph for the block, called from
    the entry; the entry grows by a fixed number of nodes per block; the gradients equal
    those with every block inlined."""
    sizes = {}
    for n in (2, 6):
        module, grads = stack_module(n, "lazy_inline")
        names = [g.name for g in all_graphs(module)[1:]]
        assert sum("_bwd" in name for name in names) == 1, names
        assert sum("_fwd" in name for name in names) == 1, names
        sizes[n] = len(module.entry_graph.nodes)
        _, inlined = stack_module(n, "off")
        for a, b in zip(grads, inlined):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    per_block = (sizes[6] - sizes[2]) / 4
    assert per_block < 20, sizes  # calls and plumbing, not the block's own nodes


class JitConstruct(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")

    @ms.jit
    def construct(self, x, y):
        return (x * y * self.w).sum()


def test_a_jit_construct_differentiated_from_pynative():
    """The jit notebook's case: PyNative mode, a Cell whose construct is @jit."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x, y = np.array([1.0, 2.0], np.float32), np.array([0.5, 4.0], np.float32)
    dx, dy = C.GradOperation(get_all=True)(JitConstruct())(Tensor(x), Tensor(y))
    np.testing.assert_allclose(dx.asnumpy(), y * [2.0, 3.0])
    np.testing.assert_allclose(dy.asnumpy(), x * [2.0, 3.0])


class _Poly(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.array([1.0, -2.0, 0.5], np.float32)), name="a")
        self.b = Parameter(Tensor(np.array([3.0, 0.25, -1.0], np.float32)), name="b")

    def construct(self, x):
        return (x * x * self.a + self.b * x).sum()


class _GradEachCall(nn.Cell):
    """A training cell's eager construct: a new gradient function on every call."""

    def __init__(self, net, weights):
        super().__init__()
        self.net, self.weights = net, ParameterTuple(weights)
        self.grad = C.GradOperation(get_by_list=True, sens_param=True)

    def construct(self, x, sens):
        return self.grad(self.net, self.weights)(x, sens)


def test_a_gradient_made_anew_on_each_eager_call_compiles_once():
    """``self.grad(self.net, self.weights)(...)`` in an eager construct is a new gradient
    function each call: equal ones (the same net, the same weights) share one compile,
    and other weights of the same net get their own, with their own gradients."""
    from msc.ops.function import grad_func

    ms.set_context(mode=ms.PYNATIVE_MODE, jit_target="python")
    net = _Poly()
    both, only_b = _GradEachCall(net, [net.a, net.b]), _GradEachCall(net, [net.b])
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.standard_normal(3).astype(np.float32)
        da, db = both(Tensor(x), Tensor(np.float32(2.0)))
        np.testing.assert_allclose(da.asnumpy(), 2 * x * x, rtol=1e-6)
        np.testing.assert_allclose(db.asnumpy(), 2 * x, rtol=1e-6)
        (db,) = only_b(Tensor(x), Tensor(np.float32(0.5)))
        np.testing.assert_allclose(db.asnumpy(), 0.5 * x, rtol=1e-6)
    compiled = list(grad_func._EAGER[net].values())
    assert [c.cache.compiles for c in compiled] == [1, 1]
