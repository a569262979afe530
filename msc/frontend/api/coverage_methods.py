"""MindSpore's Tensor methods that mirror a functional op msc has (``x.add(y, alpha=2)``,
``x.permute(1, 0)``, ``x.float()``), with the method's own argument names and defaults,
which differ from the function's in places (``Tensor.gather(dim, index)`` is
``ops.gather_elements``; its old form ``gather(input_indices, axis)`` is still taken)."""

from __future__ import annotations

from typing import Any, Callable

from msc.frontend.api import coverage_forms as C
from msc.frontend.api import einsum as E
from msc.frontend.api import functional as F
from msc.frontend.api import functional_array as A
from msc.common.tensor import Tensor, apply
from msc.ir import dtypes
from msc.ir.primitives import Op


def _scaled(other: Any, alpha: Any) -> Any:
    return other if isinstance(alpha, (int, float)) and alpha == 1 else other * alpha


def _add(self: Any, other: Any, *, alpha: Any = 1) -> Any:
    return apply(Op.Add, self, _scaled(other, alpha))


def _sub(self: Any, other: Any, *, alpha: Any = 1) -> Any:
    return apply(Op.Sub, self, _scaled(other, alpha))


def _div(self: Any, other: Any, *, rounding_mode: str | None = None) -> Any:
    return F.div(self, other, rounding_mode=rounding_mode)


def _prim_method(prim: Any, arity: int) -> Callable[..., Any]:
    if arity == 1:
        return lambda self: apply(prim, self)
    return lambda self, other: apply(prim, self, other)


def _cast_to(dtype: dtypes.DType) -> Callable[[Any], Any]:
    return lambda self: F.cast(self, dtype)


