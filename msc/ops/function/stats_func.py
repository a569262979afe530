"""Order statistics and counts composed of sorts, gathers and selects: ``quantile``,
``nanquantile``, ``nanmedian``, ``kthvalue``, ``histc``, ``cov``, and the positional picks
``choose`` and ``fill_diagonal``. Positions that depend only on static shapes are numpy
constants; everything else is graph ops, so these run eagerly and in graphs on every
target, with gradients through the gathers where the values are differentiable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.common.tensor import SymTensor, Tensor, apply
from msc.errors import GraphTypeError, GraphValueError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function.arguments import _as_tensor, _checking
from msc.ops.function.manipulation_func import _axis, _fail


def _last(x: Tensor, axis: Any, op: str) -> tuple[Tensor, int]:
    """``x`` with ``axis`` moved last (flattened for None), and the axis it came from."""
    if axis is None:
        return F.reshape(x, (-1,)), -1
    axis = _axis(x, axis, op)
    return A.moveaxis(x, axis, -1), axis


def _restore(out: Tensor, x: Tensor, axis: int, keepdims: bool, lead: int = 0) -> Tensor:
    """A result with the reduced axis last (size 1) back in ``x``'s layout: dropped, or
    kept as size 1 at its place (every axis for a reduction of all, ``axis == -1``)."""
    if axis == -1:
        shape = out.shape[:lead] + ((1,) * x.ndim if keepdims else ())
        return F.reshape(out, shape)
    out = A.moveaxis(out, -1, lead + axis)
    return out if keepdims else F.squeeze(out, lead + axis)


def _interpolated(x: Any, q: Any, axis: Any, keepdims: bool, skip_nan: bool, op: str) -> Any:
    x = _as_tensor(x, op)
    if not x.dtype.is_float:
        _fail(op, f"the input must be a float Tensor, but got {x.dtype}.", GraphTypeError)
    rows, where = _last(x, axis, op)
    n = rows.shape[-1]
    many = isinstance(q, Tensor) and q.ndim == 1
    if isinstance(q, Tensor):
        if q.ndim > 1:
            _fail(op, f"'q' must be a scalar or a 1-D Tensor, but got shape {q.shape}.")
        if not isinstance(q, SymTensor) and not ((q.asnumpy() >= 0) & (q.asnumpy() <= 1)).all():
            _fail(op, "'q' must be in the range [0, 1].")
        qs = F.reshape(F.cast(q, x.dtype), (-1,) + (1,) * rows.ndim)
    else:
        if not 0 <= q <= 1:
            _fail(op, f"'q' must be in the range [0, 1], but got {q}.")
        qs = Tensor(np.full((1,) * (rows.ndim + 1), q, x.dtype.np))
    ordered = A.sort(rows, -1)[0]  # nan last
    nan = apply(Op.IsNan, rows)
    count = F.sum(F.cast(apply(Op.LogicalNot, nan), x.dtype), -1, True) if skip_nan else \
        Tensor(np.full(rows.shape[:-1] + (1,), n, x.dtype.np))
    pos = qs * F.clamp(count - 1, 0, None)  # (Q, ..., 1)
    lo = apply(Op.Floor, pos)
    hi = apply(Op.Ceil, pos)
    shape = pos.shape[:1] + ordered.shape
    spread = F.broadcast_to(F.expand_dims(ordered, 0), shape)
    low = A.gather_elements(spread, -1, F.cast(lo, dtypes.int64))
    high = A.gather_elements(spread, -1, F.cast(hi, dtypes.int64))
    out = low + (high - low) * (pos - lo)
    empty = count < 1 if skip_nan else F.any(nan, -1, True)
    out = F.select(F.broadcast_to(empty, out.shape), F.fill(x.dtype, out.shape, np.nan), out)
    out = _restore(out, x, where, keepdims, lead=1)
    return out if many else F.squeeze(out, 0)


def quantile(input: Any, q: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """The ``q``-th quantiles along ``axis`` (all elements for None), interpolated
    linearly between order statistics; nan where a row holds a nan. A 1-D ``q`` puts
    one result per quantile along a new first axis."""
    return _interpolated(input, q, axis, keepdims, False, "quantile")


def nanquantile(input: Any, q: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """``quantile`` of the values that are not nan (nan for a row of nans only)."""
    return _interpolated(input, q, axis, keepdims, True, "nanquantile")


def nanmedian(input: Any, axis: int = -1, keepdims: bool = False) -> tuple[Any, Any]:  # noqa: A002
    """The lower median of the values along ``axis`` that are not nan, and its index."""
    x = _as_tensor(input, "nanmedian")
    rows, where = _last(x, axis, "nanmedian")
    ordered, order = A.sort(rows, -1)
    count = F.sum(F.cast(apply(Op.LogicalNot, apply(Op.IsNan, rows)), dtypes.int64), -1, True)
    k = F.clamp(count - 1, 0, None) // 2
    values = A.gather_elements(ordered, -1, k)
    index = F.cast(A.gather_elements(order, -1, k), dtypes.int64)
    return _restore(values, x, where, keepdims), _restore(index, x, where, keepdims)


def kthvalue(input: Any, k: int, dim: int = -1, keepdim: bool = False) -> tuple[Any, Any]:  # noqa: A002
    """The ``k``-th smallest value along ``dim`` (1-based) and its index (int64)."""
    x = _as_tensor(input, "kthvalue")
    rows, where = _last(x, dim, "kthvalue")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= rows.shape[-1]:
        _fail("kthvalue", f"'k' must be an int in [1, {rows.shape[-1]}], but got {k!r}.")
    ordered, order = A.sort(rows, -1)
    values = ordered[..., k - 1:k]
    return (_restore(values, x, where, keepdim),
            _restore(F.cast(order[..., k - 1:k], dtypes.int64), x, where, keepdim))


def histc(input: Any, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Any:  # noqa: A001, A002
    """Counts of the elements in ``bins`` equal-width bins over [min, max] (the data's own
    range when both are 0), in the input's dtype; elements outside are not counted, and
    ``max`` itself falls in the last bin."""
    x = _as_tensor(input, "histc")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        _fail("histc", f"'bins' must be a positive int, but got {bins!r}.")
    if min > max:
        _fail("histc", f"'max' must be larger than 'min', but got min {min} and max {max}.")
    flat = F.cast(F.reshape(x, (-1,)), dtypes.float64)
    if min == max:
        lo, hi = F.amin(flat), F.amax(flat)
        same = lo == hi
        lo, hi = F.select(same, lo - 1.0, lo), F.select(same, hi + 1.0, hi)
    else:
        lo, hi = Tensor(np.float64(min)), Tensor(np.float64(max))
    inside = apply(Op.LogicalAnd, flat >= lo, flat <= hi)
    slot = F.clamp(F.cast(apply(Op.Floor, (flat - lo) * bins / (hi - lo)), dtypes.int64),
                   0, bins - 1)
    hits = apply(Op.LogicalAnd, F.reshape(inside, (-1, 1)),
                 F.reshape(slot, (-1, 1)) == Tensor(np.arange(bins, dtype=np.int64)))
    return F.cast(F.sum(F.cast(hits, dtypes.int64), 0), x.dtype)


def cov(input: Any, *, correction: int = 1, fweights: Any = None,  # noqa: A002
        aweights: Any = None) -> Any:
    """The covariance matrix of the variables in the rows of ``input`` (observations in
    columns), observations weighted by ``fweights`` (counts) and ``aweights``; ``correction``
    1 is Bessel's. A 1-D input is one variable (a 0-d result)."""
    x = _as_tensor(input, "cov")
    if x.ndim > 2:
        _fail("cov", f"the input must be 1-D or 2-D, but got {x.ndim}-D.")
    rows = F.reshape(x, (1, -1)) if x.ndim < 2 else x
    rows = rows if rows.dtype.is_float else F.cast(rows, dtypes.float32)
    n = rows.shape[1]
    w = None
    for given in (fweights, aweights):
        if given is not None:
            g = F.cast(F.reshape(_as_tensor(given, "cov"), (-1,)), rows.dtype)
            if g.shape != (n,):
                _fail("cov", f"the weights must have {n} elements, but got {g.shape[0]}.")
            w = g if w is None else w * g
    if w is None:
        total = float(n)
        mean = F.mean(rows, 1, True)
        norm = total - correction
    else:
        total = F.sum(w)
        mean = F.sum(rows * w, 1, True) / total
        norm = total - correction * (F.sum(w * F.cast(F.reshape(_as_tensor(aweights, "cov"),
                                                                (-1,)), rows.dtype)) / total
                                     if aweights is not None else 1)
    centered = rows - mean
    weighted = centered if w is None else centered * w
    out = F.matmul(weighted, F.transpose(centered, (1, 0)))
    out = out / (F.clamp(norm, 0, None) if isinstance(norm, Tensor) else max(norm, 0))
    return F.reshape(out, ()) if x.ndim < 2 else out


