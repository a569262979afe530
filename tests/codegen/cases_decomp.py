"""Codegen cases of the decompositions (``msc/ir/primitives/decomp.py``) and of the Bessel
Y, incomplete beta and population count helpers, each against numpy written here: LAPACK's
QR through ``np.linalg.qr``, a Taylor series for the matrix exponential, substitution for
the triangular solve, integrals by Simpson's rule for the special functions and Python's
bit count. ``cases.CASES`` includes ``DECOMP_CASES``. Import this module through
``tests.codegen.cases``, which it extends."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from msc import ops
from msc.ops import operations as P
from tests.codegen.cases import Case, ints


def decompositions(a: Any, t: Any, rhs: Any) -> Any:
    q, r = ops.qr(a)
    y, tau = ops.geqrf(a)
    x = P.MatrixTriangularSolve(lower=True)(t, rhs)
    return q, r, y, tau, ops.svd(a, compute_uv=False), ops.matrix_exp(t * 0.3), x


def decompositions_expect(a: np.ndarray, t: np.ndarray, rhs: np.ndarray) -> tuple[Any, ...]:
    q, r = np.linalg.qr(a)
    h, tau = np.linalg.qr(a, mode="raw")  # (LAPACK's geqrf, in Fortran order)
    s = np.sqrt(np.linalg.eigvalsh(a.T @ a)[::-1].clip(0))
    m = t.astype(np.float64) * 0.3
    term, exp = np.eye(3), np.eye(3)
    for k in range(1, 30):
        term = term @ m / k
        exp = exp + term
    x = np.zeros_like(rhs, dtype=np.float64)
    for i in range(3):  # forward substitution (t lower triangular)
        x[i] = (rhs[i] - t[i, :i] @ x[:i]) / t[i, i]
    f32 = np.float32
    return q, r, h.T, tau, s.astype(f32), exp.astype(f32), x.astype(f32)


def special(x: Any, a: Any, b: Any, u: Any, i: Any) -> Any:
    return (ops.bessel_y0(x), ops.bessel_y1(x), P.Betainc()(a, b, u),
            ops.population_count(i))


def simpson(f: np.ndarray, h: float) -> np.ndarray:
    return h / 3 * (f[..., 0] + f[..., -1] + 4 * f[..., 1:-1:2].sum(-1)
                    + 2 * f[..., 2:-1:2].sum(-1))


def bessel_y(nu: int, x: np.ndarray) -> np.ndarray:
    """Y_nu(x) = (1/pi) int_0^pi sin(x sin t - nu t) dt
    - (1/pi) int_0^inf (e^(nu t) + (-1)^nu e^(-nu t)) e^(-x sinh t) dt."""
    t = np.linspace(0.0, np.pi, 4001)
    first = simpson(np.sin(np.multiply.outer(x, np.sin(t)) - nu * t), t[1] - t[0])
    s = np.linspace(0.0, 12.0, 24001)
    tail = (np.exp(nu * s) + (-1) ** nu * np.exp(-nu * s)) * \
        np.exp(-np.multiply.outer(x, np.sinh(s)))
    return (first - simpson(tail, s[1] - s[0])) / np.pi


def betainc(a: np.ndarray, b: np.ndarray, u: np.ndarray) -> np.ndarray:
    """I_u(a, b): the regularized incomplete beta function, Simpson's rule on a grid
    fine enough for a, b >= 1."""
    out = np.empty(a.shape)
    for k, (p, q, z) in enumerate(zip(a.ravel(), b.ravel(), u.ravel())):
        t = np.linspace(0.0, z, 20001)
        whole = math.gamma(p) * math.gamma(q) / math.gamma(p + q)
        out.flat[k] = simpson(t ** (p - 1) * (1 - t) ** (q - 1), t[1] - t[0]) / whole
    return out


def special_expect(x: np.ndarray, a: np.ndarray, b: np.ndarray, u: np.ndarray,
                   i: np.ndarray) -> tuple[Any, ...]:
    bits = np.array([bin(int(v) & 0xFFFF).count("1") for v in i.ravel()], np.uint8)
    return bessel_y(0, x), bessel_y(1, x), betainc(a, b, u), bits.reshape(i.shape)


def decomposition_inputs(r: np.random.Generator) -> list[np.ndarray]:
    t = np.tril(r.uniform(-1, 1, (3, 3))) + 3 * np.eye(3)
    return [r.uniform(-2, 2, (4, 3)).astype(np.float32), t.astype(np.float32),
            r.uniform(-2, 2, (3, 2)).astype(np.float32)]


DECOMP_CASES = (
    Case("decompositions", decompositions, decomposition_inputs,
         frozenset({"Qr", "Geqrf", "Svd", "MatrixExp", "MatrixTriangularSolve"}),
         decompositions_expect),
    Case("bessel_y_betainc_popcount", special,
         lambda r: [r.uniform(0.5, 6.0, (2, 3)), r.uniform(1.0, 4.0, (4,)),
                    r.uniform(1.0, 4.0, (4,)), r.uniform(0.05, 0.95, (4,)),
                    ints(r, -300, 300, 5, dtype=np.int16)],
         frozenset({"BesselY0", "BesselY1", "Betainc", "PopulationCount"}), special_expect),
)
