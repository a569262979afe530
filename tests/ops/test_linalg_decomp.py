"""The decompositions (``msc/ir/primitives/decomp.py``) and what ``solve_func.py`` composes
of them: values against numpy written here (reconstructions, orthogonality, Taylor
series, LU by hand), dtypes and shapes, MindSpore's errors, one compiled graph of every
primitive against eager mode, gradients against central differences in float64, and
MindSpore 2.10 itself where ``.peers/ms`` is installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import msc as ms
from msc import Tensor, ops
from msc.errors import MscError

MINDSPORE = Path(__file__).resolve().parents[2] / ".peers" / "ms" / "bin" / "python"
RNG = np.random.default_rng(7)
TALL = RNG.standard_normal((5, 3))
WIDE = RNG.standard_normal((3, 5))
BATCH = RNG.standard_normal((2, 4, 4))
LOWER = np.tril(RNG.standard_normal((4, 4))) + 4 * np.eye(4)
RHS = RNG.standard_normal((4, 2))


def _t(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


def _householder_qr(a):
    """Gram-Schmidt QR with R's diagonal made to LAPACK's signs: -sign(a_jj') of the
    column being reflected, which the test reads off numpy's R only for the sign."""
    m, n = a.shape
    q = np.zeros((m, min(m, n)))
    r = np.zeros((min(m, n), n))
    for j in range(min(m, n)):
        v = a[:, j] - q[:, :j] @ (q[:, :j].T @ a[:, j])
        r[j, j] = np.linalg.norm(v)
        q[:, j] = v / r[j, j]
        r[j, j + 1:] = q[:, j] @ a[:, j + 1:]
    return q, r


# --- values ----------------------------------------------------------------------------------


@pytest.mark.parametrize("a", [TALL, WIDE, BATCH], ids=["tall", "wide", "batch"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_qr_reconstructs_with_orthonormal_q_and_triangular_r(a, dtype):
    q, r = ops.qr(_t(a, dtype))
    k = min(a.shape[-2:])
    assert q.dtype == r.dtype == ms.float32 if dtype == np.float32 else ms.float64
    assert q.shape == a.shape[:-1] + (k,) and r.shape == a.shape[:-2] + (k, a.shape[-1])
    q, r = q.asnumpy(), r.asnumpy()
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(q @ r, a, atol=tol * 10)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k), r.shape[:-2] + (k, k)), atol=tol * 10)
    assert np.all(np.tril(r, -1) == 0)
    # the same factors as Gram-Schmidt up to LAPACK's signs on R's diagonal
    for qi, ri, ai in zip(q.reshape(-1, *q.shape[-2:]), r.reshape(-1, *r.shape[-2:]),
                          a.reshape(-1, *a.shape[-2:])):
        gq, gr = _householder_qr(ai)
        sign = np.sign(np.diag(ri))
        np.testing.assert_allclose(qi, gq * sign, atol=tol * 100)
        np.testing.assert_allclose(ri, gr * sign[:, None], atol=tol * 100)


def test_qr_complete_mode_and_class_and_method():
    q, r = ops.qr(_t(TALL, np.float64), mode="complete")
    assert q.shape == (5, 5) and r.shape == (5, 3)
    np.testing.assert_allclose(q.asnumpy() @ r.asnumpy(), TALL, atol=1e-12)
    np.testing.assert_allclose(q.asnumpy().T @ q.asnumpy(), np.eye(5), atol=1e-12)
    q2, r2 = ops.Qr(full_matrices=True)(_t(TALL, np.float64))
    np.testing.assert_array_equal(q2.asnumpy(), q.asnumpy())
    q3, _ = _t(TALL).qr()
    assert q3.shape == (5, 3)


