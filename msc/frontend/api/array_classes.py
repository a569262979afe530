"""MindSpore's primitive classes and Tensor methods for the array ops of
``functional_array``: attributes go to ``__init__``, inputs to ``__call__``; each call
is the functional form."""

from __future__ import annotations

from typing import Any

from msc.frontend.api import functional as F
from msc.frontend.api import functional_array as A
from msc.frontend.api.prim_classes import Primitive
from msc.common.tensor import apply
from msc.ir import dtypes
from msc.ir.primitives import Op


class Sort(Primitive):
    def __init__(self, axis: int = -1, descending: bool = False):
        super().__init__(axis=axis, descending=descending)
        self.axis, self.descending = axis, descending

    def __call__(self, x: Any) -> tuple[Any, Any]:
        return A.sort(x, self.axis, self.descending)


class TopK(Primitive):
    """The ``k`` largest along the last axis (always sorted here)."""

    def __init__(self, sorted: bool = True):
        super().__init__(sorted=sorted)

    def __call__(self, input_x: Any, k: Any) -> tuple[Any, Any]:
        return A.topk(input_x, k)


class CumProd(Primitive):
    def __init__(self, exclusive: bool = False, reverse: bool = False):
        super().__init__(exclusive=exclusive, reverse=reverse)
        self.exclusive, self.reverse = exclusive, reverse

    def __call__(self, x: Any, axis: int) -> Any:
        return apply(Op.CumProd, x, axis=axis, exclusive=self.exclusive, reverse=self.reverse)


class Cummax(Primitive):
    def __init__(self, axis: int):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input: Any) -> tuple[Any, Any]:
        return A.cummax(input, self.axis)


class Cummin(Cummax):
    def __call__(self, input: Any) -> tuple[Any, Any]:
        return A.cummin(input, self.axis)


class GatherD(Primitive):
    def __call__(self, x: Any, dim: int, index: Any) -> Any:
        return A.gather_d(x, dim, index)


class GatherNd(Primitive):
    def __call__(self, input_x: Any, indices: Any) -> Any:
        return A.gather_nd(input_x, indices)


class ScatterNd(Primitive):
    def __call__(self, indices: Any, updates: Any, shape: Any) -> Any:
        return A.scatter_nd(indices, updates, shape)


class TensorScatterUpdate(Primitive):
    def __call__(self, input_x: Any, indices: Any, updates: Any) -> Any:
        return A.tensor_scatter_update(input_x, indices, updates)


class TensorScatterAdd(Primitive):
    def __call__(self, input_x: Any, indices: Any, updates: Any) -> Any:
        return A.tensor_scatter_add(input_x, indices, updates)


class TensorScatterElements(Primitive):
    def __init__(self, axis: int = 0, reduction: str = "none"):
        super().__init__(axis=axis, reduction=reduction)
        self.axis, self.reduction = axis, reduction

    def __call__(self, data: Any, indices: Any, updates: Any) -> Any:
        return A.tensor_scatter_elements(data, indices, updates, self.axis, self.reduction)


class IndexAdd(Primitive):
    def __init__(self, axis: int, use_lock: bool = True, check_index_bound: bool = True):
        super().__init__(axis=axis, use_lock=use_lock, check_index_bound=check_index_bound)
        self.axis = axis

    def __call__(self, input_x: Any, indices: Any, input_y: Any) -> Any:
        return A.index_add(input_x, indices, input_y, self.axis)


class MaskedFill(Primitive):
    def __call__(self, input: Any, mask: Any, value: Any) -> Any:
        return A.masked_fill(input, mask, value)


class Tril(Primitive):
    def __init__(self, diagonal: int = 0):
        super().__init__(diagonal=diagonal)
        self.diagonal = diagonal

    def __call__(self, x: Any) -> Any:
        return A.tril(x, self.diagonal)


class Triu(Tril):
    def __call__(self, x: Any) -> Any:
        return A.triu(x, self.diagonal)


class ReverseV2(Primitive):
    def __init__(self, axis: Any):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x: Any) -> Any:
        return A.flip(input_x, self.axis)


