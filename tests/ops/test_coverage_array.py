"""Scatters into Parameters (``ops.scatter_add``, ``ops.ScatterNdMax``, ...), the
positional scatters (``slice_scatter``, ``diagonal_scatter``, ``masked_scatter``,
``index_put``), order statistics (``quantile``, ``nanmedian``, ``kthvalue``), ``histc``,
``cov``, ``choose``, ``fill_diagonal`` and the Tensor methods over them: compiled (the
python target: these compose ops whose numba lowerings have their own tests) == eager ==
numpy written independently, with MindSpore 2.10's results where it runs them
(quantile, kthvalue and Tensor.bitwise_not have no CPU kernel there: those follow its
documentation); gradients against finite
differences."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, Tensor, nn, ops
from msc.compiler import arg_spec, compile_entry
from tests.codegen import assert_same, numeric_grad, run_python_graph, to_numpy

RNG = np.random.default_rng(3)


class Scatters(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="a")
        self.b = Parameter(Tensor(np.ones((3, 2), np.float32)), name="b")
        self.c = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="c")

    def construct(self, rows, nd, u):
        ops.scatter_add(self.a, rows, u)
        ops.ScatterMax()(self.b, rows, u)
        ops.scatter_nd_update(self.c, nd, u[:2, 0])
        return ops.scatter_mul(self.a * 1, rows, u) + 0


def scatter_reference(rows, nd, u):
    a, b, c = (np.zeros((3, 2), np.float32), np.ones((3, 2), np.float32),
               np.zeros((3, 2), np.float32))
    np.add.at(a, rows, u)
    np.maximum.at(b, rows, u)
    c[tuple(nd.T)] = u[:2, 0]
    m = a.copy()
    np.multiply.at(m, rows, u)
    return a, b, c, m


def test_scatters_into_parameters():
    rows = np.array([0, 2, 0], np.int64)
    nd = np.array([[1, 1], [2, 0]], np.int64)
    u = np.array([[1.0, -1.0], [2.0, 2.0], [3.0, -5.0]], np.float32)
    a, b, c, m = scatter_reference(rows, nd, u)
    eager = Scatters()
    out = eager(Tensor(rows), Tensor(nd), Tensor(u))
    for p, want in ((eager.a, a), (eager.b, b), (eager.c, c)):
        np.testing.assert_array_equal(p.asnumpy(), want)
    np.testing.assert_array_equal(out.asnumpy(), m)
    net = Scatters()
    compiled = compile_entry(net, [arg_spec(x) for x in (rows, nd, u)], store=None,
                             target="python")
    got = compiled.run([Tensor(rows), Tensor(nd), Tensor(u)])
    np.testing.assert_array_equal(to_numpy(got), m)
    for p, want in ((net.a, a), (net.b, b), (net.c, c)):
        np.testing.assert_array_equal(p.asnumpy(), want)


def test_every_parameter_scatter_eagerly():
    """Each function and class against numpy's ``ufunc.at`` (MindSpore 2.10 gave the same
    on these inputs; integer division truncates)."""
    rows = np.array([0, 2, 0])
    u = np.array([[2.0, -1.0], [4.0, 2.0], [3.0, 5.0]], np.float32)
    for name, ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                        ("div", np.divide), ("max", np.maximum), ("min", np.minimum)):
        want = np.full((3, 2), 6.0, np.float32)
        ufunc.at(want, rows, u)
        for form in (getattr(ops, f"scatter_{name}"),
                     getattr(ops, f"Scatter{name.capitalize()}")(),
                     getattr(ops, f"scatter_nd_{name}"),
                     getattr(ops, f"ScatterNd{name.capitalize()}")()):
            p = Parameter(Tensor(np.full((3, 2), 6.0, np.float32)), name="p")
            index = rows if "Nd" not in getattr(form, "__name__", type(form).__name__) and \
                "_nd_" not in getattr(form, "__name__", "") else rows.reshape(-1, 1)
            out = form(p, Tensor(index), Tensor(u))
            np.testing.assert_allclose(p.asnumpy(), want, err_msg=name)
            np.testing.assert_allclose(out.asnumpy(), want, err_msg=name)
    p = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="p")
    ops.scatter_update(p, Tensor(np.array([[0, 2]])), Tensor(np.ones((1, 2, 2), np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [[1, 1], [0, 0], [1, 1]])
    q = Parameter(Tensor(np.ones((3, 2), np.int32)), name="q")
    ops.scatter_div(q, Tensor(np.array([0])), Tensor(np.full((1, 2), 2, np.int32)))
    np.testing.assert_array_equal(q.asnumpy(), [[0, 0], [1, 1], [1, 1]])


class Placed(nn.Cell):
    def construct(self, x, row, block, diag, mask, src):
        return (ops.select_scatter(x, row, 0, 1), ops.slice_scatter(x, block, 1, 1, 5, 2),
                x.diagonal_scatter(diag, 1), ops.masked_scatter(x, mask, src),
                x.index_put((Tensor(np.array([0, 2])), Tensor(np.array([1, 1]))), row[:1], True),
                x.slice_scatter(block, axis=1, start=1, end=5, step=2))


def test_positional_scatters(tmp_path):
    x = RNG.normal(size=(3, 6)).astype(np.float32)
    row = RNG.normal(size=6).astype(np.float32)
    block = RNG.normal(size=(3, 2)).astype(np.float32)
    diag = RNG.normal(size=3).astype(np.float32)
    mask = np.array([True, False, True, False, False, True])
    src = RNG.normal(size=20).astype(np.float32)
    sel = x.copy()
    sel[1] = row
    sli = x.copy()
    sli[:, 1:5:2] = block
    dg = x.copy()
    dg[np.arange(3), np.arange(3) + 1] = diag
    ms_ = x.copy()
    full = np.broadcast_to(mask, x.shape)
    ms_[full] = src[:full.sum()]
    ip = x.copy()
    ip[0, 1] += row[0]
    ip[2, 1] += row[0]
    inputs, expect = [x, row, block, diag, mask, src], (sel, sli, dg, ms_, ip, sli)
    assert_same(to_numpy(Placed()(*[Tensor(v) for v in inputs])), expect, "eager")
    assert_same(run_python_graph(Placed(), inputs, tmp_path), expect, "python")


class Stats(nn.Cell):
    def construct(self, x, y, i):
        return (ops.quantile(x, 0.3, 1), ops.nanquantile(y, 0.3, 1, True),
                x.quantile(Tensor(np.array([0.25, 1.0], np.float32))), ops.nanmedian(y, 1),
                x.kthvalue(2, 0), ops.histc(x, 4, -1.0, 1.0), ops.cov(x),
                i.choose((x[0], x[1]), "wrap"), x.fill_diagonal(5.0, True))


def test_statistics(tmp_path):
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    y = x.copy()
    y[1, 2] = np.nan
    i = np.array([0, 3, -1], np.int64)
    nanmed_idx = np.array([np.flatnonzero(r == np.sort(r[~np.isnan(r)])[(np.sum(~np.isnan(r)) - 1)
                                                                       // 2])[0] for r in y])
    order = np.argsort(x, 0, kind="stable")
    hist = np.histogram(x[(x >= -1) & (x <= 1)], 4, (-1.0, 1.0))[0].astype(np.float32)
    fd = x.copy()
    np.fill_diagonal(fd, 5.0, wrap=True)
    expect = (np.quantile(x, 0.3, 1).astype(np.float32),
              np.nanquantile(y, 0.3, 1, keepdims=True).astype(np.float32),
              np.quantile(x, [0.25, 1.0]).astype(np.float32),
              (y[np.arange(4), nanmed_idx], nanmed_idx.astype(np.int64)),
              (np.sort(x, 0)[1], order[1].astype(np.int64)), hist,
              np.cov(x).astype(np.float32), np.choose(i % 2, (x[0], x[1])), fd)
    assert_same(to_numpy(Stats()(*[Tensor(v) for v in (x, y, i)])), expect, "eager", 1e-5, 1e-6)
    assert_same(run_python_graph(Stats(), [x, y, i], tmp_path), expect, "python", 1e-5, 1e-6)


def test_statistics_edges():
    """MindSpore 2.10's values: histc over the data's own range, cov with weights."""
    h = ops.histc(Tensor(np.array([1.0, 2, 1, 4, 5], np.float32)), 4)
    np.testing.assert_array_equal(h.asnumpy(), [2, 1, 0, 2])
    c = ops.cov(Tensor(np.array([[0, 1, 2], [2, 1, 0.5]], np.float32)), correction=0,
                fweights=Tensor(np.array([1, 2, 1])),
                aweights=Tensor(np.array([0.5, 1.0, 2.0], np.float32)))
    np.testing.assert_allclose(c.asnumpy(), [[0.44444445, -0.2962963], [-0.2962963, 0.20987655]],
                               rtol=1e-6)
    assert np.isnan(ops.quantile(Tensor(np.array([1.0, np.nan], np.float32)), 0.5).asnumpy())
    with pytest.raises(ValueError, match="range"):
        ops.quantile(Tensor(np.ones(3, np.float32)), 1.5)
    with pytest.raises(ValueError, match="outside"):
        ops.choose(Tensor(np.array([2])), (Tensor(np.array([1])), Tensor(np.array([2]))), "raise")


class Methods(nn.Cell):
    def construct(self, x, k, seg):
        return (x.scatter_add(k, x[:2]), x.scatter_add(0, ops.ones((2, 3), ms.int64), x[:2]),
                x.scatter_max(k, x[:2] * 2), x.unsorted_segment_max(seg, 2),
                x.approximate_equal(x + 1e-6), x.adjoint(), x.soft_shrink(0.3),
                x.index_fill(1, Tensor(np.array([0])), 2.0), x.new_empty((2, 1)) * 0,
                x.renorm(2, 0, 1.0), x.searchsorted(Tensor(np.zeros((3, 1), np.float32))))


def test_tensor_methods(tmp_path):
    x = np.sort(RNG.normal(size=(3, 3)).astype(np.float32), 1)
    k = np.array([[2], [0]], np.int64)
    seg = np.array([1, 0, 1], np.int64)
    sa = x.copy()
    sa[[2, 0]] += x[:2]
    sd = x.copy()
    sd[1] += x[0] + x[1]
    sm = x.copy()
    sm[[2, 0]] = np.maximum(sm[[2, 0]], x[:2] * 2)
    seg_max = np.stack([x[1], np.maximum(x[0], x[2])])
    shrink = np.where(np.abs(x) > 0.3, x - 0.3 * np.sign(x), 0).astype(np.float32)
    filled = x.copy()
    filled[:, 0] = 2.0
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    renorm = np.where(norms > 1.0, x / (norms + 1e-7), x).astype(np.float32)
    search = np.array([np.searchsorted(r, 0.0) for r in x], np.int64).reshape(3, 1)
    want = (sa, sd, sm, seg_max, np.ones((3, 3), bool), x.T, shrink, filled,
            np.zeros((2, 1), np.float32), renorm, search)
    eager = to_numpy(Methods()(Tensor(x), Tensor(k), Tensor(seg)))
    got = run_python_graph(Methods(), [x, k, seg], tmp_path)
    for n, (e, g, w) in enumerate(zip(eager, got, want)):
        np.testing.assert_allclose(e, w, rtol=1e-5, atol=1e-6, err_msg=str(n))
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=str(n))


def test_layout_methods():
    x = Tensor(np.zeros((2, 3, 4), np.float32))
    assert x.strides == np.zeros((2, 3, 4), np.float32).strides
    assert x.stride() == (12, 4, 1) and x.stride(1) == 4 and x.storage_offset() == 0
    assert x.data_ptr() == x.asnumpy().ctypes.data and not x.is_pinned() and not x.has_init
    assert x.data_sync() is x and x.init is None


# --- gradients against finite differences -------------------------------------------------


def slices(v):
    return ops.slice_scatter(v * v, v[:, :2] * 3, 1, 0, 4, 2) + ops.diagonal_scatter(v, v[0, :3])


def masked(v):
    return ops.masked_scatter(v, Tensor(np.array([True, False, True, True])), v[1] * v[2])


def quantiles(v):
    return ops.quantile(v, 0.35, 1) * ops.kthvalue(v, 2)[0].sum() + ops.cov(v).sum()


def picks(v):
    return ops.select_scatter(v, v[2] ** 2, 0, 0) + ops.fill_diagonal(v * 2, 1.0) + \
        ops.choose(Tensor(np.array([1, 0, 1, 0])), (v[0], v[1]))


@pytest.fixture
def python_target():
    """Gradients compile on the python target: their point is the rules, not Numba."""
    ms.set_context(jit_target="python")
    yield
    ms.set_context(jit_target="numba")


def all_cases(v):
    """Every case, weighted apart, in one sum: one compile differentiates them all."""
    return ops.sum(slices(v)) + 1.5 * ops.sum(masked(v)) + 2.0 * ops.sum(quantiles(v)) + \
        2.5 * ops.sum(picks(v))


def test_gradients_match_finite_differences(python_target):
    x = RNG.normal(size=(3, 4))
    got = ops.grad(all_cases)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, numeric_grad(all_cases, x), rtol=1e-6, atol=1e-7)
