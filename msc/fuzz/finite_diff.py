"""Central finite differences in float64: the independent reference for gradients (the
fuzzer's gradient calls and the autodiff tests compare against it, never against msc's
own eager gradients)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

EPS = 1e-6


def flat(value: Any) -> list[np.ndarray]:
    """A (nested) tuple of arrays as a flat list of float64 arrays."""
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in flat(v)]
    return [np.asarray(value, np.float64)]


def vjp(fn: Callable[..., Any], args: Sequence[np.ndarray], sens: Sequence[np.ndarray],
        positions: Sequence[int] | None = None, eps: float = EPS) -> list[np.ndarray]:
    """The gradients of ``sum_k <sens_k, out_k>`` (``out`` = ``fn(*args)`` flattened)
    with respect to ``args`` at ``positions`` (all by default), steps of ``eps``."""
    args = [np.array(a, np.float64) for a in args]
    positions = range(len(args)) if positions is None else positions

    def dot(values: list[np.ndarray]) -> float:
        return float(sum(np.sum(s * o) for s, o in zip(sens, flat(fn(*values)))))

    grads = []
    for p in positions:
        g = np.zeros_like(args[p])
        for i in np.ndindex(args[p].shape):
            hi = [a.copy() for a in args]
            lo = [a.copy() for a in args]
            hi[p][i] += eps
            lo[p][i] -= eps
            g[i] = (dot(hi) - dot(lo)) / (2 * eps)
        grads.append(g)
    return grads


def ones_like_outputs(fn: Callable[..., Any], args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.ones_like(o) for o in flat(fn(*[np.asarray(a, np.float64) for a in args]))]


def jvp(fn: Callable[..., Any], args: Sequence[np.ndarray],
        tangents: Sequence[np.ndarray], eps: float = EPS) -> list[np.ndarray]:
    """The directional derivative of each (flattened) output along ``tangents``."""
    args = [np.asarray(a, np.float64) for a in args]
    hi = flat(fn(*[a + eps * t for a, t in zip(args, tangents)]))
    lo = flat(fn(*[a - eps * t for a, t in zip(args, tangents)]))
    return [(h - lo_) / (2 * eps) for h, lo_ in zip(hi, lo)]


def jacobian(fn: Callable[..., Any], args: Sequence[np.ndarray], position: int,
             output: int = 0, eps: float = EPS) -> np.ndarray:
    """d out[output] / d args[position], of shape out.shape + arg.shape."""
    args = [np.asarray(a, np.float64) for a in args]
    out_shape = flat(fn(*args))[output].shape
    jac = np.zeros(out_shape + args[position].shape)
    for i in np.ndindex(args[position].shape):
        t = [np.zeros_like(a) for a in args]
        t[position][i] = 1.0
        jac[(...,) + i] = jvp(fn, args, t, eps)[output]
    return jac
