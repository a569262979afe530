"""``mindspore.common.api``: the decorators a model file uses on its own code.

``jit`` (defined with the graph front end, ``frontend/jit.py``) compiles a function or
Cell; ``jit_class`` makes a user class's methods compile into the graphs that use it;
``lazy_inline`` marks a Cell's instances as repeated blocks to compile once; ``mutable``
marks a graph input as variable.

A ``@jit_class`` class's methods are interpreted like ``construct`` inside a graph: tensor
arguments become IR. The methods of a plain class run as ordinary Python at compile
time, so they may only see constants; given a graph tensor, msc says to add
``@jit_class``. Instances made inside a graph must be built from constants. In PyNative
mode the decorator changes nothing.

``lazy_inline`` goes on ``Cell.__init__``, as in MindSpore; after it runs, the instance
carries ``cell_init_args`` (its class name and the arguments it was built with) and
``no_inline``. The compiler does not trust ``cell_init_args`` to decide which instances
may share a graph: it keys each instance by what ``construct`` actually reads, so an
attribute changed after ``__init__`` gets a graph of its own.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from msc.errors import GraphTypeError
from msc.common.mutable import mutable
from msc.frontend.hooks import is_cell_class
from msc.frontend.jit import jit, ms_function

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
    if not inspect.isclass(cls):
        raise GraphTypeError(f"Decorator jit_class can only be used for class type, but got {cls}.")
    if is_cell_class(cls):
        raise GraphTypeError("Decorator jit_class is used for user-defined classes and cannot be "
                             f"used for nn.Cell: {cls.__name__}<>.")
    setattr(cls, _MARK, True)
    return cls


ms_class = jit_class  # MindSpore's earlier name


def is_jit_class(obj: Any) -> bool:
    """Whether ``obj`` is a ``@jit_class`` class, a subclass of one, or an instance."""
    cls = obj if inspect.isclass(obj) else type(obj)
    return bool(getattr(cls, _MARK, False))


def lazy_inline(fn: Callable[..., Any] | None = None, *, attrs: Any = None,
                policy: str | None = None) -> Any:
    """Decorate ``Cell.__init__`` so that the compiler reuses one graph for the instances.

    Args:
        fn: the ``__init__`` to wrap (``@lazy_inline`` and ``@lazy_inline(...)`` both work).
        attrs: names of ``__init__`` arguments to record (default: all of them), or one name.
        policy: accepted for compatibility (MindSpore's "front"); msc shares graphs the same
            way whatever it says.

    Example:
        >>> class Block(nn.Cell):
        ...     @lazy_inline
        ...     def __init__(self, width):
        ...         super().__init__()
        ...         self.dense = nn.Dense(width, width)
    """
    if policy not in (None, "front"):
        raise GraphTypeError(f"lazy_inline: policy must be None or 'front', got {policy!r}")
    if fn is None:
        return lambda f: lazy_inline(f, attrs=attrs, policy=policy)
    if not callable(fn) or getattr(fn, "__name__", None) != "__init__":
        raise GraphTypeError("lazy_inline decorates a Cell's __init__ method, not "
                             f"{getattr(fn, '__qualname__', fn)!r}")
    signature = inspect.signature(fn)
    wanted = (attrs,) if isinstance(attrs, str) else attrs

    @functools.wraps(fn)
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        fn(self, *args, **kwargs)
        arguments = {k: v for k, v in list(bound.arguments.items())[1:]
                     if wanted is None or k in wanted}
        self.cell_init_args = f"lazy_inline_{type(self).__name__}{arguments}"
        self.no_inline = True

    init.__lazy_inline__ = True  # type: ignore[attr-defined]
    return init


__all__ = ["jit", "ms_function", "jit_class", "ms_class", "lazy_inline", "mutable"]
