"""The per-signature call path (``jit.fast_path``): taken for repeated calls of one
signature, and never when it would give another answer than the full dispatch."""

import numpy as np

import msc as ms
from msc import nn, ops
from msc.frontend.jit import MISS, cell_cache

SCALE = 2.0  # a global the function reads: a change recompiles


@ms.jit
def scaled(x, y):
    return x * SCALE + y


def call_path_taken(fn, *args):
    """Whether the call path answers for ``args`` (then it gave the result)."""
    return fn.cache.fast is not None and fn.cache.fast(args) is not MISS


def test_repeated_calls_take_the_path_and_agree_with_numpy():
    ms.set_context(jit_target="python")
    x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32)
    for _ in range(3):
        out = scaled(ms.Tensor(x), ms.Tensor(y))
        np.testing.assert_array_equal(out.asnumpy(), x * 2 + y)
    assert type(out) is ms.Tensor and out.dtype == ms.float32
    assert call_path_taken(scaled, ms.Tensor(x), ms.Tensor(y))
    assert scaled.cache.compiles == 1


def test_other_signatures_layouts_and_contexts_miss():
    ms.set_context(jit_target="python")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    scaled(ms.Tensor(x), ms.Tensor(x))
    assert not call_path_taken(scaled, ms.Tensor(x.astype(np.float64)), ms.Tensor(x))
    assert not call_path_taken(scaled, ms.Tensor(x[:, :2]), ms.Tensor(x[:, :2]))
    strided = ms.Tensor.wrap(np.arange(12, dtype=np.float32).reshape(2, 6)[:, ::2])
    assert not call_path_taken(scaled, strided, ms.Tensor(x))
    np.testing.assert_array_equal(scaled(strided, ms.Tensor(x)).asnumpy(),
                                  strided.asnumpy() * 2 + x)
    assert not call_path_taken(scaled, ms.Tensor(x))  # wrong count: the full path's error
    scaled(ms.Tensor(x), ms.Tensor(x))
    ms.set_context(if_to_select=False)  # any context change
    assert not call_path_taken(scaled, ms.Tensor(x), ms.Tensor(x))


def test_a_changed_global_recompiles_through_the_full_path():
    global SCALE
    ms.set_context(jit_target="python")
    x = np.ones(3, np.float32)
    scaled(ms.Tensor(x), ms.Tensor(x))
    try:
        SCALE = 5.0
        np.testing.assert_array_equal(scaled(ms.Tensor(x), ms.Tensor(x)).asnumpy(), x * 5 + x)
    finally:
        SCALE = 2.0


class Affine(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.eye(3, dtype=np.float32)), name="w")

    def construct(self, x):
        return ops.matmul(x, self.w)


def test_cells_see_set_data_and_assign_through_the_path():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    net = Affine()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    net(ms.Tensor(x))
    assert cell_cache(net).fast is not None
    w = np.arange(9, dtype=np.float32).reshape(3, 3)
    net.w.set_data(ms.Tensor(w))
    np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), x @ w)
    ops.assign(net.w, ms.Tensor(w * 2))
    np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), x @ (w * 2))


class SumOfParams(nn.Cell):
    """Reads a ParameterTuple (checked by identity until a Parameter gets a new buffer)."""

    def __init__(self):
        super().__init__()
        self.params = ms.ParameterTuple([
            ms.Parameter(ms.Tensor(np.full(3, i, np.float32)), name=f"p{i}") for i in range(3)])

    def construct(self, xs):
        out = ()
        for p, x in zip(self.params, xs):
            out = out + (ops.reduce_sum(p) * x,)
        return out


def test_tuple_arguments_take_the_path_and_new_parameter_shapes_recompile():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="python")
    net = SumOfParams()
    xs = tuple(ms.Tensor(np.float32(i + 1) * np.ones(2, np.float32)) for i in range(3))
    for _ in range(2):
        out = net(xs)
    assert [o.asnumpy().tolist() for o in out] == [[0, 0], [6, 6], [18, 18]]
    assert cell_cache(net).fast((xs,)) is not MISS
    assert cell_cache(net).fast((xs[:2],)) is MISS  # another tuple length
    net.params[1].set_data(ms.Tensor(np.ones(5, np.float32)))  # a new buffer, a new shape
    out = net(xs)
    assert out[1].asnumpy().tolist() == [10, 10]
    assert cell_cache(net).compiles == 2


class Doubled(nn.Cell):
    """Takes a tuple of many Tensors of one shape and dtype: the call path checks them with
    C loops (``check_alike``), and must miss for any element that differs."""

    def construct(self, xs):
        out = ()
        for x in xs:
            out = out + (x * 2,)
        return out


def test_a_tuple_of_many_alike_tensors_takes_the_path_and_misses_on_any_odd_one():
    ms.set_context(mode=ms.GRAPH_MODE, jit_target="numba")
    net = Doubled()
    arrays = [np.full((2, 3), i, np.float32) for i in range(6)]
    xs = tuple(ms.Tensor(a) for a in arrays)
    for _ in range(2):
        out = net(xs)
    assert type(out) is tuple and all(type(o) is ms.Tensor for o in out)
    assert [o.asnumpy().tolist() for o in out] == [(a * 2).tolist() for a in arrays]
    fast = cell_cache(net).fast
    assert fast((xs,)) is not MISS
    odd = [ms.Tensor(arrays[0].astype(np.float64)), ms.Tensor(arrays[0][:, :2]),
           ms.Tensor.wrap(np.full((3, 2), 1, np.float32).T),  # not C-contiguous
           ms.Parameter(ms.Tensor(arrays[0]), name="p"), arrays[0]]
    for x in odd:
        assert fast((xs[:3] + (x,) + xs[4:],)) is MISS
        got = net(xs[:3] + (x,) + xs[4:])  # the full dispatch's answer
        assert got[3].asnumpy().tolist() == (np.asarray(x.asnumpy() if isinstance(
            x, ms.Tensor) else x) * 2).tolist()
    assert fast((xs[:5],)) is MISS
