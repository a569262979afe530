"""numpy runtime helpers of the matrix decompositions (``ir/primitives/decomp.py``): QR and
its Householder form (LAPACK's, through numpy), the SVD, the matrix exponential and the
triangular solve, each over the trailing two axes of a batch. Copied into generated
modules with ``numpy_rt.py``; eager mode and the interpreter call them too.
``numba_decomp_rt.py`` computes the same with loops and Numba's LAPACK bindings.
"""

import numpy as np

# Pade [13/13] coefficients of exp and the 1-norm up to which they are exact to double
# precision without scaling (Higham, "The scaling and squaring method for the matrix
# exponential revisited", 2005).
_RT_EXPM_PADE = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
                 1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
                 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_RT_EXPM_THETA = 5.371920351148152


def _rt_qr(x, complete):
    """(Q, R) of each matrix; Q square with ``complete``."""
    return np.linalg.qr(x, mode="complete" if complete else "reduced")


def _rt_geqrf(x):
    """LAPACK geqrf's (R above the diagonal and the Householder vectors below it, tau)."""
    m, n = x.shape[-2:]
    flat = x.reshape((-1, m, n))
    h = np.empty_like(flat)
    tau = np.empty((flat.shape[0], min(m, n)), x.dtype)
    for i, a in enumerate(flat):
        raw, t = np.linalg.qr(a, mode="raw")
        h[i], tau[i] = raw.T, t
    return h.reshape(x.shape), tau.reshape(x.shape[:-2] + (min(m, n),))


def _rt_svd(x, full):
    """(singular values in descending order, U, V) with ``x = U diag(s) V^T``."""
    u, s, vh = np.linalg.svd(x, full_matrices=full)
    return s, u, np.swapaxes(vh, -1, -2).copy()


def _rt_svd_values(x):
    """(s, [0], [0]): the singular values, and MindSpore's placeholders for U and V."""
    return np.linalg.svd(x, compute_uv=False), np.zeros(1, x.dtype), np.zeros(1, x.dtype)


def _rt_matrix_exp(x):
    """exp of each square matrix: Pade [13/13] after scaling by a power of two, then
    squaring, in float64."""
    n = x.shape[-1]
    flat = x.reshape((-1, n, n)).astype(np.float64)
    out = np.empty_like(flat)
    b = _RT_EXPM_PADE
    eye = np.eye(n)
    for i, a in enumerate(flat):
        norm = np.abs(a).sum(axis=0).max() if n else 0.0
        s = max(0, int(np.ceil(np.log2(norm / _RT_EXPM_THETA)))) if norm > 0 else 0
        a = a / 2.0 ** s
        a2 = a @ a
        a4 = a2 @ a2
        a6 = a4 @ a2
        u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
                 + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
        v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 \
            + b[2] * a2 + b[0] * eye
        r = np.linalg.solve(v - u, v + u)
        for _ in range(s):
            r = r @ r
        out[i] = r
    return out.reshape(x.shape).astype(x.dtype)


def _rt_triangular_solve(a, b, lower, adjoint):
    """X with ``op(a) @ X == b`` for triangular ``a`` (only its triangle is read; op is the
    transpose with ``adjoint``), by substitution over the rows, vectorized over the batch
    and the right-hand sides."""
    t = np.swapaxes(a, -1, -2) if adjoint else a
    low = lower != adjoint  # the transpose of a lower triangle is an upper one
    n = a.shape[-1]
    x = np.empty(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    for i in (range(n) if low else range(n - 1, -1, -1)):
        done = slice(0, i) if low else slice(i + 1, n)
        acc = b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, done], x[..., done, :])
        x[..., i, :] = acc / t[..., i, i:i + 1]
    return x
