"""Determinants, inverses, solves and Cholesky factors composed of the table's ops
(``ops.det``, ``ops.slogdet``, ``ops.inverse``, ``ops.matrix_solve``, ``ops.cholesky``,
``ops.cholesky_solve``, ``ops.cholesky_inverse``, their classes, Tensor methods and
``nn.MatDet``/``nn.MatInverse``): compiled (python target) == eager == numpy's LAPACK
results; gradients against finite differences."""

from __future__ import annotations

import numpy as np

import msc as ms
from msc import Tensor, nn, ops
from tests.codegen import assert_same, numeric_grad, run_python_graph, to_numpy

RNG = np.random.default_rng(17)


class Linalg(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matdet, self.matinv = nn.MatDet(), nn.MatInverse()

    def construct(self, a, b, spd):
        low = ops.cholesky(spd)
        return (ops.det(a), ops.slogdet(a), a.inverse(), ops.matrix_solve(a, b),
                ops.MatrixSolve(adjoint=True)(a, b), low, ops.Cholesky(upper=True)(spd),
                ops.cholesky_solve(b, low), spd.cholesky().cholesky_inverse(),
                ops.logdet(spd), ops.MatrixDeterminant()(a), ops.LogMatrixDeterminant()(a),
                self.matdet(spd), self.matinv(spd), ops.MatrixInverse()(a))


def test_against_numpy(tmp_path):
    a = RNG.normal(size=(2, 4, 4))
    b = RNG.normal(size=(2, 4, 3))
    spd = a @ a.transpose(0, 2, 1) + np.eye(4)
    low = np.linalg.cholesky(spd)
    sign, logabs = np.linalg.slogdet(a)
    inv = np.linalg.inv(a)
    expect = (np.linalg.det(a), (sign, logabs), inv, np.linalg.solve(a, b),
              np.linalg.solve(a.transpose(0, 2, 1), b), low, low.transpose(0, 2, 1),
              np.linalg.solve(spd, b), np.linalg.inv(spd), np.log(np.linalg.det(spd)),
              np.linalg.det(a), (sign, logabs), np.linalg.det(spd), np.linalg.inv(spd), inv)
    args = [Tensor(v) for v in (a, b, spd)]
    assert_same(to_numpy(Linalg()(*args)), expect, "eager", 1e-9, 1e-10)
    assert_same(run_python_graph(Linalg(), [a, b, spd], tmp_path), expect, "python", 1e-9,
                1e-10)


def test_pivoting_and_singular_matrices():
    perm = Tensor(np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]))
    assert ops.det(perm).asnumpy() == 1.0
    np.testing.assert_allclose(ops.inverse(perm).asnumpy(), perm.asnumpy().T)
    assert ops.det(Tensor(np.array([[1.0, 2.0], [2.0, 4.0]]))).asnumpy() == 0
    assert ops.det(Tensor(np.zeros((3, 3), np.float32))).dtype == ms.float32


def test_gradients_match_finite_differences():
    ms.set_context(jit_target="python")
    try:
        def total(v):
            spd = ops.matmul(v, v.T) + ops.eye(3, 3, ms.float64)
            return (ops.det(v) + ops.sum(ops.inverse(v) ** 2) + ops.slogdet(v)[1]
                    + ops.sum(ops.cholesky(spd)) + ops.sum(ops.matrix_solve(v, spd)))

        x = RNG.normal(size=(3, 3)) + 2 * np.eye(3)
        got = ops.grad(total)(Tensor(x)).asnumpy()
        want = numeric_grad(total, x)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(jit_target="numba")
