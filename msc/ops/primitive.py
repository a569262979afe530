"""``mindspore.ops.primitive``: ``Primitive``, the base of the primitive classes
(``ops.Add()``, ``ops.Conv2D(...)``), and ``ops.constexpr``, a function run while the graph is
built.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from msc.common.tensor import Parameter, SymTensor
from msc.errors import GraphTypeError


class Primitive:
    """Base of the primitive classes; ``attrs`` holds the ``__init__`` arguments. A class's
    ``name`` is its own name (``Prim[ReduceSum]``)."""

    name = "Primitive"

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        cls.name = cls.__name__

    def __init__(self, **attrs: Any):
        self.attrs: dict[str, Any] = dict(attrs)

    def add_prim_attr(self, name: str, value: Any) -> Primitive:
        self.attrs[name] = value
        return self

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]" + (f"<{shown}>" if shown else "")


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


__all__ = ["Primitive", "constexpr"]
