"""Tensor's methods over the functional ops (``x.sum()``, ``x.reshape(...)``, ``x[key]``,
``x.add(y, alpha=2)``, ``x.sort()``, ``x.float()``, ...), installed on ``Tensor`` when this
module loads (``import msc`` loads it right after Tensor).

They live here, not in ``common/tensor.py``, because they call the ops of ``msc.ops``,
which are built on Tensor: Tensor's own module keeps its operators and the methods that
are one primitive of the table. A method has MindSpore's argument names and defaults,
which differ from the function's in places (``Tensor.gather(dim, index)`` is
``ops.gather_elements``; its old form ``gather(input_indices, axis)`` is still taken).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from msc.common.tensor import Tensor, apply, eager_key
from msc.errors import GraphTypeError, GraphValueError, InternalCompilerError, MscError
from msc.frontend.source import user_loc
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F
from msc.ops.function import array_func as A
from msc.ops.function import linalg_func as E
from msc.ops.function.indexing import setitem
from msc.ops.function.linalg_func import addbmm, addmm, addmv, addr, baddbmm, cross, ger, mm
from msc.ops.function.manipulation_func import (
    diagflat,
    diagonal,
    dsplit,
    hsplit,
    rot90,
    take,
    tensor_split,
    top_k,
    vsplit,
)
from msc.ops.function.math_func import METHODS as MATH_METHODS
from msc.ops.function.special_func import METHODS as SPECIAL_METHODS
from msc.ops.function.sampling_func import METHODS as SAMPLING_METHODS
from msc.ops.function.solve_func import METHODS as SOLVE_METHODS
from msc.ops.function.stats_func import METHODS as STATS_METHODS
from msc.ops.function.math_func import (
    aminmax,
    count_nonzero,
    diff,
    inv,
    invert,
    isneginf,
    isposinf,
    isreal,
    logcumsumexp,
    logit,
    nanmean,
    nansum,
)

# --- the methods over the functional ops -----------------------------------------------


class _OverFunctional:
    """Tensor's ``@``, ``[key]`` and the methods of MindSpore's Tensor that are one call of a
    functional op (``x.sum()``, ``x.reshape(...)``): ``install`` copies them onto Tensor, as
    they were written in its class body before ``ops`` moved out of ``common``."""

    def __matmul__(self, o: Any) -> Any: return F.matmul(self, o)
    def __rmatmul__(self, o: Any) -> Any: return F.matmul(o, self)
    def __getitem__(self, key: Any) -> Any: return F.getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        """``x[key] = value`` in place, numpy's way. A key or value numpy refuses raises
        the error a graph's ``x[key] = value`` raises (``indexing.setitem``'s checks: msc's
        error class, naming the op and the user's line), not numpy's bare one."""
        try:
            self._data[eager_key(key)] = np.asarray(
                value.asnumpy() if isinstance(value, Tensor) else value,
                dtype=self._data.dtype)
        except (IndexError, ValueError, TypeError) as refused:
            try:
                setitem(self, key, value)
            except MscError as e:
                raise e from None
            except Exception:  # noqa: BLE001 - no error of msc's: numpy's is the one
                pass
            raise refused

    # --- methods (MindSpore's Tensor methods, over the functional ops) -------------------

    def sum(self, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        out = F.sum(self, axis, keepdims)
        return out if dtype is None else F.cast(out, dtype)

    def all(self, axis: Any = (), keep_dims: bool = False) -> Any:
        return F.all(self, axis, keep_dims)

    def any(self, axis: Any = (), keep_dims: bool = False) -> Any:
        return F.any(self, axis, keep_dims)

    def bmm(self, mat2: Any) -> Any:
        return F.bmm(self, mat2)

    def cumsum(self, axis: Any = None, dtype: Any = None) -> Any:
        """Running sums along ``axis`` (None: of the flattened tensor)."""
        x = self if axis is not None else F.reshape(self, (-1,))
        return F.cumsum(x, 0 if axis is None else axis, dtype)

    def mean(self, axis: Any = None, keep_dims: bool = False) -> Any:
        return F.mean(self, axis, keep_dims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Any:
        """Along one axis the gradient goes to the first maximum (MindSpore's)."""
        if isinstance(axis, int) and not isinstance(axis, bool):
            return F.max(self, axis, keepdims)[0]
        return F.amax(self, axis, keepdims)

    def min(self, axis: Any = None, keepdims: bool = False) -> Any:
        if isinstance(axis, int) and not isinstance(axis, bool):
            return F.min(self, axis, keepdims)[0]
        return F.amin(self, axis, keepdims)

    def prod(self, axis: Any = None, keep_dims: bool = False) -> Any:
        return F.prod(self, axis, keep_dims)

    def argmax(self, axis: Any = None, keepdims: bool = False) -> Any:
        return F.argmax(self, axis, keepdims)

    def argmin(self, axis: Any = None, keepdims: bool = False) -> Any:
        return F.argmin(self, axis, keepdims)

    def reshape(self, *shape: Any) -> Any:
        return F.reshape(self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int)
                         else shape)

    def view(self, *shape: Any) -> Any:
        return self.reshape(*shape)

    def transpose(self, *axes: Any) -> Any:
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = tuple(axes[0])
        return F.transpose(self, axes or tuple(reversed(range(self.ndim))))

    @property
    def T(self) -> Any:  # noqa: N802 - MindSpore's name
        return self.transpose()

    def astype(self, dtype: dtypes.DType) -> Any:
        return F.cast(self, dtype)

    def squeeze(self, axis: Any = None) -> Any:
        return F.squeeze(self, axis)

    def expand_dims(self, axis: int) -> Any:
        return F.expand_dims(self, axis)

    def flatten(self) -> Any:
        return F.reshape(self, (-1,))

    def clip(self, xmin: Any, xmax: Any) -> Any:
        return F.clamp(self, xmin, xmax)

    def broadcast_to(self, shape: Any) -> Any:
        return F.broadcast_to(self, shape)


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