def choose(a: Any, choices: Any, mode: str = "clip") -> Any:
    """``choices[a[i]][i]`` at each position (all broadcast together); an index outside
    [0, n) is clipped (``mode`` "clip"), wrapped ("wrap") or refused ("raise")."""
    idx = _as_tensor(a, "choose")
    picks = [_as_tensor(c, "choose") for c in choices]
    if mode not in ("clip", "wrap", "raise"):
        _fail("choose", f"'mode' must be 'clip', 'wrap' or 'raise', but got {mode!r}.")
    if not idx.dtype.is_int:
        _fail("choose", f"the indices must be an int Tensor, but got {idx.dtype}.",
              GraphTypeError)
    n = len(picks)
    if mode == "raise":
        if isinstance(idx, SymTensor):
            _fail("choose", "mode 'raise' checks values, which a graph does not know; use "
                            "'clip' or 'wrap'.")
        if ((idx.asnumpy() < 0) | (idx.asnumpy() >= n)).any():
            with _checking("choose"):
                raise GraphValueError(f"an index is outside [0, {n})")
    shape = np.broadcast_shapes(idx.shape, *(c.shape for c in picks))
    dt = picks[0].dtype
    for c in picks[1:]:
        dt = dtypes.promote(dt, c.dtype)
    stacked = F.stack([F.broadcast_to(F.cast(c, dt), shape) for c in picks], 0)
    k = F.cast(idx, dtypes.int64)
    k = k % n if mode == "wrap" else F.clamp(k, 0, n - 1)
    k = F.expand_dims(F.broadcast_to(k, shape), 0)
    return F.squeeze(A.gather_elements(stacked, 0, k), 0)


