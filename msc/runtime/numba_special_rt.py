"""numba runtime helpers of the special functions: erfinv, the gamma family (digamma,
polygamma, Hurwitz zeta), the regularised incomplete gamma functions and the modified
Bessel functions, as jitted scalar functions in float64 (the same algorithms as
``numpy_special_rt.py``). Copied into generated modules with ``numba_rt.py``.
"""

import math

import numpy as np
from numba import njit


#: erfinv's first guess (as in the numpy runtime), refined by Newton steps on erf.
_rt_erfinv_central = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                      0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_rt_erfinv_tail = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                   0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


@njit(cache=True, error_model="numpy")
def _rt_erfinv(y):
    """The inverse of erf of a scalar, in float64: +-inf at +-1, nan outside [-1, 1]."""
    y = np.float64(y)
    if not -1.0 < y < 1.0:
        return math.inf if y == 1.0 else -math.inf if y == -1.0 else math.nan
    w = -math.log((1.0 - y) * (1.0 + y))
    p = 0.0
    if w < 5.0:
        for c in _rt_erfinv_central:
            p = p * (w - 2.5) + c
    else:
        for c in _rt_erfinv_tail:
            p = p * (math.sqrt(w) - 3.0) + c
    x = p * y
    for _ in range(2):
        x -= (math.erf(x) - y) / (1.1283791670955126 * math.exp(-x * x))
    return x


# --- the gamma family and the modified Bessel functions ---------------------------------
# The numpy runtime's algorithms, as jitted scalar functions in float64.


@njit(cache=True, error_model="numpy")
def _rt_digamma_pos(x):
    """psi(x) for x > 0: the recurrence up to x >= 10, then the asymptotic series."""
    acc = 0.0
    while x < 10.0:
        acc -= 1.0 / x
        x += 1.0
    w = 1.0 / (x * x)
    tail = w * (1.0 / 12 - w * (1.0 / 120 - w * (1.0 / 252 - w * (1.0 / 240 - w / 132))))
    return acc + math.log(x) - 0.5 / x - tail


@njit(cache=True, error_model="numpy")
def _rt_digamma(x):
    """psi(x): -inf at +0 and +inf at -0 (the sides of the pole), nan at the negative
    integers; negative x by the reflection psi(1 - x) - pi / tan(pi x)."""
    x = np.float64(x)
    if x == 0.0:
        return -math.copysign(math.inf, x)
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    if x < 0.0:
        if x == math.floor(x):
            return math.nan
        return _rt_digamma_pos(1.0 - x) - math.pi / math.tan(math.pi * x)
    return _rt_digamma_pos(x)


#: (2k)! / B_2k, the Euler-Maclaurin tail's coefficients of the Hurwitz zeta function
_rt_zeta_coef = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                 7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                 -4.5979787224074726105e15, 1.8152105401943546773e17,
                 -7.1661652561756670113e18)


@njit(cache=True, error_model="numpy")
def _rt_zeta(x, q):
    """The Hurwitz zeta function sum((q + k) ** -x, k >= 0): the first terms summed, the
    rest by Euler-Maclaurin. inf at x == 1 and at q a non-positive integer; nan for
    x < 1, and for q < 0 with x not an integer."""
    x, q = np.float64(x), np.float64(q)
    if x == 1.0:
        return math.inf
    if not x > 1.0 or math.isnan(q):
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    s, a, b, i = q ** -x, q, 0.0, 0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a ** -x
        s += b
        if abs(b / s) < 1e-17:
            return s
    w = a
    s += b * w / (x - 1.0) - 0.5 * b
    fac, k = 1.0, 0.0
    for c in _rt_zeta_coef:
        fac *= x + k
        b /= w
        t = fac * b / c
        s += t
        if abs(t / s) < 1e-17:
            break
        k += 1.0
        fac *= x + k
        b /= w
        k += 1.0
    return s


@njit(cache=True, error_model="numpy")
def _rt_polygamma(n, x):
    """The n-th derivative of psi: psi itself for n == 0, else
    (-1) ** (n + 1) * n! * zeta(n + 1, x)."""
    n = int(n)
    if n == 0:
        return _rt_digamma(x)
    return (-1.0) ** (n + 1) * math.gamma(n + 1.0) * _rt_zeta(n + 1.0, x)


@njit(cache=True, error_model="numpy")
def _rt_bessel_i1x(nu, x, scaled):
    """The modified Bessel function I_nu(x), nu 0 or 1, times exp(-|x|) when ``scaled``:
    the power series up to |x| = 30 (positive terms, no cancellation), the asymptotic
    series beyond."""
    x = np.float64(x)
    ax = abs(x)
    if math.isnan(x):
        return x
    if ax == math.inf:
        s = 0.0 if scaled else math.inf
    elif ax <= 30.0:
        h = 0.5 * ax
        term = 1.0 if nu == 0 else h
        s, k = term, 0
        while term > 1e-17 * s:
            k += 1
            term *= h * h / (k * (k + nu))
            s += term
        if scaled:
            s *= math.exp(-ax)
    else:
        mu, term, s = 4.0 * nu * nu, 1.0, 1.0
        for k in range(1, 40):
            term *= -(mu - (2 * k - 1) ** 2) / (8.0 * k * ax)
            s += term
            if abs(term) < 1e-17 * abs(s):
                break
        s /= math.sqrt(2.0 * math.pi * ax)
        if not scaled:
            s = s * math.exp(ax) if ax < 709.0 else math.inf
    return -s if nu == 1 and x < 0.0 else s