def test_svd_values_and_vectors():
    for a in (TALL, WIDE, BATCH):
        s, u, v = ops.svd(_t(a, np.float64))
        k = min(a.shape[-2:])
        assert s.shape == a.shape[:-2] + (k,) and v.shape == a.shape[:-2] + (a.shape[-1], k)
        s, u, v = s.asnumpy(), u.asnumpy(), v.asnumpy()
        want = np.sqrt(np.sort(np.linalg.eigvalsh(np.swapaxes(a, -1, -2) @ a), -1)[..., ::-1][..., :k])
        np.testing.assert_allclose(s, want, atol=1e-10)
        np.testing.assert_allclose((u * s[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=1e-12)
    s, u, v = ops.svd(_t(TALL), full_matrices=True)
    assert (u.shape, v.shape, s.dtype) == ((5, 5), (3, 3), ms.float32)
    np.testing.assert_allclose(u.asnumpy().T @ u.asnumpy(), np.eye(5), atol=1e-5)
    only = ops.svd(_t(TALL), compute_uv=False)
    np.testing.assert_allclose(only.asnumpy(), s.asnumpy(), rtol=1e-6)
    s2, u2, v2 = ops.Svd(compute_uv=False)(_t(TALL))
    assert u2.shape == v2.shape == (1,) and float(u2.asnumpy()[0]) == 0.0


def _taylor_exp(a, terms=60):
    out, term = np.eye(a.shape[-1]), np.eye(a.shape[-1])
    for k in range(1, terms):
        term = term @ a / k
        out = out + term
    return out


def test_matrix_exp_against_series_and_eigenvectors():
    small = RNG.standard_normal((3, 3)) * 0.3
    np.testing.assert_allclose(ops.matrix_exp(_t(small, np.float64)).asnumpy(), _taylor_exp(small),
                               rtol=1e-12, atol=1e-14)
    sym = BATCH + np.swapaxes(BATCH, -1, -2)  # norms of several units: scaling and squaring
    w, q = np.linalg.eigh(sym)
    want = (q * np.exp(w)[..., None, :]) @ np.swapaxes(q, -1, -2)
    got = ops.MatrixExp()(_t(sym, np.float32))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-5, atol=1e-4)


def test_triangular_solves():
    for lower, adjoint, matrix in [(True, False, LOWER), (True, True, LOWER),
                                   (False, False, LOWER.T), (False, True, LOWER.T)]:
        junk = matrix + (np.triu(np.ones((4, 4)), 1) if lower else np.tril(np.ones((4, 4)), -1)) * 9
        got = ops.MatrixTriangularSolve(lower=lower, adjoint=adjoint)(_t(junk, np.float64),
                                                                     _t(RHS, np.float64))
        op = matrix.T if adjoint else matrix
        np.testing.assert_allclose(op @ got.asnumpy(), RHS, atol=1e-12)
    x, a = _t(RHS).triangular_solve(_t(LOWER), upper=False, transpose=True, unitriangular=True)
    unit = np.tril(LOWER, -1) + np.eye(4)
    np.testing.assert_allclose(unit.T @ x.asnumpy(), RHS, atol=1e-5)
    np.testing.assert_array_equal(a.asnumpy(), LOWER.astype(np.float32))


def test_lstsq_pinv_and_matrix_norms():
    b = RNG.standard_normal((5, 2))
    got = ops.lstsq(_t(TALL), _t(b))
    normal = np.linalg.solve(TALL.T @ TALL, TALL.T @ b)  # the normal equations
    assert got.dtype == ms.float32 and got.shape == (3, 2)
    np.testing.assert_allclose(got.asnumpy(), normal, atol=1e-5)
    assert ops.lstsq(_t(TALL), _t(b[:, 0])).shape == (3, 1)
    wide = ops.lstsq(_t(WIDE, np.float64), _t(b[:3], np.float64)).asnumpy()
    np.testing.assert_allclose(wide, WIDE.T @ np.linalg.solve(WIDE @ WIDE.T, b[:3]), atol=1e-12)
    ls = ops.MatrixSolveLs()(_t(TALL[None], np.float64), _t(b[None], np.float64),
                             Tensor(0.5, ms.float64))
    np.testing.assert_allclose(ls.asnumpy()[0], np.linalg.solve(TALL.T @ TALL + 0.5 * np.eye(3),
                                                                TALL.T @ b), atol=1e-12)
    p = ops.pinv(_t(TALL, np.float64)).asnumpy()
    np.testing.assert_allclose(p, np.linalg.solve(TALL.T @ TALL, TALL.T), atol=1e-12)
    rank_one = np.outer([1.0, 2.0, 3.0], [1.0, -1.0])
    np.testing.assert_allclose(ops.pinv(_t(rank_one, np.float64)).asnumpy(),
                               rank_one.T / np.sum(rank_one ** 2), atol=1e-12)
    sv = np.sqrt(np.linalg.eigvalsh(TALL.T @ TALL))
    want = {"fro": np.sqrt(np.sum(TALL ** 2)), "nuc": sv.sum(), 2: sv.max(), -2: sv.min(),
            1: np.abs(TALL).sum(0).max(), -1: np.abs(TALL).sum(0).min(),
            float("inf"): np.abs(TALL).sum(1).max(), float("-inf"): np.abs(TALL).sum(1).min()}
    for order, value in want.items():
        np.testing.assert_allclose(ops.matrix_norm(_t(TALL, np.float64), order).asnumpy(), value,
                                   rtol=1e-12)
    assert ops.matrix_norm(_t(BATCH), 1, keepdims=True).shape == (2, 1, 1)
    assert ops.matrix_norm(_t(BATCH), "nuc", axis=(0, 2)).shape == (4,)
    np.testing.assert_allclose(ops.NuclearNorm()(_t(TALL)).asnumpy(), sv.sum(), rtol=1e-5)


def _lu(a):
    """LU with partial pivoting: (packed L\\U, 1-based pivots) as LAPACK's getrf."""
    lu, piv = a.copy(), []
    for k in range(a.shape[0]):
        p = k + int(np.argmax(np.abs(lu[k:, k])))
        lu[[k, p]] = lu[[p, k]]
        piv.append(p + 1)
        lu[k + 1:, k] /= lu[k, k]
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    return lu, np.array(piv, np.int32)


def test_lu_unpack_and_solve():
    a = RNG.standard_normal((4, 4))
    lu, piv = _lu(a)
    p, low, up = ops.lu_unpack(_t(lu, np.float64), Tensor(piv))
    np.testing.assert_allclose(p.asnumpy() @ low.asnumpy() @ up.asnumpy(), a, atol=1e-12)
    assert p.dtype == ms.float64
    assert ops.lu_unpack(_t(lu), Tensor(piv), unpack_pivots=False)[0] is None
    x = ops.lu_solve(_t(RHS, np.float64), _t(lu, np.float64), Tensor(piv))
    np.testing.assert_allclose(a @ x.asnumpy(), RHS, atol=1e-12)
    x2 = _t(RHS).lu_solve(_t(lu), Tensor(piv))
    np.testing.assert_allclose(a @ x2.asnumpy(), RHS, atol=1e-4)


def test_geqrf_orgqr_ormqr():
    h, tau = ops.geqrf(_t(TALL, np.float64))
    assert h.shape == (5, 3) and tau.shape == (3,)
    h, tau = h.asnumpy(), tau.asnumpy()
    q = np.eye(5)
    for i in range(3):  # Q = H_0 H_1 H_2 from the reflectors, written out
        v = np.concatenate([np.zeros(i), [1.0], h[i + 1:, i]])
        q = q @ (np.eye(5) - tau[i] * np.outer(v, v))
    np.testing.assert_allclose(q[:, :3] @ np.triu(h[:3]), TALL, atol=1e-12)
    got = ops.orgqr(Tensor(h), Tensor(tau)).asnumpy()
    np.testing.assert_allclose(got, q[:, :3], atol=1e-12)
    c = RNG.standard_normal((5, 2))
    for left, transpose, want in [(True, False, q @ c), (True, True, q.T @ c)]:
        got = ops.ormqr(Tensor(h), Tensor(tau), Tensor(c), left, transpose)
        np.testing.assert_allclose(got.asnumpy(), want, atol=1e-12)
    c2 = RNG.standard_normal((2, 5))
    got = ops.Ormqr(left=False, transpose=True)(Tensor(h), Tensor(tau), Tensor(c2))
    np.testing.assert_allclose(got.asnumpy(), c2 @ q.T, atol=1e-12)


# --- errors -----------------------------------------------------------------------------------


def test_errors():
    with pytest.raises(TypeError, match="mode must be 'reduced' or 'complete'"):
        ops.qr(_t(TALL), "r")
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        ops.qr(_t([1.0, 2.0]))
    with pytest.raises(TypeError, match="float32 or float64"):
        ops.svd(Tensor(np.ones((2, 2), np.int32)))
    with pytest.raises(ValueError, match="square"):
        ops.matrix_exp(_t(TALL))
    with pytest.raises(ValueError, match="batch dimensions"):
        ops.MatrixTriangularSolve()(_t(np.stack([LOWER] * 2)), _t(np.stack([RHS] * 3)))
    with pytest.raises(TypeError, match="the input type must be same"):
        ops.lstsq(_t(TALL, np.float64), _t(TALL))
    with pytest.raises(ValueError, match="dimension of x must be equal to 2"):
        ops.lstsq(_t(BATCH), _t(BATCH[0]))
    with pytest.raises(TypeError, match="'l2_regularizer' should be 0.0"):
        ops.Lstsq(l2_regularizer=0.5)(_t(TALL), _t(TALL))
    with pytest.raises(ValueError, match="ord mode must be in"):
        ops.matrix_norm(_t(TALL), 3)
    with pytest.raises(TypeError, match="tuple of int"):
        ops.matrix_norm(_t(TALL), axis=[0, 1])
    with pytest.raises(ValueError, match="input must be 2-D"):
        ops.NuclearNorm()(_t(BATCH))
    with pytest.raises(TypeError, match="pinv"):
        ops.pinv(Tensor(np.ones((2, 2), np.int32)))


# --- graphs and gradients ---------------------------------------------------------------------


def _decompositions(a, sq, low, rhs):
    q, r = ops.qr(a)
    x = ops.MatrixTriangularSolve(lower=True)(low, rhs)
    return q, r, ops.matrix_exp(sq), x


def _composed(a, rhs):
    h, tau = ops.geqrf(a)
    s, u, v = ops.svd(a)
    return h, tau, s, u, v, ops.lstsq(a, ops.ones((5, 2))), ops.pinv(a), ops.orgqr(h, tau), \
        ops.matrix_norm(a, "nuc")


@pytest.mark.parametrize("fn, target", [(_decompositions, "numba"), (_composed, "python")])
def test_compiled_graph_matches_eager_mode(fn, target):
    """The Householder, triangular-solve and exponential loops compiled by Numba (the
    SVD's LAPACK binding costs Numba most of a minute: on the python target, with the
    composed functions)."""
    args = (_t(TALL), _t(BATCH * 0.5), _t(LOWER), _t(RHS)) if fn is _decompositions else \
        (_t(TALL), _t(RHS))
    eager = fn(*args)
    ms.set_context(jit_target=target)
    try:
        compiled = ms.jit(fn)(*args)
    finally:
        ms.set_context(jit_target="numba")
    for want, got in zip(eager, compiled):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=2e-5, atol=2e-5)


