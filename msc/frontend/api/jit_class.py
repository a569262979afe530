"""``jit_class``: a user class whose methods compile into the graph.

Inside a graph, the methods of a ``@jit_class`` class (and of its subclasses) are
interpreted like ``construct``: tensor arguments become IR. The methods of a plain
class run as ordinary Python at compile time, so they may only see constants; given a
graph tensor, msc says to add ``@jit_class``. Instances made inside a graph must be
built from constants. In PyNative mode the decorator changes nothing.
"""

from __future__ import annotations

import inspect
from typing import Any

from msc.errors import GraphTypeError

_MARK = "__ms_class__"  # the attribute MindSpore sets; subclasses inherit it


def jit_class(cls: type) -> type:
    """Compile the methods of ``cls`` into the graphs that use it (``mindspore.jit_class``).

    Example:
        >>> @jit_class
        ... class Scale:
        ...     def __init__(self, k):
        ...         self.k = k
        ...     def __call__(self, x):
        ...         return x * self.k
    """
    from msc.frontend.api.cell import Cell

    if not inspect.isclass(cls):
        raise GraphTypeError(f"Decorator jit_class can only be used for class type, but got {cls}.")
    if issubclass(cls, Cell):
        raise GraphTypeError("Decorator jit_class is used for user-defined classes and cannot be "
                             f"used for nn.Cell: {cls.__name__}<>.")
    setattr(cls, _MARK, True)
    return cls


ms_class = jit_class  # MindSpore's earlier name


def is_jit_class(obj: Any) -> bool:
    """Whether ``obj`` is a ``@jit_class`` class, a subclass of one, or an instance."""
    cls = obj if inspect.isclass(obj) else type(obj)
    return bool(getattr(cls, _MARK, False))