@njit(cache=True, error_model="numpy")
def _rt_lgamma(x):
    return math.lgamma(x)


@njit(cache=True, error_model="numpy")
def _rt_bessel_i0(x):
    return _rt_bessel_i1x(0, x, False)


@njit(cache=True, error_model="numpy")
def _rt_bessel_i0e(x):
    return _rt_bessel_i1x(0, x, True)


@njit(cache=True, error_model="numpy")
def _rt_bessel_i1(x):
    return _rt_bessel_i1x(1, x, False)


@njit(cache=True, error_model="numpy")
def _rt_bessel_i1e(x):
    return _rt_bessel_i1x(1, x, True)


@njit(cache=True, error_model="numpy")
def _rt_igamma1(a, x, upper):
    """The regularised incomplete gamma function P(a, x) (Q = 1 - P with ``upper``): its
    series below x = a + 1, Legendre's continued fraction (modified Lentz) above."""
    a, x = np.float64(a), np.float64(x)
    if math.isnan(a) or math.isnan(x) or a <= 0.0 or x < 0.0:
        return math.nan
    if x == 0.0:
        return 1.0 if upper else 0.0
    if x == math.inf:
        return 0.0 if upper else 1.0
    scale = math.exp(-x + a * math.log(x) - math.lgamma(a))
    if x < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(2000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-17:
                break
        low = total * scale
        return 1.0 - low if upper else low
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 2000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    high = h * scale
    return high if upper else 1.0 - high


@njit(cache=True, error_model="numpy")
def _rt_igamma_da1(a, x, upper):
    """d/da of P(a, x) (of Q with ``upper``) by a central difference of the function itself
    (step 1e-6 * max(1, a): accurate to about 1e-9 relative)."""
    h = 1e-6 * max(1.0, abs(np.float64(a)))
    return (_rt_igamma1(a + h, x, upper) - _rt_igamma1(a - h, x, upper)) / (2.0 * h)


@njit(cache=True, error_model="numpy")
def _rt_igamma(a, x):
    return _rt_igamma1(a, x, False)


@njit(cache=True, error_model="numpy")
def _rt_igammac(a, x):
    return _rt_igamma1(a, x, True)


@njit(cache=True, error_model="numpy")
def _rt_igamma_da(a, x):
    return _rt_igamma_da1(a, x, False)


@njit(cache=True, error_model="numpy")
def _rt_igammac_da(a, x):
    return _rt_igamma_da1(a, x, True)


@njit(cache=True, error_model="numpy")
def _rt_hankel_pq(nu, ax):
    """The sums P and Q of Hankel's asymptotic expansions of J_nu and Y_nu at ax > 25."""
    mu, p, q = 4.0 * nu * nu, 1.0, 0.0
    term, k = 1.0, 1
    while k < 60:
        term *= (mu - (2 * k - 1) ** 2) / (k * 8.0 * ax)
        if abs(term) < 1e-17:
            break
        if k % 2:
            q += term * (-1.0) ** ((k - 1) // 2)
        else:
            p += term * (-1.0) ** (k // 2)
        k += 1
    return p, q


@njit(cache=True, error_model="numpy")
def _rt_bessel_j1x(nu, x):
    """The Bessel function J_nu(x), nu 0 or 1: Bessel's integral averaged over a full
    period (the trapezoid rule, exact but for J of orders beyond N) up to |x| = 25, the
    Hankel asymptotic series beyond."""
    x = np.float64(x)
    if math.isnan(x):
        return x
    ax = abs(x)
    if ax == math.inf:
        return 0.0
    if ax <= 25.0:
        count = 64 + 2 * int(ax)
        total = 0.0
        for j in range(count):
            tau = 2.0 * math.pi * j / count
            total += math.cos(nu * tau - x * math.sin(tau))
        return total / count
    p, q = _rt_hankel_pq(nu, ax)
    chi = ax - (0.5 * nu + 0.25) * math.pi
    out = math.sqrt(2.0 / (math.pi * ax)) * (p * math.cos(chi) - q * math.sin(chi))
    return -out if nu == 1 and x < 0.0 else out


@njit(cache=True, error_model="numpy")
def _rt_bessel_k1x(nu, x, scaled):
    """The modified Bessel function K_nu(x), nu 0 or 1 (times exp(x) when ``scaled``):
    the integral of exp(-x (cosh t - 1)) cosh(nu t) over t >= 0 by the trapezoid rule,
    which converges geometrically for this integrand; inf at 0, nan below."""
    x = np.float64(x)
    if math.isnan(x) or x < 0.0:
        return math.nan
    if x == 0.0:
        return math.inf
    if x == math.inf:
        return 0.0
    h = 0.1 / max(1.0, math.sqrt(x))
    total = 0.5
    t = h
    while True:
        f = math.exp(-x * (math.cosh(t) - 1.0)) * math.cosh(nu * t)
        total += f
        if f < 1e-18 * total:
            break
        t += h
    out = total * h
    return out if scaled else out * math.exp(-x)


@njit(cache=True, error_model="numpy")
def _rt_bessel_j0(x):
    return _rt_bessel_j1x(0, x)


@njit(cache=True, error_model="numpy")
def _rt_bessel_j1(x):
    return _rt_bessel_j1x(1, x)


@njit(cache=True, error_model="numpy")
def _rt_bessel_k0(x):
    return _rt_bessel_k1x(0, x, False)


@njit(cache=True, error_model="numpy")
def _rt_bessel_k0e(x):
    return _rt_bessel_k1x(0, x, True)


@njit(cache=True, error_model="numpy")
def _rt_bessel_k1(x):
    return _rt_bessel_k1x(1, x, False)


@njit(cache=True, error_model="numpy")
def _rt_bessel_k1e(x):
    return _rt_bessel_k1x(1, x, True)


@njit(cache=True, error_model="numpy")
def _rt_bessel_y1x(nu, x):
    """The Bessel function of the second kind Y_nu(x), nu 0 or 1: up to x = 25 Neumann's
    series in the J of even orders (Y0; its derivative for Y1), every J from one pass of
    Bessel's integral, the Hankel asymptotic series beyond. -inf at and below 0 and nan at
    inf, as MindSpore's kernels give."""
    x = np.float64(x)
    if math.isnan(x) or x == math.inf:
        return math.nan
    if x <= 0.0:
        return -math.inf
    if x > 25.0:
        p, q = _rt_hankel_pq(nu, x)
        chi = x - (0.5 * nu + 0.25) * math.pi
        return math.sqrt(2.0 / (math.pi * x)) * (p * math.sin(chi) + q * math.cos(chi))
    terms = int(x / 2.0) + 20  # J_2k(x) is negligible beyond 2k = x + 40
    count = 96 + 3 * int(x)
    j0 = j1 = tail = 0.0
    for j in range(count):
        tau = 2.0 * math.pi * j / count
        phase = x * math.sin(tau)
        j0 += math.cos(phase)
        j1 += math.cos(tau - phase)
        for k in range(1, terms + 1):
            sign = -1.0 if k % 2 else 1.0
            if nu == 0:
                tail += sign * math.cos(2 * k * tau - phase) / k
            else:
                tail += sign * (math.cos((2 * k - 1) * tau - phase)
                                - math.cos((2 * k + 1) * tau - phase)) / k
    j0, j1, tail = j0 / count, j1 / count, tail / count
    log_term = math.log(0.5 * x) + 0.5772156649015329
    if nu == 0:
        return 2.0 / math.pi * (log_term * j0 - 2.0 * tail)
    return 2.0 / math.pi * (log_term * j1 - j0 / x + tail)


@njit(cache=True, error_model="numpy")
def _rt_betainc_fraction(a, b, x):
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, 3000):
        for step in (m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
                     -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))):
            d = 1.0 + step * d
            d = 1.0 / (tiny if abs(d) < tiny else d)
            c = 1.0 + step / c
            c = tiny if abs(c) < tiny else c
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