@pytest.fixture
def python_target():
    """Gradients compile a graph: the python target's, which needs no Numba compile."""
    ms.set_context(jit_target="python")
    yield
    ms.set_context(jit_target="numba")


def _check_grad(fn, *arrays, argnums=0):
    """ops.grad of a float64 scalar function against central differences."""
    got = ms.grad(lambda *xs: fn(*xs), argnums)(*(Tensor(a) for a in arrays))
    x = arrays[argnums]
    want = np.zeros_like(x)
    eps = 1e-6
    for i in np.ndindex(x.shape):
        hi, lo = [a.copy() for a in arrays], [a.copy() for a in arrays]
        hi[argnums][i] += eps
        lo[argnums][i] -= eps
        want[i] = (float(fn(*map(Tensor, hi)).asnumpy()) - float(fn(*map(Tensor, lo)).asnumpy())) / (2 * eps)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("a", [TALL, WIDE], ids=["tall", "wide"])
def test_qr_gradient(a, python_target):
    wq, wr = RNG.standard_normal(a.shape[:-1] + (min(a.shape),)), RNG.standard_normal((min(a.shape), a.shape[1]))
    def loss(x):
        q, r = ops.qr(x)
        return (q * Tensor(wq)).sum() + (r * Tensor(wr)).sum()
    _check_grad(loss, a.copy())


