"""What is fixed when a graph is built: ``ops.constexpr`` functions and ``ms.mutable``."""

from __future__ import annotations

import functools
from typing import Any, Callable

from msc.errors import GraphTypeError
from msc.frontend.api.tensor import Parameter, SymTensor


class ConstExpr:
    """A function run by Python itself while the graph is built (not compiled): it takes
    and returns constants, such as shapes and dtypes."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, (SymTensor, Parameter)) for a in (*args, *kwargs.values())):
            raise GraphTypeError(f"the constexpr function '{self.fn.__name__}' takes "
                                 "constants, not tensors computed by the graph")
        return self.fn(*args, **kwargs)


def constexpr(fn: Callable[..., Any] | None = None, *, get_instance: bool = True,
              name: str | None = None, reuse_result: bool = True,
              check: bool = True) -> Any:
    """``@ops.constexpr`` (also ``@constexpr(...)``): MindSpore's keywords are accepted
    and change nothing, since msc runs the function on every build."""
    if fn is None:
        return ConstExpr
    return ConstExpr(fn)


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """``ms.mutable(x)``: ``x`` itself. msc already compiles tensors, also inside tuples
    and lists, as graph inputs; a Python number stays a constant of the compile (a new
    value compiles again, with the same results)."""
    return input_data