def fill_diagonal(input: Any, fill_value: float, wrap: bool = False) -> Any:  # noqa: A002
    """``input`` with ``fill_value`` on its main diagonal (a 2-D tensor, or one whose dims
    are all equal); a tall matrix restarts the diagonal every ``cols + 1`` rows with
    ``wrap``, as numpy's ``fill_diagonal``."""
    x = _as_tensor(input, "fill_diagonal")
    if x.ndim < 2 or (x.ndim > 2 and len(set(x.shape)) != 1):
        _fail("fill_diagonal", f"the input must be 2-D or have all dims equal, but got "
                               f"{x.shape}.")
    mask = np.zeros(x.shape, bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return F.select(Tensor(mask), F.fill(x.dtype, x.shape, fill_value), x)


METHODS = {
    "quantile": lambda self, q, axis=None, keepdims=False: quantile(self, q, axis, keepdims),
    "nanquantile": lambda self, q, axis=None, keepdims=False:
        nanquantile(self, q, axis, keepdims),
    "nanmedian": lambda self, axis=-1, keepdims=False: nanmedian(self, axis, keepdims),
    "kthvalue": lambda self, k, dim=-1, keepdim=False: kthvalue(self, k, dim, keepdim),
    "histc": lambda self, bins=100, min=0.0, max=0.0: histc(self, bins, min, max),
    "cov": lambda self, *, correction=1, fweights=None, aweights=None:
        cov(self, correction=correction, fweights=fweights, aweights=aweights),
    "choose": lambda self, choices, mode="clip": choose(self, choices, mode),
    "fill_diagonal": lambda self, fill_value, wrap=False: fill_diagonal(self, fill_value, wrap),
}

__all__ = ["quantile", "nanquantile", "nanmedian", "kthvalue", "histc", "cov", "choose",
           "fill_diagonal"]