@pytest.mark.parametrize("a", [TALL, WIDE], ids=["tall", "wide"])
def test_svd_gradient(a, python_target):
    k = min(a.shape)
    wu, wv, ws = (RNG.standard_normal((a.shape[0], k)), RNG.standard_normal((a.shape[1], k)),
                  RNG.standard_normal(k))
    def loss(x):
        s, u, v = ops.svd(x)
        # u v^T pairs are invariant to a sign flip of a singular pair
        return (ops.matmul(u * Tensor(ws), v.T) * Tensor(wu @ wv.T)).sum() + (s * s).sum()
    _check_grad(loss, a.copy())
    _check_grad(lambda x: (ops.svd(x, compute_uv=False) * Tensor(ws)).sum(), a.copy())


def test_matrix_exp_and_triangular_solve_gradients(python_target):
    w = RNG.standard_normal((3, 3))
    _check_grad(lambda x: (ops.matrix_exp(x) * Tensor(w)).sum(), RNG.standard_normal((3, 3)))
    solve = ops.MatrixTriangularSolve(lower=True, adjoint=True)
    wx = RNG.standard_normal((4, 2))
    loss = lambda m, b: (solve(m, b) * Tensor(wx)).sum()  # noqa: E731
    _check_grad(loss, LOWER.copy(), RHS.copy(), argnums=1)
    _check_grad(lambda m, b: loss(m * Tensor(np.tril(np.ones((4, 4)))), b), LOWER.copy(),
                RHS.copy(), argnums=0)


def test_complete_qr_of_a_tall_matrix_has_no_gradient(python_target):
    with pytest.raises(MscError, match="complete QR"):
        ms.grad(lambda x: ops.qr(x, "complete")[0].sum())(_t(TALL, np.float64))


# --- MindSpore itself ---------------------------------------------------------------------------

