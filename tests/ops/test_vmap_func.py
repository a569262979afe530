"""``vmap`` on both targets: every in_axes/out_axes form, several inputs and outputs,
nested vmap, Cells and jit_class methods, vmap inside graphs and @jit, control flow on
batched conditions, Parameters, gradients in both orders, errors; each result against
the same function applied example by example in a Python loop and against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops, vmap
from msc.ops import composite as C

@pytest.fixture(params=["python"])
def target(request):
    """The batching transform does not depend on the target: most tests run on the
    python target; ``each_target`` adds numba where the batched code is worth compiling."""
    ms.set_context(jit_target=request.param)
    yield request.param


@pytest.fixture(params=["numba", "python"])
def each_target(request):
    ms.set_context(jit_target=request.param)
    yield request.param


def rand(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def loop(fn, args, in_axes, out_axes=0):
    """``fn`` applied example by example (eagerly) and the results stacked."""
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    size = next(a.shape[ax] for a, ax in zip(args, axes) if ax is not None)
    rows = [fn(*(a if ax is None else Tensor(np.take(a.asnumpy(), k, axis=ax))
                 for a, ax in zip(args, axes))) for k in range(size)]
    if isinstance(rows[0], tuple):
        outs = out_axes if isinstance(out_axes, tuple) else (out_axes,) * len(rows[0])
        return tuple(np.stack([r[i].asnumpy() for r in rows], axis=o)
                     for i, o in enumerate(outs))
    return np.stack([r.asnumpy() for r in rows], axis=out_axes)


def close(got, want, rtol=1e-5, atol=1e-6):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            close(g, w, rtol, atol)
        return
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# --- the tutorial's hswish -----------------------------------------------------------------


def hswish(x):
    return ops.HSwish()(x)


def test_the_tutorials_hswish_over_100_rows(each_target):
    x = rand(100, 2)
    got = vmap(hswish, in_axes=(0,))(x)
    a = x.asnumpy()
    close(got, a * np.clip(a + 3, 0, 6) / 6)
    close(got, loop(hswish, [x], (0,)))


# --- in_axes and out_axes -----------------------------------------------------------------


def affine(x, w, b):
    return ops.matmul(x, w) + b


@pytest.mark.parametrize("in_axes, shapes", [
    (0, [(4, 3), (4, 3, 2), (4, 2)]),
    ((0, None, None), [(4, 3), (3, 2), (2,)]),
    ([1, None, 0], [(3, 4), (3, 2), (4, 2)]),
    ((-1, 2, None), [(3, 4), (3, 2, 4), (2,)]),
    ((None, -3, -1), [(3,), (4, 3, 2), (2, 4)]),
])
def test_in_axes_forms(in_axes, shapes, target):
    args = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    close(vmap(affine, in_axes=in_axes)(*args), loop(affine, args, in_axes))


def stats(x, y):
    return x * y, (x - y).sum(), ops.matmul(x, y.T)


@pytest.mark.parametrize("out_axes", [0, -1, (1, 0, 2), [0, -1, -2], (2, -1, 1)])
def test_out_axes_forms_over_several_outputs(out_axes, target):
    x, y = rand(5, 2, 3, seed=1), rand(5, 2, 3, seed=2)
    got = vmap(stats, in_axes=0, out_axes=out_axes)(x, y)
    want = loop(stats, [x, y], 0)
    outs = out_axes if isinstance(out_axes, (tuple, list)) else (out_axes,) * 3
    want = tuple(np.moveaxis(w, 0, o) for w, o in zip(want, outs))
    close(got, want)


def shift(x, y):
    return x + 1, y * 2


def test_an_unbatched_result_is_broadcast_or_kept_by_none(target):
    x, y = rand(4, 3), rand(3)
    a, b = vmap(shift, in_axes=(0, None), out_axes=(0, None))(x, y)
    close(a, x.asnumpy() + 1)
    close(b, y.asnumpy() * 2)
    a, b = vmap(shift, in_axes=(0, None), out_axes=1)(x, y)
    close(b, np.broadcast_to((y.asnumpy() * 2)[:, None], (3, 4)).copy())


def pair_sum(p, scale):
    return (p[0] + p[1]) * scale


def test_nested_in_axes_match_a_tuple_argument_and_numbers_pass_through(target):
    a, b = rand(3, 5, seed=3), rand(5, 3, seed=4)
    got = vmap(pair_sum, in_axes=((1, 0), None))((a, b), 2.0)
    close(got, (a.asnumpy().T + b.asnumpy()) * 2)


def outer(x, y):
    return x * y


def test_nested_vmap_is_an_outer_product(target):
    x, y = rand(4, seed=5), rand(3, seed=6)
    got = vmap(vmap(outer, in_axes=(None, 0)), in_axes=(0, None))(x, y)
    close(got, np.outer(x.asnumpy(), y.asnumpy()))


# --- per-example contractions: 1-D operands on either side ---------------------------------


def left(w, v):
    return ops.matmul(w, v)


def right(v, w):
    return ops.matmul(v, w)


def test_matmul_with_a_per_example_vector_on_either_side(each_target):
    """MindSpore 2.10 gets ``matmul(w, x)`` with a batched vector wrong; msc must not."""
    w, v = rand(4, 3, seed=7), rand(6, 3, seed=8)
    close(vmap(left, in_axes=(None, 0))(w, v), v.asnumpy() @ w.asnumpy().T)
    close(vmap(right, in_axes=(0, None))(v, rand(3, 4, seed=9)),
          v.asnumpy() @ rand(3, 4, seed=9).asnumpy())
    ws = rand(6, 4, 3, seed=10)
    close(vmap(left, in_axes=(0, 0))(ws, v), np.einsum("nij,nj->ni", ws.asnumpy(),
                                                       v.asnumpy()))


def dense_softmax(x, w, g):
    return ops.softmax(ops.dense(x, w) * g, -1)


def test_dense_and_softmax_with_per_example_weights(target):
    x, w, g = rand(5, 2, 3, seed=11), rand(5, 4, 3, seed=12), rand(4, seed=13)
    close(vmap(dense_softmax, in_axes=(0, 0, None))(x, w, g), loop(dense_softmax, [x, w, g],
                                                               (0, 0, None)))


def picks(table, idx):
    return ops.gather(table, idx, 0)


def test_gather_with_batched_table_indices_or_both(target):
    table = rand(4, 5, 3, seed=14)
    idx = Tensor(np.array([[0, 4, -1], [2, 2, 1], [3, 0, 0], [-5, 1, 4]], np.int32))
    for axes in [(0, 0), (0, None), (None, 0)]:
        t = table if axes[0] is not None else Tensor(table.asnumpy()[0])
        i = idx if axes[1] is not None else Tensor(idx.asnumpy()[0])
        close(vmap(picks, in_axes=axes)(t, i), loop(picks, [t, i], axes))


# --- control flow on batched conditions ----------------------------------------------------


def branchy(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x
    return y + 1


def counting(x):
    """Doubles a row until it sums to 20 (a row summing below -3 never does)."""
    n = ops.zeros((), ms.float32)
    while x.sum() < 20:
        x = x * 2 + 1
        n = n + 1
    return x, n


def test_if_and_while_on_batched_conditions(each_target):
    x = rand(8, 3, seed=15)
    close(vmap(branchy)(x), loop(branchy, [x], 0))
    close(vmap(counting)(x), loop(counting, [x], 0))


def guarded(x):
    if x.max() > 5:
        raise ValueError("an example above 5")
    return x


def test_a_raise_under_a_batched_condition_fires_only_when_an_example_reaches_it(target):
    x = rand(4, 3, seed=16)
    close(vmap(guarded)(x), x.asnumpy())
    big = x.asnumpy().copy()
    big[2, 1] = 9
    with pytest.raises(ValueError, match="an example above 5"):
        vmap(guarded)(Tensor(big))


def checked_product(a, b):
    h = a
    if (b > 0.5).all():
        pass
    elif h <= -1.0:
        raise ValueError("a at most -1")
    else:
        h = ops.minimum(h, h)
    return h * b


def product_and_gradient(a, b):
    return ops.value_and_grad(checked_product, 1)(a.max(), b.max())


class GradsPerRow(nn.Cell):
    def construct(self, x, y):
        return vmap(product_and_gradient, in_axes=(0, 0))(x, y)


def test_a_gradient_through_a_raise_under_a_batched_condition(each_target):
    """The batched if's branches each return a state token inside a tuple (the raise's
    effects, through the gradient): the else branch's token follows the then branch's
    (msc raised InternalCompilerError: cannot batch a value of type <UMonad>)."""
    x = np.array([[1.0, 2.0], [0.25, -0.5], [0.5, 0.75], [-2.0, 0.125]], np.float32)
    top = x.max(axis=1)
    eager = GradsPerRow()(Tensor(x), Tensor(x))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = GradsPerRow()(Tensor(x), Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    close(eager, (top * top, top))
    close(graph, (top * top, top))


# --- Cells, jit_class, graphs, @jit ----------------------------------------------------------


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(rand(3, seed=17), name="w")
        self.dense = nn.Dense(3, 2)

    def construct(self, x):
        return self.dense(x * self.w)


class PerRow(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Scale()

    def construct(self, x):
        return vmap(self.inner, in_axes=0)(x)


def test_vmap_of_a_cell_shares_its_parameters(target):
    net, x = Scale(), rand(5, 3, seed=18)
    close(vmap(net, in_axes=0)(x), loop(net, [x], 0))


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_vmap_inside_construct(mode, each_target):
    ms.set_context(mode=mode)
    net, x = PerRow(), rand(5, 3, seed=19)
    close(net(x), loop(net.inner, [x], 0))


@ms.jit_class
class Poly:
    def __init__(self, c):
        self.c = c

    def at(self, x):
        return self.c * x * x + x


@ms.jit
def jitted(x, y):
    return vmap(outer, in_axes=(0, None))(x, y) + vmap(Poly(2.0).at)(x)[:, None]


def test_vmap_in_jit_and_of_a_jit_class_method(target):
    x, y = rand(4, seed=20), rand(3, seed=21)
    a = x.asnumpy()
    close(jitted(x, y), np.outer(a, y.asnumpy()) + (2 * a * a + a)[:, None])


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.calls = Parameter(Tensor(np.array(0.0, np.float32)), name="calls")
        self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")

    def construct(self, x):
        ops.assign_add(self.calls, 1.0)
        return x * self.w


class BatchedWrite(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros(3, np.float32)), name="p")

    def construct(self, x):
        ops.assign(self.p, x)
        return x


def test_parameters_read_and_written_once_and_a_batched_write_is_an_error(target):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Counter()
    close(vmap(net)(rand(5, 3, seed=22)), rand(5, 3, seed=22).asnumpy())
    assert float(net.calls.asnumpy()) == 1.0  # an unbatched write happens once per call
    with pytest.raises(ValueError, match="batched value into a Parameter"):
        vmap(BatchedWrite())(rand(5, 3))


# --- gradients ------------------------------------------------------------------------------


def loss(w, x):
    return (ops.tanh(ops.matmul(x, w)) ** 2).sum()


def test_per_example_gradients_are_vmap_of_grad(target):
    w, xs = rand(3, 2, seed=23), rand(6, 4, 3, seed=24)
    got = vmap(ms.grad(loss), in_axes=(None, 0))(w, xs)
    wn, xn = w.asnumpy(), xs.asnumpy()
    h = np.tanh(xn @ wn)
    want = np.einsum("nki,nkj->nij", xn, 2 * h * (1 - h * h))
    close(got, want, rtol=1e-4, atol=1e-5)


def batch_loss(w, xs):
    return vmap(loss, in_axes=(None, 0))(w, xs).mean()


def test_grad_of_vmap_is_the_mean_of_per_example_gradients(each_target):
    w, xs = rand(3, 2, seed=25), rand(6, 4, 3, seed=26)
    got = ms.grad(batch_loss)(w, xs)
    per = vmap(ms.grad(loss), in_axes=(None, 0))(w, xs).asnumpy()
    close(got, per.mean(axis=0), rtol=1e-4, atol=1e-5)
    got_op = C.GradOperation()(batch_loss)(w, xs)
    close(got_op, per.mean(axis=0), rtol=1e-4, atol=1e-5)


# --- no unrolling -------------------------------------------------------------------------


def test_the_batched_graph_does_not_grow_with_the_batch():
    from msc.compiler import arg_spec, compile_entry

    counts = []
    for n in (10, 1000):
        @ms.jit
        def batched(x):
            return vmap(counting)(x)

        x = Tensor(np.abs(rand(n, 3).asnumpy()))  # non-negative rows: every loop ends
        compiled = compile_entry(batched, [arg_spec(x)], store=None, target="python")
        counts.append(compiled.module.node_count())
        close(compiled.run([x]), loop(counting, [x], 0))
    assert counts[0] == counts[1]


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("call, message", [
    (lambda: vmap(outer)(rand(3), rand(4)), "should be equal, but got 3 and 4"),
    (lambda: vmap(outer, in_axes=(0,))(rand(3), rand(3)), "must be equal to the number"),
    (lambda: vmap(outer, in_axes=(2, 0))(rand(3, 2), rand(3)), r"out of bounds .* \[-2,2\)"),
    (lambda: vmap(outer, in_axes=None)(rand(3), rand(3)), "cannot be a single None"),
    (lambda: vmap(outer, in_axes=(None, None))(rand(3), rand(3)), "at least one argument"),
    (lambda: vmap(outer, in_axes=0.5), "can only be of type Int or None"),
    (lambda: vmap(outer, out_axes=2)(rand(3, 2), rand(3, 2)), "in 'out_axes' is out of bounds"),
    (lambda: vmap(stats, out_axes=1)(rand(5, 2, 3), rand(5, 2, 3)),
     r"axis: 1 in 'out_axes' is out of bounds for array of dimension \[-1,1\)"),
    (lambda: vmap(stats, out_axes=(0, 0))(rand(2, 3), rand(2, 3)),
     r"equal to the result size: 3, but got size: 2\."),
    (lambda: vmap(outer, out_axes=(0, None))(rand(3), rand(3)),
     r"equal to the result size: 1, but got size: 2\."),  # MindSpore 2.10's wording
    (lambda: vmap(shift, in_axes=(0, None), out_axes=(None, None))(rand(3), rand(2)),
     "None for a result that differs"),
    (lambda: vmap(outer, in_axes=(0, 0))(rand(3), 2.0), "must be a Tensor"),
    (lambda: vmap(outer)(rand(3), y=rand(3)), "unexpected keyword argument 'y'"),
    (lambda: vmap(3), "must be a 'Function' or 'Cell'"),
])
def test_errors_are_runtime_errors_with_mindspores_wording(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def refuses(x):
    raise TypeError("this function takes no tensors")


def test_a_users_raise_inside_the_batched_function_is_the_users_exception():
    @ms.jit
    def batched(x):
        return vmap(refuses)(x)

    with pytest.raises(TypeError, match="^this function takes no tensors") as info:
        batched(rand(3, 2))
    assert str(info.value) == "this function takes no tensors"