def _install_array_methods(cls: type) -> None:
    """Add the methods above to ``cls`` (Tensor), refusing to replace one it has."""
    for name, fn in TENSOR_METHODS.items():
        if name in vars(cls):
            raise TypeError(f"Tensor.{name} is defined twice")
        setattr(cls, name, fn)


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
    return take(self, indices) if axis is None else F.gather(self, indices, axis)


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
    "mm": lambda self, mat2: mm(self, mat2),
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
        nansum(self, axis, keepdims, dtype=dtype),
    "nanmean": lambda self, axis=None, keepdims=False, *, dtype=None:
        nanmean(self, axis, keepdims, dtype=dtype),
    "count_nonzero": lambda self, axis=(), keep_dims=False, dtype=dtypes.int32:
        count_nonzero(self, axis, keep_dims, dtype),
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: diagonal(self, offset, axis1, axis2),
    "diff": lambda self, n=1, axis=-1, prepend=None, append=None:
        diff(self, n, axis, prepend, append),
    "take": _take,
    "top_k": lambda self, k, sorted=True: top_k(self, k, sorted),
    "ger": lambda self, vec2: ger(self, vec2),
    "median": lambda self, axis=-1, keepdims=False: E.median(self, axis, keepdims),
    "matrix_power": lambda self, n: E.matrix_power(self, n),
    "logit": lambda self, eps=None: logit(self, eps),
    "clamp": lambda self, min=None, max=None: F.clamp(self, min, max),
    "inv": lambda self: inv(self), "invert": lambda self: invert(self),
    "argmax_with_value": lambda self, axis=0, keep_dims=False: F.max(self, axis, keep_dims),
    "argmin_with_value": lambda self, axis=0, keep_dims=False: F.min(self, axis, keep_dims),
    "reverse": lambda self, axis: A.flip(self, axis),
    "rot90": lambda self, k, dims: rot90(self, k, dims),
    "hsplit": lambda self, indices_or_sections: hsplit(self, indices_or_sections),
    "vsplit": lambda self, indices_or_sections: vsplit(self, indices_or_sections),
    "dsplit": lambda self, indices_or_sections: dsplit(self, indices_or_sections),
    "tensor_split": lambda self, indices_or_sections, axis=0:
        tensor_split(self, indices_or_sections, axis),
    "isposinf": lambda self: isposinf(self), "isneginf": lambda self: isneginf(self),
    "isreal": lambda self: isreal(self), "real": lambda self: self,
    "conj": lambda self: self,
    "cross": lambda self, other, dim=None: cross(self, other, dim),
    "diagflat": lambda self, offset=0: diagflat(self, offset),
    "aminmax": lambda self, *, axis=0, keepdims=False: aminmax(self, axis=axis,
                                                                 keepdims=keepdims),
    "addmm": lambda self, mat1, mat2, *, beta=1, alpha=1:
        addmm(self, mat1, mat2, beta=beta, alpha=alpha),
    "addmv": lambda self, mat, vec, *, beta=1, alpha=1:
        addmv(self, mat, vec, beta=beta, alpha=alpha),
    "addr": lambda self, vec1, vec2, beta=1, alpha=1:
        addr(self, vec1, vec2, beta=beta, alpha=alpha),
    "addbmm": lambda self, batch1, batch2, *, beta=1, alpha=1:
        addbmm(self, batch1, batch2, beta=beta, alpha=alpha),
    "baddbmm": lambda self, batch1, batch2, *, beta=1, alpha=1:
        baddbmm(self, batch1, batch2, beta, alpha),
    "logcumsumexp": lambda self, axis: logcumsumexp(self, axis),
    "sum_to_size": _sum_to_size,
    "mT": property(_matrix_t), "mH": property(_matrix_t), "H": property(_matrix_t),
}