SCRIPT = """
import json, numpy as np, mindspore as ms
from mindspore import ops, Tensor
d = {k: np.array(v) for k, v in json.load(open("in.json")).items()}
out = {}
q, r = ops.qr(Tensor(d["tall"], ms.float32)); out["qr"] = [q.asnumpy().tolist(), r.asnumpy().tolist()]
q, r = ops.qr(Tensor(d["wide"]), "complete"); out["qr_wide"] = [q.asnumpy().tolist(), r.asnumpy().tolist()]
out["svd_s"] = ops.svd(Tensor(d["batch"]), compute_uv=False).asnumpy().tolist()
h, tau = ops.geqrf(Tensor(d["tall"])); out["geqrf"] = [h.asnumpy().tolist(), tau.asnumpy().tolist()]
out["orgqr"] = ops.orgqr(h, tau).asnumpy().tolist()
out["mts"] = ops.MatrixTriangularSolve(lower=False, adjoint=True)(Tensor(d["upper"]), Tensor(d["rhs"])).asnumpy().tolist()
out["lstsq"] = ops.lstsq(Tensor(d["tall"]), Tensor(d["b"])).asnumpy().tolist()
out["pinv"] = ops.pinv(Tensor(d["wide"], ms.float32)).asnumpy().tolist()
out["norms"] = [float(ops.matrix_norm(Tensor(d["tall"]), o).asnumpy()) for o in ["fro", "nuc", 2, -2, 1, -1]]
p, l, u = ops.lu_unpack(Tensor(d["lu"]), Tensor(d["piv"].astype(np.int32))); out["lu"] = [p.asnumpy().tolist(), l.asnumpy().tolist(), u.asnumpy().tolist()]
out["lu_solve"] = ops.lu_solve(Tensor(d["rhs"], ms.float32), Tensor(d["lu"], ms.float32), Tensor(d["piv"].astype(np.int32))).asnumpy().tolist()
out["svd_grad"] = ms.grad(lambda x: ops.svd(x, compute_uv=False).sum())(Tensor(d["tall"])).asnumpy().tolist()
json.dump(out, open("out.json", "w"))
"""


@pytest.mark.skipif(not MINDSPORE.exists(), reason="MindSpore is not installed in .peers/ms; "
                    "the comparison with MindSpore itself needs it")
def test_matches_mindspore_itself(tmp_path, python_target):
    a = RNG.standard_normal((4, 4))
    lu, piv = _lu(a)
    upper = LOWER.T.copy()
    data = {"tall": TALL, "wide": WIDE, "batch": BATCH, "upper": upper, "rhs": RHS,
            "b": RNG.standard_normal((5, 2)), "lu": lu, "piv": piv}
    (tmp_path / "in.json").write_text(json.dumps({k: v.tolist() for k, v in data.items()}))
    (tmp_path / "run.py").write_text(SCRIPT)
    proc = subprocess.run([str(MINDSPORE), "run.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    want = json.loads((tmp_path / "out.json").read_text())
    d = {k: Tensor(v) for k, v in data.items()}

    def close(got, key, tol=1e-10):
        got = got if isinstance(got, (tuple, list)) else (got,)
        ref = want[key] if isinstance(got, tuple) and len(got) > 1 else [want[key]]
        for g, w in zip(got, ref):
            np.testing.assert_allclose(g.asnumpy(), np.array(w), rtol=tol, atol=tol)

    close(ops.qr(_t(TALL)), "qr", 1e-5)
    close(ops.qr(d["wide"], "complete"), "qr_wide")
    close(ops.svd(d["batch"], compute_uv=False), "svd_s")
    close(ops.geqrf(d["tall"]), "geqrf")
    close(ops.orgqr(*ops.geqrf(d["tall"])), "orgqr")
    close(ops.MatrixTriangularSolve(lower=False, adjoint=True)(d["upper"], d["rhs"]), "mts")
    close(ops.lstsq(d["tall"], d["b"]), "lstsq", 1e-9)
    close(ops.pinv(_t(WIDE)), "pinv", 1e-5)
    np.testing.assert_allclose([float(ops.matrix_norm(d["tall"], o).asnumpy())
                                for o in ["fro", "nuc", 2, -2, 1, -1]], want["norms"], rtol=1e-6)
    close(ops.lu_unpack(d["lu"], Tensor(piv)), "lu")
    close(ops.lu_solve(_t(RHS), _t(lu), Tensor(piv)), "lu_solve", 1e-5)
    close(ms.grad(lambda x: ops.svd(x, compute_uv=False).sum())(d["tall"]), "svd_grad", 1e-9)
