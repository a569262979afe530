"""``lazy_inline``: mark a Cell's instances as repeated blocks to compile once.

As in MindSpore, the decorator goes on ``Cell.__init__``; after it runs, the instance
carries ``cell_init_args`` (its class name and the arguments it was built with) and
``no_inline``. The compiler does not trust ``cell_init_args`` to decide which
instances may share a graph: it keys each instance by what ``construct`` actually
reads, so an attribute changed after ``__init__`` gets a graph of its own.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from msc.errors import GraphTypeError


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