class Roll(Primitive):
    def __init__(self, shift: Any, axis: Any):
        super().__init__(shift=shift, axis=axis)
        self.shift, self.axis = shift, axis

    def __call__(self, input_x: Any) -> Any:
        return A.roll(input_x, self.shift, self.axis)


class Unstack(Primitive):
    def __init__(self, axis: int = 0, num: int | None = None):
        super().__init__(axis=axis, num=num)
        self.axis = axis

    def __call__(self, input_x: Any) -> tuple[Any, ...]:
        return A.unbind(input_x, self.axis)


class Eye(Primitive):
    def __call__(self, n: int, m: int, t: dtypes.DType) -> Any:
        return A.eye(n, m, t)


class LinSpace(Primitive):
    def __call__(self, start: Any, stop: Any, num: Any) -> Any:
        return A.linspace(start, stop, num)


class Meshgrid(Primitive):
    def __init__(self, indexing: str = "xy"):
        super().__init__(indexing=indexing)
        self.indexing = indexing

    def __call__(self, inputs: Any) -> tuple[Any, ...]:
        return A.meshgrid(*inputs, indexing=self.indexing)


class Shape(Primitive):
    """The static shape, a tuple of Python ints (in a graph too)."""

    def __call__(self, input_x: Any) -> tuple[int, ...]:
        return F.shape(input_x)


class DType(Primitive):
    def __call__(self, input_x: Any) -> dtypes.DType:
        return F.dtype(input_x)


class Size(Primitive):
    def __call__(self, input_x: Any) -> int:
        return A.size(input_x)


class Rank(Primitive):
    def __call__(self, input_x: Any) -> int:
        return F.rank(input_x)


__all__ = ["Sort", "TopK", "CumProd", "Cummax", "Cummin", "GatherD", "GatherNd", "ScatterNd",
           "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterElements", "IndexAdd",
           "MaskedFill", "Tril", "Triu", "ReverseV2", "Roll", "Unstack", "Eye", "LinSpace",
           "Meshgrid", "Shape", "DType", "Size", "Rank"]


# --- Tensor methods: ``x.sort()`` is ``ops.sort(x)`` with MindSpore's method arguments ---


def _std(self: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
    return A.std(self, axis, ddof, keepdims)


def _var(self: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
    return A.var(self, axis, ddof, keepdims)


def _index_add(self: Any, dim: int, index: Any, source: Any) -> Any:
    return A.index_add(self, index, source, dim)


def _repeat_interleave(self: Any, repeats: Any, dim: int | None = None) -> Any:
    return A.repeat_interleave(self, repeats, dim)


def _logsumexp(self: Any, dim: Any, keepdim: bool = False) -> Any:
    return F.logsumexp(self, dim, keepdim)


TENSOR_METHODS = {
    "sort": A.sort, "argsort": A.argsort, "msort": A.msort, "topk": A.topk,
    "cumprod": A.cumprod, "cummax": A.cummax, "cummin": A.cummin, "gather_nd": A.gather_nd,
    "gather_elements": A.gather_elements, "scatter": A.scatter, "index_add": _index_add,
    "index_select": A.index_select, "masked_fill": A.masked_fill, "tril": A.tril,
    "triu": A.triu, "flip": A.flip, "fliplr": A.fliplr, "flipud": A.flipud, "roll": A.roll,
    "chunk": A.chunk, "unbind": A.unbind, "narrow": A.narrow,
    "repeat_interleave": _repeat_interleave, "std": _std, "var": _var, "norm": A.norm,
    "outer": A.outer, "inner": A.inner, "dot": A.dot, "diag": A.diag, "trace": A.trace,
    "swapaxes": A.swapaxes, "moveaxis": A.moveaxis, "movedim": A.movedim, "t": A.t,
    "ravel": A.ravel, "numel": A.numel, "isclose": A.isclose, "allclose": A.allclose,
    "clone": A.identity, "copy": A.identity, "expand_as": A.expand_as,
    "logsumexp": _logsumexp,
}


def install_tensor_methods(cls: type) -> None:
    """Add the methods above to ``cls`` (Tensor), refusing to replace one it has."""
    for name, fn in TENSOR_METHODS.items():
        if name in vars(cls):
            raise TypeError(f"Tensor.{name} is defined twice")
        setattr(cls, name, fn)