@njit(cache=True, error_model="numpy")
def _rt_betainc1(a, b, x):
    """The regularised incomplete beta function I_x(a, b): the continued fraction, of
    I_x(a, b) below x = (a + 1) / (a + b + 2), of 1 - I_(1-x)(b, a) above; nan outside
    a, b > 0 and 0 <= x <= 1."""
    a, b, x = np.float64(a), np.float64(b), np.float64(x)
    if not (a > 0.0 and b > 0.0 and 0.0 <= x <= 1.0):
        return math.nan
    if x == 0.0 or x == 1.0:
        return x
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
                     + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _rt_betainc_fraction(a, b, x) / a
    return 1.0 - front * _rt_betainc_fraction(b, a, 1.0 - x) / b


@njit(cache=True, error_model="numpy")
def _rt_bessel_y0(x):
    return _rt_bessel_y1x(0, x)


@njit(cache=True, error_model="numpy")
def _rt_bessel_y1(x):
    return _rt_bessel_y1x(1, x)


@njit(cache=True, error_model="numpy")
def _rt_betainc(a, b, x):
    return _rt_betainc1(a, b, x)


@njit(cache=True)
def _rt_popcount(x):
    """The set bits of each integer in its own width (a negative int8 -1 has 8)."""
    flat = np.ascontiguousarray(x).ravel()
    out = np.empty(flat.size, np.uint8)
    bits = x.itemsize * 8
    for i in range(flat.size):
        v = np.uint64(flat[i])
        if bits < 64:
            v &= np.uint64((1 << bits) - 1)
        count = 0
        while v:
            v &= v - np.uint64(1)
            count += 1
        out[i] = count
    return out.reshape(x.shape)
