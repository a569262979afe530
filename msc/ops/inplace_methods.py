"""Tensor's in-place methods (``x.add_(y)``, ``x.zero_()``, ``x.masked_fill_(m, v)``,
...), each the out-of-place op written back into the tensor, which it returns.

Eagerly the result (cast to the tensor's dtype) is copied into the tensor's own buffer,
so every reference sees it; a Parameter inside a graph is written with ``ops.assign``
(the method returns its new value). A tensor a graph computes has no buffer to write:
there the method refuses, naming the out-of-place form to use instead.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from msc.common.tensor import Parameter, SymTensor, Tensor, apply
from msc.errors import GraphTypeError
from msc.ir import dtypes
from msc.ir.primitives import Op
from msc.ops import functional as F


def _write_back(self: Any, out: Any, name: str) -> Any:
    if isinstance(self, Parameter):
        if isinstance(out, SymTensor):
            from msc.ops.function.side_effect_func import assign

            return assign(self, F.cast(out, self.dtype) if out.dtype != self.dtype else out)
        self.asnumpy()[...] = np.asarray(out.asnumpy() if isinstance(out, Tensor) else out,
                                         self.dtype.np)
        return self
    if isinstance(self, SymTensor):
        raise GraphTypeError(f"the in-place method '{name}' writes a tensor the graph "
                             f"computes, which msc does not support: use its result "
                             f"form ('y = x.{name[:-1]}(...)') or a Parameter",
                             self.builder.loc)
    self.asnumpy()[...] = np.asarray(out.asnumpy() if isinstance(out, Tensor) else out,
                                     self.dtype.np)
    return self


def _inplace(name: str, compute: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _write_back(self, compute(self, *args, **kwargs), name)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = f"``Tensor.{name}``: ``{name[:-1]}`` written back into this tensor."
    return method


def _forms() -> dict[str, Callable[..., Any]]:
    from msc.ops.function import array_func as A
    from msc.ops.function import scatter_func as S
    from msc.ops.function.linalg_func import addmm
    from msc.ops.function.manipulation_func import index_fill
    from msc.ops.function.stats_func import fill_diagonal

    def add(self: Any, other: Any, *, alpha: Any = 1) -> Any:
        return self + (other if alpha == 1 else other * alpha)

    def sub(self: Any, other: Any, *, alpha: Any = 1) -> Any:
        return self - (other if alpha == 1 else other * alpha)

    def index_add(self: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Any:
        return A.index_add(self, index, source if alpha == 1 else source * alpha, dim)

    def scatter(self: Any, dim: int, index: Any, src: Any = None, *, value: Any = None,
                reduce: Any = None) -> Any:
        if src is None or not isinstance(src, Tensor):
            src = F.fill(self.dtype, index.shape, value if src is None else src)
        mode = {None: "none", "add": "add", "multiply": "mul"}.get(reduce, reduce)
        return A.tensor_scatter_elements(self, index, src, dim, mode)

    def index_copy(self: Any, dim: int, index: Any, tensor: Any) -> Any:
        axis = dim % self.ndim
        shape = [1] * tensor.ndim
        shape[axis] = -1
        where = F.broadcast_to(F.reshape(index, tuple(shape)), tensor.shape)
        return A.tensor_scatter_elements(self, where, tensor, axis)

    def put(self: Any, index: Any, source: Any, accumulate: bool = False) -> Any:
        flat = F.reshape(self, (-1,))
        where = F.reshape(F.cast(index, dtypes.int64) % flat.shape[0], (-1, 1))
        values = F.reshape(F.cast(source, self.dtype), (-1,))
        out = (A.tensor_scatter_add if accumulate else A.tensor_scatter_update)(flat, where,
                                                                                values)
        return F.reshape(out, self.shape)

    return {
        "add_": add, "sub_": sub, "index_copy_": index_copy, "put_": put,
        "assign_value": lambda self, value: F.broadcast_to(F.cast(value, self.dtype),
                                                           self.shape),
        "uniform_": lambda self, from_=0.0, to=1.0, *, generator=None:
            _uniform(self.shape, from_, to),
        "bernoulli_": lambda self, p=0.5, *, generator=None:
            F.cast(_uniform(self.shape, 0.0, 1.0) < p, self.dtype),
        "normal_": lambda self, mean=0.0, std=1.0, *, generator=None:
            _normal(self.shape) * std + mean,
        "exponential_": lambda self, lambd=1.0, *, generator=None:
            -apply(Op.Log, 1.0 - _uniform(self.shape, 0.0, 1.0)) / lambd,
        "random_": lambda self, from_=0, to=None, *, generator=None:
            apply(Op.Floor, _uniform(self.shape, 0.0, 1.0) * ((to if to is not None else
                  _random_top(self)) - from_)) + from_,
        "mul_": lambda self, other: self * other,
        "div_": lambda self, value, *, rounding_mode=None:
            F.div(self, value, rounding_mode=rounding_mode),
        "remainder_": lambda self, other: apply(Op.FloorMod, self, other),
        "floor_divide_": lambda self, other: apply(Op.FloorDiv, self, other),
        "clamp_": lambda self, min=None, max=None: F.clamp(self, min, max),
        "copy_": lambda self, src, non_blocking=False: F.broadcast_to(
            F.cast(src, self.dtype), self.shape),
        "fill_": lambda self, value: F.fill(self.dtype, self.shape, value),
        "zero_": lambda self: F.zeros(self.shape, self.dtype),
        "erfinv_": lambda self: apply(Op.Erfinv, self),
        "exp_": lambda self: apply(Op.Exp, self),
        "floor_": lambda self: apply(Op.Floor, self),
        "log_": lambda self: apply(Op.Log, self),
        "sigmoid_": lambda self: apply(Op.Sigmoid, self),
        "sign_": lambda self: apply(Op.Sign, self),
        "tanh_": lambda self: apply(Op.Tanh, self),
        "addmm_": lambda self, mat1, mat2, *, beta=1, alpha=1:
            addmm(self, mat1, mat2, beta=beta, alpha=alpha),
        "fill_diagonal_": lambda self, fill_value, wrap=False:
            fill_diagonal(self, fill_value, wrap),
        "index_add_": index_add,
        "index_fill_": lambda self, dim, index, value: index_fill(self, dim, index, value),
        "masked_fill_": lambda self, mask, value: A.masked_fill(self, mask, value),
        "masked_scatter_": lambda self, mask, source: S.masked_scatter(self, mask, source),
        "index_put_": lambda self, indices, values, accumulate=False:
            S.index_put(self, indices, values, accumulate),
        "scatter_": scatter,
        "scatter_add_": lambda self, dim, index, src:
            A.tensor_scatter_elements(self, index, src, dim, "add"),
    }


# --- draws (not MindSpore's numbers: its generator differs; the distributions are its) ---


def _uniform(shape: tuple[int, ...], low: float, high: float) -> Any:
    from msc.ops.function.random_func import uniform_draw

    return uniform_draw(shape) * (high - low) + low


def _normal(shape: tuple[int, ...]) -> Any:
    """Standard normal numbers by the Box-Muller transform of two uniform draws."""
    radius = F.sqrt(-2.0 * apply(Op.Log, 1.0 - _uniform(shape, 0.0, 1.0)))
    return radius * apply(Op.Cos, _uniform(shape, 0.0, 2 * np.pi))


def _random_top(x: Any) -> int:
    """``random_``'s default end: 2**mantissa bits for floats, the dtype's max for ints."""
    if x.dtype.is_float:
        return 2 ** (np.finfo(x.dtype.np).nmant + 1)
    return int(np.iinfo(x.dtype.np).max)


def _drawn(self: Any, out: Any) -> Any:
    return F.cast(out, self.dtype)


RANDOM_METHODS = {
    "uniform": lambda self, from_=0.0, to=1.0, generator=None:
        _drawn(self, _uniform(self.shape, from_, to)),
    "bernoulli": lambda self, *, generator=None:
        _drawn(self, _uniform(self.shape, 0.0, 1.0) < self),
    "log_normal": lambda self, mean=1.0, std=2.0:
        _drawn(self, apply(Op.Exp, _normal(self.shape) * std + mean)),
    "cauchy": lambda self, median=0.0, sigma=1.0:
        _drawn(self, apply(Op.Tan, (_uniform(self.shape, 0.0, 1.0) - 0.5) * np.pi) * sigma
               + median),
}


def _set_dtype(self: Any, dtype: Any) -> Any:
    """This tensor's values, converted to ``dtype`` in place."""
    if isinstance(self, SymTensor):
        raise GraphTypeError("set_dtype changes a tensor in place, which a graph cannot "
                             "do: use 'x.astype(dtype)'", self.builder.loc)
    self._data = self.asnumpy().astype(dtype.np)
    return self


def _requires_grad(self: Any, requires_grad: bool = True) -> Any:
    self.requires_grad = requires_grad
    return self


def _set_const_arg(self: Any, const_arg: bool = True) -> Any:
    self.const_arg = const_arg
    return self


OTHER_METHODS = {
    **RANDOM_METHODS, "set_dtype": _set_dtype, "requires_grad_": _requires_grad,
    "set_const_arg": _set_const_arg, "const_arg": False,
    "pin_memory": lambda self: self, "move_to": lambda self, to="CPU", blocking=True: self,
}


def install(cls: type) -> None:
    """Add the in-place methods to ``cls`` (Tensor), leaving any it already has."""
    for name, compute in _forms().items():
        if name not in vars(cls):
            setattr(cls, name, _inplace(name, compute))
    for name, method in OTHER_METHODS.items():
        if name not in vars(cls):
            setattr(cls, name, method)
