"""Sampling ops (``ops.normal``, ``ops.laplace``, ``ops.multinomial``,
``ops.random_categorical``, ``ops.randperm``, ``ops.shuffle`` and their classes), the
loop classes (``ForiLoop``, ``WhileLoop``, ``Scan``), ``affine_grid``, the in-place
functions and the remaining classes over composed ops, with MindSpore 2.10's values and
dtypes where it gives them (multinomial int32, random_categorical int64, Scan's list of
outputs, CompareAndBitpack, TridiagonalMatMul, affine_grid, ResizeLinear1D,
UpsampleTrilinear3D); the draws by their distribution."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen import run_python_graph

F32 = np.float32


def test_draws_follow_their_distributions():
    ms.set_seed(5)
    z = ops.normal((20000,), Tensor(F32(1.0)), Tensor(F32(2.0))).asnumpy()
    assert z.dtype == np.float32 and abs(z.mean() - 1) < 0.05 and abs(z.std() - 2) < 0.05
    lap = ops.laplace((20000,), Tensor(F32(0.0)), Tensor(F32(1.0))).asnumpy()
    assert abs(np.abs(lap).mean() - 1) < 0.05
    m = ops.multinomial(Tensor(np.array([[1.0, 3.0]], F32)), 4000)
    assert m.dtype == ms.int32 and abs(m.asnumpy().mean() - 0.75) < 0.03
    w = ops.multinomial(Tensor(np.array([[0.0, 1.0, 3.0]], F32)), 2, False).asnumpy()
    assert sorted(w[0].tolist()) == [1, 2]
    c = ops.random_categorical(Tensor(np.array([[0.0, 100.0]], F32)), 3)
    assert c.dtype == ms.int64 and c.asnumpy().tolist() == [[1, 1, 1]]
    p = ops.randperm(6)
    assert p.dtype == ms.int64 and sorted(p.asnumpy().tolist()) == list(range(6))
    assert sorted(ops.shuffle(Tensor(np.arange(5))).asnumpy().tolist()) == list(range(5))
    r = ops.Randperm(6, -1)(Tensor(np.array([4], np.int32))).asnumpy()
    assert sorted(r[:4].tolist()) == [0, 1, 2, 3] and r[4:].tolist() == [-1, -1]
    assert ops.Bernoulli()(Tensor(np.zeros(3, F32)), Tensor(F32(1.0))).asnumpy().tolist() == \
        [1, 1, 1]
    assert ops.Cauchy([2, 3])().shape == (2, 3)
    assert (ops.LogNormalReverse()(Tensor(np.zeros(3, F32))).asnumpy() > 0).all()
    assert ops.Multinomial()(Tensor(np.array([[0.0, 1.0]], F32)), 3).asnumpy().tolist() == \
        [[1, 1, 1]]


class Sampled(nn.Cell):
    def construct(self, p, x):
        return ops.multinomial(p, 3), ops.randperm(4), ops.normal((2,), x[0], 1.0)


def test_draws_in_a_graph(tmp_path):
    p = np.array([[0.0, 1.0, 0.0]], F32)
    m, perm, z = run_python_graph(Sampled(), [p, np.zeros(2, F32)], tmp_path)
    assert m.tolist() == [[1, 1, 1]] and sorted(perm.tolist()) == [0, 1, 2, 3]
    assert z.shape == (2,) and np.isfinite(z).all()


def test_loops_and_structure():
    carry, ys = ops.Scan()(lambda c, x: (c + x, c * x), Tensor(F32(0.0)),
                           [Tensor(F32(1.0)), Tensor(F32(2.0))])
    assert carry.asnumpy() == 3 and isinstance(ys, list) and [y.asnumpy() for y in ys] == [0, 2]
    assert ops.ForiLoop()(0, 3, lambda i, v: v + i, Tensor(F32(1.0))).asnumpy() == 4
    assert ops.WhileLoop()(lambda v: v < 10, lambda v: v * 2, 1) == 16
    grid = ops.affine_grid(Tensor(np.array([[[1.0, 0, 0], [0, 1, 0]]], F32)), (1, 1, 2, 3))
    np.testing.assert_allclose(grid.asnumpy()[0, :, :, 0], [[-2 / 3, 0, 2 / 3]] * 2, rtol=1e-6)
    np.testing.assert_allclose(grid.asnumpy()[0, :, 0, 1], [-0.5, 0.5])
    corners = ops.AffineGrid(True)(Tensor(np.array([[[1.0, 0, 0], [0, 1, 0]]], F32)), (1, 1, 2, 3))
    np.testing.assert_allclose(corners.asnumpy()[0, 1], [[-1, 1], [0, 1], [1, 1]])
    packed = ops.CompareAndBitpack()(Tensor(np.arange(1, 9, dtype=F32)), Tensor(F32(6)))
    assert packed.dtype == ms.uint8 and packed.asnumpy().tolist() == [3]
    tri = ops.TridiagonalMatMul()(Tensor(np.array([[1.0, 2, 3]], F32)),
                                  Tensor(np.array([[4.0, 5, 6]], F32)),
                                  Tensor(np.array([[7.0, 8, 9]], F32)),
                                  Tensor(np.eye(3, dtype=F32)))
    assert tri.asnumpy().tolist() == [[4, 1, 0], [8, 5, 2], [0, 9, 6]]
    assert ops.ParallelConcat()((Tensor(np.array([[1.0]])), Tensor(np.array([[2.0]])))
                                ).asnumpy().tolist() == [[1], [2]]
    padded = ops.PadV3()(Tensor(np.ones((1, 2, 2), F32)), Tensor(np.array([1, 0])), Tensor(F32(5)))
    assert padded.asnumpy().tolist() == [[[5, 1, 1], [5, 1, 1]]]
    lin = ops.ResizeLinear1D()(Tensor(np.array([[[1.0, 3.0]]], F32)), Tensor(np.array([3])))
    assert lin.asnumpy().tolist() == [[[1, 2, 3]]]
    half = ops.ResizeLinear1D("half_pixel")(Tensor(np.array([[[1.0, 3.0]]], F32)), (4,))
    np.testing.assert_allclose(half.asnumpy(), [[[1, 1.5, 2.5, 3]]])
    tri3 = ops.UpsampleTrilinear3D()(Tensor(np.arange(8, dtype=F32).reshape(1, 1, 2, 2, 2)), None,
                                     (1.0, 1.0, 2.0))
    np.testing.assert_allclose(tri3.asnumpy()[0, 0, 0, 0], [0, 0.25, 0.75, 1])
    assert ops.UpsampleNearest3D()(Tensor(np.zeros((1, 1, 2, 2, 2), F32)), (2, 4, 4)).shape == \
        (1, 1, 2, 4, 4)
    assert ops.MatrixDiagV3()(Tensor(np.array([1.0, 2.0])), 0, -1, -1, 0.0).asnumpy().tolist() == \
        [[1, 0], [0, 2]]
    assert ops.Partial()(ops.add, Tensor(F32(1.0)))(Tensor(F32(2.0))).asnumpy() == 3


def test_inplace_functions():
    x = Tensor(np.array([-2.0, 0.5, 3.0], F32))
    assert ops.clamp_(x, -1, 1) is x and x.asnumpy().tolist() == [-1, 0.5, 1]
    ops.tanh_(x)
    np.testing.assert_allclose(x.asnumpy(), np.tanh([-1, 0.5, 1]), rtol=1e-6)
    ops.zero_(x)
    assert x.asnumpy().tolist() == [0, 0, 0]
    ops.put_(x, Tensor(np.array([2, 0])), Tensor(np.array([7.0, 8.0], F32)))
    assert x.asnumpy().tolist() == [8, 0, 7]
    ops.put_(x, Tensor(np.array([2])), Tensor(np.array([1.0], F32)), True)
    assert x.asnumpy().tolist() == [8, 0, 8]
    ops.inplace_sigmoid(x)
    ops.uniform_(x, 2.0, 3.0)
    assert ((x.asnumpy() >= 2) & (x.asnumpy() < 3)).all()
    with pytest.raises(ValueError, match="max_length"):
        ops.Randperm(2)(Tensor(np.array([3], np.int32)))