def _shape_args(size: tuple[Any, ...]) -> Any:
    """``f(2, 3)`` and ``f((2, 3))`` alike."""
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def _gather(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``gather(dim, index)``; the old ``gather(input_indices, axis, batch_dims=0)``."""
    if args and isinstance(args[0], Tensor) or "input_indices" in kwargs:
        return F.gather(self, *args, **kwargs)
    return A.gather_elements(self, *args, **kwargs)


def _select(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``select(dim, index)``: the slice at ``index`` along ``dim``; the old
    ``select(condition, y)`` picks ``self`` where ``condition`` holds."""
    if args and isinstance(args[0], Tensor) or "condition" in kwargs:
        return F.select(*args[:1], self, *args[1:], **kwargs)
    dim, index = (list(args) + [kwargs.get("dim"), kwargs.get("index")][len(args):])[:2]
    axis = F._axis_of(self, dim, "select")
    return self[(slice(None),) * axis + (index,)]


def _where(self: Any, condition: Any, y: Any) -> Any:
    return F.select(condition, self, y)


def _ptp(self: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return F.amax(self, axis, keepdims) - F.amin(self, axis, keepdims)


def _new_full(self: Any, size: Any, fill_value: Any, *, dtype: Any = None) -> Any:
    return F.fill(dtype or self.dtype, size, fill_value)


def _sum_to_size(self: Any, *size: Any) -> Any:
    """Summed over the dims that ``size`` has as 1 (or lacks, leading): the gradient of
    a broadcast to ``self``'s shape."""
    shape = _shape_args(size)
    lead = self.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and self.shape[lead + i] != 1)
    out = F.sum(self, axes, True) if axes else self
    return F.reshape(out, tuple(shape))


def _permute(self: Any, *dims: Any) -> Any:
    return F.permute(self, _shape_args(dims))


def _matrix_t(self: Any) -> Any:
    return A.swapaxes(self, -2, -1)


def _to(self: Any, dtype: Any = None, non_blocking: bool = False, copy: bool = False) -> Any:
    return self if dtype is None else F.cast(self, dtype)


def _take(self: Any, indices: Any, axis: Any = None, mode: str = "clip") -> Any:
    return C.take(self, indices) if axis is None else F.gather(self, indices, axis)


METHODS: dict[str, Any] = {
    "add": _add, "sub": _sub, "div": _div,
    "mul": _prim_method(Op.Mul, 2), "pow": _prim_method(Op.Pow, 2),
    "remainder": _prim_method(Op.FloorMod, 2), "floor_divide": _prim_method(Op.FloorDiv, 2),
    "fmod": lambda self, other: F.fmod(self, other),
    "maximum": _prim_method(Op.Maximum, 2), "minimum": _prim_method(Op.Minimum, 2),
    "eq": _prim_method(Op.Equal, 2), "equal": _prim_method(Op.Equal, 2),
    "ne": _prim_method(Op.NotEqual, 2), "not_equal": _prim_method(Op.NotEqual, 2),
    "ge": _prim_method(Op.GreaterEqual, 2), "greater_equal": _prim_method(Op.GreaterEqual, 2),
    "gt": _prim_method(Op.Greater, 2), "greater": _prim_method(Op.Greater, 2),
    "le": _prim_method(Op.LessEqual, 2), "less_equal": _prim_method(Op.LessEqual, 2),
    "lt": _prim_method(Op.Less, 2), "less": _prim_method(Op.Less, 2),
    "logical_and": _prim_method(Op.LogicalAnd, 2), "logical_or": _prim_method(Op.LogicalOr, 2),
    "logical_not": _prim_method(Op.LogicalNot, 1), "neg": _prim_method(Op.Neg, 1),
    "cos": _prim_method(Op.Cos, 1), "sin": _prim_method(Op.Sin, 1),
    "ceil": _prim_method(Op.Ceil, 1), "floor": _prim_method(Op.Floor, 1),
    "reciprocal": _prim_method(Op.Reciprocal, 1), "rsqrt": _prim_method(Op.Rsqrt, 1),
    "sign": _prim_method(Op.Sign, 1), "sgn": _prim_method(Op.Sign, 1),
    "square": _prim_method(Op.Square, 1),
    "matmul": lambda self, tensor2: F.matmul(self, tensor2),
    "mm": lambda self, mat2: C.mm(self, mat2),
    "permute": _permute,
    "tile": lambda self, dims: F.tile(self, dims),
    "unsqueeze": lambda self, dim: F.unsqueeze(self, dim),
    "swapdims": lambda self, dim0, dim1: A.swapaxes(self, dim0, dim1),
    "gather": _gather, "select": _select, "where": _where,
    "softmax": lambda self, axis, dtype=None: F.softmax(self, axis, dtype=dtype),
    "amax": lambda self, axis=None, keepdims=False, *, initial=None, where=None:
        F.amax(self, axis, keepdims, initial=initial, where=where),
    "amin": lambda self, axis=None, keepdims=False, *, initial=None, where=None:
        F.amin(self, axis, keepdims, initial=initial, where=where),
    "split": lambda self, split_size, dim=0: F.split(self, split_size, dim),
    "expand": lambda self, *size: F.broadcast_to(self, _shape_args(size)),
    "reshape_as": lambda self, other: F.reshape(self, other.shape),
    "view_as": lambda self, other: F.reshape(self, other.shape),
    "type_as": lambda self, other: F.cast(self, other.dtype),
    "new_zeros": lambda self, size, dtype=None: F.zeros(size, dtype or self.dtype),
    "new_ones": lambda self, size, dtype=None: F.ones(size, dtype or self.dtype),
    "new_full": _new_full,
    "fill": lambda self, value: F.fill(self.dtype, self.shape, value),
    "float": _cast_to(dtypes.float32), "half": _cast_to(dtypes.float16),
    "double": _cast_to(dtypes.float64), "int": _cast_to(dtypes.int32),
    "long": _cast_to(dtypes.int64), "short": _cast_to(dtypes.int16),
    "byte": _cast_to(dtypes.uint8), "bool": _cast_to(dtypes.bool_),
    "to": _to,
    "dim": lambda self: self.ndim, "ndimension": lambda self: self.ndim,
    "nelement": lambda self: self.size,
    "itemsize": property(lambda self: self.dtype.np.itemsize),
    "nbytes": property(lambda self: self.dtype.np.itemsize * self.size),
    "is_floating_point": lambda self: self.dtype.is_float,
    "is_signed": lambda self: self.dtype.is_float or (self.dtype.is_int and
                                                      self.dtype.np.kind == "i"),
    "is_complex": lambda self: False,
    "is_contiguous": lambda self: True,
    "contiguous": lambda self: self,
    "numpy": lambda self: self.asnumpy(),
    "ptp": _ptp,
    "nansum": lambda self, axis=None, keepdims=False, *, dtype=None:
        C.nansum(self, axis, keepdims, dtype=dtype),
    "nanmean": lambda self, axis=None, keepdims=False, *, dtype=None:
        C.nanmean(self, axis, keepdims, dtype=dtype),
    "count_nonzero": lambda self, axis=(), keep_dims=False, dtype=dtypes.int32:
        C.count_nonzero(self, axis, keep_dims, dtype),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: C.diagonal(self, offset, axis1, axis2),
    "diff": lambda self, n=1, axis=-1, prepend=None, append=None:
        C.diff(self, n, axis, prepend, append),
    "take": _take,
    "top_k": lambda self, k, sorted=True: C.top_k(self, k, sorted),
    "ger": lambda self, vec2: C.ger(self, vec2),
    "median": lambda self, axis=-1, keepdims=False: E.median(self, axis, keepdims),
    "matrix_power": lambda self, n: E.matrix_power(self, n),
    "logit": lambda self, eps=None: C.logit(self, eps),
    "clamp": lambda self, min=None, max=None: F.clamp(self, min, max),
    "inv": lambda self: C.inv(self), "invert": lambda self: C.invert(self),
    "argmax_with_value": lambda self, axis=0, keep_dims=False: F.max(self, axis, keep_dims),
    "argmin_with_value": lambda self, axis=0, keep_dims=False: F.min(self, axis, keep_dims),
    "reverse": lambda self, axis: A.flip(self, axis),
    "rot90": lambda self, k, dims: C.rot90(self, k, dims),
    "hsplit": lambda self, indices_or_sections: C.hsplit(self, indices_or_sections),
    "vsplit": lambda self, indices_or_sections: C.vsplit(self, indices_or_sections),
    "dsplit": lambda self, indices_or_sections: C.dsplit(self, indices_or_sections),
    "tensor_split": lambda self, indices_or_sections, axis=0:
        C.tensor_split(self, indices_or_sections, axis),
    "isposinf": lambda self: C.isposinf(self), "isneginf": lambda self: C.isneginf(self),
    "isreal": lambda self: C.isreal(self), "real": lambda self: self,
    "conj": lambda self: self,
    "cross": lambda self, other, dim=None: C.cross(self, other, dim),
    "diagflat": lambda self, offset=0: C.diagflat(self, offset),
    "aminmax": lambda self, *, axis=0, keepdims=False: C.aminmax(self, axis=axis,
                                                                 keepdims=keepdims),
    "addmm": lambda self, mat1, mat2, *, beta=1, alpha=1:
        C.addmm(self, mat1, mat2, beta=beta, alpha=alpha),
    "addmv": lambda self, mat, vec, *, beta=1, alpha=1:
        C.addmv(self, mat, vec, beta=beta, alpha=alpha),
    "addr": lambda self, vec1, vec2, beta=1, alpha=1:
        C.addr(self, vec1, vec2, beta=beta, alpha=alpha),
    "addbmm": lambda self, batch1, batch2, *, beta=1, alpha=1:
        C.addbmm(self, batch1, batch2, beta=beta, alpha=alpha),
    "baddbmm": lambda self, batch1, batch2, *, beta=1, alpha=1:
        C.baddbmm(self, batch1, batch2, beta, alpha),
    "logcumsumexp": lambda self, axis: C.logcumsumexp(self, axis),
    "sum_to_size": _sum_to_size,
    "mT": property(_matrix_t), "mH": property(_matrix_t), "H": property(_matrix_t),
}


def install(cls: type) -> None:
    """Add ``METHODS`` to ``cls`` (Tensor), leaving any method it already has."""
    for name, fn in METHODS.items():
        if name not in vars(cls):
            setattr(cls, name, fn)


__all__ = ["METHODS", "install"]
