"""numba runtime helpers of the matrix decompositions (``ir/primitives/decomp.py``), one
matrix of the batch at a time: QR as LAPACK's unblocked Householder algorithm written as
loops (geqr2 and org2r: the same reflectors and signs as numpy's and MindSpore's), the
SVD through Numba's LAPACK binding of ``np.linalg.svd``, the matrix exponential (Pade
[13/13] with scaling and squaring, as ``numpy_decomp_rt.py``) and the triangular solve
by substitution. Copied into generated modules with ``numba_rt.py``.
"""

import math

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def _rt_householder(a, tau):
    """LAPACK geqr2 in place on the matrix ``a``: R on and above the diagonal, the
    reflectors' vectors below it (their leading 1 implied), their scales in ``tau``."""
    m, n = a.shape
    for j in range(min(m, n)):
        alpha = a[j, j]
        tail = 0.0
        for i in range(j + 1, m):
            tail += a[i, j] * a[i, j]
        if tail == 0.0:
            tau[j] = 0.0  # already zero below the diagonal: the reflector is the identity
            continue
        beta = -math.copysign(math.sqrt(alpha * alpha + tail), alpha)
        tau[j] = (beta - alpha) / beta
        scale = 1.0 / (alpha - beta)
        for i in range(j + 1, m):
            a[i, j] *= scale
        a[j, j] = beta
        for c in range(j + 1, n):  # the reflector I - tau v v^T on the columns right of j
            w = a[j, c]
            for i in range(j + 1, m):
                w += a[i, j] * a[i, c]
            w *= tau[j]
            a[j, c] -= w
            for i in range(j + 1, m):
                a[i, c] -= w * a[i, j]


@njit(cache=True, error_model="numpy")
def _rt_householder_q(h, tau, q):
    """LAPACK org2r: the first ``q.shape[1]`` columns of the product of ``h``'s
    reflectors, into ``q``."""
    m, cols = q.shape
    q[:] = 0.0
    for i in range(min(m, cols)):
        q[i, i] = 1.0
    for j in range(tau.shape[0] - 1, -1, -1):
        for c in range(cols):
            w = q[j, c]
            for i in range(j + 1, m):
                w += h[i, j] * q[i, c]
            w *= tau[j]
            q[j, c] -= w
            for i in range(j + 1, m):
                q[i, c] -= w * h[i, j]


@njit(cache=True, error_model="numpy")
def _rt_geqrf(x):
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    h = np.ascontiguousarray(x).reshape((-1, m, n)).copy()
    tau = np.empty((h.shape[0], k), x.dtype)
    for b in range(h.shape[0]):
        _rt_householder(h[b], tau[b])
    return h.reshape(x.shape), tau.reshape(x.shape[:-2] + (k,))


@njit(cache=True, error_model="numpy")
def _rt_qr(x, complete):
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    cols = m if complete else k
    h, tau = _rt_geqrf(x)
    h = h.reshape((-1, m, n))
    tau = tau.reshape((-1, k))
    q = np.empty((h.shape[0], m, cols), x.dtype)
    r = np.zeros((h.shape[0], cols, n), x.dtype)
    for b in range(h.shape[0]):
        _rt_householder_q(h[b], tau[b], q[b])
        for i in range(min(cols, m)):
            for j in range(i, n):
                r[b, i, j] = h[b, i, j]
    return q.reshape(x.shape[:-2] + (m, cols)), r.reshape(x.shape[:-2] + (cols, n))


@njit(cache=True, error_model="numpy")
def _rt_svd(x, full):
    """(s, U, V) of each matrix; without U and V, ``_rt_svd_values``."""
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    rows, cols = (m, n) if full else (k, k)
    flat = np.ascontiguousarray(x).reshape((-1, m, n))
    s = np.empty((flat.shape[0], k), x.dtype)
    u = np.empty((flat.shape[0], m, rows), x.dtype)
    v = np.empty((flat.shape[0], n, cols), x.dtype)
    for b in range(flat.shape[0]):
        ub, sb, vh = np.linalg.svd(flat[b].copy(), full_matrices=full)
        s[b], u[b], v[b] = sb, ub, vh.T
    return (s.reshape(x.shape[:-2] + (k,)), u.reshape(x.shape[:-2] + (m, rows)),
            v.reshape(x.shape[:-2] + (n, cols)))


@njit(cache=True, error_model="numpy")
def _rt_svd_values(x):
    """(s, [0], [0]): the singular values, and MindSpore's placeholders for U and V."""
    s, _, _ = _rt_svd(x, False)
    return s, np.zeros(1, x.dtype), np.zeros(1, x.dtype)


@njit(cache=True, error_model="numpy")
def _rt_expm_one(a):
    """exp of one float64 matrix (see numpy_decomp_rt._rt_matrix_exp)."""
    n = a.shape[0]
    norm = 0.0
    for j in range(n):
        norm = max(norm, np.abs(a[:, j]).sum())
    s = max(0, int(math.ceil(math.log2(norm / 5.371920351148152)))) if norm > 0 else 0
    a = a / 2.0 ** s
    eye = np.eye(n)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (1.0 * a6 + 16380.0 * a4 + 40840800.0 * a2) + 33522128640.0 * a6
             + 10559470521600.0 * a4 + 1187353796428800.0 * a2 + 32382376266240000.0 * eye)
    v = (a6 @ (182.0 * a6 + 960960.0 * a4 + 1323241920.0 * a2) + 670442572800.0 * a6
         + 129060195264000.0 * a4 + 7771770303897600.0 * a2 + 64764752532480000.0 * eye)
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


@njit(cache=True, error_model="numpy")
def _rt_matrix_exp(x):
    n = x.shape[-1]
    flat = np.ascontiguousarray(x).reshape((-1, n, n))
    out = np.empty(flat.shape, x.dtype)
    for b in range(flat.shape[0]):
        out[b] = _rt_expm_one(flat[b].astype(np.float64)).astype(x.dtype)
    return out.reshape(x.shape)


@njit(cache=True, error_model="numpy")
def _rt_triangular_solve(a, b, lower, adjoint):
    n, k = b.shape[-2], b.shape[-1]
    flat_a = np.ascontiguousarray(a).reshape((-1, n, n))
    flat_b = np.ascontiguousarray(b).reshape((-1, n, k))
    x = np.empty(flat_b.shape, b.dtype)
    low = lower != adjoint
    for c in range(flat_b.shape[0]):
        t = flat_a[c].T if adjoint else flat_a[c]
        for step in range(n):
            i = step if low else n - 1 - step
            for col in range(k):
                acc = flat_b[c, i, col]
                for j in (range(i) if low else range(i + 1, n)):
                    acc -= t[i, j] * x[c, j, col]
                x[c, i, col] = acc / t[i, i]
    return x.reshape(b.shape)