def _scatter_add(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``scatter_add(indices, updates)`` (``ops.tensor_scatter_add``); the newer
    ``scatter_add(dim, index, src)`` adds ``src`` along ``dim``."""
    if args and isinstance(args[0], int) or "dim" in kwargs:
        dim, index, src = (list(args) + [kwargs.get(k) for k in ("dim", "index", "src")
                                         ][len(args):])[:3]
        return A.tensor_scatter_elements(self, index, src, dim, "add")
    return A.tensor_scatter_add(self, *args, **kwargs)


def _strides(self: Any) -> tuple[int, ...]:
    """Bytes to step in each dim of the row-major layout msc's tensors have."""
    return tuple(n * self.dtype.np.itemsize for n in _stride(self))


def _stride(self: Any, dim: Any = None) -> Any:
    """Elements to step in each dim (of ``dim`` only, if given)."""
    steps, run = [], 1
    for n in reversed(self.shape):
        steps.append(run)
        run *= n
    steps = tuple(reversed(steps))
    return steps if dim is None else steps[dim]


def _itemset(self: Any, *args: Any) -> Any:
    """A copy with one element replaced: ``itemset(value)`` of a one-element tensor,
    ``itemset(flat_index, value)`` or ``itemset((i, j, ...), value)``."""
    if not args:
        raise GraphValueError("For 'Tensor.itemset', at least one argument (the value) is "
                              "needed.", user_loc())
    index, value = (0, args[0]) if len(args) == 1 else (args[0], args[1])
    if len(args) == 1 and self.size != 1:
        raise GraphValueError("For 'Tensor.itemset', a single argument is the value of a "
                              f"one-element tensor, but the tensor has {self.size} elements.",
                              user_loc())
    mask = np.zeros(self.shape, bool)
    if isinstance(index, int):
        mask.flat[index] = True
    else:
        mask[tuple(index)] = True
    return F.select(Tensor(mask), F.full_like(self, value), self)


def _repeat(self: Any, *repeats: Any) -> Any:
    """PyTorch's ``repeat``: the tensor tiled ``repeats`` times along each axis (more
    repeats than axes add leading axes)."""
    reps = _shape_args(repeats)
    if len(reps) < self.ndim:
        raise GraphValueError("For 'Tensor.repeat', the number of repeats must be at least the "
                              f"number of dimensions {self.ndim}, but got {len(reps)}.",
                              user_loc())
    return F.tile(self, reps)


def _resize(self: Any, *new_shape: Any) -> Any:
    """The elements in row-major order, cut or padded with zeros to ``new_shape``."""
    if not new_shape:
        return self
    shape = _shape_args(new_shape)
    size = 1
    for n in shape:
        size *= n
    flat = F.reshape(self, (-1,))
    if size > self.size:
        flat = F.concat((flat, F.zeros((size - self.size,), self.dtype)), 0)
    return F.reshape(flat[:size], shape)


def _set_(self: Any, source: Any = None, storage_offset: int = 0, size: Any = None,
          stride: Any = None) -> Any:
    """Eagerly, this tensor takes ``source``'s buffer (writes show in both), or becomes
    an empty tensor without a source; ``size`` views the buffer with another shape."""
    if source is None:
        self._data = self.asnumpy()[:0].reshape(0)
        return self
    if not isinstance(source, Tensor):
        raise GraphTypeError("For 'Tensor.set_', the source must be a Tensor (msc has no "
                             f"Storage), but got {type(source).__name__}.", user_loc())
    if source.dtype != self.dtype:
        raise RuntimeError(f"Could not set tensor of type {source.dtype} to a tensor of type "
                           f"{self.dtype}")
    buffer = source.asnumpy()
    if size is not None or stride is not None or storage_offset:
        shape = tuple(size) if size is not None else buffer.shape
        steps = tuple(stride) if stride is not None else tuple(
            int(np.prod(shape[i + 1:])) for i in range(len(shape)))
        buffer = np.lib.stride_tricks.as_strided(
            buffer.reshape(-1)[storage_offset:], shape,
            tuple(k * buffer.itemsize for k in steps))
    self._data = buffer
    return self


def _to_coo(self: Any) -> Any:
    """The nonzero elements of a 2-d tensor as a COOTensor (eager only: their number
    depends on the data)."""
    from msc.ops.function.sparse_func import dense_to_sparse_coo

    return dense_to_sparse_coo(self)


def _to_csr(self: Any) -> Any:
    """The nonzero elements of a 2-d tensor as a CSRTensor (eager only)."""
    from msc.ops.function.sparse_func import dense_to_sparse_csr

    return dense_to_sparse_csr(self)


def _to_(self: Any, device: Any = None, non_blocking: bool = False) -> Any:
    """msc's tensors are host arrays: ``to_("CPU")`` leaves the tensor where it is."""
    if not isinstance(non_blocking, bool):
        raise GraphValueError(f"The type of 'non_blocking' must be bool, but got {non_blocking}",
                              user_loc())
    if device not in ("Ascend", "CPU"):
        raise GraphValueError(f"The value of 'to' must be one of ['Ascend', 'CPU'], but got "
                              f"{device}", user_loc())
    if device != "CPU":
        raise GraphValueError("msc runs on the host: a tensor can only be moved 'to' 'CPU'.",
                              user_loc())
    return self


def _init_data(self: Any, slice_index: Any = None, shape: Any = None,
               opt_shard_group: Any = None) -> Any:
    """The tensor itself, once, for one that ``initializer()`` made: msc draws its values when
    it is made, where MindSpore draws them here. A tensor built from data has no initializer
    to run, nor has one already initialised (MindSpore raises alike)."""
    if self.init is None:
        raise GraphTypeError("init_data must be set Tensor.init, init can't be None",
                             user_loc())
    self.init = None
    return self


def _set_init_flag(self: Any, flag: bool) -> None:
    self._init_flag = bool(flag)


def _from_bytes(data: bytes, shape: Any, dtype: Any) -> Any:
    """``Tensor.convert_bytes_to_tensor``: a tensor of ``dtype`` and ``shape`` over a copy
    of the raw bytes ``data`` (``get_bytes``'s)."""
    return Tensor(np.frombuffer(data, dtype.np).reshape(tuple(shape)).copy())


class _Capsule:
    """A DLPack capsule as the object numpy's ``from_dlpack`` takes (a host tensor)."""

    def __init__(self, capsule: Any):
        self.capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # (kDLCPU, device 0)


def _from_dlpack(capsule: Any) -> Any:
    """``Tensor.from_dlpack``: a tensor sharing the memory of a DLPack capsule (or of an
    object with ``__dlpack__``)."""
    source = capsule if hasattr(capsule, "__dlpack__") else _Capsule(capsule)
    return Tensor.wrap(np.from_dlpack(source))


def _state_methods() -> dict[str, Any]:
    """The methods about a tensor's data and initialisation state (eager: a graph sees
    values only), and the small array methods written with ops."""
    return {
        "data": property(lambda self: Tensor.wrap(self.asnumpy()),  # shares the buffer
                         lambda self, value: _set_(self, value)),
        "value": lambda self: self,
        "is_init": lambda self: self.init_flag,
        "init_flag": property(lambda self: getattr(self, "_init_flag", False)),
        "set_init_flag": _set_init_flag,
        "init_data": _init_data,
        "itemset": _itemset,
        "fills": lambda self, value: F.full_like(self, value),
        "repeat": _repeat,
        "resize": _resize,
        "set_": _set_,
        "to_": _to_,
        "to_coo": _to_coo,
        "to_csr": _to_csr,
        "device": property(lambda self: "CPU"),
        "is_meta": property(lambda self: False),
        "get_bytes": lambda self: self.asnumpy().tobytes(),
        "convert_bytes_to_tensor": staticmethod(_from_bytes),
        "to_dlpack": lambda self: self.asnumpy().__dlpack__(),
        "from_dlpack": staticmethod(_from_dlpack),
    }


def _more_methods() -> dict[str, Any]:
    """The methods over the scatter, search and special functions (imported here: they
    load after Tensor)."""
    from msc.ops.function import scatter_func as S
    from msc.ops.function.manipulation_func import index_fill, reverse_sequence
    from msc.ops.function.nn_func import soft_shrink
    from msc.ops.function.patch_func import col2im, fold, unfold
    from msc.ops.function import search_func as Q
    from msc.ops.function.search_func import searchsorted

    return {
        "scatter_add": _scatter_add,
        "unfold": lambda self, kernel_size, dilation=1, padding=0, stride=1:
            unfold(self, kernel_size, dilation, padding, stride),
        "fold": lambda self, output_size, kernel_size, dilation=1, padding=0, stride=1:
            fold(self, output_size, kernel_size, dilation, padding, stride),
        "col2im": lambda self, output_size, kernel_size, dilation, padding_value, stride:
            col2im(self, output_size, kernel_size, dilation, padding_value, stride),
        "scatter_sub": lambda self, indices, updates: S.tensor_scatter_sub(self, indices, updates),
        "scatter_mul": lambda self, indices, updates: S.tensor_scatter_mul(self, indices, updates),
        "scatter_div": lambda self, indices, updates: S.tensor_scatter_div(self, indices, updates),
        "scatter_max": lambda self, indices, updates: S.tensor_scatter_max(self, indices, updates),
        "scatter_min": lambda self, indices, updates: S.tensor_scatter_min(self, indices, updates),
        "select_scatter": lambda self, src, axis, index: S.select_scatter(self, src, axis, index),
        "slice_scatter": lambda self, src, axis=0, start=None, end=None, step=1:
            S.slice_scatter(self, src, axis, start, end, step),
        "diagonal_scatter": lambda self, src, offset=0, dim1=0, dim2=1:
            S.diagonal_scatter(self, src, offset, dim1, dim2),
        "masked_scatter": lambda self, mask, source: S.masked_scatter(self, mask, source),
        "index_put": lambda self, indices, values, accumulate=False:
            S.index_put(self, indices, values, accumulate),
        "inplace_update": lambda self, v, indices: S.inplace_update(self, v, indices),
        "unsorted_segment_max": lambda self, segment_ids, num_segments:
            S.unsorted_segment_max(self, segment_ids, num_segments),
        "unsorted_segment_min": lambda self, segment_ids, num_segments:
            S.unsorted_segment_min(self, segment_ids, num_segments),
        "unsorted_segment_prod": lambda self, segment_ids, num_segments:
            S.unsorted_segment_prod(self, segment_ids, num_segments),
        "index_fill": lambda self, axis, index, value: index_fill(self, axis, index, value),
        "reverse_sequence": lambda self, seq_lengths, seq_dim=0, batch_dim=0:
            reverse_sequence(self, seq_lengths, seq_dim, batch_dim),
        "searchsorted": lambda self, v, side="left", sorter=None:
            searchsorted(self, v, side=side, sorter=sorter),
        "soft_shrink": lambda self, lambd=0.5: soft_shrink(self, lambd),
        "renorm": lambda self, p, axis, maxnorm: E.renorm(self, p, axis, maxnorm),
        "adjoint": lambda self: E.adjoint(self),
        "approximate_equal": lambda self, other, tolerance=1e-5:
            F.abs(self - other) < tolerance,
        "bitwise_not": lambda self: invert(self),
        "new_empty": lambda self, *size, dtype=None:
            F.zeros(_shape_args(size), dtype or self.dtype),
        # layout and storage: msc's tensors are row-major numpy arrays on the host
        "strides": property(_strides), "stride": _stride,
        "storage_offset": lambda self: 0,
        "data_ptr": lambda self: int(self.asnumpy().ctypes.data),
        "is_pinned": lambda self: False, "is_shared": lambda self: False,
        "has_init": property(lambda self: self.init is not None), "init": None,
        "data_sync": lambda self, is_wait=True: self,
        "flush_from_cache": lambda self: None,
        **_state_methods(),
        # results whose shape depends on the data: eager only (unique_with_pad is padded)
        "nonzero": lambda self, *, as_tuple=False: Q.nonzero(self, as_tuple=as_tuple),
        "argwhere": lambda self: Q.argwhere(self),
        "masked_select": lambda self, mask: Q.masked_select(self, mask),
        "unique": Q.tensor_unique,
        "unique_consecutive": lambda self, return_inverse=False, return_counts=False, dim=None:
            Q.unique_consecutive(self, return_inverse, return_counts, dim),
        "unique_with_pad": lambda self, pad_num: Q.unique_with_pad(self, pad_num),
        "bincount": lambda self, weights=None, minlength=0: Q.bincount(self, weights, minlength),
    }


def _install_mirrored_methods(cls: type) -> None:
    """Add ``METHODS`` to ``cls`` (Tensor), leaving any method it already has."""
    METHODS.update(_more_methods())
    for name, fn in METHODS.items():
        if name not in vars(cls):
            setattr(cls, name, fn)


def _install_over_functional(cls: type) -> None:
    """Add ``_OverFunctional``'s operators and methods to ``cls`` (Tensor), named as its own."""
    for name, value in vars(_OverFunctional).items():
        if name.startswith("__") and name not in ("__matmul__", "__rmatmul__", "__getitem__",
                                                  "__setitem__"):
            continue
        if name in vars(cls):
            raise InternalCompilerError(f"Tensor.{name} is both written and generated")
        if callable(value):
            value.__qualname__ = f"Tensor.{name}"
        setattr(cls, name, value)


def _install_math_methods(cls: type) -> None:
    """The Tensor methods of the composed math functions (``x.frac()``, ``x.xlogy(y)``)."""
    for name, method in {**MATH_METHODS, **SPECIAL_METHODS, **STATS_METHODS,
                         **SOLVE_METHODS, **SAMPLING_METHODS}.items():
        if name in vars(cls):
            raise InternalCompilerError(f"Tensor.{name} is defined twice")
        setattr(cls, name, method)


def install(cls: type) -> None:
    """Add every method of this module to ``cls`` (Tensor), in the order that decides which
    one a name gets: the methods over ``functional``, those of ``math_func``, the array
    methods, then the mirrored ones (which leave a method Tensor already has)."""
    _install_over_functional(cls)
    _install_math_methods(cls)
    _install_array_methods(cls)  # sort, topk, tril, flip, std, ... (array_func)
    _install_mirrored_methods(cls)  # add, permute, float, median, ...
    from msc.ops import inplace_methods

    inplace_methods.install(cls)  # add_, zero_, masked_fill_, ...


install(Tensor)
